//! HTML → readable text for `fetch_url`: the title, the main text without script, style,
//! navigation and other chrome, and the page's links as absolute URLs.
//!
//! Owns: the page-to-text rules. Does not own: fetching, size caps on the body, fencing
//! (`fence`), or the final layout and output cap (`fetch_url` tool).
//!
//! Built on html5ever's spec-compliant *tokenizer* only (no tree builder, no DOM): it
//! decodes character references and, when told which element was opened, tokenizes raw
//! text (`<script>`, `<style>`, `<title>`, `<textarea>`) the way browsers do, so a `</p>`
//! inside a script string is not mistaken for markup. Structure is tracked with a small
//! stack of "skipped" elements; text inside `<main>` or `<article>` is collected apart and
//! preferred when there is enough of it.

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer,
};
use std::cell::RefCell;
use url::Url;

/// Elements whose content is never page text.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "math", "canvas", "iframe", "object", "nav",
    "footer", "aside", "select", "button", "dialog",
];
/// Elements with no end tag: never pushed on the skip stack.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];
/// Elements that start a new line of text.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "blockquote",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "form",
    "header",
    "hr",
    "li",
    "main",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tr",
    "ul",
    "br",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "caption",
];
/// Longest title, link text and link URL kept, in characters.
const MAX_TITLE: usize = 300;
const MAX_LINK_TEXT: usize = 100;
const MAX_LINK_URL: usize = 500;
/// `<main>`/`<article>` text is used instead of the whole page when it has at least this
/// many characters or at least half of the page's text.
const MIN_MAIN_CHARS: usize = 200;

/// One link found on the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub text: String,
    pub url: String,
}

/// What `extract` makes of a page.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Page {
    pub title: Option<String>,
    pub text: String,
    /// Content links first, then navigation links; deduplicated, at most `max_links`.
    pub links: Vec<Link>,
    /// The text reached `max_text_bytes` and the rest was not collected.
    pub cut: bool,
}

