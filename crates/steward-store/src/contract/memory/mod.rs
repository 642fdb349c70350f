//! Contract cases for `MemoryStore`, written against the port only. Every case works for a
//! fresh user (`fresh_user`), so cases share one store and the suite can run twice on one
//! database; the only global operations (the expiry sweep, the backfill list, the message log)
//! are checked on the case's own rows.

mod collections;
mod facts;
mod marks;
mod retention;
mod search;
mod vectors;

pub use collections::*;
pub use facts::*;
pub use marks::*;
pub use retention::*;
pub use search::*;
pub use vectors::*;

use super::ok;
use crate::{MemoryFilter, MemoryStore, NewFact, NewNote, Store};
use std::sync::Arc;
use steward_protocol::{FactSource, MemoryKind, MemoryRef, Note, Provenance};

/// An arbitrary fixed time: cases pass their own clock.
pub(crate) const T0: i64 = 1_700_000_000_000;

/// Every memory case that needs only a borrowed store.
pub async fn run_memory(store: &dyn Store) {
    fact_insert_update_unchanged(store).await;
    user_fact_trust_table(store).await;
    fact_listing_and_deletion(store).await;
    fact_input_limits(store).await;
    notes_crud(store).await;
    notes_tags_and_time_filters(store).await;
    read_later_tags(store).await;
    learnings_recurrence_and_top_order(store).await;
    intentions_nudges_capped(store).await;
    read_later_marked_read_and_deleted_per_user(store).await;
    learnings_deleted_per_user(store).await;
    intentions_closed_reopened_and_deleted_per_user(store).await;
    get_items_in_order(store).await;
    fts_ranks_obvious_match_first_across_kinds(store).await;
    fts_filters_apply(store).await;
    fts_hostile_queries_never_error(store).await;
    deletes_and_edits_update_both_indexes(store).await;
    vector_search_nearest_by_cosine(store).await;
    vector_filters_apply(store).await;
    vector_dims_and_models(store).await;
    missing_embeddings_shrinks_after_put(store).await;
    retention_by_expiry(store).await;
    retention_by_prefix(store).await;
    messages_since_reads_all_conversations(store).await;
}

/// The memory cases that spawn tasks.
pub async fn run_memory_shared(store: Arc<dyn Store>) {
    user_fact_survives_concurrent_extraction(Arc::clone(&store)).await;
    concurrent_mixed_upserts_end_as_user(store).await;
}

/// A user no other case (or earlier run) uses.
pub(crate) fn fresh_user(case: &str) -> String {
    format!("contract:{case}:{}", uuid::Uuid::new_v4().simple())
}

pub(crate) fn provenance_for(source: FactSource) -> Provenance {
    match source {
        FactSource::User => Provenance::User { conversation: None },
        FactSource::Extracted => Provenance::Assistant { conversation: None },
        FactSource::Reflection => Provenance::Reflection,
    }
}

pub(crate) fn new_fact(key: &str, value: &str, source: FactSource) -> NewFact {
    NewFact {
        key: key.into(),
        value: value.into(),
        source,
        confidence: 0.875,
        expires_at_ms: None,
        provenance: provenance_for(source),
    }
}

pub(crate) fn new_note(title: &str, body: &str, tags: &[&str]) -> NewNote {
    NewNote {
        title: title.into(),
        body: body.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        provenance: Provenance::User { conversation: None },
    }
}

pub(crate) fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

pub(crate) fn kinds(kinds: &[MemoryKind]) -> MemoryFilter {
    MemoryFilter {
        kinds: kinds.to_vec(),
        ..MemoryFilter::default()
    }
}

pub(crate) async fn note(store: &dyn Store, case: &str, user: &str, new: NewNote, at: i64) -> Note {
    ok(case, "insert_note", store.insert_note(user, &new, at).await)
}

pub(crate) fn note_ref(note: &Note) -> MemoryRef {
    MemoryRef {
        kind: MemoryKind::Note,
        id: note.id,
    }
}

pub(crate) fn fact_ref(id: i64) -> MemoryRef {
    MemoryRef {
        kind: MemoryKind::Fact,
        id,
    }
}

/// Refs only, best first.
pub(crate) fn refs(hits: &[(MemoryRef, f64)]) -> Vec<MemoryRef> {
    hits.iter().map(|(r, _)| *r).collect()
}

pub(crate) async fn fts(
    store: &dyn Store,
    case: &str,
    user: &str,
    query: &str,
    filter: &MemoryFilter,
) -> Vec<MemoryRef> {
    let hits = ok(
        case,
        "fts_search",
        store.fts_search(user, query, filter, 50).await,
    );
    refs(&hits)
}

// `MemoryStore` must be reachable through `Store` trait objects.
const _: fn(&dyn Store) -> &dyn MemoryStore = |s| s;
