//! How text Steward did not write (an intention's or a reminder's words, a read-later title
//! that came from a web page) goes into a proactive message: as plain text on one line, never
//! as formatting or instructions. Both surfaces that show these messages render Markdown
//! (Telegram through `format::telegram_messages`, which already escapes HTML and refuses
//! unsafe links; the web app's renderer), so Markdown's own punctuation is backslash-escaped:
//! a title like `[your bank](https://…)` shows as typed, not as a link hiding its target, and
//! a line break cannot start a heading or a fake list item.
//!
//! Owns: that rule. Does not own: the surfaces' rendering.

/// The Markdown punctuation that can start formatting (CommonMark lets any ASCII punctuation
/// be escaped; these are the ones that matter).
const ACTIVE: &[char] = &['\\', '`', '*', '_', '[', ']', '<', '>', '#', '|', '~', '&'];
/// What starts a list item or a heading underline at the start of a line (the text follows a
/// list marker of ours, so it must not nest one).
const LEADING: &[char] = &['-', '+', '='];

/// `raw` as one line of plain text, at most `max_chars` characters (then `…`).
pub fn plain(raw: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut space = false;
    for c in raw.chars() {
        if c.is_whitespace() || c.is_control() {
            space = !out.is_empty();
            continue;
        }
        if count >= max_chars {
            out.push('…');
            return out;
        }
        if space {
            out.push(' ');
            count += 1;
            space = false;
        }
        if ACTIVE.contains(&c) || (out.is_empty() && LEADING.contains(&c)) || ordinal_mark(&out, c)
        {
            out.push('\\');
        }
        out.push(c);
        count += 1;
    }
    out
}

/// `.` or `)` right after leading digits: "1. x" would be an ordered list item.
fn ordinal_mark(so_far: &str, c: char) -> bool {
    (c == '.' || c == ')') && !so_far.is_empty() && so_far.chars().all(|d| d.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn untrusted_text_is_one_plain_line() {
        assert_eq!(
            plain("[your bank](https://evil.example)", 100),
            "\\[your bank\\](https://evil.example)"
        );
        assert_eq!(
            plain("  a\n# heading\r\n- item\t", 100),
            "a \\# heading - item"
        );
        assert_eq!(plain("<b>x</b>", 100), "\\<b\\>x\\</b\\>");
        assert_eq!(plain("abcdef", 3), "abc…");
        assert_eq!(plain("", 3), "");
        assert_eq!(plain("- nested", 100), "\\- nested");
        assert_eq!(plain("1. first", 100), "1\\. first");
        assert_eq!(plain("pay 1.5 (soon)!", 100), "pay 1.5 (soon)!");
    }
}
