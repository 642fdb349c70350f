//! Taint, tracked in code per turn — the "rule of two": a turn that holds the owner's
//! private data and has read untrusted content must not also communicate outward or plant
//! memory without a human. Prompts explain; this module decides.
//!
//! A turn is tainted once untrusted text is in the model's context: a tool result from a
//! tool whose `output_trust()` is Untrusted (pages, search results, MCP output, rows read by
//! `db_query`, unknown tools), in this turn or in the history sent with it, or as an approved
//! action's result in a follow-up turn (a trusted tool's result does not taint); a
//! quarantined memory row shown in the context block.
//!
//! For every call the gate asks `review` (one rule for every outbound tool: it reads the
//! tool's own `reach()` declaration):
//! - a URL that the owner wrote in this conversation runs as a read;
//! - a URL carrying a stored private value (fact, note, configured secret; also hidden by
//!   encoding, subdomains or fragments) asks, tainted or not;
//! - in a tainted turn, any other URL asks unless it appeared verbatim as a link in an
//!   earlier tool result of this turn (reading the page the owner asked for, then a link on
//!   it, needs no card);
//! - text sent to an owner-configured endpoint (a search query, MCP arguments) asks when it
//!   carries a private value the owner did not write in this conversation;
//! - in a tainted turn, text the model writes into memory must be grounded in the owner's
//!   own words (`steward_memory::gate::check_grounded`); otherwise it parks as a card that
//!   says where it came from. What is written from a tainted turn carries the taint in its
//!   provenance (`ToolContext::tainted_by`) and stays out of other conversations until the
//!   owner confirms it.
//!
//! Owns: the turn's taint state and the verdict per call. Does not own: what a tool touches
//! (each tool's `reach`), approval policy by effect (`approvals::policy`), parking and cards
//! (`approvals::gate`).

mod links;
mod private;
#[cfg(test)]
mod tests;

pub(crate) use private::PrivateValues;

use links::{decode, describe, find_urls, same_link};
use private::Finding;
use std::collections::HashSet;
use steward_protocol::{Message, Role};
use steward_tools::{OutputTrust, Reach, ToolRegistry};

/// Untrusted text kept per turn for the grounding check, in characters (the newest win).
const MAX_UNTRUSTED_CHARS: usize = 256 * 1024;
/// The follow-up note of an approved action starts with this (see `approvals_api`).
const ACTION_RESULT_OPEN: &str = "<action_result";

/// What the turn's model context holds, as far as trust goes.
#[derive(Debug, Clone, Default)]
pub(crate) struct TurnTaint {
    /// Untrusted sources in the context, first seen first ("fetch_url", "docs__search").
    sources: Vec<String>,
    /// Their texts, for the grounding check of memory writes.
    untrusted: Vec<String>,
    untrusted_chars: usize,
    /// What the owner wrote in this conversation (loaded history and this message).
    owner: Vec<String>,
    /// Links the owner wrote.
    owner_links: Vec<String>,
    /// Links that appeared in tool results of this turn.
    seen_links: HashSet<String>,
}

/// Why a call must ask although its effect alone would not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Review {
    /// Shown on the card, above the tool's own preview.
    pub text: String,
}

impl TurnTaint {
    pub(crate) fn is_tainted(&self) -> bool {
        !self.sources.is_empty()
    }

    pub(crate) fn sources(&self) -> &[String] {
        &self.sources
    }

    /// The untrusted texts the turn's model saw (newest kept when there is too much).
    pub(crate) fn untrusted_texts(&self) -> &[String] {
        &self.untrusted
    }

    /// The owner wrote `text` (a user message of this conversation).
    pub(crate) fn add_owner(&mut self, text: &str) {
        self.owner_links.extend(find_urls(text));
        self.owner.push(text.to_owned());
    }

    /// Untrusted text from `source` entered the context.
    pub(crate) fn add_untrusted(&mut self, source: &str, text: &str) {
        if !self.sources.iter().any(|s| s == source) {
            self.sources.push(source.to_owned());
        }
        self.untrusted_chars += text.chars().count();
        self.untrusted.push(text.to_owned());
        while self.untrusted_chars > MAX_UNTRUSTED_CHARS && self.untrusted.len() > 1 {
            let dropped = self.untrusted.remove(0);
            self.untrusted_chars -= dropped.chars().count();
        }
    }

    /// A source whose text we do not keep (a quarantined memory row: its text is in the
    /// context block, which the grounding check already leaves out of the owner's words).
    pub(crate) fn add_source(&mut self, source: &str) {
        if !self.sources.iter().any(|s| s == source) {
            self.sources.push(source.to_owned());
        }
    }

    /// A tool result of this turn: its links may be followed; if its tool is untrusted,
    /// its text taints the turn.
    pub(crate) fn add_result(&mut self, tool: &str, output: &str, trust: OutputTrust) {
        for u in find_urls(output) {
            self.seen_links.insert(links::key(&u));
        }
        if trust == OutputTrust::Untrusted {
            self.add_untrusted(tool, output);
        }
    }

