//! The sandbox battery: real child processes trying to escape or exhaust the machine,
//! each contained and reported. Runs as root in CI, where containment must still hold
//! (the sandbox drops to `nobody` and lives in its own user namespace).

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;
use steward_sandbox::{CodeConfig, Job, Language, RunReport, Sandbox, SandboxStatus, probe};

fn status() -> &'static SandboxStatus {
    static STATUS: OnceLock<SandboxStatus> = OnceLock::new();
    STATUS.get_or_init(|| probe(&CodeConfig::default()))
}

fn sandbox_with(cfg: CodeConfig) -> Sandbox {
    let st = status();
    assert!(
        st.shell.is_ok() && st.python.is_ok(),
        "this machine must support the sandbox (user namespaces, Landlock, python3): {st:?}"
    );
    Sandbox::new(cfg, st).expect("sandbox available")
}

fn sandbox() -> Sandbox {
    sandbox_with(CodeConfig::default())
}

async fn run(sb: &Sandbox, language: Language, code: &str, timeout_secs: u64) -> RunReport {
    let job = Job {
        language,
        code: code.to_owned(),
        stdin: None,
        timeout: Duration::from_secs(timeout_secs),
    };
    sb.run(&job).await.expect("the sandbox starts")
}

/// A directory outside the sandbox that anyone may write to (0777, file 0666), so only
/// the sandbox — not file permissions — can keep the program out.
fn victim_dir() -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!(
        "steward-victim-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let file = dir.join("victim.txt");
    std::fs::File::create(&file)
        .unwrap()
        .write_all(b"original")
        .unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    (dir, file)
}

#[tokio::test]
async fn normal_runs_return_stdout_stderr_and_exit_code() {
    let sb = sandbox();
    let r = run(
        &sb,
        Language::Python,
        "import sys\nprint(6*7)\nprint('oops', file=sys.stderr)\nsys.exit(3)",
        10,
    )
    .await;
    assert_eq!(r.stdout, "42\n");
    assert_eq!(r.stderr, "oops\n");
    assert_eq!(r.exit_code, Some(3));
    assert!(!r.timed_out && !r.truncated);

    let r = run(
        &sb,
        Language::Shell,
        "echo hello; echo err >&2; printf '%s' \"$(pwd)\" > here; cat here | wc -c; exit 0",
        10,
    )
    .await;
    assert!(r.stdout.starts_with("hello\n"), "{r:?}");
    assert_eq!(r.stderr, "err\n");
    assert_eq!(r.exit_code, Some(0));

    let job = Job {
        language: Language::Python,
        code: "import sys; print(sys.stdin.read().upper())".to_owned(),
        stdin: Some("piped in".to_owned()),
        timeout: Duration::from_secs(10),
    };
    assert_eq!(sb.run(&job).await.unwrap().stdout, "PIPED IN\n");
}

#[tokio::test]
async fn writes_outside_its_directory_are_refused() {
    let sb = sandbox();
    let (dir, file) = victim_dir();
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".to_owned());
    let home_file =
        PathBuf::from(&home).join(format!("steward-sandbox-probe-{}", std::process::id()));
    let f = file.display();
    let d = dir.display();
    let h = home_file.display();
    let shell = format!(
        "echo pwned > {f}; echo pwned >> {f}; rm -f {f}; mv {f} {d}/moved; touch {d}/new; \
         echo pwned > {h}; mkdir {h}.d; ln -s /etc/passwd {d}/link; echo inside > ok && cat ok"
    );
    let r = run(&sb, Language::Shell, &shell, 10).await;
    assert!(
        r.stdout.contains("inside"),
        "writing inside its own dir must work: {r:?}"
    );
    assert!(r.stderr.contains("Permission denied"), "{r:?}");
    let py = format!(
        "import os\nfor p in ['{f}', '{d}/py', '{h}']:\n    try:\n        open(p, 'w').write('pwned'); print('WROTE', p)\n    except OSError as e:\n        print('refused', p, e.errno)\ntry:\n    os.remove('{f}'); print('REMOVED')\nexcept OSError as e:\n    print('refused remove', e.errno)"
    );
    let r = run(&sb, Language::Python, &py, 10).await;
    assert!(
        !r.stdout.contains("WROTE") && !r.stdout.contains("REMOVED"),
        "{r:?}"
    );
    assert_eq!(r.stdout.matches("refused").count(), 4, "{r:?}");

    assert_eq!(std::fs::read_to_string(&file).unwrap(), "original");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, vec!["victim.txt"]);
    assert!(!home_file.exists());
    assert!(!PathBuf::from(format!("{h}.d")).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn it_cannot_read_private_places() {
    let sb = sandbox();
    let me = std::process::id();
    let code = format!(
        "for f in /proc/{me}/environ /proc/{me}/cmdline /proc/1/environ /proc/self/environ; do \
         cat $f >/dev/null 2>&1 && echo READ $f || echo refused $f; done; \
         for d in /proc /root /home /var/lib /run; do \
         ls $d >/dev/null 2>&1 && echo READ $d || echo refused $d; done"
    );
    let r = run(&sb, Language::Shell, &code, 10).await;
    assert!(!r.stdout.contains("READ"), "{r:?}");
    assert_eq!(r.stdout.matches("refused").count(), 9, "{r:?}");
}

#[tokio::test]
async fn network_connections_fail_and_the_listener_sees_nothing() {
    let sb = sandbox();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let py = format!(
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3); print('CONNECTED')\nexcept OSError as e:\n    print('failed', e)"
    );
    let r = run(&sb, Language::Python, &py, 10).await;
    assert!(r.stdout.starts_with("failed"), "{r:?}");
    let sh = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED || echo failed");
    let r = run(&sb, Language::Shell, &sh, 10).await;
    assert!(
        r.stdout.contains("failed") && !r.stdout.contains("CONNECTED"),
        "{r:?}"
    );
    // Only an unconfigured loopback exists in the sandbox (asked over netlink, which
    // answers for the caller's own network namespace).
    let py = "import socket\nprint(socket.if_nameindex())";
    let r = run(&sb, Language::Python, py, 10).await;
    assert_eq!(r.stdout, "[(1, 'lo')]\n", "{r:?}");
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the listener was contacted: {other:?}"),
    }
}

