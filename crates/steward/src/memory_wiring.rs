//! Building memory from the configuration: the embedder (local MiniLM loaded lazily on
//! first use, a remote API, or none) and the `Memory` facade over the store, on the app's clock.
//!
//! The local model is loaded on the first embedding, not at start: start-up stays fast
//! and an idle server stays small; the first recall pays the load once.

use crate::config::Settings;
use std::path::PathBuf;
use std::sync::Arc;
use steward_memory::embed::{
    EmbedError, Embedder, LOCAL_DIMS, LOCAL_MODEL_ID, LocalMiniLm, RemoteEmbedder, RemoteKind,
    default_model_dir,
};
use steward_memory::{Memory, MemoryConfig, SimilarityFloor};
use steward_protocol::Clock;
use steward_store::Store;
use tokio::sync::OnceCell;

/// Where the local model is expected for these settings.
pub fn local_model_dir(settings: &Settings) -> PathBuf {
    settings
        .memory
        .model_dir
        .clone()
        .unwrap_or_else(|| default_model_dir(&settings.data_dir))
}

/// Whether the local model files are present.
pub fn local_model_present(dir: &std::path::Path) -> bool {
    ["model.safetensors", "tokenizer.json", "config.json"]
        .iter()
        .all(|f| dir.join(f).is_file())
}

struct LazyLocal {
    dir: PathBuf,
    model: OnceCell<Arc<LocalMiniLm>>,
}

#[async_trait::async_trait]
impl Embedder for LazyLocal {
    fn model_id(&self) -> &str {
        LOCAL_MODEL_ID
    }

    fn dims(&self) -> usize {
        LOCAL_DIMS
    }

    fn loaded(&self) -> bool {
        self.model.initialized()
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let model = self
            .model
            .get_or_try_init(|| async {
                let dir = self.dir.clone();
                let loaded = tokio::task::spawn_blocking(move || LocalMiniLm::load(&dir))
                    .await
                    .map_err(|e| EmbedError::Load(format!("loader task failed: {e}")))??;
                tracing::info!(dir = %self.dir.display(), "local embedding model loaded");
                Ok::<_, EmbedError>(Arc::new(loaded))
            })
            .await?;
        model.embed(texts).await
    }
}

/// Known vector sizes of common remote embedding models (0 in config = look up here).
fn known_dims(model: &str) -> Option<usize> {
    Some(match model {
        "text-embedding-3-small" | "text-embedding-ada-002" => 1536,
        "text-embedding-3-large" => 3072,
        "text-embedding-004" | "gemini-embedding-001" | "nomic-embed-text" => 768,
        "mxbai-embed-large" => 1024,
        "all-minilm" => 384,
        _ => return None,
    })
}

/// The embedder the settings ask for; `Ok(None)` when memory runs on full text only.
pub fn embedder(settings: &Settings) -> anyhow::Result<Option<Arc<dyn Embedder>>> {
    let spec = settings.memory.embedder.as_str();
    if spec == "none" {
        return Ok(None);
    }
    if spec == "local" {
        let dir = local_model_dir(settings);
        if !local_model_present(&dir) {
            tracing::warn!(
                dir = %dir.display(),
                "no local embedding model: recall uses full text only (fetch it with scripts/fetch-model.sh {})",
                dir.display()
            );
            return Ok(None);
        }
        return Ok(Some(Arc::new(LazyLocal {
            dir,
            model: OnceCell::new(),
        })));
    }
    let Some((provider, model)) = spec.split_once(':') else {
        anyhow::bail!("memory.embedder must be local, none or provider:model (got {spec})");
    };
    let kind = match provider {
        "openai" => RemoteKind::OpenAi,
        "gemini" => RemoteKind::Gemini,
        "ollama" => RemoteKind::Ollama,
        other => anyhow::bail!("memory.embedder: no embeddings from provider {other}"),
    };
    let Some(p) = settings.provider(provider) else {
        anyhow::bail!("memory.embedder names provider {provider}, which is not configured");
    };
    let dims = match settings.memory.embed_dims {
        0 => known_dims(model).ok_or_else(|| {
            anyhow::anyhow!("memory.embed_dims is needed for the embedding model {model}")
        })?,
        n => n,
    };
    let remote = RemoteEmbedder::new(
        kind,
        p.base_url.clone(),
        p.api_key.clone(),
        model.to_owned(),
        dims,
    )?;
    Ok(Some(Arc::new(remote)))
}

pub fn build_memory(
    settings: &Settings,
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<Arc<Memory>> {
    let similarity_floor = match settings.memory.min_similarity_percent {
        Some(p) => SimilarityFloor::At(f64::from(p) / 100.0),
        None => SimilarityFloor::ForModel,
    };
    let cfg = MemoryConfig {
        context_budget_tokens: settings.memory.context_budget_tokens,
        similarity_floor,
        ..MemoryConfig::default()
    };
    Ok(Arc::new(
        Memory::new(store, embedder(settings)?, cfg).with_clock(clock),
    ))
}
