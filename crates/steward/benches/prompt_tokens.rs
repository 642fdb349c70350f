//! Benchmark: fixed prompt tokens per model call — the system prompt plus the tool
//! definitions as serialised into the OpenAI chat-completions request body (recorded by the
//! fake model from a real turn), counted with tiktoken's o200k_base — with Steward's tools
//! plus real MCP tools (tests/fixtures/mcp_tools_list.json), BEFORE (every schema on every
//! call, `tools.index = false`) and AFTER (core schemas + the `load_tools` index).
//!
//! Run with `cargo bench -p steward --bench prompt_tokens`. Target (issue #5): AFTER ≤ 3,000
//! tokens with 60 MCP tools; `tests/prompt_tokens.rs` asserts that. Token counts are
//! deterministic, so one run is the number (no medians needed).

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/prompt_budget/mod.rs"]
mod prompt_budget;

use prompt_budget::{Measurement, Scratch, count_tokens, fixture_tool_count, measure, registry};

fn row(label: &str, m: &Measurement) {
    println!(
        "{label:<34} fixed {:>6} tokens = system {:>5} + tools {:>6} ({} tools, {} bytes of tools JSON)",
        m.fixed(),
        m.system_tokens,
        m.tools_tokens,
        m.per_tool.len(),
        m.tools_bytes
    );
}

fn breakdown(m: &Measurement) {
    let mcp: usize = m
        .per_tool
        .iter()
        .filter(|(n, _)| n.contains("__"))
        .map(|(_, t)| t)
        .sum();
    let index = m.tokens_of("load_tools");
    let skills = m.tokens_of("read_skill");
    let core: usize = m
        .per_tool
        .iter()
        .filter(|(n, _)| !n.contains("__") && n != "load_tools" && n != "read_skill")
        .map(|(_, t)| t)
        .sum();
    println!(
        "    parts: system {} | core tools {core} | MCP schemas {mcp} | load_tools index {index} | read_skill {skills} | array framing {}",
        m.system_tokens,
        m.tools_tokens as i64 - (mcp + index + skills + core) as i64
    );
    for (name, tokens) in &m.per_tool {
        if !name.contains("__") {
            println!("      {name:<28} {tokens:>5}");
        }
    }
}

fn main() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let all = fixture_tool_count();
    // Warm the tokenizer so its one-time load is not part of anything printed.
    let _ = count_tokens("warm up");
    for n in [0, 60, all] {
        let before = rt.block_on(measure(false, n));
        let after = rt.block_on(measure(true, n));
        println!("== builtins + {n} MCP tools");
        row("BEFORE (all schemas every call)", &before);
        row("AFTER  (core + load_tools index)", &after);
        println!(
            "    AFTER/BEFORE = {:.2}  (saved {} tokens per call)",
            after.fixed() as f64 / before.fixed() as f64,
            before.fixed() as i64 - after.fixed() as i64
        );
        breakdown(&after);
        alternatives(n);
    }
}

/// Index variants measured on the index text alone (same tools): with one-line summaries
/// (what ships) and with names only (cheaper, but the model must guess from names).
fn alternatives(n: usize) {
    let dir = Scratch::new("prompt-alternatives");
    let r = registry(&dir, true, n);
    let Some(index) = r.tool_index() else {
        return;
    };
    let names_only: String = index
        .lines()
        .enumerate()
        .map(|(i, l)| {
            // The first line is the instruction; group headers stay.
            if i == 0 || l.starts_with('[') {
                l
            } else {
                l.split(": ").next().unwrap_or(l)
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    println!(
        "    alternatives (index text only): with summaries {} tokens | names only {} tokens",
        count_tokens(&index),
        count_tokens(&names_only)
    );
}
