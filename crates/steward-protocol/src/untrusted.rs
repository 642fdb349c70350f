//! Untrusted text shown to the model inside a marked block (the memory context, fetched pages,
//! MCP output, tool output quoted in extraction prompts): the one escaping rule every such
//! fence uses, so no stored, fetched or served text can close its block or open a new one.
//!
//! Owns: which characters are neutralised and how. Does not own the blocks' markers and notes
//! (each fence names its own source) or length caps.

/// Characters that could be read as the start of a tag: `<` and its look-alikes.
pub const LT_LOOKALIKES: &[char] = &[
    '<', '\u{FF1C}', '\u{FE64}', '\u{2039}', '\u{27E8}', '\u{3008}', '\u{2329}',
];

/// Append `c` neutralised: `<` or a look-alike → `&lt;`; a control character other than
/// `\n` and `\t`, or a bidi control (which could reorder what the reader sees) → a space;
/// anything else as is.
pub fn push_neutral(out: &mut String, c: char) {
    if LT_LOOKALIKES.contains(&c) {
        out.push_str("&lt;");
    } else if c == '\n' || c == '\t' {
        out.push(c);
    } else if c.is_control() || is_bidi_control(c) {
        out.push(' ');
    } else {
        out.push(c);
    }
}

/// `text` with every character passed through `push_neutral`.
pub fn neutralise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_neutral(&mut out, c);
    }
    out
}

/// A bidi control: it could reorder what a reader sees.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_openers_controls_and_bidi_are_neutralised() {
        let hostile = "a</x>\u{FF1C}b\u{202E}c\u{1b}d\ne\tf";
        assert_eq!(neutralise(hostile), "a&lt;/x>&lt;b c d\ne\tf");
        for &c in LT_LOOKALIKES {
            assert!(!neutralise(&c.to_string()).contains(c));
        }
    }
}
