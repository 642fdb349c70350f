//! `ToolSource`: a set of tools that can change while Steward runs (an MCP server's tools
//! appear when it connects and vanish while it is down), and `Sources`, the registry's view
//! of all of them: looking a tool up by name at call time, listing them in a byte-stable
//! order for the tool index, skipping invalid or clashing tools with one warning each, and
//! remembering which source a name came from so a vanished tool gets a clear error.
//!
//! Does not own connecting to anything (an MCP client implements `ToolSource`), schema
//! conversion, or which tools are sent to the model (see `index`).

use crate::Tool;
use crate::entry::Entry;
use crate::schema::echo;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};

/// A set of tools that can change while Steward runs (an MCP server's tools appear when it
/// connects and vanish while it is down). Its tools are offered on demand: listed in the
/// compact tool index, their full schemas sent only once the model asks for them.
pub trait ToolSource: Send + Sync {
    /// A short stable label for logs and `steward doctor` (e.g. "mcp:everything").
    fn label(&self) -> &str;
    /// The tools available right now. Cheap (called when building each model call's tool
    /// list); the returned order must be stable while the set is unchanged. Names must be
    /// valid registry names ([a-z0-9_]{1,64}) and already namespaced by the source.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
}

/// Bounds on the bookkeeping below, so a source that churns through names cannot grow
/// memory without limit.
const MAX_REMEMBERED: usize = 4096;

/// What a name resolves to among the sources.
pub(crate) enum Lookup {
    Found(Entry),
    /// The name came from this source earlier but is not offered now (server down).
    Vanished(String),
    Missing,
}

#[derive(Default)]
pub(crate) struct Sources {
    list: Vec<Arc<dyn ToolSource>>,
    /// tool name → label of the source that last offered it.
    seen: Mutex<BTreeMap<String, String>>,
    /// "label/name" of tools already warned about, so a bad tool warns once, not per call.
    warned: Mutex<BTreeSet<String>>,
}

impl Sources {
    pub(crate) fn add(&mut self, source: Arc<dyn ToolSource>) {
        self.list.push(source);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub(crate) fn labels(&self) -> Vec<String> {
        self.list.iter().map(|s| s.label().to_owned()).collect()
    }

    /// Every usable source tool as (source label, entry): sources in the order they were
    /// added, tools sorted by name within each, the first offer of a name winning. The
    /// order depends only on the set, never on what a source happened to return first.
    pub(crate) fn entries(&self, is_static: &dyn Fn(&str) -> bool) -> Vec<(String, Entry)> {
        let mut taken = BTreeSet::new();
        let mut out = Vec::new();
        for source in &self.list {
            let label = source.label();
            let mut mine: Vec<Entry> = source
                .tools()
                .into_iter()
                .filter_map(|tool| self.admit(label, tool, is_static))
                .collect();
            mine.sort_by(|a, b| a.spec.name.cmp(&b.spec.name));
            for entry in mine {
                if taken.insert(entry.spec.name.clone()) {
                    out.push((label.to_owned(), entry));
                } else {
                    self.warn_once(label, &entry.spec.name, "another source already offers it");
                }
            }
        }
        self.remember(&out);
        out
    }

    /// Find one tool by name at call time (the first source offering it wins, as in
    /// `entries`).
    pub(crate) fn lookup(&self, name: &str, is_static: &dyn Fn(&str) -> bool) -> Lookup {
        for source in &self.list {
            let label = source.label();
            let found = source.tools().into_iter().find(|t| t.name() == name);
            if let Some(entry) = found.and_then(|t| self.admit(label, t, is_static)) {
                self.remember(&[(label.to_owned(), entry.clone())]);
                return Lookup::Found(entry);
            }
        }
        match lock(&self.seen).get(name) {
            Some(label) => Lookup::Vanished(label.clone()),
            None => Lookup::Missing,
        }
    }

    /// A source tool becomes an entry only with a valid name, a supported schema and no
    /// static tool of the same name (a static tool wins a clash).
    fn admit(
        &self,
        label: &str,
        tool: Arc<dyn Tool>,
        is_static: &dyn Fn(&str) -> bool,
    ) -> Option<Entry> {
        let name = tool.name().to_owned();
        if is_static(&name) {
            self.warn_once(label, &name, "a builtin tool has the same name");
            return None;
        }
        match Entry::new(tool, true) {
            Ok(entry) => Some(entry),
            Err(e) => {
                self.warn_once(label, &name, &e.to_string());
                None
            }
        }
    }

    fn warn_once(&self, label: &str, name: &str, why: &str) {
        let key = format!("{label}/{}", echo(name));
        let mut warned = lock(&self.warned);
        if warned.len() < MAX_REMEMBERED && warned.insert(key) {
            tracing::warn!(source = label, tool = %echo(name), reason = why, "source tool skipped");
        }
    }

    fn remember(&self, entries: &[(String, Entry)]) {
        let mut seen = lock(&self.seen);
        for (label, entry) in entries {
            if seen.len() >= MAX_REMEMBERED && !seen.contains_key(&entry.spec.name) {
                break;
            }
            seen.insert(entry.spec.name.clone(), label.clone());
        }
    }
}

/// A poisoned lock only means another thread panicked mid-update of plain bookkeeping; the
/// data is still usable, and a tool lookup must never take the assistant down.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
