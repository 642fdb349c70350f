//! `ToolRegistry`: holds the tools, hands their specs to the model, and turns a raw
//! `ToolCall` into a `ToolOutcome` — parsing, schema check, `validate`, a timeout, panic
//! isolation and output truncation — in two steps (`prepare`, then `run_prepared`) so an
//! approval gate can sit between them. Tools are static (registered at start; "core" ones
//! always sent to the model, "on demand" ones only listed in the tool index) or come from
//! dynamic `ToolSource`s (always on demand), found by name at call time.
//! Does not own any tool's behaviour or policy decisions; which specs one model call is
//! offered is `offer.rs` (over `crate::index` and `crate::skills`).

mod offer;

use crate::args::{check_value, parse_arguments, truncate_output};
use crate::entry::Entry;
use crate::index::{self, Loads};
use crate::schema::echo;
use crate::skills::{self, Skill};
use crate::source::{Lookup, Sources, ToolSource};
use crate::{ApprovedRun, Tool, ToolContext, ToolError, ToolOutcome};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};
use steward_protocol::{Effect, ToolCall, ToolSpec};
use tokio::task::JoinHandle;

/// Per-call wall-clock limit unless `with_timeout` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Output longer than this is cut (it all goes into the model's context).
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 16 * 1024;
/// The group name of on-demand tools registered statically (sources use their label).
pub(crate) const STATIC_GROUP: &str = "steward";

/// A call that passed parsing, the schema and the tool's `validate`, ready to run (now, or
/// after a human approves exactly these `args`).
#[derive(Clone)]
pub struct PreparedCall {
    pub tool: Arc<dyn Tool>,
    pub name: String,
    pub args: Value,
    pub effect: Effect,
}

impl fmt::Debug for PreparedCall {
    // Arguments may carry private data (message text, addresses): keep them out of logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedCall")
            .field("name", &self.name)
            .field("effect", &self.effect)
            .finish_non_exhaustive()
    }
}

pub struct ToolRegistry {
    tools: BTreeMap<String, Entry>,
    sources: Sources,
    /// Which on-demand tools each conversation has loaded (shared with `read_skill`).
    loads: Arc<Loads>,
    /// Offered through `read_skill` (see `skills::tool`).
    skills: Arc<Vec<Skill>>,
    /// Off: every call is offered every schema (no `load_tools`); see `offer`.
    index: bool,
    timeout: Duration,
    max_output_bytes: usize,
}

impl Default for ToolRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .field("sources", &self.sources.labels())
            .field("timeout", &self.timeout)
            .field("max_output_bytes", &self.max_output_bytes)
            .finish()
    }
}

impl ToolRegistry {
    pub fn new() -> ToolRegistry {
        ToolRegistry {
            tools: BTreeMap::new(),
            sources: Sources::default(),
            loads: Arc::new(Loads::default()),
            skills: Arc::new(Vec::new()),
            index: true,
            timeout: DEFAULT_TIMEOUT,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
        }
    }

    pub fn with_timeout(mut self, d: Duration) -> ToolRegistry {
        self.timeout = d;
        self
    }

    /// With `false`, `offer` sends every tool's full schema on every call instead of the
    /// core tools plus the `load_tools` index (for models that handle long tool lists well,
    /// and to measure the difference).
    pub fn with_index(mut self, on: bool) -> ToolRegistry {
        self.index = on;
        self
    }

    /// Longer output is cut at a char boundary and a "[… truncated N bytes]" marker added.
    pub fn with_max_output_bytes(mut self, n: usize) -> ToolRegistry {
        self.max_output_bytes = n;
        self
    }

    /// A core tool: its full schema is sent on every model call. Refuses names outside
    /// `[a-z0-9_]{1,64}` and parameter schemas outside the supported subset (both as
    /// `InvalidArguments`), and a second tool with the same name (`DuplicateName`, also for
    /// the reserved names `load_tools` and `read_skill`).
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Result<(), ToolError> {
        self.insert(tool, false)
    }

    /// Register a tool that is listed in the index but whose schema is sent only on demand.
    pub fn register_on_demand(&mut self, tool: Arc<dyn Tool>) -> Result<(), ToolError> {
        self.insert(tool, true)
    }

    fn insert(&mut self, tool: Arc<dyn Tool>, on_demand: bool) -> Result<(), ToolError> {
        let entry = Entry::new(tool, on_demand)?;
        let name = entry.spec.name.clone();
        if self.tools.contains_key(&name) || reserved(&name) {
            return Err(ToolError::DuplicateName(name));
        }
        self.tools.insert(name, entry);
        Ok(())
    }

    /// Add a dynamic source; its tools are on demand. A static tool wins a name clash (the
    /// clashing source tool is skipped with a warning).
    pub fn add_source(&mut self, source: Arc<dyn ToolSource>) {
        self.sources.add(source);
    }

