//! Blocking SQLite work for the SQL tools: opening a hardened connection per call, preparing
//! ONE statement under the guard, the default-deny write check, binding, running, and
//! turning SQLite errors into messages for the model. Call only from a blocking thread.
//!
//! Owns: connection settings, transactions (preview = rolled back, run = committed), the
//! time limit. Does not own: the authorizer's decisions (`guard`) or output format (`render`).

use super::SqlToolsConfig;
use super::guard::{self, Mode, SeenLog};
use super::render;
use crate::ToolError;
use rusqlite::config::DbConfig;
use rusqlite::limits::Limit;
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, ErrorCode, OpenFlags, Statement};
use std::time::Instant;

/// Largest string or blob a statement may build or return: bounds memory per call.
const MAX_VALUE_BYTES: i32 = 16 * 1024 * 1024;
/// How many VM instructions run between deadline checks.
const PROGRESS_OPS: i32 = 1000;

/// The parsed arguments of either tool.
#[derive(Debug, Clone)]
pub(crate) struct SqlArgs {
    pub sql: String,
    pub params: Vec<SqlValue>,
}

/// A connection for one call: no URI parsing of our own, never creates the file, defensive
/// mode (no writable_schema tricks), no attached databases, bounded value sizes, and a
/// progress handler that stops any statement after `cfg.timeout`.
fn open(cfg: &SqlToolsConfig, read_only: bool) -> Result<Connection, ToolError> {
    let access = if read_only {
        OpenFlags::SQLITE_OPEN_READ_ONLY
    } else {
        OpenFlags::SQLITE_OPEN_READ_WRITE
    };
    let conn = Connection::open_with_flags(&cfg.db_path, access | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| {
            // rusqlite puts the file path in open errors: log it, do not show it.
            tracing::warn!(error = %e, "SQL tool could not open the database");
            ToolError::Failed("the database could not be opened".to_owned())
        })?;
    let setup = || -> rusqlite::Result<()> {
        conn.busy_timeout(cfg.timeout)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
        conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
        conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)?;
        if read_only {
            conn.pragma_update(None, "query_only", true)?;
        }
        let deadline = Instant::now() + cfg.timeout;
        conn.progress_handler(PROGRESS_OPS, Some(move || Instant::now() >= deadline))?;
        Ok(())
    };
    setup().map_err(|e| {
        tracing::warn!(error = %e, "SQL tool could not configure its connection");
        ToolError::Failed("the database could not be prepared for this call".to_owned())
    })?;
    Ok(conn)
}

fn arm(conn: &Connection, mode: Mode) -> Result<SeenLog, ToolError> {
    guard::install(conn, mode).map_err(|e| {
        tracing::warn!(error = %e, "SQL guard could not be installed");
        ToolError::Failed("the SQL guard could not be installed; nothing ran".to_owned())
    })
}

/// Prepare exactly one statement under the guard and bind its parameters. Beyond the
/// authorizer, the statement must match its tool: `db_query` statements must be read-only
/// by SQLite's own account, and a `db_execute` statement that writes must have shown the
/// guard a write it allowed (VACUUM INTO, for one, writes without asking): default-deny.
fn prepare<'c>(
    conn: &'c Connection,
    log: &SeenLog,
    mode: Mode,
    args: &SqlArgs,
) -> Result<Statement<'c>, ToolError> {
    let mut stmt = conn
        .prepare(&args.sql)
        .map_err(|e| sql_error(e, log, None))?;
    let checked_write = guard::seen(log).checked_write;
    match mode {
        Mode::Query if !stmt.readonly() => {
            return Err(refused(
                "db_query only reads; use db_execute to change data",
            ));
        }
        Mode::Execute { .. } if stmt.readonly() => {
            return Err(refused(
                "db_execute is for statements that change data; use db_query to read",
            ));
        }
        Mode::Execute { .. } if !checked_write => {
            return Err(refused(
                "this statement writes in a way the guard cannot check (e.g. VACUUM)",
            ));
        }
        _ => {}
    }
    let expected = stmt.parameter_count();
    if expected != args.params.len() {
        return Err(ToolError::InvalidArguments(format!(
            "the statement has {expected} placeholder(s) but {} param(s) were given",
            args.params.len()
        )));
    }
    for (i, value) in args.params.iter().enumerate() {
        stmt.raw_bind_parameter(i + 1, value)
            .map_err(|e| sql_error(e, log, None))?;
    }
    Ok(stmt)
}

