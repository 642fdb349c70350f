//! The guarded SQL tools over the owner's SQLite database: `db_query` (read-only
//! connection, row and time caps) and `db_execute` (a write, previewed in a rolled-back
//! transaction, run in a committed one). Every statement is prepared under the SQLite
//! authorizer in `guard`, which keeps Steward's protected tables out of reach.
//!
//! Owns: the tools' schemas, argument parsing and async wrappers. Does not own: whether a
//! write runs (steward-core's approval gate decides, using `preview` and `run`), the
//! guard's rules (`guard`), or connection handling (`conn`).

mod conn;
mod guard;
mod render;

use crate::args::str_arg;
use crate::{OutputTrust, Reach, Tool, ToolContext, ToolError};
use conn::SqlArgs;
use guard::Mode;
use rusqlite::types::Value as SqlValue;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use steward_protocol::Effect;

/// Longest SQL text accepted, in bytes.
const MAX_SQL_BYTES: usize = 20_000;
/// Most bound parameters accepted.
const MAX_PARAMS: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlToolsConfig {
    /// The database the tools work on. Must exist: the tools never create it.
    pub db_path: PathBuf,
    /// `db_query` returns at most this many rows.
    pub max_rows: usize,
    /// Any single statement is stopped after this long.
    pub timeout: Duration,
    /// Allow CREATE/DROP/ALTER of tables, indexes and views in `db_execute`. Triggers,
    /// protected tables and SQLite's own tables stay refused regardless.
    pub allow_ddl: bool,
}

impl SqlToolsConfig {
    /// The defaults: 200 rows, 5 s, no DDL.
    pub fn new(db_path: impl Into<PathBuf>) -> Self {
        Self {
            db_path: db_path.into(),
            max_rows: 200,
            timeout: Duration::from_secs(5),
            allow_ddl: false,
        }
    }
}

/// `[db_query, db_execute]` over `cfg.db_path`.
pub fn sql_tools(cfg: SqlToolsConfig) -> Vec<Arc<dyn Tool>> {
    let cfg = Arc::new(cfg);
    vec![
        Arc::new(DbQuery {
            cfg: Arc::clone(&cfg),
        }),
        Arc::new(DbExecute { cfg }),
    ]
}

fn parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "sql": {"type": "string", "minLength": 1, "maxLength": MAX_SQL_BYTES,
                    "description": "exactly one SQL statement"},
            "params": {"type": "array",
                       "description": "values for ?1, ?2, ... in order: string, number, boolean or null"}
        },
        "required": ["sql"],
        "additionalProperties": false
    })
}

/// The SQL, on one line, is what a call touched.
fn sql_reach(args: &Value) -> Reach {
    let sql = args.get("sql").and_then(Value::as_str).unwrap_or("");
    Reach {
        summary: Some(Reach::line(sql, 200)),
        ..Reach::default()
    }
}

fn parse_args(args: &Value) -> Result<SqlArgs, ToolError> {
    let sql = str_arg(args, "sql")?;
    if sql.trim().is_empty() {
        return Err(ToolError::InvalidArguments(
            "argument `sql` is empty".to_owned(),
        ));
    }
    if sql.len() > MAX_SQL_BYTES {
        return Err(ToolError::InvalidArguments(format!(
            "argument `sql` is longer than {MAX_SQL_BYTES} bytes"
        )));
    }
    // SQLite stops reading at a NUL, so the card would show text that never runs (or hide
    // what does): refused outright.
    if sql.contains('\0') {
        return Err(ToolError::InvalidArguments(
            "argument `sql` contains a NUL character".to_owned(),
        ));
    }
    let raw = match args.get("params") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(items)) => items.as_slice(),
        Some(_) => {
            return Err(ToolError::InvalidArguments(
                "argument `params` must be an array".to_owned(),
            ));
        }
    };
    if raw.len() > MAX_PARAMS {
        return Err(ToolError::InvalidArguments(format!(
            "at most {MAX_PARAMS} params are allowed"
        )));
    }
    let params = raw
        .iter()
        .enumerate()
        .map(|(i, v)| sql_value(i, v))
        .collect::<Result<_, _>>()?;
    Ok(SqlArgs {
        sql: sql.to_owned(),
        params,
    })
}

