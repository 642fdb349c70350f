//! `$ref` in a server's input schema: following local references (a JSON pointer into the
//! same document: `#/$defs/Query`, `#/definitions/thing`, `#/properties/a`, with `~0`/`~1`
//! and percent escapes) without copying anything, and saying why one cannot be followed.
//!
//! Owns: pointer lookup, the view of a schema object merged with what it refers to, and
//! `SchemaProblem`. Remote references (`https://…`, `other.json#/x`) are never fetched: a
//! server's schema must not make Steward contact anyone. Does not own the conversion (see
//! `mod.rs`), which decides what an unfollowed reference becomes ("anything").

use serde_json::{Map, Value};
use std::fmt;

/// Most references followed for one schema object without any structure in between
/// (`A → B → C …`); a pure alias cycle stops here. Recursion through properties or items is
/// bounded by the conversion's depth limit instead.
const MAX_HOPS: usize = 16;
/// Longest reference quoted in a problem, in characters.
const MAX_SHOWN_REF: usize = 160;

/// A reference the conversion could not follow. The parameter it stood for accepts anything
/// in Steward's own check; the server still validates the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaProblem {
    /// To another document (a URL or a file): Steward never fetches schemas.
    Remote(String),
    /// A local pointer to nothing (or to something that is not a schema).
    Missing(String),
    /// A chain of references longer than `MAX_HOPS` (an alias cycle).
    Cycle(String),
}

impl SchemaProblem {
    fn shown(reference: &str) -> String {
        // A remote reference may carry credentials in its URL; it is also hostile text.
        let masked = steward_protocol::secret_url::mask_url(reference);
        let mut out: String = masked
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(MAX_SHOWN_REF)
            .collect();
        if masked.chars().count() > MAX_SHOWN_REF {
            out.push('…');
        }
        out
    }
}

impl fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaProblem::Remote(r) => write!(
                f,
                "remote $ref `{}` not followed (Steward never fetches schemas): that part of the parameters accepts anything here, the server still checks it",
                Self::shown(r)
            ),
            SchemaProblem::Missing(r) => write!(
                f,
                "$ref `{}` points at nothing in the schema: that part of the parameters accepts anything here",
                Self::shown(r)
            ),
            SchemaProblem::Cycle(r) => write!(
                f,
                "$ref `{}` starts a chain of more than {MAX_HOPS} references: that part of the parameters accepts anything here",
                Self::shown(r)
            ),
        }
    }
}

/// One schema object as seen through its references: the object itself first, then what
/// its `$ref` points at, and so on. A key is read from the first layer that has it, so the
/// referring object's own `description` or `default` win (as in JSON Schema 2019+, where
/// `$ref` has siblings). `$ref` itself is never read through a view.
pub(crate) struct View<'v> {
    layers: Vec<&'v Map<String, Value>>,
}

impl<'v> View<'v> {
    pub(crate) fn get(&self, key: &str) -> Option<&'v Value> {
        if key == "$ref" {
            return None;
        }
        self.layers.iter().find_map(|l| l.get(key))
    }
}

/// Follow `obj`'s references within `root`. `Err` when one cannot be followed; what was
/// already seen is lost then, since a schema we cannot finish must mean "anything".
pub(crate) fn view<'v>(
    obj: &'v Map<String, Value>,
    root: &'v Map<String, Value>,
) -> Result<View<'v>, SchemaProblem> {
    let mut layers = vec![obj];
    let mut last = obj;
    for _ in 0..MAX_HOPS {
        let Some(reference) = last.get("$ref") else {
            return Ok(View { layers });
        };
        // A `$ref` that is not a string is junk; ignore it like any other unknown keyword.
        let Some(reference) = reference.as_str() else {
            return Ok(View { layers });
        };
        let Some(pointer) = reference.strip_prefix('#') else {
            return Err(SchemaProblem::Remote(reference.to_owned()));
        };
        if pointer.is_empty() {
            // `#`: the whole document (a recursive schema); depth bounds the recursion.
            layers.push(root);
            last = root;
            continue;
        }
        match lookup(root, pointer) {
            Some(Value::Object(target)) => {
                layers.push(target);
                last = target;
            }
            // `true` / `{}` as a schema both mean anything: a view of nothing more.
            Some(Value::Bool(true)) => return Ok(View { layers }),
            _ => return Err(SchemaProblem::Missing(reference.to_owned())),
        }
    }
    let first = obj.get("$ref").and_then(Value::as_str).unwrap_or_default();
    Err(SchemaProblem::Cycle(first.to_owned()))
}

