//! Schemas of the response bodies the handlers build with `json!`: one type per body shape,
//! field for field what the handler writes, so the document can describe it. Request bodies
//! are not here (each handler's own `Deserialize` type carries its schema), nor are the
//! protocol types inside these bodies (steward-protocol's `openapi` feature derives theirs
//! from their serde attributes).
//!
//! These types are never built: they describe. What keeps them true is the test that sends
//! every documented request to the real router and validates each answer against the
//! schema of its status (`tests/server/openapi.rs`); a field added to a `json!` body and not
//! here fails it wherever the schema is closed, and a field renamed or dropped fails it
//! everywhere.
//!
//! Owns: the names and shapes of those bodies in the document. Does not own: the bodies.
#![allow(dead_code)] // Schema-only types: read by the derive, never constructed.

mod jobs;

pub(crate) use jobs::{
    AlreadyClosed, JobList, JobRunReply, ScheduledReminderList, ScheduledTaskList,
};

use crate::error::ErrorBody;
use serde_json::Value;
use steward_protocol::{
    ActionCard, ActionDecided, Attachment, AuditStep, ConversationId, ConversationTitle, Fact,
    FactSource, Grant, MemoryKind, Note, PendingAction, Provenance, Role, ToolCall, TurnId, Usage,
};
use utoipa::ToSchema;

/// `GET /health`.
#[derive(ToSchema)]
pub(crate) struct Health {
    /// Always `ok` while the server answers.
    status: String,
    /// Steward's version.
    version: String,
    /// `provider:model` of the bound model; null when none is configured.
    model: Option<String>,
}

/// A finished turn.
#[derive(ToSchema)]
pub(crate) struct MessageReply {
    conversation_id: ConversationId,
    /// Null only if the turn never started.
    turn_id: Option<TurnId>,
    /// The assistant's answer.
    reply: String,
    /// The model that answered (`provider:model`).
    model: String,
    usage: Usage,
    /// Every tool the turn ran, in order, with what it touched.
    tool_calls: Vec<ToolRun>,
    /// Cards raised in the turn that await a decision (`/api/v1/approvals/{id}/confirm`).
    approvals: Vec<ActionCard>,
}

/// One tool call of a turn.
#[derive(ToSchema)]
pub(crate) struct ToolRun {
    name: String,
    ok: bool,
    /// What the call touched, in one line; null when the name says enough.
    touched: Option<String>,
}

/// A turn that failed, with the cards it raised before failing (they still await a decision).
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FailedTurn {
    conversation_id: ConversationId,
    turn_id: Option<TurnId>,
    approvals: Vec<ActionCard>,
    error: TurnError,
}

/// Why a turn failed. `kind` is a `FailureKind` or `internal`; `message` is safe to show.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TurnError {
    kind: String,
    message: String,
    retryable: bool,
}

/// A refusal of the request itself (`ErrorBody`) or a turn that ran and failed (`FailedTurn`).
#[derive(ToSchema)]
#[serde(untagged)]
pub(crate) enum MessageError {
    Refused(ErrorBody),
    Failed(FailedTurn),
}

/// `POST /api/v1/conversations/{id}/cancel`.
#[derive(ToSchema)]
pub(crate) struct CancelReply {
    conversation_id: ConversationId,
    /// False when no turn was running (nothing to stop).
    cancelled: bool,
}

#[derive(ToSchema)]
pub(crate) struct ConversationList {
    /// Most recently active first.
    conversations: Vec<ConversationSummary>,
}

#[derive(ToSchema)]
pub(crate) struct ConversationSummary {
    id: ConversationId,
    /// The owner's name for it; null = untitled.
    title: Option<ConversationTitle>,
    created_at_ms: i64,
    updated_at_ms: i64,
    message_count: u64,
}

/// A conversation and one page of its history, oldest first.
#[derive(ToSchema)]
pub(crate) struct ConversationHistory {
    conversation: ConversationSummary,
    messages: Vec<HistoryMessage>,
    /// The `before` of the previous page; null at the start of the conversation.
    next_before: Option<u64>,
}

