//! For the API document tests: a server with every part enabled (memory over a real
//! in-memory store, a fake approval desk, conversations read side and scheduler, a stand-in
//! MCP service)
//! and the sample request of each documented operation, with the status it must get.

use crate::desk::{FakeDesk, action, audit_step, feed, finished};
use crate::support::{Fake, Server, TURN_ID, config, final_event, start_full};
use axum::Router;
use serde_json::{Value, json};
use std::sync::Arc;
use steward_core::{ConversationDesk, Deleted, DeskError, History, Resolution};
use steward_memory::{Memory, MemoryConfig};
use steward_protocol::{
    ActionStatus, ConversationId, ConversationTitle, Decision, FactSource, Message, Provenance,
    Surface, ToolCall, TurnEvent, TurnId,
};
use steward_store::{ConversationSummary, HistoryItem, NewFact, NewNote};

/// The pending action the fake desk holds.
pub const ACTION: &str = "a1";
/// An action the fake desk holds as confirmed and executed.
pub const DECIDED: &str = "a2";

/// Ids of the seeded memory rows.
pub struct Seeded {
    /// A tainted note (confirmed, then edited).
    pub note: i64,
    /// A note to delete.
    pub doomed_note: i64,
    /// A read-later item to mark read, and one to delete.
    pub read_later: i64,
    pub doomed_read_later: i64,
    /// A learning to delete.
    pub learning: i64,
    /// A reminder to mark done, and one to delete.
    pub reminder: i64,
    pub doomed_reminder: i64,
}

pub struct Documented {
    pub server: Server,
    pub seeded: Seeded,
}

/// The server the document tests walk. `fake` answers turns.
pub async fn start_documented(fake: Arc<Fake>) -> Documented {
    let store = steward_store::open(&steward_store::StoreConfig::in_memory()).unwrap();
    let seeded = seed(store.as_ref()).await;
    let memory = Arc::new(Memory::new(store.clone(), None, MemoryConfig::default()));
    let mut cfg = config();
    cfg.memory = Some(Arc::new(steward_core::MemoryService::new(memory)));
    cfg.conversations = Some(Arc::new(Conversations));
    cfg.settings = Some(crate::settings::FakeSettings::new());
    cfg.status = Some(crate::status::source(false));
    cfg.jobs = Some(crate::jobs_fake::FakeJobs::new());
    cfg.sign_in = Some(steward_server::WebSignIn {
        sessions: store.clone(),
        secrets: store.clone(),
    });
    // A stand-in for rmcp's router: the document calls `/mcp` opaque, so any answer does.
    cfg.mcp = Some(Router::new().fallback(|| async { axum::Json(json!({})) }));
    let desk = FakeDesk::new(
        vec![
            action(ACTION, ActionStatus::Pending),
            finished(DECIDED, ActionStatus::Executed, "sent"),
        ],
        decide,
    );
    desk.with_trail(
        ACTION,
        vec![audit_step("created", "owner", Surface::Http, 1_000)],
    );
    let mut revise = audit_step("revise", "owner", Surface::Web, 1_100);
    revise.detail = Some(json!({"to": "carol@example.com"}));
    desk.with_trail(
        DECIDED,
        vec![
            audit_step("created", "owner", Surface::Http, 1_000),
            revise,
            audit_step("confirm", "owner", Surface::Http, 1_200),
            audit_step("running", "owner", Surface::Http, 1_201),
            audit_step("executed", "owner", Surface::Http, 1_300),
        ],
    );
    Documented {
        server: start_full(fake, desk, cfg).await,
        seeded,
    }
}

/// Confirm of revision 0 runs (with a follow-up turn); a later revision is stale; cancel and
/// revise apply.
fn decide(id: &str, decision: &Decision) -> Result<Resolution, steward_core::ApprovalError> {
    Ok(match decision {
        Decision::Confirm { revision: 0 } => Resolution::Applied {
            action: finished(id, ActionStatus::Executed, "sent"),
            follow_up: Some(feed(vec![
                TurnEvent::Started {
                    conversation_id: ConversationId::parse("c1").unwrap(),
                    turn_id: TurnId::parse(TURN_ID).unwrap(),
                },
                final_event("Sent it."),
            ])),
        },
        Decision::Confirm { .. } => Resolution::Stale {
            action: steward_protocol::PendingAction {
                revision: 1,
                ..action(id, ActionStatus::Pending)
            },
        },
        Decision::Cancel => Resolution::Applied {
            action: finished(id, ActionStatus::Cancelled, "cancelled by the owner"),
            follow_up: None,
        },
        Decision::Revise { .. } => Resolution::Applied {
            action: steward_protocol::PendingAction {
                revision: 1,
                ..action(id, ActionStatus::Pending)
            },
            follow_up: None,
        },
    })
}