fn refused(reason: &str) -> ToolError {
    ToolError::InvalidArguments(format!("refused: {reason}"))
}

/// Check a statement without running it, on a read-only scratch connection: what
/// `validate` uses, so a human's revision goes through the same guard.
pub(crate) fn check(cfg: &SqlToolsConfig, mode: Mode, args: &SqlArgs) -> Result<(), ToolError> {
    let conn = open(cfg, true)?;
    let log = arm(&conn, mode)?;
    prepare(&conn, &log, mode, args).map(drop)
}

/// Run a `db_query` statement: at most `max_rows` rows as text.
pub(crate) fn query(cfg: &SqlToolsConfig, args: &SqlArgs) -> Result<String, ToolError> {
    let conn = open(cfg, true)?;
    let log = arm(&conn, Mode::Query)?;
    let mut stmt = prepare(&conn, &log, Mode::Query, args)?;
    let names: Vec<String> = stmt.column_names().into_iter().map(String::from).collect();
    let mut lines = vec![render::header(&names)];
    let mut truncated_at = None;
    let mut rows = stmt.raw_query();
    while let Some(row) = rows.next().map_err(|e| sql_error(e, &log, Some(cfg)))? {
        if lines.len() > cfg.max_rows {
            truncated_at = Some(cfg.max_rows);
            break;
        }
        let mut cells = Vec::with_capacity(names.len());
        for i in 0..names.len() {
            let value = row.get_ref(i).map_err(|e| sql_error(e, &log, Some(cfg)))?;
            cells.push(render::cell(value));
        }
        lines.push(cells.join("\t"));
    }
    lines.push(render::footer(lines.len() - 1, truncated_at));
    Ok(lines.join("\n"))
}

/// Run a `db_execute` statement in its own transaction; commit only if `commit`, otherwise
/// roll back (the preview). Returns the number of rows the statement changed.
/// How `execute` ends its transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finish {
    /// A dry run for the card: always rolled back.
    Preview,
    /// Commit — unless `expected` is set and the statement changed a different number of
    /// rows (the owner approved another effect): then roll back and say what it would do.
    Commit { expected: Option<u64> },
}

pub(crate) fn execute(
    cfg: &SqlToolsConfig,
    args: &SqlArgs,
    finish: Finish,
) -> Result<u64, ToolError> {
    let mode = Mode::Execute {
        allow_ddl: cfg.allow_ddl,
    };
    let conn = open(cfg, false)?;
    conn.execute_batch("BEGIN IMMEDIATE")
        .map_err(|e| sql_error(e, &SeenLog::default(), Some(cfg)))?;
    let before = own_objects(&conn);
    let views_before = view_names(&conn);
    let log = arm(&conn, mode)?;
    let mut result = run_in_transaction(&conn, &log, mode, args, cfg);
    let disarmed =
        guard::remove(&conn).and_then(|()| conn.progress_handler(0, None::<fn() -> bool>));
    if result.is_ok() && guard::seen(&log).checked_ddl {
        // The authorizer never sees the new name of a rename: compare Steward's own objects
        // before and after, so no schema change can create, replace or remove one.
        let after = own_objects(&conn);
        if before.is_err() || after.is_err() || before.as_ref().ok() != after.as_ref().ok() {
            result = Err(refused(
                "this schema change would create or alter one of Steward's own tables (a rename \
                 to a protected name?); nothing was changed",
            ));
        } else if let Some(reason) = new_view_refusal(&conn, views_before.as_deref()) {
            result = Err(refused(&reason));
        }
    }
    if let (Ok(changed), Finish::Commit { expected: Some(n) }) = (&result, finish)
        && *changed != n
    {
        result = Err(ToolError::EffectChanged {
            preview: super::preview_text(*changed),
        });
    }
    let end = if matches!(finish, Finish::Commit { .. }) && result.is_ok() {
        "COMMIT"
    } else {
        "ROLLBACK"
    };
    let ended = disarmed.and_then(|()| conn.execute_batch(end));
    let changed = result?;
    if let Err(e) = ended {
        tracing::warn!(error = %e, step = end, "SQL tool could not end its transaction");
        return Err(ToolError::Failed(
            "the change could not be committed; nothing was changed".to_owned(),
        ));
    }
    Ok(changed)
}

