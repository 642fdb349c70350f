//! `CodeSource`: offers `run_code` as a tool source once a background probe has shown the
//! sandbox works here.
//!
//! Why a source and not a plain registration: the probe really builds the sandbox and runs a
//! program in each language (~50 ms, and ~1 MB of resident memory for the code it touches),
//! while start-up (spawn → /health) has a 30 ms budget and idle RSS a 15 MB one. So the probe
//! runs on its own thread, started the first time the tool list is asked for (the first
//! model call) or by `start`; the tool appears in the on-demand index when it passes — from
//! the next model call on — and if it fails, the tool never appears (code never runs
//! unsandboxed). Does not own the probe or the tool themselves (see the parent module).

use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Duration;

use super::{CodeConfig, probe, run_code_tool};
use steward_tools::{Tool, ToolSource};

/// What the probe thread found.
#[derive(Clone)]
enum Probe {
    /// Not started yet: holds the configuration the probe will use.
    Idle(CodeConfig),
    Running,
    /// The tool, or None when the sandbox is unavailable.
    Done(Option<Arc<dyn Tool>>),
}

pub struct CodeSource {
    state: Mutex<Probe>,
    done: Condvar,
    /// Itself, for the probe thread started from `tools(&self)`.
    me: Weak<CodeSource>,
}

impl CodeSource {
    /// A source whose probe starts on first use (`tools`, `wait`) or `start`.
    pub fn lazy(cfg: CodeConfig) -> Arc<CodeSource> {
        Arc::new_cyclic(|me| CodeSource {
            state: Mutex::new(Probe::Idle(cfg)),
            done: Condvar::new(),
            me: me.clone(),
        })
    }

    /// A source whose probe starts now, on a background thread.
    pub fn probe_in_background(cfg: CodeConfig) -> Arc<CodeSource> {
        let source = CodeSource::lazy(cfg);
        source.start();
        source
    }

    /// Start the probe on a background thread unless it already started. Never blocks on it.
    pub fn start(&self) {
        let cfg = {
            let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            match std::mem::replace(&mut *state, Probe::Running) {
                Probe::Idle(cfg) => cfg,
                other => {
                    *state = other;
                    return;
                }
            }
        };
        let Some(worker) = self.me.upgrade() else {
            return;
        };
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
            self.finish(None);
        }
    }

    fn finish(&self, tool: Option<Arc<dyn Tool>>) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        *state = Probe::Done(tool);
        self.done.notify_all();
    }

    /// Whether the probe has started (or finished).
    pub fn started(&self) -> bool {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        !matches!(*state, Probe::Idle(_))
    }

    /// Start the probe if needed and wait up to `timeout` for it; true when it has finished
    /// (whatever it found). For tests and for callers that must know.
    pub fn wait(&self, timeout: Duration) -> bool {
        self.start();
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let (state, _) = self
            .done
            .wait_timeout_while(state, timeout, |s| !matches!(s, Probe::Done(_)))
            .unwrap_or_else(|p| p.into_inner());
        matches!(*state, Probe::Done(_))
    }
}

impl ToolSource for CodeSource {
    fn label(&self) -> &str {
        "sandbox"
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.start();
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match &*state {
            Probe::Done(Some(tool)) => vec![Arc::clone(tool)],
            _ => Vec::new(),
        }
    }
}
