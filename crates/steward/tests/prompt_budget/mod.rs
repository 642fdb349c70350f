//! The fixed prompt of one model call, measured as sent: Steward's real tool set
//! (`app::tools`) plus real MCP tools from `tests/fixtures/mcp_tools_list.json` (captured
//! from npm servers, see the README there), one real turn through the core and the
//! OpenAI-compatible client against the fake model, and the recorded request body's system
//! message + `tools` array counted with tiktoken's o200k_base.
//!
//! Shared by `tests/prompt_tokens.rs` (the budget as a test) and `benches/prompt_tokens.rs`
//! (the numbers and breakdown).
#![allow(dead_code)]

use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use steward::config::{LoadedConfig, load_with_cwd};
use steward_core::approvals::ApprovalSettings;
use steward_core::{AgentSettings, Assistant, ModelBinding, Steward, StewardDeps};
use steward_llm::{ModelRef, Models, ProviderConfig, ProviderKind, RetryPolicy};
use steward_protocol::{ConversationId, Effect, Inbound, Principal, Surface, TurnEvent};
use steward_testkit::{FakeModel, Reply, Step};
use steward_tools::{Tool, ToolContext, ToolError, ToolRegistry, ToolSource};

const FIXTURE: &str = include_str!("../fixtures/mcp_tools_list.json");

/// What one model call carried before any message.
#[derive(Debug, Clone)]
pub struct Measurement {
    pub system_tokens: usize,
    /// The whole `tools` array as serialised in the request body.
    pub tools_tokens: usize,
    /// Each tool object on its own, in request order.
    pub per_tool: Vec<(String, usize)>,
    pub tools_bytes: usize,
}

impl Measurement {
    pub fn fixed(&self) -> usize {
        self.system_tokens + self.tools_tokens
    }

    pub fn tokens_of(&self, name: &str) -> usize {
        self.per_tool
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, t)| *t)
    }
}

pub fn count_tokens(text: &str) -> usize {
    // Building the vocabulary takes seconds in a debug build: once per process.
    static BPE: std::sync::OnceLock<tiktoken_rs::CoreBPE> = std::sync::OnceLock::new();
    BPE.get_or_init(|| {
        tiktoken_rs::o200k_base().expect("o200k_base vocabulary ships inside the crate")
    })
    .encode_with_special_tokens(text)
    .len()
}

/// One MCP tool from the fixture, converted the way the MCP client converts: the schema
/// loosened to the registry's subset (`steward_mcp::schema::convert`), the name namespaced
/// `server__tool` (`steward_mcp::names`), the description tagged `[mcp:server]` and kept
/// whole (`full_description`).
struct FixtureTool {
    name: String,
    description: String,
    parameters: Value,
    effect: Effect,
}

#[async_trait::async_trait]
impl Tool for FixtureTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> Value {
        self.parameters.clone()
    }
    fn effect(&self) -> Effect {
        self.effect
    }
    async fn run(&self, _args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        Err(ToolError::Failed("fixture tool: not connected".into()))
    }
}

struct FixtureSource {
    label: String,
    tools: Vec<Arc<dyn Tool>>,
}

impl ToolSource for FixtureSource {
    fn label(&self) -> &str {
        &self.label
    }
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.clone()
    }
}

/// The first `limit` fixture tools in capture order, one source per server.
pub fn fixture_sources(limit: usize) -> Vec<Arc<dyn ToolSource>> {
    let doc: Value = serde_json::from_str(FIXTURE).expect("fixture is JSON");
    let mut left = limit;
    let mut sources: Vec<Arc<dyn ToolSource>> = Vec::new();
    for server in doc["servers"].as_array().expect("servers") {
        if left == 0 {
            break;
        }
        let key = server["server"].as_str().expect("server key");
        let listed = server["tools"].as_array().expect("tools");
        let originals: Vec<&str> = listed.iter().filter_map(|t| t["name"].as_str()).collect();
        let names = steward_mcp::names::namespaced(key, &originals);
        let tools: Vec<Arc<dyn Tool>> = listed
            .iter()
            .take(left)
            .map(|t| Arc::new(fixture_tool(key, &names, t)) as Arc<dyn Tool>)
            .collect();
        left -= tools.len();
        sources.push(Arc::new(FixtureSource {
            label: format!("mcp:{key}"),
            tools,
        }));
    }
    sources
}

