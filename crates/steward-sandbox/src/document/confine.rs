//! Limits a document-reading process puts on itself before it reads a byte of input: CPU
//! seconds, address space, no file writes, no core dumps, no new privileges, and death
//! with its parent. The process is single-threaded and has not allocated much yet, so
//! plain `setrlimit` calls on itself are enough (no fork-then-exec dance as in `child`).
//!
//! Owns: those syscalls. Does not own: what the limits are (`reader`) or what runs under
//! them (`serve`).

// Raw syscall wrappers (the crate denies `unsafe` elsewhere).
#![allow(unsafe_code)]

use std::io;

#[cfg(target_env = "gnu")]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(target_env = "gnu"))]
type Resource = libc::c_int;

/// The limits of one reading process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Confinement {
    /// CPU seconds (then SIGXCPU; the hard limit one second later kills).
    pub cpu_secs: u64,
    /// Address space, in bytes.
    pub memory_bytes: u64,
}

fn set(resource: Resource, soft: u64, hard: u64) -> io::Result<()> {
    let value = libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    };
    // SAFETY: setrlimit reads one struct we own for the duration of the call.
    if unsafe { libc::setrlimit(resource, &value) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn prctl(option: libc::c_int, arg: libc::c_ulong) -> io::Result<()> {
    // SAFETY: the options used here take only integer arguments.
    let ret = unsafe {
        libc::prctl(
            option,
            arg,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        )
    };
    if ret == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Applies `limits` to this process. Any failure is returned: the caller must not go on
/// to read untrusted input unconfined.
pub fn confine_self(limits: Confinement) -> io::Result<()> {
    prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong)?;
    prctl(libc::PR_SET_NO_NEW_PRIVS, 1)?;
    set(libc::RLIMIT_CORE, 0, 0)?;
    set(libc::RLIMIT_FSIZE, 0, 0)?;
    set(libc::RLIMIT_CPU, limits.cpu_secs, limits.cpu_secs + 1)?;
    set(libc::RLIMIT_AS, limits.memory_bytes, limits.memory_bytes)?;
    Ok(())
}
