//! Markdown → Telegram HTML: walks pulldown-cmark's events and writes only what Telegram's
//! HTML parse mode accepts. Owns the mapping of each Markdown construct and Telegram's
//! nesting rules (nothing inside `code`/`pre`, no `a` inside `a`, no `blockquote` inside
//! `blockquote`, styles closed around inline code); does not own escaping (`escape.rs`),
//! table layout (`table.rs`) or splitting (`split.rs`).
//!
//! The model's answer is hostile input: raw HTML is escaped as text, link targets other than
//! http, https, tg and mailto become plain text, and nesting never deepens the output (quotes
//! flatten into one, list indentation stops at `MAX_INDENT_LEVELS`), so output stays linear in
//! the input and the walk uses no recursion.

use super::attributes::{allowed_href, language_class};
use super::escape::{is_dropped_control, push_escaped, push_escaped_char};
use super::table::{TableCells, layout};
use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};

/// Deeper list levels are indented like this one: a thousand nested lists stay readable and
/// the output linear.
const MAX_INDENT_LEVELS: usize = 8;
const INDENT: &str = "  ";
const RULE: &str = "──────────";

/// Markdown (CommonMark with GFM tables, strikethrough and task lists) → Telegram HTML for
/// `parse_mode = "HTML"`. Raw HTML in the Markdown is escaped, never passed through; links
/// only to http, https, tg and mailto (others become plain text). Headings become bold lines,
/// lists "• " / "1. " lines indented per level, tables a `<pre>` block of aligned columns,
/// images their alt text as a link. Trailing whitespace is trimmed.
pub fn render_html(markdown: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut renderer = Renderer::default();
    for event in Parser::new_ext(markdown, options) {
        renderer.event(event);
    }
    renderer.finish()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Bold,
    Italic,
    Strike,
    Link,
}

impl Style {
    fn index(self) -> usize {
        self as usize
    }
}

/// One inline Start event; `open` is `None` when nothing was written for it (a style already
/// active, a refused link, anything inside a table).
#[derive(Debug)]
struct Inline {
    style: Option<Style>,
    link_like: bool,
    open: Option<Open>,
    /// For an image: the visible count when it opened, to write "image" for an empty alt.
    visible_at_open: usize,
}

#[derive(Debug)]
struct Open {
    text: String,
    close: &'static str,
    /// Where `text` starts in the output, so a tag closed with nothing inside is removed.
    pos: usize,
}

#[derive(Debug, Default)]
struct Renderer {
    out: String,
    /// Newlines owed before the next visible thing (blocks are separated lazily so nothing
    /// trails the last block).
    pending_newlines: usize,
    wrote_text: bool,
    /// Just after a list marker or `<blockquote>`: the first block inside starts right there.
    fresh_container: bool,
    visible: usize,
    inline: Vec<Inline>,
    /// How many emitted tags of each `Style` are open.
    active: [usize; 4],
    link_depth: usize,
    lists: Vec<Option<u64>>,
    quote_depth: usize,
    quote_open: Option<Open>,
    code: Option<(Option<String>, String)>,
    table: Option<TableCells>,
}

