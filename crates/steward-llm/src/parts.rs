//! Message parts on their way to a model: which media types each wire format can take (`ProviderKind::accepts`), and the refusal for a
//! part a model cannot take, before any call. (The bytes a request carries, `PartBytes`, are
//! a request type, in `types`.)
//!
//! Owns: the per-provider capability table and the check `Models` runs before each call.
//! Does not own: each format's JSON for a part (in `openai`, `anthropic`, `gemini`), which
//! parts a turn sends as data (steward-core decides, by which bytes it loads), or where
//! bytes are stored.

use crate::{LlmError, PartBytes, ProviderKind};
use base64::Engine as _;
use steward_protocol::{Attachment, Message, MimeType, PartKind};

/// What each wire format can carry, by media type (from each provider's API reference):
/// OpenAI chat completions takes images, `input_audio` only as wav or mp3, and PDF files;
/// Anthropic takes images and documents (PDF, plain text), no audio; Gemini's `inlineData`
/// takes PNG, JPEG and WebP images, wav/mp3/ogg audio, PDF and plain text.
const ACCEPTS: &[(ProviderKind, &[&str])] = &[
    (
        ProviderKind::OpenAi,
        &[
            "image/png",
            "image/jpeg",
            "image/gif",
            "image/webp",
            "audio/wav",
            "audio/mpeg",
            "application/pdf",
        ],
    ),
    (
        ProviderKind::Anthropic,
        &[
            "image/png",
            "image/jpeg",
            "image/gif",
            "image/webp",
            "application/pdf",
            "text/plain",
        ],
    ),
    (
        ProviderKind::Gemini,
        &[
            "image/png",
            "image/jpeg",
            "image/webp",
            "audio/wav",
            "audio/mpeg",
            "audio/ogg",
            "application/pdf",
            "text/plain",
        ],
    ),
];

impl ProviderKind {
    /// Whether this wire format can carry a part of type `mime`.
    pub fn accepts(self, mime: MimeType) -> bool {
        ACCEPTS
            .iter()
            .find(|(k, _)| *k == self)
            .is_some_and(|(_, types)| types.contains(&mime.as_str()))
    }
}

/// What one configured provider takes: its wire format's table, narrowed by the owner's
/// `parts` setting (`None` = everything the format carries; empty = text only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartSupport {
    pub(crate) kind: ProviderKind,
    pub(crate) kinds: Option<Vec<PartKind>>,
}

impl PartSupport {
    pub(crate) fn of(cfg: &crate::ProviderConfig) -> Self {
        PartSupport {
            kind: cfg.kind,
            kinds: cfg.parts.clone(),
        }
    }

    pub(crate) fn accepts(&self, mime: MimeType) -> bool {
        self.kind.accepts(mime)
            && self
                .kinds
                .as_ref()
                .is_none_or(|kinds| kinds.contains(&mime.kind()))
    }
}

/// The refusal for `a` on `model`: names both, and says what would work.
pub(crate) fn unsupported(model: &str, a: &Attachment) -> LlmError {
    LlmError::Unsupported {
        model: model.to_owned(),
        part: format!("{} part {}", a.kind(), a.label()),
    }
}

/// The first part sent as data in `messages` that `accepts` refuses.
pub(crate) fn first_refused<'a>(
    messages: &'a [Message],
    bytes: &PartBytes,
    accepts: &dyn Fn(MimeType) -> bool,
) -> Option<&'a Attachment> {
    messages
        .iter()
        .flat_map(|m| m.attachments.iter())
        .find(|a| bytes.contains(a.blob()) && !accepts(a.mime_type()))
}

/// A user message's parts in one wire format: each attachment whose bytes are sent becomes
/// what `part` makes of it; the others (bytes not sent, or a type `part` cannot express)
/// become placeholder lines appended to the message's text. Returns (text, parts).
pub(crate) fn encode_parts(
    m: &Message,
    bytes: &PartBytes,
    part: impl Fn(&Attachment, &[u8]) -> Option<serde_json::Value>,
) -> (String, Vec<serde_json::Value>) {
    let mut placeholders = Vec::new();
    let mut parts = Vec::new();
    for a in &m.attachments {
        match bytes.get(a.blob()).and_then(|data| part(a, data)) {
            Some(v) => parts.push(v),
            None => placeholders.push(a.placeholder()),
        }
    }
    (with_placeholders(&m.content, &placeholders), parts)
}

pub(crate) fn base64(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// `data:<mime>;base64,<data>` (OpenAI's image and file parts).
pub(crate) fn data_url(mime: MimeType, b64: &str) -> String {
    format!("data:{mime};base64,{b64}")
}

/// The text a user message's parts read as when their bytes are not sent, appended to the
/// message's own text (one line per part).
fn with_placeholders(text: &str, placeholders: &[String]) -> String {
    let mut out = text.to_owned();
    for p in placeholders {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use steward_protocol::BlobRef;

    fn mime(m: &str) -> MimeType {
        MimeType::parse(m).unwrap()
    }

    #[test]
    fn each_format_takes_what_its_api_documents() {
        assert!(ProviderKind::OpenAi.accepts(mime("audio/wav")));
        assert!(!ProviderKind::OpenAi.accepts(mime("audio/ogg")));
        assert!(!ProviderKind::OpenAi.accepts(mime("text/plain")));
        assert!(!ProviderKind::Anthropic.accepts(mime("audio/mpeg")));
        assert!(ProviderKind::Anthropic.accepts(mime("text/plain")));
        assert!(ProviderKind::Gemini.accepts(mime("audio/ogg")));
        assert!(!ProviderKind::Gemini.accepts(mime("image/gif")));
        for m in ["image/png", "image/jpeg", "application/pdf"] {
            for k in [
                ProviderKind::OpenAi,
                ProviderKind::Anthropic,
                ProviderKind::Gemini,
            ] {
                assert!(k.accepts(mime(m)), "{k:?} {m}");
            }
        }
    }

    #[test]
    fn the_owner_can_narrow_a_provider_to_text_only() {
        let text_only = PartSupport {
            kind: ProviderKind::OpenAi,
            kinds: Some(Vec::new()),
        };
        assert!(!text_only.accepts(mime("image/png")));
        let images = PartSupport {
            kind: ProviderKind::OpenAi,
            kinds: Some(vec![PartKind::Image]),
        };
        assert!(images.accepts(mime("image/png")) && !images.accepts(mime("audio/wav")));
        // Narrowing never widens past the format.
        let all = PartSupport {
            kind: ProviderKind::Anthropic,
            kinds: Some(PartKind::ALL.to_vec()),
        };
        assert!(!all.accepts(mime("audio/wav")));
    }

    #[test]
    fn debug_of_part_bytes_never_shows_bytes() {
        let mut b = PartBytes::default();
        b.insert(BlobRef::of(b"secret"), Arc::from(&b"secret"[..]));
        let dbg = format!("{b:?}");
        assert!(dbg.contains("sha256:") && dbg.contains(": 6"), "{dbg}");
        assert!(!dbg.contains("115, 101"), "{dbg}");
    }
}
