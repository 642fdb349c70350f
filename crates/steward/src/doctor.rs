//! `steward doctor`: checks that the loaded configuration can actually run, printing one
//! line per check (`ok   `, `FAIL `, `warn `) and a `fix:` line under each problem. Every
//! problem in one run: configuration errors first (each with its fix), then every other
//! check on what could be loaded.
//!
//! Owns: the list of checks and their wording. Does not own: loading configuration
//! (see `config`), storage or provider clients (it only calls their public probes).
//! Secrets are never printed: only whether a key is set and which variable holds it.

mod jobs;
mod telegram;

use std::collections::HashSet;
use std::io::{self, Write};
use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use steward_llm::{LlmError, Models, RetryPolicy};
use steward_protocol::secret_url::mask_url;
use steward_store::Store;

use crate::config::{self, ConfigError, LoadedConfig, ProviderSettings, Settings, split_model_ref};

/// How long one provider gets to answer the probe.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Run every check; `Ok(true)` when none FAILed (warnings are fine).
pub async fn run(cfg: &LoadedConfig, out: &mut dyn Write) -> io::Result<bool> {
    run_with_problems(cfg, &[], out).await
}

/// [`run`] on a configuration loaded by `config::load_reporting`: each of its `problems` is a
/// FAIL with its fix, and the other checks still run on what was loaded. A check whose
/// setting was refused is skipped rather than run on the default in its place.
pub async fn run_with_problems(
    cfg: &LoadedConfig,
    problems: &[ConfigError],
    out: &mut dyn Write,
) -> io::Result<bool> {
    let mut r = Report { out, failed: false };
    let s = &cfg.settings;
    for problem in problems {
        r.fail(&format!("config: {problem}"), &[config_fix(problem)])?;
    }
    let refused = |prefix: &str| {
        problems
            .iter()
            .filter_map(ConfigError::refused_key)
            .any(|k| k == prefix || k.starts_with(&format!("{prefix}.")))
    };
    let skipped =
        |what: &str| format!("{what}: not checked because its setting was refused (above)");
    let rerun = ["fix the configuration first, then run `steward doctor` again"];
    match (&cfg.file, problems.is_empty()) {
        (Some(p), true) => r.ok(&format!("config: loaded {}", p.display()))?,
        (None, true) => r.ok("config: no file: defaults + environment")?,
        (Some(p), false) => r.ok(&format!(
            "config: loaded {}, less the values refused above (the checks below use their defaults)",
            p.display()
        ))?,
        (None, false) => r.ok("config: defaults + environment, less the values refused above")?,
    }
    if refused("data_dir") {
        r.warn(&skipped("data dir and database"), &rerun)?;
    } else if check_data_dir(&mut r, &s.data_dir)? {
        check_database(&mut r, &s.data_dir).await?;
        jobs::check(&mut r, cfg, &s.data_dir).await?;
    } else {
        r.warn(
            "database: not checked because the data dir is unusable",
            &["fix the data dir first, then run `steward doctor` again"],
        )?;
    }
    // A provider whose settings were refused is not probed (it would be probed at defaults).
    let mut probed: HashSet<String> = s
        .providers
        .iter()
        .map(|p| p.name.clone())
        .filter(|name| refused(&format!("providers.{name}")))
        .collect();
    for name in &probed {
        r.warn(&skipped(&format!("provider {name}")), &rerun)?;
    }
    match s.model.as_deref() {
        Some(m) => check_model(&mut r, s, "model", m, &mut probed).await?,
        // Refused: already a FAIL above.
        None if refused("model") => {}
        None => {
            let ollama = s
                .provider("ollama")
                .map_or(String::new(), |p| mask_url(&p.base_url));
            let fixes = [
                "STEWARD_MODEL=openai:gpt-4.1-mini and OPENAI_API_KEY=… (or model = \"openai:gpt-4.1-mini\" in steward.toml)".to_string(),
                format!("or, for a local Ollama (no key): STEWARD_MODEL=ollama:llama3.2 with Ollama serving {ollama} (change with OLLAMA_BASE_URL)"),
            ];
            r.warn("model: none configured, so chat cannot work", &fixes)?;
        }
    }
    if let Some(m) = s.fallback_model.as_deref() {
        check_model(&mut r, s, "fallback_model", m, &mut probed).await?;
    }
    if refused("http.addr") {
        r.warn(&skipped("http.addr"), &rerun)?;
    } else {
        check_http_addr(&mut r, s)?;
    }
    check_embeddings(&mut r, s)?;
    check_code(&mut r, s)?;
    check_skills(&mut r, s)?;
    check_mcp(&mut r, s).await?;
    if refused("telegram") {
        r.warn(&skipped("telegram"), &rerun)?;
    } else {
        telegram::check(&mut r, s).await?;
    }
    if s.api_token.is_none() {
        r.ok("api_token: not set (steward serve generates one)")?;
    } else {
        r.ok("api_token: set")?;
    }
    Ok(!r.failed)
}

