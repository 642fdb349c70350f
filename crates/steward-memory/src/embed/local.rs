//! The in-process all-MiniLM-L6-v2 sentence embedder (candle, CPU).
//!
//! Owns: loading the model directory (config.json, tokenizer.json, model.safetensors),
//! tokenising in batches, mean pooling and normalisation. Does not own: the encoder's forward
//! pass (`minilm.rs`), fetching the files (scripts/fetch-model.sh) or choosing the directory
//! (`default_model_dir`).

use std::path::Path;
use std::sync::Arc;

use candle_core::safetensors::BufferedSafetensors;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::minilm::{Config, Encoder};
use super::weights::ColumnMajorLinears;
use super::{EmbedError, Embedder, l2_normalize};

/// Model id stored with every vector made by this embedder.
pub const LOCAL_MODEL_ID: &str = "local:all-MiniLM-L6-v2";
/// Output width of MiniLM-L6.
pub const LOCAL_DIMS: usize = 384;
/// sentence-transformers trains and serves this model at 256 tokens; the shipped tokenizer.json
/// says 128, which would silently cut medium-length notes.
const MAX_TOKENS: usize = 256;
/// Texts per forward pass: bounds peak memory (batch × seq² attention) on long inputs.
const BATCH: usize = 32;

/// all-MiniLM-L6-v2 run in process. Cheap to clone; the model is shared.
#[derive(Clone)]
pub struct LocalMiniLm {
    inner: Arc<Inner>,
}

struct Inner {
    model: Encoder,
    tokenizer: Tokenizer,
    device: Device,
}

impl std::fmt::Debug for LocalMiniLm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalMiniLm")
            .field("model_id", &LOCAL_MODEL_ID)
            .finish_non_exhaustive()
    }
}

fn load_err(what: &str, e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Load(format!("{what}: {e}"))
}

impl LocalMiniLm {
    /// Loads the model from `dir` (holding config.json, tokenizer.json, model.safetensors).
    /// Blocking: reads ~90 MB; call it from a blocking context.
    pub fn load(dir: &Path) -> Result<LocalMiniLm, EmbedError> {
        let file = |name: &str| {
            let p = dir.join(name);
            if p.is_file() {
                Ok(p)
            } else {
                Err(EmbedError::Load(format!(
                    "{} not found (run scripts/fetch-model.sh or see the README)",
                    p.display()
                )))
            }
        };
        let config_path = file("config.json")?;
        let tokenizer_path = file("tokenizer.json")?;
        let weights_path = file("model.safetensors")?;

        let config_text = std::fs::read_to_string(&config_path)
            .map_err(|e| load_err(&config_path.display().to_string(), e))?;
        let config: Config =
            serde_json::from_str(&config_text).map_err(|e| load_err("config.json", e))?;
        if config.hidden_size != LOCAL_DIMS {
            return Err(EmbedError::Load(format!(
                "config.json declares hidden_size {}, expected {LOCAL_DIMS} for MiniLM-L6",
                config.hidden_size
            )));
        }
        config.check().map_err(|e| load_err("config.json", e))?;

        let mut tokenizer =
            Tokenizer::from_file(&tokenizer_path).map_err(|e| load_err("tokenizer.json", e))?;
        // Pad to the longest text of the batch, not to a fixed 128: short texts dominate and
        // the forward pass cost grows with the padded length.
        let mut padding = tokenizer.get_padding().cloned().unwrap_or(PaddingParams {
            pad_id: 0,
            pad_token: "[PAD]".to_string(),
            ..PaddingParams::default()
        });
        padding.strategy = PaddingStrategy::BatchLongest;
        tokenizer.with_padding(Some(padding));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| load_err("tokenizer truncation", e))?;

