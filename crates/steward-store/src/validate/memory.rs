//! Input limits for remembered rows (facts, notes, read-later, learnings, intentions, vectors),
//! and the plain-text → search-token rule, so every adapter refuses and searches alike. Like the
//! rest of `validate`, messages name the field and the problem but never echo the text.
//!
//! Fact keys and tags follow `steward_protocol::{FactKey, Tag}` (the one rule every surface
//! uses); only writes and lookups by value are checked, so rows stored under an older, looser
//! rule still load.

use super::{MAX_ID_LEN, no_nul};
use crate::{MemoryFilter, NewFact, NoteEdit, StoreError};
use steward_protocol::{FactKey, Provenance, Tag, ValueError};
/// Longest title (note, read-later), in bytes.
pub const MAX_TITLE_LEN: usize = 1024;
/// Longest url, in bytes.
pub const MAX_URL_LEN: usize = 8 * 1024;
/// Longest fact value, note body, learning or intention text, in bytes (256 KiB).
pub const MAX_MEMORY_TEXT_LEN: usize = 256 * 1024;
/// Most dimensions of a stored or searched vector.
pub const MAX_EMBEDDING_DIMS: usize = 8192;
/// Search queries keep at most this many distinct tokens...
pub(crate) const MAX_QUERY_TOKENS: usize = 32;
/// ...each at most this many characters (longer runs are noise: hashes, base64).
pub(crate) const MAX_QUERY_TOKEN_CHARS: usize = 64;

fn bounded(what: &str, text: &str, min: usize, max: usize) -> Result<(), StoreError> {
    if text.len() < min {
        return Err(StoreError::InvalidInput(format!("{what} is empty")));
    }
    if text.len() > max {
        return Err(StoreError::InvalidInput(format!(
            "{what} is {} bytes; the limit is {max}",
            text.len()
        )));
    }
    no_nul(what, text)
}

pub(crate) fn user(user: &str) -> Result<(), StoreError> {
    bounded("user", user, 1, MAX_ID_LEN)
}

pub(crate) fn model_id(model_id: &str) -> Result<(), StoreError> {
    bounded("embedding model id", model_id, 1, MAX_ID_LEN)
}

fn refused(err: ValueError) -> StoreError {
    StoreError::InvalidInput(err.to_string())
}

pub(crate) fn fact_key(key: &str) -> Result<(), StoreError> {
    FactKey::parse(key).map(drop).map_err(refused)
}

/// A prefix follows the key rule (so it holds no pattern characters) and must not be empty:
/// broad sweeps delete the wrong rows.
pub(crate) fn fact_prefix(prefix: &str) -> Result<(), StoreError> {
    fact_key(prefix)
}

pub(crate) fn title(what: &str, title: &str) -> Result<(), StoreError> {
    bounded(what, title, 0, MAX_TITLE_LEN)
}

pub(crate) fn url(url: &str) -> Result<(), StoreError> {
    bounded("url", url, 1, MAX_URL_LEN)
}

pub(crate) fn text(what: &str, text: &str, min: usize) -> Result<(), StoreError> {
    bounded(what, text, min, MAX_MEMORY_TEXT_LEN)
}

pub(crate) fn fact(fact: &NewFact) -> Result<(), StoreError> {
    fact_key(&fact.key)?;
    text("fact value", &fact.value, 0)?;
    if !(fact.confidence.is_finite() && (0.0..=1.0).contains(&fact.confidence)) {
        return Err(StoreError::InvalidInput(
            "fact confidence must be a finite number from 0 to 1".into(),
        ));
    }
    provenance(&fact.provenance)
}

pub(crate) fn provenance(p: &Provenance) -> Result<(), StoreError> {
    match p {
        Provenance::ToolOutput { tool } => bounded("provenance tool", tool, 0, MAX_ID_LEN),
        Provenance::Fetched { url } => bounded("provenance url", url, 0, MAX_URL_LEN),
        Provenance::Tainted { sources, .. } => {
            if sources.len() > 32 {
                return Err(StoreError::InvalidInput(
                    "provenance sources: at most 32".into(),
                ));
            }
            sources
                .iter()
                .try_for_each(|s| bounded("provenance source", s, 1, MAX_ID_LEN))
        }
        Provenance::User { .. } | Provenance::Assistant { .. } | Provenance::Reflection => Ok(()),
    }
}

/// Tags as `Tag::normalise_all` keeps them: trimmed, lowercased, duplicates dropped (first
/// kept), each `Tag`'s rule, at most `MAX_TAGS`.
pub(crate) fn tags(tags: &[String]) -> Result<Vec<String>, StoreError> {
    Tag::normalise_strings(tags).map_err(refused)
}

pub(crate) fn note_edit(edit: &NoteEdit) -> Result<Option<Vec<String>>, StoreError> {
    if let Some(t) = &edit.title {
        title("note title", t)?;
    }
    if let Some(b) = &edit.body {
        text("note body", b, 0)?;
    }
    edit.tags.as_deref().map(tags).transpose()
}

/// The filter with its tags normalised like stored tags (so they compare equal).
pub(crate) fn filter(filter: &MemoryFilter) -> Result<MemoryFilter, StoreError> {
    let mut kinds = filter.kinds.clone();
    kinds.sort();
    kinds.dedup();
    Ok(MemoryFilter {
        kinds,
        tags: tags(&filter.tags)?,
        since_ms: filter.since_ms,
        until_ms: filter.until_ms,
    })
}

