//! The blob store port: the bytes of message parts (images, audio, files), named by their
//! content hash (`BlobRef`). Messages keep only `Attachment`s; a blob is read back only for a
//! message that is actually sent to a model.
//!
//! Owns: the port, its error, and the rule that limits are checked before anything is written
//! (`put_all`). Does not own: where the bytes live (`fs::FsBlobStore`: files under
//! `<data_dir>/blobs/`), which parts are sent again (steward-core) or the limits' values
//! (`steward_protocol::PartLimits`, from the configuration).

mod fs;

pub use fs::FsBlobStore;

use std::sync::Arc;
use steward_protocol::{BlobRef, PartError, PartLimits, Upload};

/// What can go wrong storing or reading a blob. Messages carry sizes and references, never
/// bytes.
#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    /// A part or the message's parts together are over the limits: nothing was written.
    #[error("{0}")]
    Refused(PartError),
    #[error("blob {0} is not stored")]
    NotFound(BlobRef),
    /// The stored bytes no longer hash to their name (a damaged or tampered file).
    #[error("blob {0} is corrupt: its bytes do not match its hash")]
    Corrupt(BlobRef),
    #[error("blob store {what}: {message}")]
    Io { what: String, message: String },
}

impl BlobError {
    pub(crate) fn io(what: impl Into<String>, e: &std::io::Error) -> Self {
        BlobError::Io {
            what: what.into(),
            message: e.to_string(),
        }
    }
}

#[async_trait::async_trait]
pub trait BlobStore: Send + Sync {
    /// The size limits this store enforces (what surfaces should refuse early too).
    fn limits(&self) -> PartLimits;

    /// Store every part of one message. The sizes are checked against `limits()` first, all
    /// together: when one is refused nothing is written. Bytes already stored are not written
    /// again (same content, same name). After an error other than `Refused`, some of the
    /// parts may be stored; they are unreferenced and harmless.
    async fn put_all(&self, uploads: &[Upload]) -> Result<(), BlobError>;

    /// The bytes of `blob`, checked against its hash (`Corrupt` otherwise).
    async fn get(&self, blob: &BlobRef) -> Result<Arc<[u8]>, BlobError>;
}
