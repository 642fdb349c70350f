//! Dynamic code in Python: what a pattern scan of the text cannot see, because the code
//! that runs is built, decoded or looked up at run time — `exec`, `eval`, `compile`,
//! `__import__`, `importlib`, `getattr`/`setattr` with computed names, lookups by key in
//! `__builtins__`/`globals()`/`sys.modules`, names spelled in strings (`'ex'+'ec'`), and
//! decoders that hide a payload (`base64`, `codecs`, `bytes.fromhex`, `marshal`, `pickle`).
//! Each is at least medium; decoding *and* running code together is high.
//!
//! Works on tokens (`pylex`), so comments, strings and spacing (`eval ( x )`) do not fool it,
//! and resolves names through the code's imports and simple assignments
//! (`from base64 import b64decode as d`, `e = eval`).
//!
//! Owns: the dynamic-code rules. Does not own the other Python patterns (`python`) or
//! combining findings (`Judge`). Advisory only: the sandbox is the containment.

use super::pylex::{Tok, lex};
use super::{Judge, Risk};
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Runs or compiles code given as data.
    Runs,
    /// Imports a module named at run time.
    Imports,
    /// Turns an opaque payload back into bytes or text.
    Decodes,
    /// Deserialises objects or code (both runs and decodes).
    Loads,
}

/// Canonical names (after imports are resolved; builtins as `builtins.X`). An entry ending
/// in `.` is a prefix; others match exactly or with further attributes.
const TABLE: &[(&str, Kind, &str)] = &[
    ("builtins.exec", Kind::Runs, "runs code built at run time"),
    ("builtins.eval", Kind::Runs, "runs code built at run time"),
    (
        "builtins.execfile",
        Kind::Runs,
        "runs code built at run time",
    ),
    (
        "builtins.compile",
        Kind::Runs,
        "compiles code built at run time",
    ),
    (
        "builtins.__import__",
        Kind::Imports,
        "imports a module chosen at run time",
    ),
    (
        "importlib.import_module",
        Kind::Imports,
        "imports a module chosen at run time",
    ),
    (
        "importlib.__import__",
        Kind::Imports,
        "imports a module chosen at run time",
    ),
    (
        "importlib.util.",
        Kind::Imports,
        "loads a module from a file",
    ),
    (
        "importlib.machinery.",
        Kind::Imports,
        "loads a module from a file",
    ),
    ("runpy.", Kind::Runs, "runs a module or file as code"),
    (
        "types.CodeType",
        Kind::Runs,
        "builds a function from raw code",
    ),
    (
        "types.FunctionType",
        Kind::Runs,
        "builds a function from raw code",
    ),
    ("base64.b64decode", Kind::Decodes, "decodes hidden data"),
    (
        "base64.standard_b64decode",
        Kind::Decodes,
        "decodes hidden data",
    ),
    (
        "base64.urlsafe_b64decode",
        Kind::Decodes,
        "decodes hidden data",
    ),
    ("base64.b32decode", Kind::Decodes, "decodes hidden data"),
    ("base64.b32hexdecode", Kind::Decodes, "decodes hidden data"),
    ("base64.b16decode", Kind::Decodes, "decodes hidden data"),
    ("base64.b85decode", Kind::Decodes, "decodes hidden data"),
    ("base64.a85decode", Kind::Decodes, "decodes hidden data"),
    ("base64.decodebytes", Kind::Decodes, "decodes hidden data"),
    ("base64.decodestring", Kind::Decodes, "decodes hidden data"),
    ("base64.decode", Kind::Decodes, "decodes hidden data"),
    ("codecs.decode", Kind::Decodes, "decodes hidden data"),
    ("codecs.getdecoder", Kind::Decodes, "decodes hidden data"),
    (
        "builtins.bytes.fromhex",
        Kind::Decodes,
        "decodes hidden data",
    ),
    (
        "builtins.bytearray.fromhex",
        Kind::Decodes,
        "decodes hidden data",
    ),
    ("binascii.a2b_base64", Kind::Decodes, "decodes hidden data"),
    ("binascii.a2b_hex", Kind::Decodes, "decodes hidden data"),
    ("binascii.unhexlify", Kind::Decodes, "decodes hidden data"),
    ("binascii.a2b_uu", Kind::Decodes, "decodes hidden data"),
    (
        "marshal.loads",
        Kind::Loads,
        "loads compiled code from bytes",
    ),
    (
        "marshal.load",
        Kind::Loads,
        "loads compiled code from bytes",
    ),
    (
        "pickle.loads",
        Kind::Loads,
        "unpickles data, which can run any code",
    ),
    (
        "pickle.load",
        Kind::Loads,
        "unpickles data, which can run any code",
    ),
    (
        "pickle.Unpickler",
        Kind::Loads,
        "unpickles data, which can run any code",
    ),
    (
        "_pickle.",
        Kind::Loads,
        "unpickles data, which can run any code",
    ),
    (
        "dill.load",
        Kind::Loads,
        "unpickles data, which can run any code",
    ),
    (
        "cloudpickle.load",
        Kind::Loads,
        "unpickles data, which can run any code",
    ),
];

