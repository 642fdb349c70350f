//! A hand-written checker for the small JSON-schema subset Steward tools use: `type`
//! (object/string/number/integer/boolean/array), `properties`, `required`,
//! `additionalProperties: false`, `enum`, `minimum`/`maximum`, `minLength`/`maxLength`,
//! `items`, and `description` (ignored). The `jsonschema` crates are heavy to build on our
//! small machines and we need only this, so we do it by hand.
//!
//! Owns: schema conformance and the field-naming error messages the model sees.
//! Does not own: tool-specific checks (`Tool::validate`).

use serde_json::{Map, Value};

/// Keywords `check` understands; a schema using anything else is refused at registration so
/// that a tool author never believes a constraint is enforced when it is not.
const KNOWN_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "items",
    "description",
];
const KNOWN_TYPES: &[&str] = &["object", "string", "number", "integer", "boolean", "array"];
/// Reporting every problem of a hostile call would make a huge message; a few suffice.
const MAX_REPORTED: usize = 5;
/// Longest slice of a model-supplied key we echo back.
const MAX_ECHO_CHARS: usize = 40;

/// Check `value` against `schema`. The error names the offending field, e.g.
/// "argument `timezone` must be a string, got a number"; several problems are joined by "; ".
pub fn check(schema: &Value, value: &Value) -> Result<(), String> {
    let mut errors = Vec::new();
    check_at(schema, value, "", &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        errors.truncate(MAX_REPORTED);
        Err(errors.join("; "))
    }
}

/// Refuse schemas outside the supported subset, or whose root is not an object schema
/// (every model API wants an object of named arguments).
pub(crate) fn check_supported(schema: &Value) -> Result<(), String> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err("the parameters schema must have \"type\": \"object\"".to_owned());
    }
    supported_at(schema, "parameters")
}

fn supported_at(schema: &Value, at: &str) -> Result<(), String> {
    let Some(obj) = schema.as_object() else {
        return Err(format!("{at}: a schema must be a JSON object"));
    };
    for key in obj.keys() {
        if !KNOWN_KEYWORDS.contains(&key.as_str()) {
            return Err(format!("{at}: unsupported schema keyword `{key}`"));
        }
    }
    if let Some(t) = obj.get("type")
        && !t.as_str().is_some_and(|t| KNOWN_TYPES.contains(&t))
    {
        return Err(format!("{at}: unsupported type {t}"));
    }
    if let Some(props) = obj.get("properties") {
        let Some(props) = props.as_object() else {
            return Err(format!("{at}: `properties` must be an object"));
        };
        for (name, sub) in props {
            supported_at(sub, &format!("{at}.{name}"))?;
        }
    }
    if let Some(items) = obj.get("items") {
        supported_at(items, &format!("{at}[]"))?;
    }
    if let Some(req) = obj.get("required")
        && !req
            .as_array()
            .is_some_and(|r| r.iter().all(Value::is_string))
    {
        return Err(format!("{at}: `required` must be an array of names"));
    }
    if let Some(extra) = obj.get("additionalProperties")
        && !extra.is_boolean()
    {
        return Err(format!(
            "{at}: only `additionalProperties: true|false` is supported"
        ));
    }
    Ok(())
}

fn check_at(schema: &Value, value: &Value, path: &str, errors: &mut Vec<String>) {
    let Some(schema) = schema.as_object() else {
        return;
    };
    let subject = subject(path);
    if let Some(expected) = schema.get("type").and_then(Value::as_str)
        && !type_matches(expected, value)
    {
        errors.push(format!(
            "{subject} must be {}, got {}",
            with_article(expected),
            type_name(value)
        ));
        // Further checks on a value of the wrong type would only add noise.
        return;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
        errors.push(format!("{subject} must be one of {}", list.join(", ")));
    }
    match value {
        Value::Number(n) => {
            if let Some(x) = n.as_f64() {
                check_range(schema, x, &subject, errors);
            }
        }
        Value::String(s) => check_length(schema, s, &subject, errors),
        Value::Object(map) => check_object(schema, map, path, errors),
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check_at(item_schema, item, &format!("{path}[{i}]"), errors);
                    if errors.len() >= MAX_REPORTED {
                        return;
                    }
                }
            }
        }
        Value::Bool(_) | Value::Null => {}
    }
}

fn check_range(schema: &Map<String, Value>, x: f64, subject: &str, errors: &mut Vec<String>) {
    if let Some(min) = schema.get("minimum")
        && min.as_f64().is_some_and(|m| x < m)
    {
        errors.push(format!("{subject} must be at least {min}"));
    }
    if let Some(max) = schema.get("maximum")
        && max.as_f64().is_some_and(|m| x > m)
    {
        errors.push(format!("{subject} must be at most {max}"));
    }
}

