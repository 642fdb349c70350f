//! Splitting rendered Telegram HTML into messages whose visible text fits Telegram's limit.
//! Owns where a message ends (paragraph, then line, then whitespace, then a hard cut between
//! two characters) and carrying open tags across the cut; does not own rendering, and reads
//! only the HTML `tokens.rs` accepts (anything else is treated as escaped text).
//!
//! Two passes over the tokens: `plan` picks the cuts from visible lengths alone (tags are not
//! counted, as Telegram counts after parsing), `build` writes each chunk, closing the tags open
//! at a cut and reopening them, attributes and all, at the start of the next chunk.

use super::tokens::{Atom, CharKind, tokenize};

/// The smallest limit honoured: one astral character takes two UTF-16 units.
const MIN_LIMIT: usize = 2;

/// Split rendered HTML into chunks whose visible text (after entity parsing) is at most
/// `limit` UTF-16 code units, as Telegram counts. Cuts at a blank line first, then a line
/// break (inside a code block too), then other whitespace, then hard between two characters
/// (never inside an entity, a tag or a surrogate pair). The whitespace run a cut is made at
/// is dropped (inside `pre` only the newline; indentation is kept), nothing else is. Tags
/// open at a cut are closed at the chunk's end and reopened, attributes and all, at the next
/// chunk's start (a `<pre><code class="language-x">` block continues as one). No chunk is
/// empty or whitespace only. A `limit` below 2 counts as 2 (one astral character).
pub fn split_html(html: &str, limit: usize) -> Vec<String> {
    let atoms = tokenize(html);
    let cuts = plan(&atoms, limit.max(MIN_LIMIT));
    build(&atoms, &cuts)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Space,
    Line,
    Paragraph,
}

/// A place a chunk may end: the chunk ends before atom `at`, the next one starts at `resume`;
/// the characters between are dropped (whitespace), the tags between go to the next chunk.
#[derive(Debug, Clone, Copy)]
struct Cut {
    at: usize,
    resume: usize,
    level: Level,
}

