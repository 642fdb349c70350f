//! `FsBlobStore`: the blob contract, plus what only files show — owner-only permissions, no
//! temp file left behind, nothing on disk after a refusal, and a damaged file read as corrupt.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::TempDir;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use steward_protocol::{BlobRef, MimeType, PartLimits, Upload};
use steward_store::{BlobError, BlobStore, FsBlobStore, contract};

fn limits() -> PartLimits {
    PartLimits {
        max_part_bytes: 1024,
        max_message_bytes: 1536,
        max_parts: 3,
    }
}

fn upload(bytes: &[u8]) -> Upload {
    Upload::new(MimeType::parse("audio/wav").unwrap(), None, bytes.to_vec()).unwrap()
}

/// Every regular file under `dir`, recursively.
fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[tokio::test]
async fn the_blob_contract_holds_for_files() {
    let dir = TempDir::new();
    let blobs = FsBlobStore::open(dir.path().join("blobs"), limits()).unwrap();
    contract::run_blobs(&blobs).await;
    // Twice on the same directory: a long-lived store looks like this.
    let reopened = FsBlobStore::open(dir.path().join("blobs"), limits()).unwrap();
    contract::run_blobs(&reopened).await;
}

#[tokio::test]
async fn blobs_are_owner_only_and_no_temp_file_is_left() {
    let dir = TempDir::new();
    let root = dir.path().join("blobs");
    let blobs = FsBlobStore::open(&root, limits()).unwrap();
    let up = upload(b"RIFF....WAVE");
    blobs.put_all(std::slice::from_ref(&up)).await.unwrap();
    let path = blobs.path_of(up.attachment().blob());
    assert_eq!(
        files(&root),
        vec![path.clone()],
        "one file, nothing in tmp/"
    );
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&root), 0o700);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert!(
        path.ends_with(format!(
            "{}/{}",
            &up.attachment().blob().hex()[..2],
            up.attachment().blob().hex()
        )),
        "{path:?}"
    );
}

#[tokio::test]
async fn a_refused_message_writes_nothing_to_disk() {
    let dir = TempDir::new();
    let root = dir.path().join("blobs");
    let blobs = FsBlobStore::open(&root, limits()).unwrap();
    // Each part is under the part limit; together they are over the message limit.
    let parts = [upload(&[1u8; 1000]), upload(&[2u8; 1000])];
    let err = blobs.put_all(&parts).await.unwrap_err();
    assert!(
        matches!(err, BlobError::Refused(ref e) if e.is_too_large()),
        "{err:?}"
    );
    assert!(err.to_string().contains("over the limit"), "{err}");
    let four: Vec<Upload> = (0u8..4).map(|i| upload(&[i])).collect();
    assert!(matches!(
        blobs.put_all(&four).await,
        Err(BlobError::Refused(_))
    ));
    assert!(files(&root).is_empty(), "{:?}", files(&root));
}

#[tokio::test]
async fn a_damaged_blob_reads_as_corrupt() {
    let dir = TempDir::new();
    let blobs = FsBlobStore::open(dir.path().join("blobs"), limits()).unwrap();
    let up = upload(b"original bytes");
    blobs.put_all(std::slice::from_ref(&up)).await.unwrap();
    let blob = up.attachment().blob().clone();
    // Same length, other bytes: the size shortcut on write cannot hide it from a read.
    std::fs::write(blobs.path_of(&blob), b"tampered bytes").unwrap();
    match blobs.get(&blob).await {
        Err(BlobError::Corrupt(r)) => assert_eq!(r, blob),
        other => panic!("expected Corrupt, got {other:?}"),
    }
    let unknown = BlobRef::of(b"never stored");
    assert!(matches!(
        blobs.get(&unknown).await,
        Err(BlobError::NotFound(_))
    ));
}
