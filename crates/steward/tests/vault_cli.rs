//! `steward vault` through the real binary: a value set from standard input is kept sealed
//! (its bytes are nowhere in the database file), listed by name only, under a key file made
//! 0600 on first use; a flipped byte in the stored row is found by `list`, which fails; a key
//! file others can read is refused with the fix; `STEWARD_VAULT_KEY` is used instead of the
//! file; bad names and an empty value are refused and keep nothing.

use crate::support;

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};
use support::{TempDir, base_command};

const SECRET: &str = "sk-live-do-not-leak-0123456789";

fn vault(dir: &Path, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = base_command(dir);
    cmd.env("STEWARD_LOG", "debug").arg("vault").args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn db_bytes(dir: &Path) -> Vec<u8> {
    let mut all = std::fs::read(dir.join("steward.db")).unwrap();
    if let Ok(wal) = std::fs::read(dir.join("steward.db-wal")) {
        all.extend(wal);
    }
    all
}

#[test]
fn a_secret_is_kept_sealed_listed_by_name_and_a_changed_row_is_found() {
    let dir = TempDir::new("vault");
    let set = vault(
        dir.path(),
        &["set", "openai_key"],
        &format!("{SECRET}\n"),
        &[],
    );
    let shown = text(&set);
    assert!(set.status.success(), "{shown}");
    assert!(shown.contains("kept openai_key (30 bytes"), "{shown}");
    assert!(!shown.contains(SECRET), "{shown}");
    let key_file = dir.path().join("vault.key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let db = db_bytes(dir.path());
    assert!(
        !db.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
        "the value is in the database file"
    );
    let log = std::fs::read_to_string(dir.path().join("steward.log")).unwrap_or_default();
    assert!(!log.contains(SECRET), "the value is in the log");

    let list = vault(dir.path(), &["list"], "", &[]);
    let listed = text(&list);
    assert!(list.status.success(), "{listed}");
    assert!(listed.contains("openai_key  ok"), "{listed}");
    assert!(!listed.contains(SECRET), "{listed}");

    // A flipped byte in the stored row: the vault refuses it, and `list` says so and fails.
    {
        let conn = rusqlite::Connection::open(dir.path().join("steward.db")).unwrap();
        let mut sealed: Vec<u8> = conn
            .query_row(
                "SELECT ciphertext FROM vault_secrets WHERE name = 'openai_key'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        sealed[3] ^= 1;
        conn.execute(
            "UPDATE vault_secrets SET ciphertext = ?1 WHERE name = 'openai_key'",
            [sealed],
        )
        .unwrap();
    }
    let list = vault(dir.path(), &["list"], "", &[]);
    assert!(!list.status.success());
    assert!(
        text(&list).contains("openai_key  does not open"),
        "{}",
        text(&list)
    );

    // A key file others can read is refused, with the fix.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let refused = vault(dir.path(), &["set", "other"], "v", &[]);
        assert!(!refused.status.success());
        assert!(text(&refused).contains("chmod 600"), "{}", text(&refused));
        std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }

    let rm = vault(dir.path(), &["rm", "openai_key"], "", &[]);
    assert!(rm.status.success(), "{}", text(&rm));
    let again = vault(dir.path(), &["rm", "openai_key"], "", &[]);
    assert!(!again.status.success());
    assert!(text(&again).contains("no secret named openai_key"));
}

#[test]
fn the_key_from_the_environment_is_used_and_bad_input_keeps_nothing() {
    let dir = TempDir::new("vault-env");
    let key = "ab".repeat(32);
    let env = [("STEWARD_VAULT_KEY", key.as_str())];
    let set = vault(dir.path(), &["set", "bot.token"], SECRET, &env);
    assert!(set.status.success(), "{}", text(&set));
    assert!(
        !dir.path().join("vault.key").exists(),
        "no key file with a key given"
    );
    let list = vault(dir.path(), &["list"], "", &env);
    assert!(text(&list).contains("bot.token  ok"), "{}", text(&list));
    // Under another key (the file one, made now), the row does not open.
    let list = vault(dir.path(), &["list"], "", &[]);
    assert!(!list.status.success());
    assert!(text(&list).contains("does not open"), "{}", text(&list));
    // A malformed key is refused by its rule, never echoed.
    let bad = vault(
        dir.path(),
        &["list"],
        "",
        &[("STEWARD_VAULT_KEY", "not-a-key-xyz")],
    );
    assert!(!bad.status.success());
    assert!(!text(&bad).contains("not-a-key-xyz"), "{}", text(&bad));

    for (name, value) in [
        ("Upper", "v"),
        ("a b", "v"),
        ("../x", "v"),
        ("empty", ""),
        ("nl", "\n"),
    ] {
        let out = vault(dir.path(), &["set", name], value, &env);
        assert!(!out.status.success(), "{name:?}: {}", text(&out));
    }
    let list = vault(dir.path(), &["list"], "", &env);
    let listed = text(&list);
    assert_eq!(
        listed.lines().filter(|l| l.contains("  ")).count(),
        1,
        "only bot.token is kept: {listed}"
    );
}