/// One stored message.
#[derive(ToSchema)]
pub(crate) struct HistoryMessage {
    /// Position in the conversation: 0, 1, 2, ...
    seq: u64,
    at_ms: i64,
    role: Role,
    content: String,
    tool_calls: Vec<ToolCall>,
    tool_call_id: Option<String>,
    tool_name: Option<String>,
    /// What was attached (kind, type, size, name, blob), never the bytes.
    attachments: Vec<Attachment>,
}

/// A pending (or decided) action and its card, whole.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApprovalView {
    action: PendingAction,
    card: ActionCard,
}

/// How an action left `pending`, or null while it is pending.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApprovalListItem {
    action: PendingAction,
    card: ActionCard,
    decided: Option<ActionDecided>,
}

#[derive(ToSchema)]
pub(crate) struct ApprovalList {
    /// Newest first.
    actions: Vec<ApprovalListItem>,
}

/// One action, its card, how it was decided (null while pending) and its whole audit trail,
/// oldest first.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApprovalPage {
    action: PendingAction,
    card: ActionCard,
    decided: Option<ActionDecided>,
    trail: Vec<AuditStep>,
}

/// `GET /api/v1/approvals/count`.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PendingCount {
    /// Actions awaiting a decision.
    pending: u64,
}

/// A confirm or cancel that took effect. After a confirm, the agent's follow-up turn has
/// already run: its reply (or its error) and any new cards are here.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DecisionApplied {
    action: PendingAction,
    /// The tool's output, or why it failed.
    result: Option<String>,
    /// The follow-up turn's answer; null when there was none or it failed.
    reply: Option<String>,
    approvals: Vec<ActionCard>,
    /// Present when the follow-up turn failed.
    error: Option<TurnError>,
}

/// The same decision had already been made (a repeated confirm): nothing ran again.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DecisionAlready {
    action: PendingAction,
    /// Always true.
    already: bool,
}

/// What a decision route answers with 200.
#[derive(ToSchema)]
#[serde(untagged)]
pub(crate) enum DecisionReply {
    Applied(DecisionApplied),
    Already(DecisionAlready),
    /// A revision (the action stays pending with the new card).
    Revised(ApprovalView),
}

/// 409: the action was already decided otherwise (`kind` `conflict`), or the card changed
/// since it was shown (`kind` `stale_card`); nothing ran. The current action and card come
/// with it.
#[derive(ToSchema)]
pub(crate) struct DecisionConflict {
    error: crate::error::ErrorDetail,
    action: PendingAction,
    card: ActionCard,
}

#[derive(ToSchema)]
pub(crate) struct GrantList {
    grants: Vec<Grant>,
}

#[derive(ToSchema)]
pub(crate) struct GrantReply {
    grant: Grant,
}

#[derive(ToSchema)]
pub(crate) struct GrantRevoked {
    /// False when it was already revoked.
    revoked: bool,
}

#[derive(ToSchema)]
pub(crate) struct FactList {
    facts: Vec<Fact>,
}

#[derive(ToSchema)]
pub(crate) struct FactReply {
    fact: Fact,
}

#[derive(ToSchema)]
pub(crate) struct NoteList {
    /// Newest first.
    notes: Vec<Note>,
}

#[derive(ToSchema)]
pub(crate) struct NoteReply {
    note: Note,
}

/// A read-later item.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadLaterItem {
    id: i64,
    url: String,
    title: String,
    tags: Vec<String>,
    created_at_ms: i64,
    /// When it was first marked read; null while unread.
    read_at_ms: Option<i64>,
}

#[derive(ToSchema)]
pub(crate) struct ReadLaterList {
    /// Newest first.
    items: Vec<ReadLaterItem>,
}

#[derive(ToSchema)]
pub(crate) struct ReadLaterReply {
    item: ReadLaterItem,
}

/// Something reflection learned about the owner.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LearningView {
    id: i64,
    text: String,
    /// How many times reflection has seen it.
    recurrence: u32,
    last_seen_ms: i64,
}

#[derive(ToSchema)]
pub(crate) struct LearningList {
    /// Most recurrent first, then most recently seen.
    learnings: Vec<LearningView>,
}

/// A follow-up Steward keeps for the owner.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReminderView {
    id: i64,
    text: String,
    /// Null for an undated follow-up.
    due_at_ms: Option<i64>,
    /// Times Steward has brought it up (at most 3).
    nudges: u32,
    done: bool,
    created_at_ms: i64,
}

