//! The tool index: how the model sees many tools cheaply. Each model call is offered the
//! core tools with full schemas, one meta tool `load_tools` whose description is a compact
//! index of every on-demand tool ("name: one line", grouped by source), and the full
//! schemas of the on-demand tools this conversation has loaded (by `load_tools`, by calling
//! one directly, or by `read_skill`).
//!
//! Byte-stability: for an unchanged set of tools and loads, `offer` returns identical specs
//! (core sorted by name, the index in a fixed order, loaded tools in first-loaded order), so
//! provider prompt caches hold. Owns the index text, `load_tools` and the per-conversation
//! loads; the registry asks it (`registry/offer.rs`) and it never sees the registry. Does not
//! own running tools, approval, or the turn loop.

mod loads;
mod near;

pub use loads::{DEFAULT_KEEP, Loads, MAX_CONVERSATIONS, MAX_PER_CONVERSATION};
pub use near::near_matches;

use crate::entry::Entry;
use crate::{OutputTrust, Tool, ToolContext, ToolError};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::Arc;
use steward_protocol::{Effect, ToolSpec};

/// The meta tool's reserved name.
pub const LOAD_TOOLS: &str = "load_tools";
/// How many tool names an "unknown tool" message lists before it suggests instead.
const MAX_LISTED_TOOLS: usize = 20;
/// Names one `load_tools` call may ask for.
const MAX_LOAD_NAMES: usize = 16;
/// Longest one-line summary in the index, in chars.
const SUMMARY_CHARS: usize = 90;
/// Index lines with a summary; past this, names only (a runaway source cannot make every
/// call huge through the index alone).
const MAX_SUMMARIES: usize = 300;

const INDEX_HEAD: &str = "Load tools by name: their full definitions are added to your tool list for this conversation, then call them. Calling a listed tool directly also works. Tools you can load, by source:";

/// Few tools: list them all. Many: the nearest names, and where to find the rest (the
/// `load_tools` index when it is offered).
pub(crate) fn unknown_tool_message(all: &[&str], index_offered: bool, name: &str) -> String {
    let unknown = ToolError::UnknownTool(crate::schema::echo(name));
    if all.len() <= MAX_LISTED_TOOLS {
        let available = if all.is_empty() {
            "none".to_owned()
        } else {
            all.join(", ")
        };
        return format!("{unknown}; available tools: {available}");
    }
    let near = near_matches(name, all.iter().copied());
    let hint = if near.is_empty() {
        "no tool has a similar name".to_owned()
    } else {
        format!("did you mean: {}", near.join(", "))
    };
    if index_offered {
        format!(
            "{unknown}; {hint}. The `{LOAD_TOOLS}` tool's description lists every tool you can load."
        )
    } else {
        format!("{unknown}; {hint}.")
    }
}

/// The `load_tools` entry, built from the tools available now (`on_demand` as (group,
/// entry), the core tools' names); None when nothing is on demand.
pub(crate) fn load_tools_entry(
    on_demand: Vec<(String, Entry)>,
    core: Vec<String>,
    loads: Arc<Loads>,
) -> Option<Entry> {
    if on_demand.is_empty() {
        return None;
    }
    let tool = LoadTools {
        description: index_text(&on_demand),
        on_demand: on_demand.into_iter().map(|(_, e)| e.spec.name).collect(),
        core,
        loads,
    };
    Entry::new(Arc::new(tool), false).ok()
}

pub(crate) fn load_tools_spec(on_demand: &[(String, Entry)]) -> ToolSpec {
    ToolSpec {
        name: LOAD_TOOLS.to_owned(),
        description: index_text(on_demand),
        parameters: load_tools_parameters(),
    }
}

fn load_tools_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "names": {"type": "array", "items": {"type": "string", "maxLength": 64}}
        },
        "required": ["names"],
        "additionalProperties": false
    })
}

