//! Running one program in the sandbox (Linux): the work directory, the child plan, the
//! spawn, feeding stdin, reading stdout/stderr under the output cap and the wall-clock
//! limit, and killing the process group when either is hit. Also the start-up probe,
//! which is simply a real run of a one-line program per language.
//!
//! Owns: the parent's side of a run. Does not own: what the child does before exec
//! (`child`), the Landlock rules (`fs_rules`), the seccomp program (`seccomp`), or how the
//! report is worded for the model (`tool`).

use super::child::{self, ChildPlan};
use super::{
    CodeConfig, Job, Language, MAX_FILE_BYTES, MAX_OPEN_FILES, MAX_PROCESSES, RunReport,
    SandboxError, SandboxStatus, WORKDIR_BYTES, fs_rules, seccomp,
};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// The host uid/gid the sandbox runs as when Steward runs as root (`nobody`/`nogroup`).
const NOBODY: libc::uid_t = 65534;
/// The probe's program must finish within this.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);
const PATH: &str = "/usr/local/bin:/usr/bin:/bin";
const SHELLS: &[&str] = &["/bin/bash", "/usr/bin/bash", "/bin/sh", "/usr/bin/sh"];

pub(super) fn probe(cfg: &CodeConfig) -> SandboxStatus {
    let landlock_abi = fs_rules::abi_version();
    let missing = if landlock_abi < 1 {
        Some(
            "the kernel does not enforce Landlock (needs Linux 5.13+ with `landlock` in the \
             lsm= boot list), so the sandbox could write outside its directory"
                .to_owned(),
        )
    } else if !seccomp::SUPPORTED {
        Some("no seccomp filter for this CPU architecture".to_owned())
    } else {
        None
    };
    if let Some(why) = missing {
        return SandboxStatus {
            landlock_abi: landlock_abi.max(0),
            shell: Err(why.clone()),
            python: Err(why),
        };
    }
    let cfg = cfg.clone();
    // Our own thread and runtime: callers may or may not be inside a Tokio runtime.
    let probed = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start a runtime for the probe: {e}"))?;
        Ok::<_, String>(rt.block_on(async {
            let shell = match SHELLS.iter().map(Path::new).find(|p| p.is_file()) {
                Some(sh) => try_language(&cfg, sh, Language::Shell).await,
                None => Err("no /bin/bash or /bin/sh".to_owned()),
            };
            let python = if !cfg.python.is_absolute() {
                Err(format!(
                    "code.python ({}) must be an absolute path",
                    cfg.python.display()
                ))
            } else if !cfg.python.is_file() {
                Err(format!(
                    "{} not found (set code.python)",
                    cfg.python.display()
                ))
            } else {
                try_language(&cfg, &cfg.python, Language::Python).await
            };
            (shell, python)
        }))
    })
    .join();
    let (shell, python) = match probed {
        Ok(Ok(found)) => found,
        Ok(Err(e)) => (Err(e.clone()), Err(e)),
        Err(_) => {
            let e = "the probe crashed".to_owned();
            (Err(e.clone()), Err(e))
        }
    };
    SandboxStatus {
        landlock_abi,
        shell,
        python,
    }
}