#[derive(ToSchema)]
pub(crate) struct ReminderList {
    /// Soonest due first, undated last.
    reminders: Vec<ReminderView>,
}

#[derive(ToSchema)]
pub(crate) struct ReminderReply {
    reminder: ReminderView,
}

/// A quarantined row the owner confirmed.
#[derive(ToSchema)]
pub(crate) struct MemoryConfirmed {
    confirmed: ConfirmedRow,
}

/// `{"kind":"fact","key":…}` or `{"kind":"note","id":…}`.
#[derive(ToSchema)]
pub(crate) struct ConfirmedRow {
    kind: MemoryKind,
    key: Option<String>,
    id: Option<i64>,
}

#[derive(ToSchema)]
pub(crate) struct SearchHits {
    /// Best first; rows under the relevance floor are left out.
    hits: Vec<SearchHit>,
}

/// One remembered row that matches.
#[derive(ToSchema)]
pub(crate) struct SearchHit {
    kind: MemoryKind,
    id: i64,
    /// Orders the hits (rank fusion); not a measure of fit.
    score: f64,
    /// 0..1 cosine similarity; null for a row found by its words only.
    similarity: Option<f64>,
    /// How well it matches.
    r#match: MatchStrength,
    title: String,
    text: String,
    tags: Vec<String>,
    /// Facts only.
    source: Option<FactSource>,
    provenance: Provenance,
    created_at_ms: i64,
    updated_at_ms: i64,
}

/// `unrated`: the embedding model's scale was not measured; `words`: found by its words only.
#[derive(ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum MatchStrength {
    Strong,
    Possible,
    Weak,
    Words,
    Unrated,
}

/// `POST /v1/chat/completions` without `stream`.
#[derive(ToSchema)]
pub(crate) struct ChatCompletion {
    id: String,
    /// `chat.completion`
    object: String,
    created: i64,
    model: String,
    choices: Vec<ChatChoice>,
    usage: ChatUsage,
}

#[derive(ToSchema)]
pub(crate) struct ChatChoice {
    index: u32,
    message: ChatReplyMessage,
    /// `stop`
    finish_reason: String,
    /// Always null.
    logprobs: Option<Value>,
}

/// The answer, with a line per tool run and an "[approval needed]" note per card.
#[derive(ToSchema)]
pub(crate) struct ChatReplyMessage {
    /// `assistant`
    role: String,
    content: String,
}

#[derive(ToSchema)]
pub(crate) struct ChatUsage {
    prompt_tokens: u64,
    completion_tokens: u64,
    total_tokens: u64,
}

#[derive(ToSchema)]
pub(crate) struct ModelList {
    /// `list`
    object: String,
    data: Vec<ModelObject>,
}

/// Steward serves one model, `steward`.
#[derive(ToSchema)]
pub(crate) struct ModelObject {
    id: String,
    /// `model`
    object: String,
    /// When this server started (Unix seconds).
    created: i64,
    owned_by: String,
}

/// No fields: the body of a decision that takes none is empty or `{}`.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoFields {}

/// A setting's new value: text, a number or a boolean.
// `Serialize` only to carry `#[serde(untagged)]`, which the derive reads.
#[derive(ToSchema, serde::Serialize)]
#[serde(untagged)]
pub(crate) enum SettingValue {
    Text(String),
    Number(f64),
    Flag(bool),
}

/// What kind of value a setting holds, so a form can pick its input.
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
pub(crate) enum SettingKindName {
    Text,
    Integer,
    Boolean,
    Model,
    Timezone,
}

/// Where a setting's value comes from.
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
pub(crate) enum SettingSourceName {
    Default,
    File,
    Env,
    App,
}

/// One runtime-settable setting.
#[derive(ToSchema)]
pub(crate) struct Setting {
    key: String,
    /// The value in force, as text; null when unset.
    value: Option<String>,
    /// What is in force without the app's value: the file's, else the default.
    fallback: Option<String>,
    source: SettingSourceName,
    kind: SettingKindName,
    /// Integers only: the smallest value allowed.
    min: Option<u64>,
    /// Integers only: the largest value allowed.
    max: Option<u64>,
    /// What the setting does.
    help: String,
    /// The rule a value must follow, in words.
    rule: String,
    /// The environment variable that fixes the value (then it cannot change here).
    locked_by: Option<String>,
}

