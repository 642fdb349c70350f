//! Our side of an MCP client session: what we tell a server about ourselves, and how we
//! answer the requests a server may send us.
//!
//! Owns: the sampling refusal, roots (none), elicitation (declined: nobody is there to
//! answer a form), and noticing `tools/list_changed`. Does not own connecting or calls.
//!
//! Sampling (`sampling/createMessage`): a server asking to use our model is refused with an
//! MCP error. The capability is advertised only when the owner set `allow_sampling = true`
//! for that server (so servers that refuse to start without it can run), but even then the
//! request is refused: a sampling request arrives in the middle of a tool call, and routing
//! it through the approval gate would mean parking the calling turn, which the gate does not
//! support yet. The refusal names the reason either way.

#![allow(deprecated)] // Sampling and roots are deprecated by SEP-2577 but still what servers send.

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult, ErrorCode,
    ErrorData, Implementation,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, RoleClient};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::Notify;

/// Refusal texts, also asserted by the tests.
pub const SAMPLING_REFUSED: &str =
    "Steward refuses sampling requests from this MCP server (allow_sampling is off)";
pub const SAMPLING_NEEDS_APPROVAL: &str = "Steward cannot ask its owner to approve a sampling request yet, so it refuses it (allow_sampling is on, but approval is not implemented)";

/// Shared with the supervisor: counts refused sampling requests and signals tool list changes.
#[derive(Default)]
pub struct Signals {
    pub tools_changed: Notify,
    pub sampling_refused: AtomicU64,
}

pub struct Handler {
    pub server: String,
    pub allow_sampling: bool,
    pub signals: Arc<Signals>,
}

impl ClientHandler for Handler {
    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.signals
            .sampling_refused
            .fetch_add(1, Ordering::Relaxed);
        tracing::warn!(server = %self.server, "MCP server asked to sample the model; refused");
        let message = if self.allow_sampling {
            SAMPLING_NEEDS_APPROVAL
        } else {
            SAMPLING_REFUSED
        };
        Err(ErrorData::new(ErrorCode::INVALID_REQUEST, message, None))
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.signals.tools_changed.notify_one();
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.allow_sampling {
            ClientCapabilities::builder().enable_sampling().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(
            capabilities,
            Implementation::new("steward", env!("CARGO_PKG_VERSION")),
        )
    }
}
