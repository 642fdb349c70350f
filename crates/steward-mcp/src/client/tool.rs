//! An MCP server's tools as Steward `Tool`s: `McpTool` calls one server tool, `ResourceTool`
//! lists or reads the server's resources. Both find the server's *current* session at call
//! time, so a tool object outlives reconnects, and both fence what comes back.
//!
//! Owns: the call (timeout, error wording, noticing a dead transport) and the effect a tool
//! gets. Does not own the approval gate (steward-core asks for anything but read/memory) or
//! restarting (see `supervisor`).

use super::reach;
use super::scrub::scrub;
use super::state::ServerHandle;
use crate::fence::{fence, resource_result_text, tool_result_text};
use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequestParams, ClientRequest, PingRequest, ReadResourceRequestParams, ToolAnnotations,
};
use serde_json::{Value, json};
use std::sync::{Arc, Weak};
use std::time::Duration;
use steward_protocol::Effect;
use steward_tools::{Reach, Tool, ToolContext, ToolError};

/// Longest one-line summary of a tool (`steward mcp list`), in characters.
pub const MAX_DESCRIPTION: usize = 300;
/// Longest description a loaded tool carries to the model, in bytes: room for the long
/// descriptions real servers write (sequential-thinking: 2,781 characters), a bound on a
/// hostile one. The tool index still shows only its first sentence.
pub const MAX_FULL_DESCRIPTION: usize = 8 * 1024;
/// Longest resource URI accepted from the model.
const MAX_URI: usize = 2048;
/// How long the health check after a timed-out call waits for a ping.
const PING_TIMEOUT: Duration = Duration::from_secs(5);

/// The effect a server tool gets. An override from the configuration wins. Otherwise
/// `destructiveHint` → Destructive, even beside `readOnlyHint` (a tool that says both is
/// lying one way or the other; the gate asks); `readOnlyHint` → Read only when the owner
/// set `trust_annotations` for the server (annotations are the server's word about itself,
/// and a hostile server would call everything read-only); anything else → External (asks).
pub fn effect_for(
    annotations: Option<&ToolAnnotations>,
    overridden: Option<Effect>,
    trust_annotations: bool,
) -> Effect {
    if let Some(e) = overridden {
        return e;
    }
    match annotations {
        Some(a) if a.destructive_hint == Some(true) => Effect::Destructive,
        Some(a) if trust_annotations && a.read_only_hint == Some(true) => Effect::Read,
        _ => Effect::External,
    }
}

/// `[mcp:server] description`, single line, bounded: what `steward mcp list` shows.
pub(crate) fn describe(server: &str, text: Option<&str>) -> String {
    let body = scrub(text.unwrap_or("(no description)"), &[], MAX_DESCRIPTION);
    format!("[mcp:{server}] {body}")
}

/// `[mcp:server] description` as a loaded tool's schema carries it: the whole text, its
/// line breaks kept (lists and paragraphs read better), control and bidi characters made
/// spaces, runs of spaces and of blank lines collapsed, cut at `MAX_FULL_DESCRIPTION` bytes.
/// The tool index makes its own one-line summary of it.
pub fn full_description(server: &str, text: Option<&str>) -> String {
    let raw = text.unwrap_or("(no description)");
    let mut body = String::with_capacity(raw.len().min(MAX_FULL_DESCRIPTION));
    let mut blank = false;
    for line in raw.lines() {
        let line: String = line
            .chars()
            .map(|c| {
                if c.is_control() || steward_protocol::untrusted::is_bidi_control(c) {
                    ' '
                } else {
                    c
                }
            })
            .collect();
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            blank = !body.is_empty();
            continue;
        }
        if !body.is_empty() {
            body.push_str(if blank { "\n\n" } else { "\n" });
        }
        blank = false;
        // Keep a list's indentation hint: one leading space per level is enough.
        if line.starts_with(' ') {
            body.push(' ');
        }
        body.push_str(&words.join(" "));
        if body.len() > MAX_FULL_DESCRIPTION {
            break;
        }
    }
    if body.len() > MAX_FULL_DESCRIPTION {
        let mut cut = MAX_FULL_DESCRIPTION - '…'.len_utf8();
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body.truncate(cut);
        body.push('…');
    }
    if body.is_empty() {
        body.push_str("(no description)");
    }
    format!("[mcp:{server}] {body}")
}

