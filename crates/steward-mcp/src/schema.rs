//! Converting an MCP tool's input schema (full JSON Schema, written by someone else) into the
//! subset Steward's registry checks: `type` (one of object/string/number/integer/boolean/
//! array), `properties`, `required`, `additionalProperties: bool`, `enum`, `minimum`/`maximum`,
//! `minLength`/`maxLength`, `items`, `description`.
//!
//! Owns: the lossy conversion. It only ever loosens: anything it cannot express is dropped, so
//! our check never refuses a call the server would accept; the server stays the final
//! validator. Does not own the checker itself (steward-tools).
//!
//! Hostile schemas are bounded: nesting deeper than `MAX_DEPTH` becomes "anything", objects
//! keep at most `MAX_PROPERTIES` properties, descriptions are cut and made single-line (they
//! reach the model's prompt).

use serde_json::{Map, Value};

const MAX_DEPTH: usize = 8;
const MAX_PROPERTIES: usize = 64;
const MAX_ENUM: usize = 64;
/// Longest property description kept, in characters.
const MAX_DESCRIPTION: usize = 200;
const TYPES: &[&str] = &["object", "string", "number", "integer", "boolean", "array"];

/// The registry-ready parameters schema for an MCP `inputSchema`. Always an object schema.
pub fn convert(input: &Map<String, Value>) -> Value {
    let mut out = convert_obj(input, 0);
    if let Some(obj) = out.as_object_mut() {
        // Every model API wants named arguments at the root.
        obj.insert("type".into(), Value::from("object"));
    }
    out
}

fn convert_at(schema: &Value, depth: usize) -> Value {
    match schema.as_object() {
        Some(obj) => convert_obj(obj, depth),
        None => Value::Object(Map::new()),
    }
}

fn convert_obj(obj: &Map<String, Value>, depth: usize) -> Value {
    if depth >= MAX_DEPTH {
        return Value::Object(Map::new());
    }
    // `anyOf`/`oneOf` with exactly one non-null branch is how generators spell "optional X":
    // use that branch. Any other combination cannot be expressed and means "anything".
    if let Some(branch) = single_branch(obj) {
        let mut merged = convert_at(branch, depth + 1);
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
        out.insert("items".into(), convert_at(items, depth + 1));
    }
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        let mut kept = Map::new();
        for (name, sub) in props.iter().take(MAX_PROPERTIES) {
            kept.insert(name.clone(), convert_at(sub, depth + 1));
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

fn single_branch(obj: &Map<String, Value>) -> Option<&Value> {
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
        convert(v.as_object().unwrap())
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
