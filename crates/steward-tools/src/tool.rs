//! The `Tool` trait every tool implements (including the approval hooks `preview` and
//! `approval_ttl`, and the containment declarations `output_trust` and `reach`), the
//! per-call `ToolContext`, and the `ToolOutcome` the agent loop receives. Does not own
//! validation, execution, approval policy or the taint rule (see the registry and
//! steward-core's `taint`).

use crate::ToolError;
use steward_protocol::{ConversationId, Effect, Principal, Surface};

/// What a tool may know about the call it serves. Cloned into the spawned task that runs
/// the tool, so keep it small.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolContext {
    pub conversation: ConversationId,
    /// Who the call acts for: the principal of the turn (or of the approved action) that made
    /// it, as the surface authenticated it. Tools that keep per-person data (memory) key it by
    /// this, never by a user bound when the tool was built.
    pub principal: Principal,
    /// The owner's default IANA time zone, e.g. "Europe/Paris"; None = UTC.
    pub timezone: Option<String>,
    /// The untrusted sources ("fetch_url", "mcp:github", "db_query") that were in the
    /// model's context when it made this call. Empty: none were, or the owner approved this
    /// exact call on a card. Memory tools record it in the provenance of what they write.
    pub tainted_by: Vec<String>,
    /// Set when an approved action runs: the preview text the owner saw on the card. A tool
    /// whose effect no longer matches it refuses with `ToolError::EffectChanged` and
    /// changes nothing.
    pub approved_preview: Option<String>,
    /// The surface the call came from (the conversation's): where something scheduled from
    /// it is delivered. `System` outside a surface's turn.
    pub surface: Surface,
    /// The turn behind the call (its trace id), when there is one.
    pub trace_id: Option<String>,
}

impl ToolContext {
    /// A clean context: no taint, not an approved action.
    pub fn new(
        conversation: ConversationId,
        principal: Principal,
        timezone: Option<String>,
    ) -> ToolContext {
        ToolContext {
            conversation,
            principal,
            timezone,
            tainted_by: Vec::new(),
            approved_preview: None,
            surface: Surface::System,
            trace_id: None,
        }
    }

    /// The same context, from `surface`'s turn `trace_id`.
    pub fn from_turn(mut self, surface: Surface, trace_id: &str) -> ToolContext {
        self.surface = surface;
        self.trace_id = Some(trace_id.to_owned());
        self
    }
}

impl Reach {
    /// `text` as one line for a summary: whitespace and control characters become single
    /// spaces, and past `max_chars` it is cut with "…".
    pub fn line(text: &str, max_chars: usize) -> String {
        let flat: String = text
            .split(|c: char| c.is_whitespace() || c.is_control())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        match flat.char_indices().nth(max_chars) {
            Some((i, _)) => format!("{}…", &flat[..i]),
            None => flat,
        }
    }
}

/// Whether a tool's output may carry someone else's instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputTrust {
    /// Steward's own computation or the owner's own data (time, maths, memory the owner
    /// confirmed, a count of rows changed).
    Trusted,
    /// Text written by others: pages, search results, MCP servers, rows read from tables,
    /// mail. Once it is in the model's context the turn is tainted.
    Untrusted,
}

/// What one call would touch, declared by the tool from its own validated arguments. The
/// taint rule in steward-core reads it (every outbound tool goes through that one rule),
/// and surfaces show `summary` so the owner sees what each call touched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// URLs the call will contact, exactly as the model wrote them.
    pub urls: Vec<String>,
    /// Text the call sends outside Steward to an endpoint the owner configured (a search
    /// query, an MCP tool's arguments, later a mail body).
    pub sends: Vec<String>,
    /// Text the call writes into Steward's memory (fact values, note bodies, links).
    pub remembers: Vec<String>,
    /// One line for surfaces: what the call touched ("GET https://…", the SQL, "server
    /// tool: main argument"). None: the tool's name says enough.
    pub summary: Option<String>,
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
    /// Whether a grant ("allow this tool in this conversation for N hours") may skip its
    /// card. False for a tool whose every call must be seen (each program `run_code` runs
    /// is new code): no grant is created for it, and none found in the store applies.
    fn grantable(&self) -> bool {
        true
    }
    /// Whether this tool's output may carry someone else's instructions. Fails closed: a
    /// tool that does not say is treated as untrusted.
    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Untrusted
    }
    /// What a call with these (validated) arguments would touch. Default: nothing outbound,
    /// nothing remembered, no summary. A tool that contacts a model-chosen URL, sends text
    /// out or writes memory must declare it here: the taint rule only sees what is declared.
    fn reach(&self, _args: &serde_json::Value) -> Reach {
        Reach::default()
    }
}

/// What `ToolRegistry::run_approved` reports for an approved action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovedRun {
    /// The tool ran (or failed); as `run_prepared` would report it.
    Ran(ToolOutcome),
    /// The tool refused with `ToolError::EffectChanged`: nothing was changed, and `preview`
    /// says what the call would do now (for a new card).
    EffectChanged { preview: String },
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