#[tokio::test]
async fn unix_sockets_and_signals_to_the_host_are_refused() {
    let sb = sandbox();
    let me = std::process::id();
    let py = format!(
        "import os, socket\ntry:\n    socket.socket(socket.AF_UNIX); print('UNIX SOCKET')\nexcept OSError as e:\n    print('refused socket', e.errno)\ntry:\n    os.kill({me}, 0); print('CAN SIGNAL')\nexcept OSError as e:\n    print('refused kill', e.errno)\nprint('uid', os.getuid())"
    );
    let r = run(&sb, Language::Python, &py, 10).await;
    assert!(
        r.stdout.contains("refused socket") && r.stdout.contains("refused kill"),
        "{r:?}"
    );
    assert!(
        !r.stdout.contains("uid 0\n"),
        "the sandbox must never be uid 0: {r:?}"
    );
}

#[tokio::test]
async fn an_endless_loop_is_killed_at_the_timeout() {
    let sb = sandbox();
    let r = run(&sb, Language::Shell, "echo started; while :; do :; done", 2).await;
    assert!(r.timed_out, "{r:?}");
    assert_eq!(r.signal, Some(9));
    assert!(r.stdout.contains("started"));
    let r = run(
        &sb,
        Language::Python,
        "import time\nwhile True: time.sleep(1)",
        1,
    )
    .await;
    assert!(r.timed_out, "{r:?}");
}

#[tokio::test]
async fn the_cpu_limit_stops_a_busy_program() {
    let sb = sandbox_with(CodeConfig {
        cpu_secs: 1,
        ..CodeConfig::default()
    });
    let r = run(&sb, Language::Python, "while True: pass", 15).await;
    assert!(
        !r.timed_out,
        "the CPU limit, not the wall clock, must stop it: {r:?}"
    );
    assert!(
        matches!(r.signal, Some(24 | 9)),
        "SIGXCPU or SIGKILL: {r:?}"
    );
}

#[tokio::test]
async fn a_huge_output_is_truncated_and_the_program_stopped() {
    let sb = sandbox_with(CodeConfig {
        max_output_bytes: 4096,
        ..CodeConfig::default()
    });
    let r = run(&sb, Language::Shell, "yes 'all work and no play'", 10).await;
    assert!(r.truncated, "{r:?}");
    assert!(!r.timed_out);
    assert_eq!(r.stdout.len() + r.stderr.len(), 4096);
}

#[tokio::test]
async fn a_memory_hog_is_stopped() {
    let sb = sandbox_with(CodeConfig {
        memory_mb: 256,
        ..CodeConfig::default()
    });
    let r = run(
        &sb,
        Language::Python,
        "x = bytearray(1024 * 1024 * 1024)\nprint('ALLOCATED')",
        10,
    )
    .await;
    assert!(!r.stdout.contains("ALLOCATED"), "{r:?}");
    assert!(r.stderr.contains("MemoryError"), "{r:?}");
    assert_ne!(r.exit_code, Some(0));
}

#[tokio::test]
async fn a_fork_bomb_is_contained() {
    let sb = sandbox();
    let r = run(
        &sb,
        Language::Shell,
        "bomb() { bomb | bomb & }; bomb; sleep 3; echo done",
        5,
    )
    .await;
    // It ran into the process limit (fork errors) and everything it started is gone.
    assert!(
        r.stderr.contains("fork") || r.stderr.contains("Resource temporarily unavailable"),
        "{r:?}"
    );
    // The machine is fine: a normal process still starts, and so does a new sandbox.
    let out = std::process::Command::new("true").status().unwrap();
    assert!(out.success());
    let r = run(&sb, Language::Shell, "echo alive", 10).await;
    assert_eq!(r.stdout, "alive\n");
}

#[tokio::test]
async fn processes_it_leaves_behind_die_with_it() {
    let sb = sandbox();
    // A unique sleep length marks the process in `ps`.
    let marker = format!("{}.{}", 900 + std::process::id() % 100, std::process::id());
    // A daemon in its own session: outside the process group, inside the PID namespace.
    let code =
        format!("setsid sleep {marker} </dev/null >/dev/null 2>&1 & sleep 0.2; echo started");
    let r = run(&sb, Language::Shell, &code, 10).await;
    assert_eq!(r.stdout, "started\n");
    std::thread::sleep(Duration::from_millis(300));
    let ps = std::process::Command::new("ps")
        .args(["-eo", "args"])
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&ps.stdout);
    assert!(
        !listing.contains(&marker),
        "a sandbox process outlived its run:\n{listing}"
    );
}

#[tokio::test]
async fn the_work_directory_is_deleted_afterwards() {
    let sb = sandbox();
    let r = run(&sb, Language::Shell, "echo data > file; pwd", 10).await;
    let dir = PathBuf::from(r.stdout.trim());
    assert!(dir.starts_with(std::env::temp_dir()), "{r:?}");
    assert!(!dir.exists(), "{} still exists", dir.display());
}
