//! The typed settings the binary consumes (`Settings`, `AgentSettings`, `ProviderSettings`).
//!
//! Owns: the plain structs, their secret-masking `Debug`, and small helpers on them
//! (`key_hint`, `requires_key`). Does not own: where values come from (see `load`),
//! validation rules (see `rules`), or the mapping to the model layer (see `llm`).

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;
use steward_protocol::secret_url::mask_url;

/// Fully resolved configuration (defaults < file < environment already applied).
#[derive(Clone, PartialEq, Eq)]
pub struct Settings {
    pub model: Option<String>,
    pub fallback_model: Option<String>,
    pub data_dir: PathBuf,
    pub timezone: String,
    /// The owner's principal id (`owner`): whom the API token and the terminal act for.
    pub owner: String,
    pub log: String,
    pub http_addr: SocketAddr,
    pub max_body_bytes: usize,
    pub http: HttpSettings,
    /// Secret: masked in `Debug`.
    pub api_token: Option<String>,
    /// The vault key, 64 hex digits (`STEWARD_VAULT_KEY`); None: the key file in the data
    /// directory. Secret: masked in `Debug`.
    pub vault_key: Option<String>,
    pub agent: AgentSettings,
    pub shutdown_grace: Duration,
    pub model_timeout: Duration,
    pub model_retries: u32,
    pub approvals: ApprovalConfig,
    /// The scheduled jobs' schedules (`jobs.*`).
    pub jobs: JobsSettings,
    /// The proactive budget (`proactive.*`).
    pub proactive: ProactiveSettings,
    pub sql: SqlConfig,
    pub web: WebSettings,
    /// The Telegram surface (`telegram.*`). `Debug` masks the bot token.
    pub telegram: TelegramSettings,
    /// The speech endpoints (`speech.*`). `Debug` masks the keys.
    pub speech: SpeechSettings,
    pub memory: MemorySettings,
    pub tools: ToolSettings,
    pub code: CodeSettings,
    /// Size limits of message parts (`parts.*`): the blob store and the HTTP API use them.
    pub parts: steward_protocol::PartLimits,
    /// Built-in providers first (openai, anthropic, gemini, ollama), then user-defined ones by name.
    pub providers: Vec<ProviderSettings>,
    /// `[mcp.servers.NAME]` tables, in name order. Env and header values are secrets: the
    /// spec's `Debug` shows only their names.
    pub mcp_servers: Vec<steward_mcp::ServerSpec>,
    /// `[prices]` entries: the owner's price of each `provider:model`, in file order.
    pub prices: Vec<(String, steward_llm::Price)>,
}

/// The scheduled jobs (`jobs.*`): each a schedule in `steward_jobs::schedule::Schedule`'s
/// words (`every 1m`, `daily 07:30`, `cron 0 9 * * 1-5`; empty = disabled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobsSettings {
    pub reminders: String,
    pub tasks: String,
    pub briefing: String,
    pub weekly_recap: String,
    pub follow_ups: String,
    pub reflection: String,
    pub retention: String,
    pub backfill: String,
    /// A read-only tool whose answer opens the morning briefing (None: no weather line).
    pub briefing_weather_tool: Option<String>,
    /// Its arguments, a JSON object.
    pub briefing_weather_args: String,
}

/// The proactive budget (`proactive.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProactiveSettings {
    /// `HH:MM-HH:MM` in the owner's time zone; None: no quiet hours.
    pub quiet_hours: Option<String>,
    /// Most proactive messages a day; 0: no cap.
    pub daily_cap: u32,
    /// Genres that never speak, comma-separated; None: none.
    pub silenced: Option<String>,
}

/// The HTTP server's connection limits, CORS origins and proxy trust (`http.*` besides the
/// address and body cap).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSettings {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
    pub max_connections_per_ip: usize,
    /// Browser origins that may read API responses (`http.cors_origins`).
    pub cors_origins: steward_server::CorsOrigins,
    /// A reverse proxy's forwarding headers are true (`http.trusted_proxy`).
    pub trusted_proxy: bool,
}

/// Limits of one agent turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSettings {
    pub max_rounds: u32,
    pub max_turn_tokens: u64,
    pub turn_timeout: Duration,
    pub history_messages: usize,
    pub max_output_tokens: u32,
}

/// The approval gate's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalConfig {
    pub ttl: Duration,
    pub cli_auto_approve: bool,
    pub sweep: Duration,
}

/// Memory: embeddings, per-turn context, extraction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemorySettings {
    /// `local` | `none` | `openai:<model>` | `gemini:<model>` | `ollama:<model>`.
    pub embedder: String,
    pub model_dir: Option<PathBuf>,
    pub embed_dims: usize,
    pub context_budget_tokens: usize,
    pub extract: bool,
    pub extraction_model: Option<String>,
    /// Lowest similarity (percent) of a row found by its vector alone; None = the floor
    /// measured for the embedding model (none for an unmeasured one).
    pub min_similarity_percent: Option<u8>,
}

