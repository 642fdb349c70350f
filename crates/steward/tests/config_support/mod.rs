//! Shared helpers for the config tests: fresh temp dirs, files, injected env maps.
//! Not every test binary uses every helper.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use steward::config::{ConfigError, LoadedConfig, load_with_cwd};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh, empty directory under the system temp dir.
pub fn temp_dir() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!(
        "steward-config-test-{}-{nanos}-{n}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, text).unwrap();
    p
}

/// An env with HOME pointing into `home` (so the default data dir is isolated) plus `vars`.
pub fn env_of(home: &Path, vars: &[(&str, &str)]) -> HashMap<String, String> {
    let mut m: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    m.entry("HOME".into())
        .or_insert_with(|| home.to_string_lossy().into_owned());
    m
}

pub fn load_in(
    cwd: &Path,
    explicit: Option<&Path>,
    env: &HashMap<String, String>,
) -> Result<LoadedConfig, ConfigError> {
    load_with_cwd(explicit, cwd, &|k: &str| env.get(k).cloned())
}
