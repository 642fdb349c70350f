//! Local all-MiniLM-L6-v2: reference values, determinism, semantics, edge-case inputs.

use std::sync::OnceLock;

use steward_memory::embed::{
    EmbedError, Embedder, LOCAL_DIMS, LocalMiniLm, cosine, test_model_dir,
};

/// Loading takes ~0.3 s; share one model across the tests of this binary.
fn model() -> &'static LocalMiniLm {
    static MODEL: OnceLock<LocalMiniLm> = OnceLock::new();
    MODEL.get_or_init(|| LocalMiniLm::load(&test_model_dir()).unwrap())
}

async fn embed_one(text: &str) -> Vec<f32> {
    let mut v = model().embed(&[text.to_string()]).await.unwrap();
    assert_eq!(v.len(), 1);
    v.remove(0)
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

#[tokio::test]
async fn fox_sentence_matches_reference_values() {
    let v = embed_one("The quick brown fox jumps over the lazy dog.").await;
    assert_eq!(v.len(), 384);
    assert_eq!(model().dims(), LOCAL_DIMS);
    assert_eq!(model().model_id(), "local:all-MiniLM-L6-v2");
    // Reference from sentence-transformers' all-MiniLM-L6-v2 on the same sentence.
    let expected = [0.043934f32, 0.058934, 0.048178, 0.077548, 0.026744];
    for (i, (got, want)) in v.iter().zip(expected).enumerate() {
        assert!((got - want).abs() < 1e-4, "dim {i}: got {got}, want {want}");
    }
    assert!((norm(&v) - 1.0).abs() < 1e-5, "norm {}", norm(&v));
}

#[tokio::test]
async fn same_text_twice_gives_identical_vectors() {
    let text = "My sister's birthday is on the fourth of March.";
    let a = embed_one(text).await;
    let b = embed_one(text).await;
    assert_eq!(a, b);
}

#[tokio::test]
async fn batch_gives_the_same_vectors_as_one_at_a_time() {
    // Different lengths, so the short ones are padded inside the batch.
    let texts: Vec<String> = [
        "hi",
        "I prefer window seats on long flights.",
        "The quarterly report is due on Friday and still needs the revenue figures from sales.",
        "",
        "Buy oat milk.",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let batch = model().embed(&texts).await.unwrap();
    assert_eq!(batch.len(), texts.len());
    for (text, from_batch) in texts.iter().zip(&batch) {
        let single = embed_one(text).await;
        let max_diff = single
            .iter()
            .zip(from_batch)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(max_diff < 1e-5, "{text:?}: max diff {max_diff}");
    }
    // And the order is kept: the vectors of different texts are not interchangeable.
    assert!(cosine(&batch[0], &batch[2]) < 0.9);
}

#[tokio::test]
async fn related_sentences_are_closer_than_unrelated_ones() {
    let fox = embed_one("The quick brown fox jumps over the lazy dog.").await;
    let paraphrase = embed_one("A fast brown fox leaps over a sleepy dog.").await;
    let unrelated = embed_one("The stock market closed lower on Tuesday.").await;
    let para = cosine(&fox, &paraphrase);
    let unrel = cosine(&fox, &unrelated);
    eprintln!("fox: paraphrase {para:.3}, unrelated {unrel:.3}");
    assert!(para > 0.75, "paraphrase cosine {para}"); // measured 0.852
    assert!(unrel < 0.2, "unrelated cosine {unrel}"); // measured 0.068

    // (anchor, related, unrelated) with little word overlap in the related pair.
    let triples = [
        (
            "I am allergic to peanuts.",
            "Nuts make me sick, I can't eat them.",
            "The train to Berlin leaves at noon.",
        ),
        (
            "Remind me to renew my passport.",
            "My travel document expires soon and needs replacing.",
            "I love chocolate cake with cream.",
        ),
        (
            "My daughter starts school in September.",
            "Our kid begins classes after the summer holidays.",
            "The server crashed because the disk was full.",
        ),
        (
            "How do I reset my router?",
            "My wifi box needs restarting, what are the steps?",
            "Shakespeare wrote many famous plays.",
        ),
    ];
    for (anchor, related, other) in triples {
        let a = embed_one(anchor).await;
        let r = embed_one(related).await;
        let o = embed_one(other).await;
        let (cr, co) = (cosine(&a, &r), cosine(&a, &o));
        eprintln!("{anchor:?}: related {cr:.3}, unrelated {co:.3}");
        assert!(cr > co + 0.2, "{anchor:?}: related {cr} vs unrelated {co}");
    }
}

#[tokio::test]
async fn empty_text_gives_a_unit_vector() {
    let v = embed_one("").await;
    assert_eq!(v.len(), 384);
    assert!((norm(&v) - 1.0).abs() < 1e-5);
    assert!(v.iter().all(|x| x.is_finite()));
}

#[tokio::test]
async fn very_long_texts_are_truncated() {
    let head: Vec<String> = (0..400).map(|i| format!("word{i}")).collect();
    let head = head.join(" ");
    let tail_a = "apple ".repeat(9_600);
    let tail_b = "volcano eruption lava ".repeat(3_200);
    let a = format!("{head} {tail_a}");
    let b = format!("{head} {tail_b}");
    assert!(a.split_whitespace().count() >= 10_000);
    let vs = model().embed(&[a, b]).await.unwrap();
    assert_eq!(vs.len(), 2);
    assert!((norm(&vs[0]) - 1.0).abs() < 1e-5);
    // Only the first 256 tokens are read, and both share their first 400 words: what follows
    // cannot change the vector.
    let max_diff = vs[0]
        .iter()
        .zip(&vs[1])
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, f32::max);
    assert!(max_diff < 1e-5, "tails changed the vector by {max_diff}");
}

#[tokio::test]
async fn more_texts_than_one_batch_keep_their_order() {
    let texts: Vec<String> = (0..70)
        .map(|i| {
            format!(
                "Shopping item number {i}: {}",
                ["bread", "milk", "eggs"][i % 3]
            )
        })
        .collect();
    let all = model().embed(&texts).await.unwrap();
    assert_eq!(all.len(), 70);
    for i in [0usize, 33, 69] {
        let single = embed_one(&texts[i]).await;
        assert!(cosine(&single, &all[i]) > 0.99999, "text {i} out of place");
    }
}

#[tokio::test]
async fn no_texts_no_vectors() {
    assert!(model().embed(&[]).await.unwrap().is_empty());
}

#[test]
fn missing_model_dir_is_a_load_error_naming_the_script() {
    let dir = std::env::temp_dir().join("steward-no-such-model-dir");
    match LocalMiniLm::load(&dir) {
        Err(EmbedError::Load(msg)) => assert!(msg.contains("fetch-model.sh"), "{msg}"),
        other => panic!("expected a load error, got {:?}", other.map(|_| ())),
    }
}
