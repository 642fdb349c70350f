//! What a call to an MCP server touches, for the taint rule and the surfaces (`Tool::reach`):
//! every string the model put in the arguments is sent to the server (an MCP server is
//! outside Steward, whatever it does with them), every one that is an absolute http(s) URL
//! is a URL the call may make the server contact, and one line says what the call is about.
//!
//! Owns: walking argument values and choosing the main argument. Does not own the taint
//! rule (steward-core) or the tools themselves (see `tool`).

use super::scrub::scrub;
use serde_json::Value;
use steward_tools::Reach;

/// Most bytes of argument text `sends` carries; the rest of a long payload is cut (the last
/// value kept ends with `…`). Arguments themselves are capped by the registry at 256 KiB.
pub const MAX_SENDS_BYTES: usize = 16 * 1024;
/// Longest main argument shown in a summary, in characters.
pub const MAX_SUMMARY_ARG: usize = 120;

/// Every string value in `args`, depth first, object members in key order, array items in
/// order. Iterative, so no nesting depth can exhaust the stack.
pub(crate) fn strings(args: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![args];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.push(s.as_str()),
            // Reversed onto the stack so they come off in order.
            Value::Array(items) => stack.extend(items.iter().rev()),
            Value::Object(map) => stack.extend(map.values().rev()),
            _ => {}
        }
    }
    out
}

/// `text` if it is an absolute `http://` or `https://` URL with a host.
fn is_web_url(text: &str) -> bool {
    reqwest::Url::parse(text)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
}

/// The strings, in order, until `MAX_SENDS_BYTES` is used up.
fn bounded(all: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut left = MAX_SENDS_BYTES;
    for s in all {
        if s.len() <= left {
            out.push((*s).to_owned());
            left -= s.len();
        } else {
            let mut cut = left;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            out.push(format!("{}…", &s[..cut]));
            break;
        }
    }
    out
}

/// The argument a person would name the call by: the first property in the schema's
/// `required` list whose value is a string, else the first string among the top-level
/// arguments (key order), else none.
pub(crate) fn main_argument<'a>(schema: &Value, args: &'a Value) -> Option<&'a str> {
    let map = args.as_object()?;
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    for name in required {
        if let Some(Value::String(s)) = map.get(name) {
            return Some(s);
        }
    }
    map.values().find_map(Value::as_str)
}

/// `server tool: main argument` (single line, the argument cut at `MAX_SUMMARY_ARG`).
pub(crate) fn summary(server: &str, tool: &str, main: Option<&str>) -> String {
    let head = scrub(&format!("{server} {tool}"), &[], 200);
    match main.map(|m| scrub(m, &[], MAX_SUMMARY_ARG)) {
        Some(m) if !m.is_empty() => format!("{head}: {m}"),
        _ => head,
    }
}

/// The reach of a server tool call with these arguments.
pub(crate) fn tool_reach(server: &str, tool: &str, schema: &Value, args: &Value) -> Reach {
    let all = strings(args);
    Reach {
        urls: all
            .iter()
            .filter(|s| is_web_url(s))
            .map(|s| (*s).to_owned())
            .collect(),
        sends: bounded(&all),
        remembers: Vec::new(),
        summary: Some(summary(server, tool, main_argument(schema, args))),
    }
}

