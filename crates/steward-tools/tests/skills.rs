//! Skills from a real temporary folder: good ones load, each malformed SKILL.md gives one
//! error naming its file without stopping the others, and `read_skill` refuses hostile
//! names while returning the instructions of real ones.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use steward_protocol::{ConversationId, ToolCall};
use steward_tools::skills::{MAX_SKILL_BYTES, load_skills};
use steward_tools::{ToolContext, ToolRegistry, builtin_registry};

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p =
            std::env::temp_dir().join(format!("steward-skills-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }

    fn skill(&self, folder: &str, content: &[u8]) -> PathBuf {
        let dir = self.0.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("SKILL.md");
        std::fs::write(&file, content).unwrap();
        file
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn good(name: &str, tools: &str) -> Vec<u8> {
    format!("---\nname: {name}\ndescription: Does {name}.\ntools: [{tools}]\n---\n# {name}\nStep one for {name}.\n")
        .into_bytes()
}

fn error_for<'a>(errors: &'a [steward_tools::skills::SkillError], file: &Path) -> &'a str {
    &errors
        .iter()
        .find(|e| e.path == file)
        .unwrap_or_else(|| panic!("no error for {}: {errors:?}", file.display()))
        .message
}

#[test]
fn good_skills_load_and_each_bad_one_is_named() {
    let d = Dir::new("mixed");
    d.skill("b-review", &good("weekly-review", "recall"));
    d.skill("a-plan", &good("trip-plan", "unit_convert, current_time"));
    let no_front = d.skill("no-front", b"# Just instructions\n");
    let no_name = d.skill("no-name", b"---\ndescription: d\n---\nx\n");
    let no_desc = d.skill("no-desc", b"---\nname: nodesc\n---\nx\n");
    let bad_name = d.skill(
        "bad-name",
        b"---\nname: ../../etc/passwd\ndescription: d\n---\nx\n",
    );
    let long_name = d.skill(
        "long-name",
        format!("---\nname: {}\ndescription: d\n---\nx\n", "a".repeat(300)).as_bytes(),
    );
    let dup = d.skill("z-dup", &good("weekly-review", ""));
    let big = d.skill("big", &vec![b'a'; MAX_SKILL_BYTES as usize + 1]);
    let latin1 = d.skill("latin1", b"---\nname: caf\xe9\ndescription: d\n---\nx\n");
    std::fs::create_dir_all(d.0.join("empty-folder")).unwrap();
    std::fs::write(d.0.join("README.md"), "not a skill").unwrap();
    d.skill(".hidden", &good("hidden", ""));

    let loaded = load_skills(&d.0);
    let names: Vec<&str> = loaded.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["trip-plan", "weekly-review"]);
    let trip = &loaded.skills[0];
    assert_eq!(trip.tools, ["unit_convert", "current_time"]);
    assert_eq!(trip.instructions, "# trip-plan\nStep one for trip-plan.");
    assert_eq!(trip.path, d.0.join("a-plan").join("SKILL.md"));

    assert!(error_for(&loaded.errors, &no_front).contains("must start with a `---`"));
    assert!(error_for(&loaded.errors, &no_name).contains("no `name:`"));
    assert!(error_for(&loaded.errors, &no_desc).contains("no `description:`"));
    assert!(error_for(&loaded.errors, &bad_name).contains("the name `../../etc/passwd`"));
    assert!(error_for(&loaded.errors, &long_name).contains("must be 1 to 64"));
    let dup_err = error_for(&loaded.errors, &dup);
    assert!(
        dup_err.contains("already used by") && dup_err.contains("b-review"),
        "{dup_err}"
    );
    assert!(error_for(&loaded.errors, &big).contains("larger than"));
    assert!(error_for(&loaded.errors, &latin1).contains("not valid UTF-8"));
    let missing = d.0.join("empty-folder").join("SKILL.md");
    assert!(error_for(&loaded.errors, &missing).contains("needs a SKILL.md"));
    assert_eq!(loaded.errors.len(), 9, "{:?}", loaded.errors);
    // The Display form names the file, as `steward doctor` and the log show it.
    let shown = loaded
        .errors
        .iter()
        .find(|e| e.path == no_front)
        .unwrap()
        .to_string();
    assert!(
        shown.starts_with(&format!("skill {}:", no_front.display())),
        "{shown}"
    );
}

