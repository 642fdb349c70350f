//! `steward mcp ...`: what each configured MCP server offers and whether it works (`list`,
//! `test NAME`), and Steward's own MCP server on stdio (`serve`). Starting the MCP client
//! for `serve` and `chat` is the composition root's (`app::start_mcp_client`).
//!
//! Owns: the subcommands, their output and exit codes (0 ok, 1 a server failed or is
//! unknown). Does not own MCP itself (steward-mcp) or the `[mcp.servers]` syntax
//! (`config::mcp`). Nothing here prints an `env` or `headers` value.

use crate::config::{LoadedConfig, Settings};
use crate::{app, memory_wiring};
use anyhow::Context;
use clap::Subcommand;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use steward_core::MemoryService;
use steward_mcp::{ProbeReport, ServerSpec, StewardServer, effect_name, probe};

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Each configured MCP server: transport, whether it connects now, and its tools.
    List,
    /// Connect to one server, list its tools and report timing; exit 1 if it fails.
    Test {
        /// The server's name, as in [mcp.servers.NAME].
        name: String,
    },
    /// Serve Steward's memory search, notes and reminders over MCP on stdin/stdout (for a
    /// desktop assistant's MCP configuration). Logs go to stderr.
    Serve,
}

pub async fn run(loaded: &LoadedConfig, command: McpCommand) -> anyhow::Result<ExitCode> {
    let settings = &loaded.settings;
    app::init_logging(&settings.log);
    match command {
        McpCommand::List => list(settings).await,
        McpCommand::Test { name } => test(settings, &name).await,
        McpCommand::Serve => serve(settings).await,
    }
}

/// Probe the enabled servers side by side, each bounded by its own timeout; reports in the
/// order of the configuration (for `mcp list` and `doctor`).
pub async fn probe_enabled(settings: &Settings) -> anyhow::Result<Vec<ProbeReport>> {
    let handles: Vec<_> = settings
        .mcp_servers
        .iter()
        .filter(|s| s.enabled)
        .cloned()
        .map(|s| tokio::spawn(async move { probe(&s).await }))
        .collect();
    let mut reports = Vec::with_capacity(handles.len());
    for h in handles {
        reports.push(h.await.context("an MCP probe task failed")?);
    }
    Ok(reports)
}

async fn list(settings: &Settings) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    if settings.mcp_servers.is_empty() {
        writeln!(
            out,
            "No MCP servers configured. Add a [mcp.servers.NAME] table to steward.toml (see docs/CONFIG.md)."
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut reports = probe_enabled(settings).await?.into_iter();
    for spec in &settings.mcp_servers {
        writeln!(
            out,
            "{}  {}  {}",
            spec.name,
            spec.transport_kind(),
            spec.target()
        )?;
        if !spec.enabled {
            writeln!(out, "  status: disabled (enabled = false)")?;
            continue;
        }
        let Some(report) = reports.next() else {
            continue;
        };
        print_report(&mut out, spec, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_report(out: &mut impl Write, spec: &ServerSpec, r: &ProbeReport) -> std::io::Result<()> {
    match &r.result {
        Ok(tools) => {
            writeln!(
                out,
                "  status: ok (connected in {} ms, tools listed in {} ms)",
                r.connect.as_millis(),
                r.list.as_millis()
            )?;
            writeln!(out, "  tools ({}):", tools.len())?;
            for t in tools {
                writeln!(
                    out,
                    "    {}  [{}]  {}",
                    t.name,
                    effect_name(t.effect),
                    t.summary
                )?;
                for w in &t.warnings {
                    writeln!(out, "      warning: {w}")?;
                }
            }
            for name in &r.unknown_overrides {
                writeln!(out, "  warning: {}", unknown_override(&spec.name, name))?;
            }
        }
        Err(e) => {
            writeln!(
                out,
                "  status: failed after {} ms: {e}",
                r.connect.as_millis()
            )?;
            if !r.stderr.is_empty() {
                writeln!(out, "  its last stderr lines:")?;
                for l in &r.stderr {
                    writeln!(out, "    {l}")?;
                }
            }
            writeln!(
                out,
                "  (timeout {} s; check `{}`, then `steward mcp test {}`)",
                spec.timeout.as_secs(),
                spec.target(),
                spec.name
            )?;
        }
    }
    Ok(())
}

/// The words for a `tools.NAME.effect` override that names no tool of the server.
pub fn unknown_override(server: &str, tool: &str) -> String {
    format!(
        "[mcp.servers.{server}] tools.{tool}.effect names no tool of this server (it has no tool `{tool}`); check the spelling against the tool list"
    )
}

async fn test(settings: &Settings, name: &str) -> anyhow::Result<ExitCode> {
    let Some(spec) = settings.mcp_servers.iter().find(|s| s.name == name) else {
        let known: Vec<&str> = settings
            .mcp_servers
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        eprintln!(
            "error: no MCP server named `{name}`; configured: {}",
            if known.is_empty() {
                "none (add [mcp.servers.NAME] to steward.toml)".to_owned()
            } else {
                known.join(", ")
            }
        );
        return Ok(ExitCode::FAILURE);
    };
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}  {}  {}",
        spec.name,
        spec.transport_kind(),
        spec.target()
    )?;
    if !spec.enabled {
        writeln!(
            out,
            "  note: enabled = false, so Steward does not start it; testing anyway"
        )?;
    }
    let report = probe(spec).await;
    print_report(&mut out, spec, &report)?;
    Ok(if report.result.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

async fn serve(settings: &Settings) -> anyhow::Result<ExitCode> {
    std::fs::create_dir_all(&settings.data_dir).with_context(|| {
        format!(
            "cannot create the data directory {} (set STEWARD_DATA_DIR to a writable place)",
            settings.data_dir.display()
        )
    })?;
    let clock = app::clock();
    let store = app::open_store(settings, clock.clone())?;
    let memory = memory_wiring::build_memory(settings, store, clock)?;
    let server = StewardServer::new(Arc::new(MemoryService::new(memory)))?;
    // The stdio transport's authentication: the local user who started it.
    let who = crate::local_user::principal(settings)?;
    tracing::info!("serving Steward's memory over MCP on stdio");
    server.serve_stdio(who).await?;
    // A client that disconnects is the normal way to end.
    tokio::time::sleep(Duration::from_millis(10)).await;
    Ok(ExitCode::SUCCESS)
}
