//! `ToolRegistry`: holds the tools, hands their specs to the model, and turns a raw
//! `ToolCall` into a `ToolOutcome` — parsing, schema check, `validate`, a timeout, panic
//! isolation and output truncation — in two steps (`prepare`, then `run_prepared`) so an
//! approval gate can sit between them. Does not own any tool's behaviour or policy decisions.

use crate::schema::{self, echo};
use crate::{Tool, ToolContext, ToolError, ToolOutcome};
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
/// Argument text longer than this is refused before parsing, so a runaway model cannot
/// make us parse and check megabytes.
pub const MAX_ARGUMENT_BYTES: usize = 256 * 1024;
const MAX_NAME_LEN: usize = 64;
/// How many tool names an "unknown tool" message lists.
const MAX_LISTED_TOOLS: usize = 20;

struct Entry {
    tool: Arc<dyn Tool>,
    /// Captured once at registration so the advertised spec, and the schema we check
    /// against, cannot drift between calls (provider prompt caches need byte-identity).
    spec: ToolSpec,
}

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
            .field("timeout", &self.timeout)
            .field("max_output_bytes", &self.max_output_bytes)
            .finish()
    }
}

impl ToolRegistry {
    pub fn new() -> ToolRegistry {
        ToolRegistry {
            tools: BTreeMap::new(),
            timeout: DEFAULT_TIMEOUT,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
        }
    }

    pub fn with_timeout(mut self, d: Duration) -> ToolRegistry {
        self.timeout = d;
        self
    }

    /// Longer output is cut at a char boundary and a "[… truncated N bytes]" marker added.
    pub fn with_max_output_bytes(mut self, n: usize) -> ToolRegistry {
        self.max_output_bytes = n;
        self
    }

