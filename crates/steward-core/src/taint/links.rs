//! URLs in text, and what a URL says once decoded: the two things the taint rule needs to
//! judge an outbound request. Finding links decides which URLs a tainted turn may fetch
//! without asking (those the owner wrote, or an earlier result of the turn showed);
//! decoding feeds the private-value search and the card the owner reads.
//!
//! Owns: link scanning and URL decoding (percent, `+`, base64 and hex pieces). Does not own
//! the rule itself (`rule`) or where private values come from (`private`).

use base64::Engine;
use percent_encoding::percent_decode_str;

/// Longest URL considered; longer ones are never "seen", so they always ask.
const MAX_URL_LEN: usize = 8 * 1024;
/// Pieces shorter than this are not tried as base64 or hex (too many false decodings).
const MIN_ENCODED_LEN: usize = 8;

/// Every http(s) URL in `text`, as written (trailing punctuation that usually ends a
/// sentence or a markdown link trimmed). HTML-escaped ampersands also yield the unescaped
/// spelling, since fenced tool output may carry either.
pub(crate) fn find_urls(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = next_scheme(&lower, from) {
        let rest = &text[pos..];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '\'' | '`'))
            .unwrap_or(rest.len());
        let raw = trim_trailing(&rest[..end]);
        from = pos + end.max(1);
        if raw.len() <= "https://".len() || raw.len() > MAX_URL_LEN {
            continue;
        }
        out.push(raw.to_owned());
        if raw.contains("&amp;") {
            out.push(raw.replace("&amp;", "&"));
        }
    }
    out
}

fn next_scheme(lower: &str, from: usize) -> Option<usize> {
    let hay = lower.get(from..)?;
    let a = hay.find("http://");
    let b = hay.find("https://");
    let first = match (a, b) {
        (Some(x), Some(y)) => x.min(y),
        (Some(x), None) | (None, Some(x)) => x,
        (None, None) => return None,
    };
    Some(from + first)
}

fn trim_trailing(url: &str) -> &str {
    let mut u = url;
    loop {
        let Some(last) = u.chars().last() else {
            return u;
        };
        let unbalanced_close = (last == ')' && u.matches('(').count() < u.matches(')').count())
            || (last == ']' && u.matches('[').count() < u.matches(']').count());
        if matches!(last, '.' | ',' | ';' | ':' | '!' | '?' | '*' | '}') || unbalanced_close {
            u = &u[..u.len() - last.len_utf8()];
        } else {
            return u;
        }
    }
}

/// Two spellings of one link count as the same when they differ only in the scheme's and
/// host's case, HTML-escaped ampersands or a trailing slash.
pub(crate) fn same_link(a: &str, b: &str) -> bool {
    key(a) == key(b)
}

pub(crate) fn key(url: &str) -> String {
    let u = url.trim().replace("&amp;", "&");
    let (head, tail) = match u.find("://") {
        Some(i) => {
            let after = &u[i + 3..];
            let host_end = after.find(['/', '?', '#']).unwrap_or(after.len());
            (
                format!(
                    "{}{}",
                    u[..i + 3].to_ascii_lowercase(),
                    after[..host_end].to_ascii_lowercase()
                ),
                after[host_end..].to_owned(),
            )
        }
        None => (String::new(), u.clone()),
    };
    let tail = tail.strip_suffix('/').unwrap_or(&tail).to_owned();
    format!("{head}{tail}")
}

/// A URL taken apart for the owner and for the private-value search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct DecodedUrl {
    pub host: String,
    /// Path segments, percent-decoded.
    pub path: Vec<String>,
    /// Query pairs, percent- and `+`-decoded.
    pub query: Vec<(String, String)>,
    pub fragment: Option<String>,
    /// Every readable text hidden in the URL: the decoded whole, each piece, and the
    /// base64 / hex decodings of pieces that decode to text.
    pub texts: Vec<String>,
}