/// How tools reach the model, and the skills folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSettings {
    /// Offer on-demand tools through the `load_tools` index instead of every schema.
    pub index: bool,
    /// Skills folder; None = `<data_dir>/skills`.
    pub skills_dir: Option<PathBuf>,
}

impl Settings {
    /// Where skills are loaded from: `skills.dir`, else `<data_dir>/skills`.
    pub fn skills_dir(&self) -> PathBuf {
        self.tools
            .skills_dir
            .clone()
            .unwrap_or_else(|| self.data_dir.join("skills"))
    }
}

/// The Telegram bot's settings (`telegram.*`). `Debug` masks the token.
#[derive(Clone, PartialEq, Eq)]
pub struct TelegramSettings {
    /// Secret: masked in `Debug`.
    pub bot_token: Option<String>,
    /// Empty (the default) lets nobody in.
    pub allowed_users: steward_telegram::AllowedUsers,
    pub allow_groups: bool,
    pub api_base_url: String,
    /// `/model NAME` may switch the model.
    pub model_switch: bool,
    /// Webhook mode when set (with `webhook_secret`); long polling otherwise.
    pub webhook_url: Option<String>,
    /// Secret: masked in `Debug`.
    pub webhook_secret: Option<String>,
}

impl fmt::Debug for TelegramSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TelegramSettings")
            .field("bot_token", &Masked(&self.bot_token))
            .field("allowed_users", &self.allowed_users)
            .field("allow_groups", &self.allow_groups)
            .field("model_switch", &self.model_switch)
            .field("webhook_url", &self.webhook_url.as_deref().map(mask_url))
            .field("webhook_secret", &Masked(&self.webhook_secret))
            .field("api_base_url", &mask_url(&self.api_base_url))
            .finish()
    }
}

/// The speech endpoints' settings (`speech.*`): OpenAI-compatible speech-to-text for voice
/// notes, and text-to-speech for spoken answers. `Debug` masks the keys.
#[derive(Clone, PartialEq, Eq)]
pub struct SpeechSettings {
    pub stt_base_url: Option<String>,
    pub stt_model: String,
    /// Secret: masked in `Debug`.
    pub stt_api_key: Option<String>,
    pub tts_base_url: Option<String>,
    pub tts_model: String,
    pub tts_voice: String,
    /// Secret: masked in `Debug`.
    pub tts_api_key: Option<String>,
}

impl fmt::Debug for SpeechSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpeechSettings")
            .field("stt_base_url", &self.stt_base_url.as_deref().map(mask_url))
            .field("stt_model", &self.stt_model)
            .field("stt_api_key", &Masked(&self.stt_api_key))
            .field("tts_base_url", &self.tts_base_url.as_deref().map(mask_url))
            .field("tts_model", &self.tts_model)
            .field("tts_voice", &self.tts_voice)
            .field("tts_api_key", &Masked(&self.tts_api_key))
            .finish()
    }
}

/// The web tools' settings (`fetch_url`, `web_search`). `Debug` masks the search key.
#[derive(Clone, PartialEq, Eq)]
pub struct WebSettings {
    /// Hosts `fetch_url` may reach on local or private addresses (comma-separated).
    pub allow_hosts: String,
    pub fetch_max_bytes: usize,
    pub fetch_timeout: Duration,
    pub max_redirects: usize,
    /// `none` | `searxng` | `brave` | `tavily`.
    pub search_backend: String,
    pub search_url: Option<String>,
    /// Secret: masked in `Debug`.
    pub search_api_key: Option<String>,
    pub search_max_results: usize,
}

impl fmt::Debug for WebSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebSettings")
            .field("allow_hosts", &self.allow_hosts)
            .field("fetch_max_bytes", &self.fetch_max_bytes)
            .field("fetch_timeout", &self.fetch_timeout)
            .field("max_redirects", &self.max_redirects)
            .field("search_backend", &self.search_backend)
            .field("search_url", &self.search_url.as_deref().map(mask_url))
            .field("search_api_key", &Masked(&self.search_api_key))
            .field("search_max_results", &self.search_max_results)
            .finish()
    }
}

/// `run_code`'s sandbox (`code.*`): offered only when enabled and the start-up probe passes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeSettings {
    pub enabled: bool,
    pub cpu_secs: u64,
    pub memory_mb: u64,
    pub max_output_bytes: usize,
    pub timeout: Duration,
    pub python: PathBuf,
}

