//! `Upload`: a message part with its bytes, as a surface hands it to the assistant, and the
//! size limits (`PartLimits`) every surface, the assistant and the blob store check.
//!
//! Owns: deriving an attachment from bytes (so the reference and size cannot disagree with
//! them), the wire form with base64 bytes, and the limits. Does not own the value rules
//! (`parts`) or where bytes are kept.

use crate::parts::{Attachment, BlobRef, FileName, MimeType, PartError};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// An attachment with its bytes, as a surface hands it to the assistant. The reference and
/// size are computed from the bytes, so they cannot disagree with them. `Debug` shows the
/// attachment and the byte count, never the bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Upload {
    attachment: Attachment,
    data: Arc<[u8]>,
}

impl Upload {
    /// A part of type `mime_type` holding `data`. A `text/plain` part must be UTF-8 (it may be
    /// sent to a model as text).
    pub fn new(
        mime_type: MimeType,
        name: Option<FileName>,
        data: impl Into<Arc<[u8]>>,
    ) -> Result<Upload, PartError> {
        let data: Arc<[u8]> = data.into();
        if mime_type.as_str() == "text/plain" && std::str::from_utf8(&data).is_err() {
            return Err(PartError::NotUtf8Text);
        }
        let size = u64::try_from(data.len()).unwrap_or(u64::MAX);
        let attachment = Attachment::new(mime_type, size, name, BlobRef::of(&data));
        Ok(Upload { attachment, data })
    }

    /// As `new`, checking a reference the sender claims against the bytes.
    pub fn verified(
        mime_type: MimeType,
        name: Option<FileName>,
        data: impl Into<Arc<[u8]>>,
        claimed: &BlobRef,
    ) -> Result<Upload, PartError> {
        let upload = Upload::new(mime_type, name, data)?;
        if upload.attachment.blob() != claimed {
            return Err(PartError::HashMismatch);
        }
        Ok(upload)
    }

    pub fn attachment(&self) -> &Attachment {
        &self.attachment
    }

    pub fn data(&self) -> &Arc<[u8]> {
        &self.data
    }
}

impl fmt::Debug for Upload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upload")
            .field("attachment", &self.attachment)
            .field("bytes", &self.data.len())
            .finish()
    }
}

/// `Upload` on the wire: the bytes in base64, the reference and size recomputed on the way
/// in (a hash in the JSON would be one more thing to disagree).
#[derive(Serialize, Deserialize)]
struct UploadWire {
    mime_type: MimeType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<FileName>,
    data_base64: String,
}

impl Serialize for Upload {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        UploadWire {
            mime_type: self.attachment.mime_type(),
            name: self.attachment.name().cloned(),
            data_base64: base64::engine::general_purpose::STANDARD.encode(&self.data),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Upload {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire = UploadWire::deserialize(d)?;
        let data = base64::engine::general_purpose::STANDARD
            .decode(wire.data_base64.as_bytes())
            .map_err(|_| serde::de::Error::custom(PartError::BadBase64))?;
        Upload::new(wire.mime_type, wire.name, data).map_err(serde::de::Error::custom)
    }
}

/// Default limit of one part: 20 MiB (Gemini's whole inline request limit).
pub const DEFAULT_MAX_PART_BYTES: u64 = 20 * 1024 * 1024;
/// Default limit of all the parts of one message together.
pub const DEFAULT_MAX_MESSAGE_PART_BYTES: u64 = 32 * 1024 * 1024;
/// Default number of parts one message may carry.
pub const DEFAULT_MAX_PARTS: usize = 8;

/// How big parts may be: each one, all of one message's together, and how many. Checked by
/// every surface before it decodes much, by the assistant before anything is stored, and by
/// the blob store before it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartLimits {
    pub max_part_bytes: u64,
    pub max_message_bytes: u64,
    pub max_parts: usize,
}

impl Default for PartLimits {
    fn default() -> Self {
        PartLimits {
            max_part_bytes: DEFAULT_MAX_PART_BYTES,
            max_message_bytes: DEFAULT_MAX_MESSAGE_PART_BYTES,
            max_parts: DEFAULT_MAX_PARTS,
        }
    }
}

impl PartLimits {
    /// The sizes of one message's parts against the limits.
    pub fn check(&self, sizes: impl IntoIterator<Item = u64>) -> Result<(), PartError> {
        let mut count = 0usize;
        let mut total = 0u64;
        for size in sizes {
            count += 1;
            if size > self.max_part_bytes {
                return Err(PartError::PartTooLarge {
                    size,
                    limit: self.max_part_bytes,
                });
            }
            total = total.saturating_add(size);
        }
        if count > self.max_parts {
            return Err(PartError::TooManyParts {
                count,
                limit: self.max_parts,
            });
        }
        if total > self.max_message_bytes {
            return Err(PartError::MessageTooLarge {
                size: total,
                limit: self.max_message_bytes,
            });
        }
        Ok(())
    }
}
