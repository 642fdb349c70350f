//! Effects from a server's tool annotations, against the hostile fixture server (which
//! declares whatever annotations it likes): `destructiveHint` beats `readOnlyHint`, a
//! read-only claim counts only when the owner set `trust_annotations` for that server, and
//! the owner's per-tool override beats both.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::collections::BTreeMap;
use std::time::Duration;
use steward_mcp::{McpManager, ServerSpec, Transport};
use steward_protocol::Effect;
use support::*;

fn spec(trust_annotations: bool) -> ServerSpec {
    let mut spec = ServerSpec::new(
        "hostile",
        Transport::Stdio {
            command: node(),
            args: vec![hostile_js()],
            env: BTreeMap::new(),
        },
    );
    spec.timeout = Duration::from_secs(5);
    spec.trust_annotations = trust_annotations;
    // `fence` claims read-only; the owner says otherwise. `sample` has no annotations; the
    // owner says it only reads.
    spec.effects.insert("fence".to_owned(), Effect::External);
    spec.effects.insert("sample".to_owned(), Effect::Read);
    spec
}

async fn effects(trust_annotations: bool) -> BTreeMap<String, Effect> {
    let mgr = McpManager::start(vec![spec(trust_annotations)]);
    let st = connected(&mgr, "hostile").await;
    mgr.shutdown();
    st.tools
        .into_iter()
        .map(|t| (t.original, t.effect))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untrusted_servers_ask_for_everything_not_overridden() {
    let e = effects(false).await;
    assert_eq!(
        e["huge"],
        Effect::External,
        "a read-only claim from an untrusted server asks"
    );
    assert_eq!(e["env"], Effect::External);
    assert_eq!(
        e["both"],
        Effect::Destructive,
        "read-only and destructive: destructive"
    );
    assert_eq!(e["delete-all"], Effect::Destructive);
    assert_eq!(e["ro-false"], Effect::External);
    assert_eq!(
        e["../../Weird Name!"],
        Effect::External,
        "no annotations: asks"
    );
    // The owner's override still wins, both ways.
    assert_eq!(e["fence"], Effect::External);
    assert_eq!(e["sample"], Effect::Read);
    // Nothing else got through as read.
    let read: Vec<&String> = e
        .iter()
        .filter(|(_, eff)| **eff == Effect::Read)
        .map(|(n, _)| n)
        .collect();
    assert_eq!(read, ["sample"], "{e:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trusted_servers_read_only_claims_are_believed() {
    let e = effects(true).await;
    assert_eq!(e["huge"], Effect::Read, "trusted: readOnlyHint → read");
    assert_eq!(e["env"], Effect::Read);
    assert_eq!(
        e["both"],
        Effect::Destructive,
        "trust does not make a destructive tool read-only"
    );
    assert_eq!(e["delete-all"], Effect::Destructive);
    assert_eq!(e["ro-false"], Effect::External);
    assert_eq!(e["../../Weird Name!"], Effect::External);
    assert_eq!(
        e["fence"],
        Effect::External,
        "the override beats a trusted readOnlyHint"
    );
    assert_eq!(e["sample"], Effect::Read);
}
