//! The SQL guard: SQLite's authorizer, consulted by SQLite itself for every table, column,
//! function, pragma and schema change a statement touches while it is prepared — including
//! those reached through views, CTEs and trigger bodies. Decisions are by the names SQLite
//! resolved, never by matching SQL text, so quoting and schema prefixes cannot hide a table.
//!
//! Owns: what the model's SQL may touch, and the refusal wording. Does not own: opening
//! connections, the final "does this statement write?" check (see `conn`), or which tables
//! are protected (`steward_store::PROTECTED_TABLES`).

use crate::schema::echo;
use rusqlite::Connection;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use std::sync::{Arc, Mutex, PoisonError};
use steward_store::{PROTECTED_TABLE_PREFIX, PROTECTED_TABLES, own_schema_names};

/// Which tool the statement belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `db_query`: reads only.
    Query,
    /// `db_execute`: row writes; schema changes only with `allow_ddl`.
    Execute { allow_ddl: bool },
}

/// What the authorizer saw while one statement was prepared.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// The first refusal, worded for the model.
    pub refusal: Option<String>,
    /// A write the guard checked and allowed (INSERT/UPDATE/DELETE or permitted DDL). A
    /// statement that writes without this is one whose writes the guard never saw.
    pub checked_write: bool,
    /// A schema change was allowed; SQLite's own bookkeeping writes that follow it (e.g.
    /// sqlite_sequence on DROP TABLE) may pass.
    pub checked_ddl: bool,
}

pub(crate) type SeenLog = Arc<Mutex<Seen>>;

pub(crate) fn seen(log: &SeenLog) -> std::sync::MutexGuard<'_, Seen> {
    // A poisoned lock only means a panic elsewhere; the record itself is still usable.
    log.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Arm the guard on `conn`. Every statement prepared afterwards is checked.
pub(crate) fn install(conn: &Connection, mode: Mode) -> rusqlite::Result<SeenLog> {
    let log = SeenLog::default();
    let record = Arc::clone(&log);
    conn.authorizer(Some(move |ctx: AuthContext<'_>| {
        let mut seen = seen(&record);
        let verdict = decide(mode, ctx.action, seen.checked_ddl);
        match verdict {
            Verdict::Allow => Authorization::Allow,
            Verdict::AllowWrite => {
                seen.checked_write = true;
                Authorization::Allow
            }
            Verdict::AllowDdl => {
                seen.checked_write = true;
                seen.checked_ddl = true;
                Authorization::Allow
            }
            Verdict::Deny(reason) => {
                if seen.refusal.is_none() {
                    seen.refusal = Some(match ctx.accessor {
                        Some(via) => format!("{reason} (reached through `{}`)", echo(via)),
                        None => reason,
                    });
                }
                Authorization::Deny
            }
        }
    }))?;
    Ok(log)
}