pub(crate) fn decode(url: &str) -> DecodedUrl {
    let mut d = DecodedUrl::default();
    let parsed = url::Url::parse(url).ok();
    let mut pieces: Vec<String> = Vec::new();
    match &parsed {
        Some(u) => {
            d.host = u.host_str().unwrap_or("").to_owned();
            pieces.extend(d.host.split('.').map(str::to_owned));
            if let Some(segs) = u.path_segments() {
                d.path = segs.filter(|s| !s.is_empty()).map(unescape).collect();
            }
            d.query = u
                .query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            d.fragment = u.fragment().map(unescape);
            if let Some(user) = Some(u.username()).filter(|s| !s.is_empty()) {
                pieces.push(unescape(user));
            }
            if let Some(pw) = u.password() {
                pieces.push(unescape(pw));
            }
        }
        None => pieces.push(url.to_owned()),
    }
    pieces.extend(d.path.iter().cloned());
    for (k, v) in &d.query {
        pieces.push(k.clone());
        pieces.push(v.clone());
    }
    pieces.extend(d.fragment.iter().cloned());
    // Fragments and paths may carry `a=b&c=d` of their own.
    let nested: Vec<String> = pieces
        .iter()
        .flat_map(|p| {
            p.split(['&', '=', ';', ',', '|'])
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    pieces.extend(nested);

    let mut texts = vec![url.to_owned(), repeat_unescape(url)];
    for p in pieces {
        if p.is_empty() {
            continue;
        }
        if let Some(t) = decode_binary(&p) {
            texts.push(t);
        }
        texts.push(p);
    }
    texts.sort();
    texts.dedup();
    d.texts = texts;
    d
}

fn unescape(s: &str) -> String {
    percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// Percent-decoding applied until nothing changes (at most three times: double encoding
/// is a classic way to hide a value), `+` read as a space.
fn repeat_unescape(s: &str) -> String {
    let mut cur = s.replace('+', " ");
    for _ in 0..3 {
        let next = unescape(&cur);
        if next == cur {
            break;
        }
        cur = next;
    }
    cur
}

/// A piece that is base64 (either alphabet, padded or not) or hex of readable text.
fn decode_binary(piece: &str) -> Option<String> {
    let p = piece.trim();
    if p.len() < MIN_ENCODED_LEN {
        return None;
    }
    let engines = [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    for e in engines {
        if let Ok(bytes) = e.decode(p)
            && let Some(t) = readable(bytes)
        {
            return Some(t);
        }
    }
    if p.len().is_multiple_of(2) && p.bytes().all(|b| b.is_ascii_hexdigit()) {
        let bytes: Option<Vec<u8>> = (0..p.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&p[i..i + 2], 16).ok())
            .collect();
        return bytes.and_then(readable);
    }
    None
}

fn readable(bytes: Vec<u8>) -> Option<String> {
    let t = String::from_utf8(bytes).ok()?;
    let printable = t.chars().all(|c| !c.is_control() || c == '\n' || c == '\t');
    printable.then_some(t)
}

/// A short, human reading of a URL for an approval card.
pub(crate) fn describe(url: &str) -> String {
    let d = decode(url);
    let mut out = format!("URL: {url}\nhost: {}", d.host);
    if !d.path.is_empty() {
        out.push_str(&format!("\npath: /{}", d.path.join("/")));
    }
    for (k, v) in &d.query {
        out.push_str(&format!("\nquery: {k} = {v}"));
    }
    if let Some(f) = &d.fragment {
        out.push_str(&format!("\nfragment: {f}"));
    }
    for t in &d.texts {
        if t != url && !d.path.contains(t) && !d.query.iter().any(|(k, v)| k == t || v == t) {
            // Only decodings a person could not read off the URL itself.
            if is_hidden_decoding(url, t) {
                out.push_str(&format!("\ndecodes to: {t}"));
            }
        }
    }
    out
}

fn is_hidden_decoding(url: &str, t: &str) -> bool {
    t.chars().count() >= 4 && !url.contains(t) && !repeat_unescape(url).contains(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_links_in_prose_markdown_and_html() {
        let text = "See https://a.example/x?y=1. Also (https://b.example/p_(q)) and \
                    [c](https://c.example/c), <a href=\"https://d.example/d?a=1&amp;b=2\">, \
                    HTTP://E.example/E!";
        let urls = find_urls(text);
        assert!(
            urls.contains(&"https://a.example/x?y=1".to_owned()),
            "{urls:?}"
        );
        assert!(
            urls.contains(&"https://b.example/p_(q)".to_owned()),
            "{urls:?}"
        );
        assert!(urls.contains(&"https://c.example/c".to_owned()), "{urls:?}");
        assert!(
            urls.contains(&"https://d.example/d?a=1&b=2".to_owned()),
            "{urls:?}"
        );
        assert!(urls.contains(&"HTTP://E.example/E".to_owned()), "{urls:?}");
        assert!(find_urls("no links, just http:// and https://").is_empty());
    }

    #[test]
    fn same_link_ignores_only_harmless_differences() {
        assert!(same_link("HTTPS://Example.COM/a/", "https://example.com/a"));
        assert!(same_link(
            "https://e.com/?a=1&amp;b=2",
            "https://e.com/?a=1&b=2"
        ));
        assert!(!same_link("https://e.com/A", "https://e.com/a"));
        assert!(!same_link("https://e.com/a?x=1", "https://e.com/a?x=2"));
    }

    #[test]
    fn decoding_reveals_values_hidden_in_every_part() {
        let d = decode(
            "https://12ruedelapaix.evil.example/c/MTIgUnVlIGRlIGxhIFBhaXg?d=12%2BRue%2520de+la+Paix#h=3132205275652064652c61205061697820",
        );
        let all = d.texts.join("\n");
        assert!(all.contains("12 Rue de la Paix"), "{all}");
        assert!(all.contains("12ruedelapaix"), "{all}");
        assert_eq!(d.host, "12ruedelapaix.evil.example");
        let card = describe("https://evil.example/c?d=MTIgUnVlIGRlIGxhIFBhaXg");
        assert!(
            card.contains("query: d = MTIgUnVlIGRlIGxhIFBhaXg"),
            "{card}"
        );
        assert!(card.contains("decodes to: 12 Rue de la Paix"), "{card}");
    }
}