/// Attribute names that mean the same whatever object they hang on (`x().b64decode`).
const TELLING_ATTRS: &[(&str, Kind, &str)] = &[
    ("b64decode", Kind::Decodes, "decodes hidden data"),
    ("urlsafe_b64decode", Kind::Decodes, "decodes hidden data"),
    ("b32decode", Kind::Decodes, "decodes hidden data"),
    ("b85decode", Kind::Decodes, "decodes hidden data"),
    ("a85decode", Kind::Decodes, "decodes hidden data"),
    ("fromhex", Kind::Decodes, "decodes hidden data"),
    ("unhexlify", Kind::Decodes, "decodes hidden data"),
    ("a2b_base64", Kind::Decodes, "decodes hidden data"),
    (
        "import_module",
        Kind::Imports,
        "imports a module chosen at run time",
    ),
    ("exec_module", Kind::Imports, "loads a module from a file"),
];

/// Builtin names the resolver knows (so `eval` is `builtins.eval` unless imported over).
const BUILTINS: &[&str] = &[
    "exec",
    "eval",
    "execfile",
    "compile",
    "__import__",
    "getattr",
    "setattr",
    "delattr",
    "globals",
    "locals",
    "vars",
    "bytes",
    "bytearray",
];

/// String values that name something dangerous to reach by name (`getattr(m, 'eval')`,
/// `d['ex' + 'ec']`).
const NAMED_IN_STRINGS: &[&str] = &[
    "exec",
    "eval",
    "execfile",
    "compile",
    "__import__",
    "import_module",
    "__builtins__",
    "builtins",
    "__subclasses__",
    "__globals__",
    "getattr",
    "setattr",
    "popen",
    "b64decode",
    "fromhex",
];

/// Interpreter internals ordinary code has no business with.
const INTERNALS: &[&str] = &[
    "__subclasses__",
    "__globals__",
    "__code__",
    "__getattribute__",
    "__loader__",
];

/// Modules whose `from X import *` hides decoders or loaders behind bare names.
const STAR_SENSITIVE: &[&str] = &[
    "builtins",
    "base64",
    "codecs",
    "binascii",
    "marshal",
    "pickle",
    "importlib",
    "runpy",
];

/// Most tokens looked at for one call's arguments (keeps nested calls linear).
const MAX_ARG_SCAN: usize = 512;

struct Scan<'a> {
    toks: &'a [Tok],
    /// Local name → canonical dotted name, from imports and `NAME = dotted.name`.
    aliases: HashMap<String, String>,
    found: Vec<(Kind, String)>,
    other: Vec<String>,
}

fn name(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Name(n)) => Some(n),
        _ => None,
    }
}

fn is_op(t: Option<&Tok>, c: char) -> bool {
    t == Some(&Tok::Op(c))
}

