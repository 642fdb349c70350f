//! The `steward` command: parses the command line and hands off to the library.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "steward",
    version,
    about = "Steward: a self-hosted personal AI assistant",
    long_about = "Steward: a self-hosted personal AI assistant in one binary.\n\n\
Configuration comes from defaults, then steward.toml, then the environment \
(STEWARD_MODEL, OPENAI_API_KEY, ...). `steward config show` prints what is in effect \
and where each value came from; `steward doctor` checks the setup."
)]
struct Cli {
    /// Config file (default: $STEWARD_CONFIG, else ./steward.toml, else <data dir>/steward.toml).
    #[arg(long, global = true, value_name = "PATH")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP server (the web app at /, the API, the OpenAI-compatible API, health) until
    /// SIGTERM or Ctrl-C.
    Serve,
    /// Chat in the terminal; with -m, answer one message and exit. Logs go to
    /// <data dir>/steward.log, so none lands in the conversation or a prompt.
    Chat {
        /// Send this one message, print the answer, exit (for scripts).
        #[arg(short = 'm', long = "message", value_name = "TEXT")]
        message: Option<String>,
        /// Conversation (thread) to use.
        #[arg(long, value_name = "ID", default_value = "cli")]
        conversation: String,
        /// Run consequential tools without asking (explicit opt-in; off by default).
        #[arg(long)]
        auto_approve: bool,
    },
    /// Check configuration, database and model reachability, with a fix for each problem;
    /// reports every problem in one run (exit 1 if any), even after a configuration error.
    Doctor,
    /// Decide, from the terminal, actions awaiting approval (raised on any surface).
    Approvals {
        #[command(subcommand)]
        command: steward::approvals_cmd::ApprovalsCommand,
    },
    /// List, edit, search and maintain what Steward remembers (facts, notes, ...).
    Memory {
        #[command(subcommand)]
        command: steward::memory_cmd::MemoryCommand,
    },
    /// MCP: list and test the configured servers, or serve Steward's memory over stdio.
    Mcp {
        #[command(subcommand)]
        command: steward::mcp_cmd::McpCommand,
    },
    /// The owner's web sign-in: `set-password` sets the password the web app accepts
    /// beside the API token.
    User {
        #[command(subcommand)]
        command: steward::user_cmd::UserCommand,
    },
    /// Tokens and cost of the model calls per day (in the `timezone` setting), with a bar
    /// per day, then per model. Costs come from the built-in prices and `[prices]`.
    Usage {
        /// How many days, today included (1 to 366).
        #[arg(long, value_name = "N", default_value = "30", value_parser = steward::usage_cmd::parse_days)]
        days: steward_core::usage::UsageDays,
    },
    /// Scheduled jobs: each with its schedule, next fire, last result and heartbeat; `report`
    /// for runs, failures and how each kind of proactive message is received.
    Jobs {
        #[command(subcommand)]
        command: Option<steward::jobs_cmd::JobsCommand>,
    },
    /// Secrets kept sealed in the database (`set NAME` reads the value from standard input,
    /// `list` shows names only, `rm NAME`).
    Vault {
        #[command(subcommand)]
        command: steward::vault_cmd::VaultCommand,
    },
    /// Inspect configuration.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Internal: read one document from stdin in a confined process and print its text as
    /// JSON (started by Steward itself, never by a person).
    #[command(hide = true)]
    ReadDocument {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Print the effective configuration (secrets masked) and where each value came from.
    Show,
    /// Print the reference of every setting (key, environment variable, default, rule).
    Docs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Before any runtime, thread or configuration: the reader confines this very process
    // and must stay single-threaded and quiet.
    if let Command::ReadDocument { args } = &cli.command {
        return steward_sandbox::document::serve_child(args);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(cli));
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    // Every secret the configuration holds is redacted from all log output from here on,
    // before any command can log (or a dependency log) anything.
    let load = || {
        let loaded = steward::config::load(cli.config.as_deref(), &|k| std::env::var(k).ok())?;
        steward::logging::redact_settings(&loaded.settings);
        anyhow::Ok(loaded)
    };
    match cli.command {
        Command::Serve => steward::serve::run(&load()?).await,
        Command::Chat {
            message,
            conversation,
            auto_approve,
        } => steward::chat::run(&load()?, message, &conversation, auto_approve).await,
        Command::Doctor => {
            // Never stops at a configuration error: reports each and checks the rest.
            let (loaded, problems) =
                steward::config::load_reporting(cli.config.as_deref(), &|k| std::env::var(k).ok());
            let mut out = std::io::stdout();
            let ok = steward::doctor::run_with_problems(&loaded, &problems, &mut out).await?;
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Approvals { command } => steward::approvals_cmd::run(&load()?, command).await,
        Command::Memory { command } => steward::memory_cmd::run(&load()?, command).await,
        Command::Mcp { command } => steward::mcp_cmd::run(&load()?, command).await,
        Command::User { command } => steward::user_cmd::run(&load()?, command).await,
        Command::Usage { days } => steward::usage_cmd::run(&load()?, days).await,
        Command::Jobs { command } => steward::jobs_cmd::run(&load()?, command).await,
        Command::Vault { command } => steward::vault_cmd::run(&load()?, command).await,
        Command::Config {
            command: ConfigCommand::Show,
        } => {
            print!("{}", load()?.render_show());
            Ok(ExitCode::SUCCESS)
        }
        // Needs no loaded configuration, so it works even when the configuration is broken.
        // Answered in `main`, before the runtime exists.
        Command::ReadDocument { .. } => Ok(ExitCode::from(2)),
        Command::Config {
            command: ConfigCommand::Docs,
        } => {
            print!("{}", steward::config::config_reference());
            Ok(ExitCode::SUCCESS)
        }
    }
}