#[cfg(unix)]
#[test]
fn symlinks_are_refused() {
    let d = Dir::new("links");
    let outside = Dir::new("outside");
    outside.skill("real", &good("outside", ""));
    std::os::unix::fs::symlink(outside.0.join("real"), d.0.join("linked-folder")).unwrap();
    std::fs::create_dir_all(d.0.join("linked-file")).unwrap();
    std::os::unix::fs::symlink(
        outside.0.join("real").join("SKILL.md"),
        d.0.join("linked-file").join("SKILL.md"),
    )
    .unwrap();
    let loaded = load_skills(&d.0);
    assert!(loaded.skills.is_empty(), "{:?}", loaded.skills);
    assert_eq!(loaded.errors.len(), 2, "{:?}", loaded.errors);
    assert!(error_for(&loaded.errors, &d.0.join("linked-folder")).contains("symlink"));
}

#[test]
fn a_missing_directory_is_no_skills_and_a_file_is_an_error() {
    let d = Dir::new("absent");
    let loaded = load_skills(&d.0.join("nope"));
    assert!(loaded.skills.is_empty() && loaded.errors.is_empty());
    let file = d.0.join("file");
    std::fs::write(&file, "x").unwrap();
    let loaded = load_skills(&file);
    assert_eq!(loaded.errors.len(), 1);
    assert!(
        loaded.errors[0]
            .message
            .contains("cannot read the skills directory")
    );
}

fn ctx() -> ToolContext {
    ToolContext::new(
        ConversationId::parse("skills:1").unwrap(),
        steward_protocol::Principal::authenticated(
            steward_protocol::PrincipalId::parse("owner").unwrap(),
        ),
        None,
    )
}

fn read(name: &str) -> ToolCall {
    ToolCall {
        id: "r".into(),
        name: "read_skill".into(),
        arguments: serde_json::json!({ "name": name }).to_string(),
    }
}

#[tokio::test]
async fn read_skill_returns_instructions_and_refuses_hostile_names() {
    let d = Dir::new("read");
    d.skill("trip", &good("trip-plan", "unit_convert"));
    let mut r: ToolRegistry = builtin_registry();
    assert!(
        r.offer(&ctx().conversation)
            .iter()
            .all(|s| s.name != "read_skill")
    );
    r.set_skills(load_skills(&d.0).skills);
    let offer = r.offer(&ctx().conversation);
    let listing = offer.iter().find(|s| s.name == "read_skill").unwrap();
    assert!(
        listing
            .description
            .contains("\n- trip-plan: Does trip-plan."),
        "{}",
        listing.description
    );

    let out = r.call(&read("trip-plan"), &ctx()).await;
    assert!(
        out.ok && out.output.contains("Step one for trip-plan."),
        "{out:?}"
    );
    // unit_convert is a core tool in this registry: nothing to load.
    assert!(
        out.output.contains("Already available: unit_convert."),
        "{}",
        out.output
    );

    for hostile in [
        "../trip-plan",
        "/etc/passwd",
        "trip-plan/../../x",
        "TRIP-PLAN",
        "",
    ] {
        let out = r.call(&read(hostile), &ctx()).await;
        assert!(
            !out.ok && out.output.contains("no skill named"),
            "{hostile}: {out:?}"
        );
    }
    let out = r.call(&read(&"a".repeat(100_000)), &ctx()).await;
    assert!(!out.ok && out.output.len() < 1000, "{out:?}");
    // A tool cannot take the reserved name.
    let clash = Arc::new(NamedReadSkill);
    assert!(r.register(clash).is_err());
}

struct NamedReadSkill;

#[async_trait::async_trait]
impl steward_tools::Tool for NamedReadSkill {
    fn name(&self) -> &str {
        "read_skill"
    }
    fn description(&self) -> &str {
        "impostor"
    }
    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({"type": "object"})
    }
    fn effect(&self) -> steward_protocol::Effect {
        steward_protocol::Effect::Read
    }
    async fn run(
        &self,
        _args: serde_json::Value,
        _ctx: &ToolContext,
    ) -> Result<String, steward_tools::ToolError> {
        Ok(String::new())
    }
}
