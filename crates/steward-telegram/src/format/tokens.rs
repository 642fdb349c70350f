//! Rendered Telegram HTML read back as atoms for `split.rs`: tags Telegram accepts (in the
//! exact forms `render.rs` writes), one atom per visible character (an entity is one), and
//! the tags balanced. Owns what counts as a tag and what is text; does not own where to cut.
//!
//! Input that is not in those forms is never passed through raw: a stray `<`, `>` or `&`
//! becomes an escaped character, an unknown or malformed tag is text, a closing tag with no
//! matching open one is dropped, and tags left open are closed at the end. So whatever
//! `split_html` is given, each chunk it returns is well-formed.

use super::escape::utf16_len;

/// Every tag name read as a tag; all but `a` are also accepted without attributes.
const KNOWN_TAGS: [&str; 14] = [
    "a",
    "b",
    "strong",
    "i",
    "em",
    "u",
    "ins",
    "s",
    "strike",
    "del",
    "code",
    "pre",
    "blockquote",
    "tg-spoiler",
];
/// Deeper tags are text: Telegram's nesting rules allow no more than a handful, and every
/// open tag is reopened in each following chunk, so the depth bounds each chunk's HTML.
const MAX_OPEN_TAGS: usize = 16;
const ENTITIES: [&str; 4] = ["&lt;", "&gt;", "&amp;", "&quot;"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CharKind {
    Newline,
    /// Space, tab, carriage return.
    Space,
    Other,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Atom<'a> {
    Open {
        name: &'a str,
        /// The whole tag as written, reused when the tag is reopened in the next chunk.
        text: &'a str,
    },
    Close {
        name: &'a str,
    },
    Char {
        /// The character's HTML: itself, or an entity.
        html: &'a str,
        units: usize,
        kind: CharKind,
        in_pre: bool,
    },
}

pub(super) fn tokenize(html: &str) -> Vec<Atom<'_>> {
    let mut atoms = Vec::with_capacity(html.len());
    let mut open = OpenTags::default();
    let mut rest = html;
    while let Some(c) = rest.chars().next() {
        if c == '<'
            && open.names.len() < MAX_OPEN_TAGS
            && let Some((tag, len)) = read_tag(rest)
        {
            open.push(&mut atoms, tag);
            rest = rest.get(len..).unwrap_or_default();
            continue;
        }
        let (text, len) = match c {
            '&' => match ENTITIES.iter().find(|e| rest.starts_with(**e)) {
                Some(entity) => (*entity, entity.len()),
                None => ("&amp;", 1),
            },
            '<' => ("&lt;", 1),
            '>' => ("&gt;", 1),
            _ => (rest.get(..c.len_utf8()).unwrap_or_default(), c.len_utf8()),
        };
        let kind = match c {
            '\n' => CharKind::Newline,
            ' ' | '\t' | '\r' => CharKind::Space,
            _ => CharKind::Other,
        };
        atoms.push(Atom::Char {
            html: text,
            units: utf16_len(c),
            kind,
            in_pre: open.count("pre") > 0,
        });
        rest = rest.get(len..).unwrap_or_default();
    }
    while let Some(name) = open.names.pop() {
        atoms.push(Atom::Close { name });
    }
    atoms
}

#[derive(Debug)]
enum Tag<'a> {
    Open(&'static str, &'a str),
    Close(&'static str),
}

/// The open tags, with a count per name so a closing tag with no match costs nothing to
/// find (hostile input of many thousand unmatched closing tags stays linear).
#[derive(Debug, Default)]
struct OpenTags {
    names: Vec<&'static str>,
    counts: [usize; KNOWN_TAGS.len()],
}

impl OpenTags {
    fn count(&self, name: &str) -> usize {
        slot(name).map_or(0, |slot| self.counts[slot])
    }

    /// A closing tag closes everything opened inside its match (so the atoms stay nested);
    /// one with no match is dropped.
    fn push<'a>(&mut self, atoms: &mut Vec<Atom<'a>>, tag: Tag<'a>) {
        match tag {
            Tag::Open(name, text) => {
                if let Some(slot) = slot(name) {
                    self.counts[slot] += 1;
                }
                self.names.push(name);
                atoms.push(Atom::Open { name, text });
            }
            Tag::Close(name) => {
                if self.count(name) == 0 {
                    return;
                }
                while let Some(inner) = self.names.pop() {
                    if let Some(slot) = slot(inner) {
                        self.counts[slot] = self.counts[slot].saturating_sub(1);
                    }
                    atoms.push(Atom::Close { name: inner });
                    if inner == name {
                        break;
                    }
                }
            }
        }
    }
}

fn slot(name: &str) -> Option<usize> {
    KNOWN_TAGS.iter().position(|known| *known == name)
}

/// The tag at the start of `rest` (which starts with `<`) and its length, if it is one of
/// the forms Telegram accepts: a plain tag, `<a href="…">`, `<code class="language-…">`, or
/// a closing tag of one of those names.
fn read_tag(rest: &str) -> Option<(Tag<'_>, usize)> {
    // Stopping at the next `<` keeps a run of stray `<` linear: none of them scans far.
    let end = rest.get(1..)?.find(['<', '>'])? + 1;
    if !rest[end..].starts_with('>') {
        return None;
    }
    let text = rest.get(..=end)?;
    let inner = text.get(1..end)?;
    if let Some(name) = inner.strip_prefix('/') {
        let name = known_name(name)?;
        return Some((Tag::Close(name), text.len()));
    }
    if let Some(name) = known_name(inner).filter(|n| *n != "a") {
        return Some((Tag::Open(name, text), text.len()));
    }
    let quoted = |prefix: &str| {
        inner
            .strip_prefix(prefix)
            .and_then(|v| v.strip_suffix('"'))
            .is_some_and(|value| !value.contains('"'))
    };
    if quoted("a href=\"") {
        return Some((Tag::Open("a", text), text.len()));
    }
    if quoted("code class=\"language-") {
        return Some((Tag::Open("code", text), text.len()));
    }
    None
}

fn known_name(name: &str) -> Option<&'static str> {
    KNOWN_TAGS.iter().find(|known| **known == name).copied()
}