pub(crate) struct McpTool {
    pub handle: Weak<ServerHandle>,
    /// The server's configured name (for `reach`'s summary).
    pub server: String,
    pub name: String,
    pub original: String,
    pub description: String,
    pub parameters: Value,
    pub effect: Effect,
}

/// `list` or `read`: the two resource tools a server with resources gets.
pub(crate) struct ResourceTool {
    pub handle: Weak<ServerHandle>,
    pub server: String,
    pub name: String,
    pub read: bool,
}

fn server(handle: &Weak<ServerHandle>) -> Result<Arc<ServerHandle>, ToolError> {
    handle
        .upgrade()
        .ok_or_else(|| ToolError::Failed("this MCP server is no longer configured".into()))
}

fn not_connected(h: &ServerHandle) -> ToolError {
    ToolError::Failed(format!(
        "the MCP server `{}` is not connected right now (it is restarting or unreachable); try again later",
        h.spec.name
    ))
}

/// Turn a failed request into the model's error, and report a dead transport so the
/// supervisor reconnects now rather than at the next health check.
fn call_failed(h: &Arc<ServerHandle>, generation: u64, err: ServiceError) -> ToolError {
    let secrets = h.spec.secret_values();
    match err {
        ServiceError::McpError(e) => {
            let text = scrub(&e.message, &secrets, 500);
            ToolError::Failed(format!(
                "the MCP server `{}` refused the request (code {}):\n{}",
                h.spec.name,
                e.code.0,
                fence(&format!("{}/error", h.label), &text)
            ))
        }
        ServiceError::Timeout { .. } => timed_out(h, generation),
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            let why = if matches!(err, ServiceError::TransportClosed) {
                "the connection closed"
            } else {
                "the request could not be sent (is the server running?)"
            };
            tracing::debug!(server = %h.spec.name, error = %scrub(&err.to_string(), &secrets, 500), "MCP transport failed");
            h.report_broken(generation, why);
            ToolError::Failed(format!(
                "lost the connection to the MCP server `{}` ({why}); it is being restarted, try again shortly",
                h.spec.name
            ))
        }
        other => ToolError::Failed(format!(
            "the MCP server `{}` answered in a way Steward does not understand ({})",
            h.spec.name,
            scrub(&other.to_string(), &secrets, 200)
        )),
    }
}

/// A call ran out of time: the server may just be slow, so check with a ping in the
/// background and only then declare the session broken.
fn timed_out(h: &Arc<ServerHandle>, generation: u64) -> ToolError {
    let handle = Arc::clone(h);
    if let Some((peer, gen_now)) = h.peer()
        && gen_now == generation
    {
        tokio::spawn(async move {
            let ping = ClientRequest::PingRequest(PingRequest {
                method: Default::default(),
                extensions: Default::default(),
            });
            let alive = matches!(
                tokio::time::timeout(PING_TIMEOUT, peer.send_request(ping)).await,
                Ok(Ok(_))
            );
            if !alive {
                handle.report_broken(generation, "no answer to a ping after a timed-out call");
            }
        });
    }
    ToolError::Failed(format!(
        "the MCP server `{}` did not answer within {} s",
        h.spec.name,
        h.spec.timeout.as_secs()
    ))
}

#[async_trait::async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    fn effect(&self) -> Effect {
        self.effect
    }

    /// Every string argument goes to the server; http(s) URLs among them may be fetched.
    /// Output stays untrusted (the default): a server's text is someone else's.
    fn reach(&self, args: &Value) -> Reach {
        reach::tool_reach(&self.server, &self.original, &self.parameters, args)
    }

    async fn run(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        let h = server(&self.handle)?;
        let (peer, generation) = h.peer().ok_or_else(|| not_connected(&h))?;
        let arguments = match args {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        let request = CallToolRequestParams::new(self.original.clone()).with_arguments(arguments);
        let result = match tokio::time::timeout(h.spec.timeout, peer.call_tool(request)).await {
            Err(_) => return Err(timed_out(&h, generation)),
            Ok(Err(e)) => return Err(call_failed(&h, generation, e)),
            Ok(Ok(r)) => r,
        };
        let secrets = h.spec.secret_values();
        let mut text = tool_result_text(&result);
        for s in &secrets {
            text = text.replace(s.as_str(), "[redacted]");
        }
        let fenced = fence(&format!("{}/{}", h.label, self.original), &text);
        if result.is_error == Some(true) {
            return Err(ToolError::Failed(format!(
                "the MCP tool reported an error:\n{fenced}"
            )));
        }
        Ok(fenced)
    }
}