impl Renderer {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(text) => self.inline_code(&text),
            Event::Html(text) => {
                // An HTML block comes line by line, each with its newline: the last one is
                // owed, not written, so the block's separation stays one blank line.
                self.text(text.strip_suffix('\n').unwrap_or(&text));
                if text.ends_with('\n') && self.wrote_text {
                    self.pending_newlines = self.pending_newlines.max(1);
                }
            }
            Event::InlineHtml(text) => self.text(&text),
            Event::InlineMath(text) | Event::DisplayMath(text) => self.text(&text),
            Event::FootnoteReference(label) => self.text(&format!("[{label}]")),
            Event::SoftBreak | Event::HardBreak => self.line_break(),
            Event::Rule => {
                self.block_break();
                self.text(RULE);
                self.block_break();
            }
            Event::TaskListMarker(done) => self.text(if done { "☑ " } else { "☐ " }),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock | Tag::MetadataBlock(_) => self.block_break(),
            Tag::Heading { .. } => {
                self.block_break();
                self.open_inline(Some(Style::Bold), None);
            }
            Tag::BlockQuote(_) => {
                self.block_break();
                self.quote_depth += 1;
                // Telegram refuses a blockquote inside a blockquote: only the outermost is one.
                if self.quote_depth == 1 && self.table.is_none() {
                    self.flush(true);
                    let pos = self.out.len();
                    self.out.push_str("<blockquote>");
                    self.quote_open = Some(Open {
                        text: "<blockquote>".to_owned(),
                        close: "</blockquote>",
                        pos,
                    });
                    self.fresh_container = true;
                }
            }
            Tag::CodeBlock(kind) => {
                self.block_break();
                let language = match kind {
                    CodeBlockKind::Fenced(info) => language_class(&info),
                    CodeBlockKind::Indented => None,
                };
                self.code = Some((language, String::new()));
            }
            Tag::List(first) => {
                self.block_break();
                self.lists.push(first);
            }
            Tag::Item => self.item(),
            Tag::Table(aligns) => {
                self.block_break();
                self.table = Some(TableCells::new(aligns));
            }
            Tag::TableHead | Tag::TableRow | Tag::TableCell => {}
            Tag::Emphasis => self.open_inline(Some(Style::Italic), None),
            Tag::Strong => self.open_inline(Some(Style::Bold), None),
            Tag::Strikethrough => self.open_inline(Some(Style::Strike), None),
            Tag::Link {
                link_type,
                dest_url,
                ..
            } => self.open_inline(Some(Style::Link), Some((link_type, &dest_url, false))),
            Tag::Image {
                link_type,
                dest_url,
                ..
            } => self.open_inline(Some(Style::Link), Some((link_type, &dest_url, true))),
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition => self.block_break(),
            Tag::Superscript | Tag::Subscript => self.open_inline(None, None),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) => {
                self.close_inline();
                self.block_break();
            }
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Link
            | TagEnd::Image
            | TagEnd::Superscript
            | TagEnd::Subscript => self.close_inline(),
            TagEnd::BlockQuote(_) => {
                if self.quote_depth == 1
                    && let Some(open) = self.quote_open.take()
                {
                    close_tag(&mut self.out, &open);
                }
                self.quote_depth = self.quote_depth.saturating_sub(1);
                self.block_break();
            }
            TagEnd::CodeBlock => self.code_block(),
            TagEnd::List(_) => {
                self.lists.pop();
                self.block_break();
            }
            TagEnd::TableCell => {
                if let Some(table) = self.table.as_mut() {
                    table.end_cell();
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    table.end_row(tag == TagEnd::TableHead);
                }
            }
            TagEnd::Table => self.table_block(),
            TagEnd::Item => {}
            TagEnd::Paragraph
            | TagEnd::HtmlBlock
            | TagEnd::MetadataBlock(_)
            | TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition => self.block_break(),
        }
    }

    /// Blocks are separated by a blank line, inside a list by a line break.
    fn block_break(&mut self) {
        if self.wrote_text && !self.fresh_container {
            let want = if self.lists.is_empty() { 2 } else { 1 };
            self.pending_newlines = self.pending_newlines.max(want);
        }
    }

    /// Writes the owed newlines; inside a list the new line is indented under the item's text.
    fn flush(&mut self, indent: bool) {
        self.fresh_container = false;
        if self.pending_newlines == 0 {
            return;
        }
        for _ in 0..self.pending_newlines {
            self.out.push('\n');
        }
        self.visible += self.pending_newlines;
        self.pending_newlines = 0;
        if indent {
            self.push_indent(self.lists.len());
        }
    }

    fn push_indent(&mut self, levels: usize) {
        for _ in 0..levels.min(MAX_INDENT_LEVELS) {
            self.out.push_str(INDENT);
            self.visible += INDENT.len();
        }
    }

    fn item(&mut self) {
        if self.wrote_text {
            self.pending_newlines = self.pending_newlines.max(1);
        }
        self.flush(false);
        self.push_indent(self.lists.len().saturating_sub(1));
        let marker = match self.lists.last_mut() {
            Some(Some(number)) => {
                let marker = format!("{number}. ");
                *number = number.saturating_add(1);
                marker
            }
            _ => "• ".to_owned(),
        };
        self.visible += marker.chars().count();
        self.out.push_str(&marker);
        self.wrote_text = true;
        self.fresh_container = true;
    }

    fn text(&mut self, text: &str) {
        if let Some(table) = self.table.as_mut() {
            table
                .cell
                .extend(text.chars().filter(|c| !is_dropped_control(*c)));
            return;
        }
        if let Some((_, code)) = self.code.as_mut() {
            code.extend(text.chars().filter(|c| !is_dropped_control(*c)));
            return;
        }
        if !text.chars().any(|c| !is_dropped_control(c)) {
            return;
        }
        self.flush(true);
        for c in text.chars().filter(|c| !is_dropped_control(*c)) {
            push_escaped_char(&mut self.out, c);
            self.visible += 1;
        }
        self.wrote_text = true;
    }

    fn line_break(&mut self) {
        if let Some(table) = self.table.as_mut() {
            table.cell.push(' ');
            return;
        }
        self.flush(true);
        self.out.push('\n');
        self.visible += 1;
        self.push_indent(self.lists.len());
    }

    /// Telegram lets nothing contain `code`, so the open styles are closed around it; inside a
    /// link (which cannot be closed mid-way) the code is plain text.
    fn inline_code(&mut self, text: &str) {
        if self.table.is_some() || self.link_depth > 0 {
            self.text(text);
            return;
        }
        let code: String = text.chars().filter(|c| !is_dropped_control(*c)).collect();
        if code.is_empty() {
            return;
        }
        self.flush(true);
        for entry in self.inline.iter().rev() {
            if let Some(open) = &entry.open {
                close_tag(&mut self.out, open);
            }
        }
        self.out.push_str("<code>");
        push_escaped(&mut self.out, &code);
        self.out.push_str("</code>");
        self.visible += code.chars().count();
        self.wrote_text = true;
        for entry in self.inline.iter_mut() {
            if let Some(open) = entry.open.as_mut() {
                open.pos = self.out.len();
                self.out.push_str(&open.text);
            }
        }
    }

    fn open_inline(&mut self, style: Option<Style>, link: Option<(LinkType, &str, bool)>) {
        let link_like = link.is_some();
        let is_image = matches!(link, Some((_, _, true)));
        let mut entry = Inline {
            style: None,
            link_like,
            open: None,
            visible_at_open: self.visible,
        };
        let writable = self.table.is_none() && self.code.is_none();
        if let Some(style) = style.filter(|s| writable && self.active[s.index()] == 0) {
            let tag = match (style, link) {
                (Style::Link, Some((link_type, url, _))) => {
                    allowed_href(link_type, url).map(|href| {
                        let mut open = String::from("<a href=\"");
                        push_escaped(&mut open, &href);
                        open.push_str("\">");
                        (open, "</a>")
                    })
                }
                (Style::Link, None) => None,
                (Style::Bold, _) => Some(("<b>".to_owned(), "</b>")),
                (Style::Italic, _) => Some(("<i>".to_owned(), "</i>")),
                (Style::Strike, _) => Some(("<s>".to_owned(), "</s>")),
            };
            if let Some((text, close)) = tag {
                self.flush(true);
                let pos = self.out.len();
                self.out.push_str(&text);
                self.active[style.index()] += 1;
                entry.style = Some(style);
                entry.open = Some(Open { text, close, pos });
            }
        }
        if link_like {
            self.link_depth += 1;
        }
        if !is_image {
            entry.visible_at_open = usize::MAX;
        }
        self.inline.push(entry);
    }

    fn close_inline(&mut self) {
        let Some(entry) = self.inline.pop() else {
            return;
        };
        if entry.visible_at_open == self.visible && entry.open.is_some() {
            // An image without alt text still needs something to click.
            self.text("image");
        }
        if let Some(open) = &entry.open {
            close_tag(&mut self.out, open);
        }
        if let Some(style) = entry.style {
            self.active[style.index()] = self.active[style.index()].saturating_sub(1);
        }
        if entry.link_like {
            self.link_depth = self.link_depth.saturating_sub(1);
        }
    }

    fn code_block(&mut self) {
        let Some((language, code)) = self.code.take() else {
            return;
        };
        let code = code.trim_end_matches('\n');
        if code.is_empty() {
            return;
        }
        self.flush(false);
        match &language {
            Some(language) => {
                self.out.push_str("<pre><code class=\"language-");
                push_escaped(&mut self.out, language);
                self.out.push_str("\">");
            }
            None => self.out.push_str("<pre>"),
        }
        push_escaped(&mut self.out, code);
        self.out.push_str(if language.is_some() {
            "</code></pre>"
        } else {
            "</pre>"
        });
        self.visible += code.chars().count();
        self.wrote_text = true;
        self.block_break();
    }

    fn table_block(&mut self) {
        let Some(table) = self.table.take() else {
            return;
        };
        let text = layout(&table);
        if text.trim().is_empty() {
            return;
        }
        self.flush(false);
        self.out.push_str("<pre>");
        push_escaped(&mut self.out, &text);
        self.out.push_str("</pre>");
        self.visible += text.chars().count();
        self.wrote_text = true;
        self.block_break();
    }

    fn finish(mut self) -> String {
        while !self.inline.is_empty() {
            self.close_inline();
        }
        if let Some(open) = self.quote_open.take() {
            close_tag(&mut self.out, &open);
        }
        let kept = self.out.trim_end().len();
        self.out.truncate(kept);
        self.out
    }
}

/// Closes `open`, or removes it when nothing was written inside (Telegram has no use for an
/// empty entity and the splitter none for an empty chunk).
fn close_tag(out: &mut String, open: &Open) {
    if out.len() == open.pos + open.text.len() && out.ends_with(&open.text) {
        out.truncate(open.pos);
    } else {
        out.push_str(open.close);
    }
}