/// Disarm before our own COMMIT/ROLLBACK, which the guard would rightly refuse.
pub(crate) fn remove(conn: &Connection) -> rusqlite::Result<()> {
    conn.authorizer(None::<fn(AuthContext<'_>) -> Authorization>)
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Allow,
    /// A row write the guard checked.
    AllowWrite,
    /// A schema change the guard checked.
    AllowDdl,
    Deny(String),
}

/// SQL functions that reach outside the database or hand out raw pointers. Most are not
/// even compiled in; they are listed so that a future build cannot quietly enable them.
const DENIED_FUNCTIONS: &[&str] = &[
    "load_extension",
    "readfile",
    "writefile",
    "edit",
    "fts3_tokenizer",
    "zipfile",
    "sqlar_compress",
    "sqlar_uncompress",
];

/// Virtual tables that expose raw pages or storage layout of every table, protected or not.
const DENIED_READ_TABLES: &[&str] = &["sqlite_dbpage", "dbstat"];

/// The schema tables SQLite itself writes during DDL. Direct writes by user SQL are
/// refused by SQLite (no writable_schema: PRAGMA is denied and the connection is defensive).
const SCHEMA_TABLES: &[&str] = &[
    "sqlite_master",
    "sqlite_schema",
    "sqlite_temp_master",
    "sqlite_temp_schema",
];

/// Pragmas that only describe the schema; allowed in `db_query` only.
const READ_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
];

const READ_ONLY: &str = "db_query only reads; use db_execute to change data";
const DDL_OFF: &str =
    "schema changes (CREATE, DROP, ALTER) are turned off in Steward's configuration";

/// `after_ddl`: this statement already had a schema change allowed.
pub(crate) fn decide(mode: Mode, action: AuthAction<'_>, after_ddl: bool) -> Verdict {
    use AuthAction as A;
    match action {
        A::Select | A::Recursive => Verdict::Allow,
        A::Read { table_name, .. } => read(mode, table_name),
        A::Function { function_name } => function(function_name),
        A::Pragma {
            pragma_name,
            pragma_value,
        } => pragma(mode, pragma_name, pragma_value),
        A::Insert { table_name } | A::Delete { table_name } | A::Update { table_name, .. } => {
            write(mode, table_name, after_ddl)
        }
        A::CreateTable { table_name }
        | A::CreateTempTable { table_name }
        | A::DropTable { table_name }
        | A::DropTempTable { table_name }
        | A::AlterTable { table_name, .. } => ddl(mode, &[table_name]),
        A::CreateIndex {
            index_name,
            table_name,
        }
        | A::CreateTempIndex {
            index_name,
            table_name,
        }
        | A::DropIndex {
            index_name,
            table_name,
        }
        | A::DropTempIndex {
            index_name,
            table_name,
        } => ddl(mode, &[index_name, table_name]),
        A::CreateView { view_name }
        | A::CreateTempView { view_name }
        | A::DropView { view_name }
        | A::DropTempView { view_name } => ddl(mode, &[view_name]),
        A::DropTrigger {
            trigger_name,
            table_name,
        }
        | A::DropTempTrigger {
            trigger_name,
            table_name,
        } => ddl(mode, &[trigger_name, table_name]),
        // A trigger on an ordinary table would later run from Steward's own connection,
        // which has no guard, and could write a protected table from there.
        A::CreateTrigger { .. } | A::CreateTempTrigger { .. } => {
            deny("CREATE TRIGGER is never allowed")
        }
        A::Attach { .. } | A::Detach { .. } => deny("ATTACH and DETACH are not allowed"),
        A::Transaction { .. } | A::Savepoint { .. } => deny(
            "transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT) is not allowed: \
             each call already runs in its own transaction",
        ),
        A::CreateVtable { .. } | A::DropVtable { .. } => {
            deny("virtual tables cannot be created or dropped")
        }
        // CREATE INDEX asks for REINDEX of the new index; rebuilding an index changes no data.
        A::Reindex { index_name } => ddl(mode, &[index_name]),
        A::Analyze { .. } => deny("ANALYZE is not allowed"),
        // Unknown or future actions: default-deny.
        _ => deny("this kind of statement is not allowed"),
    }
}

fn deny(reason: &str) -> Verdict {
    Verdict::Deny(reason.to_owned())
}

/// Steward's own objects: every name its migrations create (read off a fresh schema, so a
/// new table is covered the day it is added), the listed memory tables, and the memory
/// index's run-time tables (one prefix). If the fresh schema cannot be read, everything
/// counts as protected: the tools then refuse every statement rather than guess.
pub(crate) fn is_protected(name: &str) -> bool {
    let prefix = PROTECTED_TABLE_PREFIX.len();
    let lower = name.to_ascii_lowercase();
    let own = match own_schema_names() {
        Ok(names) => names.binary_search(&lower).is_ok(),
        Err(e) => {
            tracing::warn!(error = %e, "SQL guard cannot tell Steward's tables apart; refusing");
            true
        }
    };
    own || PROTECTED_TABLES
        .iter()
        .any(|p| p.eq_ignore_ascii_case(name))
        || name
            .get(..prefix)
            .is_some_and(|p| p.eq_ignore_ascii_case(PROTECTED_TABLE_PREFIX))
}

fn is_system(name: &str) -> bool {
    name.get(..7)
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case("sqlite_"))
}

