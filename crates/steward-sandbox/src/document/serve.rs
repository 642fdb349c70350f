//! The reading process itself (`steward read-document pdf`, started only by `reader`):
//! confines itself, reads the document from stdin (at most `MAX_DOCUMENT_BYTES`), extracts
//! its text and writes one JSON object to stdout — `{"ok": PdfText}` or `{"refused": …}` —
//! then exits. Nothing here logs: stderr is discarded by the parent and the document may
//! hold anything.
//!
//! Owns: the child's side of the exchange. Does not own: the extraction (`pdf`), the
//! limits (`confine`, chosen by `reader` and passed as arguments).

use std::io::{Read, Write};
use std::process::ExitCode;

use super::pdf::{self, PdfRefusal, PdfText};
use super::{Confinement, MAX_DOCUMENT_BYTES};
use serde::{Deserialize, Serialize};

/// One line on the child's stdout.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Outcome {
    Ok(PdfText),
    Refused(PdfRefusal),
}

/// The arguments after `read-document`: `pdf <max text bytes> <cpu secs> <memory bytes>`.
pub(super) fn args_for(max_text_bytes: usize, limits: Confinement) -> Vec<String> {
    vec![
        "pdf".to_owned(),
        max_text_bytes.to_string(),
        limits.cpu_secs.to_string(),
        limits.memory_bytes.to_string(),
    ]
}

/// Runs the child; `args` are the ones after `read-document`. Exit 0 with an outcome on
/// stdout, 2 for arguments it does not understand or limits it could not set.
pub fn serve_child(args: &[String]) -> ExitCode {
    let [kind, max_text, cpu, memory] = args else {
        return ExitCode::from(2);
    };
    let (Ok(max_text), Ok(cpu_secs), Ok(memory_bytes)) = (
        max_text.parse::<usize>(),
        cpu.parse::<u64>(),
        memory.parse::<u64>(),
    ) else {
        return ExitCode::from(2);
    };
    if kind != "pdf" {
        return ExitCode::from(2);
    }
    if super::confine_self(Confinement {
        cpu_secs,
        memory_bytes,
    })
    .is_err()
    {
        return ExitCode::from(2);
    }
    let mut input = Vec::new();
    let limit = u64::try_from(MAX_DOCUMENT_BYTES).unwrap_or(u64::MAX) + 1;
    if std::io::stdin()
        .take(limit)
        .read_to_end(&mut input)
        .is_err()
    {
        return ExitCode::from(2);
    }
    let outcome = if input.len() > MAX_DOCUMENT_BYTES {
        Outcome::Refused(PdfRefusal::TooLarge)
    } else {
        match pdf::extract(&input, max_text) {
            Ok(text) => Outcome::Ok(text),
            Err(refusal) => Outcome::Refused(refusal),
        }
    };
    let Ok(line) = serde_json::to_vec(&outcome) else {
        return ExitCode::from(2);
    };
    let mut out = std::io::stdout().lock();
    if out.write_all(&line).and_then(|()| out.flush()).is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
