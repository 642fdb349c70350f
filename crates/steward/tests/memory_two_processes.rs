//! Vector recall stays coherent across processes sharing one database: a running
//! `steward serve` keeps an in-process index of the vectors, and notes that separate
//! `steward memory note add` processes save (and embed) while it runs are found by its
//! `/api/v1/memory/search` at once. The queries share no word with their notes, so only the
//! vector side can find them. Real binary, real SQLite file, real local embedding model.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use serde_json::Value;
use steward_testkit::FakeModel;
use support::*;

fn memory(dir: &TempDir, args: &[&str]) -> String {
    let out = base_command(dir.path())
        .env("STEWARD_LOG", "warn")
        .env(
            "STEWARD_EMBED_MODEL_DIR",
            steward_memory::embed::test_model_dir(),
        )
        .arg("memory")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn note_id(saved: &str) -> i64 {
    saved
        .trim()
        .strip_prefix("saved note ")
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("unexpected output {saved:?}"))
}

/// Percent-encodes everything but ASCII letters and digits.
fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

async fn search(srv: &Server, q: &str) -> Vec<i64> {
    let path = format!("/api/v1/memory/search?limit=3&q={}", encode(q));
    let resp = client()
        .get(srv.url(&path))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let body: Value = resp.json().await.unwrap();
    body["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("no hits array: {body}"))
        .iter()
        .map(|h| h["id"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn notes_saved_by_other_processes_are_found_by_a_running_server() {
    let fake = FakeModel::start().await.unwrap();
    let dir = TempDir::new("mem-procs");
    let dentist = note_id(&memory(
        &dir,
        &[
            "note",
            "add",
            "--title",
            "Dentist",
            "Appointment with Dr. Okafor moved to Thursday at 3pm.",
        ],
    ));
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_API_TOKEN", TOKEN).env(
        "STEWARD_EMBED_MODEL_DIR",
        steward_memory::embed::test_model_dir(),
    );
    let srv = start_server(cmd);

    // The server's first vector search loads its index from the file.
    let hits = search(&srv, "when will I see the tooth doctor?").await;
    assert_eq!(hits.first(), Some(&dentist), "{}", srv.stderr_text());

    // Saved by another process after that load: found without restarting the server.
    let vet = note_id(&memory(
        &dir,
        &[
            "note",
            "add",
            "--title",
            "Biscuit",
            "Vet visit for the beagle on Friday; rabies booster due.",
        ],
    ));
    let hits = search(&srv, "when is the puppy's jab at the animal clinic?").await;
    assert_eq!(hits.first(), Some(&vet), "{}", srv.stderr_text());
    let hits = search(&srv, "when will I see the tooth doctor?").await;
    assert_eq!(hits.first(), Some(&dentist));
}
