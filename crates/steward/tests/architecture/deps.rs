//! Dependencies between modules, and their cycles.
//!
//! The rule (also in docs/ARCHITECTURE.md): a reference from module A to module B (a `use`, or
//! a `crate::`/`super::`/`self::` path in the code) is resolved to the module that defines
//! the item, following re-exports (`pub use`, plain `use`, globs). If A and B are the same
//! module, or one contains the other, it is the module tree itself and does not count: a
//! child may use its parent's items (`super::X`), a parent its children's. Otherwise it is a
//! dependency between the two children of their closest common module that hold A and B
//! (`crate::sql::guard` → `crate::args` makes `sql → args` under `crate`). Under every module,
//! the dependencies between its children must not form a cycle. `#[cfg(test)]` modules are
//! left out, like dev-dependencies between crates.
//!
//! Owns: resolving references, lifting them to siblings, finding cycles. Does not own reading
//! the source (`modules.rs`) or which crates are checked (`cycles.rs`).

use crate::modules::Tree;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::path::Path;

/// Per parent module (`crate`, `crate::approvals`, …): dependencies between its children,
/// each with the first reference that made it.
pub type Edges = BTreeMap<String, BTreeMap<(String, String), String>>;

/// Re-exports of re-exports are followed this deep at most (a guard against `use` loops).
const MAX_DEPTH: usize = 16;

enum Step {
    Module(usize),
    Item(usize),
}

/// One segment `seg` inside module `at`: a child module, a name it imports, an item it
/// defines, or a name one of its globs brings in. None when unknown here.
fn step(tree: &Tree, at: usize, seg: &str, depth: usize) -> Option<Step> {
    let module = &tree.modules[at];
    if let Some(child) = module.children.get(seg) {
        return Some(Step::Module(*child));
    }
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(item) = module.uses.iter().find(|u| u.name.as_deref() == Some(seg)) {
        return match resolve(tree, at, &item.path, depth + 1) {
            Some((m, true)) => Some(Step::Module(m)),
            Some((m, false)) => Some(Step::Item(m)),
            None => None,
        };
    }
    if module.items.contains(seg) {
        return Some(Step::Item(at));
    }
    module
        .uses
        .iter()
        .filter(|u| u.name.is_none())
        .filter_map(|glob| match resolve(tree, at, &glob.path, depth + 1) {
            Some((g, true)) if g != at => step(tree, g, seg, depth + 1),
            _ => None,
        })
        .next()
}

/// The module `path` (as written in module `from`) leads to, and whether it names that
/// module itself (rather than an item in it). None for a path into another crate.
pub fn resolve(tree: &Tree, from: usize, path: &[String], depth: usize) -> Option<(usize, bool)> {
    let first = path.first()?;
    let (mut at, mut rest) = match first.as_str() {
        "crate" => (0, &path[1..]),
        "self" => (from, &path[1..]),
        "super" => (from, path),
        // A relative `use` path: a child, a name in scope here, or else another crate.
        _ => match step(tree, from, first, depth) {
            Some(_) => (from, path),
            None => return None,
        },
    };
    while let Some((seg, tail)) = rest.split_first() {
        rest = tail;
        match seg.as_str() {
            "super" => at = tree.modules[at].parent?,
            "self" => {}
            _ => match step(tree, at, seg, depth) {
                Some(Step::Module(m)) => at = m,
                Some(Step::Item(m)) => return Some((m, false)),
                // Something this reader cannot see (a macro's item): it is in `at`.
                None => return Some((at, false)),
            },
        }
    }
    Some((at, true))
}

fn shown(path: &[String]) -> String {
    if path.is_empty() {
        "crate".to_owned()
    } else {
        format!("crate::{}", path.join("::"))
    }
}

