//! The desk over a real in-memory store: rows are per principal (another's is not found),
//! input is refused by one rule in one set of words before anything is stored, and the
//! author of a note decides its provenance.

use super::*;
use std::sync::Arc;
use steward_memory::{Memory, MemoryConfig};
use steward_protocol::{FactSource, PrincipalId, Provenance};
use steward_store::{NewFact, NewNote, Store, StoreConfig};

fn principal(id: &str) -> Principal {
    Principal::authenticated(PrincipalId::parse(id).unwrap())
}

fn desk() -> (MemoryService, Arc<dyn Store>) {
    let store = steward_store::open(&StoreConfig::in_memory()).unwrap();
    let memory = Arc::new(Memory::new(store.clone(), None, MemoryConfig::default()));
    (MemoryService::new(memory), store)
}

fn draft(title: &str, body: &str, tags: &[&str]) -> NoteDraft {
    NoteDraft {
        title: title.to_owned(),
        body: body.to_owned(),
        tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        author: NoteAuthor::Person,
    }
}

fn tainted() -> Provenance {
    Provenance::Tainted {
        conversation: Some(ConversationId::parse("c1").unwrap()),
        sources: vec!["fetch_url".into()],
    }
}

#[tokio::test]
async fn another_principals_note_is_not_found_by_any_operation() {
    let (desk, store) = desk();
    let (ann, bob) = (principal("ann"), principal("bob"));
    let theirs = desk
        .save_note(&bob, draft("bob's", "the garage code", &[]))
        .await
        .unwrap();
    let not_found = Err(MemoryDeskError::NotFound(Missing::Note));
    assert_eq!(desk.note(&ann, theirs.id).await, not_found);
    let change = NoteChange {
        title: Some("mine now".into()),
        ..NoteChange::default()
    };
    assert_eq!(desk.edit_note(&ann, theirs.id, change).await, not_found);
    assert_eq!(
        desk.delete_note(&ann, theirs.id).await,
        Err(MemoryDeskError::NotFound(Missing::Note))
    );
    assert!(desk.notes(&ann, &[], 10).await.unwrap().is_empty());
    let found = desk
        .recall(
            &ann,
            "garage",
            RecallScope {
                kinds: Vec::new(),
                tags: Vec::new(),
                limit: 10,
                quarantine: Quarantine::ShowAll,
            },
        )
        .await
        .unwrap();
    assert!(found.hits.is_empty(), "{:?}", found.hits);
    let kept = store.get_note(theirs.id).await.unwrap().unwrap();
    assert_eq!(kept.title, "bob's");
    // And bob sees his own.
    assert_eq!(desk.note(&bob, theirs.id).await.unwrap().title, "bob's");
    assert_eq!(desk.notes(&bob, &[], 10).await.unwrap().len(), 1);
}

