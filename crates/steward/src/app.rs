//! The composition root: configuration in, a running `Steward` out.

use crate::config::{LoadedConfig, Settings, provider_configs};
use anyhow::Context;
use std::sync::Arc;
use steward_core::approvals::ApprovalSettings;
use steward_core::{AgentSettings, MemoryWiring, ModelBinding, Steward, StewardDeps};
use steward_llm::{ModelRef, Models, RetryPolicy};
use steward_store::SqliteStore;
use steward_tools::{SqlToolsConfig, ToolRegistry, sql_tools};

/// The one user of a personal install, until multi-user principals arrive.
pub const OWNER: &str = "owner";

pub struct App {
    pub steward: Steward,
    pub store: Arc<SqliteStore>,
    pub memory: Arc<steward_memory::Memory>,
}

/// The database file inside the data directory.
pub fn database_path(settings: &Settings) -> std::path::PathBuf {
    settings.data_dir.join("steward.db")
}

/// Choices the command line can make on top of the configuration.
#[derive(Debug, Clone, Copy, Default)]
pub struct Overrides {
    /// `steward chat --auto-approve`: the explicit terminal opt-in.
    pub cli_auto_approve: bool,
}

/// The builtin tools, the memory tools and the guarded SQL tools over Steward's own database.
pub fn tools(
    settings: &Settings,
    memory: &Arc<steward_memory::Memory>,
) -> anyhow::Result<ToolRegistry> {
    let mut registry = steward_tools::builtin_registry();
    for tool in steward_tools::memory_tools(memory.clone(), OWNER.to_owned()) {
        registry.register(tool)?;
    }
    for tool in sql_tools(SqlToolsConfig {
        db_path: database_path(settings),
        max_rows: settings.sql.max_rows,
        timeout: settings.sql.timeout,
        allow_ddl: settings.sql.allow_ddl,
    }) {
        registry.register(tool)?;
    }
    Ok(registry)
}

pub fn build(loaded: &LoadedConfig, overrides: Overrides) -> anyhow::Result<App> {
    let settings = &loaded.settings;
    std::fs::create_dir_all(&settings.data_dir).with_context(|| {
        format!(
            "cannot create the data directory {} (set STEWARD_DATA_DIR to a writable place)",
            settings.data_dir.display()
        )
    })?;
    let store = Arc::new(SqliteStore::open(&database_path(settings))?);
    let memory = crate::memory_wiring::build_memory(settings, store.clone())?;
    let retry = RetryPolicy {
        max_retries: settings.model_retries,
        ..RetryPolicy::default()
    };
    let models = Models::new(provider_configs(settings), retry)?;
    let parse = |m: &Option<String>| -> anyhow::Result<Option<ModelRef>> {
        match m {
            None => Ok(None),
            Some(s) => {
                let r = ModelRef::parse(s)?;
                models.check(&r)?;
                Ok(Some(r))
            }
        }
    };
    let binding = ModelBinding {
        primary: parse(&settings.model)?,
        fallback: parse(&settings.fallback_model)?,
    };
    let extraction_model = parse(&settings.memory.extraction_model)?;
    let agent = &settings.agent;
    let steward = Steward::new(StewardDeps {
        store: store.clone(),
        models: Arc::new(models),
        tools: Arc::new(tools(settings, &memory)?),
        settings: AgentSettings {
            max_rounds: agent.max_rounds,
            max_turn_tokens: agent.max_turn_tokens,
            turn_timeout: agent.turn_timeout,
            history_messages: agent.history_messages,
            max_output_tokens: agent.max_output_tokens,
            timezone: Some(settings.timezone.clone()),
        },
        binding,
        approvals: ApprovalSettings {
            default_ttl: settings.approvals.ttl,
            cli_auto_approve: settings.approvals.cli_auto_approve || overrides.cli_auto_approve,
        },
        memory: Some(MemoryWiring {
            memory: memory.clone(),
            extract: settings.memory.extract,
            extraction_model,
        }),
    });
    Ok(App {
        steward,
        store,
        memory,
    })
}

/// Logs go to stderr; `filter` is a tracing filter like "info" or "steward_core=debug".
pub fn init_logging(filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}
