//! Skills and the tool index as the binary wires them: skills load from `<data_dir>/skills`
//! (or `skills.dir`), a malformed SKILL.md neither stops start-up nor hides the good ones,
//! `steward doctor` names the bad file, and `tools.index = false` sends every schema.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::config_support;

use config_support::{temp_dir, write};
use std::collections::HashMap;
use std::path::Path;
use steward::config::{LoadedConfig, load_with_cwd};
use steward_protocol::ConversationId;

fn config(dir: &Path, vars: &[(&str, &str)]) -> LoadedConfig {
    let mut env: HashMap<String, String> = HashMap::from([
        ("HOME".to_string(), dir.to_string_lossy().into_owned()),
        (
            "STEWARD_DATA_DIR".to_string(),
            dir.join("data").to_string_lossy().into_owned(),
        ),
        ("STEWARD_HTTP_ADDR".to_string(), "127.0.0.1:0".to_string()),
        ("STEWARD_EMBEDDER".to_string(), "none".to_string()),
        ("STEWARD_CODE_ENABLED".to_string(), "false".to_string()),
    ]);
    for (k, v) in vars {
        env.insert(k.to_string(), v.to_string());
    }
    load_with_cwd(None, dir, &|k: &str| env.get(k).cloned()).unwrap()
}

const GOOD: &str = "---\nname: inbox-zero\ndescription: Triage the inbox.\ntools: [db_query]\n---\nArchive, answer, or defer each mail.\n";

fn tools(cfg: &LoadedConfig) -> steward_tools::ToolRegistry {
    let s = &cfg.settings;
    std::fs::create_dir_all(&s.data_dir).unwrap();
    let clock = steward::app::clock();
    let store = steward::app::open_store(s, clock.clone()).unwrap();
    let memory = steward::memory_wiring::build_memory(s, store, clock.clone()).unwrap();
    steward::app::tools(s, &memory, clock).unwrap()
}

fn conv() -> ConversationId {
    ConversationId::parse("wiring").unwrap()
}

#[tokio::test]
async fn skills_load_from_the_data_dir_and_doctor_names_a_bad_one() {
    let dir = temp_dir();
    write(&dir, "data/skills/inbox/SKILL.md", GOOD);
    let bad = write(
        &dir,
        "data/skills/broken/SKILL.md",
        "no front matter here\n",
    );
    let cfg = config(&dir, &[]);

    let registry = tools(&cfg);
    let names: Vec<&str> = registry.skills().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["inbox-zero"]);
    let offer = registry.offer(&conv());
    let read_skill = offer.iter().find(|s| s.name == "read_skill").unwrap();
    assert!(
        read_skill
            .description
            .contains("- inbox-zero: Triage the inbox.")
    );

    let mut out = Vec::new();
    steward::doctor::run(&cfg, &mut out).await.unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains(&format!(
            "warn skills: skill {}: it must start with a `---`",
            bad.display()
        )),
        "{out}"
    );
    assert!(out.contains("ok   skills: 1 skill from "), "{out}");
    assert!(out.contains("inbox-zero"), "{out}");
    // A bad skill is a warning, never a failure of the whole check.
    assert!(!out.contains("FAIL skills"), "{out}");
}

#[test]
fn skills_dir_overrides_the_default() {
    let dir = temp_dir();
    write(&dir, "elsewhere/inbox/SKILL.md", GOOD);
    write(
        &dir,
        "data/skills/ignored/SKILL.md",
        &GOOD.replace("inbox-zero", "ignored"),
    );
    let other = dir.join("elsewhere");
    let cfg = config(&dir, &[("STEWARD_SKILLS_DIR", other.to_str().unwrap())]);
    let registry = tools(&cfg);
    let names: Vec<&str> = registry.skills().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["inbox-zero"]);
}

#[test]
fn rare_tools_are_on_demand_unless_the_index_is_off() {
    let dir = temp_dir();
    let on = tools(&config(&dir, &[]));
    let offered: Vec<String> = on.offer(&conv()).into_iter().map(|s| s.name).collect();
    assert!(offered.contains(&"load_tools".to_owned()), "{offered:?}");
    assert!(offered.contains(&"recall".to_owned()), "{offered:?}");
    for rare in ["unit_convert", "db_query", "db_execute"] {
        assert!(!offered.contains(&rare.to_owned()), "{rare} in {offered:?}");
        assert!(on.tool_index().unwrap().contains(&format!("\n{rare}: ")));
    }

    let off = tools(&config(&dir, &[("STEWARD_TOOLS_INDEX", "false")]));
    let offered: Vec<String> = off.offer(&conv()).into_iter().map(|s| s.name).collect();
    assert!(!offered.contains(&"load_tools".to_owned()), "{offered:?}");
    for rare in ["unit_convert", "db_query", "db_execute"] {
        assert!(
            offered.contains(&rare.to_owned()),
            "{rare} missing from {offered:?}"
        );
    }
}