#[tokio::test]
async fn input_is_refused_by_one_rule_before_anything_is_stored() {
    let (desk, store) = desk();
    let ann = principal("ann");
    let long_title = "t".repeat(MAX_NOTE_TITLE_BYTES + 1);
    let cases = [
        (draft("  ", "b", &[]), "title must not be empty".to_owned()),
        (draft("t", "\n", &[]), "body must not be empty".to_owned()),
        (
            draft(&long_title, "b", &[]),
            format!("title is longer than {MAX_NOTE_TITLE_BYTES} bytes"),
        ),
        (
            draft("t", "b", &["two words"]),
            steward_protocol::ValueError::rule_message(steward_protocol::ValueKind::Tag),
        ),
    ];
    for (bad, words) in cases {
        let err = desk.save_note(&ann, bad).await.unwrap_err().to_string();
        assert!(err.starts_with(&words), "{err:?} is not {words:?}");
    }
    let refused = desk.set_fact(&ann, "Home City", "Lyon").await.unwrap_err();
    assert!(
        refused.to_string().starts_with("invalid fact key"),
        "{refused}"
    );
    let long = "v".repeat(MAX_FACT_VALUE_BYTES + 1);
    assert_eq!(
        desk.set_fact(&ann, "home.city", &long).await,
        Err(MemoryDeskError::TooLong {
            field: "value",
            max: MAX_FACT_VALUE_BYTES
        })
    );
    // The store's own check (NUL) is a refusal the caller can fix, not a storage failure.
    let nul = desk.save_note(&ann, draft("t", "b\0", &[])).await;
    assert!(matches!(nul, Err(MemoryDeskError::Refused(_))), "{nul:?}");
    let nothing = desk.edit_note(&ann, 1, NoteChange::default()).await;
    assert!(
        matches!(nothing, Err(MemoryDeskError::Invalid(_))),
        "{nothing:?}"
    );
    assert!(store.list_facts("ann", 10, 0).await.unwrap().is_empty());
    assert!(desk.notes(&ann, &[], 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn the_author_decides_a_notes_provenance_and_tags_are_folded() {
    let (desk, _store) = desk();
    let ann = principal("ann");
    let typed = desk
        .save_note(&ann, draft(" Boiler ", "Vaillant", &[" House ", "house"]))
        .await
        .unwrap();
    assert_eq!(typed.title, "Boiler");
    assert_eq!(typed.tags, ["house"]);
    assert_eq!(typed.provenance, Provenance::User { conversation: None });
    let mcp = ConversationId::parse("mcp").unwrap();
    let mut by_client = draft("From a client", "body", &[]);
    by_client.author = NoteAuthor::Client {
        conversation: mcp.clone(),
    };
    let written = desk.save_note(&ann, by_client).await.unwrap();
    assert_eq!(
        written.provenance,
        Provenance::Assistant {
            conversation: Some(mcp)
        }
    );
    let house = desk.notes(&ann, &["HOUSE".into()], 10).await.unwrap();
    assert_eq!(house.len(), 1);
}

#[tokio::test]
async fn facts_are_the_persons_word_and_forgetting_a_missing_one_is_not_found() {
    let (desk, store) = desk();
    let ann = principal("ann");
    let fact = desk.set_fact(&ann, "home.city", "  Lyon ").await.unwrap();
    assert_eq!(
        (fact.value.as_str(), fact.source),
        ("Lyon", FactSource::User)
    );
    assert!(store.get_fact("bob", "home.city").await.unwrap().is_none());
    let bob = principal("bob");
    assert_eq!(
        desk.forget_fact(&bob, "home.city").await,
        Err(MemoryDeskError::NotFound(Missing::Fact))
    );
    desk.forget_fact(&ann, "home.city").await.unwrap();
    assert!(desk.facts(&ann, 10, 0).await.unwrap().is_empty());
}

#[tokio::test]
async fn confirming_takes_only_the_principals_own_unconfirmed_rows() {
    let (desk, store) = desk();
    let (ann, bob) = (principal("ann"), principal("bob"));
    let fact = NewFact {
        key: "dentist".into(),
        value: "Dr Alvarez".into(),
        source: FactSource::Extracted,
        confidence: 0.8,
        expires_at_ms: None,
        provenance: tainted(),
    };
    store.upsert_fact("ann", &fact, 1_000).await.unwrap();
    let note = NewNote {
        title: "t".into(),
        body: "b".into(),
        tags: vec![],
        provenance: tainted(),
    };
    let note = store.insert_note("ann", &note, 1_000).await.unwrap();
    let note_row = Unconfirmed::Row(MemoryRef {
        kind: MemoryKind::Note,
        id: note.id,
    });
    let key = || Unconfirmed::FactKey("dentist".into());
    assert_eq!(
        desk.confirm(&bob, key()).await,
        Err(MemoryDeskError::NotFound(Missing::UnconfirmedFact))
    );
    assert_eq!(
        desk.confirm(&bob, note_row.clone()).await,
        Err(MemoryDeskError::NotFound(Missing::UnconfirmedNote))
    );
    desk.confirm(&ann, key()).await.unwrap();
    desk.confirm(&ann, note_row.clone()).await.unwrap();
    // Confirmed already: nothing left to confirm.
    assert!(desk.confirm(&ann, key()).await.is_err());
    assert!(desk.confirm(&ann, note_row).await.is_err());
    let learning = Unconfirmed::Row(MemoryRef {
        kind: MemoryKind::Learning,
        id: 1,
    });
    assert!(matches!(
        desk.confirm(&ann, learning).await,
        Err(MemoryDeskError::Invalid(_))
    ));
    let f = store.get_fact("ann", "dentist").await.unwrap().unwrap();
    assert!(matches!(f.provenance, Provenance::Assistant { .. }));
}
