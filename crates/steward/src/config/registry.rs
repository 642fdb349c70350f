//! The single table of configuration fields: key, env var, default, rule, secrecy, help,
//! and where the value lands in `Settings`.
//!
//! Owns: the declaration of every built-in key (each exactly once). Does not own:
//! reading files or env (see `file`, `mod`), user-defined `[providers.NAME]` tables
//! (see `file`; their keys are `USER_PROVIDER_KEYS`), the `[prices]` entries (`prices`; their
//! keys are `PRICE_KEYS`), or rendering (see `show`). Adding a key = adding one entry here.

use std::path::PathBuf;
use std::time::Duration;

use super::rules::{Rule, Value};
use super::settings::Settings;

/// Where a field's default comes from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Default {
    /// No default: the setting is `None` unless given.
    None,
    /// Literal text, checked by the field's own rule like any other input.
    Text(&'static str),
    /// `$XDG_DATA_HOME/steward`, else `$HOME/.local/share/steward`, else `./.steward`.
    DataDir,
}

/// One configuration key.
pub(crate) struct Field {
    pub key: &'static str,
    pub env: Option<&'static str>,
    pub default: Default,
    pub rule: Rule,
    pub secret: bool,
    /// May change while Steward runs (the app's Settings page, `SettingsDesk`): read per turn
    /// by core, never a secret. The value set at runtime is kept in the database.
    pub runtime: bool,
    pub help: &'static str,
    pub apply: fn(&mut Settings, &Value),
}

fn to_u32(v: &Value) -> u32 {
    u32::try_from(v.int()).unwrap_or(u32::MAX)
}

fn to_usize(v: &Value) -> usize {
    usize::try_from(v.int()).unwrap_or(usize::MAX)
}

fn secs(v: &Value) -> Duration {
    Duration::from_secs(v.int())
}

fn set_key(s: &mut Settings, provider: &str, v: &Value) {
    if let Some(p) = s.provider_mut(provider) {
        p.api_key = Some(v.text());
    }
}

fn set_url(s: &mut Settings, provider: &str, v: &Value) {
    if let Some(p) = s.provider_mut(provider) {
        p.base_url = v.text();
    }
}

fn set_stream(s: &mut Settings, provider: &str, v: &Value) {
    if let Some(p) = s.provider_mut(provider) {
        p.stream = v.flag();
    }
}

fn set_parts(s: &mut Settings, provider: &str, v: &Value) {
    if let Some(p) = s.provider_mut(provider) {
        p.parts = super::rules::part_kinds(&v.text());
    }
}

fn mib(v: &Value) -> u64 {
    v.int().saturating_mul(1024 * 1024)
}

const PARTS_HELP: &str = "Which message parts this provider's models are sent (`none` for a text-only model); unset = every kind its API takes";

const STREAM_HELP: &str =
    "Stream responses; false = never stream (for servers whose streamed tool calls are broken)";

