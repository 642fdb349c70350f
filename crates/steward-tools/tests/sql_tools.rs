//! What the SQL tools do when allowed: output format, row cap, time limit, parameter
//! binding, preview (rolled back) versus run (committed), and a missing database.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::json;
use std::time::Duration;
use steward_protocol::Effect;
use steward_tools::SqlToolsConfig;
use support::{Fixture, args, call, ctx, execute, lines, query, registry};

const COUNT_TO_A_BILLION: &str = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c \
                                  WHERE x < 1000000000) SELECT count(*) FROM c";

#[tokio::test]
async fn query_output_is_a_tab_separated_table_that_values_cannot_forge() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let out = query(&r, "SELECT id, title, body FROM journal ORDER BY id").await;
    assert_eq!(
        lines(&out),
        [
            "id\ttitle\tbody",
            "1\tgroceries\tmilk\\neggs",
            "2\tideas\ttab\\there",
            "3\tempty\t\\N",
            "(3 rows)",
        ]
    );
    let out = query(&r, "SELECT 1.5 AS r, x'00ff' AS b, 'a\\N' AS t").await;
    assert_eq!(lines(&out)[1], "1.5\tx'00ff'\ta\\\\N");
}

#[tokio::test]
async fn rows_are_capped() {
    let f = Fixture::new();
    let r = registry(SqlToolsConfig {
        max_rows: 2,
        ..f.cfg()
    });
    let out = query(&r, "SELECT id FROM journal ORDER BY id").await;
    assert_eq!(lines(&out), ["id", "1", "2", "… truncated at 2 rows"]);
    let out = query(&r, "SELECT id FROM journal WHERE id > 1 ORDER BY id").await;
    assert_eq!(lines(&out), ["id", "2", "3", "(2 rows)"]);
}

#[tokio::test]
async fn long_statements_are_interrupted() {
    let f = Fixture::new();
    let r = registry(SqlToolsConfig {
        timeout: Duration::from_millis(200),
        ..f.cfg()
    });
    let out = query(&r, COUNT_TO_A_BILLION).await;
    assert!(!out.ok, "{}", out.output);
    assert!(
        out.output.contains("ran longer than 200 ms"),
        "{}",
        out.output
    );
    // A write that runs too long is stopped and rolled back, on preview and on run.
    let journal = f.table("journal");
    let sql = format!("UPDATE journal SET body = ({COUNT_TO_A_BILLION})");
    let out = execute(&r, &sql).await;
    assert!(
        out.output.contains("ran longer than 200 ms"),
        "{}",
        out.output
    );
    let tool = r.get("db_execute").unwrap();
    let preview = tool.preview(&args(&sql), &ctx()).await.unwrap();
    assert!(preview.unwrap_err().to_string().contains("ran longer"));
    assert_eq!(journal, f.table("journal"));
    // The connection's deadline is per call: the next call works.
    assert!(query(&r, "SELECT 1").await.ok);
}

#[tokio::test]
async fn params_are_bound_not_spliced() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let out = call(
        &r,
        "db_query",
        json!({"sql": "SELECT title FROM journal WHERE id = ?1", "params": [2]}),
    )
    .await;
    assert_eq!(lines(&out), ["title", "ideas", "(1 row)"]);
    let hostile = "x'); DROP TABLE journal; --";
    let out = call(
        &r,
        "db_execute",
        json!({"sql": "INSERT INTO tasks (title, done) VALUES (?, ?)", "params": [hostile, true]}),
    )
    .await;
    assert_eq!((out.ok, out.output.as_str()), (true, "affected 1 row"));
    let stored: (String, i64) = f
        .raw()
        .query_row(
            "SELECT title, done FROM tasks ORDER BY id DESC LIMIT 1",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!(stored, (hostile.to_owned(), 1));
    assert_eq!(f.count("journal"), 3);
}

