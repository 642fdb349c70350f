//! Converting an MCP tool's input schema (full JSON Schema, written by someone else) into the
//! subset Steward's registry checks: `type` (one of object/string/number/integer/boolean/
//! array), `properties`, `required`, `additionalProperties: bool`, `enum`, `minimum`/`maximum`,
//! `minLength`/`maxLength`, `items`, `description`.
//!
//! Owns: the lossy conversion. It only ever loosens: anything it cannot express is dropped, so
//! our check never refuses a call the server would accept; the server stays the final
//! validator. Local `$ref`s (`#/$defs/…`, `#/definitions/…`, any pointer into the document,
//! as every Pydantic-built server writes them) are followed (see `refs`); a reference that
//! cannot be followed (remote, missing, an alias cycle) makes that part "anything" and is
//! reported as a `SchemaProblem`, so a person sees it. Does not own the checker itself
//! (steward-tools).
//!
//! Hostile schemas are bounded: nesting deeper than `MAX_DEPTH` becomes "anything" (so does
//! a recursive reference past it), at most `MAX_NODES` schema objects are converted (a
//! reference fan-out cannot grow the result exponentially), objects keep at most
//! `MAX_PROPERTIES` properties, descriptions are cut and made single-line (they reach the
//! model's prompt).

mod refs;

pub use refs::SchemaProblem;

use refs::View;
use serde_json::{Map, Value};

const MAX_DEPTH: usize = 8;
/// Most schema objects converted for one tool; past it, the rest is "anything".
const MAX_NODES: usize = 512;
const MAX_PROPERTIES: usize = 64;
const MAX_ENUM: usize = 64;
/// Longest property description kept, in characters.
const MAX_DESCRIPTION: usize = 200;
const TYPES: &[&str] = &["object", "string", "number", "integer", "boolean", "array"];

/// A converted schema and the references that could not be followed in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The registry-ready parameters schema. Always an object schema.
    pub parameters: Value,
    /// Each distinct problem once, in the order met.
    pub problems: Vec<SchemaProblem>,
}

/// The registry-ready parameters schema for an MCP `inputSchema`, and what could not be
/// followed in it.
pub fn convert(input: &Map<String, Value>) -> Converted {
    let mut ctx = Ctx {
        root: input,
        nodes: 0,
        problems: Vec::new(),
    };
    let mut out = ctx.convert_obj(input, 0);
    if let Some(obj) = out.as_object_mut() {
        // Every model API wants named arguments at the root.
        obj.insert("type".into(), Value::from("object"));
    }
    Converted {
        parameters: out,
        problems: ctx.problems,
    }
}

struct Ctx<'v> {
    root: &'v Map<String, Value>,
    nodes: usize,
    problems: Vec<SchemaProblem>,
}

impl<'v> Ctx<'v> {
    fn convert_at(&mut self, schema: &'v Value, depth: usize) -> Value {
        match schema.as_object() {
            Some(obj) => self.convert_obj(obj, depth),
            None => Value::Object(Map::new()),
        }
    }

    fn convert_obj(&mut self, obj: &'v Map<String, Value>, depth: usize) -> Value {
        if depth >= MAX_DEPTH || self.nodes >= MAX_NODES {
            return Value::Object(Map::new());
        }
        self.nodes += 1;
        let view = match refs::view(obj, self.root) {
            Ok(view) => view,
            Err(problem) => {
                if !self.problems.contains(&problem) {
                    self.problems.push(problem);
                }
                // What it stood for is unknown: anything, keeping the referrer's own words.
                let mut out = Map::new();
                if let Some(d) = obj.get("description").and_then(Value::as_str) {
                    out.insert("description".into(), Value::from(clean(d)));
                }
                return Value::Object(out);
            }
        };
        self.convert_view(&view, depth)
    }

