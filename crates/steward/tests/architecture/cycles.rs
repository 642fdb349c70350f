//! The module-cycle check: in no crate may sibling modules depend on each other in a cycle
//! (the rule: `deps.rs`, docs/ARCHITECTURE.md "Module cycles"). None is allowed: the cycles
//! found when the check came were cut, not listed.
//!
//! Owns: which crate roots are read, the self-tests of the reader and the cycle finder. Does not own the rule itself (`deps.rs`).

use crate::crates_dir;
use crate::deps::{Edges, cycles, edges};
use crate::modules::{Tree, load};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every crate root of the workspace: `(name, crate dir, root file)`.
fn crate_roots() -> Vec<(String, PathBuf, PathBuf)> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(crates_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").exists())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let src = dir.join("src");
        if src.join("lib.rs").exists() {
            out.push((name.clone(), dir.clone(), src.join("lib.rs")));
        }
        if src.join("main.rs").exists() {
            out.push((format!("{name} (bin)"), dir.clone(), src.join("main.rs")));
        }
        let mut bins: Vec<PathBuf> = std::fs::read_dir(src.join("bin"))
            .into_iter()
            .flatten()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        bins.sort();
        for bin in bins {
            let stem = bin.file_stem().unwrap().to_string_lossy().into_owned();
            out.push((format!("{name} (bin {stem})"), dir.clone(), bin));
        }
    }
    out
}

fn read_fs(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[test]
fn no_module_cycles() {
    let mut bad = Vec::new();
    let mut modules_read = BTreeMap::new();
    for (krate, dir, root) in crate_roots() {
        let tree = load(&root, &read_fs);
        assert!(
            tree.missing.is_empty(),
            "{krate}: module files not found: {:?}",
            tree.missing
        );
        modules_read.insert(krate.clone(), tree.modules.len());
        for cycle in cycles(&edges(&tree, &dir)) {
            bad.push(format!("{krate}: {cycle}"));
        }
    }
    assert!(
        bad.is_empty(),
        "module cycles (cut them: move what both sides need into a leaf module, or pass it in):\n{}",
        bad.join("\n")
    );
    // The reader saw the crates' modules, not just their roots.
    for (krate, at_least) in [
        ("steward-tools", 20),
        ("steward-core", 20),
        ("steward-sandbox", 10),
    ] {
        assert!(modules_read[krate] >= at_least, "{krate}: {modules_read:?}");
    }
}

fn edges_of(list: &[(&str, &str, &str)]) -> Edges {
    let mut out = Edges::new();
    for (parent, a, b) in list {
        out.entry((*parent).to_owned())
            .or_default()
            .insert(((*a).to_owned(), (*b).to_owned()), format!("{a}.rs:1"));
    }
    out
}

#[test]
fn the_cycle_finder_names_a_planted_cycle() {
    let planted = edges_of(&[
        ("crate", "a", "b"),
        ("crate", "b", "c"),
        ("crate", "c", "a"),
        ("crate", "c", "d"),
        ("crate", "b", "a"),
        ("crate::x", "p", "q"),
        ("crate::x", "q", "p"),
        ("crate::y", "p", "q"),
    ]);
    let found = cycles(&planted);
    assert_eq!(found.len(), 2, "{found:?}");
    let top = &found[0];
    assert_eq!(top.parent, "crate");
    let members: BTreeSet<&str> = top.members.iter().map(String::as_str).collect();
    assert_eq!(members, BTreeSet::from(["a", "b", "c"]));
    // The shortest cycle through `a`, named with the reference that makes each step.
    let shown = top.to_string();
    assert!(shown.contains("a → b → a"), "{shown}");
    assert!(shown.contains("b → a: b.rs:1"), "{shown}");
    assert_eq!(found[1].parent, "crate::x");
    // Without the back edges nothing is left.
    let acyclic = edges_of(&[
        ("crate", "a", "b"),
        ("crate", "b", "c"),
        ("crate", "a", "c"),
    ]);
    assert!(cycles(&acyclic).is_empty());
}

fn tree_of(files: &[(&str, &str)]) -> Tree {
    let files: BTreeMap<PathBuf, String> = files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), (*t).to_owned()))
        .collect();
    load(Path::new("src/lib.rs"), &|p: &Path| files.get(p).cloned())
}

#[test]
fn the_reader_follows_re_exports_and_leaves_the_tree_itself_alone() {
    let tree = tree_of(&[
        (
            "src/lib.rs",
            "mod tool;\nmod registry;\npub mod sandbox;\npub use tool::Tool;\npub use registry::*;",
        ),
        // Through the root's re-exports: tool → registry and registry → tool.
        (
            "src/tool.rs",
            "use crate::Registry;\n// crate::sandbox in a comment\nconst S: &str = \"crate::sandbox::run\";\npub trait Tool {}",
        ),
        (
            "src/registry.rs",
            "pub struct Registry;\nfn run(_: &dyn crate::Tool) {}",
        ),
        // A parent and its children use each other: the tree, not a cycle. The children
        // `run` and `child` do form one, and a test module's use of `tool` does not count.
        (
            "src/sandbox/mod.rs",
            "mod run;\n#[path = \"kid.rs\"]\nmod child;\npub struct Job;\nuse run::go;\n#[cfg(test)]\nmod tests { use crate::tool::Tool; }",
        ),
        (
            "src/sandbox/run.rs",
            "use super::{Job, child::{self, Plan}};\npub fn go() {}",
        ),
        (
            "src/sandbox/kid.rs",
            "pub struct Plan;\nfn f() { super::run::go() }",
        ),
    ]);
    assert!(tree.missing.is_empty(), "{:?}", tree.missing);
    let found: Vec<String> = cycles(&edges(&tree, Path::new("")))
        .iter()
        .map(|c| format!("{} {:?}", c.parent, c.members))
        .collect();
    assert_eq!(
        found,
        [
            "crate {\"registry\", \"tool\"}",
            "crate::sandbox {\"child\", \"run\"}"
        ]
    );
    // The comment and the string named `sandbox`, the test module `tool`: neither counts.
    let all = edges(&tree, Path::new(""));
    assert!(
        !all["crate"]
            .keys()
            .any(|(a, b)| a == "sandbox" || b == "sandbox"),
        "{all:?}"
    );
}