#[async_trait::async_trait]
impl Tool for ResourceTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        if self.read {
            "Read one resource of this MCP server by its URI (see the list tool)."
        } else {
            "List the resources this MCP server offers (URI, name, type)."
        }
    }

    fn parameters(&self) -> Value {
        if self.read {
            json!({
                "type": "object",
                "properties": {"uri": {"type": "string", "minLength": 1, "maxLength": MAX_URI}},
                "required": ["uri"],
                "additionalProperties": false
            })
        } else {
            json!({"type": "object", "properties": {}, "additionalProperties": false})
        }
    }

    fn effect(&self) -> Effect {
        Effect::Read
    }

    /// Reading sends the URI to the server; listing sends nothing.
    fn reach(&self, args: &Value) -> Reach {
        match args.get("uri").and_then(Value::as_str) {
            Some(uri) if self.read => reach::resource_reach(uri),
            _ => Reach {
                summary: Some(format!("{}: list resources", self.server)),
                ..Reach::default()
            },
        }
    }

    async fn run(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        let h = server(&self.handle)?;
        let (peer, generation) = h.peer().ok_or_else(|| not_connected(&h))?;
        let timeout = h.spec.timeout;
        let text = if self.read {
            let uri = args.get("uri").and_then(Value::as_str).unwrap_or_default();
            let request = ReadResourceRequestParams::new(uri);
            match tokio::time::timeout(timeout, peer.read_resource(request)).await {
                Err(_) => return Err(timed_out(&h, generation)),
                Ok(Err(e)) => return Err(call_failed(&h, generation, e)),
                Ok(Ok(r)) => resource_result_text(&r),
            }
        } else {
            match tokio::time::timeout(timeout, peer.list_all_resources()).await {
                Err(_) => return Err(timed_out(&h, generation)),
                Ok(Err(e)) => return Err(call_failed(&h, generation, e)),
                Ok(Ok(list)) => render_resources(&list),
            }
        };
        let kind = if self.read { "resource" } else { "resources" };
        Ok(fence(&format!("{}/{kind}", h.label), &text))
    }
}

/// One line per resource, at most 200 of them.
fn render_resources(list: &[rmcp::model::Resource]) -> String {
    if list.is_empty() {
        return "(no resources)".to_owned();
    }
    let mut out: Vec<String> = list
        .iter()
        .take(200)
        .map(|r| {
            let mime = r.mime_type.as_deref().unwrap_or("?");
            scrub(&format!("{} | {} | {mime}", r.uri, r.name), &[], 300)
        })
        .collect();
    if list.len() > 200 {
        out.push(format!("… and {} more", list.len() - 200));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_description_keeps_its_lines_and_is_bounded() {
        let text =
            "First line.\r\n\n\n\nKey features:\n  - one\t\tthing\u{7}\n  - two \u{202E}x\n\n";
        assert_eq!(
            full_description("s", Some(text)),
            "[mcp:s] First line.\n\nKey features:\n - one thing\n - two x"
        );
        let long = full_description("s", Some(&"é".repeat(20_000)));
        assert!(long.len() <= MAX_FULL_DESCRIPTION + 16, "{}", long.len());
        assert!(long.ends_with('…'));
        assert_eq!(
            full_description("s", Some(" \n ")),
            "[mcp:s] (no description)"
        );
        assert_eq!(full_description("s", None), "[mcp:s] (no description)");
        // The listing's summary stays one bounded line.
        let summary = describe("s", Some(text));
        assert!(!summary.contains('\n') && summary.chars().count() < MAX_DESCRIPTION + 12);
    }
}