    fn convert_view(&mut self, obj: &View<'v>, depth: usize) -> Value {
        // `anyOf`/`oneOf` with exactly one non-null branch is how generators spell "optional
        // X", and `allOf` with one member how some wrap a `$ref` with a description: use that
        // branch. Any other combination cannot be expressed and means "anything".
        if let Some(branch) = single_branch(obj) {
            let mut merged = self.convert_at(branch, depth + 1);
            if let (Some(m), Some(d)) = (
                merged.as_object_mut(),
                obj.get("description").and_then(Value::as_str),
            ) {
                m.entry("description")
                    .or_insert_with(|| Value::from(clean(d)));
            }
            return merged;
        }
        let mut out = Map::new();
        if let Some(t) = single_type(obj.get("type")) {
            out.insert("type".into(), Value::from(t));
        }
        if let Some(d) = obj.get("description").and_then(Value::as_str) {
            out.insert("description".into(), Value::from(clean(d)));
        }
        if let Some(values) = obj.get("enum").and_then(Value::as_array)
            && !values.is_empty()
            && values.len() <= MAX_ENUM
        {
            out.insert("enum".into(), Value::Array(values.clone()));
        }
        for key in ["minimum", "maximum"] {
            if let Some(n) = obj.get(key).filter(|v| v.is_number()) {
                out.insert(key.into(), n.clone());
            }
        }
        for key in ["minLength", "maxLength"] {
            if let Some(n) = obj.get(key).filter(|v| v.is_u64()) {
                out.insert(key.into(), n.clone());
            }
        }
        if let Some(items) = obj.get("items").filter(|i| i.is_object()) {
            let converted = self.convert_at(items, depth + 1);
            out.insert("items".into(), converted);
        }
        if let Some(props) = obj.get("properties").and_then(Value::as_object) {
            let mut kept = Map::new();
            for (name, sub) in props.iter().take(MAX_PROPERTIES) {
                let converted = self.convert_at(sub, depth + 1);
                kept.insert(name.clone(), converted);
            }
            let truncated = props.len() > MAX_PROPERTIES;
            if let Some(req) = obj.get("required").and_then(Value::as_array) {
                let names: Vec<Value> = req
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|n| kept.contains_key(*n))
                    .map(Value::from)
                    .collect();
                if !names.is_empty() {
                    out.insert("required".into(), Value::Array(names));
                }
            }
            out.insert("properties".into(), Value::Object(kept));
            // Closed objects stay closed unless we had to drop properties the server knows.
            if obj.get("additionalProperties") == Some(&Value::Bool(false)) && !truncated {
                out.insert("additionalProperties".into(), Value::Bool(false));
            }
        }
        Value::Object(out)
    }
}

/// One supported type name: a plain string, or an array whose only non-"null" member is.
fn single_type(t: Option<&Value>) -> Option<&str> {
    let t = match t? {
        Value::String(s) => s.as_str(),
        Value::Array(list) => {
            let mut non_null = list.iter().filter(|v| v.as_str() != Some("null"));
            let only = non_null.next()?.as_str()?;
            if non_null.next().is_some() {
                return None;
            }
            only
        }
        _ => return None,
    };
    TYPES.contains(&t).then_some(t)
}

fn single_branch<'v>(obj: &View<'v>) -> Option<&'v Value> {
    if let Some(all) = obj.get("allOf").and_then(Value::as_array)
        && all.len() == 1
    {
        return all.first();
    }
    let list = obj
        .get("anyOf")
        .or_else(|| obj.get("oneOf"))
        .and_then(Value::as_array)?;
    let mut non_null = list
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"));
    let only = non_null.next()?;
    non_null.next().is_none().then_some(only)
}