fn view_names(conn: &Connection) -> Option<Vec<String>> {
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'view'")
        .ok()?;
    let names = stmt.query_map([], |r| r.get(0)).ok()?;
    names.collect::<Result<Vec<String>, _>>().ok()
}

/// SQLite does not authorize a view's body when the view is created, only when it is
/// read: a view new in this statement is read once (no rows) under `db_query`'s guard, so a
/// view over Steward's tables is refused when it is made, not only when it is used.
fn new_view_refusal(conn: &Connection, before: Option<&[String]>) -> Option<String> {
    let (Some(before), Some(after)) = (before, view_names(conn)) else {
        return Some("the schema could not be checked; nothing was changed".to_owned());
    };
    for view in after.iter().filter(|v| !before.contains(v)) {
        let log = match guard::install(conn, Mode::Query) {
            Ok(log) => log,
            Err(_) => return Some("the SQL guard could not be installed".to_owned()),
        };
        let sql = format!("SELECT * FROM \"{}\" LIMIT 0", view.replace('"', "\"\""));
        let prepared = conn.prepare(&sql).map(drop);
        let refusal = guard::seen(&log).refusal.clone();
        let _ = guard::remove(conn);
        if let Some(reason) = refusal {
            return Some(format!(
                "the view would read what db_query may not: {reason}"
            ));
        }
        if prepared.is_err() {
            return Some("the new view cannot be read; nothing was changed".to_owned());
        }
    }
    None
}