fn check_length(schema: &Map<String, Value>, s: &str, subject: &str, errors: &mut Vec<String>) {
    // JSON Schema counts characters (code points), not bytes.
    let len = s.chars().count();
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
        && len as u64 > max
    {
        errors.push(format!(
            "{subject} must be at most {max} characters (got {len})"
        ));
    }
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
        && (len as u64) < min
    {
        errors.push(format!("{subject} must be at least {min} characters"));
    }
}

fn check_object(
    schema: &Map<String, Value>,
    map: &Map<String, Value>,
    path: &str,
    errors: &mut Vec<String>,
) {
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !map.contains_key(name) {
                errors.push(format!("missing required argument `{}`", join(path, name)));
            }
        }
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    for (key, value) in map {
        match props.get(key) {
            Some(sub) => check_at(sub, value, &join(path, key), errors),
            None if closed => {
                let expected: Vec<&str> = props.keys().map(String::as_str).collect();
                errors.push(format!(
                    "unknown argument `{}`; expected only: {}",
                    join(path, &echo(key)),
                    expected.join(", ")
                ));
            }
            None => {}
        }
        if errors.len() >= MAX_REPORTED {
            return;
        }
    }
}

fn subject(path: &str) -> String {
    if path.is_empty() {
        "the arguments".to_owned()
    } else {
        format!("argument `{path}`")
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// A bounded, escaped rendition of model-supplied text for error messages.
pub(crate) fn echo(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(MAX_ECHO_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if s.chars().nth(MAX_ECHO_CHARS).is_some() {
        out.push('…');
    }
    out
}

fn type_matches(expected: &str, value: &Value) -> bool {
    match expected {
        "object" => value.is_object(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => match value {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|x| x.fract() == 0.0)
            }
            _ => false,
        },
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        // Refused at registration; treat as "anything goes" if it slips through.
        _ => true,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn with_article(t: &str) -> String {
    match t {
        "object" | "integer" | "array" => format!("an {t}"),
        _ => format!("a {t}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "timezone": {"type": "string", "maxLength": 5},
                "n": {"type": "integer", "minimum": 0, "maximum": 10},
                "unit": {"type": "string", "enum": ["m", "km"]},
                "tags": {"type": "array", "items": {"type": "string"}},
                "flag": {"type": "boolean"}
            },
            "required": ["n"],
            "additionalProperties": false
        })
    }

    #[test]
    fn accepts_conforming_values() {
        assert_eq!(check(&schema(), &json!({"n": 3})), Ok(()));
        assert_eq!(
            check(
                &schema(),
                &json!({"n": 10.0, "timezone": "UTC", "unit": "km", "tags": ["a"], "flag": true})
            ),
            Ok(())
        );
    }

    #[test]
    fn names_the_field_in_each_violation() {
        let cases = [
            (json!({}), "missing required argument `n`"),
            (
                json!({"n": 1, "timezone": 5}),
                "argument `timezone` must be a string, got a number",
            ),
            (
                json!({"n": 1.5}),
                "argument `n` must be an integer, got a number",
            ),
            (json!({"n": -1}), "argument `n` must be at least 0"),
            (json!({"n": 11}), "argument `n` must be at most 10"),
            (
                json!({"n": 1, "unit": "mi"}),
                "argument `unit` must be one of \"m\", \"km\"",
            ),
            (
                json!({"n": 1, "timezone": "éééééé"}),
                "argument `timezone` must be at most 5 characters (got 6)",
            ),
            (
                json!({"n": 1, "tags": ["a", 2]}),
                "argument `tags[1]` must be a string, got a number",
            ),
            (
                json!({"n": 1, "zz": 1}),
                "unknown argument `zz`; expected only: flag, n, tags, timezone, unit",
            ),
            (json!([1]), "the arguments must be an object, got an array"),
        ];
        for (value, expected) in cases {
            assert_eq!(
                check(&schema(), &value),
                Err(expected.to_owned()),
                "{value}"
            );
        }
    }

    #[test]
    fn bounds_echoed_keys_and_error_count() {
        let long_key = "k".repeat(10_000);
        let mut obj = Map::new();
        obj.insert(long_key, json!(1));
        for i in 0..100 {
            obj.insert(format!("extra{i}"), json!(1));
        }
        let err = check(&schema(), &Value::Object(obj)).unwrap_err();
        assert!(err.len() < 2_000, "error too long: {} bytes", err.len());
        assert!(err.contains("missing required argument `n`"));
    }

    #[test]
    fn refuses_unsupported_schemas() {
        assert!(check_supported(&schema()).is_ok());
        assert!(check_supported(&json!({"type": "string"})).is_err());
        let bad =
            json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}});
        assert!(check_supported(&bad).unwrap_err().contains("pattern"));
        let bad_type = json!({"type": "object", "properties": {"a": {"type": "null"}}});
        assert!(check_supported(&bad_type).is_err());
    }
}