    /// A static or (currently available) source tool by name.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.entry(name).ok().map(|e| e.tool)
    }

    /// Static tools only (a source's tools come and go).
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.sources.is_empty()
    }

    /// The labels of the dynamic sources, in the order they were added.
    pub fn source_labels(&self) -> Vec<String> {
        self.sources.labels()
    }

    /// Every tool's full spec, static ones sorted by name, then each source's: what the
    /// model would be sent without the tool index. Byte-identical across calls while the
    /// set is unchanged. For one model call use `offer`.
    pub fn specs(&self) -> Vec<ToolSpec> {
        let mut specs: Vec<ToolSpec> = self.tools.values().map(|e| e.spec.clone()).collect();
        specs.extend(self.source_entries().into_iter().map(|(_, e)| e.spec));
        specs
    }

    /// The per-conversation record of loaded on-demand tools (for tools such as
    /// `read_skill` that load others).
    pub fn loads(&self) -> Arc<Loads> {
        Arc::clone(&self.loads)
    }

    pub(crate) fn core_entries(&self) -> impl Iterator<Item = &Entry> {
        self.tools.values().filter(|e| !e.on_demand)
    }

    /// Every on-demand tool available now as (group, entry): static ones first (group
    /// `steward`, sorted by name), then each source's in the order they were added.
    pub(crate) fn on_demand_entries(&self) -> Vec<(String, Entry)> {
        let mut out: Vec<(String, Entry)> = self
            .tools
            .values()
            .filter(|e| e.on_demand)
            .map(|e| (STATIC_GROUP.to_owned(), e.clone()))
            .collect();
        out.extend(self.source_entries());
        out
    }

    fn source_entries(&self) -> Vec<(String, Entry)> {
        self.sources
            .entries(&|name| self.tools.contains_key(name) || reserved(name))
    }

    /// Parse the raw argument text, check the schema + validate, run with the timeout.
    /// Every failure (malformed JSON, unknown tool, schema violation, tool error, timeout,
    /// panic) becomes `ToolOutcome { ok: false, output: "error: ..." }`. Empty arguments
    /// text is treated as `{}`. Same as `prepare` followed by `run_prepared`.
    pub async fn call(&self, call: &ToolCall, ctx: &ToolContext) -> ToolOutcome {
        match self.prepare(call) {
            Ok(prepared) => self.run_prepared(&prepared, ctx).await,
            Err(outcome) => {
                tracing::debug!(tool = %echo(&call.name), ok = false, "tool call refused");
                outcome
            }
        }
    }

    /// Parse the raw argument text, check the schema and the tool's `validate`. The Err is
    /// the outcome the model should see (`ok: false`, the same messages `call` gives).
    pub fn prepare(&self, call: &ToolCall) -> Result<PreparedCall, ToolOutcome> {
        let entry = self.entry(&call.name)?;
        let args = parse_arguments(&call.arguments, &entry.spec)
            .map_err(|message| self.failure(message))?;
        self.validated(&call.name, &entry, args)
    }

    /// The same checks for arguments given as a JSON value, e.g. a human's revision of a
    /// pending action: the originating tool's own validator re-checks it.
    pub fn prepare_value(&self, name: &str, args: Value) -> Result<PreparedCall, ToolOutcome> {
        let entry = self.entry(name)?;
        check_value(&args, &entry.spec).map_err(|message| self.failure(message))?;
        self.validated(name, &entry, args)
    }

    /// Run an already prepared call with the timeout, panic capture and output cap. Does
    /// not re-validate: the caller prepared it (possibly long before, for an approval).
    pub async fn run_prepared(&self, prepared: &PreparedCall, ctx: &ToolContext) -> ToolOutcome {
        match self.run_approved(prepared, ctx).await {
            ApprovedRun::Ran(outcome) => outcome,
            ApprovedRun::EffectChanged { preview } => {
                self.capped(ToolOutcome::failure(ToolError::EffectChanged { preview }))
            }
        }
    }

    /// `run_prepared` for an approved action: the same checks and limits, but a tool that
    /// refuses with `ToolError::EffectChanged` (what it would do now is not what the owner
    /// saw on the card; it changed nothing) comes back as its own variant with the new
    /// preview, so the approval gate can issue a new card instead of reporting a failure.
    pub async fn run_approved(&self, prepared: &PreparedCall, ctx: &ToolContext) -> ApprovedRun {
        let started = Instant::now();
        let tool = Arc::clone(&prepared.tool);
        let args = prepared.args.clone();
        let ctx = ctx.clone();
        let outcome = match self
            .isolated(&prepared.name, async move { tool.run(args, &ctx).await })
            .await
        {
            Isolated::Done(Ok(output)) => ToolOutcome::success(output),
            Isolated::Done(Err(ToolError::EffectChanged { preview })) => {
                tracing::debug!(tool = %prepared.name, "approved effect changed; nothing run");
                return ApprovedRun::EffectChanged {
                    preview: truncate_output(preview, self.max_output_bytes),
                };
            }
            Isolated::Done(Err(e)) => ToolOutcome::failure(e),
            Isolated::Crashed => ToolOutcome::failure(format!(
                "the tool `{}` crashed (internal error); do not retry the same call",
                prepared.name
            )),
            Isolated::TimedOut => ToolOutcome::failure(ToolError::Timeout(self.timeout)),
        };
        tracing::debug!(
            tool = %prepared.name,
            ok = outcome.ok,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "tool call finished"
        );
        ApprovedRun::Ran(self.capped(outcome))
    }

    /// The tool's dry run under the same timeout and panic capture as `run_prepared`; None
    /// if the tool offers no preview. Errors come back as plain text (no "error: " prefix).
    pub async fn preview(
        &self,
        prepared: &PreparedCall,
        ctx: &ToolContext,
    ) -> Option<Result<String, String>> {
        let tool = Arc::clone(&prepared.tool);
        let args = prepared.args.clone();
        let ctx = ctx.clone();
        let result = match self
            .isolated(
                &prepared.name,
                async move { tool.preview(&args, &ctx).await },
            )
            .await
        {
            Isolated::Done(None) => return None,
            Isolated::Done(Some(Ok(text))) => Ok(text),
            Isolated::Done(Some(Err(e))) => Err(e.to_string()),
            Isolated::Crashed => Err(format!(
                "the preview of `{}` crashed (internal error)",
                prepared.name
            )),
            Isolated::TimedOut => Err(ToolError::Timeout(self.timeout).to_string()),
        };
        let max = self.max_output_bytes;
        Some(
            result
                .map(|t| truncate_output(t, max))
                .map_err(|t| truncate_output(t, max)),
        )
    }

    /// Static tools first, then the meta tools, then the sources (looked up now, so a tool
    /// that vanished with its server gets a clear error instead of "unknown").
    fn entry(&self, name: &str) -> Result<Entry, ToolOutcome> {
        if let Some(entry) = self.tools.get(name) {
            return Ok(entry.clone());
        }
        let meta = match name {
            index::LOAD_TOOLS => Some(self.load_tools_entry()),
            skills::READ_SKILL => Some(self.read_skill_entry()),
            _ => None,
        };
        if let Some(meta) = meta {
            return meta.ok_or_else(|| self.failure(self.unknown_tool_message(name)));
        }
        let is_static = |n: &str| self.tools.contains_key(n) || reserved(n);
        match self.sources.lookup(name, &is_static) {
            Lookup::Found(entry) => Ok(entry),
            Lookup::Vanished(label) => Err(self.failure(format!(
                "tool `{name}` is not available right now (its source {label} is down or no longer offers it); try again later or do without it"
            ))),
            Lookup::Missing => Err(self.failure(self.unknown_tool_message(name))),
        }
    }

    fn validated(
        &self,
        name: &str,
        entry: &Entry,
        args: Value,
    ) -> Result<PreparedCall, ToolOutcome> {
        entry.tool.validate(&args).map_err(|e| self.failure(e))?;
        Ok(PreparedCall {
            tool: Arc::clone(&entry.tool),
            name: name.to_owned(),
            args,
            effect: entry.tool.effect(),
        })
    }

    fn failure(&self, message: impl fmt::Display) -> ToolOutcome {
        self.capped(ToolOutcome::failure(message))
    }

    fn capped(&self, outcome: ToolOutcome) -> ToolOutcome {
        ToolOutcome {
            ok: outcome.ok,
            output: truncate_output(outcome.output, self.max_output_bytes),
        }
    }

    /// Runs `work` in its own task so a panic cannot take down the agent loop, and aborts
    /// it on timeout. Blocking (non-await) code inside a tool cannot be interrupted; tools
    /// must stay async-friendly (or bound their own blocking work, as the SQL tools do).
    async fn isolated<T: Send + 'static>(
        &self,
        name: &str,
        work: impl Future<Output = T> + Send + 'static,
    ) -> Isolated<T> {
        let mut guard = AbortOnDrop(tokio::spawn(work));
        match tokio::time::timeout(self.timeout, &mut guard.0).await {
            Ok(Ok(value)) => Isolated::Done(value),
            Ok(Err(join_error)) => {
                // The panic payload may hold anything (even secrets): log only that it
                // happened, and tell the model nothing beyond that.
                tracing::warn!(
                    tool = name,
                    panicked = join_error.is_panic(),
                    "tool task failed"
                );
                Isolated::Crashed
            }
            Err(_elapsed) => {
                tracing::warn!(
                    tool = name,
                    timeout_ms = self.timeout.as_millis() as u64,
                    "tool timed out"
                );
                Isolated::TimedOut
            }
        }
    }
}

enum Isolated<T> {
    Done(T),
    Crashed,
    TimedOut,
}

/// Aborts the tool task if our caller drops the `call` future (e.g. a cancelled turn),
/// so abandoned tools do not keep running.
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Names of the meta tools the registry builds itself; no tool or source may take them.
fn reserved(name: &str) -> bool {
    name == index::LOAD_TOOLS || name == skills::READ_SKILL
}
