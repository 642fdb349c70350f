//! The module tree of one crate, read from its source: every `mod` (files, `#[path]`, inline
//! blocks), what each module defines, its `use` declarations and the `crate::`, `super::` and
//! `self::` paths it mentions. `deps.rs` turns it into dependencies between modules.
//!
//! Owns: finding the modules and what each refers to. Does not own resolving a path to the
//! module that defines it or the cycle rule (`deps.rs`). `#[cfg(test)]` modules are marked,
//! since the rule leaves them out.

use crate::source::{Kind, Tok, tokens};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One `use` leaf: `use a::b::c as d;` binds `d` to `a::b::c`; a glob binds nothing.
#[derive(Debug, Clone)]
pub struct UseItem {
    /// None for a glob (`use a::*`).
    pub name: Option<String>,
    pub path: Vec<String>,
}

/// A path as written in a module, and where.
#[derive(Debug, Clone)]
pub struct Reference {
    pub path: Vec<String>,
    pub file: PathBuf,
    pub line: usize,
}

#[derive(Debug, Default)]
pub struct Module {
    /// Names from the crate root (empty for the root).
    pub path: Vec<String>,
    pub parent: Option<usize>,
    pub children: BTreeMap<String, usize>,
    /// Items it defines (types, functions, constants, macros, …).
    pub items: BTreeSet<String>,
    pub uses: Vec<UseItem>,
    pub refs: Vec<Reference>,
    /// Under `#[cfg(test)]`, itself or an ancestor.
    pub test_only: bool,
}

#[derive(Debug)]
pub struct Tree {
    pub modules: Vec<Module>,
    /// Module files that a `mod` declaration names but that do not exist.
    pub missing: Vec<String>,
}

/// Reads a file; the checks pass the file system, the self-tests a map.
pub type Reader<'a> = &'a dyn Fn(&Path) -> Option<String>;

/// Builds the tree of the crate whose root file is `root` (`src/lib.rs`, `src/main.rs`, …).
pub fn load(root: &Path, read: Reader<'_>) -> Tree {
    let mut tree = Tree {
        modules: vec![Module::default()],
        missing: Vec::new(),
    };
    match read(root) {
        Some(text) => parse_file(&mut tree, 0, root, true, &text, read),
        None => tree.missing.push(root.display().to_string()),
    }
    tree
}

fn add_child(tree: &mut Tree, parent: usize, name: &str, test_only: bool) -> usize {
    let mut path = tree.modules[parent].path.clone();
    path.push(name.to_owned());
    let index = tree.modules.len();
    tree.modules.push(Module {
        path,
        parent: Some(parent),
        test_only: test_only || tree.modules[parent].test_only,
        ..Module::default()
    });
    tree.modules[parent].children.insert(name.to_owned(), index);
    index
}

/// The file of `mod name;` declared in `file` inside the inline modules `inline`.
fn module_file(
    file: &Path,
    mod_rs: bool,
    inline: &[String],
    name: &str,
    path_attr: Option<&str>,
    read: Reader<'_>,
) -> Option<(PathBuf, String)> {
    let here = file.parent().unwrap_or(Path::new(""));
    if let Some(p) = path_attr {
        let mut dir = here.to_path_buf();
        dir.extend(inline);
        let path = dir.join(p);
        return read(&path).map(|text| (path, text));
    }
    let mut dir = here.to_path_buf();
    if !mod_rs && let Some(stem) = file.file_stem() {
        dir.push(stem);
    }
    dir.extend(inline);
    [
        dir.join(format!("{name}.rs")),
        dir.join(name).join("mod.rs"),
    ]
    .into_iter()
    .find_map(|path| read(&path).map(|text| (path, text)))
}

/// Attributes seen since the last item: `#[path = "…"]` and whether one is `cfg(test)`.
#[derive(Default)]
struct Pending {
    path: Option<String>,
    cfg_test: bool,
}

fn attribute(toks: &[Tok], pending: &mut Pending) {
    let words: Vec<&str> = toks.iter().map(|t| t.text.as_str()).collect();
    if words.first() == Some(&"path")
        && let Some(s) = toks.iter().find(|t| t.kind == Kind::Str)
    {
        pending.path = Some(s.text.clone());
    }
    if words.first() == Some(&"cfg") && words.contains(&"test") && !words.contains(&"not") {
        pending.cfg_test = true;
    }
}

/// Where the `[` of an attribute starting at `hash` (`#[…]` or `#![…]`) is.
fn attribute_open(toks: &[Tok], hash: usize) -> Option<usize> {
    let bang = toks.get(hash + 1).is_some_and(|t| t.is(Kind::Punct, "!"));
    let open = if bang { hash + 2 } else { hash + 1 };
    toks.get(open)
        .filter(|t| t.is(Kind::Punct, "["))
        .map(|_| open)
}