/// Readable text from `html`, links resolved against `base` (or the page's `<base href>`).
/// `max_text_bytes` bounds the text kept (the rest is not even collected).
pub fn extract(html: &str, base: &Url, max_text_bytes: usize, max_links: usize) -> Page {
    let sink = Sink(RefCell::new(State::new(base.clone(), max_text_bytes)));
    let tokenizer = Tokenizer::new(sink, Default::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    // `feed` returns early only for script/encoding hints we never ask for; bound it anyway.
    for _ in 0..1_000 {
        if input.is_empty() {
            break;
        }
        let _ = tokenizer.feed(&input);
    }
    tokenizer.end();
    tokenizer.sink.0.into_inner().finish(max_links)
}

/// Collapsing text writer: runs of whitespace become one space, blocks become line breaks.
#[derive(Default)]
struct Text {
    out: String,
    space: bool,
    newlines: u8,
    full: bool,
}

impl Text {
    fn push(&mut self, s: &str, pre: bool, cap: usize) {
        for c in s.chars() {
            if self.full {
                return;
            }
            if c == '\n' && pre {
                self.newlines = self.newlines.max(1);
            } else if c.is_whitespace() {
                self.space = true;
            } else {
                self.flush();
                self.out.push(c);
                self.full = self.out.len() >= cap;
            }
        }
    }

    fn flush(&mut self) {
        if self.out.is_empty() {
        } else if self.newlines > 0 {
            self.out.truncate(self.out.trim_end_matches(' ').len());
            for _ in 0..self.newlines {
                self.out.push('\n');
            }
        } else if self.space {
            self.out.push(' ');
        }
        self.space = false;
        self.newlines = 0;
    }

    fn block(&mut self, lines: u8) {
        self.newlines = self.newlines.max(lines);
    }

    fn prefix(&mut self, p: &str) {
        self.flush();
        self.out.push_str(p);
    }
}

struct State {
    base: Url,
    base_set: bool,
    cap: usize,
    /// Open skipped elements, innermost last.
    skip: Vec<String>,
    main_depth: usize,
    pre_depth: usize,
    in_title: bool,
    title: Option<String>,
    all: Text,
    main: Text,
    /// The open `<a>`: resolved URL, text so far, whether it is inside skipped chrome.
    link: Option<(String, String, bool)>,
    content_links: Vec<Link>,
    chrome_links: Vec<Link>,
}

impl State {
    fn new(base: Url, cap: usize) -> State {
        State {
            base,
            base_set: false,
            cap,
            skip: Vec::new(),
            main_depth: 0,
            pre_depth: 0,
            in_title: false,
            title: None,
            all: Text::default(),
            main: Text::default(),
            link: None,
            content_links: Vec::new(),
            chrome_links: Vec::new(),
        }
    }

    fn text(&mut self, s: &str) {
        if self.in_title {
            let title = self.title.get_or_insert_with(String::new);
            if title.chars().count() < MAX_TITLE {
                title.push_str(s);
            }
            return;
        }
        if let Some((_, text, _)) = &mut self.link
            && text.len() < MAX_LINK_TEXT * 4
        {
            text.push_str(s);
        }
        if !self.skip.is_empty() {
            return;
        }
        let pre = self.pre_depth > 0;
        self.all.push(s, pre, self.cap);
        if self.main_depth > 0 {
            self.main.push(s, pre, self.cap);
        }
    }

    fn both(&mut self, f: impl Fn(&mut Text)) {
        if self.skip.is_empty() {
            f(&mut self.all);
            if self.main_depth > 0 {
                f(&mut self.main);
            }
        }
    }

    fn start(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        let void = VOID.contains(&name) || tag.self_closing;
        match name {
            "title" if self.title.is_none() => self.in_title = true,
            "base" if !self.base_set => {
                if let Some(b) = attr(tag, "href").and_then(|h| self.base.join(&h).ok())
                    && matches!(b.scheme(), "http" | "https")
                {
                    self.base = b;
                }
                self.base_set = true;
            }
            "a" => {
                self.end_link();
                self.link = attr(tag, "href")
                    .filter(|h| !h.trim_start().starts_with('#'))
                    .and_then(|h| self.base.join(h.trim()).ok())
                    .filter(|u| matches!(u.scheme(), "http" | "https"))
                    .map(|u| (u.to_string(), String::new(), !self.skip.is_empty()));
            }
            "main" | "article" if !void => self.main_depth += 1,
            "pre" if !void => self.pre_depth += 1,
            _ => {}
        }
        if SKIPPED.contains(&name) && !void {
            self.skip.push(name.to_owned());
        }
        if BLOCKS.contains(&name) {
            let lines = if name.starts_with('h') && name.len() == 2 || name == "p" {
                2
            } else {
                1
            };
            self.both(|t| t.block(lines));
            if name == "li" {
                self.both(|t| t.prefix("- "));
            }
        } else if matches!(name, "td" | "th") {
            self.both(|t| t.space = true);
        }
        match name {
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                TokenSinkResult::RawData(RawKind::Rawtext)
            }
            "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
            "plaintext" => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        }
    }

    fn end(&mut self, tag: &Tag) {
        let name: &str = &tag.name;
        match name {
            "title" => self.in_title = false,
            "a" => self.end_link(),
            "main" | "article" => self.main_depth = self.main_depth.saturating_sub(1),
            "pre" => self.pre_depth = self.pre_depth.saturating_sub(1),
            _ => {}
        }
        if let Some(at) = self.skip.iter().rposition(|s| s == name) {
            self.skip.truncate(at);
        }
        if BLOCKS.contains(&name) {
            let lines = if name.starts_with('h') && name.len() == 2 || name == "p" {
                2
            } else {
                1
            };
            self.both(|t| t.block(lines));
        }
    }

    fn end_link(&mut self) {
        let Some((url, text, chrome)) = self.link.take() else {
            return;
        };
        if url.chars().count() > MAX_LINK_URL {
            return;
        }
        let mut text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.chars().count() > MAX_LINK_TEXT {
            text = text.chars().take(MAX_LINK_TEXT - 1).collect();
            text.push('…');
        }
        let list = if chrome {
            &mut self.chrome_links
        } else {
            &mut self.content_links
        };
        if list.len() < 1_000 {
            list.push(Link { text, url });
        }
    }

    fn finish(mut self, max_links: usize) -> Page {
        self.end_link();
        let all = self.all.out.trim().to_owned();
        let main = self.main.out.trim().to_owned();
        let use_main =
            !main.is_empty() && (main.len() >= MIN_MAIN_CHARS || main.len() * 2 >= all.len());
        let mut links: Vec<Link> = Vec::new();
        for link in self.content_links.into_iter().chain(self.chrome_links) {
            if links.len() >= max_links {
                break;
            }
            if !links.iter().any(|l| l.url == link.url) {
                links.push(link);
            }
        }
        let title = self
            .title
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty())
            .map(|t| t.chars().take(MAX_TITLE).collect());
        let (text, cut) = if use_main {
            (main, self.main.full)
        } else {
            (all, self.all.full)
        };
        Page {
            title,
            text,
            links,
            cut,
        }
    }
}

