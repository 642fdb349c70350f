//! Shared test set-up: a deterministic word-hashing embedder ("test:hash64") that can be told
//! to fail, a `Memory` over a real in-memory SQLite store, and `Models` against the fake
//! model server.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use steward_llm::{Models, ProviderConfig, ProviderKind, RetryPolicy};
use steward_memory::embed::{EmbedError, Embedder};
use steward_memory::{Memory, MemoryConfig, RecallMode, RecallOptions};
use steward_protocol::Provenance;
use steward_store::{NewNote, Store};
use steward_testkit::FakeModel;

/// Each lower-cased word hashed (FNV-1a) into one of 64 dimensions; L2-normalised. Texts
/// sharing words are close, texts sharing none are orthogonal.
pub struct HashEmbedder {
    pub fail: AtomicBool,
}

impl HashEmbedder {
    pub const MODEL_ID: &'static str = "test:hash64";
    const DIMS: usize = 64;

    pub fn vector(text: &str) -> Vec<f32> {
        let mut v = vec![0f32; Self::DIMS];
        for w in text
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for b in w.bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            v[(h % Self::DIMS as u64) as usize] += 1.0;
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        } else {
            v[0] = 1.0;
        }
        v
    }
}

#[async_trait::async_trait]
impl Embedder for HashEmbedder {
    fn model_id(&self) -> &str {
        Self::MODEL_ID
    }
    fn dims(&self) -> usize {
        Self::DIMS
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if self.fail.load(Ordering::SeqCst) {
            return Err(EmbedError::Connect("test embedder told to fail".into()));
        }
        Ok(texts.iter().map(|t| Self::vector(t)).collect())
    }
}

/// Memory over a fresh in-memory store with the hash embedder.
pub fn memory_with(cfg: MemoryConfig) -> (Memory, Arc<dyn Store>, Arc<HashEmbedder>) {
    let store: Arc<dyn Store> =
        steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap();
    let embedder = Arc::new(HashEmbedder {
        fail: AtomicBool::new(false),
    });
    let mem = Memory::new(store.clone(), Some(embedder.clone()), cfg);
    assert_eq!(mem.embedder_id(), Some(HashEmbedder::MODEL_ID));
    (mem, store, embedder)
}

pub fn note(title: &str, body: &str, tags: &[&str]) -> NewNote {
    NewNote {
        title: title.into(),
        body: body.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        provenance: Provenance::User { conversation: None },
    }
}

pub fn opts(mode: RecallMode, limit: usize) -> RecallOptions {
    RecallOptions {
        mode,
        limit,
        ..RecallOptions::default()
    }
}

pub fn fake_models(fake: &FakeModel) -> Models {
    let provider = ProviderConfig {
        name: "openai".into(),
        kind: ProviderKind::OpenAi,
        base_url: fake.openai_base_url(),
        api_key: Some("sk-test-not-a-real-key".into()),
        stream: false,
        request_timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(2),
        parts: None,
    };
    let retry = RetryPolicy {
        max_retries: 0,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(20),
        max_retry_after: Duration::from_millis(50),
    };
    Models::new(vec![provider], retry).unwrap()
}
