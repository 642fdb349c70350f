//! What the forked child does before `exec` to enter the sandbox: its own session, an
//! unprivileged uid when Steward runs as root, fresh user + network + mount + PID
//! namespaces, a size-limited tmpfs as its working directory, resource limits,
//! no_new_privs, Landlock, a seccomp filter, and a tiny supervisor that makes the program
//! PID 1 of its namespace (so everything it starts dies with it).
//!
//! Owns: the order of those steps and the raw syscalls. Does not own: building the
//! Landlock ruleset or the seccomp program (done in the parent, before fork: `fs_rules`,
//! `seccomp`), or spawning and reading the child (`run`).
//!
//! Everything here runs between `fork` and `exec` in a copy of a multi-threaded process,
//! so it must be async-signal-safe: raw syscalls on data prepared by the parent, no
//! allocation, no locks, no logging. `io::Error::last_os_error()` is fine (it stores the
//! errno inline). Each wrapper below says why its call is safe.

// Every function here is a raw syscall wrapper (the crate denies `unsafe` elsewhere).
#![allow(unsafe_code)]

use std::ffi::CStr;
use std::io;
use std::os::fd::RawFd;

#[cfg(target_env = "gnu")]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(target_env = "gnu"))]
type Resource = libc::c_int;

/// Everything the child needs, prepared (and allocated) by the parent before fork.
pub(super) struct ChildPlan {
    /// When Steward runs as root: become this uid/gid on the host before anything else, so
    /// root inside the sandbox could never be root outside it.
    pub drop_to: Option<(libc::uid_t, libc::gid_t)>,
    /// `"<uid> <uid> 1"`: the sandbox keeps its (unprivileged) uid inside its namespace.
    pub uid_map: Vec<u8>,
    pub gid_map: Vec<u8>,
    pub workdir: std::ffi::CString,
    /// tmpfs options, e.g. `size=64m,mode=0700`.
    pub tmpfs_options: std::ffi::CString,
    pub limits: Vec<(Resource, libc::rlimit)>,
    /// The Landlock ruleset (O_CLOEXEC, so it closes itself at exec).
    pub landlock_fd: RawFd,
    /// Rights granted on the work dir's tmpfs (every file-system right the ruleset handles).
    pub workdir_access: u64,
    pub seccomp: Vec<libc::sock_filter>,
}

pub(super) fn limit(resource: Resource, soft: u64, hard: u64) -> (Resource, libc::rlimit) {
    (
        resource,
        libc::rlimit {
            rlim_cur: soft as libc::rlim_t,
            rlim_max: hard as libc::rlim_t,
        },
    )
}

fn check(ret: libc::c_long) -> io::Result<()> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

fn check_int(ret: libc::c_int) -> io::Result<()> {
    check(libc::c_long::from(ret))
}

/// Runs in the forked child. Returns only in the process that goes on to exec (PID 1 of
/// the new PID namespace); the supervisor half never returns.
pub(super) fn enter(plan: &ChildPlan) -> io::Result<()> {
    // Own session and process group: the parent kills the whole group on timeout.
    // SAFETY: setsid is async-signal-safe and takes no pointers.
    check_int(unsafe { libc::setsid() })?;
    if let Some((uid, gid)) = plan.drop_to {
        // SAFETY: setgroups with (0, NULL) drops supplementary groups; setgid/setuid take
        // plain integers. All are async-signal-safe syscalls.
        check_int(unsafe { libc::setgroups(0, std::ptr::null()) })?;
        check_int(unsafe { libc::setgid(gid) })?;
        check_int(unsafe { libc::setuid(uid) })?;
        // setuid made us non-dumpable, which makes /proc/self/* root-owned and the uid map
        // below unwritable; dumpable again (we are already unprivileged).
        prctl(libc::PR_SET_DUMPABLE, 1)?;
    }
    let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNET | libc::CLONE_NEWNS | libc::CLONE_NEWPID;
    // SAFETY: unshare takes an integer flag set; async-signal-safe.
    check_int(unsafe { libc::unshare(flags) })?;
    write_file(c"/proc/self/setgroups", b"deny")?;
    write_file(c"/proc/self/uid_map", &plan.uid_map)?;
    write_file(c"/proc/self/gid_map", &plan.gid_map)?;
    // A private, size-limited tmpfs over the (empty) work dir: a full disk stays inside it.
    // Our new mount namespace is owned by the new user namespace, so shared mounts were
    // turned into slaves: nothing propagates back to the host.
    // SAFETY: all pointers are NUL-terminated strings owned by `plan`, alive until exec.
    check_int(unsafe {
        libc::mount(
            c"tmpfs".as_ptr(),
            plan.workdir.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            plan.tmpfs_options.as_ptr().cast(),
        )
    })?;
    // SAFETY: chdir takes a NUL-terminated path owned by `plan`.
    check_int(unsafe { libc::chdir(plan.workdir.as_ptr()) })?;
    allow_workdir(plan)?;
    // After unshare: RLIMIT_NPROC is counted per user namespace, so a small limit here
    // counts only the sandbox's processes, not every process of the same uid.
    for (resource, value) in &plan.limits {
        // SAFETY: setrlimit reads one struct we own; async-signal-safe.
        check_int(unsafe { libc::setrlimit(*resource, value) })?;
    }
    prctl(libc::PR_SET_NO_NEW_PRIVS, 1)?;
    // SAFETY: landlock_restrict_self takes an fd and flags; the fd is the parent's ruleset,
    // inherited through fork.
    check(unsafe { libc::syscall(libc::SYS_landlock_restrict_self, plan.landlock_fd, 0u32) })?;
    install_seccomp(&plan.seccomp)?;
    // If Steward dies, so does the sandbox.
    prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong)?;
    // SAFETY: fork is async-signal-safe; both halves only make raw syscalls afterwards.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // PID 1 of the new namespace: it returns, std execs the program. When it exits,
        // the kernel kills every process left in the namespace.
        prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong)?;
        return Ok(());
    }
    supervise(pid)
}