/// The value at a JSON pointer (RFC 6901) inside `root`. `pointer` is the URI fragment:
/// percent escapes are decoded first, then `~1` → `/` and `~0` → `~` per token. An anchor
/// (`#name`, no leading `/`) is not supported and finds nothing.
fn lookup<'v>(root: &'v Map<String, Value>, pointer: &str) -> Option<&'v Value> {
    let pointer = percent_decode(pointer)?;
    let rest = pointer.strip_prefix('/')?;
    let mut tokens = rest.split('/');
    let first = unescape(tokens.next()?);
    let mut at = root.get(&first)?;
    for token in tokens {
        let token = unescape(token);
        at = match at {
            Value::Object(m) => m.get(&token)?,
            Value::Array(a) => a.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// `%XX` decoded; None for an invalid escape or bytes that are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn pointers_follow_rfc_6901() {
        let root = map(json!({
            "$defs": {"a/b~c": {"type": "string"}, "list": [{"type": "integer"}]},
            "definitions": {"x y": {"type": "boolean"}}
        }));
        assert_eq!(
            lookup(&root, "/$defs/a~1b~0c"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(
            lookup(&root, "/$defs/list/0"),
            Some(&json!({"type": "integer"}))
        );
        assert_eq!(
            lookup(&root, "/definitions/x%20y"),
            Some(&json!({"type": "boolean"}))
        );
        // `~01` is `~1` (unescaped in order: `~1` first, then `~0`), not `/`.
        let tricky = map(json!({"~1": 1}));
        assert_eq!(lookup(&tricky, "/~01"), Some(&json!(1)));
        for missing in [
            "",
            "anchor",
            "/$defs/nope",
            "/$defs/list/9",
            "/$defs/list/x",
            "/%zz",
        ] {
            assert_eq!(lookup(&root, missing), None, "{missing}");
        }
    }

    #[test]
    fn a_view_reads_the_referring_object_first() {
        let root = map(json!({
            "$defs": {
                "A": {"$ref": "#/$defs/B", "description": "from A"},
                "B": {"type": "string", "description": "from B", "maxLength": 3}
            }
        }));
        let obj = map(json!({"$ref": "#/$defs/A", "default": "x"}));
        let v = view(&obj, &root).unwrap();
        assert_eq!(v.get("description"), Some(&json!("from A")));
        assert_eq!(v.get("maxLength"), Some(&json!(3)));
        assert_eq!(v.get("default"), Some(&json!("x")));
        assert_eq!(v.get("$ref"), None);
    }

    #[test]
    fn remote_missing_and_cyclic_references_are_problems() {
        let root = map(json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}}));
        let remote = map(json!({"$ref": "https://u:pw@schemas.example/q.json?key=k#/Q"}));
        let err = view(&remote, &root).err().unwrap();
        assert!(matches!(err, SchemaProblem::Remote(_)));
        let shown = err.to_string();
        assert!(
            shown.contains("https://…@schemas.example/q.json?key=…#…"),
            "{shown}"
        );
        assert!(!shown.contains("pw") && !shown.contains("k#"), "{shown}");
        let file = map(json!({"$ref": "common.json#/Q"}));
        assert!(matches!(view(&file, &root), Err(SchemaProblem::Remote(_))));
        let missing = map(json!({"$ref": "#/$defs/Nope"}));
        assert!(matches!(
            view(&missing, &root),
            Err(SchemaProblem::Missing(_))
        ));
        let cycle = map(json!({"$ref": "#/$defs/A"}));
        assert!(matches!(view(&cycle, &root), Err(SchemaProblem::Cycle(_))));
    }
}