fn protected_message(name: &str) -> Verdict {
    Verdict::Deny(format!(
        "access to table {} is not allowed (it is Steward's own: conversations, approvals or \
         memory; the SQL tools reach only tables you created)",
        echo(&name.to_ascii_lowercase())
    ))
}

/// What a read may name: only the owner's tables and views. Steward's own objects, the
/// schema tables (they hold the SQL of Steward's tables) and the `pragma_*` table-valued
/// functions (their argument names a table the guard never sees) are refused; in
/// `db_execute` SQLite itself reads the schema tables while it applies a schema change.
fn read(mode: Mode, table: &str) -> Verdict {
    if is_protected(table) {
        return protected_message(table);
    }
    if DENIED_READ_TABLES
        .iter()
        .any(|t| t.eq_ignore_ascii_case(table))
    {
        return Verdict::Deny(format!("reading {} is not allowed", echo(table)));
    }
    if table
        .get(..7)
        .is_some_and(|p| p.eq_ignore_ascii_case("pragma_"))
    {
        return Verdict::Deny(format!(
            "the table-valued function {} is not allowed; use PRAGMA table_info(name) on your own tables",
            echo(table)
        ));
    }
    if mode == Mode::Query && is_system(table) {
        return Verdict::Deny(format!(
            "reading {} is not allowed (it describes Steward's own tables too); \
             use PRAGMA table_list or table_info on your own tables",
            echo(table)
        ));
    }
    Verdict::Allow
}

fn function(name: &str) -> Verdict {
    if DENIED_FUNCTIONS
        .iter()
        .any(|f| f.eq_ignore_ascii_case(name))
    {
        return Verdict::Deny(format!("the function {}() is not allowed", echo(name)));
    }
    Verdict::Allow
}

fn pragma(mode: Mode, name: &str, value: Option<&str>) -> Verdict {
    let harmless = mode == Mode::Query
        && READ_PRAGMAS.iter().any(|p| p.eq_ignore_ascii_case(name))
        && !value.is_some_and(|v| is_protected(v.trim_matches(['"', '\'', '`', '[', ']'])));
    if harmless {
        Verdict::Allow
    } else {
        Verdict::Deny(format!("PRAGMA {} is not allowed", echo(name)))
    }
}

fn write(mode: Mode, table: &str, after_ddl: bool) -> Verdict {
    let allow_ddl = match mode {
        Mode::Query => return deny(READ_ONLY),
        Mode::Execute { allow_ddl } => allow_ddl,
    };
    if is_protected(table) {
        return protected_message(table);
    }
    if !is_system(table) {
        return Verdict::AllowWrite;
    }
    // SQLite authorizes its own schema-table writes during CREATE/DROP (before the DDL
    // action itself, which is judged on its own). Direct writes by user SQL are refused by
    // SQLite: PRAGMA writable_schema is denied and the connection is defensive.
    let schema_table = SCHEMA_TABLES.iter().any(|t| t.eq_ignore_ascii_case(table));
    if schema_table && !allow_ddl {
        return deny(DDL_OFF);
    }
    if (schema_table || after_ddl) && allow_ddl {
        return Verdict::Allow;
    }
    Verdict::Deny(format!(
        "the system table {} cannot be changed",
        echo(table)
    ))
}