/// What to do about a configuration problem (the errors already say what and where).
fn config_fix(problem: &ConfigError) -> String {
    let docs = "`steward config docs` lists every key with its rule";
    match problem {
        ConfigError::MissingFile { via, .. } => format!(
            "create that file, or point {via} at one that exists (without a file Steward runs on defaults and the environment)"
        ),
        ConfigError::Read { .. } => "make the file readable by the user running steward".into(),
        ConfigError::Parse { .. } => {
            "fix the TOML at that line; every value in the file is ignored until then".into()
        }
        ConfigError::UnknownKey {
            suggestion: Some(s),
            ..
        } => format!("rename it to `{s}`"),
        ConfigError::UnknownKey { .. } => format!("remove it; {docs}"),
        ConfigError::Invalid { key, origin, .. } => match origin.strip_prefix("env ") {
            Some(var) => format!("correct or unset {var} ({docs}; `{key}` is the key)"),
            None => format!("correct `{key}` there ({docs})"),
        },
        ConfigError::UnknownProvider { provider, .. } => format!(
            "use one of the known providers, or add a [providers.{provider}] table to steward.toml"
        ),
        ConfigError::Provider { name, .. } => {
            format!("fix the [providers.{name}] table (docs/CONFIG.md shows one)")
        }
    }
}

/// Whether `run_code` is offered: the same probe `serve` and `chat` run (a real sandboxed
/// run per language). Unavailable is a warning: everything else works without it.
fn check_code(r: &mut Report<'_>, s: &Settings) -> io::Result<()> {
    if !s.code.enabled {
        return r.ok("code execution: off (code.enabled = false)");
    }
    let status = steward_sandbox::probe(&crate::app::code_config(s));
    if !status.available() {
        return r.warn(
            &format!("code execution: not offered: {}", status.summary()),
            &[
                "needs Linux with unprivileged user namespaces (`unshare -rn true` must work) and Landlock (5.13+, `landlock` in the lsm= boot list)",
                "or turn it off: code.enabled = false (STEWARD_CODE_ENABLED=false)",
            ],
        );
    }
    r.ok(&format!(
        "code execution: sandbox ready ({})",
        status.summary()
    ))?;
    if let Err(e) = &status.python {
        r.warn(
            &format!("code execution: python unavailable: {e}"),
            &["set code.python (STEWARD_CODE_PYTHON) to a Python 3 the sandbox can read (it runs as `nobody` when Steward is root), e.g. /usr/bin/python3"],
        )?;
    }
    Ok(())
}

/// Memory works without embeddings (full text only); say which it is and how to add them.
fn check_embeddings(r: &mut Report<'_>, s: &Settings) -> io::Result<()> {
    match s.memory.embedder.as_str() {
        "none" => r.ok("memory: embeddings off (memory.embedder = none): recall uses full text"),
        "local" => {
            let dir = crate::memory_wiring::local_model_dir(s);
            if crate::memory_wiring::local_model_present(&dir) {
                r.ok(&format!(
                    "memory: local embedding model at {}",
                    dir.display()
                ))
            } else {
                r.warn(
                    &format!(
                        "memory: no local embedding model at {}: recall uses full text only",
                        dir.display()
                    ),
                    &[
                        format!("scripts/fetch-model.sh {}", dir.display()),
                        "or set memory.embedder = \"openai:text-embedding-3-small\" (uses OPENAI_API_KEY)".to_string(),
                    ],
                )
            }
        }
        remote => r.ok(&format!("memory: remote embeddings from {remote}")),
    }
}

