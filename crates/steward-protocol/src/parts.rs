//! Message parts beyond text: an image, an audio clip or a file attached to a message. Each
//! value has one rule here — the media types allowed per kind (`MimeType`), a file name
//! (`FileName`), the content hash that names a stored blob (`BlobRef`), and the size limits
//! (`PartLimits`) — so every surface, the store and the model layer refuse the same input with
//! the same words.
//!
//! Owns: `Attachment` (what a stored message keeps: kind, media type, size, name, blob
//! reference) and the short text placeholder a part becomes when its bytes are not sent;
//! `Upload` and `PartLimits` are in `upload.rs`. Does not own: where blobs live
//! (steward-store's blob store), which model takes which part (steward-llm) or how many past
//! parts are sent again (steward-core's history). Errors name the rule, never the refused
//! text: a mistyped name or type may be a secret.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// What a part is, for the model: a picture, a sound, or a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    Image,
    Audio,
    File,
}

impl PartKind {
    pub const ALL: [PartKind; 3] = [PartKind::Image, PartKind::Audio, PartKind::File];

    pub fn as_str(self) -> &'static str {
        match self {
            PartKind::Image => "image",
            PartKind::Audio => "audio",
            PartKind::File => "file",
        }
    }

    /// `image`, `audio` or `file`; anything else is refused.
    pub fn parse(raw: &str) -> Result<PartKind, PartError> {
        PartKind::ALL
            .into_iter()
            .find(|k| k.as_str() == raw)
            .ok_or(PartError::UnknownKind)
    }
}

impl fmt::Display for PartKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every media type a part may have, with its kind. Anything else is refused: a type outside
/// this list is one no provider encoder knows how to send.
const MIME_TYPES: &[(&str, PartKind)] = &[
    ("image/png", PartKind::Image),
    ("image/jpeg", PartKind::Image),
    ("image/gif", PartKind::Image),
    ("image/webp", PartKind::Image),
    ("audio/wav", PartKind::Audio),
    ("audio/mpeg", PartKind::Audio),
    ("audio/ogg", PartKind::Audio),
    ("audio/webm", PartKind::Audio),
    ("audio/mp4", PartKind::Audio),
    ("application/pdf", PartKind::File),
    ("text/plain", PartKind::File),
];

/// A part's media type, one of the allow-listed ones (`MimeType::allowed`). Case-insensitive
/// on the way in, lowercase always; no parameters (`; charset=…`): text parts are UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(value_type = String, example = "image/png"))]
pub struct MimeType(&'static str);

impl MimeType {
    pub fn parse(raw: &str) -> Result<MimeType, PartError> {
        let lower = raw.trim().to_ascii_lowercase();
        MIME_TYPES
            .iter()
            .find(|(m, _)| *m == lower)
            .map(|(m, _)| MimeType(m))
            .ok_or(PartError::MimeNotAllowed)
    }

    pub fn as_str(self) -> &'static str {
        self.0
    }

    /// The kind this type belongs to.
    pub fn kind(self) -> PartKind {
        MIME_TYPES
            .iter()
            .find(|(m, _)| *m == self.0)
            .map_or(PartKind::File, |(_, k)| *k)
    }

    /// The allowed types, comma-separated, as refusals list them.
    pub fn allowed() -> String {
        MIME_TYPES
            .iter()
            .map(|(m, _)| *m)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The part after the slash (`png`, `mpeg`, `pdf`).
    pub fn subtype(self) -> &'static str {
        self.0.split_once('/').map_or(self.0, |(_, s)| s)
    }
}

impl fmt::Display for MimeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for MimeType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for MimeType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        MimeType::parse(&raw).map_err(serde::de::Error::custom)
    }
}

/// Longest file name, in bytes (what common file systems allow for one path component).
pub const MAX_FILE_NAME_LEN: usize = 255;

/// A part's file name as the sender gave it: 1..=255 bytes, one path component (no `/` or
/// `\`, not `.` or `..`), no control or bidi characters, no space at either end. Only ever
/// shown (to the model and to people), never used as a path: blobs are named by their hash.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct FileName(String);

impl FileName {
    pub fn parse(raw: &str) -> Result<FileName, PartError> {
        let problem = if raw.is_empty() {
            "it is empty"
        } else if raw.len() > MAX_FILE_NAME_LEN {
            "it is too long"
        } else if raw.contains(['/', '\\']) || raw == "." || raw == ".." {
            "it is a path, not a name"
        } else if raw
            .chars()
            .any(|c| c.is_control() || crate::untrusted::is_bidi_control(c))
        {
            "it has a control character"
        } else if raw.trim() != raw {
            "it starts or ends with a space"
        } else {
            return Ok(FileName(raw.to_owned()));
        };
        Err(PartError::BadFileName(problem))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for FileName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for FileName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        FileName::parse(&raw).map_err(serde::de::Error::custom)
    }
}

const BLOB_PREFIX: &str = "sha256:";

/// The name of a stored blob: `sha256:` and the 64 lowercase hex digits of its content's
/// SHA-256. Content-addressed, so the same bytes are stored once and a reader can check
/// that what it read is what was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct BlobRef(String);

impl BlobRef {
    /// The reference of `data`.
    pub fn of(data: &[u8]) -> BlobRef {
        let digest = Sha256::digest(data);
        let mut out = String::with_capacity(BLOB_PREFIX.len() + 64);
        out.push_str(BLOB_PREFIX);
        for b in digest {
            out.push_str(&format!("{b:02x}"));
        }
        BlobRef(out)
    }