/// How a canonical name is shown in a reason: builtins without their module.
fn shown(canon: &str) -> &str {
    canon.strip_prefix("builtins.").unwrap_or(canon)
}

impl Scan<'_> {
    fn resolve(&self, head: &str) -> String {
        if let Some(a) = self.aliases.get(head) {
            a.clone()
        } else if head == "__builtins__" || head == "builtins" {
            "builtins".to_owned()
        } else if BUILTINS.contains(&head) {
            format!("builtins.{head}")
        } else {
            head.to_owned()
        }
    }

    /// `NAME (. NAME)*` from `i`: the names and the index after them.
    fn dotted(&self, mut i: usize) -> (Vec<String>, usize) {
        let mut parts = Vec::new();
        if let Some(n) = name(self.toks.get(i)) {
            parts.push(n.to_owned());
            i += 1;
            while is_op(self.toks.get(i), '.')
                && let Some(n) = name(self.toks.get(i + 1))
            {
                parts.push(n.to_owned());
                i += 2;
            }
        }
        (parts, i)
    }

    /// Record the table's finding for `canon`, if any; true when there was one.
    fn check(&mut self, canon: &str) -> bool {
        for (entry, kind, why) in TABLE {
            let hit = match entry.strip_suffix('.') {
                Some(prefix) => canon.starts_with(&format!("{prefix}.")),
                None => canon == *entry || canon.starts_with(&format!("{entry}.")),
            };
            if hit {
                self.found
                    .push((*kind, format!("{why} ({})", shown(canon))));
                return true;
            }
        }
        false
    }

    /// `import a.b as c, d` and `from m import x as y, *`: aliases, and what they bring in.
    fn imports(&mut self) {
        let mut i = 0;
        while i < self.toks.len() {
            match name(self.toks.get(i)) {
                Some("from") => {
                    let (module, mut j) = self.dotted(i + 1);
                    if module.is_empty() || name(self.toks.get(j)) != Some("import") {
                        i += 1;
                        continue;
                    }
                    let module = module.join(".");
                    let module = self.resolve(&module);
                    j += 1;
                    while j < self.toks.len() && self.toks[j] != Tok::End {
                        match &self.toks[j] {
                            Tok::Op('*') if STAR_SENSITIVE.contains(&module.as_str()) => {
                                self.other.push(format!(
                                    "imports every name of {module} (from {module} import *)"
                                ));
                            }
                            Tok::Name(n) if n != "as" => {
                                let canon = format!("{module}.{n}");
                                let local = if name(self.toks.get(j + 1)) == Some("as") {
                                    j += 2;
                                    name(self.toks.get(j)).unwrap_or(n).to_owned()
                                } else {
                                    n.clone()
                                };
                                let _ = self.check(&canon);
                                self.aliases.insert(local, canon);
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    i = j;
                }
                Some("import") => {
                    let mut j = i + 1;
                    loop {
                        let (parts, next) = self.dotted(j);
                        if parts.is_empty() {
                            break;
                        }
                        j = next;
                        if name(self.toks.get(j)) == Some("as")
                            && let Some(local) = name(self.toks.get(j + 1))
                        {
                            self.aliases.insert(local.to_owned(), parts.join("."));
                            j += 2;
                        }
                        if !is_op(self.toks.get(j), ',') {
                            break;
                        }
                        j += 1;
                    }
                    i = j.max(i + 1);
                }
                _ => i += 1,
            }
        }
    }

    /// `NAME = dotted.name` on a line of its own: `e = eval`, `b = base64.b64decode`.
    fn assignments(&mut self) {
        let toks = self.toks;
        for i in 0..toks.len() {
            let line_start = i == 0 || toks[i - 1] == Tok::End;
            let (Some(target), true, true) = (
                name(toks.get(i)),
                line_start,
                is_op(toks.get(i + 1), '=') && !is_op(toks.get(i + 2), '='),
            ) else {
                continue;
            };
            let (rhs, end) = self.dotted(i + 2);
            if rhs.is_empty() || !matches!(toks.get(end), None | Some(Tok::End)) {
                continue;
            }
            let canon = self.resolve_parts(&rhs);
            self.aliases.insert(target.to_owned(), canon);
        }
    }

    fn resolve_parts(&self, parts: &[String]) -> String {
        let mut canon = self.resolve(&parts[0]);
        for p in &parts[1..] {
            canon.push('.');
            canon.push_str(p);
        }
        canon
    }

    /// The token index after the bracket group opening at `i` (`(`, `[` or `{`).
    fn skip_group(&self, i: usize) -> usize {
        let mut depth = 0usize;
        let mut j = i;
        while let Some(t) = self.toks.get(j) {
            if j - i > MAX_ARG_SCAN {
                return j;
            }
            match t {
                Tok::Op('(' | '[' | '{') => depth += 1,
                Tok::Op(')' | ']' | '}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return j + 1;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        j
    }

    /// Is the second argument of the call whose `(` is at `open` a plain string literal?
    /// None when there is no second argument.
    fn second_arg_is_literal(&self, open: usize) -> Option<bool> {
        let mut depth = 0usize;
        let mut arg = 0;
        let mut second: Vec<&Tok> = Vec::new();
        // Bounded, so `getattr(getattr(getattr(…` stays linear; an argument list longer
        // than that counts as computed.
        let mut closed = false;
        for t in self.toks.iter().skip(open + 1).take(MAX_ARG_SCAN) {
            match t {
                Tok::Op('(' | '[' | '{') => depth += 1,
                Tok::Op(')' | ']' | '}') if depth == 0 => {
                    closed = true;
                    break;
                }
                Tok::Op(')' | ']' | '}') => depth -= 1,
                Tok::Op(',') if depth == 0 => {
                    arg += 1;
                    if arg == 2 {
                        closed = true;
                        break;
                    }
                    continue;
                }
                _ => {}
            }
            if arg == 1 {
                second.push(t);
            }
        }
        if !closed && self.toks.len() > open + 1 + MAX_ARG_SCAN {
            return Some(false);
        }
        if second.is_empty() {
            return None;
        }
        let literal = second.iter().enumerate().all(|(k, t)| match t {
            Tok::Str { f: false, .. } => true,
            Tok::Op('+') => k % 2 == 1,
            _ => false,
        });
        Some(literal)
    }

    /// After a name chain ending at `next`: `[…]` or `.get(` — a lookup by key.
    fn looked_up_by_key(&self, next: usize) -> bool {
        is_op(self.toks.get(next), '[')
            || (is_op(self.toks.get(next), '.')
                && matches!(name(self.toks.get(next + 1)), Some("get" | "__getitem__")))
    }

    fn uses(&mut self) {
        let toks = self.toks;
        let mut i = 0;
        while i < toks.len() {
            let after_dot = i > 0 && is_op(toks.get(i - 1), '.');
            let Some(head) = name(toks.get(i)) else {
                i += 1;
                continue;
            };
            if after_dot {
                // An attribute of something we could not name (`f().b64decode`).
                if INTERNALS.contains(&head) {
                    self.other
                        .push(format!("reaches into interpreter internals ({head})"));
                }
                if let Some((_, kind, why)) = TELLING_ATTRS.iter().find(|(a, ..)| *a == head) {
                    self.found.push((*kind, format!("{why} (.{head})")));
                }
                i += 1;
                continue;
            }
            if matches!(head, "import" | "from") {
                // Import statements were judged in `imports`.
                while i < toks.len() && toks[i] != Tok::End {
                    i += 1;
                }
                continue;
            }
            let (parts, next) = self.dotted(i);
            let canon = self.resolve_parts(&parts);
            let known = self.check(&canon);
            for p in &parts {
                if INTERNALS.contains(&p.as_str()) {
                    self.other
                        .push(format!("reaches into interpreter internals ({p})"));
                }
                // Only when the full name said nothing (`bytes.fromhex` is reported once).
                if !known && let Some((_, kind, why)) = TELLING_ATTRS.iter().find(|(a, ..)| a == p)
                {
                    self.found.push((*kind, format!("{why} (.{p})")));
                }
            }
            let last = parts.last().map(String::as_str).unwrap_or_default();
            match canon.as_str() {
                "builtins.getattr" | "builtins.setattr" | "builtins.delattr" => {
                    let f = shown(&canon).to_owned();
                    if is_op(toks.get(next), '(') {
                        if self.second_arg_is_literal(next) == Some(false) {
                            self.other
                                .push(format!("{f} with a computed attribute name"));
                        }
                    } else {
                        self.other.push(format!(
                            "{f} passed around, so the names it reaches cannot be seen"
                        ));
                    }
                }
                "builtins.globals" | "builtins.locals" | "builtins.vars" => {
                    let f = shown(&canon).to_owned();
                    if is_op(toks.get(next), '(') && self.looked_up_by_key(self.skip_group(next)) {
                        self.other.push(format!("looks up names by key ({f}()[…])"));
                    }
                }
                _ if (canon == "builtins" || last == "__dict__" || canon == "sys.modules")
                    && self.looked_up_by_key(next) =>
                {
                    self.other
                        .push(format!("looks up names by key ({}[…])", parts.join(".")));
                }
                _ => {}
            }
            if canon == "builtins" || canon.starts_with("builtins.__dict__") {
                self.other
                    .push(format!("reaches into the builtins ({})", parts.join(".")));
            }
            i = next.max(i + 1);
        }
    }

    /// Adjacent literals, joined by `+` or juxtaposition, folded into one value and checked
    /// for a dangerous name (also spelled backwards).
    fn strings(&mut self) {
        let toks = self.toks;
        let mut i = 0;
        while i < toks.len() {
            let Tok::Str { value, f: false } = &toks[i] else {
                i += 1;
                continue;
            };
            let mut folded = value.clone();
            let mut j = i + 1;
            loop {
                match (toks.get(j), toks.get(j + 1)) {
                    (Some(Tok::Str { value, f: false }), _) => {
                        folded.push_str(value);
                        j += 1;
                    }
                    (Some(Tok::Op('+')), Some(Tok::Str { value, f: false })) => {
                        folded.push_str(value);
                        j += 2;
                    }
                    _ => break,
                }
            }
            let reversed: String = folded.chars().rev().collect();
            if NAMED_IN_STRINGS.contains(&folded.as_str()) {
                self.other.push(format!(
                    "spells `{folded}` in a string (a way to reach it by name)"
                ));
            } else if NAMED_IN_STRINGS.contains(&reversed.as_str()) {
                self.other
                    .push(format!("spells `{reversed}` backwards in a string"));
            }
            i = j;
        }
    }
}

/// Add the dynamic-code findings for `code` to `judge`.
pub(super) fn judge(code: &str, judge: &mut Judge) {
    let toks = lex(code);
    let mut scan = Scan {
        toks: &toks,
        aliases: HashMap::new(),
        found: Vec::new(),
        other: Vec::new(),
    };
    scan.imports();
    scan.assignments();
    scan.uses();
    scan.strings();
    let has = |kinds: &[Kind]| scan.found.iter().any(|(k, _)| kinds.contains(k));
    // Two separate findings: plain `pickle.loads` of one's own data stays medium.
    let runs = has(&[Kind::Runs, Kind::Imports]);
    let loads = has(&[Kind::Loads]);
    let decodes = has(&[Kind::Decodes]);
    if (runs && (decodes || loads)) || (loads && decodes) {
        judge.add(
            Risk::High,
            "decodes hidden data and runs or loads it as code".to_owned(),
        );
    }
    for (_, reason) in scan.found {
        judge.add(Risk::Medium, reason);
    }
    for reason in scan.other {
        judge.add(Risk::Medium, reason);
    }
}
