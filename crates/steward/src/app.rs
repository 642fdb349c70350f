//! The composition root: configuration in, a running `Steward` out. It makes the process's one
//! clock (`clock`, the system's) and opens the one store (`open_store`) that every command and
//! part shares.

use crate::config::{LoadedConfig, Settings, provider_configs};
use anyhow::Context;
use std::sync::Arc;
use steward_core::approvals::ApprovalSettings;
use steward_core::{MemoryWiring, ModelBinding, Steward, StewardDeps};
use steward_llm::{ModelRef, Models, RetryPolicy};
use steward_protocol::{Clock, SystemClock};
use steward_store::{FsBlobStore, Store, StoreConfig, StoreLocation};
use steward_tools::{SqlToolsConfig, ToolRegistry, sql_tools};

pub struct App {
    pub steward: Steward,
    /// The settings the app's Settings page changes while Steward runs.
    pub settings: Arc<crate::settings_desk::AppSettings>,
    /// The store `steward` runs on; `serve` hands the web sign-in its sessions and the
    /// password hash from it (the same connection, not a second one).
    pub store: Arc<dyn Store>,
    pub memory: Arc<steward_memory::Memory>,
    /// The model providers the assistant calls (the scheduler's reflection asks them too).
    /// The tool registry the assistant offers (the briefing's weather tool is called from it).
    pub tools: Arc<ToolRegistry>,
    pub models: Arc<Models>,
    /// The clock every part of this app reads "now" from.
    pub clock: Arc<dyn Clock>,
    /// The MCP client (None without servers): shut it down to end sessions properly.
    pub mcp: Option<Arc<steward_mcp::McpManager>>,
    /// The size limits of message parts the blob store enforces (the HTTP API checks the same).
    pub part_limits: steward_protocol::PartLimits,
}

/// Where the bytes of message parts live: `<data_dir>/blobs/`.
pub fn blobs_path(settings: &Settings) -> std::path::PathBuf {
    settings.data_dir.join("blobs")
}

/// The owner's principal id: the `owner` setting (default `owner`), the one definition of
/// whom the API token, the terminal and `steward mcp serve` act for. Surfaces turn it into a
/// `Principal` at their authentication step (`steward_server`'s bearer check,
/// `local_user`), never here.
pub fn owner_id(settings: &Settings) -> anyhow::Result<steward_protocol::PrincipalId> {
    steward_protocol::PrincipalId::parse(&settings.owner)
        .map_err(|e| anyhow::anyhow!("invalid owner setting: {e}"))
}

/// The database file inside the data directory.
pub fn database_path(settings: &Settings) -> std::path::PathBuf {
    settings.data_dir.join("steward.db")
}

/// The process's clock: the system's. Built once per command and handed to everything that
/// reads the time (store, memory, core, tools, server), so tests can hand in a `ManualClock`.
pub fn clock() -> Arc<dyn Clock> {
    SystemClock::shared()
}

/// The store of these settings (the database in the data directory), stamping times from
/// `clock`. Every command opens it here.
pub fn open_store(settings: &Settings, clock: Arc<dyn Clock>) -> anyhow::Result<Arc<dyn Store>> {
    Ok(steward_store::open(&StoreConfig {
        location: StoreLocation::SqliteFile(database_path(settings)),
        clock,
    })?)
}

/// Choices the command line can make on top of the configuration.
#[derive(Debug, Clone, Copy, Default)]
pub struct Overrides {
    /// `steward chat --auto-approve`: the explicit terminal opt-in.
    pub cli_auto_approve: bool,
}

/// Builtins needed rarely enough to sit in the tool index (one line each) rather than send
/// their schemas on every call; the model loads them, or just calls them, when needed.
const ON_DEMAND_BUILTINS: &[&str] = &["convert_time", "date_calc", "unit_convert"];