fn attr(tag: &Tag, name: &str) -> Option<String> {
    tag.attrs
        .iter()
        .find(|a| &*a.name.local == name)
        .map(|a| a.value.to_string())
}

struct Sink(RefCell<State>);

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut state = self.0.borrow_mut();
        match token {
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => return state.start(&tag),
                TagKind::EndTag => state.end(&tag),
            },
            Token::CharacterTokens(text) => state.text(&text),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(html: &str) -> Page {
        let base = Url::parse("https://example.com/dir/page.html").unwrap();
        extract(html, &base, 10_000, 50)
    }

    #[test]
    fn title_text_and_links() {
        let p = page(
            "<html><head><title> Hello &amp; welcome </title><style>p{color:red}</style></head>\
             <body><nav><a href='/home'>Home</a> menu menu</nav>\
             <h1>Heading</h1><p>First <b>bold</b> para.</p><p>Second &lt;para&gt;.</p>\
             <ul><li>one</li><li>two</li></ul>\
             <a href='other.html'>Other page</a> <a href='#top'>top</a> <a href='javascript:alert(1)'>x</a>\
             <script>document.write('<p>injected</p>')</script><footer>(c) 2026</footer></body></html>",
        );
        assert_eq!(p.title.as_deref(), Some("Hello & welcome"));
        assert!(
            p.text
                .starts_with("Heading\n\nFirst bold para.\n\nSecond <para>."),
            "{}",
            p.text
        );
        assert!(p.text.contains("- one\n- two"), "{}", p.text);
        for noise in ["menu", "color", "injected", "(c)", "Home"] {
            assert!(!p.text.contains(noise), "{noise} leaked: {}", p.text);
        }
        let urls: Vec<&str> = p.links.iter().map(|l| l.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://example.com/dir/other.html",
                "https://example.com/home"
            ]
        );
        assert_eq!(p.links[0].text, "Other page");
    }

    #[test]
    fn main_is_preferred_when_substantial() {
        let body = "word ".repeat(60);
        let p = page(&format!(
            "<div>site chrome blah</div><main><p>{body}</p></main>"
        ));
        assert!(!p.text.contains("chrome"));
        assert!(p.text.starts_with("word word"));
        let p = page("<div>lots of real content here and more</div><article>tiny</article>");
        assert!(p.text.contains("real content") && p.text.contains("tiny"));
    }

    #[test]
    fn base_href_and_cap() {
        let p = page("<base href='https://cdn.example.org/x/'><a href='y'>y</a>");
        assert_eq!(p.links[0].url, "https://cdn.example.org/x/y");
        let base = Url::parse("https://example.com/").unwrap();
        let long = "<p>".to_owned() + &"abc ".repeat(10_000);
        let p = extract(&long, &base, 1_000, 5);
        assert!(p.text.len() <= 1_004, "{}", p.text.len());
    }

    #[test]
    fn unclosed_and_malformed_markup_never_panics() {
        for html in [
            "<script>",
            "<a href='",
            "<<<>>>&&&#x;",
            "<svg><p>x",
            "</nav></nav>text",
            "<pre>a\n b</pre>",
        ] {
            let _ = page(html);
        }
        assert_eq!(page("</nav></nav>text").text, "text");
        assert_eq!(page("<pre>a\n  b</pre>").text, "a\nb");
    }
}