/// Every dependency between sibling modules of the tree; witnesses name files relative to
/// `base`.
pub fn edges(tree: &Tree, base: &Path) -> Edges {
    let mut out = Edges::new();
    for (from, module) in tree.modules.iter().enumerate() {
        if module.test_only {
            continue;
        }
        for r in &module.refs {
            let Some((to, _)) = resolve(tree, from, &r.path, 0) else {
                continue;
            };
            let target = &tree.modules[to];
            if target.test_only {
                continue;
            }
            let (a, b) = (&module.path, &target.path);
            let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            if common == a.len() || common == b.len() {
                continue;
            }
            let file = r.file.strip_prefix(base).unwrap_or(&r.file);
            let witness = format!("{}:{} `{}`", file.display(), r.line, r.path.join("::"));
            out.entry(shown(&a[..common]))
                .or_default()
                .entry((a[common].clone(), b[common].clone()))
                .or_insert(witness);
        }
    }
    out
}

/// A cycle among the children of `parent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    pub parent: String,
    /// Every module of the strongly connected set the cycle is in.
    pub members: BTreeSet<String>,
    /// One shortest cycle through the first member: `a → b → a`, with each step's witness.
    pub steps: Vec<(String, String, String)>,
    /// Every dependency between two members, with its witness: what cutting the set means.
    pub within: Vec<(String, String, String)>,
}

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self.steps.iter().map(|(a, _, _)| a.as_str()).collect();
        names.extend(self.steps.first().map(|(a, _, _)| a.as_str()));
        write!(f, "under `{}`: {}", self.parent, names.join(" → "))?;
        for (a, b, witness) in &self.steps {
            write!(f, "\n    {a} → {b}: {witness}")?;
        }
        let all: Vec<&str> = self.members.iter().map(String::as_str).collect();
        write!(
            f,
            "\n    all of {{{}}} depend on each other:",
            all.join(", ")
        )?;
        for (a, b, witness) in &self.within {
            write!(f, "\n      {a} → {b}: {witness}")?;
        }
        Ok(())
    }
}

fn reachable(adj: &BTreeMap<&str, Vec<&str>>, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![start];
    while let Some(n) = todo.pop() {
        for next in adj.get(n).into_iter().flatten() {
            if seen.insert((*next).to_owned()) {
                todo.push(next);
            }
        }
    }
    seen
}

/// Every cycle, one per strongly connected set of sibling modules.
pub fn cycles(edges: &Edges) -> Vec<Cycle> {
    let mut out = Vec::new();
    for (parent, deps) in edges {
        let mut adj: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (a, b) in deps.keys() {
            adj.entry(a.as_str()).or_default().push(b.as_str());
        }
        let reach: BTreeMap<&str, BTreeSet<String>> =
            adj.keys().map(|n| (*n, reachable(&adj, n))).collect();
        let mut done: BTreeSet<String> = BTreeSet::new();
        for (node, from_node) in &reach {
            if done.contains(*node) || !from_node.contains(*node) {
                continue;
            }
            let members: BTreeSet<String> = from_node
                .iter()
                .filter(|m| reach.get(m.as_str()).is_some_and(|r| r.contains(*node)))
                .cloned()
                .collect();
            done.extend(members.iter().cloned());
            let steps = shortest_cycle(&adj, node, &members)
                .windows(2)
                .map(|w| {
                    let witness = deps[&(w[0].clone(), w[1].clone())].clone();
                    (w[0].clone(), w[1].clone(), witness)
                })
                .collect();
            let within = deps
                .iter()
                .filter(|((a, b), _)| members.contains(a) && members.contains(b))
                .map(|((a, b), w)| (a.clone(), b.clone(), w.clone()))
                .collect();
            out.push(Cycle {
                parent: parent.clone(),
                members,
                steps,
                within,
            });
        }
    }
    out
}

/// `start → … → start` by breadth-first search inside `members`.
fn shortest_cycle(
    adj: &BTreeMap<&str, Vec<&str>>,
    start: &str,
    members: &BTreeSet<String>,
) -> Vec<String> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        for next in adj.get(n).into_iter().flatten() {
            if !members.contains(*next) {
                continue;
            }
            if *next == start {
                // Back from `n` to `start`, then reversed and closed: start → … → n → start.
                let mut path = vec![n.to_owned()];
                let mut at = n;
                while at != start {
                    at = came_from[at];
                    path.push(at.to_owned());
                }
                path.reverse();
                path.push(start.to_owned());
                return path;
            }
            if !came_from.contains_key(next) && *next != start {
                came_from.insert(next, n);
                queue.push_back(next);
            }
        }
    }
    vec![start.to_owned()]
}
