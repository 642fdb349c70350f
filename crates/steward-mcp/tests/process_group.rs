//! A stdio server started through a wrapper leaves nothing behind: the wrapper (`sh -c`)
//! starts a helper that ignores SIGTERM and never reads stdin, then execs the real server
//! (the hostile fixture). After the server crashes (and is restarted), after the manager is
//! shut down, and after the runtime is dropped without any shutdown, no live process of the
//! server's process group is left — the helper included, which killing only the direct
//! child would orphan.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use steward_mcp::{McpManager, ServerSpec, Transport};
use support::*;

/// `$1` node, `$2` the server script, `$3` the file the helper's pid is appended to.
const WRAPPER: &str = "( trap '' TERM; exec sleep 600 ) </dev/null >/dev/null 2>&1 &\n\
                       echo $! >> \"$3\"\n\
                       exec \"$1\" \"$2\"";

fn wrapped_spec(pidfile: &Path) -> ServerSpec {
    let mut spec = ServerSpec::new(
        "wrapped",
        Transport::Stdio {
            command: "sh".to_owned(),
            args: vec![
                "-c".to_owned(),
                WRAPPER.to_owned(),
                "sh".to_owned(),
                node(),
                hostile_js(),
                pidfile.to_string_lossy().into_owned(),
            ],
            env: Default::default(),
        },
    );
    spec.timeout = Duration::from_secs(5);
    spec
}

/// The file the wrapper appends helper pids to. On drop (also when a test fails) it kills
/// any helper still running, so a failing run leaves no `sleep 600` behind.
struct PidFile(PathBuf);

impl PidFile {
    fn new(tag: &str) -> PidFile {
        let path = std::env::temp_dir().join(format!(
            "steward-mcp-pgroup-{tag}-{}-{}",
            std::process::id(),
            nanos()
        ));
        PidFile(path)
    }

    fn pids(&self) -> Vec<u32> {
        std::fs::read_to_string(&self.0)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }
}

impl Drop for PidFile {
    fn drop(&mut self) {
        for pid in self.pids() {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if alive(pid) && cmdline.starts_with(b"sleep\x00600") {
                let _ = std::process::Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .status();
            }
        }
        let _ = std::fs::remove_file(&self.0);
    }
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// (state, pgid) of a process from /proc/PID/stat; None if it does not exist.
fn stat(pid: u32) -> Option<(char, u32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: split after the last ')'.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let pgid = fields.get(2)?.parse().ok()?;
    Some((state, pgid))
}

/// Live (not zombie) processes whose process group is `pgid`.
fn live_members(pgid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some((state, g)) = stat(pid)
            && g == pgid
            && state != 'Z'
            && state != 'X'
        {
            out.push(pid);
        }
    }
    out
}

fn alive(pid: u32) -> bool {
    stat(pid).is_some_and(|(s, _)| s != 'Z' && s != 'X')
}

/// Helper pids written so far, waiting until there are at least `n`.
fn helpers(file: &PidFile, n: usize) -> Vec<u32> {
    let started = Instant::now();
    loop {
        let pids = file.pids();
        if pids.len() >= n {
            return pids;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the wrapper never wrote helper pid #{n} to {}",
            file.0.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The group is the server's own (led by the server, not ours) and holds the helper.
fn check_group(leader: u32, helper: u32) {
    let ours = stat(std::process::id()).unwrap().1;
    assert_eq!(
        stat(leader).map(|s| s.1),
        Some(leader),
        "the server leads a group"
    );
    assert_ne!(leader, ours, "not our own group");
    assert_eq!(
        stat(helper).map(|s| s.1),
        Some(leader),
        "the helper is in it"
    );
    assert!(alive(helper));
}

/// Wait until nothing of the group lives (the grace before SIGKILL is 2 s).
async fn wait_group_gone(pgid: u32, helper: u32, when: &str) {
    let started = Instant::now();
    loop {
        let left = live_members(pgid);
        if left.is_empty() && !alive(helper) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{when}: processes of group {pgid} still running: {left:?} (helper {helper} alive: {})",
            alive(helper)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_restart_and_shutdown_leave_no_process_of_the_group() {
    let path = PidFile::new("crash");
    let mgr = McpManager::start(vec![wrapped_spec(&path.0)]);
    let st = connected(&mgr, "wrapped").await;
    let leader = st.pid.expect("a pid");
    let first = helpers(&path, 1)[0];
    check_group(leader, first);

    // The server crashes mid-call; its helper is still in the group and must go too.
    let crash = tool(&mgr, "wrapped", "wrapped__crash")
        .run(serde_json::json!({}), &ctx())
        .await;
    assert!(crash.is_err(), "{crash:?}");
    wait_group_gone(leader, first, "after a crash").await;

    // Restarted: a new group with a new helper, which shutting the manager down ends.
    let again = wait_for(&mgr, "wrapped", Duration::from_secs(20), "a restart", |s| {
        s.is_connected() && s.pid.is_some() && s.pid != Some(leader)
    })
    .await;
    let leader2 = again.pid.unwrap();
    let second = helpers(&path, 2)[1];
    check_group(leader2, second);
    mgr.shutdown();
    wait_group_gone(leader2, second, "after shutdown").await;
}

#[test]
fn dropping_the_runtime_kills_the_group() {
    let path = PidFile::new("drop");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (leader, helper) = rt.block_on(async {
        let mgr = McpManager::start(vec![wrapped_spec(&path.0)]);
        let st = connected(&mgr, "wrapped").await;
        // No shutdown: the supervisor is simply dropped with the runtime.
        (st.pid.unwrap(), helpers(&path, 1)[0])
    });
    check_group(leader, helper);
    drop(rt);
    let check = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    check.block_on(wait_group_gone(
        leader,
        helper,
        "after the runtime was dropped",
    ));
}
