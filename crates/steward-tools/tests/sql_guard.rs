//! The SQL battery: every way we know to reach a protected table or to write from the
//! wrong tool, each on a fresh database, each asserting the refusal AND that the
//! protected tables (and the trigger list) are byte-for-byte unchanged.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::json;
use steward_tools::{SqlToolsConfig, ToolOutcome, ToolRegistry};
use support::{Fixture, args, ctx, execute, query, registry};

#[track_caller]
fn assert_refused(out: &ToolOutcome, expected: &str, sql: &str) {
    assert!(!out.ok, "accepted {sql:?}: {}", out.output);
    assert!(
        out.output.contains(expected),
        "{sql:?}: expected {expected:?} in {:?}",
        out.output
    );
    // Errors say what was refused, never where the database lives.
    assert!(!out.output.contains("steward.db"), "{}", out.output);
}

/// db_execute must refuse on every path: the registry's prepare (validate), the tool's
/// preview and the tool's run called directly (as core does after an approval).
async fn assert_execute_refused(f: &Fixture, r: &ToolRegistry, sql: &str, expected: &str) {
    let before = f.protected_snapshot();
    let journal = f.table("journal");
    let tasks = f.table("tasks");
    assert_refused(&execute(r, sql).await, expected, sql);
    let tool = r.get("db_execute").unwrap();
    let preview = tool.preview(&args(sql), &ctx()).await.unwrap();
    let err = preview.expect_err(sql).to_string();
    assert!(err.contains(expected), "{sql:?} preview: {err}");
    let err = tool
        .run(args(sql), &ctx())
        .await
        .expect_err(sql)
        .to_string();
    assert!(err.contains(expected), "{sql:?} run: {err}");
    assert_eq!(
        before,
        f.protected_snapshot(),
        "{sql:?} changed a protected table"
    );
    assert_eq!(journal, f.table("journal"), "{sql:?} changed journal");
    assert_eq!(tasks, f.table("tasks"), "{sql:?} changed tasks");
}

async fn assert_query_refused(f: &Fixture, r: &ToolRegistry, sql: &str, expected: &str) {
    let before = f.protected_snapshot();
    let journal = f.table("journal");
    assert_refused(&query(r, sql).await, expected, sql);
    // Bypassing validate: the run path is guarded on its own.
    let tool = r.get("db_query").unwrap();
    let err = tool
        .run(args(sql), &ctx())
        .await
        .expect_err(sql)
        .to_string();
    assert!(err.contains(expected), "{sql:?} run: {err}");
    assert_eq!(before, f.protected_snapshot(), "{sql:?}");
    assert_eq!(journal, f.table("journal"), "{sql:?}");
}

const PROTECTED: &str = "is not allowed (it is Steward's own: conversations, approvals or memory";

#[tokio::test]
async fn protected_tables_are_unreadable_however_named() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let cases = [
        ("SELECT * FROM pending_actions", "pending_actions"),
        ("SELECT * FROM \"pending_actions\"", "pending_actions"),
        ("SELECT * FROM [grants]", "grants"),
        ("SELECT * FROM `scores`", "scores"),
        ("SELECT * FROM KV", "kv"),
        (
            "SELECT value FROM \"Kv\" WHERE key = 'secret_setting'",
            "kv",
        ),
        ("SELECT * FROM main.pending_actions", "pending_actions"),
        ("SELECT * FROM \"main\".\"grants\"", "grants"),
        ("SELECT * FROM pending_view", "pending_actions"),
        ("WITH x AS (SELECT * FROM grants) SELECT * FROM x", "grants"),
        ("SELECT count(*) FROM action_audit", "action_audit"),
        ("SELECT (SELECT value FROM kv LIMIT 1)", "kv"),
        (
            "SELECT title FROM journal WHERE id IN (SELECT rowid FROM scores)",
            "scores",
        ),
        (
            "SELECT n.title FROM journal n JOIN grants g ON g.id = n.title",
            "grants",
        ),
        (
            "SELECT * FROM journal UNION ALL SELECT id, tool, status FROM pending_actions",
            "pending_actions",
        ),
    ];
    for (sql, table) in cases {
        let expected = format!("access to table {table} {PROTECTED}");
        assert_query_refused(&f, &r, sql, &expected).await;
    }
    // The view is reached, and the refusal says through what.
    let out = query(&r, "SELECT * FROM pending_view").await;
    assert!(
        out.output.contains("reached through `pending_view`"),
        "{}",
        out.output
    );
    // temp.* does not hold them, and that must not open a hole either.
    let out = query(&r, "SELECT * FROM temp.pending_actions").await;
    assert!(!out.ok && !out.output.contains("a1"), "{}", out.output);
    // Ordinary tables and views still work.
    assert!(query(&r, "SELECT * FROM open_tasks").await.ok);
}

