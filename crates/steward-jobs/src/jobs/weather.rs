//! The weather line of the morning briefing, when a tool offers it: the tool the owner named
//! (`briefing.weather_tool`, e.g. an MCP server's forecast tool) called with the arguments
//! they gave (`briefing.weather_args`), in code — no model — and only if the tool declares
//! itself read-only (`Effect::Read`): a name in the configuration never makes the briefing
//! send, write or spend. Its answer is outside text: one plain line, shortened.
//!
//! Owns: calling that tool and turning its answer into a line. Does not own: when the briefing
//! asks (only when it has something else to say: weather alone is not news), the tool itself.

use std::sync::Arc;

use serde_json::Value;
use steward_protocol::{ConversationId, Effect, Principal, Surface};
use steward_tools::{ToolContext, ToolRegistry};

use super::text::plain;

/// Longest weather line, in characters.
pub const WEATHER_CHARS: usize = 160;

/// Where the briefing's weather line comes from.
#[async_trait::async_trait]
pub trait Weather: Send + Sync + 'static {
    /// Today's weather in one line; None when there is none to give (the tool failed, or is
    /// not there now).
    async fn today(&self) -> Option<String>;
}

/// The weather from a read-only tool in the registry.
pub struct ToolWeather {
    tools: Arc<ToolRegistry>,
    tool: String,
    args: Value,
    owner: Principal,
    timezone: String,
}

impl ToolWeather {
    pub fn new(
        tools: Arc<ToolRegistry>,
        tool: String,
        args: Value,
        owner: Principal,
        timezone: String,
    ) -> ToolWeather {
        ToolWeather {
            tools,
            tool,
            args,
            owner,
            timezone,
        }
    }
}

#[async_trait::async_trait]
impl Weather for ToolWeather {
    async fn today(&self) -> Option<String> {
        let prepared = match self.tools.prepare_value(&self.tool, self.args.clone()) {
            Ok(p) => p,
            Err(refused) => {
                tracing::warn!(tool = %self.tool, reason = %refused.output, "the weather tool is not available; the briefing goes without");
                return None;
            }
        };
        if prepared.effect != Effect::Read {
            tracing::warn!(tool = %self.tool, effect = ?prepared.effect, "briefing.weather_tool is not a read-only tool; it is never called");
            return None;
        }
        let conversation = ConversationId::parse("briefing").ok()?;
        let ctx = ToolContext::new(
            conversation,
            self.owner.clone(),
            Some(self.timezone.clone()),
        )
        .from_turn(Surface::Scheduler, "briefing-weather");
        let outcome = self.tools.run_prepared(&prepared, &ctx).await;
        if !outcome.ok {
            tracing::warn!(tool = %self.tool, "the weather tool failed; the briefing goes without");
            return None;
        }
        let line = outcome.output.lines().find(|l| !l.trim().is_empty())?;
        Some(plain(line, WEATHER_CHARS))
    }
}
