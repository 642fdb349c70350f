//! The text rules every part of `format/` shares: escaping for Telegram's HTML parse mode,
//! counting as Telegram counts (UTF-16 code units), and which characters are dropped from a
//! rendered message. Owns no parsing and no splitting.

/// Escape text for Telegram HTML: `&`, `<`, `>` and `"` become the four entities Telegram's
/// parser knows. Nothing else is touched (Telegram reads every other character literally).
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_escaped(&mut out, text);
    out
}

/// [`escape_html`] appending to `out`.
pub(crate) fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        push_escaped_char(out, c);
    }
}

pub(crate) fn push_escaped_char(out: &mut String, c: char) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '"' => out.push_str("&quot;"),
        other => out.push(other),
    }
}

/// Control characters other than newline and tab are dropped from rendered text: they are
/// invisible, some clients show them as boxes, and NUL may end the text early elsewhere.
pub(crate) fn is_dropped_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// Length as Telegram counts a message's text: UTF-16 code units.
pub(crate) fn utf16_len(c: char) -> usize {
    c.len_utf16()
}
