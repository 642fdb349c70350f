//! Turning raw argument text into a checked JSON value (size cap, JSON parse, schema
//! check, an example call in the error), reading string arguments out of it (`str_arg`, for
//! every tool crate), and capping output text. Owns the wording of those errors; does not own
//! tool lookup or execution (see `registry`).

use crate::error::ToolError;
use crate::schema;
use serde_json::Value;
use steward_protocol::ToolSpec;

/// Argument text longer than this is refused before parsing, so a runaway model cannot
/// make us parse and check megabytes.
pub const MAX_ARGUMENT_BYTES: usize = 256 * 1024;

pub(crate) fn parse_arguments(raw: &str, spec: &ToolSpec) -> Result<Value, String> {
    if raw.len() > MAX_ARGUMENT_BYTES {
        return Err(format!(
            "arguments are too large ({} bytes; the limit is {MAX_ARGUMENT_BYTES})",
            raw.len()
        ));
    }
    let args = if raw.trim().is_empty() {
        Value::Object(serde_json::Map::new())
    } else {
        serde_json::from_str::<Value>(raw).map_err(|e| {
            format!(
                "arguments are not valid JSON ({e}); send one JSON object, e.g. {}",
                example_arguments(&spec.parameters)
            )
        })?
    };
    check_schema(&args, spec)?;
    Ok(args)
}

/// A required string argument of an already checked call, or the error the model sees.
pub fn str_arg<'a>(args: &'a Value, name: &str) -> Result<&'a str, ToolError> {
    args.get(name).and_then(Value::as_str).ok_or_else(|| {
        ToolError::InvalidArguments(format!("argument `{name}` (a string) is required"))
    })
}

pub(crate) fn opt_str_arg<'a>(args: &'a Value, name: &str) -> Option<&'a str> {
    args.get(name).and_then(Value::as_str)
}

/// The size limit and schema check for arguments that arrive already parsed.
pub(crate) fn check_value(args: &Value, spec: &ToolSpec) -> Result<(), String> {
    let len = serde_json::to_string(args)
        .map(|t| t.len())
        .unwrap_or(usize::MAX);
    if len > MAX_ARGUMENT_BYTES {
        return Err(format!(
            "arguments are too large ({len} bytes; the limit is {MAX_ARGUMENT_BYTES})"
        ));
    }
    check_schema(args, spec)
}

fn check_schema(args: &Value, spec: &ToolSpec) -> Result<(), String> {
    schema::check(&spec.parameters, args)
        .map_err(|e| format!("invalid arguments for `{}`: {e}", spec.name))
}

/// A minimal example call built from the required properties, to show the expected shape.
pub(crate) fn example_arguments(parameters: &Value) -> String {
    let mut example = serde_json::Map::new();
    let required = parameters.get("required").and_then(Value::as_array);
    let props = parameters.get("properties").and_then(Value::as_object);
    if let (Some(required), Some(props)) = (required, props) {
        for name in required.iter().filter_map(Value::as_str) {
            let placeholder = match props
                .get(name)
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str)
            {
                Some("number" | "integer") => Value::from(1),
                Some("boolean") => Value::Bool(true),
                Some("array") => Value::Array(Vec::new()),
                Some("object") => Value::Object(serde_json::Map::new()),
                _ => Value::String("...".to_owned()),
            };
            example.insert(name.to_owned(), placeholder);
        }
    }
    Value::Object(example).to_string()
}

/// Cut at a char boundary at or below `max` bytes and say how much went missing, so the
/// model knows the output is incomplete.
pub(crate) fn truncate_output(output: String, max: usize) -> String {
    if output.len() <= max {
        return output;
    }
    let mut cut = max;
    while !output.is_char_boundary(cut) {
        cut -= 1;
    }
    let dropped = output.len() - cut;
    format!("{}\n[… truncated {dropped} bytes]", &output[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_respects_char_boundaries() {
        // "é" is two bytes, so a 5-byte limit falls mid-char and must back off to 4.
        let out = truncate_output("éééé".to_owned(), 5);
        assert_eq!(out, "éé\n[… truncated 4 bytes]");
        assert_eq!(truncate_output("short".to_owned(), 5), "short");
        assert_eq!(
            truncate_output("abc".to_owned(), 0),
            "\n[… truncated 3 bytes]"
        );
    }

    #[test]
    fn example_uses_required_properties() {
        let params = serde_json::json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "string"}},
            "required": ["a", "b"]
        });
        assert_eq!(example_arguments(&params), r#"{"a":"...","b":1}"#);
    }
}
