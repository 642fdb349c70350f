//! Test tools with observable side effects: each records every run and its arguments.

use std::sync::{Arc, Mutex};
use steward_protocol::Effect;
use steward_tools::{Tool, ToolContext, ToolError};

#[derive(Clone)]
pub struct Recorder {
    pub name: &'static str,
    pub effect: Effect,
    pub runs: Arc<Mutex<Vec<serde_json::Value>>>,
    /// False: like `run_code`, every call needs its own card.
    pub grantable: bool,
}

impl Recorder {
    pub fn new(name: &'static str, effect: Effect) -> Self {
        Self {
            name,
            effect,
            runs: Arc::new(Mutex::new(Vec::new())),
            grantable: true,
        }
    }

    /// A tool no grant may skip.
    pub fn ungrantable(mut self) -> Self {
        self.grantable = false;
        self
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
    fn grantable(&self) -> bool {
        self.grantable
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

/// Runs as `name` and answers `output`, after noting every status its own action has at
/// that moment (read from the store it is given), so a test can see what the record said
/// while the tool ran.
pub struct Watcher {
    pub name: &'static str,
    pub output: String,
    pub store: Arc<Mutex<Option<Arc<dyn steward_store::Store>>>>,
    pub seen: Arc<Mutex<Vec<Vec<String>>>>,
}

impl Watcher {
    pub fn new(name: &'static str, output: &str) -> Self {
        Self {
            name,
            output: output.to_owned(),
            store: Arc::new(Mutex::new(None)),
            seen: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub fn handle(&self) -> Self {
        Self {
            name: self.name,
            output: self.output.clone(),
            store: self.store.clone(),
            seen: self.seen.clone(),
        }
    }
}

#[async_trait::async_trait]
impl Tool for Watcher {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "test tool that watches its own record"
    }
    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false})
    }
    fn effect(&self) -> Effect {
        Effect::Write
    }
    async fn run(&self, _args: serde_json::Value, ctx: &ToolContext) -> Result<String, ToolError> {
        use steward_store::ApprovalStore;
        let store = self
            .store
            .lock()
            .unwrap()
            .clone()
            .expect("store handed over");
        let mine = store
            .list_actions(None, Some(&ctx.conversation), 10)
            .await
            .unwrap();
        let statuses = mine.iter().map(|a| a.status.as_str().to_owned()).collect();
        self.seen.lock().unwrap().push(statuses);
        Ok(self.output.clone())
    }
}

/// A write whose effect drifts: its preview reports `rows` as it is now, and a run refuses
/// with `EffectChanged` unless the approved preview (the card the owner saw) still matches.
#[derive(Clone)]
pub struct Drifting {
    pub rows: Arc<std::sync::atomic::AtomicUsize>,
    pub runs: Arc<Mutex<Vec<Option<String>>>>,
    pub refusals: Arc<Mutex<Vec<Option<String>>>>,
}

impl Drifting {
    pub fn new(rows: usize) -> Self {
        Self {
            rows: Arc::new(std::sync::atomic::AtomicUsize::new(rows)),
            runs: Arc::new(Mutex::new(Vec::new())),
            refusals: Arc::new(Mutex::new(Vec::new())),
        }
    }

    fn now(&self) -> String {
        let n = self.rows.load(std::sync::atomic::Ordering::SeqCst);
        format!("will delete {n} rows")
    }
}

#[async_trait::async_trait]
impl Tool for Drifting {
    fn name(&self) -> &str {
        "purge"
    }
    fn description(&self) -> &str {
        "deletes the stale rows"
    }
    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {"table": {"type": "string"}},
            "required": ["table"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::Destructive
    }
    async fn preview(
        &self,
        _args: &serde_json::Value,
        _ctx: &ToolContext,
    ) -> Option<Result<String, ToolError>> {
        Some(Ok(self.now()))
    }
    async fn run(&self, _args: serde_json::Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let now = self.now();
        if ctx.approved_preview.as_deref() != Some(now.as_str()) {
            self.refusals
                .lock()
                .unwrap()
                .push(ctx.approved_preview.clone());
            return Err(ToolError::EffectChanged { preview: now });
        }
        self.runs.lock().unwrap().push(ctx.approved_preview.clone());
        Ok(format!("deleted: {now}"))
    }
}

/// A read-only tool that takes a minute: notes when it starts and whether it ever finished,
/// so a test can stop a turn in the middle of a tool round.
#[derive(Clone, Default)]
pub struct Sleeper {
    pub started: Arc<tokio::sync::Notify>,
    pub finished: Arc<std::sync::atomic::AtomicBool>,
}

#[async_trait::async_trait]
impl Tool for Sleeper {
    fn name(&self) -> &str {
        "slow_lookup"
    }
    fn description(&self) -> &str {
        "test tool that takes a minute"
    }
    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false})
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }
    async fn run(&self, _args: serde_json::Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        self.started.notify_one();
        tokio::time::sleep(std::time::Duration::from_secs(60)).await;
        self.finished
            .store(true, std::sync::atomic::Ordering::SeqCst);
        Ok("looked up".into())
    }
}