/// Every built-in key, in the order `config show` and the docs list them.
pub(crate) static FIELDS: &[Field] = &[
    Field {
        key: "model",
        env: Some("STEWARD_MODEL"),
        default: Default::None,
        rule: Rule::ModelRef,
        secret: false,
        runtime: true,
        help: "Primary model as provider:model (openai, anthropic, gemini, ollama or a [providers.NAME])",
        apply: |s, v| s.model = Some(v.text()),
    },
    Field {
        key: "fallback_model",
        env: Some("STEWARD_FALLBACK_MODEL"),
        default: Default::None,
        rule: Rule::ModelRef,
        secret: false,
        runtime: true,
        help: "Model tried when the primary one fails, same form as `model`",
        apply: |s, v| s.fallback_model = Some(v.text()),
    },
    Field {
        key: "data_dir",
        env: Some("STEWARD_DATA_DIR"),
        default: Default::DataDir,
        rule: Rule::Path,
        secret: false,
        runtime: false,
        help: "Directory for the database and state; $XDG_DATA_HOME/steward, else $HOME/.local/share/steward, else ./.steward",
        apply: |s, v| s.data_dir = PathBuf::from(v.text()),
    },
    Field {
        key: "timezone",
        env: Some("STEWARD_TIMEZONE"),
        default: Default::Text("UTC"),
        rule: Rule::Timezone,
        secret: false,
        runtime: true,
        help: "IANA time zone used for dates shown to the model and schedules",
        apply: |s, v| s.timezone = v.text(),
    },
    Field {
        key: "owner",
        env: Some("STEWARD_OWNER"),
        default: Default::Text("owner"),
        rule: Rule::PrincipalId,
        secret: false,
        runtime: false,
        help: "The owner's principal id: whom the API token, the terminal and `steward mcp serve` act for; memory, approvals and grants are kept under it (changing it hides what was kept under the old id)",
        apply: |s, v| s.owner = v.text(),
    },
    Field {
        key: "log",
        env: Some("STEWARD_LOG"),
        default: Default::Text("info"),
        rule: Rule::NonEmpty,
        secret: false,
        runtime: false,
        help: "Log filter (tracing EnvFilter syntax, e.g. `info,steward_llm=debug`): the bare level is Steward's; other libraries log at WARN unless named (`info,rmcp=debug`)",
        apply: |s, v| s.log = v.text(),
    },
    Field {
        key: "http.addr",
        env: Some("STEWARD_HTTP_ADDR"),
        default: Default::Text("127.0.0.1:8080"),
        rule: Rule::SocketAddr,
        secret: false,
        runtime: false,
        help: "Address the HTTP API listens on",
        apply: |s, v| {
            if let Ok(addr) = v.text().parse() {
                s.http_addr = addr;
            }
        },
    },
    Field {
        key: "http.max_body_bytes",
        env: Some("STEWARD_HTTP_MAX_BODY_BYTES"),
        default: Default::Text("1048576"),
        rule: Rule::Int {
            min: 1024,
            max: 64 * 1024 * 1024,
        },
        secret: false,
        runtime: false,
        help: "Largest accepted HTTP request body, in bytes (1 KiB..=64 MiB)",
        apply: |s, v| s.max_body_bytes = to_usize(v),
    },
    Field {
        key: "http.header_timeout_secs",
        env: Some("STEWARD_HTTP_HEADER_TIMEOUT_SECS"),
        default: Default::Text("10"),
        rule: Rule::Int { min: 1, max: 300 },
        secret: false,
        runtime: false,
        help: "A request's headers must arrive within this many seconds (from connecting, or from the first byte after an idle spell), else the connection is closed",
        apply: |s, v| s.http.header_timeout = secs(v),
    },
    Field {
        key: "http.idle_timeout_secs",
        env: Some("STEWARD_HTTP_IDLE_TIMEOUT_SECS"),
        default: Default::Text("60"),
        rule: Rule::Int { min: 1, max: 3600 },
        secret: false,
        runtime: false,
        help: "A kept-alive HTTP connection with no request for this many seconds is closed (a streaming answer is never cut)",
        apply: |s, v| s.http.idle_timeout = secs(v),
    },
    Field {
        key: "http.max_connections",
        env: Some("STEWARD_HTTP_MAX_CONNECTIONS"),
        default: Default::Text("256"),
        rule: Rule::Int {
            min: 1,
            max: 65_536,
        },
        secret: false,
        runtime: false,
        help: "Most open HTTP connections; at the cap the oldest connection that never presented the token (then the oldest idle one) is closed for the newcomer. Keep it under the process's file limit (`ulimit -n`) minus 64",
        apply: |s, v| s.http.max_connections = to_usize(v),
    },
    Field {
        key: "http.max_connections_per_ip",
        env: Some("STEWARD_HTTP_MAX_CONNECTIONS_PER_IP"),
        default: Default::Text("64"),
        rule: Rule::Int {
            min: 1,
            max: 65_536,
        },
        secret: false,
        runtime: false,
        help: "Most open HTTP connections from one client address (IPv6: one /64), displacing that address's own waiting connections first; behind a reverse proxy every client has the proxy's address, so raise it to http.max_connections",
        apply: |s, v| s.http.max_connections_per_ip = to_usize(v),
    },
    Field {
        key: "http.cors_origins",
        env: Some("STEWARD_HTTP_CORS_ORIGINS"),
        default: Default::None,
        rule: Rule::OriginList,
        secret: false,
        runtime: false,
        help: "Browser origins whose pages may call the API (CORS), e.g. `https://chat.example.com, http://localhost:3000`; none by default. The bearer token is still required",
        apply: |s, v| {
            s.http.cors_origins = steward_server::CorsOrigins::parse(&v.text()).unwrap_or_default()
        },
    },
    Field {
        key: "http.trusted_proxy",
        env: Some("STEWARD_HTTP_TRUSTED_PROXY"),
        default: Default::Text("false"),
        rule: Rule::Bool,
        secret: false,
        runtime: false,
        help: "Steward is reached only through a reverse proxy that sets X-Forwarded-For and X-Forwarded-Proto: the client's address (for the failed sign-in limit) is then the last X-Forwarded-For hop, and the session cookie is Secure when X-Forwarded-Proto says https. Leave false when clients can reach Steward directly: they could send those headers themselves",
        apply: |s, v| s.http.trusted_proxy = v.flag(),
    },
    Field {
        key: "api_token",
        env: Some("STEWARD_API_TOKEN"),
        default: Default::None,
        rule: Rule::Token,
        secret: true,
        runtime: false,
        help: "Bearer token required by the HTTP API; generated by `steward serve` when unset",
        apply: |s, v| s.api_token = Some(v.text()),
    },
    Field {
        key: "vault.key",
        env: Some("STEWARD_VAULT_KEY"),
        default: Default::None,
        rule: Rule::VaultKey,
        secret: true,
        runtime: false,
        help: "The key the vault seals secrets with; unset: a key file `vault.key` made 0600 in the data directory on first use",
        apply: |s, v| s.vault_key = Some(v.text()),
    },
    Field {
        key: "parts.max_part_mb",
        env: Some("STEWARD_MAX_PART_MB"),
        default: Default::Text("20"),
        rule: Rule::Int { min: 1, max: 512 },
        secret: false,
        runtime: false,
        help: "Largest image, audio clip or file one message may carry, in MiB (larger is refused before it is stored)",
        apply: |s, v| s.parts.max_part_bytes = mib(v),
    },
    Field {
        key: "parts.max_message_mb",
        env: Some("STEWARD_MAX_MESSAGE_PARTS_MB"),
        default: Default::Text("32"),
        rule: Rule::Int { min: 1, max: 1024 },
        secret: false,
        runtime: false,
        help: "Most MiB of parts one message may carry together (the HTTP API's body limit grows by this, in base64)",
        apply: |s, v| s.parts.max_message_bytes = mib(v),
    },
    Field {
        key: "agent.max_rounds",
        env: Some("STEWARD_MAX_ROUNDS"),
        default: Default::Text("8"),
        rule: Rule::Int { min: 1, max: 64 },
        secret: false,
        runtime: true,
        help: "Most model calls (tool rounds) in one turn",
        apply: |s, v| s.agent.max_rounds = to_u32(v),
    },
    Field {
        key: "agent.max_turn_tokens",
        env: Some("STEWARD_MAX_TURN_TOKENS"),
        default: Default::Text("200000"),
        rule: Rule::Int {
            min: 1000,
            max: u64::MAX,
        },
        secret: false,
        runtime: true,
        help: "Token budget of one turn across all its rounds",
        apply: |s, v| s.agent.max_turn_tokens = v.int(),
    },
    Field {
        key: "agent.turn_timeout_secs",
        env: Some("STEWARD_TURN_TIMEOUT_SECS"),
        default: Default::Text("300"),
        rule: Rule::Int { min: 1, max: 3600 },
        secret: false,
        runtime: true,
        help: "Wall-clock limit of one turn, in seconds",
        apply: |s, v| s.agent.turn_timeout = secs(v),
    },
    Field {
        key: "agent.history_messages",
        env: Some("STEWARD_HISTORY_MESSAGES"),
        default: Default::Text("40"),
        rule: Rule::Int { min: 0, max: 1000 },
        secret: false,
        runtime: true,
        help: "How many past messages of the conversation are sent to the model",
        apply: |s, v| s.agent.history_messages = to_usize(v),
    },
    Field {
        key: "agent.max_output_tokens",
        env: Some("STEWARD_MAX_OUTPUT_TOKENS"),
        default: Default::Text("4096"),
        rule: Rule::Int {
            min: 1,
            max: 200_000,
        },
        secret: false,
        runtime: true,
        help: "Most tokens the model may produce in one call",
        apply: |s, v| s.agent.max_output_tokens = to_u32(v),
    },
    Field {
        key: "shutdown_grace_secs",
        env: Some("STEWARD_SHUTDOWN_GRACE_SECS"),
        default: Default::Text("20"),
        rule: Rule::Int { min: 0, max: 600 },
        secret: false,
        runtime: false,
        help: "Seconds running turns get to finish on shutdown",
        apply: |s, v| s.shutdown_grace = secs(v),
    },
    Field {
        key: "model_timeout_secs",
        env: Some("STEWARD_MODEL_TIMEOUT_SECS"),
        default: Default::Text("120"),
        rule: Rule::Int { min: 1, max: 3600 },
        secret: false,
        runtime: false,
        help: "Timeout of one model request, in seconds",
        apply: |s, v| s.model_timeout = secs(v),
    },
    Field {
        key: "model_retries",
        env: Some("STEWARD_MODEL_RETRIES"),
        default: Default::Text("2"),
        rule: Rule::Int { min: 0, max: 10 },
        secret: false,
        runtime: false,
        help: "Retries of a failed model request (rate limits, 5xx, connection errors)",
        apply: |s, v| s.model_retries = to_u32(v),
    },
    Field {
        key: "approvals.ttl_secs",
        env: Some("STEWARD_APPROVAL_TTL_SECS"),
        default: Default::Text("1800"),
        rule: Rule::Int {
            min: 10,
            max: 604_800,
        },
        secret: false,
        runtime: false,
        help: "How long an approval card stays valid unless its tool says otherwise, in seconds",
        apply: |s, v| s.approvals.ttl = secs(v),
    },
    Field {
        key: "approvals.cli_auto_approve",
        env: Some("STEWARD_CLI_AUTO_APPROVE"),
        default: Default::Text("false"),
        rule: Rule::Bool,
        secret: false,
        runtime: false,
        help: "Run consequential tools from `steward chat` without asking (explicit opt-in; also `steward chat --auto-approve`)",
        apply: |s, v| s.approvals.cli_auto_approve = v.flag(),
    },
    Field {
        key: "approvals.sweep_secs",
        env: None,
        default: Default::Text("30"),
        rule: Rule::Int { min: 1, max: 3600 },
        secret: false,
        runtime: false,
        help: "How often overdue approval cards are expired, in seconds (`steward serve` sweeps in whole minutes: rounded up)",
        apply: |s, v| s.approvals.sweep = secs(v),
    },
    Field {
        key: "jobs.reminders",
        env: Some("STEWARD_JOBS_REMINDERS"),
        default: Default::Text("every 1m"),
        rule: Rule::Schedule,
        secret: false,
        runtime: true,
        help: "How often due reminders are looked for and delivered (empty: reminders are kept but never delivered)",
        apply: |s, v| s.jobs.reminders = v.text(),
    },
    Field {
        key: "jobs.tasks",
        env: Some("STEWARD_JOBS_TASKS"),
        default: Default::Text("every 1m"),
        rule: Rule::Schedule,
        secret: false,
        runtime: true,
        help: "How often your recurring tasks are checked and the due ones run (empty: tasks are kept but never run)",
        apply: |s, v| s.jobs.tasks = v.text(),
    },
    Field {
        key: "jobs.briefing",
        env: Some("STEWARD_JOBS_BRIEFING"),
        default: Default::Text("daily 07:30"),
        rule: Rule::Schedule,
        secret: false,
        runtime: true,
        help: "When the morning briefing comes: the day's reminders, intentions due, read-later (empty: no briefing; with nothing to say it sends nothing)",
        apply: |s, v| s.jobs.briefing = v.text(),
    },
    Field {
        key: "jobs.weekly_recap",
        env: Some("STEWARD_JOBS_WEEKLY_RECAP"),
        default: Default::Text("weekly fri 18:00"),
        rule: Rule::Schedule,
        secret: false,
        runtime: true,
        help: "When the weekly recap comes: what was done, what is open, what comes next week (empty: no recap)",
        apply: |s, v| s.jobs.weekly_recap = v.text(),
    },
    Field {
        key: "jobs.follow_ups",
        env: Some("STEWARD_JOBS_FOLLOW_UPS"),
        default: Default::Text("every 15m"),
        rule: Rule::Schedule,
        secret: false,
        runtime: true,
        help: "How often intentions past their date are followed up, at most 3 times each, a day apart (empty: never)",
        apply: |s, v| s.jobs.follow_ups = v.text(),
    },
    Field {
        key: "jobs.reflection",
        env: Some("STEWARD_JOBS_REFLECTION"),
        default: Default::Text("daily 02:00"),
        rule: Rule::Schedule,
        secret: false,
        runtime: true,
        help: "When the day's conversations are reflected on to keep facts, intentions and learnings (a model call only when there were messages; empty: never)",
        apply: |s, v| s.jobs.reflection = v.text(),
    },
    Field {
        key: "jobs.retention",
        env: Some("STEWARD_JOBS_RETENTION"),
        default: Default::Text("daily 03:30"),
        rule: Rule::Schedule,
        secret: false,
        runtime: true,
        help: "When old scheduler records and expired facts are swept (empty: never)",
        apply: |s, v| s.jobs.retention = v.text(),
    },
    Field {
        key: "jobs.backfill",
        env: Some("STEWARD_JOBS_BACKFILL"),
        default: Default::Text("every 1h"),
        rule: Rule::Schedule,
        secret: false,
        runtime: true,
        help: "How often notes and facts missing their embedding vectors are embedded (empty: never)",
        apply: |s, v| s.jobs.backfill = v.text(),
    },
    Field {
        key: "jobs.briefing_weather_tool",
        env: Some("STEWARD_BRIEFING_WEATHER_TOOL"),
        default: Default::None,
        rule: Rule::NonEmpty,
        secret: false,
        runtime: false,
        help: "A read-only tool (an MCP server's forecast tool, say) whose first line opens the morning briefing; a tool that is not read-only is never called",
        apply: |s, v| s.jobs.briefing_weather_tool = Some(v.text()),
    },
    Field {
        key: "jobs.briefing_weather_args",
        env: Some("STEWARD_BRIEFING_WEATHER_ARGS"),
        default: Default::Text("{}"),
        rule: Rule::JsonObject,
        secret: false,
        runtime: false,
        help: "The arguments the weather tool is called with, e.g. `{\"city\": \"Lyon\"}`",
        apply: |s, v| s.jobs.briefing_weather_args = v.text(),
    },
    Field {
        key: "proactive.quiet_hours",
        env: Some("STEWARD_QUIET_HOURS"),
        default: Default::None,
        rule: Rule::QuietHours,
        secret: false,
        runtime: true,
        help: "Local hours in which Steward starts nothing on its own (briefings, follow-ups); reminders and tasks you set still arrive",
        apply: |s, v| s.proactive.quiet_hours = Some(v.text()),
    },
    Field {
        key: "proactive.daily_cap",
        env: Some("STEWARD_PROACTIVE_DAILY_CAP"),
        default: Default::Text("8"),
        rule: Rule::Int { min: 0, max: 100 },
        secret: false,
        runtime: true,
        help: "Most messages a day Steward sends on its own initiative (reminders and tasks you set count but are never held); 0: no cap",
        apply: |s, v| s.proactive.daily_cap = u32::try_from(v.int()).unwrap_or(u32::MAX),
    },
    Field {
        key: "proactive.silenced",
        env: Some("STEWARD_PROACTIVE_SILENCED"),
        default: Default::None,
        rule: Rule::Genres,
        secret: false,
        runtime: true,
        help: "Kinds of proactive message that never speak (e.g. `follow_up,reflection`); `steward jobs report` shows how each kind is received",
        apply: |s, v| s.proactive.silenced = Some(v.text()),
    },
    Field {
        key: "sql.allow_ddl",
        env: Some("STEWARD_SQL_ALLOW_DDL"),
        default: Default::Text("false"),
        rule: Rule::Bool,
        secret: false,
        runtime: false,
        help: "Let `db_execute` create, alter and drop tables (never triggers, never Steward's own approval tables)",
        apply: |s, v| s.sql.allow_ddl = v.flag(),
    },
    Field {
        key: "sql.max_rows",
        env: None,
        default: Default::Text("200"),
        rule: Rule::Int {
            min: 1,
            max: 10_000,
        },
        secret: false,
        runtime: false,
        help: "Most rows `db_query` returns",
        apply: |s, v| s.sql.max_rows = to_usize(v),
    },
    Field {
        key: "sql.timeout_secs",
        env: None,
        default: Default::Text("5"),
        rule: Rule::Int { min: 1, max: 300 },
        secret: false,
        runtime: false,
        help: "Time limit of one `db_query` / `db_execute` statement, in seconds",
        apply: |s, v| s.sql.timeout = secs(v),
    },
    Field {
        key: "web.allow_hosts",
        env: Some("STEWARD_WEB_ALLOW_HOSTS"),
        default: Default::None,
        rule: Rule::HostList,
        secret: false,
        runtime: false,
        help: "Hosts `fetch_url` may reach although they are local or private (a NAS, a home wiki): exact names or IPs, optionally with :port, comma-separated",
        apply: |s, v| s.web.allow_hosts = v.text(),
    },
    Field {
        key: "web.fetch_max_bytes",
        env: None,
        default: Default::Text("4194304"),
        rule: Rule::Int {
            min: 1024,
            max: 64 * 1024 * 1024,
        },
        secret: false,
        runtime: false,
        help: "Most bytes of a page `fetch_url` downloads; the rest is never read",
        apply: |s, v| s.web.fetch_max_bytes = to_usize(v),
    },
    Field {
        key: "web.fetch_timeout_secs",
        env: None,
        default: Default::Text("15"),
        rule: Rule::Int { min: 1, max: 25 },
        secret: false,
        runtime: false,
        help: "Deadline of one `fetch_url` (all redirects and the body) or `web_search` request, in seconds (under the 30 s tool limit)",
        apply: |s, v| s.web.fetch_timeout = secs(v),
    },
    Field {
        key: "web.max_redirects",
        env: None,
        default: Default::Text("5"),
        rule: Rule::Int { min: 0, max: 10 },
        secret: false,
        runtime: false,
        help: "Redirects `fetch_url` follows, each re-checked against the SSRF rules",
        apply: |s, v| s.web.max_redirects = to_usize(v),
    },
    Field {
        key: "web.search_backend",
        env: Some("STEWARD_WEB_SEARCH_BACKEND"),
        default: Default::Text("none"),
        rule: Rule::SearchBackend,
        secret: false,
        runtime: false,
        help: "Backend of `web_search`: `searxng` (needs web.search_url), `brave` or `tavily` (need web.search_api_key), or `none`",
        apply: |s, v| s.web.search_backend = v.text(),
    },
    Field {
        key: "web.search_url",
        env: Some("STEWARD_WEB_SEARCH_URL"),
        default: Default::None,
        rule: Rule::HttpUrl,
        secret: false,
        runtime: false,
        help: "Base URL of the search backend, e.g. http://localhost:8888 for SearXNG; default for Brave and Tavily: their public API",
        apply: |s, v| s.web.search_url = Some(v.text()),
    },
    Field {
        key: "web.search_api_key",
        env: Some("STEWARD_WEB_SEARCH_API_KEY"),
        default: Default::None,
        rule: Rule::ApiKey,
        secret: true,
        runtime: false,
        help: "API key of the Brave or Tavily search backend",
        apply: |s, v| s.web.search_api_key = Some(v.text()),
    },
    Field {
        key: "web.search_max_results",
        env: None,
        default: Default::Text("5"),
        rule: Rule::Int { min: 1, max: 20 },
        secret: false,
        runtime: false,
        help: "Results `web_search` returns unless the call asks for another number",
        apply: |s, v| s.web.search_max_results = to_usize(v),
    },
    Field {
        key: "tools.index",
        env: Some("STEWARD_TOOLS_INDEX"),
        default: Default::Text("true"),
        rule: Rule::Bool,
        secret: false,
        runtime: false,
        help: "Send rarely used tools (MCP servers' tools, unit conversion, SQL) as a one-line-each index behind `load_tools`, loading a tool's full schema only when the model asks; `false` sends every schema on every call",
        apply: |s, v| s.tools.index = v.flag(),
    },
    Field {
        key: "skills.dir",
        env: Some("STEWARD_SKILLS_DIR"),
        default: Default::None,
        rule: Rule::Path,
        secret: false,
        runtime: false,
        help: "Folder of skills (one subfolder per skill with a SKILL.md: name, description, tools, then instructions); default <data_dir>/skills",
        apply: |s, v| s.tools.skills_dir = Some(PathBuf::from(v.text())),
    },
    Field {
        key: "code.enabled",
        env: Some("STEWARD_CODE_ENABLED"),
        default: Default::Text("true"),
        rule: Rule::Bool,
        secret: false,
        runtime: false,
        help: "Offer `run_code` (Python and shell in a sandbox: no network, own temp dir, limits, Landlock; every run approved by you). It is offered only if the sandbox probe passes at start (`steward doctor` says why not)",
        apply: |s, v| s.code.enabled = v.flag(),
    },
    Field {
        key: "code.cpu_secs",
        env: None,
        default: Default::Text("10"),
        rule: Rule::Int { min: 1, max: 600 },
        secret: false,
        runtime: false,
        help: "CPU seconds a `run_code` process may use",
        apply: |s, v| s.code.cpu_secs = v.int(),
    },
    Field {
        key: "code.memory_mb",
        env: None,
        default: Default::Text("512"),
        rule: Rule::Int {
            min: 64,
            max: 65_536,
        },
        secret: false,
        runtime: false,
        help: "Address space of a `run_code` process, in MiB",
        apply: |s, v| s.code.memory_mb = v.int(),
    },
    Field {
        key: "code.max_output_bytes",
        env: None,
        default: Default::Text("12288"),
        rule: Rule::Int {
            min: 256,
            max: 1_048_576,
        },
        secret: false,
        runtime: false,
        help: "stdout + stderr kept from a `run_code` run; more stops the program",
        apply: |s, v| s.code.max_output_bytes = to_usize(v),
    },
    Field {
        key: "code.timeout_secs",
        env: None,
        default: Default::Text("20"),
        rule: Rule::Int { min: 1, max: 25 },
        secret: false,
        runtime: false,
        help: "Wall-clock limit of a `run_code` run, and the most a call may ask for (under the 30 s limit of any tool call)",
        apply: |s, v| s.code.timeout = secs(v),
    },
    Field {
        key: "code.python",
        env: Some("STEWARD_CODE_PYTHON"),
        default: Default::Text("/usr/bin/python3"),
        rule: Rule::Path,
        secret: false,
        runtime: false,
        help: "Python interpreter for `run_code` (absolute path; its install prefix becomes readable in the sandbox)",
        apply: |s, v| s.code.python = PathBuf::from(v.text()),
    },
    Field {
        key: "memory.embedder",
        env: Some("STEWARD_EMBEDDER"),
        default: Default::Text("local"),
        rule: Rule::Embedder,
        secret: false,
        runtime: false,
        help: "Embeddings for recall: `local` (MiniLM in process, needs the model files), `none` (full text only), or a remote `openai:`/`gemini:`/`ollama:` model (uses that provider's key and base URL)",
        apply: |s, v| s.memory.embedder = v.text(),
    },
    Field {
        key: "memory.model_dir",
        env: Some("STEWARD_EMBED_MODEL_DIR"),
        default: Default::None,
        rule: Rule::Path,
        secret: false,
        runtime: false,
        help: "Directory holding the local MiniLM files (model.safetensors, tokenizer.json, config.json); default <data_dir>/models/all-MiniLM-L6-v2",
        apply: |s, v| s.memory.model_dir = Some(PathBuf::from(v.text())),
    },
    Field {
        key: "memory.embed_dims",
        env: None,
        default: Default::Text("0"),
        rule: Rule::Int { min: 0, max: 8192 },
        secret: false,
        runtime: false,
        help: "Vector size of a remote embedding model; 0 = the known size for that model",
        apply: |s, v| s.memory.embed_dims = to_usize(v),
    },
    Field {
        key: "memory.context_budget_tokens",
        env: Some("STEWARD_MEMORY_BUDGET_TOKENS"),
        default: Default::Text("1000"),
        rule: Rule::Int {
            min: 0,
            max: 20_000,
        },
        secret: false,
        runtime: false,
        help: "Most tokens of remembered context added to each turn (0 = none)",
        apply: |s, v| s.memory.context_budget_tokens = to_usize(v),
    },
    Field {
        key: "memory.min_similarity_percent",
        env: Some("STEWARD_MEMORY_MIN_SIMILARITY"),
        default: Default::None,
        rule: Rule::Int { min: 0, max: 100 },
        secret: false,
        runtime: false,
        help: "Relevance floor: how similar (cosine, in percent) a remembered item found by meaning must be to be recalled or listed by `memory search`; unset = the floor measured for the embedding model (local MiniLM: 23, or 19 for an item sharing a word with the query; remote models: none)",
        apply: |s, v| s.memory.min_similarity_percent = u8::try_from(to_usize(v)).ok(),
    },
    Field {
        key: "memory.extract",
        env: Some("STEWARD_MEMORY_EXTRACT"),
        default: Default::Text("true"),
        rule: Rule::Bool,
        secret: false,
        runtime: false,
        help: "After each exchange, extract facts with a model call and keep those that pass the quality gate",
        apply: |s, v| s.memory.extract = v.flag(),
    },
    Field {
        key: "memory.extraction_model",
        env: Some("STEWARD_EXTRACTION_MODEL"),
        default: Default::None,
        rule: Rule::ModelRef,
        secret: false,
        runtime: false,
        help: "Model used for fact extraction and reflection (a small one is enough); default: `model`",
        apply: |s, v| s.memory.extraction_model = Some(v.text()),
    },
    Field {
        key: "telegram.bot_token",
        env: Some("TELEGRAM_BOT_TOKEN"),
        default: Default::None,
        rule: Rule::TelegramBotToken,
        secret: true,
        runtime: false,
        help: "Token of the Telegram bot, from @BotFather; when set, `steward serve` answers on Telegram (long polling)",
        apply: |s, v| s.telegram.bot_token = Some(v.text()),
    },
    Field {
        key: "telegram.allowed_users",
        env: Some("STEWARD_TELEGRAM_ALLOWED_USERS"),
        default: Default::None,
        rule: Rule::TelegramUserIds,
        secret: false,
        runtime: false,
        help: "Telegram user ids allowed to talk to the bot; unset = nobody (the bot answers no one, and logs each dropped sender's id)",
        apply: |s, v| {
            if let Ok(users) = steward_telegram::AllowedUsers::parse(&v.text()) {
                s.telegram.allowed_users = users;
            }
        },
    },
    Field {
        key: "telegram.allow_groups",
        env: Some("STEWARD_TELEGRAM_ALLOW_GROUPS"),
        default: Default::Text("false"),
        rule: Rule::Bool,
        secret: false,
        runtime: false,
        help: "Answer in groups the bot is added to; even then only messages from `telegram.allowed_users` are taken",
        apply: |s, v| s.telegram.allow_groups = v.flag(),
    },
    Field {
        key: "telegram.api_base_url",
        env: Some("STEWARD_TELEGRAM_API_BASE_URL"),
        default: Default::Text(steward_telegram::DEFAULT_API_BASE),
        rule: Rule::HttpUrl,
        secret: false,
        runtime: false,
        help: "Base URL of the Bot API (a self-hosted Bot API server); requests go to `<base>/bot<token>/<method>`",
        apply: |s, v| s.telegram.api_base_url = v.text(),
    },
    Field {
        key: "telegram.webhook_url",
        env: Some("STEWARD_TELEGRAM_WEBHOOK_URL"),
        default: Default::None,
        rule: Rule::HttpUrl,
        secret: false,
        runtime: false,
        help: "Public HTTPS URL of this server's `/telegram/webhook` (behind your reverse proxy): Telegram pushes updates there instead of being polled; needs `telegram.webhook_secret`",
        apply: |s, v| s.telegram.webhook_url = Some(v.text()),
    },
    Field {
        key: "telegram.webhook_secret",
        env: Some("STEWARD_TELEGRAM_WEBHOOK_SECRET"),
        default: Default::None,
        rule: Rule::TelegramWebhookSecret,
        secret: true,
        runtime: false,
        help: "The secret Telegram sends with every webhook delivery (`X-Telegram-Bot-Api-Secret-Token`); a delivery without it is refused before its body is read",
        apply: |s, v| s.telegram.webhook_secret = Some(v.text()),
    },
    Field {
        key: "telegram.model_switch",
        env: Some("STEWARD_TELEGRAM_MODEL_SWITCH"),
        default: Default::Text("false"),
        rule: Rule::Bool,
        secret: false,
        runtime: false,
        help: "Let `/model NAME` in Telegram switch the model (as the Settings page does); off: `/model` only shows it",
        apply: |s, v| s.telegram.model_switch = v.flag(),
    },
    Field {
        key: "speech.stt_base_url",
        env: Some("STEWARD_SPEECH_STT_BASE_URL"),
        default: Default::None,
        rule: Rule::HttpUrl,
        secret: false,
        runtime: false,
        help: "Base URL of an OpenAI-compatible speech-to-text API (the part before `/audio/transcriptions`, e.g. https://api.openai.com/v1 or whisper.cpp's server): Telegram voice notes are transcribed there; unset: voice notes get a reply saying how to enable them",
        apply: |s, v| s.speech.stt_base_url = Some(v.text()),
    },
    Field {
        key: "speech.stt_model",
        env: Some("STEWARD_SPEECH_STT_MODEL"),
        default: Default::Text("whisper-1"),
        rule: Rule::NonEmpty,
        secret: false,
        runtime: false,
        help: "Model named in each transcription request",
        apply: |s, v| s.speech.stt_model = v.text(),
    },
    Field {
        key: "speech.stt_api_key",
        env: Some("STEWARD_SPEECH_STT_API_KEY"),
        default: Default::None,
        rule: Rule::ApiKey,
        secret: true,
        runtime: false,
        help: "Bearer key of the speech-to-text API; unset: no `Authorization` header (a local server)",
        apply: |s, v| s.speech.stt_api_key = Some(v.text()),
    },
    Field {
        key: "speech.tts_base_url",
        env: Some("STEWARD_SPEECH_TTS_BASE_URL"),
        default: Default::None,
        rule: Rule::HttpUrl,
        secret: false,
        runtime: false,
        help: "Base URL of an OpenAI-compatible text-to-speech API (the part before `/audio/speech`): when set, the answer to a voice note is also sent back spoken",
        apply: |s, v| s.speech.tts_base_url = Some(v.text()),
    },
    Field {
        key: "speech.tts_model",
        env: Some("STEWARD_SPEECH_TTS_MODEL"),
        default: Default::Text("tts-1"),
        rule: Rule::NonEmpty,
        secret: false,
        runtime: false,
        help: "Model named in each text-to-speech request",
        apply: |s, v| s.speech.tts_model = v.text(),
    },
    Field {
        key: "speech.tts_voice",
        env: Some("STEWARD_SPEECH_TTS_VOICE"),
        default: Default::Text("alloy"),
        rule: Rule::NonEmpty,
        secret: false,
        runtime: false,
        help: "Voice named in each text-to-speech request",
        apply: |s, v| s.speech.tts_voice = v.text(),
    },
    Field {
        key: "speech.tts_api_key",
        env: Some("STEWARD_SPEECH_TTS_API_KEY"),
        default: Default::None,
        rule: Rule::ApiKey,
        secret: true,
        runtime: false,
        help: "Bearer key of the text-to-speech API; unset: no `Authorization` header",
        apply: |s, v| s.speech.tts_api_key = Some(v.text()),
    },
    Field {
        key: "providers.openai.api_key",
        env: Some("OPENAI_API_KEY"),
        default: Default::None,
        rule: Rule::ApiKey,
        secret: true,
        runtime: false,
        help: "OpenAI API key",
        apply: |s, v| set_key(s, "openai", v),
    },
    Field {
        key: "providers.openai.base_url",
        env: Some("OPENAI_BASE_URL"),
        default: Default::Text("https://api.openai.com/v1"),
        rule: Rule::HttpUrl,
        secret: false,
        runtime: false,
        help: "OpenAI API base URL (any OpenAI-compatible server works)",
        apply: |s, v| set_url(s, "openai", v),
    },
    Field {
        key: "providers.openai.stream",
        env: None,
        default: Default::Text("true"),
        rule: Rule::Bool,
        secret: false,
        runtime: false,
        help: STREAM_HELP,
        apply: |s, v| set_stream(s, "openai", v),
    },
    Field {
        key: "providers.openai.parts",
        env: None,
        default: Default::None,
        rule: Rule::PartKinds,
        secret: false,
        runtime: false,
        help: PARTS_HELP,
        apply: |s, v| set_parts(s, "openai", v),
    },
    Field {
        key: "providers.anthropic.api_key",
        env: Some("ANTHROPIC_API_KEY"),
        default: Default::None,
        rule: Rule::ApiKey,
        secret: true,
        runtime: false,
        help: "Anthropic API key",
        apply: |s, v| set_key(s, "anthropic", v),
    },
    Field {
        key: "providers.anthropic.base_url",
        env: Some("ANTHROPIC_BASE_URL"),
        default: Default::Text("https://api.anthropic.com"),
        rule: Rule::HttpUrl,
        secret: false,
        runtime: false,
        help: "Anthropic API base URL",
        apply: |s, v| set_url(s, "anthropic", v),
    },
    Field {
        key: "providers.anthropic.stream",
        env: None,
        default: Default::Text("true"),
        rule: Rule::Bool,
        secret: false,
        runtime: false,
        help: STREAM_HELP,
        apply: |s, v| set_stream(s, "anthropic", v),
    },
    Field {
        key: "providers.anthropic.parts",
        env: None,
        default: Default::None,
        rule: Rule::PartKinds,
        secret: false,
        runtime: false,
        help: PARTS_HELP,
        apply: |s, v| set_parts(s, "anthropic", v),
    },
    Field {
        key: "providers.gemini.api_key",
        env: Some("GEMINI_API_KEY"),
        default: Default::None,
        rule: Rule::ApiKey,
        secret: true,
        runtime: false,
        help: "Google Gemini API key",
        apply: |s, v| set_key(s, "gemini", v),
    },
    Field {
        key: "providers.gemini.base_url",
        env: Some("GEMINI_BASE_URL"),
        default: Default::Text("https://generativelanguage.googleapis.com"),
        rule: Rule::HttpUrl,
        secret: false,
        runtime: false,
        help: "Gemini API base URL",
        apply: |s, v| set_url(s, "gemini", v),
    },
    Field {
        key: "providers.gemini.stream",
        env: None,
        default: Default::Text("true"),
        rule: Rule::Bool,
        secret: false,
        runtime: false,
        help: STREAM_HELP,
        apply: |s, v| set_stream(s, "gemini", v),
    },
    Field {
        key: "providers.gemini.parts",
        env: None,
        default: Default::None,
        rule: Rule::PartKinds,
        secret: false,
        runtime: false,
        help: PARTS_HELP,
        apply: |s, v| set_parts(s, "gemini", v),
    },
    Field {
        key: "providers.ollama.base_url",
        env: Some("OLLAMA_BASE_URL"),
        default: Default::Text("http://localhost:11434/v1"),
        rule: Rule::HttpUrl,
        secret: false,
        runtime: false,
        help: "Ollama's OpenAI-compatible endpoint (no key needed)",
        apply: |s, v| set_url(s, "ollama", v),
    },
    Field {
        key: "providers.ollama.stream",
        env: None,
        default: Default::Text("true"),
        rule: Rule::Bool,
        secret: false,
        runtime: false,
        help: STREAM_HELP,
        apply: |s, v| set_stream(s, "ollama", v),
    },
    Field {
        key: "providers.ollama.parts",
        env: None,
        default: Default::None,
        rule: Rule::PartKinds,
        secret: false,
        runtime: false,
        help: PARTS_HELP,
        apply: |s, v| set_parts(s, "ollama", v),
    },
];