    /// Refuses names outside `[a-z0-9_]{1,64}` and parameter schemas outside the supported
    /// subset (both as `InvalidArguments`), and a second tool with the same name
    /// (`DuplicateName`).
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Result<(), ToolError> {
        let name = tool.name().to_owned();
        if !valid_name(&name) {
            return Err(ToolError::InvalidArguments(format!(
                "tool name `{}` must match [a-z0-9_]{{1,{MAX_NAME_LEN}}}",
                echo(&name)
            )));
        }
        if self.tools.contains_key(&name) {
            return Err(ToolError::DuplicateName(name));
        }
        let parameters = tool.parameters();
        schema::check_supported(&parameters)
            .map_err(|e| ToolError::InvalidArguments(format!("tool `{name}`: {e}")))?;
        let spec = ToolSpec {
            name: name.clone(),
            description: tool.description().to_owned(),
            parameters,
        };
        self.tools.insert(name, Entry { tool, spec });
        Ok(())
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.get(name).map(|e| Arc::clone(&e.tool))
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Specs sorted by name: byte-identical across calls (the system prompt and tool list
    /// must be stable so provider prompt caches hold).
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.values().map(|e| e.spec.clone()).collect()
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
        self.validated(&call.name, entry, args)
    }

    /// The same checks for arguments given as a JSON value, e.g. a human's revision of a
    /// pending action: the originating tool's own validator re-checks it.
    pub fn prepare_value(&self, name: &str, args: Value) -> Result<PreparedCall, ToolOutcome> {
        let entry = self.entry(name)?;
        check_value(&args, &entry.spec).map_err(|message| self.failure(message))?;
        self.validated(name, entry, args)
    }

    /// Run an already prepared call with the timeout, panic capture and output cap. Does
    /// not re-validate: the caller prepared it (possibly long before, for an approval).
    pub async fn run_prepared(&self, prepared: &PreparedCall, ctx: &ToolContext) -> ToolOutcome {
        let started = Instant::now();
        let tool = Arc::clone(&prepared.tool);
        let args = prepared.args.clone();
        let ctx = ctx.clone();
        let outcome = match self
            .isolated(&prepared.name, async move { tool.run(args, &ctx).await })
            .await
        {
            Isolated::Done(Ok(output)) => ToolOutcome::success(output),
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
        self.capped(outcome)
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

    fn entry(&self, name: &str) -> Result<&Entry, ToolOutcome> {
        self.tools
            .get(name)
            .ok_or_else(|| self.failure(self.unknown_tool_message(name)))
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

    fn unknown_tool_message(&self, name: &str) -> String {
        let mut names: Vec<&str> = self
            .tools
            .keys()
            .take(MAX_LISTED_TOOLS)
            .map(String::as_str)
            .collect();
        if self.tools.len() > MAX_LISTED_TOOLS {
            names.push("…");
        }
        let available = if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        };
        format!(
            "{}; available tools: {available}",
            ToolError::UnknownTool(echo(name))
        )
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

fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn parse_arguments(raw: &str, spec: &ToolSpec) -> Result<Value, String> {
    if raw.len() > MAX_ARGUMENT_BYTES {
        return Err(format!(
            "arguments are too large ({} bytes; the limit is {MAX_ARGUMENT_BYTES})",
            raw.len()
        ));
    }
    let args = if raw.trim().is_empty() {
        Value::Object(serde_json::Map::new())
    } else {
        serde_json::from_str::<Value>(raw).map_err(|e| {
            format!(
                "arguments are not valid JSON ({e}); send one JSON object, e.g. {}",
                example_arguments(&spec.parameters)
            )
        })?
    };
    check_schema(&args, spec)?;
    Ok(args)
}

/// The size limit and schema check for arguments that arrive already parsed.
fn check_value(args: &Value, spec: &ToolSpec) -> Result<(), String> {
    let len = serde_json::to_string(args)
        .map(|t| t.len())
        .unwrap_or(usize::MAX);
    if len > MAX_ARGUMENT_BYTES {
        return Err(format!(
            "arguments are too large ({len} bytes; the limit is {MAX_ARGUMENT_BYTES})"
        ));
    }
    check_schema(args, spec)
}

fn check_schema(args: &Value, spec: &ToolSpec) -> Result<(), String> {
    schema::check(&spec.parameters, args)
        .map_err(|e| format!("invalid arguments for `{}`: {e}", spec.name))
}

/// A minimal example call built from the required properties, to show the expected shape.
fn example_arguments(parameters: &Value) -> String {
    let mut example = serde_json::Map::new();
    let required = parameters.get("required").and_then(Value::as_array);
    let props = parameters.get("properties").and_then(Value::as_object);
    if let (Some(required), Some(props)) = (required, props) {
        for name in required.iter().filter_map(Value::as_str) {
            let placeholder = match props
                .get(name)
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str)
            {
                Some("number" | "integer") => Value::from(1),
                Some("boolean") => Value::Bool(true),
                Some("array") => Value::Array(Vec::new()),
                Some("object") => Value::Object(serde_json::Map::new()),
                _ => Value::String("...".to_owned()),
            };
            example.insert(name.to_owned(), placeholder);
        }
    }
    Value::Object(example).to_string()
}

/// Cut at a char boundary at or below `max` bytes and say how much went missing, so the
/// model knows the output is incomplete.
pub(crate) fn truncate_output(output: String, max: usize) -> String {
    if output.len() <= max {
        return output;
    }
    let mut cut = max;
    while !output.is_char_boundary(cut) {
        cut -= 1;
    }
    let dropped = output.len() - cut;
    format!("{}\n[… truncated {dropped} bytes]", &output[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        for good in ["a", "current_time", "x9_", &"a".repeat(64)] {
            assert!(valid_name(good), "{good}");
        }
        for bad in ["", "Current", "a-b", "a b", "é", &"a".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn truncation_respects_char_boundaries() {
        // "é" is two bytes, so a 5-byte limit falls mid-char and must back off to 4.
        let out = truncate_output("éééé".to_owned(), 5);
        assert_eq!(out, "éé\n[… truncated 4 bytes]");
        assert_eq!(truncate_output("short".to_owned(), 5), "short");
        assert_eq!(
            truncate_output("abc".to_owned(), 0),
            "\n[… truncated 3 bytes]"
        );
    }

    #[test]
    fn example_uses_required_properties() {
        let params = serde_json::json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "string"}},
            "required": ["a", "b"]
        });
        assert_eq!(example_arguments(&params), r#"{"a":"...","b":1}"#);
    }
}