/// "head\n[group]\nname: summary\n…", groups in the order given (static, then sources).
pub(crate) fn index_text(on_demand: &[(String, Entry)]) -> String {
    let mut text = INDEX_HEAD.to_owned();
    let mut group: Option<&str> = None;
    for (i, (label, entry)) in on_demand.iter().enumerate() {
        if group != Some(label.as_str()) {
            text.push_str("\n[");
            text.push_str(label);
            text.push(']');
            group = Some(label);
        }
        text.push('\n');
        text.push_str(&entry.spec.name);
        if i < MAX_SUMMARIES {
            // A source may tag its descriptions with its own label ("[mcp:x] …") for when
            // the full schema is loaded; under the group header that tag is pure cost.
            let tag = format!("[{label}]");
            let description = entry.spec.description.trim_start();
            let description = description.strip_prefix(&tag).unwrap_or(description);
            let summary = summary(description);
            if !summary.is_empty() {
                text.push_str(": ");
                text.push_str(&summary);
            }
        }
    }
    text
}

/// The first sentence of a description on one line, at most `SUMMARY_CHARS` chars.
fn summary(description: &str) -> String {
    let flat = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = match flat.find(". ") {
        Some(end) => &flat[..end + 1],
        None => flat.as_str(),
    };
    match first.char_indices().nth(SUMMARY_CHARS) {
        Some((cut, _)) => format!("{}…", first[..cut].trim_end()),
        None => first.to_owned(),
    }
}

/// The meta tool. Built per call from the tools available at that moment.
struct LoadTools {
    description: String,
    on_demand: Vec<String>,
    core: Vec<String>,
    loads: Arc<Loads>,
}

#[async_trait::async_trait]
impl Tool for LoadTools {
    fn name(&self) -> &str {
        LOAD_TOOLS
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        load_tools_parameters()
    }

    fn effect(&self) -> Effect {
        Effect::Read
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }

    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        let n = args
            .get("names")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if n == 0 || n > MAX_LOAD_NAMES {
            return Err(ToolError::InvalidArguments(format!(
                "give 1 to {MAX_LOAD_NAMES} tool names in `names`"
            )));
        }
        Ok(())
    }

    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let wanted: BTreeSet<&str> = args
            .get("names")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut loaded = Vec::new();
        let mut ready = Vec::new();
        let mut unknown = Vec::new();
        for name in wanted {
            if self.on_demand.iter().any(|n| n == name) {
                loaded.push(name.to_owned());
            } else if name == LOAD_TOOLS || self.core.iter().any(|n| n == name) {
                ready.push(name.to_owned());
            } else {
                unknown.push(self.unknown(name));
            }
        }
        self.loads.mark(&ctx.conversation, &loaded);
        let mut parts = Vec::new();
        if !loaded.is_empty() {
            parts.push(format!(
                "Loaded: {}. Their definitions are now in your tool list; call them directly.",
                loaded.join(", ")
            ));
        }
        if !ready.is_empty() {
            parts.push(format!("Already available: {}.", ready.join(", ")));
        }
        parts.extend(unknown);
        let text = parts.join("\n");
        if loaded.is_empty() && ready.is_empty() {
            return Err(ToolError::Failed(text));
        }
        Ok(text)
    }
}

impl LoadTools {
    fn unknown(&self, name: &str) -> String {
        let all = self.on_demand.iter().chain(&self.core).map(String::as_str);
        let near = near_matches(name, all);
        let name = crate::schema::echo(name);
        if near.is_empty() {
            format!("No tool named `{name}`; the index in this tool's description lists them all.")
        } else {
            format!("No tool named `{name}`; did you mean: {}?", near.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_one_short_line() {
        assert_eq!(summary("Adds two numbers. Then more."), "Adds two numbers.");
        assert_eq!(summary("Reads\n  a   file"), "Reads a file");
        let long = summary(&"word ".repeat(100));
        assert!(long.ends_with('…') && long.chars().count() <= SUMMARY_CHARS + 1);
        assert_eq!(summary(""), "");
        // A multi-byte char at the cut must not split.
        let wide = summary(&"é".repeat(200));
        assert_eq!(wide.chars().count(), SUMMARY_CHARS + 1);
    }
}
