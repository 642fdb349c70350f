//! The tests' own reading of Telegram HTML, independent of the crate's tokenizer: is a text
//! well-formed for `parse_mode = "HTML"` (only the tags Telegram accepts, balanced and
//! nested as Telegram allows, every `&` a known entity, no raw `<` or `>` in text), what is
//! its visible text, and does a list of chunks lose nothing of a whole but whitespace.

const STYLE_TAGS: [&str; 10] = [
    "b",
    "strong",
    "i",
    "em",
    "u",
    "ins",
    "s",
    "strike",
    "del",
    "tg-spoiler",
];
const ENTITIES: [(&str, char); 4] = [
    ("&lt;", '<'),
    ("&gt;", '>'),
    ("&amp;", '&'),
    ("&quot;", '"'),
];
const SCHEMES: [&str; 4] = ["http:", "https:", "tg:", "mailto:"];

/// Telegram's UTF-16 length.
pub fn utf16(text: &str) -> usize {
    text.encode_utf16().count()
}

/// `Ok` when `html` would parse in Telegram's HTML mode and keeps Telegram's nesting rules:
/// nothing inside `code`; inside `pre` only one `code class="language-…"`; `a` not inside `a`;
/// `blockquote` not inside `blockquote`; `code`/`pre` not inside a style or a link.
pub fn check(html: &str) -> Result<(), String> {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(c) = rest.chars().next() {
        match c {
            '<' => {
                let end = rest
                    .find('>')
                    .ok_or_else(|| format!("unclosed tag at {rest:.40?}"))?;
                let tag = &rest[1..end];
                if tag.contains('<') {
                    return Err(format!("'<' inside a tag: {tag:?}"));
                }
                if let Some(name) = tag.strip_prefix('/') {
                    match stack.pop() {
                        Some(open) if open == name => {}
                        other => return Err(format!("</{name}> closes {other:?}")),
                    }
                } else {
                    let name = open_tag(tag, &stack)?;
                    stack.push(name);
                }
                rest = &rest[end + 1..];
            }
            '>' => return Err("raw '>' in text".to_owned()),
            '&' => {
                let entity = ENTITIES.iter().find(|(e, _)| rest.starts_with(e));
                let (entity, _) = entity.ok_or_else(|| format!("bad entity at {rest:.12?}"))?;
                rest = &rest[entity.len()..];
            }
            _ => rest = &rest[c.len_utf8()..],
        }
    }
    match stack.is_empty() {
        true => Ok(()),
        false => Err(format!("left open: {stack:?}")),
    }
}

/// Validates one opening tag (without `<` `>`) against the tags open around it.
fn open_tag(tag: &str, stack: &[String]) -> Result<String, String> {
    let inside = |name: &str| stack.iter().any(|open| open == name);
    if inside("code") {
        return Err(format!("<{tag}> inside code"));
    }
    let in_style_or_link = stack
        .iter()
        .any(|open| STYLE_TAGS.contains(&open.as_str()) || open == "a");
    let name = if let Some(href) = tag
        .strip_prefix("a href=\"")
        .and_then(|v| v.strip_suffix('"'))
    {
        check_attribute(href)?;
        let href = unescape(href);
        if !SCHEMES
            .iter()
            .any(|s| href.to_ascii_lowercase().starts_with(s))
        {
            return Err(format!("href with a refused scheme: {href:?}"));
        }
        if inside("a") {
            return Err("a inside a".to_owned());
        }
        "a"
    } else if let Some(class) = tag
        .strip_prefix("code class=\"language-")
        .and_then(|v| v.strip_suffix('"'))
    {
        check_attribute(class)?;
        if stack.last().map(String::as_str) != Some("pre") {
            return Err("code with a language outside pre".to_owned());
        }
        "code"
    } else if STYLE_TAGS.contains(&tag) || ["code", "pre", "blockquote"].contains(&tag) {
        tag
    } else {
        return Err(format!("tag Telegram refuses: <{tag}>"));
    };
    if inside("pre") && !(name == "code" && stack.last().map(String::as_str) == Some("pre")) {
        return Err(format!("<{name}> inside pre"));
    }
    if (name == "code" || name == "pre") && in_style_or_link {
        return Err(format!("<{name}> inside a style or link: {stack:?}"));
    }
    if name == "blockquote" && inside("blockquote") {
        return Err("blockquote inside blockquote".to_owned());
    }
    Ok(name.to_owned())
}

fn check_attribute(value: &str) -> Result<(), String> {
    if value.contains(['"', '<', '>']) {
        return Err(format!("raw quote or bracket in an attribute: {value:?}"));
    }
    let mut rest = value;
    while let Some(at) = rest.find('&') {
        rest = &rest[at..];
        let entity = ENTITIES.iter().find(|(e, _)| rest.starts_with(e));
        let (entity, _) = entity.ok_or_else(|| format!("bad entity in attribute {value:?}"))?;
        rest = &rest[entity.len()..];
    }
    Ok(())
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        match ENTITIES
            .iter()
            .find(|(e, _)| c == '&' && rest.starts_with(e))
        {
            Some((entity, plain)) => {
                out.push(*plain);
                rest = &rest[entity.len()..];
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// The text Telegram shows for `html` (tags removed, entities decoded). Assumes `check` passed.
pub fn visible(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        text.push_str(&rest[..start]);
        let end = rest[start..]
            .find('>')
            .map_or(rest.len(), |e| start + e + 1);
        rest = &rest[end..];
    }
    text.push_str(rest);
    unescape(&text)
}

/// Nothing lost at the seams: `whole` is the chunks' visible texts in order with only
/// whitespace (space, tab, CR, LF) between them; a split may drop whitespace, nothing else.
/// Returns how many characters the seams dropped.
pub fn lost_only_whitespace(whole: &str, chunks: &[String]) -> Result<usize, String> {
    let is_ws = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
    let mut rest = whole;
    let mut dropped = 0;
    for (index, chunk) in chunks.iter().enumerate() {
        let shown = visible(chunk);
        let gap = rest.len() - rest.trim_start_matches(is_ws).len();
        let skip = (0..=gap)
            .filter(|k| rest.is_char_boundary(*k))
            .find(|k| rest[*k..].starts_with(&shown))
            .ok_or_else(|| {
                format!(
                    "chunk {index} ({:.60?}) is not next in {:.60?}",
                    shown, rest
                )
            })?;
        dropped += rest[..skip].chars().count();
        rest = &rest[skip + shown.len()..];
    }
    if rest.chars().all(is_ws) {
        Ok(dropped + rest.chars().count())
    } else {
        Err(format!("text after the last chunk lost: {rest:.60?}"))
    }
}

/// `check`, `utf16 ≤ limit` and non-empty visible text for each chunk.
pub fn check_chunks(chunks: &[String], limit: usize) -> Result<(), String> {
    for (index, chunk) in chunks.iter().enumerate() {
        check(chunk).map_err(|e| format!("chunk {index}: {e}: {chunk:.200?}"))?;
        let shown = visible(chunk);
        if utf16(&shown) > limit {
            return Err(format!(
                "chunk {index}: {} UTF-16 units > {limit}",
                utf16(&shown)
            ));
        }
        if shown.trim().is_empty() {
            return Err(format!("chunk {index} shows nothing: {chunk:?}"));
        }
    }
    Ok(())
}
