//! The payload an approval binds to: tool name + canonical JSON arguments, hashed.

use sha2::{Digest, Sha256};

/// SHA-256 (hex) of `tool` NUL `arguments`. Any change to either changes the hash, so an
/// approval given for one payload can never run another.
pub fn payload_hash(tool: &str, arguments: &str) -> String {
    let mut h = Sha256::new();
    h.update(tool.as_bytes());
    h.update([0u8]);
    h.update(arguments.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Canonical text of a JSON value: serde_json's map is ordered (BTreeMap without the
/// `preserve_order` feature), so equal values give equal text.
pub(crate) fn canonical(args: &serde_json::Value) -> String {
    serde_json::to_string(args).unwrap_or_else(|_| "null".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_binds_tool_and_arguments() {
        let a = payload_hash("db_execute", r#"{"sql":"DELETE FROM t"}"#);
        assert_eq!(a.len(), 64);
        assert_eq!(a, payload_hash("db_execute", r#"{"sql":"DELETE FROM t"}"#));
        assert_ne!(a, payload_hash("db_execute", r#"{"sql":"DELETE FROM u"}"#));
        assert_ne!(a, payload_hash("db_query", r#"{"sql":"DELETE FROM t"}"#));
        // The separator stops "ab"+"c" from colliding with "a"+"bc".
        assert_ne!(payload_hash("ab", "c"), payload_hash("a", "bc"));
    }

    #[test]
    fn canonical_text_ignores_key_order() {
        let x: serde_json::Value = serde_json::from_str(r#"{"b":1,"a":2}"#).unwrap();
        let y: serde_json::Value = serde_json::from_str(r#"{"a":2,"b":1}"#).unwrap();
        assert_eq!(canonical(&x), canonical(&y));
    }
}
