//! `GET /api/v1/memory/search?q=&kind=&limit=`: hybrid recall over everything the owner's
//! memory holds, each hit with its score, how well it matches (similarity and a label),
//! source and provenance. Rows under the relevance floor are not listed (`Memory::recall`).
//! Does not own ranking, the floor, the recall cap or the query's limits (`MemoryDesk::recall`).

use super::{desk_error, memory_of};
use crate::AppState;
use crate::auth::Authenticated;
use crate::body::parse_limit;
use crate::error::ApiError;
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use serde::Deserialize;
use serde_json::{Value, json};
use steward_core::memory_desk::RecallScope;
use steward_memory::{RecallHit, Strength};
use steward_protocol::MemoryKind;

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

/// Search everything remembered (hybrid recall: words and meaning), best first.
#[utoipa::path(
    get,
    path = "/api/v1/memory/search",
    operation_id = "search_memory",
    tag = "memory",
    params(
        ("q" = Option<String>, Query, description = "What to look for; empty finds nothing"),
        ("kind" = Option<String>, Query, description = "Only these kinds, comma-separated: fact, note, learning, read_later, intention"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 50, description = "At most this many (default 10)"),
    ),
    responses(
        (status = 200, description = "The hits", body = crate::apidoc::schemas::SearchHits),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 413, response = crate::apidoc::PayloadTooLarge),
        (status = 422, response = crate::apidoc::InvalidRequest),
        (status = 500, response = crate::apidoc::Internal),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn search(
    State(state): State<AppState>,
    Authenticated(who): Authenticated,
    query: Result<Query<SearchQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let memory = memory_of(&state)?;
    let q = query.q.unwrap_or_default();
    let scope = RecallScope {
        kinds: parse_kinds(query.kind.as_deref())?,
        tags: Vec::new(),
        limit: parse_limit(query.limit.as_deref(), DEFAULT_LIMIT, MAX_LIMIT)?,
        // The person's own search: quarantined rows are shown (and marked by provenance).
        quarantine: steward_protocol::Quarantine::ShowAll,
    };
    let recalled = memory.recall(&who, &q, scope).await.map_err(desk_error)?;
    let model = recalled.model.as_deref();
    let hits: Vec<Value> = recalled.hits.iter().map(|h| hit_json(h, model)).collect();
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