        let device = Device::Cpu;
        // Read into memory rather than mmap: no `unsafe`, and the buffer is freed once the
        // tensors are built.
        let bytes = std::fs::read(&weights_path)
            .map_err(|e| load_err(&weights_path.display().to_string(), e))?;
        let tensors =
            BufferedSafetensors::new(bytes).map_err(|e| load_err("model.safetensors", e))?;
        let vb = VarBuilder::from_backend(
            Box::new(ColumnMajorLinears(tensors)),
            DType::F32,
            device.clone(),
        );
        let model = Encoder::load(vb, &config).map_err(|e| load_err("model weights", e))?;
        Ok(LocalMiniLm {
            inner: Arc::new(Inner {
                model,
                tokenizer,
                device,
            }),
        })
    }

    /// The synchronous core of `embed`: CPU-bound, so callers on an async runtime go through
    /// `Embedder::embed`, which runs this on a blocking thread.
    pub fn embed_blocking(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        // Run on a rayon worker: candle runs its elementwise ops as rayon parallel iterators,
        // and from a thread outside the pool each of them is a hand-off to a worker and back
        // (two context switches, dozens of times per sentence); on a worker they run in place,
        // and idle workers still steal parts of the big ones.
        rayon::scope(|_| {
            let mut out = Vec::with_capacity(texts.len());
            for chunk in texts.chunks(BATCH) {
                out.extend(self.inner.embed_batch(chunk)?);
            }
            Ok(out)
        })
    }
}

fn run_err(e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Load(format!("inference: {e}"))
}

impl Inner {
    fn embed_batch(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let tokenizer_err = |e| EmbedError::Load(format!("tokenizer: {e}"));
        // One text (every recall query) is encoded directly: `encode_batch` hands even a single
        // text to the rayon pool and waits for it, a cross-thread round trip on every query.
        let encodings = match texts {
            [one] => vec![
                self.tokenizer
                    .encode(one.as_str(), true)
                    .map_err(tokenizer_err)?,
            ],
            _ => self
                .tokenizer
                .encode_batch(texts.iter().map(String::as_str).collect(), true)
                .map_err(tokenizer_err)?,
        };
        let seq = encodings.first().map_or(0, |e| e.get_ids().len());
        let n = encodings.len();
        let mut ids = Vec::with_capacity(n * seq);
        let mut mask = Vec::with_capacity(n * seq);
        for enc in &encodings {
            // Padding is batch-longest, so every row has the same length; guard anyway since
            // a ragged row would silently misalign the tensor.
            if enc.get_ids().len() != seq {
                return Err(EmbedError::Load("tokenizer returned ragged batch".into()));
            }
            ids.extend_from_slice(enc.get_ids());
            mask.extend_from_slice(enc.get_attention_mask());
        }
        let padded = mask.contains(&0);
        let ids = Tensor::from_vec(ids, (n, seq), &self.device).map_err(run_err)?;
        let mask = Tensor::from_vec(mask, (n, seq), &self.device).map_err(run_err)?;
        let hidden = self.model.forward(&ids, &mask, padded).map_err(run_err)?;

        // Mean pooling over real tokens only (sentence-transformers' pooling for this model).
        let mask_f = mask
            .to_dtype(DType::F32)
            .and_then(|m| m.unsqueeze(2))
            .map_err(run_err)?;
        let summed = hidden
            .broadcast_mul(&mask_f)
            .and_then(|h| h.sum(1))
            .map_err(run_err)?;
        let counts = mask_f.sum(1).and_then(|c| c.clamp(1e-9f32, f32::MAX));
        let pooled = counts
            .and_then(|c| summed.broadcast_div(&c))
            .map_err(run_err)?;
        let mut rows: Vec<Vec<f32>> = pooled.to_vec2().map_err(run_err)?;
        for row in &mut rows {
            l2_normalize(row);
        }
        Ok(rows)
    }
}

#[async_trait::async_trait]
impl Embedder for LocalMiniLm {
    fn model_id(&self) -> &str {
        LOCAL_MODEL_ID
    }

    fn dims(&self) -> usize {
        LOCAL_DIMS
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let this = self.clone();
        let texts = texts.to_vec();
        tokio::task::spawn_blocking(move || this.embed_blocking(&texts))
            .await
            .map_err(|e| EmbedError::Load(format!("embedding task failed: {e}")))?
    }
}