    pub fn parse(raw: &str) -> Result<BlobRef, PartError> {
        let hex = raw.strip_prefix(BLOB_PREFIX).ok_or(PartError::BadBlobRef)?;
        if hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            Ok(BlobRef(raw.to_owned()))
        } else {
            Err(PartError::BadBlobRef)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The 64 hex digits alone (a blob's file name).
    pub fn hex(&self) -> &str {
        &self.0[BLOB_PREFIX.len()..]
    }
}

impl fmt::Display for BlobRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for BlobRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        BlobRef::parse(&raw).map_err(serde::de::Error::custom)
    }
}

/// A part as a stored message keeps it: what it is and where its bytes are, never the bytes.
/// The kind always matches the media type (checked on the way in, from JSON too).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(try_from = "AttachmentFields")]
pub struct Attachment {
    kind: PartKind,
    mime_type: MimeType,
    size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<FileName>,
    blob: BlobRef,
}

/// `Attachment` as it is read, before the kind is checked against the media type.
#[derive(Deserialize)]
struct AttachmentFields {
    kind: PartKind,
    mime_type: MimeType,
    size: u64,
    #[serde(default)]
    name: Option<FileName>,
    blob: BlobRef,
}

impl TryFrom<AttachmentFields> for Attachment {
    type Error = PartError;

    fn try_from(f: AttachmentFields) -> Result<Self, PartError> {
        if f.kind != f.mime_type.kind() {
            return Err(PartError::KindMismatch {
                kind: f.kind,
                mime_type: f.mime_type,
            });
        }
        Ok(Attachment::new(f.mime_type, f.size, f.name, f.blob))
    }
}

impl Attachment {
    /// The kind is the media type's.
    pub fn new(mime_type: MimeType, size: u64, name: Option<FileName>, blob: BlobRef) -> Self {
        Attachment {
            kind: mime_type.kind(),
            mime_type,
            size,
            name,
            blob,
        }
    }

    pub fn kind(&self) -> PartKind {
        self.kind
    }

    pub fn mime_type(&self) -> MimeType {
        self.mime_type
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn name(&self) -> Option<&FileName> {
        self.name.as_ref()
    }

    pub fn blob(&self) -> &BlobRef {
        &self.blob
    }

    /// How the part is named in messages to people and the model: `photo.jpg (image/jpeg)`,
    /// or just the media type for a part without a name.
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => format!(
                "{} ({})",
                crate::untrusted::neutralise(name.as_str()),
                self.mime_type
            ),
            None => self.mime_type.to_string(),
        }
    }

    /// What the model reads in place of a part whose bytes are not sent: `[image: photo.jpg,
    /// 120 KB]`. The name is neutralised like any fenced text, so it cannot open a tag.
    pub fn placeholder(&self) -> String {
        let size = human_size(self.size);
        match &self.name {
            Some(name) => format!(
                "[{}: {}, {size}]",
                self.kind,
                crate::untrusted::neutralise(name.as_str())
            ),
            None => format!("[{}: {}, {size}]", self.kind, self.mime_type),
        }
    }
}

/// `512 B`, `120 KB`, `2.4 MB` (1024-based, as file managers show them).
pub fn human_size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    if bytes < KIB {
        format!("{bytes} B")
    } else if bytes < MIB {
        format!("{} KB", bytes.div_ceil(KIB))
    } else {
        format!("{}.{} MB", bytes / MIB, (bytes % MIB) * 10 / MIB)
    }
}

/// A refused part. The message names the rule (and sizes), never the refused text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartError {
    #[error("unknown part kind: it must be image, audio or file")]
    UnknownKind,
    #[error("media type not allowed: it must be one of {}", MimeType::allowed())]
    MimeNotAllowed,
    #[error("part kind {kind} does not match its media type {mime_type} (a {} type)", mime_type.kind())]
    KindMismatch { kind: PartKind, mime_type: MimeType },
    #[error(
        "invalid file name: 1 to {MAX_FILE_NAME_LEN} bytes, one name without a path, control characters or surrounding spaces ({0})"
    )]
    BadFileName(&'static str),
    #[error("invalid blob reference: it must be sha256: and 64 lowercase hex digits")]
    BadBlobRef,
    #[error("the part's sha256 does not match its bytes")]
    HashMismatch,
    #[error("the part's data is not valid base64")]
    BadBase64,
    #[error("a text/plain part must be UTF-8 text")]
    NotUtf8Text,
    #[error("a part of {size} bytes is larger than the limit of {limit} bytes ({})", human_size(*limit))]
    PartTooLarge { size: u64, limit: u64 },
    #[error("the message's parts come to {size} bytes, over the limit of {limit} bytes ({})", human_size(*limit))]
    MessageTooLarge { size: u64, limit: u64 },
    #[error("a message may carry at most {limit} parts (this one has {count})")]
    TooManyParts { count: usize, limit: usize },
}

impl PartError {
    /// A refusal for size (HTTP 413), as opposed to one for shape (400).
    pub fn is_too_large(&self) -> bool {
        matches!(
            self,
            PartError::PartTooLarge { .. }
                | PartError::MessageTooLarge { .. }
                | PartError::TooManyParts { .. }
        )
    }
}

#[cfg(test)]
#[path = "parts_tests.rs"]
mod tests;