/// `GET /api/v1/settings`.
#[derive(ToSchema)]
pub(crate) struct SettingList {
    settings: Vec<Setting>,
}

/// A session as sign-in and `GET /api/v1/session` show it (times in Unix seconds).
#[derive(ToSchema)]
pub(crate) struct SessionInfo {
    id: String,
    created_at: i64,
    expires_at: i64,
}

/// `POST /api/v1/session`.
#[derive(ToSchema)]
pub(crate) struct SignedIn {
    /// Send it as `X-CSRF-Token` with every change made with the cookie.
    csrf_token: String,
    session: SessionInfo,
}

/// `GET /api/v1/session`.
#[derive(ToSchema)]
pub(crate) struct CurrentSession {
    /// Null when the bearer token authenticated the request.
    csrf_token: Option<String>,
    session: Option<SessionInfo>,
    /// Whom the request acts for.
    principal: String,
}

/// One signed-in session (times in Unix seconds).
#[derive(ToSchema)]
pub(crate) struct ListedSession {
    id: String,
    created_at: i64,
    last_seen_at: i64,
    expires_at: i64,
    /// The browser's `User-Agent`, cleaned and cut; null when it sent none.
    user_agent: Option<String>,
    /// The session this request came with.
    current: bool,
}

/// `GET /api/v1/sessions`.
#[derive(ToSchema)]
pub(crate) struct SessionList {
    sessions: Vec<ListedSession>,
}

/// The database's size.
#[derive(ToSchema)]
pub(crate) struct StatusDatabase {
    /// Bytes of the file and its write-ahead log; null when it cannot be measured.
    bytes: Option<u64>,
}

/// `off`, `not_loaded` or `loaded`.
#[derive(ToSchema)]
#[schema(rename_all = "snake_case")]
pub(crate) enum EmbedderStateName {
    Off,
    NotLoaded,
    Loaded,
}

/// The embedding model.
#[derive(ToSchema)]
pub(crate) struct StatusEmbedder {
    state: EmbedderStateName,
    /// Null when off.
    model: Option<String>,
}

/// One configured MCP server.
#[derive(ToSchema)]
pub(crate) struct StatusMcpServer {
    name: String,
    /// `disabled`, `connecting`, `connected` or `down`.
    state: String,
    tools: u64,
    last_error: Option<String>,
}

/// One recent WARN or ERROR log event (redacted).
#[derive(ToSchema)]
pub(crate) struct StatusError {
    at_secs: i64,
    level: String,
    target: String,
    message: String,
}

/// Token use and cost of a day.
#[derive(ToSchema)]
pub(crate) struct UsageDay {
    /// `YYYY-MM-DD` in the usage's time zone.
    date: String,
    calls: u64,
    input_tokens: u64,
    output_tokens: u64,
    /// USD of the priced calls; null when there were calls and none had a price.
    cost_usd: Option<f64>,
    /// Calls the cost leaves out (no price known).
    unpriced_calls: u64,
}

/// Token use and cost of a model.
#[derive(ToSchema)]
pub(crate) struct UsageModel {
    /// `provider:model`.
    model: String,
    calls: u64,
    input_tokens: u64,
    output_tokens: u64,
    cost_usd: Option<f64>,
    unpriced_calls: u64,
}

/// Token use and cost over the whole window.
#[derive(ToSchema)]
pub(crate) struct UsageTotal {
    calls: u64,
    input_tokens: u64,
    output_tokens: u64,
    cost_usd: Option<f64>,
    unpriced_calls: u64,
}

/// Usage of the window, per day (oldest first) and per model.
#[derive(ToSchema)]
pub(crate) struct StatusUsage {
    /// The time zone the days are counted in.
    timezone: String,
    days: Vec<UsageDay>,
    by_model: Vec<UsageModel>,
    total: UsageTotal,
}

/// `GET /api/v1/status`.
#[derive(ToSchema)]
pub(crate) struct Status {
    version: String,
    uptime_secs: i64,
    model: Option<String>,
    fallback_model: Option<String>,
    database: StatusDatabase,
    embedder: StatusEmbedder,
    mcp: Vec<StatusMcpServer>,
    /// Oldest first.
    recent_errors: Vec<StatusError>,
    usage: StatusUsage,
}
