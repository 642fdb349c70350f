//! A stdio server's whole process tree: the child is started as the leader of its own
//! process group, and stopping it signals the group, so a server launched through a wrapper
//! (`npx`, `sh -c`, `uvx`) or one that forks helpers leaves nothing behind. Killing only the
//! direct child would orphan its children, and those keep running with whatever the server
//! held (files, sockets, tokens in their environment).
//!
//! Owns: the group's lifetime (`stop`: SIGTERM, a short grace, then SIGKILL to the group;
//! `Drop`: SIGKILL to the group). Does not own spawning the command (see `connect`, which
//! sets `process_group(0)`) or deciding when to stop (see `supervisor`).
//!
//! A process that calls `setsid`/`setpgid` itself leaves the group and is out of reach, as
//! it would be for a shell's job control; if Steward is killed with SIGKILL nothing runs
//! here at all (servers still see stdin close and, if well behaved, exit).

use rustix::io::Errno;
use rustix::process::{Pid, Signal, kill_process_group, test_kill_process_group};
use std::time::{Duration, Instant};
use tokio::process::Child;

/// How long a stopped server gets to exit on SIGTERM before the group is killed.
pub const STOP_GRACE: Duration = Duration::from_secs(2);
/// How long we wait for the kernel to reap the leader after SIGKILL.
const REAP_WAIT: Duration = Duration::from_secs(3);
const POLL: Duration = Duration::from_millis(20);

/// A spawned stdio server and its process group (the group id is the leader's pid).
pub(crate) struct ChildGroup {
    child: Child,
    /// None once the group is known to be gone (nothing left to signal).
    pgid: Option<i32>,
}

/// Send `signal` to every process of group `pgid` (None: only ask whether the group still
/// has a process). False when the group has no process left. rustix's safe `kill(-pgid, …)`
/// keeps this crate free of `unsafe`.
fn signal_group(pgid: i32, signal: Option<Signal>) -> bool {
    // 0 would be our own group, 1 / negative would be "every process": never. Above 1 it
    // addresses exactly the group we created for this server.
    let Some(group) = Pid::from_raw(pgid).filter(|_| pgid > 1) else {
        return false;
    };
    let sent = match signal {
        Some(signal) => kill_process_group(group, signal),
        None => test_kill_process_group(group),
    };
    sent != Err(Errno::SRCH)
}

impl ChildGroup {
    /// `child` must have been spawned with `process_group(0)`, so its pid is the group id.
    pub(crate) fn new(child: Child) -> ChildGroup {
        let pgid = child.id().and_then(|p| i32::try_from(p).ok());
        ChildGroup { child, pgid }
    }

    pub(crate) fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.pgid.and_then(|p| u32::try_from(p).ok())
    }

    /// Stop the server and everything it started: SIGTERM to the group, up to
    /// `STOP_GRACE` for all of it to exit, then SIGKILL to whatever is left (a helper that
    /// traps SIGTERM or ignores stdin closing), and reap the leader. Also right after the
    /// leader exited on its own (a crash): its children are still in the group.
    pub(crate) async fn stop(&mut self) {
        let Some(pgid) = self.pgid else {
            return;
        };
        if signal_group(pgid, Some(Signal::TERM)) {
            let deadline = Instant::now() + STOP_GRACE;
            while Instant::now() < deadline {
                // Reaping the leader first matters: while it is an unreaped zombie the group
                // still "exists" for kill(2), so emptiness could never be seen.
                let leader_gone = !matches!(self.child.try_wait(), Ok(None));
                if leader_gone && !signal_group(pgid, None) {
                    self.pgid = None;
                    return;
                }
                tokio::time::sleep(POLL).await;
            }
            // While any member lives the group id cannot be reused by the kernel, so this
            // can only reach this server's processes.
            signal_group(pgid, Some(Signal::KILL));
        }
        let _ = tokio::time::timeout(REAP_WAIT, self.child.wait()).await;
        self.pgid = None;
    }
}

impl Drop for ChildGroup {
    /// Dropped without `stop` (a failed handshake, a cancelled connect, the runtime shutting
    /// down): no time to be polite, kill the whole group now. The `Child` itself was built
    /// with `kill_on_drop`, so Tokio reaps the leader in the background.
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            signal_group(pgid, Some(Signal::KILL));
        }
    }
}