async fn seed(store: &dyn steward_store::Store) -> Seeded {
    let tainted = Provenance::Tainted {
        conversation: Some(ConversationId::parse("c1").unwrap()),
        sources: vec!["fetch_url".into()],
    };
    for (key, value, provenance) in [
        ("dentist", "Dr Alvarez", tainted.clone()),
        (
            "old.key",
            "gone soon",
            Provenance::User { conversation: None },
        ),
    ] {
        let fact = NewFact {
            key: key.into(),
            value: value.into(),
            source: FactSource::Extracted,
            confidence: 0.8,
            expires_at_ms: None,
            provenance,
        };
        store.upsert_fact("owner", &fact, 1_000).await.unwrap();
    }
    let note = |title: &str, provenance: Provenance| NewNote {
        title: title.into(),
        body: "Paris in spring".into(),
        tags: vec!["travel".into()],
        provenance,
    };
    let kept = store
        .insert_note("owner", &note("Trip", tainted), 1_000)
        .await
        .unwrap();
    let doomed = store
        .insert_note(
            "owner",
            &note("Old", Provenance::User { conversation: None }),
            1_000,
        )
        .await
        .unwrap();
    let tags = vec!["rust".to_owned()];
    let read_later = |title: &'static str| {
        let tags = tags.clone();
        async move {
            store
                .add_read_later("owner", "https://r.example/", title, &tags, 1_000)
                .await
                .unwrap()
                .id
        }
    };
    let reminder = |text: &'static str| async move {
        store
            .add_intention("owner", text, Some(9_000), 1_000)
            .await
            .unwrap()
            .id
    };
    Seeded {
        note: kept.id,
        doomed_note: doomed.id,
        read_later: read_later("<b>Ownership</b>").await,
        doomed_read_later: read_later("Old link").await,
        learning: store
            .bump_learning("owner", "Prefers short answers", 1_000)
            .await
            .unwrap()
            .id,
        reminder: reminder("Call the plumber").await,
        doomed_reminder: reminder("Old errand").await,
    }
}

/// One conversation, `c1`, with a user message and an assistant message that called a tool.
struct Conversations;

fn summary(title: Option<&str>) -> ConversationSummary {
    ConversationSummary {
        id: ConversationId::parse("c1").unwrap(),
        created_at_ms: 1_000,
        updated_at_ms: 2_000,
        message_count: 2,
        title: title.map(|t| ConversationTitle::parse(t).unwrap()),
    }
}

#[async_trait::async_trait]
impl ConversationDesk for Conversations {
    async fn list(&self, _limit: usize) -> Result<Vec<ConversationSummary>, DeskError> {
        Ok(vec![summary(Some("Trip")), summary(None)])
    }

    async fn history(
        &self,
        conversation: &ConversationId,
        _before: Option<u64>,
        _limit: usize,
    ) -> Result<Option<History>, DeskError> {
        if conversation.as_str() != "c1" {
            return Ok(None);
        }
        let call = ToolCall {
            id: "call-1".into(),
            name: "clock".into(),
            arguments: "{}".into(),
        };
        let items = vec![
            HistoryItem {
                seq: 1,
                at_ms: 1_000,
                message: Message::user("what time is it?"),
            },
            HistoryItem {
                seq: 2,
                at_ms: 1_500,
                message: Message::assistant("", vec![call.clone()]),
            },
            HistoryItem {
                seq: 3,
                at_ms: 1_600,
                message: Message::tool_result(&call, "12:00"),
            },
        ];
        Ok(Some(History {
            summary: summary(None),
            items,
        }))
    }

    async fn rename(
        &self,
        conversation: &ConversationId,
        title: Option<ConversationTitle>,
    ) -> Result<Option<ConversationSummary>, DeskError> {
        Ok(
            (conversation.as_str() == "c1").then(|| ConversationSummary {
                title,
                ..summary(None)
            }),
        )
    }

    async fn delete(&self, _conversation: &ConversationId) -> Result<Deleted, DeskError> {
        Ok(Deleted::Done)
    }
}

