//! Formatting the model's answer for Telegram: Markdown rendered as Telegram's HTML parse
//! mode (`render.rs`; tables laid out by `table.rs`; link targets and code languages checked
//! by `attributes.rs`), split into messages within Telegram's limit (`split.rs` over the
//! atoms of `tokens.rs`), and the plain-text draft shown while an answer streams. Escaping
//! and UTF-16 counting live in `escape.rs`. Does not send anything: delivery calls these and
//! passes `parse_mode = "HTML"` with each chunk.

mod attributes;
mod escape;
mod render;
mod split;
mod table;
mod tokens;

pub use escape::escape_html;
pub use render::render_html;
pub use split::split_html;

/// Telegram's limit on a message's text after entity parsing, in UTF-16 code units.
pub const MESSAGE_LIMIT: usize = 4096;

const ELLIPSIS: char = '…';

/// Render then split at [`MESSAGE_LIMIT`]. An answer with nothing visible gives no message.
pub fn telegram_messages(markdown: &str) -> Vec<String> {
    split_html(&render_html(markdown), MESSAGE_LIMIT)
}

/// The visible text of Telegram HTML: tags dropped, the four entities turned back, read by
/// the same tokenizer `split_html` uses. What is sent without `parse_mode` when Telegram
/// refuses a message's HTML.
pub fn visible_text(html: &str) -> String {
    tokens::tokenize(html)
        .iter()
        .filter_map(|atom| match atom {
            tokens::Atom::Char { html, .. } => Some(match *html {
                "&lt;" => "<",
                "&gt;" => ">",
                "&amp;" => "&",
                "&quot;" => "\"",
                other => other,
            }),
            _ => None,
        })
        .collect()
}

/// Plain text for a streaming draft (sent without `parse_mode`): the Markdown as it is, cut
/// to `limit` UTF-16 code units, the cut marked by a trailing "…" that counts toward the
/// limit. Never splits a character (a surrogate pair stays whole).
pub fn draft_text(partial_markdown: &str, limit: usize) -> String {
    let total: usize = partial_markdown.chars().map(char::len_utf16).sum();
    if total <= limit {
        return partial_markdown.to_owned();
    }
    let Some(room) = limit.checked_sub(ELLIPSIS.len_utf16()) else {
        return String::new();
    };
    let mut used = 0;
    let mut end = 0;
    for (index, c) in partial_markdown.char_indices() {
        if used + c.len_utf16() > room {
            break;
        }
        used += c.len_utf16();
        end = index + c.len_utf8();
    }
    let mut draft = partial_markdown
        .get(..end)
        .unwrap_or_default()
        .trim_end()
        .to_owned();
    draft.push(ELLIPSIS);
    draft
}

#[cfg(test)]
mod tests;
