//! Test tools with observable side effects: each records every run and its arguments.

use std::sync::{Arc, Mutex};
use steward_protocol::Effect;
use steward_tools::{Tool, ToolContext, ToolError};

#[derive(Clone)]
pub struct Recorder {
    pub name: &'static str,
    pub effect: Effect,
    pub runs: Arc<Mutex<Vec<serde_json::Value>>>,
}

impl Recorder {
    pub fn new(name: &'static str, effect: Effect) -> Self {
        Self {
            name,
            effect,
            runs: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub fn count(&self) -> usize {
        self.runs.lock().unwrap().len()
    }

    pub fn last_args(&self) -> Option<serde_json::Value> {
        self.runs.lock().unwrap().last().cloned()
    }
}

#[async_trait::async_trait]
impl Tool for Recorder {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "test tool with a side effect"
    }
    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {"to": {"type": "string", "maxLength": 100}, "body": {"type": "string"}},
            "required": ["to"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        self.effect
    }
    fn validate(&self, args: &serde_json::Value) -> Result<(), ToolError> {
        if args["to"].as_str() == Some("forbidden") {
            return Err(ToolError::InvalidArguments(
                "recipient `forbidden` is not allowed".into(),
            ));
        }
        Ok(())
    }
    async fn preview(
        &self,
        args: &serde_json::Value,
        _ctx: &ToolContext,
    ) -> Option<Result<String, ToolError>> {
        Some(Ok(format!(
            "would act for {}",
            args["to"].as_str().unwrap_or("?")
        )))
    }
    async fn run(&self, args: serde_json::Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        let to = args["to"].as_str().unwrap_or("").to_owned();
        self.runs.lock().unwrap().push(args);
        Ok(format!("done for {to}"))
    }
}