    /// What the loaded history brings: the owner's messages, untrusted tool results from
    /// earlier turns, and follow-up notes of approved actions. A history tool result's
    /// links are not "seen in this turn".
    pub(crate) fn add_history(&mut self, history: &[Message], tools: &ToolRegistry) {
        for m in history {
            match m.role {
                Role::User if m.content.trim_start().starts_with(ACTION_RESULT_OPEN) => {
                    if let Some(src) = follow_up_source(&m.content, tools) {
                        self.add_untrusted(&src, &m.content);
                    }
                }
                Role::User => self.add_owner(&m.content),
                Role::Tool => {
                    let name = m.tool_name.as_deref().unwrap_or("unknown tool");
                    if trust_of(tools, name) == OutputTrust::Untrusted {
                        self.add_untrusted(name, &m.content);
                    }
                }
                Role::Assistant => {}
            }
        }
    }

    /// A follow-up turn's note (the result of an approved action).
    pub(crate) fn add_follow_up(&mut self, note: &str, tools: &ToolRegistry) {
        if let Some(src) = follow_up_source(note, tools) {
            self.add_untrusted(&src, note);
        }
    }

    fn owner_wrote_link(&self, url: &str) -> bool {
        self.owner_links.iter().any(|o| same_link(o, url))
    }

    fn owner_wrote(&self, value: &str) -> bool {
        let v = private::norm(value);
        !v.is_empty() && self.owner.iter().any(|o| private::norm(o).contains(&v))
    }

    /// The verdict for one call: None runs it under the usual policy; Some asks.
    pub(crate) async fn review(
        &self,
        reach: &Reach,
        private: &PrivateValues,
        user: &str,
    ) -> Option<Review> {
        let mut reasons: Vec<String> = Vec::new();
        for url in &reach.urls {
            if self.owner_wrote_link(url) {
                continue;
            }
            let decoded = decode(url);
            let found = private.find(user, &decoded.texts).await;
            let unseen = self.is_tainted() && !self.seen_links.contains(&links::key(url));
            if found.is_empty() && !unseen {
                continue;
            }
            let mut why = String::new();
            if unseen {
                why.push_str(&format!(
                    "This request goes to an address the model composed after reading untrusted content ({}); \
                     it was neither written by you nor shown as a link in what it read.\n",
                    self.sources.join(", ")
                ));
            }
            push_findings(&mut why, &found);
            why.push_str(&describe(url));
            reasons.push(why);
        }
        let sends: Vec<String> = reach
            .sends
            .iter()
            .filter(|t| !t.trim().is_empty())
            .cloned()
            .collect();
        if !sends.is_empty() {
            let found: Vec<Finding> = private
                .find(user, &sends)
                .await
                .into_iter()
                .filter(|f| f.shown.as_deref().is_none_or(|v| !self.owner_wrote(v)))
                .collect();
            if !found.is_empty() {
                let mut why = String::from(
                    "This call sends text outside Steward that carries private data:\n",
                );
                push_findings(&mut why, &found);
                reasons.push(why.trim_end().to_owned());
            }
        }
        if self.is_tainted() {
            let owner = self.owner.join("\n");
            let untrusted: Vec<&str> = self.untrusted.iter().map(String::as_str).collect();
            for text in &reach.remembers {
                if steward_memory::gate::check_grounded(text, &owner, &untrusted).is_err() {
                    reasons.push(format!(
                        "The model wants to remember text that is not in anything you wrote; it read untrusted content \
                         in this turn ({}), so this may have come from there:\n{}",
                        self.sources.join(", "),
                        text.trim()
                    ));
                }
            }
        }
        (!reasons.is_empty()).then(|| Review {
            text: reasons.join("\n\n"),
        })
    }
}

fn push_findings(why: &mut String, found: &[Finding]) {
    for f in found {
        match &f.shown {
            Some(v) => why.push_str(&format!("It contains {}: {v}\n", f.what)),
            None => why.push_str(&format!("It contains {}.\n", f.what)),
        }
    }
}

/// Untrusted unless the registry knows the tool and it says otherwise (a tool that is gone,
/// such as a disconnected MCP server's, counts as untrusted).
pub(crate) fn trust_of(tools: &ToolRegistry, name: &str) -> OutputTrust {
    tools
        .get(name)
        .map(|t| t.output_trust())
        .unwrap_or(OutputTrust::Untrusted)
}

/// The untrusted source behind an approved action's result note, if its tool's output is
/// untrusted (plans and unreadable notes count as untrusted).
fn follow_up_source(note: &str, tools: &ToolRegistry) -> Option<String> {
    let head = note.lines().next().unwrap_or("");
    let tool = head
        .split("tool=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next());
    match tool {
        Some(name) if trust_of(tools, name) == OutputTrust::Trusted => None,
        Some(name) => Some(name.to_owned()),
        None => Some("approved action".to_owned()),
    }
}