/// Every soft break of the text. Outside `pre` a whitespace run is one break and is dropped
/// whole; inside `pre` each newline is a line break dropping only itself (the chunk's `pre`
/// closes there), and a run of spaces a last-resort break that drops nothing (indentation is
/// code).
fn candidates(atoms: &[Atom<'_>]) -> Vec<Cut> {
    let mut cuts = Vec::new();
    let mut index = 0;
    while index < atoms.len() {
        let Some((kind, in_pre)) = char_kind(&atoms[index]) else {
            index += 1;
            continue;
        };
        if kind == CharKind::Other {
            index += 1;
            continue;
        }
        if in_pre {
            let level = if kind == CharKind::Newline {
                Level::Line
            } else {
                Level::Space
            };
            let resume = if kind == CharKind::Newline {
                index + 1
            } else {
                index
            };
            let after_space =
                index > 0 && matches!(char_kind(&atoms[index - 1]), Some((CharKind::Space, true)));
            if kind == CharKind::Newline || !after_space {
                cuts.push(Cut {
                    at: index,
                    resume,
                    level,
                });
            }
            index += 1;
            continue;
        }
        let (resume, newlines) = whitespace_run(atoms, index);
        let level = match newlines {
            0 => Level::Space,
            1 => Level::Line,
            _ => Level::Paragraph,
        };
        cuts.push(Cut {
            at: index,
            resume,
            level,
        });
        index = resume.max(index + 1);
    }
    cuts
}

/// The end of the whitespace run starting at `start` (outside `pre`; tags inside the run are
/// passed over, entering or leaving `pre` ends it) and how many newlines it holds.
fn whitespace_run(atoms: &[Atom<'_>], start: usize) -> (usize, usize) {
    let mut resume = start;
    let mut newlines = 0;
    let mut index = start;
    while let Some(atom) = atoms.get(index) {
        match atom {
            Atom::Char {
                kind: CharKind::Other,
                ..
            }
            | Atom::Char { in_pre: true, .. } => break,
            Atom::Char { kind, .. } => {
                newlines += usize::from(*kind == CharKind::Newline);
                resume = index + 1;
            }
            Atom::Open { name: "pre", .. } | Atom::Close { name: "pre" } => break,
            Atom::Open { .. } | Atom::Close { .. } => {}
        }
        index += 1;
    }
    (resume, newlines)
}

fn char_kind(atom: &Atom<'_>) -> Option<(CharKind, bool)> {
    match atom {
        Atom::Char { kind, in_pre, .. } => Some((*kind, *in_pre)),
        _ => None,
    }
}

/// The cuts, in order. A chunk ends at the best soft break that fits, preferring breaks past
/// half the limit (so a paragraph break near the start does not make a tiny chunk), then
/// the higher level, then the later one; with no soft break it is cut hard before the first
/// character that does not fit.
fn plan(atoms: &[Atom<'_>], limit: usize) -> Vec<Cut> {
    let mut prefix = Vec::with_capacity(atoms.len() + 1);
    let mut total = 0usize;
    prefix.push(0);
    for atom in atoms {
        if let Atom::Char { units, .. } = atom {
            total += units;
        }
        prefix.push(total);
    }
    let soft = candidates(atoms);
    let mut cuts = Vec::new();
    let mut first_soft = 0;
    let mut start = 0;
    while start < atoms.len() {
        let budget = prefix[start] + limit;
        if prefix[atoms.len()] <= budget {
            break;
        }
        // The first atom that does not fit: prefix[end + 1] > budget.
        let end = prefix
            .partition_point(|&p| p <= budget)
            .saturating_sub(1)
            .max(start + 1);
        while soft.get(first_soft).is_some_and(|c| c.at <= start) {
            first_soft += 1;
        }
        let window = soft
            .get(first_soft..)
            .unwrap_or_default()
            .iter()
            .take_while(|c| c.at <= end)
            .filter(|c| prefix[c.at] > prefix[start]);
        let half = prefix[start] + limit / 2;
        let best = window.fold(None::<(bool, Cut)>, |best, cut| {
            let key = (prefix[cut.at] >= half, cut.level);
            match best {
                Some((far, kept)) if (far, kept.level) > key => Some((far, kept)),
                _ => Some((key.0, *cut)),
            }
        });
        let cut = best.map_or(
            Cut {
                at: end,
                resume: end,
                level: Level::Space,
            },
            |(_, cut)| cut,
        );
        cuts.push(cut);
        start = cut.resume.max(cut.at);
    }
    cuts
}

#[derive(Debug)]
struct OpenTag<'a> {
    name: &'a str,
    text: &'a str,
    pos: usize,
}

#[derive(Debug, Default)]
struct Builder<'a> {
    chunks: Vec<String>,
    html: String,
    has_text: bool,
    open: Vec<OpenTag<'a>>,
}

impl<'a> Builder<'a> {
    fn atom(&mut self, atom: &Atom<'a>, keep_chars: bool) {
        match atom {
            Atom::Open { name, text } => {
                self.open.push(OpenTag {
                    name,
                    text,
                    pos: self.html.len(),
                });
                self.html.push_str(text);
            }
            Atom::Close { .. } => {
                if let Some(tag) = self.open.pop() {
                    close(&mut self.html, &tag);
                }
            }
            Atom::Char { html, kind, .. } if keep_chars => {
                self.html.push_str(html);
                self.has_text |= *kind == CharKind::Other;
            }
            Atom::Char { .. } => {}
        }
    }

    /// Ends the chunk at a cut: closes what is open, keeps the chunk if it shows anything, and
    /// starts the next one with the same tags reopened.
    fn cut(&mut self) {
        for tag in self.open.iter().rev() {
            close(&mut self.html, tag);
        }
        let html = std::mem::take(&mut self.html);
        if self.has_text {
            self.chunks.push(html);
        }
        self.has_text = false;
        for tag in &mut self.open {
            tag.pos = self.html.len();
            self.html.push_str(tag.text);
        }
    }
}

/// Closes `tag`, or removes it when the chunk holds nothing after it.
fn close(html: &mut String, tag: &OpenTag<'_>) {
    if html.len() == tag.pos + tag.text.len() {
        html.truncate(tag.pos);
    } else {
        html.push_str("</");
        html.push_str(tag.name);
        html.push('>');
    }
}

fn build<'a>(atoms: &[Atom<'a>], cuts: &[Cut]) -> Vec<String> {
    let mut builder = Builder::default();
    let mut index = 0;
    for cut in cuts {
        for atom in atoms.get(index..cut.at).unwrap_or_default() {
            builder.atom(atom, true);
        }
        builder.cut();
        for atom in atoms.get(cut.at..cut.resume).unwrap_or_default() {
            builder.atom(atom, false);
        }
        index = cut.resume.max(cut.at);
    }
    for atom in atoms.get(index..).unwrap_or_default() {
        builder.atom(atom, true);
    }
    builder.cut();
    builder.chunks
}
