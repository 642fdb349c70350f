//! The fixed prompt per model call (system prompt + tool definitions, as serialised into the
//! OpenAI chat-completions body, counted with o200k_base) with Steward's tools plus 60 real
//! MCP tools: at most 3,000 tokens with the tool index, and less than without it. Token
//! counts are deterministic, so this is a test, not a timing.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::prompt_budget;

use prompt_budget::measure;

const BUDGET: usize = 3_000;

#[tokio::test]
async fn the_fixed_prompt_with_60_mcp_tools_stays_under_budget() {
    let before = measure(false, 60).await;
    let after = measure(true, 60).await;
    assert!(
        after.fixed() <= BUDGET,
        "fixed prompt {} tokens (system {}, tools {}) is over {BUDGET}: {:?}",
        after.fixed(),
        after.system_tokens,
        after.tools_tokens,
        after.per_tool
    );
    assert!(after.fixed() < before.fixed(), "{after:?} vs {before:?}");
    // Without the index every MCP schema is sent; with it none is, but the index names all.
    let mcp = |m: &prompt_budget::Measurement| {
        m.per_tool.iter().filter(|(n, _)| n.contains("__")).count()
    };
    assert_eq!(mcp(&before), 60);
    assert_eq!(mcp(&after), 0);
    assert!(after.tokens_of("load_tools") > 0);
}

#[test]
fn the_index_lists_every_mcp_tool_once() {
    let dir = prompt_budget::Scratch::new("index-lines");
    let r = prompt_budget::registry(&dir, true, 60);
    let index = r.tool_index().expect("on-demand tools exist");
    let mcp: Vec<String> = r
        .specs()
        .into_iter()
        .map(|s| s.name)
        .filter(|n| n.contains("__"))
        .collect();
    assert_eq!(mcp.len(), 60);
    for name in &mcp {
        assert_eq!(
            index.matches(&format!("\n{name}:")).count(),
            1,
            "{name} in {index}"
        );
    }
    // Same set, same bytes: provider prompt caches hold.
    assert_eq!(Some(index), r.tool_index());
}
