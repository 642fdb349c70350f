//! Embedders: turning text into unit-length vectors for semantic recall.
//!
//! Owns: the `Embedder` port, its error type, the local MiniLM model (feature `local-embed`),
//! remote embedding APIs (OpenAI-compatible, Ollama, Gemini), and where the local model lives.
//! Does not own: storing or searching vectors (steward-store), deciding what to embed or when
//! (the memory logic), nor downloading the model (scripts/fetch-model.sh).

#[cfg(feature = "local-embed")]
mod local;
#[cfg(feature = "local-embed")]
mod minilm;
mod remote;
#[cfg(feature = "local-embed")]
mod weights;

#[cfg(feature = "local-embed")]
pub use local::{LOCAL_DIMS, LOCAL_MODEL_ID, LocalMiniLm};
pub use remote::{RemoteEmbedder, RemoteKind};

use std::path::{Path, PathBuf};

/// Turns texts into vectors that can be compared by cosine (they are unit length, so a dot
/// product is the cosine).
#[async_trait::async_trait]
pub trait Embedder: Send + Sync {
    /// Stable id stored with each vector, e.g. "local:all-MiniLM-L6-v2" or
    /// "openai:text-embedding-3-small": vectors of different models never mix.
    fn model_id(&self) -> &str;
    fn dims(&self) -> usize;
    /// Whether the model is in memory now (a lazily loaded local model is not until its
    /// first use; a remote API has nothing to load). For status pages, never for decisions.
    fn loaded(&self) -> bool {
        true
    }
    /// One L2-normalised vector per text, same order.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// What can go wrong while embedding. Messages never carry an API key.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The local model could not be loaded or run (missing files, bad weights).
    #[error("embedding model: {0}")]
    Load(String),
    /// The remote API answered with an error status.
    #[error("embedding API returned HTTP {status}: {message}")]
    Http { status: u16, message: String },
    /// The remote API could not be reached.
    #[error("embedding API unreachable: {0}")]
    Connect(String),
    /// The answer did not have the expected shape (including wrong dimensions or count).
    #[error("embedding response: {0}")]
    Decode(String),
    /// The embedder was configured wrongly (missing key, bad URL, zero dims).
    #[error("embedder configuration: {0}")]
    Config(String),
}

/// Directory name of the local model, under `<data_dir>/models/` or `target/models/`.
pub const LOCAL_MODEL_DIR_NAME: &str = "all-MiniLM-L6-v2";

/// Where the local model is looked for: $STEWARD_EMBED_MODEL_DIR, else
/// <data_dir>/models/all-MiniLM-L6-v2.
pub fn default_model_dir(data_dir: &Path) -> PathBuf {
    model_dir_from(std::env::var_os("STEWARD_EMBED_MODEL_DIR"), data_dir)
}

fn model_dir_from(env_value: Option<std::ffi::OsString>, data_dir: &Path) -> PathBuf {
    match env_value {
        // An empty variable is treated as unset: `VAR= steward` should not mean "cwd".
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => data_dir.join("models").join(LOCAL_MODEL_DIR_NAME),
    }
}

/// For tests and benches: the model directory fetched by scripts/fetch-model.sh
/// ($STEWARD_TEST_MODEL_DIR, else <repo>/target/models/all-MiniLM-L6-v2).
///
/// Panics with a clear message naming the script if absent, so that a test which needs the
/// model fails loudly instead of silently skipping.
#[allow(clippy::panic)] // the documented contract: tests must never skip silently
pub fn test_model_dir() -> PathBuf {
    let dir = match std::env::var_os("STEWARD_TEST_MODEL_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../target/models")
            .join(LOCAL_MODEL_DIR_NAME),
    };
    let missing: Vec<&str> = ["model.safetensors", "tokenizer.json", "config.json"]
        .into_iter()
        .filter(|f| !dir.join(f).is_file())
        .collect();
    if !missing.is_empty() {
        panic!(
            "the local embedding model is missing from {} ({}): run scripts/fetch-model.sh \
             (or set STEWARD_TEST_MODEL_DIR to a directory holding model.safetensors, \
             tokenizer.json and config.json)",
            dir.display(),
            missing.join(", ")
        );
    }
    dir
}

/// Scales `v` to unit length in place; a zero vector stays zero rather than becoming NaN.
pub fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        for x in v.iter_mut() {
            *x /= norm;
        }
    }
}

/// Cosine similarity of two vectors (any length; 0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_gives_unit_length_and_keeps_direction() {
        let mut v = vec![3.0, 4.0];
        l2_normalize(&mut v);
        assert!((v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6);
    }

    #[test]
    fn normalize_leaves_zero_vector_alone() {
        let mut v = vec![0.0; 4];
        l2_normalize(&mut v);
        assert!(v.iter().all(|x| *x == 0.0));
    }

    #[test]
    fn cosine_of_orthogonal_and_parallel() {
        assert!(cosine(&[1.0, 0.0], &[0.0, 2.0]).abs() < 1e-6);
        assert!((cosine(&[1.0, 1.0], &[2.0, 2.0]) - 1.0).abs() < 1e-6);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    }

    #[test]
    fn model_dir_prefers_env_then_data_dir() {
        let data = Path::new("/data");
        assert_eq!(
            model_dir_from(None, data),
            PathBuf::from("/data/models/all-MiniLM-L6-v2")
        );
        assert_eq!(
            model_dir_from(Some("".into()), data),
            PathBuf::from("/data/models/all-MiniLM-L6-v2")
        );
        assert_eq!(
            model_dir_from(Some("/opt/minilm".into()), data),
            PathBuf::from("/opt/minilm")
        );
    }
}
