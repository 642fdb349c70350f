//! The text of a PDF, page by page, with lopdf: the pages that fit a byte budget are kept
//! whole, in order, and the count of the rest is reported, so a long document becomes a
//! note of its first pages rather than an error. Every stream lopdf inflates is bounded
//! (`MAX_STREAM_BYTES`), so a small file cannot expand into gigabytes here; what the
//! bounds cannot catch (a pathological file that loops, an allocation pattern lopdf does
//! not bound) is the confined child process's job (`confine`, `reader`).
//!
//! Owns: reading the document and the refusals' kinds. Does not own: where it runs (in the
//! child: `child`) or what the text becomes (the surface).

use serde::{Deserialize, Serialize};

/// Largest size one stream of the document may inflate to (content, object and
/// cross-reference streams). A page of text is a few kilobytes; 16 MiB leaves room for
/// pages full of vector drawing.
pub const MAX_STREAM_BYTES: usize = 16 * 1024 * 1024;
/// Most pages read: beyond this a document is an archive, not something to keep as a note.
pub const MAX_PAGES: usize = 2_000;

/// What was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PdfText {
    /// The text of the kept pages, each page's text trimmed, pages separated by a blank line.
    pub text: String,
    /// Pages the document has.
    pub pages: usize,
    /// Leading pages whose text is in `text` (the rest did not fit the budget).
    pub pages_kept: usize,
}

/// Why a PDF gave no text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum PdfRefusal {
    #[error("the file is not a PDF that can be read (damaged or not a PDF at all)")]
    Unreadable,
    #[error("the PDF is encrypted (password-protected)")]
    Encrypted,
    #[error("the PDF has no pages")]
    NoPages,
    #[error("the PDF has no text to read (a scan or pictures only)")]
    NoText,
    #[error("the PDF's first page alone is longer than a note holds")]
    FirstPageTooLong,
    #[error("the PDF is too large to read (a stream inflates past the limit, or too many pages)")]
    TooLarge,
}

/// The text of `bytes`, at most `max_text_bytes` of it (whole pages only).
pub fn extract(bytes: &[u8], max_text_bytes: usize) -> Result<PdfText, PdfRefusal> {
    let options = lopdf::LoadOptions {
        max_decompressed_size: Some(MAX_STREAM_BYTES),
        ..lopdf::LoadOptions::default()
    };
    let document = lopdf::Document::load_mem_with_options(bytes, options).map_err(refusal)?;
    if document.is_encrypted() {
        return Err(PdfRefusal::Encrypted);
    }
    let pages: Vec<u32> = document.get_pages().into_keys().collect();
    if pages.is_empty() {
        return Err(PdfRefusal::NoPages);
    }
    if pages.len() > MAX_PAGES {
        return Err(PdfRefusal::TooLarge);
    }
    let mut text = String::new();
    let mut kept = 0;
    for page in &pages {
        let page_text = document
            .extract_text_with_limit(&[*page], MAX_STREAM_BYTES)
            .map_err(refusal)?;
        let page_text = tidy(&page_text);
        let separator = if text.is_empty() || page_text.is_empty() {
            ""
        } else {
            "\n\n"
        };
        if text.len() + separator.len() + page_text.len() > max_text_bytes {
            if kept == 0 {
                return Err(PdfRefusal::FirstPageTooLong);
            }
            break;
        }
        text.push_str(separator);
        text.push_str(&page_text);
        kept += 1;
    }
    if text.trim().is_empty() {
        return Err(PdfRefusal::NoText);
    }
    Ok(PdfText {
        text,
        pages: pages.len(),
        pages_kept: kept,
    })
}

fn refusal(e: lopdf::Error) -> PdfRefusal {
    match e {
        lopdf::Error::Decompress(_) => PdfRefusal::TooLarge,
        lopdf::Error::Decryption(_) | lopdf::Error::AlreadyEncrypted => PdfRefusal::Encrypted,
        _ => PdfRefusal::Unreadable,
    }
}

/// A page's text with control characters (but line breaks) dropped, each line's trailing
/// space trimmed and runs of blank lines collapsed: what a note should hold.
fn tidy(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut blank_run = 0;
    for line in raw.lines() {
        let line: String = line
            .chars()
            .filter(|c| !c.is_control() || *c == '\t')
            .collect();
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank_run > 0 { "\n\n" } else { "\n" });
        }
        blank_run = 0;
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_drops_controls_and_collapses_blank_lines() {
        assert_eq!(tidy("a \u{0}b\n\n\n\nc\u{7}\n"), "a b\n\nc");
        assert_eq!(tidy("\n\n"), "");
    }
}
