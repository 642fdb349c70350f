//! `GET /api/v1/memory/search?q=&kind=&limit=`: hybrid recall over everything the owner's
//! memory holds, each hit with its score, how well it matches (similarity and a label),
//! source and provenance. Rows under the relevance floor are not listed (`Memory::recall`).
//! Does not own ranking, the floor or the recall cap (`Memory::recall` caps at its recall_max).

use super::{OWNER, memory_error, memory_of};
use crate::AppState;
use crate::body::parse_limit;
use crate::error::ApiError;
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use serde::Deserialize;
use serde_json::{Value, json};
use steward_memory::{RecallHit, RecallOptions, Strength};
use steward_protocol::MemoryKind;
use steward_store::MemoryFilter;

/// Longest query, in bytes.
pub const MAX_QUERY_BYTES: usize = 1_000;
const DEFAULT_LIMIT: usize = 10;
const MAX_LIMIT: usize = 50;
const VALID_KINDS: &str = "fact, note, learning, read_later, intention";

#[derive(Deserialize)]
pub(crate) struct SearchQuery {
    #[serde(default)]
    q: Option<String>,
    /// One kind or several, comma-separated.
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    limit: Option<String>,
}

fn parse_kinds(raw: Option<&str>) -> Result<Vec<MemoryKind>, ApiError> {
    let Some(raw) = raw else {
        return Ok(Vec::new());
    };
    let mut kinds = Vec::new();
    for part in raw.split(',').map(str::trim) {
        let kind = MemoryKind::parse(part)
            .ok_or_else(|| ApiError::bad_request(format!("invalid kind; valid: {VALID_KINDS}")))?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(kinds)
}

/// One hit. `score` orders the hits (rank fusion, not a measure of fit); `similarity` (0..1,
/// null for a row found by its words only) and `match` (`strong`, `possible`, `weak`,
/// `words`, or `unrated` for a model whose scale was not measured) say how well it matches.
fn hit_json(hit: &RecallHit, model: Option<&str>) -> Value {
    let item = &hit.item;
    json!({
        "kind": item.r#ref.kind,
        "id": item.r#ref.id,
        "score": hit.score,
        "similarity": hit.similarity,
        "match": Strength::of(hit.similarity, model).as_str(),
        "title": item.title,
        "text": item.text,
        "tags": item.tags,
        "source": item.source,
        "provenance": item.provenance,
        "created_at_ms": item.created_at_ms,
        "updated_at_ms": item.updated_at_ms,
    })
}

pub(crate) async fn search(
    State(state): State<AppState>,
    query: Result<Query<SearchQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let memory = memory_of(&state)?;
    let q = query.q.unwrap_or_default();
    if q.len() > MAX_QUERY_BYTES {
        return Err(ApiError::too_large(format!(
            "q is longer than {MAX_QUERY_BYTES} bytes"
        )));
    }
    if q.trim().is_empty() {
        return Err(ApiError::bad_request("q must not be empty"));
    }
    let opts = RecallOptions {
        filter: MemoryFilter {
            kinds: parse_kinds(query.kind.as_deref())?,
            ..MemoryFilter::default()
        },
        limit: parse_limit(query.limit.as_deref(), DEFAULT_LIMIT, MAX_LIMIT)?,
        // The owner's own search: quarantined rows are shown (and marked by provenance).
        quarantine: steward_protocol::Quarantine::ShowAll,
        ..RecallOptions::default()
    };
    let hits = memory
        .recall(OWNER, &q, &opts)
        .await
        .map_err(memory_error)?;
    let model = memory.embedder_id();
    let hits: Vec<Value> = hits
        .iter()
        .take(opts.limit)
        .map(|h| hit_json(h, model))
        .collect();
    Ok(Json(json!({"hits": hits})))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_as_a_comma_list() {
        assert!(parse_kinds(None).unwrap().is_empty());
        assert_eq!(
            parse_kinds(Some("note, fact,note")).unwrap(),
            [MemoryKind::Note, MemoryKind::Fact]
        );
        assert!(parse_kinds(Some("notes")).is_err());
        assert!(parse_kinds(Some("")).is_err());
    }
}