/// Each configured MCP server, connected and listed for real (side by side, each within its
/// own timeout). A server that does not work is a warning: Steward runs without its tools.
async fn check_mcp(r: &mut Report<'_>, s: &Settings) -> io::Result<()> {
    if s.mcp_servers.is_empty() {
        return r.ok("mcp: no servers configured");
    }
    let reports = match crate::mcp_cmd::probe_enabled(s).await {
        Ok(reports) => reports,
        Err(e) => {
            return r.warn(
                &format!("mcp: could not probe the servers: {e}"),
                &["run `steward mcp list`"],
            );
        }
    };
    let mut reports = reports.into_iter();
    for spec in &s.mcp_servers {
        let name = &spec.name;
        if !spec.enabled {
            r.ok(&format!("mcp {name}: disabled (enabled = false)"))?;
            continue;
        }
        let Some(report) = reports.next() else {
            r.warn(
                &format!("mcp {name}: not probed"),
                &["run `steward mcp list`"],
            )?;
            continue;
        };
        for tool in &report.unknown_overrides {
            r.warn(
                &format!(
                    "mcp {name}: {}",
                    crate::mcp_cmd::unknown_override(name, tool)
                ),
                &[format!(
                    "`steward mcp list` shows the tools of `{name}` by the names the server uses; fix or remove tools.{tool} in steward.toml"
                )],
            )?;
        }
        if let Ok(tools) = &report.result {
            for t in tools {
                for w in &t.warnings {
                    r.warn(
                        &format!("mcp {name}: tool {}: {w}", t.original),
                        &["nothing to fix in steward.toml: Steward offers the tool, and only the server checks that part of its arguments; tell the server's author if it matters"],
                    )?;
                }
            }
        }
        match report.result {
            Ok(tools) => r.ok(&format!(
                "mcp {name}: ok, {}",
                crate::words::count(tools.len(), "tool", "tools")
            ))?,
            Err(e) => r.warn(
                &format!("mcp {name}: not working: {e}"),
                &[format!(
                    "`steward mcp test {name}` shows details (with its stderr)"
                )],
            )?,
        }
    }
    Ok(())
}

/// Skills load at start; each bad SKILL.md is a warning naming its file (the rest still load).
fn check_skills(r: &mut Report<'_>, s: &Settings) -> io::Result<()> {
    let dir = s.skills_dir();
    let loaded = steward_tools::skills::load_skills(&dir);
    for error in &loaded.errors {
        r.warn(
            &format!("skills: {error}"),
            &["fix or remove that file; the other skills still load"],
        )?;
    }
    let names: Vec<&str> = loaded.skills.iter().map(|k| k.name.as_str()).collect();
    if names.is_empty() {
        r.ok(&format!("skills: none in {}", dir.display()))
    } else {
        r.ok(&format!(
            "skills: {} from {}: {}",
            crate::words::count(names.len(), "skill", "skills"),
            dir.display(),
            names.join(", ")
        ))
    }
}

struct Report<'a> {
    out: &'a mut dyn Write,
    failed: bool,
}

impl Report<'_> {
    fn ok(&mut self, msg: &str) -> io::Result<()> {
        writeln!(self.out, "ok   {msg}")
    }

    fn warn<S: AsRef<str>>(&mut self, msg: &str, fixes: &[S]) -> io::Result<()> {
        writeln!(self.out, "warn {msg}")?;
        self.fixes(fixes)
    }

    fn fail<S: AsRef<str>>(&mut self, msg: &str, fixes: &[S]) -> io::Result<()> {
        self.failed = true;
        writeln!(self.out, "FAIL {msg}")?;
        self.fixes(fixes)
    }

    fn fixes<S: AsRef<str>>(&mut self, fixes: &[S]) -> io::Result<()> {
        for f in fixes {
            writeln!(self.out, "     fix: {}", f.as_ref())?;
        }
        Ok(())
    }
}

/// Returns whether the directory is usable (exists or was created, and is writable).
fn check_data_dir(r: &mut Report<'_>, dir: &Path) -> io::Result<bool> {
    let d = dir.display();
    let elsewhere = "or point STEWARD_DATA_DIR (data_dir in steward.toml) at a writable directory";
    if dir.exists() && !dir.is_dir() {
        r.fail(
            &format!("data dir {d}: exists but is not a directory"),
            &[format!("move {d} out of the way, {elsewhere}")],
        )?;
        return Ok(false);
    }
    if let Err(e) = std::fs::create_dir_all(dir) {
        r.fail(
            &format!("data dir {d}: cannot be created: {e}"),
            &[format!(
                "run `mkdir -p {d}` as the user running steward, {elsewhere}"
            )],
        )?;
        return Ok(false);
    }
    let probe = dir.join(format!(".doctor-write-test-{}", std::process::id()));
    let written = std::fs::write(&probe, b"ok");
    // Best effort: a leftover probe file is harmless and the write result is what matters.
    let _ = std::fs::remove_file(&probe);
    if let Err(e) = written {
        r.fail(
            &format!("data dir {d}: not writable: {e}"),
            &[format!(
                "give the steward user write access (`chown -R $USER {d}`), {elsewhere}"
            )],
        )?;
        return Ok(false);
    }
    r.ok(&format!("data dir {d}: exists and is writable"))?;
    Ok(true)
}