/// The reach of reading one resource: its URI goes to the server (and is a URL the server
/// may fetch when it is one).
pub(crate) fn resource_reach(uri: &str) -> Reach {
    Reach {
        urls: if is_web_url(uri) {
            vec![uri.to_owned()]
        } else {
            Vec::new()
        },
        sends: bounded(&[uri]),
        remembers: Vec::new(),
        summary: Some(scrub(uri, &[], MAX_SUMMARY_ARG)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn walks_nested_objects_and_arrays_in_order() {
        let args = json!({
            "b": "second",
            "a": "first",
            "n": 3,
            "flag": true,
            "list": ["x", {"deep": ["y", null, "z"]}, 7],
            "obj": {"k": {"k2": "w"}}
        });
        // Keys in order (a, b, flag, list, n, obj), depth first.
        assert_eq!(strings(&args), ["first", "second", "x", "y", "z", "w"]);
        assert!(strings(&json!(42)).is_empty());
        assert_eq!(strings(&json!("top")), ["top"]);
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let mut v = json!("bottom");
        for _ in 0..20_000 {
            v = Value::Array(vec![v]);
        }
        assert_eq!(strings(&v), ["bottom"]);
        // serde_json's own recursive drop would overflow on this; take it apart by hand.
        while let Value::Array(mut items) = v {
            v = items.pop().unwrap_or(Value::Null);
        }
    }

    #[test]
    fn urls_are_absolute_http_only() {
        let args = json!({
            "u": "https://example.com/a?b=c",
            "plain": "http://127.0.0.1:8080",
            "nested": {"list": ["see https://inside.example/ for more", "HTTPS://Upper.Example/x"]},
            "ftp": "ftp://files.example/x",
            "file": "file:///etc/passwd",
            "rel": "/relative/path",
            "mailto": "mailto:a@b.example",
            // WHATWG parsing (what an HTTP client does) reads this as http://lenient.example/.
            "lenient": "http:/lenient.example",
            "padded": "  https://padded.example/  ",
            "word": "example.com"
        });
        let r = tool_reach("s", "t", &json!({}), &args);
        assert_eq!(
            r.urls,
            [
                "http:/lenient.example",
                "HTTPS://Upper.Example/x",
                "  https://padded.example/  ",
                "http://127.0.0.1:8080",
                "https://example.com/a?b=c"
            ]
        );
        // Every string is sent, URL or not.
        assert_eq!(r.sends.len(), 11);
        assert!(r.sends.iter().any(|s| s == "file:///etc/passwd"));
        assert!(r.remembers.is_empty());
    }

    #[test]
    fn sends_are_bounded() {
        let big = "é".repeat(MAX_SENDS_BYTES); // 2 bytes each: twice the budget
        let args = json!({"a": "short", "b": big, "c": "never reached"});
        let r = tool_reach("s", "t", &json!({}), &args);
        assert_eq!(r.sends.len(), 2);
        assert_eq!(r.sends[0], "short");
        let total: usize = r.sends.iter().map(|s| s.trim_end_matches('…').len()).sum();
        assert!(total <= MAX_SENDS_BYTES, "{total}");
        assert!(total >= MAX_SENDS_BYTES - 1, "{total}");
        assert!(r.sends[1].ends_with('…'));
        // URLs are all declared, whatever the budget.
        let args = json!({"a": "x".repeat(MAX_SENDS_BYTES), "z": "https://late.example/"});
        assert_eq!(
            tool_reach("s", "t", &json!({}), &args).urls,
            ["https://late.example/"]
        );
    }

    #[test]
    fn summary_names_server_tool_and_main_argument() {
        let schema = json!({"required": ["count", "title", "body"]});
        let args = json!({"body": "the body", "count": 3, "title": "Fix\nthe bug"});
        // `count` is required but not a string; `title` is the first required string.
        assert_eq!(
            tool_reach("github", "create_issue", &schema, &args).summary,
            Some("github create_issue: Fix the bug".to_owned())
        );
        // No required string: the first string argument in key order.
        let args = json!({"zeta": "last", "alpha": "first", "n": 1});
        assert_eq!(
            summary("s", "t", main_argument(&json!({}), &args)),
            "s t: first"
        );
        // No string at all: just server and tool.
        assert_eq!(
            summary("s", "t", main_argument(&json!({}), &json!({"n": 1}))),
            "s t"
        );
        let long = "w".repeat(500);
        let s = summary("s", "t", Some(&long));
        assert_eq!(s.chars().count(), "s t: ".len() + MAX_SUMMARY_ARG + 1);
        assert!(s.ends_with('…'));
    }

    #[test]
    fn resource_reach_is_its_uri() {
        let r = resource_reach("demo://resource/static/1");
        assert_eq!(r.summary.as_deref(), Some("demo://resource/static/1"));
        assert_eq!(r.sends, ["demo://resource/static/1"]);
        assert!(r.urls.is_empty());
        let r = resource_reach("https://docs.example/page");
        assert_eq!(r.urls, ["https://docs.example/page"]);
    }
}