#[tokio::test]
async fn protected_tables_are_unwritable_however_reached() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let cases = [
        ("DELETE FROM pending_actions", "pending_actions"),
        ("UPDATE \"grants\" SET revoked = 1", "grants"),
        ("INSERT INTO [kv] VALUES ('k', 'v')", "kv"),
        ("DELETE FROM main.scores", "scores"),
        (
            "UPDATE `pending_actions` SET status = 'confirmed'",
            "pending_actions",
        ),
        (
            "UPDATE main.\"PENDING_ACTIONS\" SET status = 'confirmed'",
            "pending_actions",
        ),
        ("INSERT INTO tasks (title) SELECT id FROM grants", "grants"),
        (
            "WITH x AS (SELECT id FROM pending_actions) UPDATE tasks SET title = (SELECT id FROM x)",
            "pending_actions",
        ),
        ("REPLACE INTO kv VALUES ('secret_setting', 'x')", "kv"),
        // The trigger on journal writes action_audit: refused, via the trigger.
        (
            "INSERT INTO journal (title) VALUES ('harmless?')",
            "action_audit",
        ),
        // The foreign key cascades into scores.
        ("DELETE FROM projects WHERE id = 1", "scores"),
    ];
    for (sql, table) in cases {
        let expected = format!("access to table {table} {PROTECTED}");
        assert_execute_refused(&f, &r, sql, &expected).await;
    }
    let out = execute(&r, "INSERT INTO journal (title) VALUES ('x')").await;
    assert!(
        out.output.contains("reached through `journal_audit`"),
        "{}",
        out.output
    );
}

#[tokio::test]
async fn db_query_cannot_write() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let cases = [
        "INSERT INTO tasks (title) VALUES ('x')",
        "UPDATE tasks SET done = 1",
        "DELETE FROM tasks",
        "DELETE FROM journal WHERE id = 3",
        "CREATE TABLE extra (a)",
        "DROP TABLE tasks",
        "CREATE TEMP TABLE scratch (a)",
        "INSERT INTO tasks (title) VALUES ('x') RETURNING id",
    ];
    for sql in cases {
        let tasks = f.table("tasks");
        assert_query_refused(&f, &r, sql, "db_query only reads").await;
        assert_eq!(tasks, f.table("tasks"), "{sql}");
    }
    assert!(!f.object_exists("extra"));
}

#[tokio::test]
async fn attach_vacuum_and_pragmas_are_refused() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let other = f.dir.join("other.db");
    let copy = f.dir.join("copy.db");
    let attach = format!("ATTACH DATABASE '{}' AS o", other.display());
    let vacuum_into = format!("VACUUM INTO '{}'", copy.display());
    assert_query_refused(&f, &r, &attach, "ATTACH and DETACH are not allowed").await;
    assert_execute_refused(&f, &r, &attach, "ATTACH and DETACH are not allowed").await;
    assert_execute_refused(&f, &r, "DETACH DATABASE main", "ATTACH and DETACH").await;
    assert!(!other.exists(), "ATTACH created a file");
    assert_query_refused(&f, &r, &vacuum_into, "db_query only reads").await;
    assert_execute_refused(&f, &r, &vacuum_into, "the guard cannot check").await;
    assert!(!copy.exists(), "VACUUM INTO wrote a copy");
    assert_execute_refused(&f, &r, "VACUUM", "the guard cannot check").await;
    assert_query_refused(&f, &r, "VACUUM", "db_query only reads").await;
    for pragma in [
        "PRAGMA writable_schema = 1",
        "PRAGMA writable_schema = ON",
        "PRAGMA query_only = 0",
        "PRAGMA foreign_keys = OFF",
        "PRAGMA database_list",
        "PRAGMA table_info(grants)",
    ] {
        assert_query_refused(&f, &r, pragma, "PRAGMA").await;
        assert_execute_refused(&f, &r, pragma, "PRAGMA").await;
    }
    // The harmless read-only ones are there for schema discovery.
    let out = query(&r, "PRAGMA table_info(journal)").await;
    assert!(out.ok && out.output.contains("title"), "{}", out.output);
}