async fn try_language(
    cfg: &CodeConfig,
    interpreter: &Path,
    language: Language,
) -> Result<PathBuf, String> {
    let code = match language {
        Language::Python => "print('ok')",
        Language::Shell => "echo ok",
    };
    let job = Job {
        language,
        code: code.to_owned(),
        stdin: None,
        timeout: PROBE_TIMEOUT,
    };
    match run(cfg, interpreter, &job).await {
        Ok(r) if r.exit_code == Some(0) && r.stdout.trim() == "ok" => Ok(interpreter.to_path_buf()),
        Ok(r) => {
            let why = r
                .stderr
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(200)
                .collect::<String>();
            Err(format!(
                "a test run of {} failed (exit {:?}, signal {:?}): {why}",
                interpreter.display(),
                r.exit_code,
                r.signal
            ))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// A fresh, private (0700) directory under the system temp dir: the mount point of the
/// sandbox's tmpfs; removed on drop.
struct WorkDir(PathBuf);

impl WorkDir {
    fn create() -> io::Result<WorkDir> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
        for _ in 0..16 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let name = format!("steward-sandbox-{}-{n}-{nanos:x}", std::process::id());
            let path = std::env::temp_dir().join(name);
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(WorkDir(path)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
                Err(e) => return Err(e),
            }
        }
        Err(last)
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        // From the host's view the directory is empty: the program wrote into a tmpfs that
        // existed only in its own mount namespace.
        if let Err(e) = std::fs::remove_dir_all(&self.0) {
            tracing::warn!(error = %e, "could not remove a sandbox work dir");
        }
    }
}

/// SIGKILLs the sandbox's process group unless its leader has been reaped (after which
/// the id could be reused). Also runs on drop, e.g. when the registry's timeout aborts us.
struct GroupKill(Option<libc::pid_t>);

impl GroupKill {
    #[allow(unsafe_code)] // killpg(2)
    fn kill(&mut self) {
        if let Some(pgid) = self.0.take() {
            // SAFETY: killpg takes integers. The group leader is our child and not yet
            // reaped, so this id still names the sandbox's group.
            unsafe { libc::killpg(pgid, libc::SIGKILL) };
        }
    }
}

impl Drop for GroupKill {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn read_opt<R: AsyncRead + Unpin>(r: &mut Option<R>, buf: &mut [u8]) -> io::Result<usize> {
    match r {
        Some(r) => r.read(buf).await,
        None => std::future::pending().await,
    }
}

#[allow(unsafe_code)] // geteuid/getegid and chown(2) on the work dir
fn plan(cfg: &CodeConfig, workdir: &WorkDir, landlock_fd: i32) -> Result<ChildPlan, String> {
    // SAFETY: geteuid/getegid take no arguments and cannot fail.
    let (euid, egid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let (uid, gid, drop_to) = if euid == 0 {
        (NOBODY, NOBODY, Some((NOBODY, NOBODY)))
    } else {
        (euid, egid, None)
    };
    let cstring = |s: &[u8]| CString::new(s).map_err(|_| "a path contains a NUL byte".to_owned());
    let workdir_c = cstring(workdir.0.as_os_str().as_bytes())?;
    if drop_to.is_some() {
        // SAFETY: chown on a NUL-terminated path we own, with integer ids.
        if unsafe { libc::chown(workdir_c.as_ptr(), uid, gid) } != 0 {
            let e = io::Error::last_os_error();
            return Err(format!("cannot hand the work dir to uid {uid}: {e}"));
        }
    }
    let mem = cfg.memory_mb.saturating_mul(1024 * 1024);
    Ok(ChildPlan {
        drop_to,
        uid_map: format!("{uid} {uid} 1").into_bytes(),
        gid_map: format!("{gid} {gid} 1").into_bytes(),
        workdir: workdir_c,
        tmpfs_options: cstring(format!("size={WORKDIR_BYTES},mode=0700").as_bytes())?,
        limits: vec![
            child::limit(libc::RLIMIT_CPU, cfg.cpu_secs, cfg.cpu_secs + 1),
            child::limit(libc::RLIMIT_AS, mem, mem),
            child::limit(libc::RLIMIT_NPROC, MAX_PROCESSES, MAX_PROCESSES),
            child::limit(libc::RLIMIT_FSIZE, MAX_FILE_BYTES, MAX_FILE_BYTES),
            child::limit(libc::RLIMIT_NOFILE, MAX_OPEN_FILES, MAX_OPEN_FILES),
            child::limit(libc::RLIMIT_CORE, 0, 0),
            child::limit(libc::RLIMIT_MEMLOCK, 0, 0),
        ],
        landlock_fd,
        workdir_access: fs_rules::workdir_access(),
        seccomp: seccomp::program().ok_or("no seccomp filter for this CPU architecture")?,
    })
}

#[allow(unsafe_code)] // pre_exec: the child's setup between fork and exec
pub(super) async fn run(
    cfg: &CodeConfig,
    interpreter: &Path,
    job: &Job,
) -> Result<RunReport, SandboxError> {
    let setup = SandboxError::Setup;
    let workdir = WorkDir::create().map_err(|e| setup(format!("cannot create a work dir: {e}")))?;
    let extra: Vec<PathBuf> = fs_rules::interpreter_prefix(interpreter)
        .into_iter()
        .collect();
    let ruleset = fs_rules::ruleset(&extra).map_err(setup)?;
    let plan = {
        use std::os::fd::AsRawFd;
        plan(cfg, &workdir, ruleset.as_raw_fd()).map_err(setup)?
    };
    let mut cmd = std::process::Command::new(interpreter);
    match job.language {
        // -I: isolated mode (no user site-packages, PYTHON* variables ignored).
        Language::Python => cmd.args(["-I", "-c", &job.code]),
        Language::Shell => cmd.args(["-c", &job.code]),
    };
    cmd.env_clear()
        .env("PATH", PATH)
        .env("HOME", &workdir.0)
        .env("TMPDIR", &workdir.0)
        .env("LANG", "C.UTF-8")
        .stdin(if job.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: the closure runs between fork and exec; `child::enter` makes only
    // async-signal-safe syscalls on the plan, which was fully prepared above.
    unsafe {
        cmd.pre_exec(move || child::enter(&plan));
    }
    let mut cmd = tokio::process::Command::from(cmd);
    cmd.kill_on_drop(true);
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| setup(format!("the sandboxed process did not start: {e}")))?;
    drop(ruleset);
    let mut group = GroupKill(child.id().and_then(|id| libc::pid_t::try_from(id).ok()));
    let feeder = match (job.stdin.clone(), child.stdin.take()) {
        (Some(data), Some(mut w)) => Some(AbortOnDrop(tokio::spawn(async move {
            // A program that does not read its input closes the pipe: that is fine.
            let _ = w.write_all(data.as_bytes()).await;
        }))),
        _ => None,
    };
    let (mut stdout, mut stderr) = (child.stdout.take(), child.stderr.take());
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let (mut b1, mut b2) = (vec![0u8; 8192], vec![0u8; 8192]);
    let deadline = tokio::time::Instant::now() + job.timeout;
    let (mut status, mut timed_out, mut truncated) = (None, false, false);
    while stdout.is_some() || stderr.is_some() || status.is_none() {
        tokio::select! {
            n = read_opt(&mut stdout, &mut b1) => match n {
                Ok(n) if n > 0 => out.extend_from_slice(&b1[..n]),
                _ => stdout = None,
            },
            n = read_opt(&mut stderr, &mut b2) => match n {
                Ok(n) if n > 0 => err.extend_from_slice(&b2[..n]),
                _ => stderr = None,
            },
            st = child.wait(), if status.is_none() => {
                // Reaped: from now on the group id must not be signalled. The program was
                // PID 1 of its namespace, so the kernel has killed whatever it left behind.
                group.0 = None;
                status = Some(st.map_err(|e| setup(format!("waiting for the sandbox: {e}")))?);
            },
            () = tokio::time::sleep_until(deadline) => {
                timed_out = status.is_none();
                break;
            },
        }
        if out.len() + err.len() > cfg.max_output_bytes {
            truncated = true;
            break;
        }
    }
    group.kill();
    drop(feeder);
    let status = match status {
        Some(s) => s,
        None => child
            .wait()
            .await
            .map_err(|e| setup(format!("waiting for the sandbox: {e}")))?,
    };
    let cap = cfg.max_output_bytes;
    out.truncate(cap);
    err.truncate(cap.saturating_sub(out.len()));
    Ok(RunReport {
        exit_code: status.code(),
        signal: status.signal(),
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        timed_out,
        truncated,
        elapsed: started.elapsed(),
    })
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
