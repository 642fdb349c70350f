//! The `run_code` tool: argument checks, the approval-card preview (the code, the risk
//! rating on the unwrapped commands, the limits) and the report the model reads.
//!
//! Owns: the tool's schema and wording. Does not own: the sandbox (`run`, `child`) or the
//! rating (`risk`). Its effect is External, so the approval gate asks a human first.

use super::risk::{assess_python, assess_shell};
use super::{Job, Language, RunReport, Sandbox};
use serde_json::{Value, json};
use std::time::Duration;
use steward_protocol::Effect;
use steward_tools::{OutputTrust, Tool, ToolContext, ToolError};

/// Longest program accepted, in bytes (it is passed as one argv string; Linux allows 128 KiB).
pub const MAX_CODE_BYTES: usize = 64 * 1024;
/// Longest stdin accepted, in bytes.
pub const MAX_STDIN_BYTES: usize = 64 * 1024;

pub struct RunCode {
    sandbox: Sandbox,
    description: String,
}

impl RunCode {
    pub fn new(sandbox: Sandbox) -> RunCode {
        let langs: Vec<&str> = sandbox.languages().iter().map(|l| l.as_str()).collect();
        let description = format!(
            "Run a short {} program in a sandbox (no network, an empty temporary directory, \
             CPU/memory/time limits) and get its exit code, stdout and stderr. The owner \
             approves each run.",
            langs.join(" or ")
        );
        RunCode {
            sandbox,
            description,
        }
    }

    fn max_timeout_secs(&self) -> u64 {
        self.sandbox.config().timeout.as_secs().max(1)
    }

    fn parse(&self, args: &Value) -> Result<Job, ToolError> {
        let bad = |m: String| Err(ToolError::InvalidArguments(m));
        let langs = self.sandbox.languages();
        let names: Vec<&str> = langs.iter().map(|l| l.as_str()).collect();
        let language = match args.get("language").and_then(Value::as_str) {
            None => {
                return bad(format!(
                    "argument `language` is required: one of {}",
                    names.join(", ")
                ));
            }
            Some(l) => match Language::parse(l).filter(|l| langs.contains(l)) {
                Some(l) => l,
                None => {
                    let shown: String = l.chars().take(20).collect();
                    return bad(format!(
                        "unknown language `{shown}`; this sandbox runs: {}",
                        names.join(", ")
                    ));
                }
            },
        };
        let code = args.get("code").and_then(Value::as_str).unwrap_or("");
        if code.trim().is_empty() {
            return bad("argument `code` is empty".to_owned());
        }
        if code.len() > MAX_CODE_BYTES {
            return bad(format!(
                "argument `code` is {} bytes; the limit is {MAX_CODE_BYTES}",
                code.len()
            ));
        }
        if code.contains('\0') {
            return bad("argument `code` contains a NUL character".to_owned());
        }
        let stdin = match args.get("stdin") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.len() <= MAX_STDIN_BYTES => Some(s.clone()),
            Some(Value::String(s)) => {
                return bad(format!(
                    "argument `stdin` is {} bytes; the limit is {MAX_STDIN_BYTES}",
                    s.len()
                ));
            }
            Some(_) => return bad("argument `stdin` must be a string".to_owned()),
        };
        let max = self.max_timeout_secs();
        let timeout = match args.get("timeout_secs") {
            None | Some(Value::Null) => max,
            Some(v) => match v.as_u64() {
                Some(t) if (1..=max).contains(&t) => t,
                _ => {
                    return bad(format!(
                        "`timeout_secs` must be a whole number from 1 to {max}"
                    ));
                }
            },
        };
        Ok(Job {
            language,
            code: code.to_owned(),
            stdin,
            timeout: Duration::from_secs(timeout),
        })
    }

    fn limits(&self, job: &Job) -> String {
        let c = self.sandbox.config();
        format!(
            "sandbox: no network, own empty temp dir, {} s wall clock, {} CPU s, {} MiB memory, \
             {} processes, output capped at {} bytes",
            job.timeout.as_secs(),
            c.cpu_secs,
            c.memory_mb,
            super::MAX_PROCESSES,
            c.max_output_bytes
        )
    }

    /// The report the model reads: status line, notes, then stdout and stderr.
    fn render(&self, job: &Job, r: &RunReport) -> String {
        let c = self.sandbox.config();
        let mut notes = Vec::new();
        let status = if r.timed_out {
            format!(
                "stopped: wall-clock limit of {} s reached",
                job.timeout.as_secs()
            )
        } else if r.truncated {
            format!("stopped: output truncated at {} bytes", c.max_output_bytes)
        } else if let Some(code) = r.exit_code {
            format!("exit code: {code}")
        } else {
            let sig = r.signal.unwrap_or(0);
            format!("killed by signal {sig} ({})", signal_name(sig))
        };
        if !r.timed_out && !r.truncated {
            match r.signal {
                Some(libc_sig::SIGXCPU) => {
                    notes.push(format!("it used up its CPU time limit ({} s)", c.cpu_secs))
                }
                Some(libc_sig::SIGKILL) => notes.push(format!(
                    "SIGKILL usually means the CPU ({} s) or memory ({} MiB) limit",
                    c.cpu_secs, c.memory_mb
                )),
                Some(libc_sig::SIGXFSZ) => notes.push(format!(
                    "it wrote a file larger than the {} MiB limit",
                    super::MAX_FILE_BYTES / (1024 * 1024)
                )),
                _ => {}
            }
            if r.stderr.contains("MemoryError") || r.stderr.contains("Cannot allocate memory") {
                notes.push(format!("it ran out of memory (limit {} MiB)", c.memory_mb));
            }
            if r.stderr.contains("Resource temporarily unavailable") && r.stderr.contains("fork") {
                notes.push(format!(
                    "it hit the process limit ({})",
                    super::MAX_PROCESSES
                ));
            }
        }
        let mut text = status;
        for n in notes {
            text.push_str("\nnote: ");
            text.push_str(&n);
        }
        text.push_str(&format!("\ntime: {} ms", r.elapsed.as_millis()));
        text.push_str("\n--- stdout ---\n");
        text.push_str(&r.stdout);
        if !r.stderr.is_empty() {
            text.push_str("\n--- stderr ---\n");
            text.push_str(&r.stderr);
        }
        if r.truncated {
            text.push_str(&format!(
                "\n[output truncated at {} bytes; the program was stopped]",
                c.max_output_bytes
            ));
        }
        text
    }
}

