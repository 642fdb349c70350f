//! The `read_skill` tool: its description lists every skill in one line, a call returns one
//! skill's instructions and loads the on-demand tools the skill lists for the conversation.
//! Like `load_tools` it is built by the registry per call from the tools available then
//! (`registry/offer.rs`). Does not own loading skill files (see `mod.rs`).

use super::Skill;
use crate::entry::Entry;
use crate::index::Loads;
use crate::schema::echo;
use crate::{OutputTrust, Tool, ToolContext, ToolError};
use serde_json::{Value, json};
use std::sync::Arc;
use steward_protocol::{Effect, ToolSpec};

/// The tool's reserved name.
pub const READ_SKILL: &str = "read_skill";

const HEAD: &str = "Read one of the owner's skills: instructions for a kind of task. Read the matching skill before doing such a task; it also loads the tools the skill uses. Skills:";

/// `read_skill`'s spec, or None without skills.
pub(crate) fn read_skill_spec(skills: &[Skill]) -> Option<ToolSpec> {
    (!skills.is_empty()).then(|| ToolSpec {
        name: READ_SKILL.to_owned(),
        description: description(skills),
        parameters: parameters(),
    })
}

/// The `read_skill` entry over `skills`, knowing which tools it can load (`on_demand`) and
/// which are there already (`core`); None without skills.
pub(crate) fn read_skill_entry(
    skills: &Arc<Vec<Skill>>,
    on_demand: Vec<String>,
    core: Vec<String>,
    loads: Arc<Loads>,
) -> Option<Entry> {
    if skills.is_empty() {
        return None;
    }
    let tool = ReadSkill {
        description: description(skills),
        skills: Arc::clone(skills),
        on_demand,
        core,
        loads,
    };
    Entry::new(Arc::new(tool), false).ok()
}

fn description(skills: &[Skill]) -> String {
    let mut text = HEAD.to_owned();
    for skill in skills {
        text.push_str("\n- ");
        text.push_str(&skill.name);
        text.push_str(": ");
        text.push_str(&skill.description);
    }
    text
}

fn parameters() -> Value {
    json!({
        "type": "object",
        "properties": {"name": {"type": "string", "maxLength": 64}},
        "required": ["name"],
        "additionalProperties": false
    })
}

struct ReadSkill {
    description: String,
    skills: Arc<Vec<Skill>>,
    on_demand: Vec<String>,
    core: Vec<String>,
    loads: Arc<Loads>,
}

#[async_trait::async_trait]
impl Tool for ReadSkill {
    fn name(&self) -> &str {
        READ_SKILL
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        parameters()
    }

    fn effect(&self) -> Effect {
        Effect::Read
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }

    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        let name = args.get("name").and_then(Value::as_str).unwrap_or_default();
        if self.skills.iter().any(|s| s.name == name) {
            return Ok(());
        }
        let names: Vec<&str> = self.skills.iter().map(|s| s.name.as_str()).collect();
        Err(ToolError::InvalidArguments(format!(
            "no skill named `{}`; the skills are: {}",
            echo(name),
            names.join(", ")
        )))
    }

    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let name = args.get("name").and_then(Value::as_str).unwrap_or_default();
        let Some(skill) = self.skills.iter().find(|s| s.name == name) else {
            return Err(ToolError::InvalidArguments(format!(
                "no skill named `{}`",
                echo(name)
            )));
        };
        let (mut loaded, mut ready, mut missing) = (Vec::new(), Vec::new(), Vec::new());
        for tool in &skill.tools {
            if self.on_demand.contains(tool) {
                loaded.push(tool.clone());
            } else if self.core.contains(tool) {
                ready.push(tool.as_str());
            } else {
                missing.push(tool.as_str());
            }
        }
        self.loads.mark(&ctx.conversation, &loaded);
        let mut text = format!("Skill `{}`:\n\n{}", skill.name, skill.instructions);
        if !loaded.is_empty() {
            text.push_str(&format!(
                "\n\nLoaded for this skill: {}.",
                loaded.join(", ")
            ));
        }
        if !ready.is_empty() {
            text.push_str(&format!("\n\nAlready available: {}.", ready.join(", ")));
        }
        if !missing.is_empty() {
            text.push_str(&format!(
                "\n\nNot available right now: {}.",
                missing.join(", ")
            ));
        }
        Ok(text)
    }
}