pub(crate) fn embedding(embedding: &[f32]) -> Result<(), StoreError> {
    if embedding.is_empty() || embedding.len() > MAX_EMBEDDING_DIMS {
        return Err(StoreError::InvalidInput(format!(
            "embedding has {} dimensions; 1..={MAX_EMBEDDING_DIMS} are accepted",
            embedding.len()
        )));
    }
    if let Some(at) = embedding.iter().position(|v| !v.is_finite()) {
        return Err(StoreError::InvalidInput(format!(
            "embedding value {at} is not a finite number"
        )));
    }
    Ok(())
}

/// Words that match most rows: ranking all those rows costs far more than they add (BM25 gives
/// them almost no weight), so a query drops them unless nothing else is left.
const STOPWORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "but", "by", "can", "did", "do", "does",
    "for", "from", "had", "has", "have", "how", "i", "if", "in", "is", "it", "its", "me", "my",
    "of", "on", "or", "our", "so", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who",
    "why", "will", "with", "you", "your",
];

/// Plain user text → search tokens: runs of letters and digits, lowercased, runs longer than
/// 64 characters dropped, duplicates dropped, at most 32 kept, stopwords dropped when other
/// words remain. Nothing else survives, so no query syntax (quotes, operators, column filters,
/// wildcards) can reach a search engine.
pub(crate) fn query_tokens(query: &str) -> Vec<String> {
    let all = words(query);
    let content: Vec<String> = all
        .iter()
        .filter(|t| !STOPWORDS.contains(&t.as_str()))
        .cloned()
        .collect();
    if content.is_empty() { all } else { content }
}

fn words(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for run in query.split(|c: char| !c.is_alphanumeric()) {
        if out.len() == MAX_QUERY_TOKENS {
            break;
        }
        if run.is_empty() || run.chars().count() > MAX_QUERY_TOKEN_CHARS {
            continue;
        }
        let token = run.to_lowercase();
        if !out.contains(&token) {
            out.push(token);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use steward_protocol::{FactSource, MAX_FACT_KEY_LEN, MAX_TAG_LEN, MAX_TAGS};

    fn fact(key: &str, value: &str, confidence: f32) -> NewFact {
        NewFact {
            key: key.into(),
            value: value.into(),
            source: FactSource::User,
            confidence,
            expires_at_ms: None,
            provenance: Provenance::User { conversation: None },
        }
    }

    #[test]
    fn fact_limits_and_confidence() {
        assert!(super::fact(&fact("k", "", 0.0)).is_ok());
        assert!(super::fact(&fact("k", "v", 1.0)).is_ok());
        assert!(super::fact(&fact("", "v", 1.0)).is_err());
        assert!(super::fact(&fact(&"k".repeat(MAX_FACT_KEY_LEN), "v", 0.5)).is_ok());
        assert!(super::fact(&fact(&"k".repeat(MAX_FACT_KEY_LEN + 1), "v", 0.5)).is_err());
        assert!(
            super::fact(&fact("Home City", "v", 0.5)).is_err(),
            "the key rule"
        );
        for bad in [f32::NAN, f32::INFINITY, -0.1, 1.01] {
            assert!(super::fact(&fact("k", "v", bad)).is_err(), "{bad}");
        }
        let msg = super::fact(&fact("k", "sk-live-secret\0", 1.0))
            .unwrap_err()
            .to_string();
        assert!(!msg.contains("sk-live"), "{msg}");
    }

    #[test]
    fn tags_are_trimmed_deduplicated_and_bounded() {
        let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(tags(&t(&[" a ", "b", "A", "b "])).unwrap(), t(&["a", "b"]));
        assert!(tags(&t(&["  "])).is_err());
        assert!(tags(&t(&[&"x".repeat(MAX_TAG_LEN)])).is_ok());
        assert!(tags(&t(&[&"x".repeat(MAX_TAG_LEN + 1)])).is_err());
        assert!(tags(&t(&["two words"])).is_err(), "the tag rule");
        let many: Vec<String> = (0..=MAX_TAGS).map(|i| i.to_string()).collect();
        assert!(tags(&many).is_err());
        assert!(tags(&many[..MAX_TAGS]).is_ok());
    }

    #[test]
    fn query_tokens_keep_only_words() {
        assert_eq!(
            query_tokens(r#"Title:"Budget* NEAR(x AND y) 🦀 café_au-lait"#),
            ["title", "budget", "near", "x", "y", "café", "au", "lait"]
        );
        assert_eq!(
            query_tokens("What is THE plan?"),
            ["plan"],
            "stopwords dropped"
        );
        assert_eq!(query_tokens("AND OR NOT"), ["not"]);
        assert_eq!(
            query_tokens("to be or"),
            ["to", "be", "or"],
            "kept when nothing else"
        );
        assert!(query_tokens("\"*^():-+ 🦀").is_empty());
        assert_eq!(query_tokens("Rust rust RUST"), ["rust"]);
        let long = format!("{} ok", "a".repeat(MAX_QUERY_TOKEN_CHARS + 1));
        assert_eq!(query_tokens(&long), ["ok"]);
        let many: String = (0..100).map(|i| format!("w{i} ")).collect();
        let tokens = query_tokens(&many);
        assert_eq!(tokens.len(), MAX_QUERY_TOKENS);
        assert_eq!(tokens[0], "w0");
    }

    #[test]
    fn embeddings_must_be_finite_and_bounded() {
        assert!(embedding(&[0.1, 0.2]).is_ok());
        assert!(embedding(&[]).is_err());
        assert!(embedding(&[0.1, f32::NAN]).is_err());
        assert!(embedding(&vec![0.0; MAX_EMBEDDING_DIMS + 1]).is_err());
    }
}