/// Signal numbers (Linux, all architectures we build the sandbox for).
mod libc_sig {
    pub const SIGKILL: i32 = 9;
    pub const SIGXCPU: i32 = 24;
    pub const SIGXFSZ: i32 = 25;
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        _ => "signal",
    }
}

#[async_trait::async_trait]
impl Tool for RunCode {
    fn name(&self) -> &str {
        "run_code"
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        let langs: Vec<&str> = self
            .sandbox
            .languages()
            .iter()
            .map(|l| l.as_str())
            .collect();
        json!({
            "type": "object",
            "properties": {
                "language": {"type": "string", "enum": langs},
                "code": {"type": "string", "minLength": 1, "maxLength": MAX_CODE_BYTES,
                         "description": "the whole program"},
                "stdin": {"type": "string", "maxLength": MAX_STDIN_BYTES},
                "timeout_secs": {"type": "integer", "minimum": 1, "maximum": self.max_timeout_secs()}
            },
            "required": ["language", "code"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::External
    }

    /// Every program is new code: each run gets its own card.
    fn grantable(&self) -> bool {
        false
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }

    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        self.parse(args).map(|_| ())
    }

    async fn run(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        let job = self.parse(&args)?;
        let report = self
            .sandbox
            .run(&job)
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        Ok(self.render(&job, &report))
    }

    /// Changes nothing: the rating, the limits and the code, for the human to judge.
    async fn preview(&self, args: &Value, _ctx: &ToolContext) -> Option<Result<String, ToolError>> {
        let job = match self.parse(args) {
            Ok(job) => job,
            Err(e) => return Some(Err(e)),
        };
        let assessment = match job.language {
            Language::Shell => assess_shell(&job.code),
            Language::Python => assess_python(&job.code),
        };
        let mut text = format!("{} code, {}\n", job.language.as_str(), assessment.render());
        text.push_str(&self.limits(&job));
        if let Some(stdin) = &job.stdin {
            text.push_str(&format!("\nstdin: {} bytes", stdin.len()));
        }
        text.push_str("\ncode:\n");
        text.push_str(&job.code);
        Some(Ok(text))
    }
}