#[tokio::test]
async fn dangerous_functions_are_refused() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    // Compiled into the bundled SQLite: the guard must be what stops them.
    for function in ["load_extension", "LOAD_EXTENSION", "fts3_tokenizer"] {
        // SQLite hands the authorizer the canonical (lower-case) name.
        let expected = format!("the function {}() is not allowed", function.to_lowercase());
        let sql = format!("SELECT {function}('x')");
        assert_query_refused(&f, &r, &sql, &expected).await;
        let sql = format!("UPDATE tasks SET title = {function}('x')");
        assert_execute_refused(&f, &r, &sql, &expected).await;
    }
    // Shell-only functions are absent; they stay unusable (and listed in the guard in case
    // a future build adds them).
    for function in ["readfile", "writefile", "edit"] {
        let sql = format!("SELECT {function}('x')");
        assert_query_refused(&f, &r, &sql, "no such function").await;
    }
    assert!(query(&r, "SELECT upper(title) FROM journal").await.ok);
}

#[tokio::test]
async fn one_statement_per_call() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let one = "only one SQL statement per call";
    assert_query_refused(&f, &r, "SELECT 1; DELETE FROM journal", "refused").await;
    assert_query_refused(&f, &r, "SELECT 1; SELECT 2", one).await;
    assert_execute_refused(
        &f,
        &r,
        "UPDATE tasks SET done = 1; UPDATE tasks SET done = 0",
        one,
    )
    .await;
    // The second statement is checked too, so a protected one is named as such.
    assert_execute_refused(
        &f,
        &r,
        "UPDATE tasks SET done = 1; DELETE FROM grants",
        "grants",
    )
    .await;
    // A trailing comment or semicolon is not a second statement.
    assert!(query(&r, "SELECT 1; -- done").await.ok);
}

#[tokio::test]
async fn transaction_control_and_wrong_tool_are_refused() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    for sql in ["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT s", "RELEASE s"] {
        assert_execute_refused(&f, &r, sql, "transaction control").await;
    }
    assert_execute_refused(&f, &r, "SELECT * FROM journal", "use db_query to read").await;
    assert_execute_refused(
        &f,
        &r,
        "UPDATE sqlite_sequence SET seq = 100",
        "system table",
    )
    .await;
}

#[tokio::test]
async fn ddl_is_refused_by_default() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let off = "schema changes (CREATE, DROP, ALTER) are turned off";
    for sql in [
        "CREATE TABLE extra (a)",
        "CREATE TABLE copy AS SELECT * FROM tasks",
        "DROP TABLE tasks",
        "ALTER TABLE tasks ADD COLUMN due TEXT",
        "CREATE INDEX tasks_by_title ON tasks (title)",
        "CREATE VIEW v AS SELECT 1",
        "DROP VIEW open_tasks",
    ] {
        assert_execute_refused(&f, &r, sql, off).await;
    }
    assert!(!f.object_exists("extra") && f.object_exists("open_tasks"));
    assert_execute_refused(
        &f,
        &r,
        "CREATE TRIGGER t AFTER UPDATE ON tasks BEGIN SELECT 1; END",
        "CREATE TRIGGER is never allowed",
    )
    .await;
}

#[tokio::test]
async fn ddl_with_allow_ddl_still_spares_triggers_and_protected_tables() {
    let f = Fixture::new();
    let r = registry(SqlToolsConfig {
        allow_ddl: true,
        ..f.cfg()
    });
    let before = f.protected_snapshot();
    for sql in [
        "CREATE TABLE extra (a INTEGER PRIMARY KEY AUTOINCREMENT, b TEXT)",
        "ALTER TABLE tasks ADD COLUMN due TEXT",
        "CREATE INDEX tasks_by_title ON tasks (title)",
        "CREATE VIEW done_tasks AS SELECT * FROM tasks WHERE done = 1",
        "INSERT INTO extra (b) VALUES ('one')",
    ] {
        let out = execute(&r, sql).await;
        assert!(out.ok, "{sql}: {}", out.output);
    }
    for name in ["extra", "tasks_by_title", "done_tasks"] {
        assert!(f.object_exists(name), "{name} was not created");
    }
    assert_eq!(f.count("extra"), 1);
    let trigger = "CREATE TRIGGER sneaky AFTER INSERT ON extra BEGIN DELETE FROM grants; END";
    assert_execute_refused(&f, &r, trigger, "CREATE TRIGGER is never allowed").await;
    let temp = "CREATE TEMP TRIGGER sneaky AFTER INSERT ON extra BEGIN SELECT 1; END";
    assert_execute_refused(&f, &r, temp, "CREATE TRIGGER is never allowed").await;
    for (sql, table) in [
        ("DROP TABLE kv", "kv"),
        ("ALTER TABLE scores ADD COLUMN x", "scores"),
        ("ALTER TABLE grants RENAME TO old_grants", "grants"),
        (
            "CREATE INDEX sneaky ON pending_actions (status)",
            "pending_actions",
        ),
        ("DROP INDEX grants_by_tool", "grants"),
        (
            "DROP TRIGGER action_audit_no_delete",
            "action_audit_no_delete",
        ),
        ("CREATE TABLE grants_copy AS SELECT * FROM grants", "grants"),
        ("CREATE TABLE IF NOT EXISTS Grants (x)", "grants"),
    ] {
        let expected = format!("access to table {table} {PROTECTED}");
        assert_execute_refused(&f, &r, sql, &expected).await;
    }
    assert_execute_refused(&f, &r, "DROP TABLE sqlite_sequence", "system object").await;
    // SQLite does not resolve a view's body when it is created; the tool reads a new view
    // once under db_query's guard, so a view over a protected table is refused when made.
    let out = execute(&r, "CREATE VIEW leak AS SELECT * FROM grants").await;
    assert_refused(&out, "access to table grants", "CREATE VIEW leak");
    assert!(
        out.output.contains("reached through `leak`"),
        "{}",
        out.output
    );
    assert!(!f.object_exists("leak"));
    // A view that already exists (made outside Steward) is still refused when read.
    let read = query(&r, "SELECT * FROM pending_view").await;
    assert_refused(
        &read,
        "access to table pending_actions",
        "SELECT * FROM pending_view",
    );
    assert_eq!(before, f.protected_snapshot());
    assert!(!f.object_exists("grants_copy") && !f.object_exists("sneaky"));
}