/// The builtin tools, the memory tools, the guarded SQL tools over Steward's own database
/// (on demand), the web tools (`fetch_url`, `web_search`), and the skills from `skills.dir`
/// (a bad skill is logged and skipped).
pub fn tools(
    settings: &Settings,
    memory: &Arc<steward_memory::Memory>,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<ToolRegistry> {
    Ok(tools_with_mcp(settings, memory, clock)?.0)
}

/// [`tools`], and the MCP client feeding it (None without servers).
pub fn tools_with_mcp(
    settings: &Settings,
    memory: &Arc<steward_memory::Memory>,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<(ToolRegistry, Option<Arc<steward_mcp::McpManager>>)> {
    let mut registry = ToolRegistry::new().with_index(settings.tools.index);
    for tool in steward_tools::builtin_tools(clock) {
        if ON_DEMAND_BUILTINS.contains(&tool.name()) {
            registry.register_on_demand(tool)?;
        } else {
            registry.register(tool)?;
        }
    }
    for tool in steward_tools::memory_tools(memory.clone()) {
        registry.register(tool)?;
    }
    for tool in sql_tools(SqlToolsConfig {
        db_path: database_path(settings),
        max_rows: settings.sql.max_rows,
        timeout: settings.sql.timeout,
        allow_ddl: settings.sql.allow_ddl,
    }) {
        registry.register_on_demand(tool)?;
    }
    // web_search stays registered without a backend (it answers how to enable it), but
    // then only in the index, so an unusable schema is not sent on every call.
    let search_ready = settings.web.search_backend != "none";
    for tool in steward_web::web_tools(web_config(settings)?) {
        if tool.name() == "web_search" && !search_ready {
            registry.register_on_demand(tool)?;
        } else {
            registry.register(tool)?;
        }
    }
    let skills = steward_tools::skills::load_skills(&settings.skills_dir());
    for error in &skills.errors {
        tracing::warn!(%error, "skill not loaded (see `steward doctor`)");
    }
    registry.set_skills(skills.skills);
    // run_code only once the sandbox has really worked here (it never runs unsandboxed).
    // The probe (~50 ms) starts with the first model call, not at start-up: see CodeSource.
    if settings.code.enabled {
        registry.add_source(steward_sandbox::CodeSource::lazy(code_config(settings)));
    }
    // MCP servers' tools (on demand): supervised in the background, never awaited here.
    let mcp = start_mcp_client(settings);
    for source in mcp.iter().flat_map(|m| m.sources()) {
        registry.add_source(source);
    }
    Ok((registry, mcp))
}

/// Start supervising every configured MCP server in the background (None when there are
/// none); start-up does not wait for any of them. Needs a Tokio runtime.
fn start_mcp_client(settings: &Settings) -> Option<Arc<steward_mcp::McpManager>> {
    (!settings.mcp_servers.is_empty())
        .then(|| steward_mcp::McpManager::start(settings.mcp_servers.clone()))
}

/// The sandbox's limits and interpreter from `code.*`.
pub fn code_config(settings: &Settings) -> steward_sandbox::CodeConfig {
    let code = &settings.code;
    steward_sandbox::CodeConfig {
        python: code.python.clone(),
        cpu_secs: code.cpu_secs,
        memory_mb: code.memory_mb,
        max_output_bytes: code.max_output_bytes,
        timeout: code.timeout,
    }
}

/// The web tools' configuration from `web.*` (values already checked by their rules).
pub fn web_config(settings: &Settings) -> anyhow::Result<steward_web::WebConfig> {
    let web = &settings.web;
    Ok(steward_web::WebConfig {
        allow_hosts: steward_web::AllowList::parse(&web.allow_hosts)?,
        fetch_max_bytes: web.fetch_max_bytes,
        fetch_timeout: web.fetch_timeout,
        max_redirects: web.max_redirects,
        search: steward_web::SearchConfig {
            backend: steward_web::SearchBackend::parse(&web.search_backend).unwrap_or_default(),
            base_url: web.search_url.clone(),
            api_key: web.search_api_key.clone(),
            max_results: web.search_max_results,
        },
        ..steward_web::WebConfig::default()
    })
}

/// The settings in force: `base` with the values set in the app (kept in `store`) over it.
pub async fn effective(base: &LoadedConfig, store: &dyn Store) -> anyhow::Result<Settings> {
    let stored = crate::settings_desk::read_stored(store).await?;
    Ok(base.with_runtime(&stored).0.settings)
}

/// Build the app from the loaded configuration with the values set in the app's Settings
/// page (kept in the store) applied over it.
pub async fn build(base: &LoadedConfig, overrides: Overrides) -> anyhow::Result<App> {
    let settings = &base.settings;
    std::fs::create_dir_all(&settings.data_dir).with_context(|| {
        format!(
            "cannot create the data directory {} (set STEWARD_DATA_DIR to a writable place)",
            settings.data_dir.display()
        )
    })?;
    let clock = clock();
    let store = open_store(settings, clock.clone())?;
    let stored = crate::settings_desk::read_stored(store.as_ref()).await?;
    let (loaded, problems) = base.with_runtime(&stored);
    for p in &problems {
        tracing::warn!(problem = %p, "a setting kept in the database was ignored");
    }
    let settings = &loaded.settings;
    let blobs = Arc::new(FsBlobStore::open(blobs_path(settings), settings.parts)?);
    let memory = crate::memory_wiring::build_memory(settings, store.clone(), clock.clone())?;
    let retry = RetryPolicy {
        max_retries: settings.model_retries,
        ..RetryPolicy::default()
    };
    let models = Arc::new(Models::new(provider_configs(settings), retry)?);
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
    let (mut tools, mcp) = tools_with_mcp(settings, &memory, clock.clone())?;
    // The reminder and task tools, on demand (one index line each until the model needs
    // them).
    let job_store: Arc<dyn steward_store::JobStore> = store.clone();
    let task_store: Arc<dyn steward_store::TaskStore> = store.clone();
    for tool in steward_jobs::tools::reminder_tools(job_store, clock.clone())
        .into_iter()
        .chain(steward_jobs::tools::task_tools(task_store, clock.clone()))
    {
        tools.register_on_demand(tool)?;
    }
    let tools = Arc::new(tools);
    let steward = Steward::new(StewardDeps {
        store: store.clone(),
        models: models.clone(),
        tools: tools.clone(),
        settings: crate::settings_desk::agent_settings(settings),
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
        secrets: settings.secret_values(),
        clock: clock.clone(),
        blobs: Some(blobs),
    });
    let runtime_settings = Arc::new(crate::settings_desk::AppSettings::new(
        base.clone(),
        stored,
        store.clone(),
        steward.clone(),
        owner_id(settings)?,
    ));
    Ok(App {
        settings: runtime_settings,
        steward,
        store,
        memory,
        models,
        tools,
        clock,
        mcp,
        part_limits: settings.parts,
    })
}

/// Logs go to stderr, redacted (see `logging`); `filter` is a tracing filter like "info" or
/// "steward_core=debug" (third-party crates stay at WARN unless it names them). Coloured
/// only when stderr is a terminal and NO_COLOR is unset.
pub fn init_logging(filter: &str) {
    use std::io::IsTerminal;
    let colour = std::io::stderr().is_terminal() && !no_colour();
    init_logging_with(filter, std::io::stderr, colour);
}

/// The filter of the commands that share the terminal with their user (`chat`, `memory`,
/// `approvals`):
/// the configured `log` when steward.toml or STEWARD_LOG sets it (the loader already counts
/// an empty variable as unset), else warnings only instead of the default `info`.
pub fn terminal_log_filter(loaded: &LoadedConfig) -> String {
    match loaded.source("log") {
        Some(crate::config::Source::Default) | None => "warn".to_owned(),
        Some(_) => loaded.settings.log.clone(),
    }
}

/// The log file of `steward chat`: `<data dir>/steward.log`.
pub fn log_path(settings: &Settings) -> std::path::PathBuf {
    settings.data_dir.join("steward.log")
}

/// Logs appended to `path` (owner-only, its directory created), never coloured: for
/// `steward chat`, whose terminal belongs to the conversation. When the file cannot be
/// opened, says so once and logs to stderr instead. Returns whether logs go to the file.
pub fn init_file_logging(filter: &str, path: &std::path::Path) -> bool {
    match open_log(path) {
        Ok(file) => {
            init_logging_with(filter, std::sync::Mutex::new(file), false);
            true
        }
        Err(e) => {
            eprintln!(
                "warning: cannot open the log file {}: {e}; logging to stderr",
                path.display()
            );
            init_logging(filter);
            false
        }
    }
}

fn open_log(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
}

/// NO_COLOR set to anything but the empty string (https://no-color.org).
fn no_colour() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// The one subscriber set-up; `writer` is where lines go (stderr or the chat log file),
/// always through the redaction of every configured secret (`logging::Redacting`). The
/// warnings and errors the filter lets through are also kept in the process's ring of
/// recent errors (`logging::recent`), redacted the same way.
fn init_logging_with<W>(filter: &str, writer: W, colour: bool)
where
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(crate::logging::env_filter(filter))
        .with_writer(crate::logging::Redacting(writer))
        .with_ansi(colour)
        .with_target(false)
        .finish()
        .with(crate::logging::recent::install(clock()))
        .try_init();
}