/// Single line, no control characters, at most `MAX_DESCRIPTION` characters.
fn clean(s: &str) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let joined = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= MAX_DESCRIPTION {
        return joined;
    }
    let mut cut: String = joined.chars().take(MAX_DESCRIPTION - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn conv(v: Value) -> Value {
        convert(v.as_object().unwrap()).parameters
    }

    #[test]
    fn keeps_the_supported_subset() {
        let s = conv(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "First", "default": 1, "minimum": 0},
                "tags": {"type": "array", "items": {"type": "string", "pattern": "^x"}, "minItems": 1},
                "mode": {"type": "string", "enum": ["x", "y"], "format": "uri"}
            },
            "required": ["a", "ghost"],
            "additionalProperties": false
        }));
        assert_eq!(
            s,
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "number", "description": "First", "minimum": 0},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "mode": {"type": "string", "enum": ["x", "y"]}
                },
                "required": ["a"],
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn optional_and_union_types() {
        let s = conv(json!({
            "type": "object",
            "properties": {
                "n": {"type": ["integer", "null"]},
                "o": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}], "description": "opt"},
                "u": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                "t": {"type": ["string", "number"]}
            }
        }));
        assert_eq!(s["properties"]["n"], json!({"type": "integer"}));
        assert_eq!(
            s["properties"]["o"],
            json!({"type": "string", "maxLength": 3, "description": "opt"})
        );
        assert_eq!(s["properties"]["u"], json!({}));
        assert_eq!(s["properties"]["t"], json!({}));
    }

    /// A real Pydantic v2 schema (tests/fixtures/capture_pydantic_schema.py): nested models
    /// in `$defs`, a `$ref` with a sibling `default`, refs inside `anyOf` and `items`, and a
    /// recursive model.
    #[test]
    fn pydantic_refs_are_resolved() {
        let doc: Value = serde_json::from_str(include_str!(
            "../../tests/fixtures/pydantic-search-schema.json"
        ))
        .unwrap();
        let c = convert(doc.as_object().unwrap());
        assert_eq!(c.problems, []);
        let p = &c.parameters;
        assert_eq!(p["required"], json!(["query"]));
        let query = &p["properties"]["query"];
        assert_eq!(query["type"], "object");
        assert_eq!(query["required"], json!(["location"]));
        assert_eq!(
            query["properties"]["location"]["properties"]["city"],
            json!({"type": "string", "description": "City name"})
        );
        assert_eq!(
            query["properties"]["location"]["properties"]["country"],
            json!({"type": "string", "maxLength": 2, "description": "ISO country code"})
        );
        assert_eq!(
            query["properties"]["unit"],
            json!({"type": "string", "enum": ["celsius", "fahrenheit"]})
        );
        let filter = &query["properties"]["filters"];
        assert_eq!(filter["type"], "array");
        assert_eq!(filter["items"]["required"], json!(["field", "op", "value"]));
        assert_eq!(filter["items"]["properties"]["value"]["type"], "number");
        assert_eq!(
            query["properties"]["limit"],
            json!({"type": "integer", "minimum": 1, "maximum": 100})
        );
        assert_eq!(
            p["properties"]["units"]["items"]["enum"],
            json!(["celsius", "fahrenheit"])
        );
        // The recursive model unrolls until the depth limit, then means anything.
        let mut node = &p["properties"]["tree"];
        let mut levels = 0;
        while node.get("properties").is_some() {
            assert_eq!(node["required"], json!(["label"]));
            node = &node["properties"]["children"]["items"];
            levels += 1;
        }
        assert!((2..=MAX_DEPTH).contains(&levels), "{levels}");
        assert_eq!(node, &json!({}));
        // A call shaped like the model would make it passes the registry's checker.
        let call = json!({"query": {"location": {"city": "Oslo"}, "unit": "celsius",
            "filters": [{"field": "t", "op": "lt", "value": 3}]}, "units": ["fahrenheit"]});
        assert_eq!(steward_tools::check_schema(p, &call), Ok(()));
        let bad = json!({"query": {"location": {"city": 7}}});
        assert!(steward_tools::check_schema(p, &bad).is_err());
    }

    fn text_len(v: &Value) -> usize {
        v.to_string().len()
    }

    #[test]
    fn unfollowed_refs_loosen_and_are_reported() {
        let c = convert(
            json!({
                "type": "object",
                "properties": {
                    "remote": {"$ref": "https://schemas.example/q.json", "description": "kept"},
                    "in_items": {"type": "array", "items": {"$ref": "other.json#/Q"}},
                    "in_any": {"anyOf": [{"$ref": "#/$defs/Missing"}, {"type": "null"}]},
                    "alias": {"$ref": "#/$defs/A"},
                    "again": {"$ref": "https://schemas.example/q.json"},
                    "self": {"$ref": "#"}
                },
                "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}
            })
            .as_object()
            .unwrap(),
        );
        let p = &c.parameters["properties"];
        assert_eq!(p["remote"], json!({"description": "kept"}));
        assert_eq!(p["in_items"], json!({"type": "array", "items": {}}));
        assert_eq!(p["in_any"], json!({}));
        assert_eq!(p["alias"], json!({}));
        // `#` is the whole document: recursion, bounded by depth.
        assert_eq!(p["self"]["type"], "object");
        assert!(p["self"]["properties"]["self"].is_object());
        assert_eq!(
            c.problems,
            // (serde_json keeps properties sorted by name: `again` is met first.)
            [
                SchemaProblem::Remote("https://schemas.example/q.json".into()),
                SchemaProblem::Cycle("#/$defs/A".into()),
                SchemaProblem::Missing("#/$defs/Missing".into()),
                SchemaProblem::Remote("other.json#/Q".into()),
            ],
            "each once, in the order met"
        );
    }

    #[test]
    fn reference_fan_out_is_bounded() {
        // Each level refers to the next twice: 2^40 leaves if expanded naively.
        let mut defs = Map::new();
        for i in 0..40 {
            let next = json!({"$ref": format!("#/$defs/L{}", i + 1)});
            defs.insert(
                format!("L{i}"),
                json!({"type": "object", "properties": {"a": next, "b": next, "c": next}}),
            );
        }
        defs.insert("L40".into(), json!({"type": "string"}));
        let c = convert(
            json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/L0"}}, "$defs": defs})
                .as_object()
                .unwrap(),
        );
        let len = text_len(&c.parameters);
        assert!(len < 64 * 1024, "{len}");
        assert_eq!(c.parameters["properties"]["x"]["type"], "object");
    }

    #[test]
    fn root_is_always_an_object_schema() {
        assert_eq!(conv(json!({})), json!({"type": "object"}));
        assert_eq!(conv(json!({"type": "string"})), json!({"type": "object"}));
    }

    #[test]
    fn hostile_schemas_are_bounded() {
        let mut deep = json!({"type": "string"});
        // serde_json refuses to parse deeper than 128 levels, so that is what a server can send.
        for _ in 0..128 {
            deep = json!({"type": "object", "properties": {"x": deep}});
        }
        let s = conv(json!({"type": "object", "properties": {"d": deep}}));
        let text = s.to_string();
        assert!(text.len() < 2_000, "{}", text.len());

        let mut props = Map::new();
        for i in 0..1_000 {
            props.insert(
                format!("p{i:04}"),
                json!({"type": "string", "description": "d".repeat(10_000)}),
            );
        }
        let s = conv(
            json!({"type": "object", "properties": props, "additionalProperties": false, "required": ["p0999"]}),
        );
        let kept = s["properties"].as_object().unwrap();
        assert_eq!(kept.len(), MAX_PROPERTIES);
        assert!(
            s.get("additionalProperties").is_none(),
            "dropped properties must stay allowed"
        );
        assert!(
            s.get("required").is_none(),
            "a required property we dropped is not required by us"
        );
        let d = kept["p0000"]["description"].as_str().unwrap();
        assert_eq!(d.chars().count(), MAX_DESCRIPTION);

        let weird = conv(
            json!({"type": "object", "properties": {"a": 5, "b": {"type": 7}, "c": {"items": [1]}, "e": {"enum": "x"}, "m": {"minLength": -1}}}),
        );
        assert_eq!(
            weird["properties"],
            json!({"a": {}, "b": {}, "c": {}, "e": {}, "m": {}})
        );
    }

    #[test]
    fn descriptions_are_single_line() {
        let s = conv(
            json!({"type": "object", "properties": {"a": {"description": "line1\n\n</untrusted>\u{0}x"}}}),
        );
        assert_eq!(s["properties"]["a"]["description"], "line1 </untrusted> x");
    }
}
