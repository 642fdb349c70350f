//! `CodeSource`: offers `run_code` as a tool source once a background probe has shown the
//! sandbox works here.
//!
//! Why a source and not a plain registration: the probe really builds the sandbox and runs a
//! program in each language (~50 ms), and start-up (spawn → /health) has a 30 ms budget. So
//! the probe runs on its own thread while Steward starts, and the tool appears in the
//! on-demand index when it passes; if it fails, the tool never appears (code never runs
//! unsandboxed). Does not own the probe or the tool themselves (see the parent module).

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use super::{CodeConfig, probe, run_code_tool};
use crate::{Tool, ToolSource};

/// What the probe thread found.
#[derive(Clone)]
enum Probe {
    Running,
    /// The tool, or None when the sandbox is unavailable.
    Done(Option<Arc<dyn Tool>>),
}

pub struct CodeSource {
    state: Mutex<Probe>,
    done: Condvar,
}

impl CodeSource {
    /// Start probing on a background thread; `tools()` is empty until the probe passes.
    pub fn probe_in_background(cfg: CodeConfig) -> Arc<CodeSource> {
        let source = Arc::new(CodeSource {
            state: Mutex::new(Probe::Running),
            done: Condvar::new(),
        });
        let worker = Arc::clone(&source);
        let spawned = std::thread::Builder::new()
            .name("sandbox-probe".to_owned())
            .spawn(move || {
                let status = probe(&cfg);
                let tool = run_code_tool(cfg, &status);
                if tool.is_none() {
                    tracing::warn!(
                        status = %status.summary(),
                        "run_code not offered: the sandbox is unavailable (see `steward doctor`)"
                    );
                }
                worker.finish(tool);
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "run_code not offered: cannot start the sandbox probe");
            source.finish(None);
        }
        source
    }

    fn finish(&self, tool: Option<Arc<dyn Tool>>) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        *state = Probe::Done(tool);
        self.done.notify_all();
    }

    /// Wait up to `timeout` for the probe; true when it has finished (whatever it found).
    /// For tests and for callers that must know (e.g. a one-shot command).
    pub fn wait(&self, timeout: Duration) -> bool {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let (state, _) = self
            .done
            .wait_timeout_while(state, timeout, |s| matches!(s, Probe::Running))
            .unwrap_or_else(|p| p.into_inner());
        matches!(*state, Probe::Done(_))
    }
}

impl ToolSource for CodeSource {
    fn label(&self) -> &str {
        "sandbox"
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match &*state {
            Probe::Done(Some(tool)) => vec![Arc::clone(tool)],
            _ => Vec::new(),
        }
    }
}
