//! The sandbox's Landlock ruleset, built in the parent (it opens files and allocates) and
//! applied by the child with one `landlock_restrict_self` call.
//!
//! Granted: read + execute under the system program directories (`/usr`, `/bin`, `/lib*`,
//! `/sbin`), a handful of `/etc` files programs need to start, the Python interpreter's
//! own prefix when it lives elsewhere, `/dev/null` and friends, and (added by the child,
//! see `workdir_access`) everything inside its tmpfs work directory. Denied: everything else — home directories, Steward's data directory,
//! all of `/proc` (so no other process's environment), `/tmp`, `/run`; TCP bind and
//! connect (ABI ≥ 4); signals to and abstract sockets of processes outside the sandbox
//! (ABI ≥ 6).
//!
//! Owns: the rule list and the ABI probe. Does not own: applying it (`child`).

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, path_beneath_rules,
};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

/// The newest ABI this code knows about; older kernels get what they support (best
/// effort), and `abi_version` reports what that was.
const TARGET: ABI = ABI::V9;

/// Read + execute.
const SYSTEM_DIRS: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];
/// Files and directories under /etc that the dynamic loader, libc, the shells and Python
/// read at start. Nothing with secrets in it.
const ETC: &[&str] = &[
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "passwd",
    "group",
    "nsswitch.conf",
    "hosts",
    "host.conf",
    "mime.types",
    "alternatives",
    "inputrc",
];
/// Read + write (`/dev/null` is opened with O_TRUNC by `> /dev/null`).
const DEV_RW: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];
const DEV_RO: &[&str] = &["/dev/urandom", "/dev/random"];

/// The kernel's Landlock ABI version; 0 or less means no Landlock.
#[allow(unsafe_code)] // a raw syscall: the landlock crate does not expose the version query
pub(super) fn abi_version() -> i64 {
    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    // SAFETY: with a NULL attribute and the VERSION flag, landlock_create_ruleset only
    // returns a number; it reads and writes no memory.
    unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    }
}

/// Directories to grant read + execute besides the system ones: the prefix of an
/// interpreter installed outside them (e.g. `/opt/python3.12` for `/opt/python3.12/bin/python3`).
pub(super) fn interpreter_prefix(interpreter: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(interpreter).ok()?;
    if SYSTEM_DIRS.iter().any(|d| real.starts_with(d)) {
        return None;
    }
    real.parent()?.parent().map(Path::to_path_buf)
}

/// The rights the child grants itself on its tmpfs work directory: every file-system right
/// the ruleset handles. The child adds that rule itself, after mounting the tmpfs,
/// because a rule on the mount point would not apply (Landlock skips a mount point that a
/// mount hides and resumes at its parent, which would grant the parent directory too).
pub(super) fn workdir_access() -> u64 {
    let kernel = i32::try_from(abi_version()).unwrap_or(0);
    let effective = ABI::from(kernel).min(TARGET);
    AccessFs::from_all(effective).bits()
}

/// The ruleset for one run. Errors are phrased for `steward doctor` and the model.
pub(super) fn ruleset(extra_read: &[PathBuf]) -> Result<OwnedFd, String> {
    let fail = |e: landlock::RulesetError| format!("Landlock: {e}");
    let mut etc: Vec<PathBuf> = ETC.iter().map(|f| Path::new("/etc").join(f)).collect();
    // Debian's Python reads /etc/python3.X/sitecustomize.py.
    if let Ok(entries) = std::fs::read_dir("/etc") {
        etc.extend(
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("python"))
                .map(|e| e.path()),
        );
    }
    let read = AccessFs::from_read(TARGET);
    let created = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TARGET))
        .map_err(fail)?
        .handle_access(AccessNet::from_all(TARGET))
        .map_err(fail)?
        .scope(Scope::from_all(TARGET))
        .map_err(fail)?
        .create()
        .map_err(fail)?
        .add_rules(path_beneath_rules(SYSTEM_DIRS, read))
        .map_err(fail)?
        .add_rules(path_beneath_rules(&etc, read))
        .map_err(fail)?
        .add_rules(path_beneath_rules(extra_read, read))
        .map_err(fail)?
        .add_rules(path_beneath_rules(DEV_RW, AccessFs::from_file(TARGET)))
        .map_err(fail)?
        .add_rules(path_beneath_rules(DEV_RO, AccessFs::ReadFile))
        .map_err(fail)?;
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| "the kernel does not enforce Landlock".to_owned())
}
