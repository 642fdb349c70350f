//! What `GET /api/v1/status` shows, gathered from the running app: the model binding, the
//! database's size, the embedder, each MCP server, the recent errors and the usage roll-up.
//! The binary's implementation of the server's `StatusSource` port.
//!
//! Owns: reading those values and keeping what leaves safe — no filesystem path (the
//! database's is only measured), MCP errors and log messages through the log redaction
//! (`logging::scrub_line`). Does not own the JSON (steward-server), the roll-up
//! (steward-core's `usage`) or the ring of errors (`logging::recent`).

use crate::app::App;
use crate::logging::recent::RecentErrors;
use crate::logging::scrub_line;
use std::path::PathBuf;
use std::sync::Arc;
use steward_core::Steward;
use steward_core::usage::UsageDays;
use steward_llm::ModelRef;
use steward_mcp::{McpManager, Status};
use steward_server::{EmbedderState, McpServerStatus, StatusError, StatusSnapshot, StatusSource};

/// The running app, as the status route reads it.
pub struct AppStatus {
    steward: Steward,
    memory: Arc<steward_memory::Memory>,
    mcp: Option<Arc<McpManager>>,
    /// Measured, never shown.
    database: PathBuf,
    recent: Option<RecentErrors>,
}

impl AppStatus {
    /// The status of `app`, whose database is `database`, with the errors kept by `recent`
    /// (`logging::recent::installed()` in `steward serve`; None: none shown).
    pub fn new(app: &App, database: PathBuf, recent: Option<RecentErrors>) -> AppStatus {
        AppStatus {
            steward: app.steward.clone(),
            memory: app.memory.clone(),
            mcp: app.mcp.clone(),
            database,
            recent,
        }
    }

    /// Bytes of the database file and its write-ahead log (a missing log counts 0); None
    /// when the file itself cannot be measured.
    fn database_bytes(&self) -> Option<u64> {
        let main = std::fs::metadata(&self.database).ok()?.len();
        let mut wal = self.database.clone().into_os_string();
        wal.push("-wal");
        let wal = std::fs::metadata(PathBuf::from(wal)).map_or(0, |m| m.len());
        Some(main.saturating_add(wal))
    }

    fn embedder(&self) -> (EmbedderState, Option<String>) {
        match self.memory.embedder_id() {
            None => (EmbedderState::Off, None),
            Some(id) if self.memory.embedder_loaded() => (EmbedderState::Loaded, Some(id.into())),
            Some(id) => (EmbedderState::NotLoaded, Some(id.into())),
        }
    }

    fn mcp(&self) -> Vec<McpServerStatus> {
        let Some(mcp) = &self.mcp else {
            return Vec::new();
        };
        mcp.statuses()
            .into_iter()
            .map(|s| McpServerStatus {
                state: s.status.label().to_owned(),
                tools: s.tools.len(),
                last_error: match &s.status {
                    Status::Down { error, .. } => Some(scrub_line(error)),
                    _ => None,
                },
                name: s.name,
            })
            .collect()
    }
}

#[async_trait::async_trait]
impl StatusSource for AppStatus {
    async fn snapshot(&self, days: UsageDays) -> Result<StatusSnapshot, StatusError> {
        let usage = self.steward.usage_report(days).await.map_err(|e| {
            tracing::warn!(error = %e, "status: the usage roll-up failed");
            StatusError
        })?;
        let binding = self.steward.binding();
        let (embedder, embedder_model) = self.embedder();
        Ok(StatusSnapshot {
            model: binding.primary.as_ref().map(ModelRef::to_string),
            fallback_model: binding.fallback.as_ref().map(ModelRef::to_string),
            database_bytes: self.database_bytes(),
            embedder,
            embedder_model,
            mcp: self.mcp(),
            recent_errors: self
                .recent
                .as_ref()
                .map(RecentErrors::snapshot)
                .unwrap_or_default(),
            usage,
        })
    }
}