#[tokio::test]
async fn param_mistakes_are_reported() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let before = f.table("tasks");
    let cases = [
        (
            "SELECT ?1, ?2",
            "UPDATE tasks SET title = ?1 WHERE id = ?2",
            json!([1]),
            "2 placeholder(s) but 1 param(s)",
        ),
        (
            "SELECT 1",
            "UPDATE tasks SET done = 1",
            json!([1]),
            "0 placeholder(s) but 1 param(s)",
        ),
        (
            "SELECT ?",
            "UPDATE tasks SET title = ?",
            json!([[1]]),
            "params[0] must be a string, number",
        ),
        (
            "SELECT ?",
            "UPDATE tasks SET title = ?",
            json!([{"a": 1}]),
            "params[0] must be a string",
        ),
        ("   ", "\n", json!([]), "argument `sql` is empty"),
    ];
    for (read, write, params, expected) in cases {
        for (tool, sql) in [("db_query", read), ("db_execute", write)] {
            let arguments = json!({"sql": sql, "params": params});
            let out = call(&r, tool, arguments.clone()).await;
            assert!(!out.ok, "{tool} accepted {arguments}");
            assert!(
                out.output.contains(expected),
                "{tool} {arguments}: {}",
                out.output
            );
        }
    }
    assert_eq!(f.table("tasks"), before);
    let out = query(&r, "SELEC 1").await;
    assert!(out.output.contains("syntax error"), "{}", out.output);
}

#[tokio::test]
async fn preview_counts_rows_and_changes_nothing_then_run_commits() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let sql = "UPDATE tasks SET done = 1 WHERE done = 0";
    let prepared = r.prepare_value("db_execute", args(sql)).unwrap();
    assert_eq!(prepared.effect, Effect::Write);
    let before = f.table("tasks");
    let preview = r.preview(&prepared, &ctx()).await;
    assert_eq!(preview, Some(Ok("will affect 2 rows".to_owned())));
    assert_eq!(before, f.table("tasks"), "the preview changed data");
    let out = r.run_prepared(&prepared, &ctx()).await;
    assert_eq!((out.ok, out.output.as_str()), (true, "affected 2 rows"));
    let done: i64 = f
        .raw()
        .query_row("SELECT count(*) FROM tasks WHERE done = 1", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(done, 3);
    let again = r.preview(&prepared, &ctx()).await;
    assert_eq!(again, Some(Ok("will affect 0 rows".to_owned())));
}

#[tokio::test]
async fn preview_of_a_refused_statement_is_the_refusal() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let tool = r.get("db_execute").unwrap();
    let preview = tool
        .preview(&args("DELETE FROM grants"), &ctx())
        .await
        .unwrap();
    let message = preview.unwrap_err().to_string();
    assert!(message.contains("access to table grants"), "{message}");
    // db_query has nothing to preview.
    let prepared = r.prepare_value("db_query", args("SELECT 1")).unwrap();
    assert_eq!(prepared.effect, Effect::Read);
    assert_eq!(r.preview(&prepared, &ctx()).await, None);
}

#[tokio::test]
async fn autoincrement_and_returning_work() {
    let f = Fixture::new();
    let r = registry(f.cfg());
    let out = execute(&r, "INSERT INTO tasks (title) VALUES ('new') RETURNING id").await;
    assert_eq!((out.ok, out.output.as_str()), (true, "affected 1 row"));
    assert_eq!(f.count("tasks"), 4);
    let out = execute(&r, "DELETE FROM journal WHERE id = 3").await;
    assert_eq!((out.ok, out.output.as_str()), (true, "affected 1 row"));
    assert_eq!(f.count("journal"), 2);
}

#[tokio::test]
async fn a_missing_database_is_not_created_and_its_path_not_shown() {
    let f = Fixture::new();
    let missing = f.dir.join("nope.db");
    let r = registry(SqlToolsConfig::new(&missing));
    for tool in ["db_query", "db_execute"] {
        let out = call(&r, tool, args("SELECT 1")).await;
        assert!(!out.ok);
        assert!(out.output.contains("could not be opened"), "{}", out.output);
        assert!(!out.output.contains("nope.db"), "{}", out.output);
    }
    assert!(!missing.exists());
}

#[test]
fn defaults_and_schemas() {
    let cfg = SqlToolsConfig::new("/x.db");
    assert_eq!(
        (cfg.max_rows, cfg.timeout, cfg.allow_ddl),
        (200, Duration::from_secs(5), false)
    );
    let tools = steward_tools::sql_tools(cfg);
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["db_query", "db_execute"]);
    assert_eq!(tools[0].effect(), Effect::Read);
    assert_eq!(tools[1].effect(), Effect::Write);
}
