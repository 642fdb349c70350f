//! steward-sandbox: sandboxed code execution: the `run_code` tool (Python and shell), the
//! sandbox it runs in, the start-up probe that decides whether it is offered at all, and the
//! advisory risk classifier shown on its approval card. The one crate of the workspace that
//! may hold `unsafe` (raw syscalls in the child; each module that needs it allows it itself).
//!
//! The sandbox (Linux): a child process in a fresh temporary directory (a size-limited
//! tmpfs, deleted afterwards) inside new user, network, mount and PID namespaces — no
//! network but an unconfigured loopback, an unprivileged uid even when Steward is root —
//! with resource limits (CPU, address space, processes, file size, open files), a clean
//! environment, Landlock (writes only in its directory; no /proc, no home, no Steward
//! data) and a seccomp filter; a wall-clock timeout and an output cap end it, and every
//! process it started dies with it. If any of that cannot be set up, the probe says why
//! and the tool is not registered: code never runs on the host unsandboxed.
//!
//! `document`: untrusted documents (PDF) read into text by a confined child process — the
//! running binary started again — so a hostile file's worst case is that process's alone.
//!
//! Owns: all of the above. Does not own: the `Tool` and `ToolSource` traits and the registry
//! that runs the tool (steward-tools), whether a run is approved (the approval gate in
//! steward-core asks a human for every call: the tool's effect is External) or the
//! configuration keys (the binary maps `code.*` onto `CodeConfig`).

pub mod document;
pub mod risk;
mod source;
mod tool;

#[cfg(target_os = "linux")]
mod child;
#[cfg(target_os = "linux")]
mod fs_rules;
#[cfg(target_os = "linux")]
mod run;
#[cfg(target_os = "linux")]
mod seccomp;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use steward_tools::Tool;

pub use source::CodeSource;
pub use tool::{MAX_CODE_BYTES, MAX_STDIN_BYTES, RunCode};

/// Processes (and threads) the sandbox may have at once: enough for a shell pipeline,
/// too few for a fork bomb to matter.
pub const MAX_PROCESSES: u64 = 64;
/// Largest file the sandbox may write.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Size of the sandbox's tmpfs working directory.
pub const WORKDIR_BYTES: u64 = 64 * 1024 * 1024;
/// Open descriptors per process.
pub const MAX_OPEN_FILES: u64 = 64;

/// The limits and interpreter of the sandbox (`code.*` settings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeConfig {
    /// The Python interpreter (absolute path).
    pub python: PathBuf,
    /// CPU seconds per process (then SIGXCPU, one second later SIGKILL).
    pub cpu_secs: u64,
    /// Address space per process, in MiB.
    pub memory_mb: u64,
    /// stdout + stderr bytes kept; more stops the program.
    pub max_output_bytes: usize,
    /// Wall-clock limit: the default and the most a call may ask for.
    pub timeout: Duration,
}

impl Default for CodeConfig {
    /// `/usr/bin/python3`, 10 CPU s, 512 MiB, 12 KiB of output, 20 s.
    fn default() -> Self {
        Self {
            python: PathBuf::from("/usr/bin/python3"),
            cpu_secs: 10,
            memory_mb: 512,
            max_output_bytes: 12 * 1024,
            timeout: Duration::from_secs(20),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Python,
    Shell,
}

impl Language {
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Shell => "shell",
        }
    }

    pub fn parse(s: &str) -> Option<Language> {
        match s {
            "python" => Some(Language::Python),
            "shell" => Some(Language::Shell),
            _ => None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("{0} code cannot run here: {1}")]
    Unavailable(&'static str, String),
    #[error("could not start the sandbox: {0}")]
    Setup(String),
}

/// One program to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub language: Language,
    pub code: String,
    pub stdin: Option<String>,
    pub timeout: Duration,
}

/// What happened to one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    /// The exit code, if the program exited normally.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if any (SIGKILL after a timeout or the output cap).
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Stopped at the wall-clock limit.
    pub timed_out: bool,
    /// Stopped because stdout + stderr passed the output cap.
    pub truncated: bool,
    pub elapsed: Duration,
}

