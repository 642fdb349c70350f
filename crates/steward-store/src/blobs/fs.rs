//! `FsBlobStore`: blobs as files under one directory (`<data_dir>/blobs/`), each named by its
//! hash (`ab/abcdef…`, a two-hex-digit fan-out so no directory grows huge).
//!
//! Owns: the file layout, atomic writes (a temp file in `tmp/`, synced, then renamed, so a
//! crash never leaves a half-written blob under its name), owner-only permissions (0700
//! directories, 0600 files) and the hash check on every read. Does not own the limits'
//! values or which blobs a message refers to.

use super::{BlobError, BlobStore};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use steward_protocol::{BlobRef, PartLimits, Upload};

/// Blobs under one directory with the given limits. Cheap to clone (one shared directory).
#[derive(Debug, Clone)]
pub struct FsBlobStore {
    inner: Arc<Dir>,
}

#[derive(Debug)]
struct Dir {
    root: PathBuf,
    limits: PartLimits,
    /// Makes temp names unique within the process (with the pid, across processes).
    next_temp: AtomicU64,
}

fn make_dir(path: &Path) -> Result<(), BlobError> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .map_err(|e| BlobError::io(format!("cannot create {}", path.display()), &e))
}

impl FsBlobStore {
    /// Opens (creating it owner-only if needed) the blob directory `root`.
    pub fn open(root: impl Into<PathBuf>, limits: PartLimits) -> Result<Self, BlobError> {
        let root = root.into();
        make_dir(&root.join("tmp"))?;
        Ok(FsBlobStore {
            inner: Arc::new(Dir {
                root,
                limits,
                next_temp: AtomicU64::new(0),
            }),
        })
    }

    /// Where the bytes of `blob` live.
    pub fn path_of(&self, blob: &BlobRef) -> PathBuf {
        self.inner.path_of(blob)
    }
}

impl Dir {
    fn path_of(&self, blob: &BlobRef) -> PathBuf {
        let hex = blob.hex();
        self.root.join(&hex[..2]).join(hex)
    }

    fn write_one(&self, upload: &Upload) -> Result<(), BlobError> {
        let blob = upload.attachment().blob();
        let path = self.path_of(blob);
        let data = upload.data();
        if let Ok(meta) = std::fs::metadata(&path)
            && meta.len() == data.len() as u64
        {
            // Content-addressed: a file of the right size under this name holds these bytes
            // (every read checks the hash, so a damaged one is still found out).
            return Ok(());
        }
        if let Some(dir) = path.parent() {
            make_dir(dir)?;
        }
        let n = self.next_temp.fetch_add(1, Ordering::Relaxed);
        let temp = self
            .root
            .join("tmp")
            .join(format!("{}.{}.{n}", blob.hex(), std::process::id()));
        let written = (|| {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&temp)?;
            file.write_all(data)?;
            file.sync_all()?;
            std::fs::rename(&temp, &path)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(BlobError::io(format!("cannot write {blob}"), &e));
        }
        Ok(())
    }

    fn read_one(&self, blob: &BlobRef) -> Result<Arc<[u8]>, BlobError> {
        let path = self.path_of(blob);
        let data = match std::fs::read(&path) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(BlobError::NotFound(blob.clone()));
            }
            Err(e) => return Err(BlobError::io(format!("cannot read {blob}"), &e)),
        };
        if &BlobRef::of(&data) != blob {
            return Err(BlobError::Corrupt(blob.clone()));
        }
        Ok(data.into())
    }
}

#[async_trait::async_trait]
impl BlobStore for FsBlobStore {
    fn limits(&self) -> PartLimits {
        self.inner.limits
    }

    async fn put_all(&self, uploads: &[Upload]) -> Result<(), BlobError> {
        self.inner
            .limits
            .check(uploads.iter().map(|u| u.attachment().size()))
            .map_err(BlobError::Refused)?;
        // Uploads share their bytes (`Arc`), so this copy is cheap.
        let uploads = uploads.to_vec();
        let dir = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || uploads.iter().try_for_each(|u| dir.write_one(u)))
            .await
            .map_err(|e| BlobError::Io {
                what: "write task failed".into(),
                message: e.to_string(),
            })?
    }

    async fn get(&self, blob: &BlobRef) -> Result<Arc<[u8]>, BlobError> {
        let dir = Arc::clone(&self.inner);
        let blob = blob.clone();
        tokio::task::spawn_blocking(move || dir.read_one(&blob))
            .await
            .map_err(|e| BlobError::Io {
                what: "read task failed".into(),
                message: e.to_string(),
            })?
    }
}