fn sql_value(index: usize, v: &Value) -> Result<SqlValue, ToolError> {
    Ok(match v {
        Value::Null => SqlValue::Null,
        Value::Bool(b) => SqlValue::Integer(i64::from(*b)),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => SqlValue::Integer(i),
            (None, Some(f)) => SqlValue::Real(f),
            (None, None) => {
                return Err(ToolError::InvalidArguments(format!(
                    "params[{index}] is not a representable number"
                )));
            }
        },
        Value::String(s) => SqlValue::Text(s.clone()),
        Value::Array(_) | Value::Object(_) => {
            return Err(ToolError::InvalidArguments(format!(
                "params[{index}] must be a string, number, boolean or null"
            )));
        }
    })
}

/// Runs blocking SQLite work off the async threads. The statement's own deadline (the
/// progress handler) bounds it even if the caller stops waiting.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        tracing::warn!(panicked = e.is_panic(), "SQL tool task failed");
        ToolError::Failed("the SQL tool failed (internal error)".to_owned())
    })?
}

/// The preview text of a statement that changes `n` rows; `approved_count` reads it back.
pub(crate) fn preview_text(n: u64) -> String {
    format!("will affect {}", rows(n))
}

/// The row count the owner saw on the card, if the approved preview is one of ours.
fn approved_count(preview: &str) -> Option<u64> {
    let rest = preview.trim().strip_prefix("will affect ")?;
    let (n, unit) = rest.split_once(' ')?;
    matches!(unit, "row" | "rows").then(|| n.parse().ok())?
}

fn rows(n: u64) -> String {
    if n == 1 {
        "1 row".to_owned()
    } else {
        format!("{n} rows")
    }
}

pub struct DbQuery {
    cfg: Arc<SqlToolsConfig>,
}

#[async_trait::async_trait]
impl Tool for DbQuery {
    fn name(&self) -> &str {
        "db_query"
    }
    fn description(&self) -> &str {
        "Run one read-only SQL statement (SELECT) on the owner's SQLite database. Output: a \
         tab-separated header and rows, \\N = NULL; row count capped."
    }
    fn parameters(&self) -> Value {
        parameters()
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }
    // Rows may have been written by anyone (an import, a shared table): output stays
    // Untrusted (the default) and is fenced.
    fn reach(&self, args: &Value) -> Reach {
        sql_reach(args)
    }
    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        conn::check(&self.cfg, Mode::Query, &parse_args(args)?)
    }
    async fn run(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        let parsed = parse_args(&args)?;
        let cfg = Arc::clone(&self.cfg);
        let table = blocking(move || conn::query(&cfg, &parsed)).await?;
        Ok(render::fence_rows(&table))
    }
}

pub struct DbExecute {
    cfg: Arc<SqlToolsConfig>,
}

impl DbExecute {
    fn mode(&self) -> Mode {
        Mode::Execute {
            allow_ddl: self.cfg.allow_ddl,
        }
    }
}

#[async_trait::async_trait]
impl Tool for DbExecute {
    fn name(&self) -> &str {
        "db_execute"
    }
    fn description(&self) -> &str {
        "Run one SQL statement that changes data (INSERT, UPDATE, DELETE) on the owner's \
         SQLite database. The owner sees how many rows it affects and must approve it."
    }
    fn parameters(&self) -> Value {
        parameters()
    }
    fn effect(&self) -> Effect {
        Effect::Write
    }
    /// Only a count comes back.
    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }
    fn reach(&self, args: &Value) -> Reach {
        sql_reach(args)
    }
    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        conn::check(&self.cfg, self.mode(), &parse_args(args)?)
    }
    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let parsed = parse_args(&args)?;
        let cfg = Arc::clone(&self.cfg);
        // Approved: the effect must be the one the owner saw, or nothing changes.
        let expected = ctx.approved_preview.as_deref().and_then(approved_count);
        let finish = conn::Finish::Commit { expected };
        let changed = blocking(move || conn::execute(&cfg, &parsed, finish)).await?;
        Ok(format!("affected {}", rows(changed)))
    }
    async fn preview(&self, args: &Value, _ctx: &ToolContext) -> Option<Result<String, ToolError>> {
        let parsed = match parse_args(args) {
            Ok(parsed) => parsed,
            Err(e) => return Some(Err(e)),
        };
        let cfg = Arc::clone(&self.cfg);
        let changed = blocking(move || conn::execute(&cfg, &parsed, conn::Finish::Preview)).await;
        Some(changed.map(preview_text))
    }
}
