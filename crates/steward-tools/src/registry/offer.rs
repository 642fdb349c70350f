//! What the registry offers the model: the tool list of one call (`offer`: core tools, then
//! `read_skill`, then `load_tools` with the index, then the loaded on-demand tools), the
//! bookkeeping of loads after a round (`note_calls`), the skills behind `read_skill`, the two
//! meta tools built from the tools available at the moment, and the "unknown tool" answer.
//!
//! Owns: handing the index and the skills the registry's data. Does not own the index text,
//! `load_tools` or the loads (`crate::index`), nor `read_skill` (`crate::skills`): those get
//! what they need as arguments and never see the registry, so they depend on it for nothing.

use super::ToolRegistry;
use crate::entry::Entry;
use crate::index::{index_text, load_tools_entry, load_tools_spec, unknown_tool_message};
use crate::skills::{Skill, read_skill_entry, read_skill_spec};
use std::collections::BTreeSet;
use std::sync::Arc;
use steward_protocol::{ConversationId, ToolSpec};

impl ToolRegistry {
    /// The tool specs for one model call in `conversation` (with the index off: every
    /// spec, then `read_skill`): core tools (sorted by name), then `read_skill` (if there
    /// are skills), then `load_tools` with the index (if anything is on demand), then the
    /// loaded on-demand tools that are still available, in first-loaded order.
    pub fn offer(&self, conversation: &ConversationId) -> Vec<ToolSpec> {
        if !self.index {
            let mut specs = self.specs();
            specs.extend(read_skill_spec(&self.skills));
            return specs;
        }
        let mut specs: Vec<ToolSpec> = self.core_entries().map(|e| e.spec.clone()).collect();
        specs.extend(read_skill_spec(&self.skills));
        let on_demand = self.on_demand_entries();
        if on_demand.is_empty() {
            return specs;
        }
        specs.push(load_tools_spec(&on_demand));
        for name in self.loads().loaded(conversation) {
            if let Some((_, entry)) = on_demand.iter().find(|(_, e)| e.spec.name == name) {
                specs.push(entry.spec.clone());
            }
        }
        specs
    }

    /// Record that the model called these tools in `conversation`: the on-demand ones
    /// among them stay loaded (a tool called without loading it is loaded by the call).
    pub fn note_calls<'a>(
        &self,
        conversation: &ConversationId,
        names: impl IntoIterator<Item = &'a str>,
    ) {
        let on_demand: BTreeSet<String> = self
            .on_demand_entries()
            .into_iter()
            .map(|(_, e)| e.spec.name)
            .collect();
        let used: Vec<String> = names
            .into_iter()
            .filter(|n| on_demand.contains(*n))
            .map(str::to_owned)
            .collect();
        self.loads().mark(conversation, &used);
    }

    /// The index text (the `load_tools` description), or None when nothing is on demand.
    pub fn tool_index(&self) -> Option<String> {
        let on_demand = self.on_demand_entries();
        (!on_demand.is_empty()).then(|| index_text(&on_demand))
    }

    /// Offer these skills through `read_skill` (replacing any set before). With none, the
    /// tool is not offered.
    pub fn set_skills(&mut self, skills: Vec<Skill>) {
        self.skills = Arc::new(skills);
    }

    /// The loaded skills, sorted by name.
    pub fn skills(&self) -> &[Skill] {
        &self.skills
    }

    fn core_names(&self) -> Vec<String> {
        self.core_entries().map(|e| e.spec.name.clone()).collect()
    }

    /// `load_tools` as it is now; None when nothing is on demand or the index is off (the
    /// meta tool is not offered then either).
    pub(super) fn load_tools_entry(&self) -> Option<Entry> {
        if !self.index {
            return None;
        }
        load_tools_entry(self.on_demand_entries(), self.core_names(), self.loads())
    }

    /// `read_skill` as it is now; None without skills.
    pub(super) fn read_skill_entry(&self) -> Option<Entry> {
        let on_demand = self
            .on_demand_entries()
            .into_iter()
            .map(|(_, e)| e.spec.name)
            .collect();
        read_skill_entry(&self.skills, on_demand, self.core_names(), self.loads())
    }

    /// The error for a name no tool has, listing or suggesting the tools there are.
    pub(super) fn unknown_tool_message(&self, name: &str) -> String {
        let on_demand = self.on_demand_entries();
        let all: Vec<&str> = self
            .core_entries()
            .map(|e| e.spec.name.as_str())
            .chain(on_demand.iter().map(|(_, e)| e.spec.name.as_str()))
            .collect();
        unknown_tool_message(&all, self.index && !on_demand.is_empty(), name)
    }
}
