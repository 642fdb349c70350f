//! Reading untrusted documents (PDF today) into text, in a process of its own: a PDF
//! parser over hostile bytes is exactly the code whose worst case (a loop, a blow-up, a
//! panic) must not be Steward's. The running binary is started again as
//! `steward read-document pdf …`; it confines itself (`confine`: CPU, address space, no
//! file writes, dies with its parent), reads the document from stdin and answers with one
//! JSON line (`serve`); the parent (`reader`) times it and reads the answer.
//!
//! Owns: the document reader and its limits. Does not own: what the text becomes (a
//! surface saves it as a note) or the `read-document` subcommand's place in the CLI (the
//! binary calls `serve_child`).

mod pdf;
mod reader;
mod serve;

#[cfg(target_os = "linux")]
mod confine;

pub use pdf::{MAX_PAGES, MAX_STREAM_BYTES, PdfRefusal, PdfText, extract as extract_pdf_text};
pub use reader::{
    DEFAULT_CPU_SECS, DEFAULT_MEMORY_BYTES, DEFAULT_TIMEOUT, DocumentError, DocumentReader,
};
pub use serve::serve_child;

#[cfg(target_os = "linux")]
pub use confine::Confinement;
#[cfg(target_os = "linux")]
use confine::confine_self;

/// Largest document the reader accepts (Telegram's own download limit is 20 MB).
pub const MAX_DOCUMENT_BYTES: usize = 20 * 1024 * 1024;

#[cfg(not(target_os = "linux"))]
mod confine_elsewhere {
    /// The limits of one reading process.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Confinement {
        pub cpu_secs: u64,
        pub memory_bytes: u64,
    }
}
#[cfg(not(target_os = "linux"))]
pub use confine_elsewhere::Confinement;

/// Elsewhere than Linux no confinement is implemented, so the child refuses to read.
#[cfg(not(target_os = "linux"))]
fn confine_self(_: Confinement) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}
