//! The attribute values `render.rs` writes: a link's href (only http, https, tg and mailto
//! targets; anything else makes the link plain text) and a code block's `language-x` class.
//! Owns which values are allowed; does not own escaping them (`escape.rs`).

use pulldown_cmark::LinkType;

const MAX_LANGUAGE_CHARS: usize = 32;
/// Longer link targets become plain text: Telegram refuses very long URLs.
const MAX_URL_BYTES: usize = 2048;
const LINK_SCHEMES: [&str; 4] = ["http", "https", "tg", "mailto"];

/// The `language-x` class of a fenced block: the info string's first word, only characters
/// that appear in language names, at most `MAX_LANGUAGE_CHARS`.
pub(super) fn language_class(info: &str) -> Option<String> {
    let word = info.split_whitespace().next()?;
    let language: String = word
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '#' | '.' | '-'))
        .take(MAX_LANGUAGE_CHARS)
        .collect();
    (!language.is_empty()).then_some(language)
}

/// The href for a link target, or `None` when it must be plain text: only http, https, tg
/// and mailto, no whitespace or control characters, not absurdly long.
pub(super) fn allowed_href(link_type: LinkType, url: &str) -> Option<String> {
    let url = url.trim();
    if url.is_empty()
        || url.len() > MAX_URL_BYTES
        || url.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return None;
    }
    if link_type == LinkType::Email && !url.contains(':') {
        return Some(format!("mailto:{url}"));
    }
    let (scheme, rest) = url.split_once(':')?;
    let scheme = scheme.to_ascii_lowercase();
    if !LINK_SCHEMES.contains(&scheme.as_str()) || rest.is_empty() {
        return None;
    }
    if (scheme == "http" || scheme == "https")
        && rest
            .strip_prefix("//")
            .is_none_or(|host| host.is_empty() || host.starts_with('/'))
    {
        return None;
    }
    Some(url.to_owned())
}
