//! `AppSettings`: core's `SettingsDesk` port over the config registry — the settings the
//! app's Settings page reads and changes while Steward runs.
//!
//! A change is checked by the field's own rule (`LoadedConfig::check_runtime`), pushed into
//! the running assistant (`Steward::set_binding`, `set_agent_settings`: in force from the next
//! turn), then kept in the store's protected `kv` table under `RUNTIME_KV_PREFIX`, so it
//! outlives a restart (`app::build` applies the stored values). If saving fails the running
//! assistant is put back: on any error nothing changed.
//!
//! Owns: that sequence and the mapping to core's view types. Does not own: the rules or the
//! precedence (`config::runtime`), the HTTP routes (steward-server).

use std::collections::BTreeMap;
use std::sync::Arc;

use steward_core::{
    AgentSettings, ModelBinding, SettingKind, SettingSource, SettingView, SettingsDesk,
    SettingsError, Steward,
};
use steward_llm::ModelRef;
use steward_protocol::{Principal, PrincipalId};
use steward_store::Store;

use crate::config::{
    LoadedConfig, RUNTIME_KV_PREFIX, RuntimeRefusal, RuntimeView, Settings, Source,
};

/// Most runtime values the store may hold (far more than there are runtime keys).
const MAX_STORED: usize = 256;

/// The runtime values kept in the store, by key.
pub async fn read_stored(store: &dyn Store) -> anyhow::Result<BTreeMap<String, String>> {
    let rows = store
        .kv_list_prefix(RUNTIME_KV_PREFIX, MAX_STORED)
        .await
        .map_err(|e| anyhow::anyhow!("cannot read the settings kept in the database: {e}"))?;
    Ok(rows
        .into_iter()
        .filter_map(|(k, v)| k.strip_prefix(RUNTIME_KV_PREFIX).map(|k| (k.to_owned(), v)))
        .collect())
}

/// The agent's budgets and time zone from the effective settings.
pub fn agent_settings(settings: &Settings) -> AgentSettings {
    let agent = &settings.agent;
    AgentSettings {
        max_rounds: agent.max_rounds,
        max_turn_tokens: agent.max_turn_tokens,
        turn_timeout: agent.turn_timeout,
        history_messages: agent.history_messages,
        max_output_tokens: agent.max_output_tokens,
        timezone: Some(settings.timezone.clone()),
        prices: settings.price_table(),
    }
}

fn model_ref(text: &Option<String>) -> Result<Option<ModelRef>, String> {
    text.as_deref()
        .map(|s| ModelRef::parse(s).map_err(|e| e.to_string()))
        .transpose()
}

/// The model binding from the effective settings (providers are checked by `set_binding`).
fn binding(settings: &Settings) -> Result<ModelBinding, String> {
    Ok(ModelBinding {
        primary: model_ref(&settings.model)?,
        fallback: model_ref(&settings.fallback_model)?,
    })
}

/// What is told of each committed change: the effective settings after it.
pub type SettingsHook = Arc<dyn Fn(&Settings) + Send + Sync>;

pub struct AppSettings {
    /// Defaults, file and environment: what each field falls back to.
    base: LoadedConfig,
    /// The values set in the app. Held across a whole change so two changes never interleave.
    stored: tokio::sync::Mutex<BTreeMap<String, String>>,
    store: Arc<dyn Store>,
    steward: Steward,
    owner: PrincipalId,
    /// Told of every committed change (the scheduler's `JobsControl`), once attached.
    on_change: std::sync::OnceLock<SettingsHook>,
}

impl AppSettings {
    /// Call `hook` with the effective settings after every change from now on (once: a
    /// second hook is refused and returned).
    pub fn on_change(&self, hook: SettingsHook) -> Result<(), SettingsHook> {
        self.on_change.set(hook)
    }

