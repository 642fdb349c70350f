//! `Entry`: a tool as the registry keeps it, with the spec captured once at registration
//! (name checked against `steward_protocol::ToolName`, parameters against the schema subset).
//! A leaf shared by the registry, the sources, the index and `read_skill`, so none of them
//! needs another's internals. Does not own where entries are kept or looked up (`registry`,
//! `source`).

use crate::schema::{self, echo};
use crate::{Tool, ToolError};
use std::sync::Arc;
use steward_protocol::{ToolName, ToolSpec};

#[derive(Clone)]
pub(crate) struct Entry {
    pub(crate) tool: Arc<dyn Tool>,
    /// Captured once at registration so the advertised spec, and the schema we check
    /// against, cannot drift between calls (provider prompt caches need byte-identity).
    pub(crate) spec: ToolSpec,
    /// Listed in the tool index; its schema is sent only once the model loads it.
    pub(crate) on_demand: bool,
}

impl Entry {
    /// Refuses names outside `steward_protocol::ToolName`'s rule and parameter schemas
    /// outside the supported subset (both as `InvalidArguments`).
    pub(crate) fn new(tool: Arc<dyn Tool>, on_demand: bool) -> Result<Entry, ToolError> {
        let name = tool.name().to_owned();
        if let Err(e) = ToolName::parse(&name) {
            return Err(ToolError::InvalidArguments(format!(
                "tool `{}`: {e}",
                echo(&name)
            )));
        }
        let parameters = tool.parameters();
        schema::check_supported(&parameters)
            .map_err(|e| ToolError::InvalidArguments(format!("tool `{name}`: {e}")))?;
        let spec = ToolSpec {
            name,
            description: tool.description().to_owned(),
            parameters,
        };
        Ok(Entry {
            tool,
            spec,
            on_demand,
        })
    }
}
