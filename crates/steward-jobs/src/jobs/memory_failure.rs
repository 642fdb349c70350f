//! A memory failure as a job failure, for the upkeep jobs that run memory's work.
//!
//! Owns: which memory errors are worth a retry. Does not own: the errors (steward-memory).

use steward_memory::MemoryError;

use crate::job::JobError;

/// `e` while doing `what`: a refused input cannot get better by trying again; a store, an
/// embedder or a model failure can.
pub(crate) fn job_error(what: &str, e: MemoryError) -> JobError {
    match e {
        MemoryError::Invalid(_) => JobError::permanent(format!("{what}: {e}")),
        _ => JobError::retry(format!("{what}: {e}")),
    }
}
