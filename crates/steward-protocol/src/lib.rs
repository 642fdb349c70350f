//! Plain types shared by all Steward crates: ids and validated values, chat messages and their
//! parts (attachments, uploads, blob references), tool calls, usage, tool effects, inbound
//! messages, the `TurnEvent` stream that surfaces project, and the clock port (`Clock`) every
//! read of the wall-clock time goes through.
//!
//! Owns: the vocabulary. Does not own: any IO, storage, wire format of a model API,
//! or policy. Nothing here may depend on another Steward crate.

mod action;
mod clock;
mod event;
mod feed;
mod ids;
mod memory;
mod message;
mod parts;
mod request;
pub mod secret_url;
mod title;
pub mod untrusted;
mod upload;
mod values;

pub use action::{
    ActionCard, ActionDecided, ActionKind, ActionStatus, AuditStep, Decision, DecisionKind, Grant,
    PendingAction,
};
pub use clock::{Clock, ManualClock, SystemClock};
pub use event::{FailureKind, TurnEvent};
pub use feed::FeedEvent;
pub use ids::{ConversationId, IdError, Principal, Surface};
pub use memory::{Fact, FactSource, MemoryKind, MemoryRef, Note, Provenance, Quarantine};
pub use message::{Effect, Inbound, Message, Role, ToolCall, ToolSpec, Usage};
pub use parts::{
    Attachment, BlobRef, FileName, MAX_FILE_NAME_LEN, MimeType, PartError, PartKind, human_size,
};
pub use request::{Replay, RequestKey, RequestKeyError};
pub use title::{ConversationTitle, MAX_TITLE_CHARS, TitleError};
pub use upload::{
    DEFAULT_MAX_MESSAGE_PART_BYTES, DEFAULT_MAX_PART_BYTES, DEFAULT_MAX_PARTS, PartLimits, Upload,
};
pub use values::{
    ActionId, FactKey, GrantId, JobName, MAX_FACT_KEY_LEN, MAX_JOB_NAME_LEN, MAX_OPAQUE_ID_LEN,
    MAX_PRINCIPAL_ID_LEN, MAX_SCHEDULED_ID_LEN, MAX_TAG_LEN, MAX_TAGS, MAX_TOOL_NAME_LEN,
    PrincipalId, Problem, ScheduledId, Tag, ToolName, TurnId, ValueError, ValueKind,
};
