//! The `Tool` trait every tool implements (including the approval hooks `preview` and
//! `approval_ttl`), the per-call `ToolContext`, and the `ToolOutcome` the agent loop
//! receives. Does not own validation, execution or approval policy (see the registry and
//! steward-core).

use crate::ToolError;
use steward_protocol::{ConversationId, Effect};

/// What a tool may know about the call it serves. Cloned into the spawned task that runs
/// the tool, so keep it small.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolContext {
    pub conversation: ConversationId,
    /// The owner's default IANA time zone, e.g. "Europe/Paris"; None = UTC.
    pub timezone: Option<String>,
}

#[async_trait::async_trait]
pub trait Tool: Send + Sync {
    /// `[a-z0-9_]{1,64}`; the registry refuses other names.
    fn name(&self) -> &str;
    /// One or two short sentences: it is sent on every model call.
    fn description(&self) -> &str;
    /// JSON schema (type object, properties, required, additionalProperties:false), in the
    /// subset `check_schema` understands.
    fn parameters(&self) -> serde_json::Value;
    fn effect(&self) -> Effect;
    /// Extra checks beyond the schema (ranges, formats). Default: Ok.
    fn validate(&self, _args: &serde_json::Value) -> Result<(), ToolError> {
        Ok(())
    }
    async fn run(&self, args: serde_json::Value, ctx: &ToolContext) -> Result<String, ToolError>;
    /// A dry run shown on the approval card before anyone confirms ("will affect 3 rows").
    /// None = no preview. Must change nothing.
    async fn preview(
        &self,
        _args: &serde_json::Value,
        _ctx: &ToolContext,
    ) -> Option<Result<String, ToolError>> {
        None
    }
    /// How long an approval card for this tool stays valid; None = the global default.
    fn approval_ttl(&self) -> Option<std::time::Duration> {
        None
    }
}

/// What the agent loop gets back from a call: never an Err — a failure is text for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutcome {
    pub ok: bool,
    pub output: String,
}

impl ToolOutcome {
    pub fn success(output: String) -> Self {
        Self { ok: true, output }
    }

    /// A failure, phrased for the model with the conventional "error: " prefix.
    pub fn failure(message: impl std::fmt::Display) -> Self {
        Self {
            ok: false,
            output: format!("error: {message}"),
        }
    }
}
