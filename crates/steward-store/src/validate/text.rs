//! The one scrub for text the store keeps. Every adapter write of free text (message content,
//! tool names, tool-call ids and arguments, previews, outcomes, audit detail) passes through
//! `storable` here, inside `crate::validate`, so SQLite today and PostgreSQL later keep the same
//! bytes. Callers upstream (the turn, the approval gate) need not scrub anything themselves.
//!
//! The rule: NUL becomes U+FFFD. PostgreSQL `text` cannot hold NUL, SQLite's C string APIs cut at
//! it, and it means nothing in a chat; Rust strings are already valid UTF-8, so NUL is the only
//! byte no engine can keep. Identifiers and payloads that an approval is bound to (ids, kv keys,
//! an action's tool and arguments) are not rewritten but refused: changing them would alias two
//! keys or break the payload hash.

use std::borrow::Cow;

/// What a NUL is stored as.
pub const NUL_REPLACEMENT: char = '\u{FFFD}';

/// `text` as the store keeps it: every NUL replaced by U+FFFD. Borrowed when nothing changes.
pub fn storable(text: &str) -> Cow<'_, str> {
    if text.contains('\0') {
        Cow::Owned(text.replace('\0', "\u{FFFD}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// `storable`, then cut to at most `max` bytes (on a character boundary) with a note saying
/// how much was left out, for text whose whole is not essential to the record (a tool's
/// output, a preview): a long output is kept shortened rather than refused, so recording an
/// action's result can never fail on its size.
pub(crate) fn storable_within(text: &str, max: usize) -> Cow<'_, str> {
    let clean = storable(text);
    if clean.len() <= max {
        return clean;
    }
    // The note is at most ~60 bytes; reserve for it, then cut on a char boundary.
    let note = |left: usize| format!("\n… [{left} more bytes not stored]");
    let budget = max.saturating_sub(note(clean.len()).len());
    let mut cut = budget.min(clean.len());
    while !clean.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut out = String::with_capacity(max);
    out.push_str(&clean[..cut]);
    out.push_str(&note(clean.len() - cut));
    Cow::Owned(out)
}

/// `storable` for an optional field.
pub(crate) fn storable_opt(text: &Option<String>) -> Option<String> {
    text.as_deref().map(|t| storable(t).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_becomes_the_replacement_character_and_nothing_else_changes() {
        assert_eq!(storable("a\0b\0"), "a\u{FFFD}b\u{FFFD}");
        let plain = "tab\tescape\u{1b} bidi\u{202e} 🦀";
        assert!(matches!(storable(plain), Cow::Borrowed(_)));
        assert_eq!(storable(plain), plain);
    }

    #[test]
    fn long_text_is_cut_on_a_char_boundary_within_the_limit() {
        let text = "é".repeat(1000); // 2000 bytes
        let kept = storable_within(&text, 501);
        assert!(kept.len() <= 501, "{}", kept.len());
        assert!(kept.starts_with("éé"));
        assert!(kept.contains("more bytes not stored"), "{kept}");
        assert_eq!(storable_within("short\0", 501), "short\u{FFFD}");
        // A NUL is replaced before the length is judged (U+FFFD is 3 bytes).
        assert!(storable_within(&"\0".repeat(400), 500).len() <= 500);
    }
}