/// The guarded SQL tools' settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlConfig {
    pub allow_ddl: bool,
    pub max_rows: usize,
    pub timeout: Duration,
}

/// Wire protocol a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKindSetting {
    OpenAi,
    Anthropic,
    Gemini,
}

impl ProviderKindSetting {
    /// The spelling used in `kind = "..."`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
        }
    }

    /// Inverse of [`as_str`](Self::as_str).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "openai" => Some(Self::OpenAi),
            "anthropic" => Some(Self::Anthropic),
            "gemini" => Some(Self::Gemini),
            _ => None,
        }
    }
}

/// One model provider (built-in or `[providers.NAME]` from the file).
#[derive(Clone, PartialEq, Eq)]
pub struct ProviderSettings {
    pub name: String,
    pub kind: ProviderKindSetting,
    pub base_url: String,
    /// Secret: masked in `Debug`.
    pub api_key: Option<String>,
    /// Env var where the key is expected; used in messages, never holds the key itself.
    pub api_key_env: Option<String>,
    pub stream: bool,
    /// Which part kinds its models are sent (`providers.NAME.parts`); None = all its API takes.
    pub parts: Option<Vec<steward_protocol::PartKind>>,
}

impl ProviderSettings {
    /// What the user should do to provide this provider's key, e.g. `set OPENAI_API_KEY`.
    pub fn key_hint(&self) -> String {
        match &self.api_key_env {
            Some(var) => format!("set {var}"),
            None => format!(
                "set providers.{}.api_key (or api_key_env) in steward.toml",
                self.name
            ),
        }
    }

    /// Whether calls to this provider are pointless without a key. OpenAI-compatible
    /// servers with no declared key variable (Ollama, llama.cpp, vLLM...) usually run
    /// without auth, while Anthropic and Gemini never do.
    pub fn requires_key(&self) -> bool {
        self.api_key_env.is_some() || self.kind != ProviderKindSetting::OpenAi
    }
}

/// Built-in providers: name, kind, env var holding the key (None = no key needed).
pub(crate) const BUILTIN_PROVIDERS: [(&str, ProviderKindSetting, Option<&str>); 4] = [
    (
        "openai",
        ProviderKindSetting::OpenAi,
        Some("OPENAI_API_KEY"),
    ),
    (
        "anthropic",
        ProviderKindSetting::Anthropic,
        Some("ANTHROPIC_API_KEY"),
    ),
    (
        "gemini",
        ProviderKindSetting::Gemini,
        Some("GEMINI_API_KEY"),
    ),
    ("ollama", ProviderKindSetting::OpenAi, None),
];

pub(crate) fn is_builtin_provider(name: &str) -> bool {
    BUILTIN_PROVIDERS.iter().any(|(n, _, _)| *n == name)
}

impl Settings {
    /// Placeholder values that the registry defaults overwrite before anyone sees them.
    pub(crate) fn skeleton() -> Self {
        let providers = BUILTIN_PROVIDERS
            .iter()
            .map(|(name, kind, env)| ProviderSettings {
                name: (*name).to_string(),
                kind: *kind,
                base_url: String::new(),
                api_key: None,
                api_key_env: env.map(str::to_string),
                stream: true,
                parts: None,
            })
            .collect();
        Self {
            model: None,
            fallback_model: None,
            data_dir: PathBuf::new(),
            timezone: String::new(),
            owner: String::new(),
            log: String::new(),
            http_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            max_body_bytes: 0,
            http: HttpSettings {
                header_timeout: Duration::ZERO,
                idle_timeout: Duration::ZERO,
                max_connections: 0,
                max_connections_per_ip: 0,
                cors_origins: steward_server::CorsOrigins::default(),
                trusted_proxy: false,
            },
            api_token: None,
            vault_key: None,
            agent: AgentSettings {
                max_rounds: 0,
                max_turn_tokens: 0,
                turn_timeout: Duration::ZERO,
                history_messages: 0,
                max_output_tokens: 0,
            },
            shutdown_grace: Duration::ZERO,
            model_timeout: Duration::ZERO,
            model_retries: 0,
            approvals: ApprovalConfig {
                ttl: Duration::ZERO,
                cli_auto_approve: false,
                sweep: Duration::ZERO,
            },
            jobs: JobsSettings {
                reminders: String::new(),
                tasks: String::new(),
                briefing: String::new(),
                weekly_recap: String::new(),
                follow_ups: String::new(),
                reflection: String::new(),
                retention: String::new(),
                backfill: String::new(),
                briefing_weather_tool: None,
                briefing_weather_args: String::new(),
            },
            proactive: ProactiveSettings {
                quiet_hours: None,
                daily_cap: 0,
                silenced: None,
            },
            sql: SqlConfig {
                allow_ddl: false,
                max_rows: 0,
                timeout: Duration::ZERO,
            },
            web: WebSettings {
                allow_hosts: String::new(),
                fetch_max_bytes: 0,
                fetch_timeout: Duration::ZERO,
                max_redirects: 0,
                search_backend: String::new(),
                search_url: None,
                search_api_key: None,
                search_max_results: 0,
            },
            telegram: TelegramSettings {
                bot_token: None,
                allowed_users: steward_telegram::AllowedUsers::default(),
                allow_groups: false,
                model_switch: false,
                webhook_url: None,
                webhook_secret: None,
                api_base_url: String::new(),
            },
            speech: SpeechSettings {
                stt_base_url: None,
                stt_model: String::new(),
                stt_api_key: None,
                tts_base_url: None,
                tts_model: String::new(),
                tts_voice: String::new(),
                tts_api_key: None,
            },
            memory: MemorySettings {
                embedder: String::new(),
                model_dir: None,
                embed_dims: 0,
                context_budget_tokens: 0,
                extract: false,
                extraction_model: None,
                min_similarity_percent: None,
            },
            tools: ToolSettings {
                index: true,
                skills_dir: None,
            },
            code: CodeSettings {
                enabled: false,
                cpu_secs: 0,
                memory_mb: 0,
                max_output_bytes: 0,
                timeout: Duration::ZERO,
                python: PathBuf::new(),
            },
            parts: steward_protocol::PartLimits::default(),
            providers,
            mcp_servers: Vec::new(),
            prices: Vec::new(),
        }
    }

