//! The parent's side: runs the reading process (Steward itself, `read-document pdf`, with
//! a clean environment and no inherited descriptors but three pipes), writes the document
//! to its stdin, reads one JSON outcome from its stdout (capped), and ends it after a
//! wall-clock timeout. A process killed by its CPU or memory limit, or by the timeout, is
//! reported as too costly to read; nothing it does can take Steward down with it.
//!
//! Owns: starting, feeding, timing and reading the child. Does not own: the limits the
//! child sets on itself (`confine`) or the extraction (`pdf`).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::pdf::{PdfRefusal, PdfText};
use super::serve::{self, Outcome};
use super::{Confinement, MAX_DOCUMENT_BYTES};

/// CPU seconds a reading gets: a 200-page text PDF reads in well under one.
pub const DEFAULT_CPU_SECS: u64 = 10;
/// Address space a reading gets: the binary's own mappings plus a document's working set.
pub const DEFAULT_MEMORY_BYTES: u64 = 1024 * 1024 * 1024;
/// Wall-clock time a reading gets, waiting on its pipes included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a document gave no text.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// The document was read and refused (damaged, encrypted, no text, …).
    #[error("{0}")]
    Refused(PdfRefusal),
    /// The reading was stopped by its CPU, memory or time limit.
    #[error("the document took too much time or memory to read")]
    TooCostly,
    /// The reader could not be started or answered nonsense.
    #[error("the document reader failed: {0}")]
    Failed(String),
}

/// Reads documents in a confined child process.
#[derive(Debug, Clone)]
pub struct DocumentReader {
    program: PathBuf,
    args: Vec<String>,
    limits: Confinement,
    timeout: Duration,
}

impl DocumentReader {
    /// The reader that runs `steward_exe read-document …` (the running binary, from
    /// `std::env::current_exe`).
    pub fn new(steward_exe: PathBuf) -> Self {
        Self::with_command(steward_exe, vec!["read-document".to_owned()])
    }

    /// A reader that runs `program args… pdf <max> <cpu> <memory>`: for tests that stand
    /// in a child that misbehaves.
    pub fn with_command(program: PathBuf, args: Vec<String>) -> Self {
        Self {
            program,
            args,
            limits: Confinement {
                cpu_secs: DEFAULT_CPU_SECS,
                memory_bytes: DEFAULT_MEMORY_BYTES,
            },
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Other limits than the defaults.
    pub fn with_limits(mut self, limits: Confinement, timeout: Duration) -> Self {
        self.limits = limits;
        self.timeout = timeout;
        self
    }

    /// The text of a PDF, at most `max_text_bytes` of it (whole pages).
    pub async fn pdf_text(
        &self,
        bytes: &[u8],
        max_text_bytes: usize,
    ) -> Result<PdfText, DocumentError> {
        if bytes.len() > MAX_DOCUMENT_BYTES {
            return Err(DocumentError::Refused(PdfRefusal::TooLarge));
        }
        let mut child = tokio::process::Command::new(&self.program)
            .args(&self.args)
            .args(serve::args_for(max_text_bytes, self.limits))
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| DocumentError::Failed(format!("cannot start it: {e}")))?;
        let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(DocumentError::Failed("no pipes to it".to_owned()));
        };
        // JSON escapes at most 6 bytes per byte of text, plus the counts.
        let cap = u64::try_from(max_text_bytes.saturating_mul(6).saturating_add(4096))
            .unwrap_or(u64::MAX);
        let exchange = async {
            // A child that stops reading early (it died, or refused) breaks the pipe: its
            // exit status says why, so a failed write is not an error of its own.
            let _ = stdin.write_all(bytes).await;
            drop(stdin);
            let mut out = Vec::new();
            let read = stdout.take(cap + 1).read_to_end(&mut out).await;
            if out.len() as u64 > cap {
                // It would go on writing into a full pipe: end it now, not at the timeout.
                let _ = child.start_kill();
            }
            let status = child.wait().await;
            (read, out, status)
        };
        let Ok((read, out, status)) = tokio::time::timeout(self.timeout, exchange).await else {
            // Dropping the exchange dropped the child: kill_on_drop ends it.
            tracing::warn!("a document reading passed its time limit and was killed");
            return Err(DocumentError::TooCostly);
        };
        if out.len() as u64 > cap {
            return Err(DocumentError::Failed("its answer is too long".to_owned()));
        }
        let status = status.map_err(|e| DocumentError::Failed(format!("lost it: {e}")))?;
        if !status.success() {
            return Err(ended_badly(status));
        }
        read.map_err(|e| DocumentError::Failed(format!("cannot read its answer: {e}")))?;
        match serde_json::from_slice::<Outcome>(&out) {
            Ok(Outcome::Ok(text)) if text.text.len() <= max_text_bytes => Ok(text),
            Ok(Outcome::Ok(_)) => Err(DocumentError::Failed("it kept too much text".to_owned())),
            Ok(Outcome::Refused(refusal)) => Err(DocumentError::Refused(refusal)),
            Err(_) => Err(DocumentError::Failed(
                "its answer is not understood".to_owned(),
            )),
        }
    }
}

#[cfg(unix)]
fn ended_badly(status: std::process::ExitStatus) -> DocumentError {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        // Killed by its CPU limit (SIGXCPU, then SIGKILL at the hard limit), or aborted by
        // an allocation its address-space limit refused, or crashed on the document.
        Some(signal) => {
            tracing::warn!(signal, "a document reading was stopped by a signal");
            DocumentError::TooCostly
        }
        None => DocumentError::Failed(format!("it exited with {status}")),
    }
}

#[cfg(not(unix))]
fn ended_badly(status: std::process::ExitStatus) -> DocumentError {
    DocumentError::Failed(format!("it exited with {status}"))
}