#[tokio::test]
async fn revisions_go_through_the_same_guard() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let ok = r.prepare_value("db_execute", json!({"sql": "UPDATE tasks SET done = 1"}));
    assert!(ok.is_ok());
    let err = r
        .prepare_value(
            "db_execute",
            json!({"sql": "UPDATE grants SET revoked = 0"}),
        )
        .unwrap_err();
    assert!(
        !err.ok && err.output.contains("access to table grants"),
        "{}",
        err.output
    );
}

#[tokio::test]
async fn memory_tables_are_protected_including_run_time_vector_tables() {
    let fx = Fixture::new();
    let registry = registry(fx.cfg());
    let before = fx.protected_snapshot();
    for sql in [
        "SELECT * FROM facts",
        "SELECT * FROM memory_vec_384_1",
        "SELECT * FROM \"MEMORY_VEC_384_1\"",
        "SELECT * FROM main.memory_vec_384_1",
    ] {
        let out = support::call(&registry, "db_query", json!({ "sql": sql })).await;
        assert!(
            !out.ok && out.output.contains("is not allowed"),
            "{sql}: {}",
            out.output
        );
    }
    let out = support::call(
        &registry,
        "db_execute",
        json!({ "sql": "UPDATE facts SET source = 'user'" }),
    )
    .await;
    assert!(!out.ok, "{}", out.output);
    let out = support::call(
        &registry,
        "db_execute",
        json!({ "sql": "DELETE FROM memory_vec_384_1" }),
    )
    .await;
    assert!(!out.ok, "{}", out.output);
    assert_eq!(fx.protected_snapshot(), before);
    assert_eq!(fx.count("memory_vec_384_1"), 1);
}

/// A messaging surface's edge records: reading them would leak platform ids, writing them
/// could replay or drop an update, move a chat, or forge the trace behind a button press.
#[tokio::test]
async fn edge_tables_are_unreadable_and_unwritable() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    for (sql, table) in [
        ("SELECT * FROM edge_updates", "edge_updates"),
        ("SELECT chat FROM \"EDGE_CHATS\"", "edge_chats"),
        ("SELECT trace_id FROM main.edge_messages", "edge_messages"),
    ] {
        let expected = format!("access to table {table} {PROTECTED}");
        assert_query_refused(&f, &r, sql, &expected).await;
    }
    for (sql, table) in [
        ("DELETE FROM edge_updates", "edge_updates"),
        ("UPDATE edge_chats SET conversation_id = 'c2'", "edge_chats"),
        (
            "UPDATE edge_messages SET trace_id = 'forged' WHERE message = '7'",
            "edge_messages",
        ),
        (
            "INSERT INTO edge_messages (surface, chat, message, trace_id) \
             VALUES ('telegram', '42', '8', 'forged')",
            "edge_messages",
        ),
    ] {
        let expected = format!("access to table {table} {PROTECTED}");
        assert_execute_refused(&f, &r, sql, &expected).await;
    }
    assert_eq!(f.count("edge_messages"), 1);
}