async fn check_database(r: &mut Report<'_>, dir: &Path) -> io::Result<()> {
    let path = dir.join("steward.db");
    let opened = steward_store::open(&steward_store::StoreConfig::sqlite_file(&path));
    let result = match opened {
        Ok(store) => store.ping().await.map(|()| store.describe()),
        Err(e) => Err(e),
    };
    match result {
        Ok(desc) => r.ok(&format!("database: {desc}")),
        Err(e) => r.fail(
            &format!("database {}: {e}", path.display()),
            &[format!(
                "stop other programs using {} and check its permissions; if it is corrupt, restore a backup or move it aside to start fresh",
                path.display()
            )],
        ),
    }
}

async fn check_model(
    r: &mut Report<'_>,
    s: &Settings,
    label: &str,
    model: &str,
    probed: &mut HashSet<String>,
) -> io::Result<()> {
    // `load` guarantees the form and that the provider exists; stay defensive anyway.
    let Some(p) = split_model_ref(model).and_then(|(name, _)| s.provider(name)) else {
        return r.fail(
            &format!("{label} {model}: unknown provider"),
            &["run `steward config show` and fix the model setting"],
        );
    };
    if p.requires_key() && p.api_key.is_none() {
        return r.fail(
            &format!("{label} {model}: provider {} has no API key", p.name),
            &[format!("{}=…", p.key_hint())],
        );
    }
    let key = if p.api_key.is_some() { ", key set" } else { "" };
    r.ok(&format!(
        "{label} {model}: provider {} ({}{key})",
        p.name,
        p.kind.as_str()
    ))?;
    if probed.insert(p.name.clone()) {
        probe_provider(r, s, p).await?;
    }
    Ok(())
}

async fn probe_provider(r: &mut Report<'_>, s: &Settings, p: &ProviderSettings) -> io::Result<()> {
    let cfgs: Vec<_> = config::provider_configs(s)
        .into_iter()
        .filter(|c| c.name == p.name)
        .collect();
    // No retries: doctor should report what happens now, quickly.
    let policy = RetryPolicy {
        max_retries: 0,
        ..RetryPolicy::default()
    };
    let result = match Models::new(cfgs, policy) {
        Ok(models) => tokio::time::timeout(PROBE_TIMEOUT, models.probe(&p.name))
            .await
            .unwrap_or(Err(LlmError::Timeout {
                provider: p.name.clone(),
            })),
        Err(e) => Err(e),
    };
    // Credentials in the URL (userinfo, query values) are masked like everywhere else.
    let url = &mask_url(&p.base_url);
    let name = &p.name;
    let url_fix = match config::env_var_for(&format!("providers.{name}.base_url")) {
        Some(var) => format!("set {var} (or providers.{name}.base_url) to the right address"),
        None => format!("set providers.{name}.base_url in steward.toml to the right address"),
    };
    match result {
        Ok(()) => r.ok(&format!("provider {name}: answers at {url}")),
        Err(LlmError::Http {
            status: 401 | 403, ..
        }) => {
            let check = match &p.api_key_env {
                Some(var) => format!("check {var}"),
                None => format!("check providers.{name}.api_key in steward.toml"),
            };
            r.fail(&format!("provider {name}: key rejected"), &[check])
        }
        Err(LlmError::Http { status: 404, .. }) => r.fail(
            &format!("provider {name}: {url} answered 404 Not Found"),
            &[format!(
                "{url_fix} (OpenAI-compatible servers usually end in /v1)"
            )],
        ),
        Err(LlmError::Connect { .. }) => r.fail(
            &format!("provider {name}: cannot reach {url}: is the server running?"),
            &[format!("start the server, or {url_fix}")],
        ),
        Err(LlmError::Timeout { .. }) => r.fail(
            &format!(
                "provider {name}: no answer from {url} within {} s",
                PROBE_TIMEOUT.as_secs()
            ),
            &[format!("check the network and the server, or {url_fix}")],
        ),
        Err(e) => r.fail(
            &format!("provider {name}: {e}"),
            &[format!(
                "check the [providers.{name}] settings (`steward config show`)"
            )],
        ),
    }
}

fn check_http_addr(r: &mut Report<'_>, s: &Settings) -> io::Result<()> {
    let addr = s.http_addr;
    let other =
        "set STEWARD_HTTP_ADDR (http.addr in steward.toml) to a free address, e.g. 127.0.0.1:8081";
    match TcpListener::bind(addr) {
        Ok(_) => r.ok(&format!("http.addr {addr}: free")),
        Err(e) if e.kind() == io::ErrorKind::AddrInUse => r.warn(
            &format!("http.addr {addr}: in use (is steward serve already running?)"),
            &[format!("stop the other process, or {other}")],
        ),
        Err(e) => r.fail(
            &format!("http.addr {addr}: cannot listen: {e}"),
            &[other.to_string()],
        ),
    }
}
