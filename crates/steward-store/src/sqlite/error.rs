//! The SQLite adapter's half of `StoreError`: which kind each `rusqlite::Error` is. Owns the
//! mapping (result codes → busy, constraint, corrupt, I/O, other) and `decode_err` (a value
//! that cannot be read back is corrupt data). Does not own the vocabulary (`crate::error`).
//!
//! The `From` impl is what lets the adapter's code use `?` on rusqlite calls; it is the only
//! place a rusqlite error becomes a `StoreError`, and no public variant carries one.

use crate::StoreError;
use rusqlite::ErrorCode;

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
                StoreError::Busy(Box::new(e))
            }
            Some(ErrorCode::ConstraintViolation) => StoreError::Constraint(Box::new(e)),
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
                StoreError::Corrupt(format!("the database file is damaged: {e}"))
            }
            Some(
                ErrorCode::SystemIoFailure
                | ErrorCode::DiskFull
                | ErrorCode::CannotOpen
                | ErrorCode::ReadOnly
                | ErrorCode::PermissionDenied
                | ErrorCode::FileLockingProtocolFailed
                | ErrorCode::NoLargeFileSupport,
            ) => StoreError::Io(Box::new(e)),
            _ => StoreError::Other(Box::new(e)),
        }
    }
}

/// Decoding failures (wrong column type, bad UTF-8) mean the stored data is bad, not the query.
/// The text names `what` and the column, never the value.
pub(crate) fn decode_err(what: &str, e: rusqlite::Error) -> StoreError {
    match e {
        rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::IntegralValueOutOfRange(..)
        | rusqlite::Error::Utf8Error(..) => StoreError::Corrupt(format!("{what}: {e}")),
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::ffi;

    fn failure(code: i32) -> StoreError {
        rusqlite::Error::SqliteFailure(ffi::Error::new(code), Some("detail".into())).into()
    }

    #[test]
    fn each_sqlite_failure_becomes_a_kind_a_caller_can_act_on() {
        assert!(matches!(failure(ffi::SQLITE_BUSY), StoreError::Busy(_)));
        assert!(matches!(failure(ffi::SQLITE_LOCKED), StoreError::Busy(_)));
        assert!(matches!(
            failure(ffi::SQLITE_CONSTRAINT_UNIQUE),
            StoreError::Constraint(_)
        ));
        assert!(matches!(
            failure(ffi::SQLITE_CONSTRAINT_TRIGGER),
            StoreError::Constraint(_)
        ));
        assert!(matches!(
            failure(ffi::SQLITE_CORRUPT),
            StoreError::Corrupt(_)
        ));
        assert!(matches!(
            failure(ffi::SQLITE_NOTADB),
            StoreError::Corrupt(_)
        ));
        assert!(matches!(
            failure(ffi::SQLITE_IOERR_WRITE),
            StoreError::Io(_)
        ));
        assert!(matches!(failure(ffi::SQLITE_FULL), StoreError::Io(_)));
        assert!(matches!(failure(ffi::SQLITE_READONLY), StoreError::Io(_)));
        assert!(matches!(failure(ffi::SQLITE_MISUSE), StoreError::Other(_)));
        let not_sqlite: StoreError = rusqlite::Error::QueryReturnedNoRows.into();
        assert!(matches!(not_sqlite, StoreError::Other(_)));
    }

    #[test]
    fn busy_and_io_are_transient_and_the_rest_is_not() {
        assert!(failure(ffi::SQLITE_BUSY).is_transient());
        assert!(failure(ffi::SQLITE_FULL).is_transient());
        assert!(!failure(ffi::SQLITE_CONSTRAINT_CHECK).is_transient());
        assert!(!failure(ffi::SQLITE_CORRUPT).is_transient());
        assert!(!StoreError::InvalidInput("x".into()).is_transient());
    }

    #[test]
    fn the_kind_keeps_sqlites_words_as_its_source() {
        let err = failure(ffi::SQLITE_BUSY);
        let text = err.to_string();
        assert!(text.contains("busy") && text.contains("detail"), "{text}");
        assert!(std::error::Error::source(&err).is_some());
    }
}