fn ddl(mode: Mode, names: &[&str]) -> Verdict {
    match mode {
        Mode::Query => deny(READ_ONLY),
        Mode::Execute { allow_ddl: false } => deny(DDL_OFF),
        Mode::Execute { allow_ddl: true } => {
            if let Some(name) = names.iter().find(|n| is_protected(n)) {
                return protected_message(name);
            }
            if let Some(name) = names.iter().find(|n| is_system(n)) {
                return Verdict::Deny(format!(
                    "the system object {} cannot be changed",
                    echo(name)
                ));
            }
            Verdict::AllowDdl
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXEC: Mode = Mode::Execute { allow_ddl: false };
    const DDL: Mode = Mode::Execute { allow_ddl: true };

    fn denied(v: Verdict) -> bool {
        matches!(v, Verdict::Deny(_))
    }

    #[test]
    fn protected_names_match_in_any_case() {
        for mode in [Mode::Query, EXEC, DDL] {
            for name in ["grants", "GRANTS", "Pending_Actions", "kv"] {
                let read = AuthAction::Read {
                    table_name: name,
                    column_name: "",
                };
                assert!(denied(decide(mode, read, false)), "{mode:?} read {name}");
                assert!(
                    denied(decide(mode, AuthAction::Insert { table_name: name }, false)),
                    "{mode:?} insert {name}"
                );
            }
        }
        let ok = AuthAction::Read {
            table_name: "grants_archive",
            column_name: "x",
        };
        assert_eq!(decide(Mode::Query, ok, false), Verdict::Allow);
    }

    #[test]
    fn writes_depend_on_mode() {
        let insert = AuthAction::Insert {
            table_name: "journal",
        };
        assert!(denied(decide(Mode::Query, insert, false)));
        assert_eq!(decide(EXEC, insert, false), Verdict::AllowWrite);
        let seq = AuthAction::Update {
            table_name: "sqlite_sequence",
            column_name: "seq",
        };
        assert!(denied(decide(EXEC, seq, false)));
        assert!(denied(decide(DDL, seq, false)));
        // Only as the bookkeeping of an allowed schema change (DROP TABLE).
        assert_eq!(decide(DDL, seq, true), Verdict::Allow);
        assert!(denied(decide(EXEC, seq, true)));
        let schema = AuthAction::Insert {
            table_name: "sqlite_master",
        };
        assert!(denied(decide(EXEC, schema, false)));
        assert_eq!(decide(DDL, schema, false), Verdict::Allow);
    }

    #[test]
    fn ddl_needs_the_setting_and_never_touches_protected_or_system_names() {
        let create = AuthAction::CreateTable { table_name: "t2" };
        assert!(denied(decide(Mode::Query, create, false)));
        assert!(denied(decide(EXEC, create, false)));
        assert_eq!(decide(DDL, create, false), Verdict::AllowDdl);
        let index = AuthAction::CreateIndex {
            index_name: "ix",
            table_name: "scores",
        };
        assert!(denied(decide(DDL, index, false)));
        let drop_trigger = AuthAction::DropTrigger {
            trigger_name: "action_audit_no_delete",
            table_name: "action_audit",
        };
        assert!(denied(decide(DDL, drop_trigger, false)));
        let trigger = AuthAction::CreateTrigger {
            trigger_name: "t",
            table_name: "journal",
        };
        assert!(denied(decide(DDL, trigger, false)));
        let system = AuthAction::DropTable {
            table_name: "sqlite_stat1",
        };
        assert!(denied(decide(DDL, system, false)));
    }

    #[test]
    fn functions_and_pragmas() {
        for f in [
            "load_extension",
            "LOAD_EXTENSION",
            "readfile",
            "writefile",
            "edit",
        ] {
            let action = AuthAction::Function { function_name: f };
            assert!(denied(decide(Mode::Query, action, false)), "{f}");
        }
        let upper = AuthAction::Function {
            function_name: "upper",
        };
        assert_eq!(decide(Mode::Query, upper, false), Verdict::Allow);
        let info = |value| AuthAction::Pragma {
            pragma_name: "table_info",
            pragma_value: Some(value),
        };
        assert_eq!(decide(Mode::Query, info("journal"), false), Verdict::Allow);
        assert!(denied(decide(Mode::Query, info("'grants'"), false)));
        assert!(denied(decide(EXEC, info("journal"), false)));
        let writable = AuthAction::Pragma {
            pragma_name: "writable_schema",
            pragma_value: Some("1"),
        };
        assert!(denied(decide(Mode::Query, writable, false)));
        assert!(denied(decide(DDL, writable, false)));
    }

    #[test]
    fn unknown_actions_are_denied() {
        let unknown = AuthAction::Unknown {
            code: 9999,
            arg1: None,
            arg2: None,
        };
        assert!(denied(decide(DDL, unknown, false)));
        let attach = AuthAction::Attach { filename: "x.db" };
        assert!(denied(decide(DDL, attach, false)));
    }
}