    pub fn new(
        base: LoadedConfig,
        stored: BTreeMap<String, String>,
        store: Arc<dyn Store>,
        steward: Steward,
        owner: PrincipalId,
    ) -> Self {
        Self {
            base,
            stored: tokio::sync::Mutex::new(stored),
            store,
            steward,
            owner,
            on_change: std::sync::OnceLock::new(),
        }
    }

    fn check_owner(&self, who: &Principal) -> Result<(), SettingsError> {
        if *who.id() == self.owner {
            Ok(())
        } else {
            Err(SettingsError::Forbidden)
        }
    }

    fn view(
        &self,
        stored: &BTreeMap<String, String>,
        key: &str,
    ) -> Result<SettingView, SettingsError> {
        let (effective, _) = self.base.with_runtime(stored);
        effective
            .runtime_view_of(key, &self.base)
            .map(to_core)
            .ok_or_else(|| SettingsError::Unknown(key.to_owned()))
    }

    /// Make `next` the app's values: push the settings it gives into the running assistant,
    /// then save the one key that changed; on a failed save, put the assistant back.
    async fn commit(
        &self,
        stored: &mut BTreeMap<String, String>,
        next: BTreeMap<String, String>,
        key: &str,
    ) -> Result<SettingView, SettingsError> {
        let (effective, problems) = self.base.with_runtime(&next);
        if let Some(p) = problems.iter().find(|p| p.refused_key() == Some(key)) {
            return Err(SettingsError::Invalid {
                key: key.to_owned(),
                reason: p.to_string(),
            });
        }
        let new_binding =
            binding(&effective.settings).map_err(|reason| SettingsError::Invalid {
                key: key.to_owned(),
                reason,
            })?;
        let old_binding = self.steward.binding();
        let old_agent = self.steward.agent_settings();
        self.steward
            .set_binding(new_binding)
            .map_err(|e| SettingsError::Invalid {
                key: key.to_owned(),
                reason: e.to_string(),
            })?;
        self.steward
            .set_agent_settings(agent_settings(&effective.settings));
        let kv_key = format!("{RUNTIME_KV_PREFIX}{key}");
        let saved = match next.get(key) {
            Some(value) => self.store.kv_put(&kv_key, value).await,
            None => self.store.kv_delete(&kv_key).await.map(|_| ()),
        };
        if let Err(e) = saved {
            // The old binding was in force a moment ago, so it passes its check again.
            let _ = self.steward.set_binding(old_binding);
            self.steward.set_agent_settings(old_agent);
            tracing::error!(error = %e, key, "could not save a setting");
            return Err(SettingsError::Store(
                "the database refused the change; nothing was changed".into(),
            ));
        }
        *stored = next;
        if let Some(hook) = self.on_change.get() {
            hook(&effective.settings);
        }
        tracing::info!(key, "setting changed in the app");
        self.view(stored, key)
    }
}

impl AppSettings {
    /// Take in values another process kept in the store since (`steward jobs disable`, a
    /// second replica's Settings page): the same push into the running assistant and the
    /// same hook as a change made here. True when something changed.
    pub async fn follow_store(&self) -> anyhow::Result<bool> {
        let fresh = read_stored(&*self.store).await?;
        let mut stored = self.stored.lock().await;
        if *stored == fresh {
            return Ok(false);
        }
        let (effective, problems) = self.base.with_runtime(&fresh);
        for p in &problems {
            tracing::warn!(problem = %p, "a setting kept in the database is not applied");
        }
        match binding(&effective.settings) {
            Ok(b) => {
                if let Err(e) = self.steward.set_binding(b) {
                    tracing::warn!(error = %e, "a model kept in the database is not applied");
                }
            }
            Err(reason) => tracing::warn!(%reason, "a model kept in the database is not applied"),
        }
        self.steward
            .set_agent_settings(agent_settings(&effective.settings));
        *stored = fresh;
        if let Some(hook) = self.on_change.get() {
            hook(&effective.settings);
        }
        tracing::info!("settings changed by another process are in force");
        Ok(true)
    }
}