/// Index just past the bracket group that opens at `open` (which holds `[`, `(` or `{`).
fn close_of(toks: &[Tok], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(open) {
        if t.kind == Kind::Punct {
            match t.text.as_str() {
                "[" | "(" | "{" => depth += 1,
                "]" | ")" | "}" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
        }
    }
    toks.len()
}

/// `a::b::c` starting at `at`: the segments and the index after them.
fn path_at(toks: &[Tok], at: usize) -> (Vec<String>, usize) {
    let mut segs = vec![toks[at].text.clone()];
    let mut i = at + 1;
    while i + 1 < toks.len() && toks[i].is(Kind::Punct, "::") && toks[i + 1].kind == Kind::Ident {
        segs.push(toks[i + 1].text.clone());
        i += 2;
    }
    (segs, i)
}

/// Parses a use tree from `at` into `out` (prefix already walked); returns the index after it.
fn use_tree(toks: &[Tok], mut at: usize, prefix: &[String], out: &mut Vec<UseItem>) -> usize {
    let mut path = prefix.to_vec();
    while at < toks.len() {
        let t = &toks[at];
        if t.kind == Kind::Ident && t.text != "as" {
            path.push(t.text.clone());
            at += 1;
            if toks.get(at).is_some_and(|t| t.is(Kind::Punct, "::")) {
                at += 1;
                continue;
            }
            // `use a::b::{self}` binds `b` to the module `a::b`.
            if path.last().is_some_and(|l| l == "self") && path.len() > 1 {
                path.pop();
            }
            let mut name = path.last().cloned();
            if toks.get(at).is_some_and(|t| t.is(Kind::Ident, "as")) {
                name = toks.get(at + 1).map(|t| t.text.clone());
                at += 2;
            }
            out.push(UseItem { name, path });
            return at;
        }
        if t.is(Kind::Punct, "*") {
            out.push(UseItem { name: None, path });
            return at + 1;
        }
        if t.is(Kind::Punct, "{") {
            at += 1;
            while at < toks.len() && !toks[at].is(Kind::Punct, "}") {
                if toks[at].is(Kind::Punct, ",") {
                    at += 1;
                    continue;
                }
                at = use_tree(toks, at, &path, out);
            }
            return at + 1;
        }
        // `::a` (extern crate path) or anything unexpected: skip it.
        at += 1;
    }
    at
}

const ITEM_KEYWORDS: &[&str] = &[
    "struct", "enum", "union", "trait", "type", "fn", "const", "static",
];

/// Reads one file into module `module` (and the modules it declares).
fn parse_file(
    tree: &mut Tree,
    module: usize,
    file: &Path,
    mod_rs: bool,
    text: &str,
    read: Reader<'_>,
) {
    let toks = tokens(text);
    // (module, brace depth at which its block closes, its name) for the inline modules open.
    let mut inline: Vec<(usize, usize, String)> = Vec::new();
    let mut depth = 0usize;
    let mut pending = Pending::default();
    let mut i = 0;
    while i < toks.len() {
        let current = inline.last().map_or(module, |(m, _, _)| *m);
        let t = &toks[i];
        let next = toks.get(i + 1);
        match (t.kind, t.text.as_str()) {
            (Kind::Punct, "#") if attribute_open(&toks, i).is_some() => {
                let open = attribute_open(&toks, i).unwrap_or(i + 1);
                let end = close_of(&toks, open);
                attribute(
                    &toks[(open + 1).min(end)..end.saturating_sub(1)],
                    &mut pending,
                );
                i = end;
                continue;
            }
            (Kind::Ident, "pub") => {
                // Visibility, `pub(in crate::x)` included, is not a reference.
                i += 1;
                if toks.get(i).is_some_and(|t| t.is(Kind::Punct, "(")) {
                    i = close_of(&toks, i);
                }
                continue;
            }
            (Kind::Ident, "mod") if next.is_some_and(|n| n.kind == Kind::Ident) => {
                let name = toks[i + 1].text.clone();
                let child = add_child(tree, current, &name, pending.cfg_test);
                match toks.get(i + 2).map(|t| t.text.as_str()) {
                    Some("{") => {
                        depth += 1;
                        inline.push((child, depth, name));
                        i += 3;
                    }
                    _ => {
                        let names: Vec<String> = inline.iter().map(|(_, _, n)| n.clone()).collect();
                        match module_file(
                            file,
                            mod_rs,
                            &names,
                            &name,
                            pending.path.as_deref(),
                            read,
                        ) {
                            Some((path, text)) => {
                                let child_mod_rs = path.file_name().is_some_and(|n| n == "mod.rs");
                                parse_file(tree, child, &path, child_mod_rs, &text, read);
                            }
                            None => tree.missing.push(format!("{}: mod {name}", file.display())),
                        }
                        i += 3;
                    }
                }
                pending = Pending::default();
                continue;
            }
            (Kind::Ident, "use") => {
                let mut items = Vec::new();
                let end = use_tree(&toks, i + 1, &[], &mut items);
                for item in items {
                    tree.modules[current].refs.push(Reference {
                        path: item.path.clone(),
                        file: file.to_path_buf(),
                        line: t.line,
                    });
                    tree.modules[current].uses.push(item);
                }
                i = end;
                pending = Pending::default();
                continue;
            }
            (Kind::Ident, "crate" | "super" | "self")
                if next.is_some_and(|n| n.is(Kind::Punct, "::")) =>
            {
                let (path, end) = path_at(&toks, i);
                tree.modules[current].refs.push(Reference {
                    path,
                    file: file.to_path_buf(),
                    line: t.line,
                });
                i = end;
                continue;
            }
            (Kind::Ident, word) if ITEM_KEYWORDS.contains(&word) || word == "macro_rules" => {
                let name_at = if word == "macro_rules" { i + 2 } else { i + 1 };
                if let Some(name) = toks.get(name_at).filter(|n| n.kind == Kind::Ident) {
                    tree.modules[current].items.insert(name.text.clone());
                }
            }
            (Kind::Punct, "{") => depth += 1,
            (Kind::Punct, "}") => {
                if inline.last().is_some_and(|(_, d, _)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        pending = Pending::default();
        i += 1;
    }
}