pub fn fixture_tool_count() -> usize {
    let doc: Value = serde_json::from_str(FIXTURE).expect("fixture is JSON");
    doc["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .map(|s| s["tools"].as_array().map_or(0, Vec::len))
        .sum()
}

fn fixture_tool(
    server: &str,
    names: &std::collections::BTreeMap<String, String>,
    t: &Value,
) -> FixtureTool {
    let raw = t["name"].as_str().expect("tool name");
    let annotations = &t["annotations"];
    let effect = if annotations["readOnlyHint"] == true {
        Effect::Read
    } else if annotations["destructiveHint"] == true {
        Effect::Destructive
    } else {
        Effect::External
    };
    let empty = serde_json::Map::new();
    // As the MCP client describes a loaded tool: "[mcp:server] text", the whole text.
    let text = t["description"].as_str().or(t["title"].as_str());
    FixtureTool {
        name: names[raw].clone(),
        description: steward_mcp::client::tool::full_description(server, text),
        parameters: steward_mcp::schema::convert(t["inputSchema"].as_object().unwrap_or(&empty))
            .parameters,
        effect,
    }
}

/// A scratch data directory, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p = std::env::temp_dir().join(format!("steward-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn config(dir: &Scratch, index: bool) -> LoadedConfig {
    let data = dir.0.to_string_lossy().into_owned();
    let env = move |k: &str| match k {
        "STEWARD_DATA_DIR" => Some(data.clone()),
        "STEWARD_EMBEDDER" => Some("none".to_owned()),
        "STEWARD_MEMORY_EXTRACT" => Some("false".to_owned()),
        "STEWARD_TOOLS_INDEX" => Some(index.to_string()),
        // run_code joins the index only after a background sandbox probe: off, so the count
        // does not depend on timing (it would add one index line, about 25 tokens).
        "STEWARD_CODE_ENABLED" => Some("false".to_owned()),
        _ => None,
    };
    load_with_cwd(None, &dir.0, &env).expect("config loads")
}

/// The app's tool set (as `steward serve` builds it) plus `mcp_tools` fixture tools.
pub fn registry(dir: &Scratch, index: bool, mcp_tools: usize) -> ToolRegistry {
    let loaded = config(dir, index);
    let settings = &loaded.settings;
    let clock = steward::app::clock();
    let store = steward::app::open_store(settings, clock.clone()).expect("store");
    let memory =
        steward::memory_wiring::build_memory(settings, store, clock.clone()).expect("memory");
    let mut tools = steward::app::tools(settings, &memory, clock).expect("tools");
    for source in fixture_sources(mcp_tools) {
        tools.add_source(source);
    }
    tools
}

/// Run one real turn and measure its (only) model request.
pub async fn measure(index: bool, mcp_tools: usize) -> Measurement {
    let dir = Scratch::new("prompt-tokens");
    let tools = registry(&dir, index, mcp_tools);
    let fake = FakeModel::start().await.expect("fake model");
    fake.push(Step::Reply(Reply::text("ok")));
    let models = Models::new(
        vec![ProviderConfig {
            name: "openai".into(),
            kind: ProviderKind::OpenAi,
            base_url: fake.openai_base_url(),
            api_key: Some("sk-bench-not-a-key".into()),
            stream: true,
            request_timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(2),
            parts: None,
        }],
        RetryPolicy::default(),
    )
    .expect("models");
    let store = steward_store::open(&steward_store::StoreConfig::in_memory()).expect("store");
    let steward = Steward::new(StewardDeps {
        store,
        models: Arc::new(models),
        tools: Arc::new(tools),
        settings: AgentSettings::default(),
        binding: ModelBinding {
            primary: Some(ModelRef::parse("openai:gpt-4o").expect("model ref")),
            fallback: None,
        },
        approvals: ApprovalSettings::default(),
        memory: None,
        secrets: Vec::new(),
        clock: steward::app::clock(),
        blobs: None,
    });
    let mut rx = steward.submit(Inbound::new(
        ConversationId::parse("bench").expect("id"),
        Principal::authenticated(steward_protocol::PrincipalId::parse("owner").unwrap()),
        Surface::Cli,
        "hello",
    ));
    while let Some(ev) = tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("turn finishes")
    {
        if let TurnEvent::Failed { message, .. } = &ev {
            panic!("turn failed: {message}");
        }
    }
    let body = fake.requests()[0].body.clone();
    from_body(&body)
}

fn from_body(body: &Value) -> Measurement {
    let system = body["messages"][0]["content"]
        .as_str()
        .expect("system message");
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let tools_json = serde_json::to_string(&body["tools"]).expect("json");
    Measurement {
        system_tokens: count_tokens(system),
        tools_tokens: if tools.is_empty() {
            0
        } else {
            count_tokens(&tools_json)
        },
        per_tool: tools
            .iter()
            .map(|t| {
                let name = t["function"]["name"].as_str().unwrap_or("?").to_owned();
                (name, count_tokens(&serde_json::to_string(t).expect("json")))
            })
            .collect(),
        tools_bytes: tools_json.len(),
    }
}