/// What the start-up probe found: which languages the sandbox can run, or why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxStatus {
    /// The kernel's Landlock ABI version (0 = none).
    pub landlock_abi: i64,
    /// The shell the sandbox runs, or why shell code cannot run.
    pub shell: Result<PathBuf, String>,
    /// The Python interpreter, or why Python code cannot run.
    pub python: Result<PathBuf, String>,
}

impl SandboxStatus {
    /// Languages that passed the probe, in a fixed order.
    pub fn languages(&self) -> Vec<Language> {
        let mut out = Vec::new();
        if self.python.is_ok() {
            out.push(Language::Python);
        }
        if self.shell.is_ok() {
            out.push(Language::Shell);
        }
        out
    }

    pub fn available(&self) -> bool {
        !self.languages().is_empty()
    }

    /// One line for `steward doctor`.
    pub fn summary(&self) -> String {
        let lang = |name: &str, r: &Result<PathBuf, String>| match r {
            Ok(p) => format!("{name} {}", p.display()),
            Err(e) => format!("{name} unavailable ({e})"),
        };
        format!(
            "Landlock ABI {}, user+net+mount+pid namespaces, seccomp; {}; {}",
            self.landlock_abi,
            lang("python", &self.python),
            lang("shell", &self.shell)
        )
    }
}

/// Probe the sandbox for real: build it and run a one-line program in each language.
/// Blocking (a few tens of milliseconds); safe to call inside or outside a Tokio runtime.
pub fn probe(cfg: &CodeConfig) -> SandboxStatus {
    #[cfg(target_os = "linux")]
    {
        run::probe(cfg)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let why = "the sandbox needs Linux (namespaces, Landlock, seccomp)".to_owned();
        SandboxStatus {
            landlock_abi: 0,
            shell: Err(why.clone()),
            python: Err(why),
        }
    }
}

/// The sandbox for the languages `status` found working.
pub struct Sandbox {
    cfg: CodeConfig,
    shell: Option<PathBuf>,
    python: Option<PathBuf>,
}

impl Sandbox {
    /// None when the probe found no language it can run.
    pub fn new(cfg: CodeConfig, status: &SandboxStatus) -> Option<Sandbox> {
        if !status.available() {
            return None;
        }
        Some(Sandbox {
            cfg,
            shell: status.shell.clone().ok(),
            python: status.python.clone().ok(),
        })
    }

    pub fn config(&self) -> &CodeConfig {
        &self.cfg
    }

    pub fn languages(&self) -> Vec<Language> {
        let mut out = Vec::new();
        if self.python.is_some() {
            out.push(Language::Python);
        }
        if self.shell.is_some() {
            out.push(Language::Shell);
        }
        out
    }

    fn interpreter(&self, language: Language) -> Result<&Path, SandboxError> {
        let found = match language {
            Language::Python => self.python.as_deref(),
            Language::Shell => self.shell.as_deref(),
        };
        found.ok_or_else(|| {
            SandboxError::Unavailable(
                language.as_str(),
                "it did not pass the start-up probe".to_owned(),
            )
        })
    }

    /// Run one program in a fresh sandbox. Err only when the sandbox could not be set up;
    /// everything the program does (errors, signals, timeouts) is in the report.
    pub async fn run(&self, job: &Job) -> Result<RunReport, SandboxError> {
        let interpreter = self.interpreter(job.language)?.to_path_buf();
        #[cfg(target_os = "linux")]
        {
            run::run(&self.cfg, &interpreter, job).await
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = interpreter;
            Err(SandboxError::Setup("the sandbox needs Linux".to_owned()))
        }
    }
}

/// The `run_code` tool if the sandbox can run at least one language, else None (the tool
/// is then not offered at all).
pub fn run_code_tool(cfg: CodeConfig, status: &SandboxStatus) -> Option<Arc<dyn Tool>> {
    Sandbox::new(cfg, status).map(|s| Arc::new(RunCode::new(s)) as Arc<dyn Tool>)
}
