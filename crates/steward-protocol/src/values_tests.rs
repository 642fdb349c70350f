//! Each value's rule at its edges: valid, empty, too long, bad characters, the boundary.

use super::*;

fn problem(r: Result<impl fmt::Debug, ValueError>) -> Problem {
    match r {
        Err(ValueError::Invalid { problem, .. }) => problem,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn fact_keys() {
    for good in [
        "home.city",
        "a",
        "diet.allergies_2",
        "x.y.z",
        &"k".repeat(64),
    ] {
        assert_eq!(FactKey::parse(good).unwrap().as_str(), good);
    }
    assert_eq!(problem(FactKey::parse("")), Problem::Empty);
    assert_eq!(problem(FactKey::parse(&"k".repeat(65))), Problem::TooLong);
    for bad in [
        "Home",
        "home city",
        "home-city",
        "a/b",
        "trip%",
        "é",
        "a\0",
        " a",
        "a\n",
    ] {
        assert_eq!(problem(FactKey::parse(bad)), Problem::BadChar, "{bad:?}");
    }
}

#[test]
fn tags() {
    for good in ["work", "a-b_c", "2024", &"t".repeat(32)] {
        assert_eq!(Tag::parse(good).unwrap().as_str(), good);
    }
    assert_eq!(problem(Tag::parse("")), Problem::Empty);
    assert_eq!(problem(Tag::parse(&"t".repeat(33))), Problem::TooLong);
    for bad in ["Work", "a b", "a.b", "küche", "a\u{202e}", " work"] {
        assert_eq!(problem(Tag::parse(bad)), Problem::BadChar, "{bad:?}");
    }
}

#[test]
fn tags_as_typed_are_folded_then_checked() {
    assert_eq!(Tag::normalise("  Work ").unwrap().as_str(), "work");
    assert_eq!(problem(Tag::normalise("   ")), Problem::Empty);
    // The boundary is on the folded form: 32 letters plus spaces around them is fine.
    assert!(Tag::normalise(&format!(" {} ", "T".repeat(32))).is_ok());
    assert_eq!(problem(Tag::normalise(&"T".repeat(33))), Problem::TooLong);
    let set = Tag::normalise_strings([" Work ", "work", "a-b_c", "WORK"]).unwrap();
    assert_eq!(set, ["work", "a-b_c"]);
    let ten: Vec<String> = (0..MAX_TAGS).map(|i| format!("t{i}")).collect();
    assert_eq!(Tag::normalise_all(&ten).unwrap().len(), MAX_TAGS);
    let mut eleven = ten.clone();
    eleven.push("t10".into());
    assert_eq!(Tag::normalise_all(&eleven), Err(ValueError::TooManyTags));
    // Duplicates do not count towards the limit.
    let mut repeated = ten;
    repeated.push("T0".into());
    assert_eq!(Tag::normalise_all(&repeated).unwrap().len(), MAX_TAGS);
    assert!(Tag::normalise_all(Vec::<String>::new()).unwrap().is_empty());
}

#[test]
fn tool_names() {
    for good in [
        "send_email",
        "a",
        "everything__echo",
        "x9_",
        &"a".repeat(64),
    ] {
        assert!(ToolName::parse(good).is_ok(), "{good}");
    }
    assert_eq!(problem(ToolName::parse("")), Problem::Empty);
    assert_eq!(problem(ToolName::parse(&"a".repeat(65))), Problem::TooLong);
    for bad in ["Send", "a-b", "a b", "a.b", "ä", "a\0"] {
        assert_eq!(problem(ToolName::parse(bad)), Problem::BadChar, "{bad:?}");
    }
}

#[test]
fn opaque_ids() {
    type Parse = fn(&str) -> Result<(), ValueError>;
    let parsers: [(ValueKind, Parse); 3] = [
        (ValueKind::ActionId, |s| ActionId::parse(s).map(drop)),
        (ValueKind::GrantId, |s| GrantId::parse(s).map(drop)),
        (ValueKind::TurnId, |s| TurnId::parse(s).map(drop)),
    ];
    for (kind, parse) in parsers {
        for good in [
            "5f0c1d2e-0000-4000-8000-000000000001",
            "0123456789abcdef0123456789abcdef",
            "A1",
            &"a".repeat(128),
        ] {
            assert!(parse(good).is_ok(), "{kind}: {good}");
        }
        let refused = |s: &str| match parse(s) {
            Err(ValueError::Invalid { kind: k, problem }) => {
                assert_eq!(k, kind);
                problem
            }
            other => panic!("{kind}: {s:?} gave {other:?}"),
        };
        assert_eq!(refused(""), Problem::Empty);
        assert_eq!(refused(&"a".repeat(129)), Problem::TooLong);
        for bad in ["../x", "a b", "a_b", "a:b", "é", "a\0"] {
            assert_eq!(refused(bad), Problem::BadChar, "{kind}: {bad:?}");
        }
    }
}

#[test]
fn messages_name_the_rule_and_never_the_value() {
    let secret = "sk-live-ABCDEF";
    for err in [
        FactKey::parse(secret).unwrap_err(),
        Tag::parse(secret).unwrap_err(),
        ToolName::parse(secret).unwrap_err(),
        ActionId::parse(&format!("{secret}_")).unwrap_err(),
    ] {
        let msg = err.to_string();
        assert!(!msg.contains("sk-live"), "{msg}");
        assert!(msg.starts_with("invalid "), "{msg}");
    }
    let tag = Tag::parse(&"t".repeat(33)).unwrap_err().to_string();
    assert_eq!(
        tag,
        "invalid tag: 1 to 32 of a-z, 0-9, _ and - (it is too long)"
    );
    assert!(tag.starts_with(&ValueError::rule_message(ValueKind::Tag)));
    assert_eq!(
        ValueError::TooManyTags.to_string(),
        "at most 10 tags are allowed"
    );
}

#[test]
fn each_rule_text_states_its_own_limit() {
    for kind in [
        ValueKind::FactKey,
        ValueKind::Tag,
        ValueKind::ToolName,
        ValueKind::ActionId,
        ValueKind::GrantId,
        ValueKind::TurnId,
    ] {
        let stated = format!("1 to {} ", kind.max_len());
        assert!(kind.rule().starts_with(&stated), "{kind}: {}", kind.rule());
    }
}

#[test]
fn serde_checks_on_the_way_in() {
    let k: FactKey = serde_json::from_str("\"home.city\"").unwrap();
    assert_eq!(serde_json::to_string(&k).unwrap(), "\"home.city\"");
    assert!(serde_json::from_str::<FactKey>("\"Home City\"").is_err());
    assert!(serde_json::from_str::<Tag>("\"a b\"").is_err());
    assert!(serde_json::from_str::<ToolName>("\"\"").is_err());
    assert!(serde_json::from_str::<TurnId>("\"a/b\"").is_err());
}

#[test]
fn a_fresh_turn_id_follows_the_rule_and_events_refuse_a_forged_one() {
    for bits in [0, 1, u128::MAX, 0x7e57] {
        let id = TurnId::from_u128(bits);
        assert_eq!(id.as_str().len(), 32);
        assert_eq!(TurnId::parse(id.as_str()), Ok(id));
    }
    let ok = r#"{"type":"started","conversation_id":"c","turn_id":"abc-1"}"#;
    assert!(serde_json::from_str::<crate::TurnEvent>(ok).is_ok());
    let forged = r#"{"type":"started","conversation_id":"c","turn_id":"../../etc"}"#;
    assert!(serde_json::from_str::<crate::TurnEvent>(forged).is_err());
}

#[test]
fn principal_ids() {
    for good in [
        "owner",
        "tg:12345",
        "web:ann",
        "ann@example.org",
        "a.b_c-d",
        &"p".repeat(128),
    ] {
        assert_eq!(PrincipalId::parse(good).unwrap().as_str(), good);
    }
    assert_eq!(problem(PrincipalId::parse("")), Problem::Empty);
    assert_eq!(
        problem(PrincipalId::parse(&"p".repeat(129))),
        Problem::TooLong
    );
    for bad in ["ann smith", "a/b", "a\0", "ann\u{202e}", "é", "a\n"] {
        assert_eq!(
            problem(PrincipalId::parse(bad)),
            Problem::BadChar,
            "{bad:?}"
        );
    }
    // A record read back re-checks the rule, like every other value.
    assert!(serde_json::from_str::<PrincipalId>("\"a b\"").is_err());
    assert_eq!(PrincipalId::system().as_str(), PrincipalId::SYSTEM);
}

#[test]
fn job_names() {
    for good in ["briefing", "weekly-recap", "task_3", "a", &"j".repeat(64)] {
        assert_eq!(JobName::parse(good).unwrap().as_str(), good);
    }
    assert_eq!(problem(JobName::parse("")), Problem::Empty);
    assert_eq!(problem(JobName::parse(&"j".repeat(65))), Problem::TooLong);
    for bad in ["Briefing", "a b", "x/y", "é", "a.b", "a\n"] {
        assert_eq!(problem(JobName::parse(bad)), Problem::BadChar, "{bad:?}");
    }
    let err = JobName::parse("Secret Name").unwrap_err().to_string();
    assert!(err.contains("job name") && !err.contains("Secret"), "{err}");
}

#[test]
fn scheduled_ids() {
    let hex = "0123456789abcdef0123456789abcdef";
    for good in [hex, "t1", "R-2_x", &"a".repeat(128)] {
        assert_eq!(ScheduledId::parse(good).unwrap().as_str(), good);
    }
    assert_eq!(problem(ScheduledId::parse("")), Problem::Empty);
    assert_eq!(
        problem(ScheduledId::parse(&"a".repeat(129))),
        Problem::TooLong
    );
    for bad in ["../x", "a/b", "a b", "a.b", "é", "a\0", "a\n", "a%2F"] {
        assert_eq!(
            problem(ScheduledId::parse(bad)),
            Problem::BadChar,
            "{bad:?}"
        );
    }
    let err = ScheduledId::parse("secret id").unwrap_err().to_string();
    assert_eq!(
        err,
        "invalid reminder or task id: 1 to 128 letters, digits, _ or - (it has a character not allowed)"
    );
}
