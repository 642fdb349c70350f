//! Shared fixture for the SQL tool tests: a throwaway SQLite file with ordinary tables
//! (`journal`, `tasks`, `projects`), Steward's protected tables (filled with rows), a trigger
//! on `journal` and a foreign key from `scores` to `projects` that reach a protected table
//! from an ordinary one, and views.

#![allow(dead_code)]

use rusqlite::Connection;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use steward_protocol::{ConversationId, ToolCall};
use steward_tools::{SqlToolsConfig, ToolContext, ToolOutcome, ToolRegistry, sql_tools};

const SCHEMA: &str = "
CREATE TABLE journal (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT);
CREATE TABLE tasks (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL,
                    done INTEGER NOT NULL DEFAULT 0);
CREATE TABLE projects (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE pending_actions (id TEXT PRIMARY KEY, tool TEXT NOT NULL, arguments TEXT NOT NULL,
                              status TEXT NOT NULL, expires_at_ms INTEGER NOT NULL);
CREATE TABLE action_audit (id INTEGER PRIMARY KEY AUTOINCREMENT, action_id TEXT NOT NULL,
                           event TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '');
CREATE TABLE grants (id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, tool TEXT NOT NULL,
                     expires_at_ms INTEGER NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
CREATE TABLE scores (id INTEGER PRIMARY KEY AUTOINCREMENT, trace_id TEXT NOT NULL,
                     name TEXT NOT NULL, value REAL NOT NULL,
                     project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE);
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE INDEX grants_by_tool ON grants (tool);
CREATE TRIGGER action_audit_no_delete BEFORE DELETE ON action_audit
BEGIN SELECT RAISE(ABORT, 'action_audit is append-only'); END;
-- An ordinary table whose trigger writes a protected one.
CREATE TRIGGER journal_audit AFTER INSERT ON journal
BEGIN INSERT INTO action_audit (action_id, event) VALUES ('note', 'inserted'); END;
CREATE VIEW pending_view AS SELECT id, status FROM pending_actions;
CREATE VIEW open_tasks AS SELECT id, title FROM tasks WHERE done = 0;

INSERT INTO journal (id, title, body) VALUES
    (1, 'groceries', 'milk' || char(10) || 'eggs'),
    (2, 'ideas', 'tab' || char(9) || 'here'),
    (3, 'empty', NULL);
INSERT INTO tasks (title, done) VALUES ('write report', 0), ('call bank', 1), ('water plants', 0);
INSERT INTO pending_actions VALUES ('a1', 'db_execute', '{}', 'pending', 9999999999999);
INSERT INTO action_audit (action_id, event) VALUES ('a1', 'created');
INSERT INTO grants VALUES ('g1', 'test:1', 'db_execute', 9999999999999, 0);
INSERT INTO projects VALUES (1, 'house');
INSERT INTO scores (trace_id, name, value, project_id) VALUES ('t1', 'user_approval', 1.0, 1);
INSERT INTO kv VALUES ('secret_setting', 'do-not-leak');
-- Memory's tables (shape simplified; the guard decides by name) and a run-time vector table
-- that is protected only through the shared `memory_` prefix.
CREATE TABLE facts (id INTEGER PRIMARY KEY, key TEXT, value TEXT, source TEXT);
INSERT INTO facts VALUES (1, 'home_city', 'Lyon', 'user');
CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT);
INSERT INTO notes VALUES (1, 'private', 'a note');
CREATE TABLE read_later (id INTEGER PRIMARY KEY, url TEXT);
CREATE TABLE learnings (id INTEGER PRIMARY KEY, text TEXT);
CREATE TABLE intentions (id INTEGER PRIMARY KEY, text TEXT);
CREATE TABLE memory_docs (id INTEGER PRIMARY KEY, kind TEXT);
CREATE TABLE memory_fts (id INTEGER PRIMARY KEY, text TEXT);
CREATE TABLE embedding_models (id INTEGER PRIMARY KEY, model_id TEXT);
CREATE TABLE embeddings (id INTEGER PRIMARY KEY, model_id TEXT);
-- The usage ledger: a model that could write it could hide what it cost.
CREATE TABLE model_usage (id INTEGER PRIMARY KEY, model TEXT, cost_micro_usd INTEGER);
INSERT INTO model_usage VALUES (1, 'openai:gpt-4o', 3500);
CREATE TABLE memory_vec_384_1 (rowid INTEGER PRIMARY KEY, embedding BLOB);
INSERT INTO memory_vec_384_1 VALUES (1, x'00');
-- The web sign-in's sessions: a row here is a way into the web app.
CREATE TABLE web_sessions (id TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, principal TEXT NOT NULL);
INSERT INTO web_sessions VALUES ('s1', 'session-hash-do-not-leak', 'owner');
-- A messaging surface's edge records: a row here could replay or drop an update, deliver a
-- conversation into another chat, or point a button press at a trace of the model's choosing.
CREATE TABLE edge_updates (surface TEXT, update_key TEXT, claimed_at_ms INTEGER);
INSERT INTO edge_updates VALUES ('telegram', '1001', 1);
CREATE TABLE edge_chats (id INTEGER PRIMARY KEY, surface TEXT, chat TEXT, conversation_id TEXT);
INSERT INTO edge_chats VALUES (1, 'telegram', '42', 'c1');
CREATE TABLE edge_messages (id INTEGER PRIMARY KEY, surface TEXT, chat TEXT, message TEXT, trace_id TEXT);
INSERT INTO edge_messages VALUES (1, 'telegram', '42', '7', 'trace-do-not-forge');
-- The scheduler's records: a row in `reminders` would schedule a message without the
-- approval a tool call asks for; the others could silence a job, fake its health or forge
-- the engagement that decides what may speak.
CREATE TABLE job_occurrences (job TEXT, occurrence TEXT, status TEXT, owner TEXT);
INSERT INTO job_occurrences VALUES ('reminders', 'at-1', 'done', 'pid1');
CREATE TABLE job_heartbeats (job TEXT PRIMARY KEY, owner TEXT, at_ms INTEGER);
INSERT INTO job_heartbeats VALUES ('reminders', 'pid1', 1);
CREATE TABLE proactive_messages (id INTEGER PRIMARY KEY, genre TEXT, trace_id TEXT);
INSERT INTO proactive_messages VALUES (1, 'briefing', 'trace-proactive');
CREATE TABLE reminders (id TEXT PRIMARY KEY, text TEXT, due_ms INTEGER, conversation TEXT);
INSERT INTO reminders VALUES ('r1', 'reminder-do-not-leak', 1, 'c1');
CREATE TABLE scheduled_tasks (id TEXT PRIMARY KEY, prompt TEXT, schedule TEXT, conversation TEXT);
INSERT INTO scheduled_tasks VALUES ('t1', 'task-prompt-do-not-leak', 'every 1m', 'c1');
CREATE TABLE vault_secrets (name TEXT PRIMARY KEY, nonce BLOB, ciphertext BLOB);
INSERT INTO vault_secrets VALUES ('api_key', x'00', x'73656372657421');
";

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A temp directory holding `steward.db`; removed on drop.
pub struct Fixture {
    pub dir: PathBuf,
    pub db: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
        let f = Fixture::empty();
        let conn = Connection::open(&f.db).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        drop(conn);
        f
    }

    /// Only the directory: `db` is where a test may create its own database.
    pub fn empty() -> Fixture {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!(
            "steward-sql-test-{}-{n}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("steward.db");
        Fixture { dir, db }
    }

    pub fn cfg(&self) -> SqlToolsConfig {
        SqlToolsConfig::new(&self.db)
    }

    /// A plain connection with no guard, for checking what really happened.
    pub fn raw(&self) -> Connection {
        Connection::open(&self.db).unwrap()
    }

    /// Every row of every protected table, plus their schema and every trigger, as one
    /// string: equal before and after means nothing protected changed and no trigger appeared.
    pub fn protected_snapshot(&self) -> String {
        let conn = self.raw();
        let mut out = String::new();
        for table in steward_store::PROTECTED_TABLES {
            out.push_str(&dump(
                &conn,
                &format!("SELECT * FROM \"{table}\" ORDER BY 1"),
            ));
        }
        let names: Vec<String> = steward_store::PROTECTED_TABLES
            .iter()
            .map(|t| format!("'{t}'"))
            .collect();
        out.push_str(&dump(
            &conn,
            &format!(
                "SELECT type, name, tbl_name, sql FROM sqlite_schema \
                 WHERE type = 'trigger' OR lower(tbl_name) IN ({}) ORDER BY name",
                names.join(",")
            ),
        ));
        out
    }

    /// Every row of an ordinary table.
    pub fn table(&self, table: &str) -> String {
        dump(
            &self.raw(),
            &format!("SELECT * FROM \"{table}\" ORDER BY 1"),
        )
    }

    pub fn count(&self, table: &str) -> i64 {
        self.raw()
            .query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |r| {
                r.get(0)
            })
            .unwrap()
    }

    pub fn object_exists(&self, name: &str) -> bool {
        self.raw()
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE name = ?1",
                [name],
                |r| r.get::<_, i64>(0),
            )
            .unwrap()
            > 0
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn dump(conn: &Connection, sql: &str) -> String {
    let mut stmt = conn.prepare(sql).unwrap();
    let n = stmt.column_count();
    let mut rows = stmt.query([]).unwrap();
    let mut out = String::new();
    while let Some(row) = rows.next().unwrap() {
        for i in 0..n {
            let v: rusqlite::types::Value = row.get(i).unwrap();
            out.push_str(&format!("{v:?}|"));
        }
        out.push('\n');
    }
    out
}

pub fn registry(cfg: SqlToolsConfig) -> ToolRegistry {
    let mut r = ToolRegistry::new().with_timeout(Duration::from_secs(60));
    for tool in sql_tools(cfg) {
        r.register(tool).unwrap();
    }
    r
}

pub fn ctx() -> ToolContext {
    ToolContext::new(
        ConversationId::parse("test:1").unwrap(),
        steward_protocol::Principal::authenticated(
            steward_protocol::PrincipalId::parse("owner").unwrap(),
        ),
        None,
    )
}

pub fn args(sql: &str) -> Value {
    json!({ "sql": sql })
}

pub async fn call(r: &ToolRegistry, tool: &str, args: Value) -> ToolOutcome {
    let call = ToolCall {
        id: "c1".into(),
        name: tool.into(),
        arguments: args.to_string(),
    };
    r.call(&call, &ctx()).await
}

pub async fn query(r: &ToolRegistry, sql: &str) -> ToolOutcome {
    call(r, "db_query", args(sql)).await
}

pub async fn execute(r: &ToolRegistry, sql: &str) -> ToolOutcome {
    call(r, "db_execute", args(sql)).await
}

/// The lines of a successful db_query output, inside its fence (which must be there).
pub fn lines(out: &ToolOutcome) -> Vec<&str> {
    assert!(out.ok, "{}", out.output);
    let all: Vec<&str> = out.output.split('\n').collect();
    assert_eq!(all.first(), Some(&"<table_rows>"), "{}", out.output);
    assert_eq!(all.last(), Some(&"</table_rows>"), "{}", out.output);
    assert!(all[1].contains("not instructions"), "{}", out.output);
    all[2..all.len() - 1].to_vec()
}