/// Steward's own schema objects as they stand: (type, name, table, sql), sorted.
fn own_objects(conn: &Connection) -> rusqlite::Result<Vec<(String, String, String, String)>> {
    let mut stmt = conn.prepare(
        "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema ORDER BY type, name",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    let mut out = Vec::new();
    for row in rows {
        let row: (String, String, String, String) = row?;
        if guard::is_protected(&row.1) || guard::is_protected(&row.2) {
            out.push(row);
        }
    }
    Ok(out)
}

fn run_in_transaction(
    conn: &Connection,
    log: &SeenLog,
    mode: Mode,
    args: &SqlArgs,
    cfg: &SqlToolsConfig,
) -> Result<u64, ToolError> {
    let mut stmt = prepare(conn, log, mode, args)?;
    let mut rows = stmt.raw_query();
    // RETURNING rows are drained, not shown: the result is the count.
    while rows
        .next()
        .map_err(|e| without_row_text(sql_error(e, log, Some(cfg))))?
        .is_some()
    {}
    drop(rows);
    Ok(conn.changes())
}

/// An SQLite error as the model should see it: the guard's reason when it refused,
/// otherwise SQLite's own short message (syntax errors, unknown columns) — never paths.
/// SQLite messages raised while a statement runs that never quote stored values.
const FIXED_RUN_ERRORS: &[&str] = &[
    "SQLite: UNIQUE constraint failed",
    "SQLite: NOT NULL constraint failed",
    "SQLite: CHECK constraint failed",
    "SQLite: FOREIGN KEY constraint failed",
    "SQLite: PRIMARY KEY constraint failed",
    "SQLite: datatype mismatch",
    "SQLite: integer overflow",
];

/// `db_execute`'s output is trusted (a count), so an error raised while its statement runs
/// must not carry row text either (some SQLite messages quote values, e.g. a bad JSON path
/// taken from a row): anything but the fixed forms becomes a generic message.
fn without_row_text(e: ToolError) -> ToolError {
    match e {
        ToolError::InvalidArguments(m)
            if m.starts_with("SQLite: ") && !FIXED_RUN_ERRORS.iter().any(|f| m.starts_with(f)) =>
        {
            tracing::debug!(error = %m, "db_execute failed while running");
            ToolError::InvalidArguments(
                "SQLite refused the statement while running it; nothing was changed".to_owned(),
            )
        }
        other => other,
    }
}

fn sql_error(e: rusqlite::Error, log: &SeenLog, cfg: Option<&SqlToolsConfig>) -> ToolError {
    if let Some(reason) = guard::seen(log).refusal.clone() {
        return refused(&reason);
    }
    match &e {
        rusqlite::Error::MultipleStatement => {
            refused("only one SQL statement per call is allowed (remove the `;` and what follows)")
        }
        rusqlite::Error::SqliteFailure(failure, message) => match failure.code {
            ErrorCode::OperationInterrupted => ToolError::Failed(format!(
                "the statement ran longer than {} ms and was stopped; narrow it (WHERE, LIMIT)",
                cfg.map(|c| c.timeout.as_millis()).unwrap_or_default()
            )),
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
                ToolError::Failed("the database is busy; try again shortly".to_owned())
            }
            ErrorCode::AuthorizationForStatementDenied => refused("this statement is not allowed"),
            ErrorCode::ReadOnly => refused("the database is read-only for this tool"),
            ErrorCode::TooBig => {
                ToolError::Failed("a value is too large (limit 16 MiB)".to_owned())
            }
            _ => ToolError::InvalidArguments(format!(
                "SQLite: {}",
                echo_long(message.as_deref().unwrap_or("error"))
            )),
        },
        other => ToolError::Failed(format!("SQLite: {}", echo_long(&other.to_string()))),
    }
}

/// SQLite messages ("near \"SELEC\": syntax error") are useful and short; bound them
/// anyway and keep control characters visible.
fn echo_long(message: &str) -> String {
    const MAX: usize = 200;
    let mut out = String::new();
    for c in message.chars().take(MAX) {
        if c.is_control() {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    if message.chars().nth(MAX).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_db(name: &str) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("steward-conn-{}-{name}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE t (a); INSERT INTO t VALUES (1);")
            .unwrap();
        path
    }

    #[test]
    fn the_query_connection_cannot_write_even_without_the_guard() {
        let path = temp_db("second-wall");
        let conn = open(&SqlToolsConfig::new(&path), true).unwrap();
        // No authorizer armed: the read-only open and query_only are the second wall.
        let err = conn.execute("DELETE FROM t", []).unwrap_err();
        assert_eq!(err.sqlite_error_code(), Some(ErrorCode::ReadOnly), "{err}");
        let attach = conn.execute_batch("ATTACH DATABASE ':memory:' AS m");
        assert!(attach.is_err(), "attached despite the limit");
        drop(conn);
        let count: i64 = Connection::open(&path)
            .unwrap()
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(count, 1);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_refusal_wins_over_sqlites_generic_message() {
        let log = SeenLog::default();
        guard::seen(&log).refusal = Some("access to table kv is not allowed".to_owned());
        let err = sql_error(rusqlite::Error::MultipleStatement, &log, None);
        assert_eq!(
            err.to_string(),
            "invalid arguments: refused: access to table kv is not allowed"
        );
        let err = sql_error(
            rusqlite::Error::MultipleStatement,
            &SeenLog::default(),
            None,
        );
        assert!(err.to_string().contains("only one SQL statement"), "{err}");
    }
}