/// Keep `value` for the runtime field `key` in the store (None: forget it, back to the file
/// or the default), checked by the field's own rule against `base` — what a terminal command
/// does with no assistant running; a running `steward serve` takes it in (`follow_store`).
/// Returns the value kept.
pub async fn keep_runtime(
    base: &LoadedConfig,
    store: &dyn Store,
    key: &str,
    value: Option<&str>,
) -> anyhow::Result<Option<String>> {
    let kv_key = format!("{RUNTIME_KV_PREFIX}{key}");
    let Some(raw) = value else {
        if base.runtime_view_of(key, base).is_none() {
            anyhow::bail!("{key} is not a setting that changes while Steward runs");
        }
        store
            .kv_delete(&kv_key)
            .await
            .map_err(|e| anyhow::anyhow!("could not save {key}: {e}"))?;
        return Ok(None);
    };
    let text = base.check_runtime(key, raw).map_err(|r| match r {
        RuntimeRefusal::Unknown => {
            anyhow::anyhow!("{key} is not a setting that changes while Steward runs")
        }
        RuntimeRefusal::Locked(var) => {
            anyhow::anyhow!("{key} is fixed by the environment variable {var}: change it there")
        }
        RuntimeRefusal::Invalid(reason) => anyhow::anyhow!("{key}: {reason}"),
    })?;
    store
        .kv_put(&kv_key, &text)
        .await
        .map_err(|e| anyhow::anyhow!("could not save {key}: {e}"))?;
    Ok(Some(text))
}

fn to_core(v: RuntimeView) -> SettingView {
    let kind = if let Some((min, max)) = v.int_range {
        SettingKind::Integer { min, max }
    } else if v.is_bool {
        SettingKind::Boolean
    } else if v.is_model {
        SettingKind::Model
    } else if v.is_timezone {
        SettingKind::Timezone
    } else {
        SettingKind::Text
    };
    let source = match v.source {
        Source::Default => SettingSource::Default,
        Source::File(_) => SettingSource::File,
        Source::Env(_) => SettingSource::Env,
        Source::Runtime => SettingSource::Runtime,
    };
    SettingView {
        key: v.key.to_owned(),
        value: v.value,
        fallback: v.fallback,
        source,
        kind,
        help: v.help.to_owned(),
        rule: v.rule,
        locked_by: v.locked_by,
    }
}

#[async_trait::async_trait]
impl SettingsDesk for AppSettings {
    async fn list(&self, who: &Principal) -> Result<Vec<SettingView>, SettingsError> {
        self.check_owner(who)?;
        let stored = self.stored.lock().await;
        let (effective, _) = self.base.with_runtime(&stored);
        Ok(effective
            .runtime_views(&self.base)
            .into_iter()
            .map(to_core)
            .collect())
    }

    async fn set(
        &self,
        who: &Principal,
        key: &str,
        value: &str,
    ) -> Result<SettingView, SettingsError> {
        self.check_owner(who)?;
        let text = self.base.check_runtime(key, value).map_err(|r| match r {
            RuntimeRefusal::Unknown => SettingsError::Unknown(key.to_owned()),
            RuntimeRefusal::Locked(var) => SettingsError::Locked {
                key: key.to_owned(),
                var,
            },
            RuntimeRefusal::Invalid(reason) => SettingsError::Invalid {
                key: key.to_owned(),
                reason,
            },
        })?;
        let mut stored = self.stored.lock().await;
        let mut next = stored.clone();
        next.insert(key.to_owned(), text);
        self.commit(&mut stored, next, key).await
    }

    async fn reset(&self, who: &Principal, key: &str) -> Result<SettingView, SettingsError> {
        self.check_owner(who)?;
        if self.base.runtime_view_of(key, &self.base).is_none() {
            return Err(SettingsError::Unknown(key.to_owned()));
        }
        let mut stored = self.stored.lock().await;
        if !stored.contains_key(key) {
            return self.view(&stored, key);
        }
        let mut next = stored.clone();
        next.remove(key);
        self.commit(&mut stored, next, key).await
    }
}