/// The supervisor: closes every descriptor (so std's exec-status pipe and the output
/// pipes belong to the program alone), waits for the program and exits the same way.
fn supervise(pid: libc::pid_t) -> ! {
    // SAFETY: close_range takes integers; on old kernels we fall back to close(2) in a loop.
    let closed = unsafe { libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) };
    if closed < 0 {
        for fd in 0..4096 {
            // SAFETY: close on any integer is harmless (EBADF at worst).
            unsafe { libc::close(fd) };
        }
    }
    let mut status: libc::c_int = 0;
    loop {
        // SAFETY: waitpid writes one int we own.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            break;
        }
        if r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            // SAFETY: _exit never returns and is async-signal-safe.
            unsafe { libc::_exit(125) };
        }
    }
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        // Die of the same signal so the parent sees what happened to the program.
        // SAFETY: signal(sig, SIG_DFL) and kill(getpid()) are async-signal-safe.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::kill(libc::getpid(), sig);
        }
        // SAFETY: as above.
        unsafe { libc::_exit(128 + sig) };
    }
    // SAFETY: as above.
    unsafe { libc::_exit(libc::WEXITSTATUS(status)) }
}

/// `struct landlock_path_beneath_attr` (packed in the kernel's UAPI).
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// Adds "everything beneath the tmpfs root" to the ruleset, now that the tmpfs is mounted.
fn allow_workdir(plan: &ChildPlan) -> io::Result<()> {
    const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
    // SAFETY: open on a static path: "." is the tmpfs root we just entered (O_PATH).
    let fd = unsafe {
        libc::open(
            c".".as_ptr(),
            libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let attr = PathBeneathAttr {
        allowed_access: plan.workdir_access,
        parent_fd: fd,
    };
    // SAFETY: the kernel reads the attribute struct on our stack; the fds are ours.
    let r = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            plan.landlock_fd,
            LANDLOCK_RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0u32,
        )
    };
    let err = (r < 0).then(io::Error::last_os_error);
    // SAFETY: closing the fd we opened.
    unsafe { libc::close(fd) };
    err.map_or(Ok(()), Err)
}

fn prctl(option: libc::c_int, arg: libc::c_ulong) -> io::Result<()> {
    // SAFETY: the options used here take only integer arguments.
    check_int(unsafe {
        libc::prctl(
            option,
            arg,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        )
    })
}

fn write_file(path: &CStr, data: &[u8]) -> io::Result<()> {
    // SAFETY: open/write/close on a static path and a buffer owned by the plan.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: writes `data.len()` bytes from a live slice.
    let n = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
    let err = (n < 0 || n as usize != data.len()).then(io::Error::last_os_error);
    // SAFETY: closing the fd we opened.
    unsafe { libc::close(fd) };
    err.map_or(Ok(()), Err)
}

fn install_seccomp(program: &[libc::sock_filter]) -> io::Result<()> {
    let prog = libc::sock_fprog {
        len: program.len() as libc::c_ushort,
        // The kernel only reads the program; the cast to *mut is what the C type wants.
        filter: program.as_ptr().cast_mut(),
    };
    // SAFETY: PR_SET_SECCOMP reads the program through a pointer to a live stack struct
    // pointing at the plan's buffer.
    check_int(unsafe {
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER as libc::c_ulong,
            &prog as *const libc::sock_fprog as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        )
    })
}
