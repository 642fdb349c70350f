//! The sandbox's seccomp filter (a classic-BPF program, built in the parent): it closes
//! the holes the namespaces and Landlock leave on current kernels.
//!
//! - `socket(AF_UNIX, …)` → EACCES: pathname UNIX sockets are not covered by Landlock
//!   before ABI 9, and the owner's sockets (ssh-agent, the D-Bus session bus, docker.sock)
//!   would otherwise be reachable through the file system.
//! - `io_uring_*` → ENOSYS: io_uring can open sockets and files without the syscalls the
//!   filter sees.
//! - `keyctl`, `add_key`, `request_key` → ENOSYS: the session keyring is inherited.
//! - another architecture's syscall ABI (e.g. 32-bit or x32 on x86-64) → the process is
//!   killed, so the numbers above cannot be dodged.
//!
//! Owns: the program. Does not own: installing it (`child`).

/// `offsetof(struct seccomp_data, nr / arch / args[0])`.
const NR: u32 = 0;
const ARCH: u32 = 4;
const ARG0: u32 = 16;
/// x32 syscalls on x86-64 carry this bit in their number.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

/// Whether this build has a filter for the CPU it runs on (the sandbox refuses to start
/// without one).
pub(super) const SUPPORTED: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

#[derive(Clone, Copy)]
enum To {
    Next,
    Allow,
    Eacces,
    Enosys,
    Kill,
}

enum Ins {
    Load(u32),
    JumpEq(u32, To, To),
    #[cfg(target_arch = "x86_64")]
    JumpGe(u32, To, To),
}

fn stmt(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

/// The filter program, or None on an architecture without one.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) fn program() -> Option<Vec<libc::sock_filter>> {
    let denied = [
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
    ];
    let mut body = vec![
        Ins::Load(ARCH),
        Ins::JumpEq(AUDIT_ARCH, To::Next, To::Kill),
        Ins::Load(NR),
    ];
    #[cfg(target_arch = "x86_64")]
    body.push(Ins::JumpGe(X32_SYSCALL_BIT, To::Enosys, To::Next));
    for nr in denied {
        body.push(Ins::JumpEq(nr as u32, To::Enosys, To::Next));
    }
    body.push(Ins::JumpEq(libc::SYS_socket as u32, To::Next, To::Allow));
    body.push(Ins::Load(ARG0));
    body.push(Ins::JumpEq(libc::AF_UNIX as u32, To::Eacces, To::Allow));
    let tail_start = body.len();
    let target = |to: To, at: usize| -> u8 {
        let dest = match to {
            To::Next => at + 1,
            To::Allow => tail_start,
            To::Eacces => tail_start + 1,
            To::Enosys => tail_start + 2,
            To::Kill => tail_start + 3,
        };
        // The program is a few dozen instructions: offsets always fit.
        u8::try_from(dest - at - 1).unwrap_or(u8::MAX)
    };
    let mut prog = Vec::with_capacity(body.len() + 4);
    for (at, ins) in body.iter().enumerate() {
        prog.push(match *ins {
            Ins::Load(k) => stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, k),
            Ins::JumpEq(k, t, f) => {
                let mut s = stmt(libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K, k);
                s.jt = target(t, at);
                s.jf = target(f, at);
                s
            }
            #[cfg(target_arch = "x86_64")]
            Ins::JumpGe(k, t, f) => {
                let mut s = stmt(libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K, k);
                s.jt = target(t, at);
                s.jf = target(f, at);
                s
            }
        });
    }
    let ret = |k: u32| stmt(libc::BPF_RET | libc::BPF_K, k);
    prog.push(ret(libc::SECCOMP_RET_ALLOW));
    prog.push(ret(libc::SECCOMP_RET_ERRNO | libc::EACCES as u32));
    prog.push(ret(libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32));
    prog.push(ret(libc::SECCOMP_RET_KILL_PROCESS));
    Some(prog)
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(super) fn program() -> Option<Vec<libc::sock_filter>> {
    None
}

#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod tests {
    #[test]
    fn every_jump_lands_inside_the_program() {
        let prog = super::program().unwrap_or_default();
        assert!(prog.len() > 8);
        for (i, ins) in prog.iter().enumerate() {
            if ins.code as u32 & 0x07 == libc::BPF_JMP {
                assert!(i + 1 + (ins.jt as usize) < prog.len());
                assert!(i + 1 + (ins.jf as usize) < prog.len());
            }
        }
        let last = prog.len() - 4;
        assert_eq!(prog[last].k, libc::SECCOMP_RET_ALLOW);
    }
}
