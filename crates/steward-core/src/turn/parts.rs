//! The parts (images, audio, files) of a turn's message: admitted before anything is stored
//! (a blob store exists, the sizes are within its limits, the bound model takes every part),
//! written as blobs before the message that refers to them, and the bytes each request sends
//! loaded — only for the parts `history::parts_to_send` picks and the model takes.
//!
//! Owns: those three steps and their failures. Does not own: the size rule
//! (`PartLimits`), the capability table (steward-llm), the re-send rule (`history`) or the
//! wire formats.

use super::Failure;
use super::TurnDeps;
use crate::history::parts_to_send;
use steward_llm::{ModelRef, PartBytes};
use steward_protocol::{Attachment, FailureKind, Inbound, Message};
use steward_store::BlobError;

/// The attachments of the inbound's parts, as the stored message keeps them.
pub(crate) fn attachments(inbound: &Inbound) -> Vec<Attachment> {
    inbound
        .attachments
        .iter()
        .map(|u| u.attachment().clone())
        .collect()
}

/// Whether the message's parts may go ahead with `model`. Nothing has been stored yet, so
/// a refusal leaves no trace.
pub(crate) fn admit(deps: &TurnDeps, model: &ModelRef, inbound: &Inbound) -> Result<(), Failure> {
    if inbound.attachments.is_empty() {
        return Ok(());
    }
    let Some(blobs) = &deps.blobs else {
        return Err(Failure::new(
            FailureKind::Unsupported,
            "This Steward keeps no message parts (no blob store is configured); send text only.",
        ));
    };
    blobs
        .limits()
        .check(inbound.attachments.iter().map(|u| u.attachment().size()))
        .map_err(|e| Failure::new(FailureKind::TooLarge, e.to_string()))?;
    for upload in &inbound.attachments {
        deps.models.check_part(model, upload.attachment())?;
    }
    Ok(())
}

/// Write the inbound's parts (before the message that names them is stored).
pub(crate) async fn store(deps: &TurnDeps, inbound: &Inbound) -> Result<(), Failure> {
    let Some(blobs) = deps
        .blobs
        .as_ref()
        .filter(|_| !inbound.attachments.is_empty())
    else {
        return Ok(());
    };
    blobs
        .put_all(&inbound.attachments)
        .await
        .map_err(|e| match e {
            BlobError::Refused(e) => Failure::new(FailureKind::TooLarge, e.to_string()),
            other => {
                tracing::error!(error = %other, "storing a message part failed");
                Failure {
                    kind: FailureKind::Store,
                    message: "Steward could not save the message's parts; see the server log."
                        .into(),
                    retryable: true,
                }
            }
        })
}

/// The bytes a request built from `messages` sends for `model`: the current message's from
/// the inbound (no read back), older ones from the blob store. A part the model does not
/// take, or whose blob cannot be read (logged), goes as its placeholder instead.
pub(crate) async fn bytes_for(
    deps: &TurnDeps,
    model: &ModelRef,
    messages: &[Message],
    inbound: &Inbound,
) -> PartBytes {
    let mut bytes = PartBytes::default();
    for a in parts_to_send(messages) {
        if bytes.contains(a.blob()) || !deps.models.accepts(model, a.mime_type()) {
            continue;
        }
        if let Some(up) = inbound
            .attachments
            .iter()
            .find(|u| u.attachment().blob() == a.blob())
        {
            bytes.insert(a.blob().clone(), up.data().clone());
            continue;
        }
        let Some(blobs) = &deps.blobs else { continue };
        match blobs.get(a.blob()).await {
            Ok(data) => bytes.insert(a.blob().clone(), data),
            Err(e) => tracing::warn!(error = %e, "a past message part is sent as its placeholder"),
        }
    }
    bytes
}