    /// The provider with this name, if configured.
    pub fn provider(&self, name: &str) -> Option<&ProviderSettings> {
        self.providers.iter().find(|p| p.name == name)
    }

    /// What model calls cost: the built-in prices with the `[prices]` entries over them.
    pub fn price_table(&self) -> steward_llm::PriceTable {
        self.prices
            .iter()
            .fold(steward_llm::PriceTable::builtin(), |t, (model, price)| {
                t.with_override(model.clone(), *price)
            })
    }

    /// Every secret value in the configuration (the API token, provider and search keys,
    /// MCP credentials): the taint rule asks before any of them leaves in an outbound call.
    pub fn secret_values(&self) -> Vec<String> {
        let mut out: Vec<String> = self.api_token.iter().cloned().collect();
        out.extend(self.vault_key.iter().cloned());
        out.extend(self.providers.iter().filter_map(|p| p.api_key.clone()));
        out.extend(self.web.search_api_key.iter().cloned());
        for spec in &self.mcp_servers {
            out.extend(spec.secret_values());
        }
        out.retain(|s| !s.trim().is_empty());
        out
    }

    pub(crate) fn provider_mut(&mut self, name: &str) -> Option<&mut ProviderSettings> {
        self.providers.iter_mut().find(|p| p.name == name)
    }
}

/// Split `provider:model` at the first colon (model names like `llama3.2:3b` keep theirs).
pub fn split_model_ref(model: &str) -> Option<(&str, &str)> {
    let (provider, name) = model.split_once(':')?;
    (!provider.is_empty() && !name.is_empty()).then_some((provider, name))
}

struct Masked<'a>(&'a Option<String>);

impl fmt::Debug for Masked<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(_) => f.write_str("Some(\"********\")"),
            None => f.write_str("None"),
        }
    }
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("model", &self.model)
            .field("fallback_model", &self.fallback_model)
            .field("data_dir", &self.data_dir)
            .field("timezone", &self.timezone)
            .field("owner", &self.owner)
            .field("log", &self.log)
            .field("http_addr", &self.http_addr)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("http", &self.http)
            .field("api_token", &Masked(&self.api_token))
            .field("vault_key", &Masked(&self.vault_key))
            .field("agent", &self.agent)
            .field("shutdown_grace", &self.shutdown_grace)
            .field("model_timeout", &self.model_timeout)
            .field("model_retries", &self.model_retries)
            .field("approvals", &self.approvals)
            .field("sql", &self.sql)
            .field("web", &self.web)
            .field("telegram", &self.telegram)
            .field("speech", &self.speech)
            .field("jobs", &self.jobs)
            .field("proactive", &self.proactive)
            .field("memory", &self.memory)
            .field("code", &self.code)
            .field("parts", &self.parts)
            .field("providers", &self.providers)
            .field("mcp_servers", &self.mcp_servers)
            .field("prices", &self.prices)
            .finish()
    }
}

impl fmt::Debug for ProviderSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderSettings")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("base_url", &mask_url(&self.base_url))
            .field("api_key", &Masked(&self.api_key))
            .field("api_key_env", &self.api_key_env)
            .field("stream", &self.stream)
            .field("parts", &self.parts)
            .finish()
    }
}
