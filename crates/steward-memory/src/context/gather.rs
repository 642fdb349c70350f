//! `Memory::context_block`: gathers the user's facts, relevant notes and summaries,
//! read-later items sharing their tags, and the top learnings, then renders them under the
//! budget (see the parent module for layout, budget and fence rules).
//!
//! Owns: what qualifies and each item's priority. Does not own: rendering (`context`) or
//! relevance scoring (`recall`).

use super::{ContextItem, Section, priority, render};
use crate::{Memory, MemoryError, RecallMode, RecallOptions};
use steward_protocol::{
    ConversationId, FactSource, MAX_TAGS, MemoryKind, Provenance, Quarantine, Tag,
};
use steward_store::MemoryFilter;

/// The context block for one turn, and the untrusted sources behind any tainted item it
/// may show (the turn that sees them is tainted by them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextBlock {
    pub text: String,
    pub tainted_by: Vec<String>,
}

fn note_taint(p: &Provenance, out: &mut Vec<String>) {
    for s in p.taint_sources().unwrap_or_default() {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
}

/// Facts read per turn; the budget decides how many are shown.
const MAX_FACTS: usize = 500;
/// Notes and summaries considered per turn.
const MAX_NOTES: usize = 5;
/// Read-later items shown per turn.
const MAX_READ_LATER: usize = 3;
/// Learnings that reach the prompt, by recurrence.
const TOP_LEARNINGS: usize = 10;
/// The tag every reflection summary carries; it says nothing about a topic.
const SUMMARY_TAG: &str = "summary";

impl Memory {
    /// The per-turn context: key facts (user-sourced first), notes and summaries whose fused
    /// score reaches `relevance_threshold`, read-later items sharing a tag with those notes,
    /// and the top 10 learnings by recurrence — within `context_budget_tokens`, fenced as
    /// data; "" when nothing qualifies or nothing fits.
    /// Outside any conversation: no quarantined row is shown.
    pub async fn context_block(&self, user: &str, message: &str) -> Result<String, MemoryError> {
        Ok(self.gather(user, Quarantine::Hide, message).await?.text)
    }

    /// The block for a turn in `conversation`: tainted, unconfirmed rows written in another
    /// conversation are left out; those written in this one may be shown, and taint it.
    pub async fn context_for(
        &self,
        user: &str,
        conversation: &ConversationId,
        message: &str,
    ) -> Result<ContextBlock, MemoryError> {
        self.gather(user, Quarantine::ShowFrom(conversation.clone()), message)
            .await
    }

    async fn gather(
        &self,
        user: &str,
        quarantine: Quarantine,
        message: &str,
    ) -> Result<ContextBlock, MemoryError> {
        let now = self.now_ms();
        let mut items = Vec::new();
        let mut tainted_by = Vec::new();

        let mut facts = self.store.list_facts(user, MAX_FACTS, 0).await?;
        facts.retain(|f| {
            f.expires_at_ms.is_none_or(|t| t > now) && !quarantine.hides(&f.provenance)
        });
        for f in &facts {
            note_taint(&f.provenance, &mut tainted_by);
        }
        facts.sort_by(|a, b| {
            (b.source == FactSource::User)
                .cmp(&(a.source == FactSource::User))
                .then(b.confidence.total_cmp(&a.confidence))
                .then(b.last_seen_ms.cmp(&a.last_seen_ms))
        });
        for f in &facts {
            let p = if f.source == FactSource::User {
                priority::USER_FACT
            } else {
                priority::OTHER_FACT
            };
            items.push(ContextItem {
                section: Section::Facts,
                priority: p,
                text: format!("{}: {}", f.key, f.value),
            });
        }

        let opts = RecallOptions {
            filter: MemoryFilter {
                kinds: vec![MemoryKind::Note],
                ..MemoryFilter::default()
            },
            limit: MAX_NOTES,
            mode: RecallMode::Hybrid,
            recency_half_life: None,
            quarantine: quarantine.clone(),
        };
        let hits = self.recall(user, message, &opts).await?;
        let mut tags: Vec<String> = Vec::new();
        for hit in hits
            .iter()
            .filter(|h| h.score >= self.cfg.relevance_threshold)
        {
            let it = &hit.item;
            note_taint(&it.provenance, &mut tainted_by);
            let text = if it.title.is_empty() {
                it.text.clone()
            } else {
                format!("{}: {}", it.title, it.text)
            };
            items.push(ContextItem {
                section: Section::Notes,
                priority: priority::RELEVANT_NOTE,
                text,
            });
            // Only tags a filter may name: a note stored under an older rule may carry others
            // (longer, non-ASCII), and a filter holds at most `MAX_TAGS`.
            for t in &it.tags {
                if t != SUMMARY_TAG
                    && !tags.contains(t)
                    && tags.len() < MAX_TAGS
                    && Tag::parse(t).is_ok()
                {
                    tags.push(t.clone());
                }
            }
        }
        if !tags.is_empty() {
            for r in self
                .store
                .list_read_later(user, &tags, true, MAX_READ_LATER)
                .await?
            {
                items.push(ContextItem {
                    section: Section::ReadLater,
                    priority: priority::READ_LATER,
                    text: format!("{} ({})", r.title, r.url),
                });
            }
        }

        for l in self.store.top_learnings(user, TOP_LEARNINGS).await? {
            items.push(ContextItem {
                section: Section::Learnings,
                priority: priority::LEARNING,
                text: l.text,
            });
        }
        Ok(ContextBlock {
            text: render(&items, self.cfg.context_budget_tokens),
            tainted_by,
        })
    }
}