/// A request to send for an operation and the status it must get.
pub struct Sample {
    pub path: String,
    pub body: Option<Value>,
    pub headers: Vec<(&'static str, &'static str)>,
    /// None: any answer but the router's fallbacks (an operation without a sample here).
    pub want: Option<u16>,
}

impl Sample {
    fn new(path: impl Into<String>, want: u16) -> Self {
        Sample {
            path: path.into(),
            body: None,
            headers: Vec::new(),
            want: Some(want),
        }
    }

    fn body(mut self, body: Value) -> Self {
        self.body = Some(body);
        self
    }

    fn header(mut self, name: &'static str, value: &'static str) -> Self {
        self.headers.push((name, value));
        self
    }
}

/// The samples of one documented operation (`template` as the document writes it). An
/// operation added without samples here still gets one: every path parameter `x1`, the body
/// `{}`, and any status but the fallbacks'.
pub fn samples(method: &str, template: &str, seeded: &Seeded) -> Vec<Sample> {
    let note = seeded.note;
    fn s(path: impl Into<String>, want: u16) -> Sample {
        Sample::new(path, want)
    }
    match (method, template) {
        ("get", "/health") => vec![s("/health", 200)],
        ("get", "/") => vec![s("/", 200)],
        ("get", "/app/{file}") => vec![
            s("/app/main.js", 200),
            s("/app/app.css", 200),
            s("/app/no-such-file.js", 404),
        ],
        ("get", "/app/{dir}/{file}") => vec![
            s("/app/chat/thread.js", 200),
            s("/app/vendor/README.md", 200),
            s("/app/vendor/no-such-file.js", 404),
        ],
        ("get", "/api/v1/openapi.json") => vec![s(template, 200)],
        ("post", "/api/v1/messages") => {
            let msg = json!({"conversation_id": "c1", "text": "hi"});
            vec![
                s(template, 200).body(msg.clone()),
                s(template, 200)
                    .body(msg)
                    .header("accept", "text/event-stream"),
                s(template, 400).body(json!({"conversation_id": "../x", "text": "hi"})),
                s(template, 422).body(json!({"text": 5})),
            ]
        }
        // No feed in this server (its subscription cannot be made outside steward-core).
        ("get", "/api/v1/events") => vec![
            s(template, 503),
            s("/api/v1/events?conversation=%2E%2E%2F", 400),
        ],
        ("get", "/api/v1/conversations") => {
            vec![s(template, 200), s("/api/v1/conversations?limit=0", 400)]
        }
        ("get", "/api/v1/conversations/{id}") => vec![
            s("/api/v1/conversations/c1?limit=2", 200),
            s("/api/v1/conversations/nope", 404),
        ],
        ("patch", "/api/v1/conversations/{id}") => vec![
            s("/api/v1/conversations/c1", 200).body(json!({"title": "Trip"})),
            s("/api/v1/conversations/c1", 200).body(json!({"title": null})),
        ],
        ("delete", "/api/v1/conversations/{id}") => vec![s("/api/v1/conversations/c1", 204)],
        ("post", "/api/v1/conversations/{id}/cancel") => {
            vec![s("/api/v1/conversations/c1/cancel", 200)]
        }
        ("get", "/api/v1/approvals") => vec![
            s(template, 200),
            s("/api/v1/approvals?status=all&limit=5", 200),
            s("/api/v1/approvals?status=nope", 400),
        ],
        ("get", "/api/v1/approvals/{id}") => vec![
            s(format!("/api/v1/approvals/{ACTION}"), 200),
            s(format!("/api/v1/approvals/{DECIDED}"), 200),
            s("/api/v1/approvals/missing", 404),
        ],
        ("get", "/api/v1/approvals/count") => vec![s(template, 200)],
        ("post", "/api/v1/approvals/{id}/confirm") => {
            let p = format!("/api/v1/approvals/{ACTION}/confirm");
            vec![
                s(&p, 200).body(json!({"revision": 0})),
                s(&p, 409).body(json!({"revision": 4})),
                s(&p, 400).body(json!({})),
            ]
        }
        ("post", "/api/v1/approvals/{id}/cancel") => {
            vec![s(format!("/api/v1/approvals/{ACTION}/cancel"), 200)]
        }
        ("post", "/api/v1/approvals/{id}/revise") => vec![
            s(format!("/api/v1/approvals/{ACTION}/revise"), 200)
                .body(json!({"arguments": {"to": "carol@example.com"}})),
        ],
        // The fake desk knows no edits.
        ("post", "/api/v1/approvals/{id}/edit") => {
            vec![s(format!("/api/v1/approvals/{ACTION}/edit"), 404)]
        }
        ("get", "/api/v1/grants") => vec![s(template, 200)],
        ("post", "/api/v1/grants") => vec![
            s(template, 201)
                .body(json!({"conversation_id": "c1", "tool": "send_email", "hours": 2})),
            s(template, 400)
                .body(json!({"conversation_id": "c1", "tool": "send_email", "hours": 999})),
        ],
        ("delete", "/api/v1/grants/{id}") => vec![s("/api/v1/grants/g-1", 200)],
        ("get", "/api/v1/facts") => vec![s("/api/v1/facts?limit=10&offset=0", 200)],
        ("put", "/api/v1/facts/{key}") => vec![
            s("/api/v1/facts/home.city", 200).body(json!({"value": "Paris"})),
            s("/api/v1/facts/Home", 400).body(json!({"value": "Paris"})),
        ],
        ("delete", "/api/v1/facts/{key}") => vec![s("/api/v1/facts/old.key", 204)],
        ("post", "/api/v1/facts/{key}/confirm") => vec![
            s("/api/v1/facts/dentist/confirm", 200),
            s("/api/v1/facts/nobody/confirm", 404),
        ],
        ("get", "/api/v1/notes") => vec![s("/api/v1/notes?tag=travel", 200)],
        ("post", "/api/v1/notes") => vec![
            s(template, 201)
                .body(json!({"title": "Idea", "body": "Try the bakery", "tags": ["food"]})),
        ],
        ("patch", "/api/v1/notes/{id}") => {
            vec![s(format!("/api/v1/notes/{note}"), 200).body(json!({"body": "Paris in May"}))]
        }
        ("delete", "/api/v1/notes/{id}") => vec![
            s(format!("/api/v1/notes/{}", seeded.doomed_note), 204),
            s("/api/v1/notes/0", 400),
        ],
        ("post", "/api/v1/notes/{id}/confirm") => {
            vec![s(format!("/api/v1/notes/{note}/confirm"), 200)]
        }
        ("get", "/api/v1/memory/search") => vec![
            s("/api/v1/memory/search?q=Paris&kind=note,fact&limit=5", 200),
            s("/api/v1/memory/search?q=x&kind=nope", 400),
        ],
        ("get", "/api/v1/read-later") => vec![
            s(template, 200),
            s("/api/v1/read-later?tag=rust&include_read=true&limit=5", 200),
            s("/api/v1/read-later?include_read=yes", 400),
        ],
        ("patch", "/api/v1/read-later/{id}") => {
            let p = format!("/api/v1/read-later/{}", seeded.read_later);
            vec![
                s(&p, 200).body(json!({"read": true})),
                s(&p, 422).body(json!({"read": "yes"})),
                s("/api/v1/read-later/999999", 404).body(json!({"read": true})),
            ]
        }
        ("delete", "/api/v1/read-later/{id}") => vec![
            s(
                format!("/api/v1/read-later/{}", seeded.doomed_read_later),
                204,
            ),
            s("/api/v1/read-later/0", 400),
        ],
        ("get", "/api/v1/learnings") => vec![
            s("/api/v1/learnings?limit=5", 200),
            s("/api/v1/learnings?limit=0", 400),
        ],
        ("delete", "/api/v1/learnings/{id}") => vec![
            s(format!("/api/v1/learnings/{}", seeded.learning), 204),
            s(format!("/api/v1/learnings/{}", seeded.learning), 404),
        ],
        ("get", "/api/v1/reminders") => vec![
            s("/api/v1/reminders?include_done=true&limit=5", 200),
            s("/api/v1/reminders?limit=1001", 400),
        ],
        ("patch", "/api/v1/reminders/{id}") => {
            let p = format!("/api/v1/reminders/{}", seeded.reminder);
            vec![
                s(&p, 200).body(json!({"done": true})),
                s(&p, 422).body(json!({"done": true, "user": "bob"})),
            ]
        }
        ("delete", "/api/v1/reminders/{id}") => vec![
            s(format!("/api/v1/reminders/{}", seeded.doomed_reminder), 204),
            s("/api/v1/reminders/999999", 404),
        ],
        ("post", "/v1/chat/completions") => {
            let req = json!({"model": "steward", "messages": [{"role": "user", "content": "hi"}]});
            let mut stream = req.clone();
            stream["stream"] = json!(true);
            vec![
                s(template, 200).body(req),
                s(template, 200).body(stream),
                s(template, 400).body(json!({"messages": [], "n": 2})),
            ]
        }
        ("get", "/v1/models") => vec![s(template, 200)],
        ("get", "/v1/models/{id}") => {
            vec![s("/v1/models/steward", 200), s("/v1/models/gpt-4", 404)]
        }
        ("post", "/api/v1/session") => vec![
            s(template, 200).body(json!({"token": crate::support::TOKEN})),
            s(template, 401).body(json!({"password": "not the password at all"})),
            s(template, 400).body(json!({"password": "a", "token": "b"})),
            s(template, 400).body(json!({})),
        ],
        ("get", "/api/v1/session") => vec![s(template, 200)],
        // The bearer authenticates these samples: there is no session to end.
        ("delete", "/api/v1/session") => vec![s(template, 400)],
        ("get", "/api/v1/sessions") => vec![s(template, 200)],
        ("delete", "/api/v1/sessions/{id}") => vec![
            s("/api/v1/sessions/6f1c2a52-8d0e-4b7a-9c1d-2e3f4a5b6c7d", 404),
            s("/api/v1/sessions/not-a-uuid", 404),
        ],
        ("get", "/api/v1/status") => vec![
            s(template, 200),
            s("/api/v1/status?days=7", 200),
            s("/api/v1/status?days=0", 400),
            s("/api/v1/status?days=abc", 400),
        ],
        ("get", "/api/v1/jobs") => vec![s(template, 200)],
        ("post", "/api/v1/jobs/{name}/run") => vec![
            s("/api/v1/jobs/briefing/run", 200),
            s("/api/v1/jobs/nope/run", 404),
            s("/api/v1/jobs/tasks/run", 409),
            s("/api/v1/jobs/Briefing/run", 400),
        ],
        ("get", "/api/v1/scheduled/reminders") => vec![
            s(template, 200),
            s(
                "/api/v1/scheduled/reminders?include_closed=true&limit=5",
                200,
            ),
            s("/api/v1/scheduled/reminders?limit=1001", 400),
        ],
        ("delete", "/api/v1/scheduled/reminders/{id}") => vec![
            s("/api/v1/scheduled/reminders/r1", 204),
            s("/api/v1/scheduled/reminders/r2", 409),
            s("/api/v1/scheduled/reminders/rm", 404),
            s("/api/v1/scheduled/reminders/..%2Fr1", 400),
        ],
        ("get", "/api/v1/scheduled/tasks") => vec![
            s(template, 200),
            s(
                "/api/v1/scheduled/tasks?include_cancelled=true&limit=5",
                200,
            ),
            s("/api/v1/scheduled/tasks?include_cancelled=yes", 400),
        ],
        ("delete", "/api/v1/scheduled/tasks/{id}") => vec![
            s("/api/v1/scheduled/tasks/t1", 204),
            s("/api/v1/scheduled/tasks/t2", 409),
            s("/api/v1/scheduled/tasks/unknown", 404),
        ],
        ("get", "/api/v1/settings") => vec![s(template, 200)],
        ("put", "/api/v1/settings/{key}") => vec![
            s("/api/v1/settings/agent.max_rounds", 200).body(json!({"value": "3"})),
            s("/api/v1/settings/agent.max_rounds", 200).body(json!({"value": 4})),
            s("/api/v1/settings/agent.max_rounds", 422).body(json!({"value": "0"})),
            s("/api/v1/settings/agent.max_rounds", 422).body(json!({"value": null})),
            s("/api/v1/settings/timezone", 409).body(json!({"value": "Europe/Paris"})),
            s("/api/v1/settings/no.such", 404).body(json!({"value": "1"})),
            s("/api/v1/settings/store.broken", 503).body(json!({"value": "1"})),
            s("/api/v1/settings/agent.max_rounds", 413).body(json!({"value": "9".repeat(300)})),
        ],
        ("delete", "/api/v1/settings/{key}") => vec![
            s("/api/v1/settings/agent.max_rounds", 200),
            s("/api/v1/settings/no.such", 404),
        ],
        (_, "/mcp") => vec![s(template, 200)],
        _ => vec![Sample {
            path: generic_path(template),
            body: Some(json!({})),
            headers: Vec::new(),
            want: None,
        }],
    }
}

/// `template` with each `{param}` replaced by `x1`.
pub fn generic_path(template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        match rest[open..].find('}') {
            Some(close) => {
                out.push_str("x1");
                rest = &rest[open + close + 1..];
            }
            None => {
                rest = &rest[open..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}
