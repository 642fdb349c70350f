//! The parent's environment never reaches the sandbox. A custom harness (`harness =
//! false`): the test re-runs itself with a canary secret in its *initial* environment —
//! where `/proc/<pid>/environ` shows it — and then lets sandboxed programs look for it
//! every way they can.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;
use std::time::Duration;
use steward_sandbox::{CodeConfig, Job, Language, Sandbox, probe};

const VAR: &str = "STEWARD_SANDBOX_TEST_CANARY";
const NAME: &str = "parent_environment_never_reaches_the_child";

fn main() {
    // Enough of libtest's command line for `--list`, filters and `--ignored` to behave.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        if !args.iter().any(|a| a == "--ignored") {
            println!("{NAME}: test");
        }
        return;
    }
    // Positional arguments are name filters; skip the values of options that take one.
    const WITH_VALUE: &[&str] = &[
        "--test-threads",
        "--skip",
        "--format",
        "--logfile",
        "--color",
        "-Z",
    ];
    let mut filters = Vec::new();
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        if WITH_VALUE.contains(&a.as_str()) {
            iter.next();
        } else if !a.starts_with('-') {
            filters.push(a.as_str());
        }
    }
    let filtered_out = args.iter().any(|a| a == "--ignored")
        || filters.iter().any(|filter| !NAME.contains(filter));
    if filtered_out {
        println!("running 0 tests");
        return;
    }
    match std::env::var(VAR) {
        Err(_) => launch(),
        Ok(canary) => check(&canary),
    }
}

fn launch() {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let canary = format!("sk-canary-{}-{nanos}", std::process::id());
    let exe = std::env::current_exe().expect("own path");
    let status = Command::new(exe)
        .env(VAR, &canary)
        .status()
        .expect("re-run");
    assert!(status.success(), "the canary check failed: {status}");
    println!("test {NAME} ... ok");
}

fn check(canary: &str) {
    // The check can fail: the canary really is in this process's environment block.
    let own = std::fs::read("/proc/self/environ").expect("own environ");
    assert!(String::from_utf8_lossy(&own).contains(canary));

    let status = probe(&CodeConfig::default());
    let sandbox = Sandbox::new(CodeConfig::default(), &status).expect("sandbox available");
    let me = std::process::id();
    let shell = format!(
        "env; set; export -p; cat /proc/$PPID/environ /proc/{me}/environ /proc/1/environ; \
         for f in /proc/{me}/task/*/environ /proc/*/environ; do cat $f; done; \
         strings /proc/{me}/mem 2>&1 | head -1; echo shell-done"
    );
    let python = format!(
        "import os\nprint(dict(os.environ))\nfor p in ['/proc/%d/environ' % os.getppid(), '/proc/{me}/environ', '/proc/{me}/cmdline']:\n    try:\n        print(open(p, 'rb').read())\n    except OSError as e:\n        print('refused', p, e)\nprint('python-done')"
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    for (language, code, done) in [
        (Language::Shell, shell, "shell-done"),
        (Language::Python, python, "python-done"),
    ] {
        let job = Job {
            language,
            code,
            stdin: None,
            timeout: Duration::from_secs(10),
        };
        let r = rt.block_on(sandbox.run(&job)).expect("the sandbox starts");
        assert!(
            r.stdout.contains(done),
            "the program did not run to the end: {r:?}"
        );
        assert!(
            !r.stdout.contains(canary) && !r.stderr.contains(canary),
            "the canary leaked: {r:?}"
        );
        assert!(
            !r.stdout.contains(VAR) && !r.stderr.contains(VAR),
            "the variable leaked: {r:?}"
        );
    }
}
