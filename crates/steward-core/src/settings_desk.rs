//! The `SettingsDesk` port: the settings a surface may read and change while Steward runs
//! (the web app's Settings page; later a chat command), in core's terms.
//!
//! Owns: the port and its plain types (`SettingView`, `SettingKind`, `SettingSource`,
//! `SettingsError`). Does not own: which settings exist, their rules, where they are stored or
//! how a change reaches the running assistant — the binary's config registry implements the
//! port (every value checked by that field's own rule, the same one a config file meets) and
//! applies a change through `Steward::set_agent_settings` / `set_binding`.

use steward_protocol::Principal;

/// What kind of value a setting holds, so a form can pick its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingKind {
    Text,
    Integer {
        min: u64,
        max: u64,
    },
    Boolean,
    /// `provider:model`.
    Model,
    /// An IANA time zone name.
    Timezone,
}

/// Where a setting's effective value comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingSource {
    Default,
    /// The config file.
    File,
    /// An environment variable (named by `SettingView::locked_by`); it wins over the rest, so
    /// the setting cannot be changed at runtime.
    Env,
    /// Set at runtime through this port and kept in the database.
    Runtime,
}

/// One runtime-settable setting as a surface shows it. Never a secret: no secret field is
/// runtime-settable (the registry's tests pin it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingView {
    pub key: String,
    /// The effective value as text (`None` = unset).
    pub value: Option<String>,
    /// The value it falls back to when the runtime value is cleared (file, else default).
    pub fallback: Option<String>,
    pub source: SettingSource,
    pub kind: SettingKind,
    /// One sentence: what the setting does.
    pub help: String,
    /// The rule a value must follow, in words ("an integer from 1 to 64").
    pub rule: String,
    /// The environment variable that fixes the value, when one does.
    pub locked_by: Option<String>,
}

/// Why a setting could not be read or changed; every message is a sentence for the owner and
/// never holds a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("there is no setting `{0}` that can be changed while Steward runs")]
    Unknown(String),
    #[error(
        "`{key}` is set by the environment variable {var}, which wins over the app; change or unset {var} and restart Steward"
    )]
    Locked { key: String, var: String },
    #[error("invalid value for `{key}`: {reason}")]
    Invalid { key: String, reason: String },
    #[error("only the owner may change settings")]
    Forbidden,
    #[error("the settings could not be saved: {0}")]
    Store(String),
}

/// The runtime-settable settings. A change is checked, kept in the database (it outlives a
/// restart) and in force from the next turn; on any error nothing changes.
#[async_trait::async_trait]
pub trait SettingsDesk: Send + Sync {
    async fn list(&self, who: &Principal) -> Result<Vec<SettingView>, SettingsError>;
    async fn set(
        &self,
        who: &Principal,
        key: &str,
        value: &str,
    ) -> Result<SettingView, SettingsError>;
    /// Drop the runtime value: the file's (or the default) is in force again.
    async fn reset(&self, who: &Principal, key: &str) -> Result<SettingView, SettingsError>;
}