/// Keys allowed inside a user-defined `[providers.NAME]` table.
pub(crate) const USER_PROVIDER_KEYS: [(&str, Rule, bool); 6] = [
    ("kind", Rule::ProviderKind, false),
    ("base_url", Rule::HttpUrl, false),
    ("api_key_env", Rule::EnvName, false),
    ("api_key", Rule::ApiKey, true),
    ("stream", Rule::Bool, false),
    ("parts", Rule::PartKinds, false),
];

/// Fields of one `prices."provider:model"` entry (`prices.rs`), both required, each by
/// `steward_llm::UsdPerMillion`'s rule.
pub(crate) const PRICE_KEYS: [(&str, &str); 2] = [
    (
        "input",
        "US dollars per million input (prompt) tokens, 0 to 10000",
    ),
    (
        "output",
        "US dollars per million output (completion) tokens, 0 to 10000",
    ),
];

pub(crate) fn find(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
}

/// Whether some key lives under `prefix.` (so a TOML table named `prefix` is expected).
pub(crate) fn is_table_prefix(prefix: &str) -> bool {
    FIELDS.iter().any(|f| {
        f.key.len() > prefix.len()
            && f.key.starts_with(prefix)
            && f.key[prefix.len()..].starts_with('.')
    })
}

/// The default data dir, from the (injected) environment.
pub(crate) fn default_data_dir(env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    // XDG says relative values must be ignored.
    if let Some(xdg) = env("XDG_DATA_HOME").map(PathBuf::from)
        && xdg.is_absolute()
    {
        return xdg.join("steward");
    }
    if let Some(home) = env("HOME") {
        return PathBuf::from(home).join(".local/share/steward");
    }
    PathBuf::from("./.steward")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_env_vars_are_unique() {
        let mut keys: Vec<_> = FIELDS.iter().map(|f| f.key).collect();
        keys.sort_unstable();
        let before = keys.len();
        keys.dedup();
        assert_eq!(before, keys.len(), "duplicate key in registry");
        let mut envs: Vec<_> = FIELDS.iter().filter_map(|f| f.env).collect();
        envs.sort_unstable();
        let before = envs.len();
        envs.dedup();
        assert_eq!(before, envs.len(), "duplicate env var in registry");
    }

    #[test]
    fn every_text_default_passes_its_own_rule() {
        for f in FIELDS {
            if let Default::Text(t) = f.default {
                assert!(
                    f.rule.parse_text(t).is_ok(),
                    "default of {} is invalid",
                    f.key
                );
            }
        }
    }

    #[test]
    fn data_dir_default_order() {
        let env = |k: &str| match k {
            "XDG_DATA_HOME" => Some("/xdg".to_string()),
            "HOME" => Some("/home/u".to_string()),
            _ => None,
        };
        assert_eq!(default_data_dir(&env), PathBuf::from("/xdg/steward"));
        let env = |k: &str| (k == "HOME").then(|| "/home/u".to_string());
        assert_eq!(
            default_data_dir(&env),
            PathBuf::from("/home/u/.local/share/steward")
        );
        assert_eq!(default_data_dir(&|_| None), PathBuf::from("./.steward"));
    }

    #[test]
    fn table_prefixes() {
        assert!(is_table_prefix("http"));
        assert!(is_table_prefix("providers.openai"));
        assert!(!is_table_prefix("model"));
        assert!(!is_table_prefix("htt"));
    }
}
