//! `steward vault set NAME` (the value read from standard input, never from the command line,
//! where the shell's history and `ps` would keep it), `steward vault list` (names only, and
//! whether each still opens under the key), `steward vault rm NAME`. The key comes from
//! `vault.key` (`STEWARD_VAULT_KEY`), else from the key file `vault.key` in the data directory,
//! made 0600 on first use; a key file others can read is refused, with the fix.
//!
//! Owns: the commands and finding the key. Does not own: sealing (`steward_store::vault`),
//! the rows (`VaultStore`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Subcommand;
use steward_store::VaultStore;
use steward_store::vault::{MAX_SECRET_LEN, VaultKey};

use crate::app;
use crate::config::{LoadedConfig, Settings};
use crate::memory_cmd::terminal_safe;

#[derive(Subcommand)]
pub enum VaultCommand {
    /// Keep a secret under NAME (a-z, 0-9, _, - and .): its value is read from standard input
    /// (`steward vault set openai_key < key.txt`, or typed and ended with Ctrl-D).
    Set { name: String },
    /// The secrets' names, and whether each still opens under the key; never a value.
    List,
    /// Forget the secret NAME.
    Rm { name: String },
}

/// The key file in the data directory.
pub fn key_path(settings: &Settings) -> PathBuf {
    settings.data_dir.join("vault.key")
}

/// The vault key: `vault.key`, else the key file (made 0600 when missing).
pub fn vault_key(settings: &Settings) -> anyhow::Result<VaultKey> {
    if let Some(hex) = settings.vault_key.as_deref() {
        return VaultKey::from_hex(hex).map_err(|e| anyhow::anyhow!("vault.key: {e}"));
    }
    let path = key_path(settings);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            refuse_open_to_others(&path)?;
            VaultKey::from_hex(&text)
                .map_err(|e| anyhow::anyhow!("the key file {} is damaged: {e}", path.display()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => create_key_file(&path),
        Err(e) => Err(e).with_context(|| format!("cannot read the key file {}", path.display())),
    }
}

#[cfg(unix)]
fn refuse_open_to_others(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)?.permissions().mode();
    if mode & 0o077 != 0 {
        bail!(
            "the key file {} can be read by others (mode {:o}): `chmod 600 {}`",
            path.display(),
            mode & 0o777,
            path.display()
        );
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_open_to_others(_path: &Path) -> anyhow::Result<()> {
    Ok(())
}

fn create_key_file(path: &Path) -> anyhow::Result<VaultKey> {
    use std::io::Write;
    let key = VaultKey::generate()?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .with_context(|| format!("cannot create the key file {}", path.display()))?;
    file.write_all(key.to_hex().as_bytes())?;
    file.sync_all()?;
    eprintln!(
        "Made the vault key {} (0600). Back it up: without it the secrets cannot be opened.",
        path.display()
    );
    Ok(key)
}

pub async fn run(loaded: &LoadedConfig, command: VaultCommand) -> anyhow::Result<ExitCode> {
    let settings = &loaded.settings;
    app::init_file_logging(&app::terminal_log_filter(loaded), &app::log_path(settings));
    let store = app::open_store(settings, app::clock())?;
    let now = app::clock().now_ms();
    match command {
        VaultCommand::Set { name } => {
            let mut value = Vec::new();
            std::io::stdin()
                .take(u64::try_from(MAX_SECRET_LEN + 2).unwrap_or(u64::MAX))
                .read_to_end(&mut value)
                .context("cannot read the value from standard input")?;
            // One line ending, as `echo` or a file leaves it, is not part of the secret.
            if value.ends_with(b"\n") {
                value.pop();
                if value.ends_with(b"\r") {
                    value.pop();
                }
            }
            if value.is_empty() {
                bail!(
                    "no value on standard input: `steward vault set {name} < file`, or type it and end with Ctrl-D"
                );
            }
            if value.len() > MAX_SECRET_LEN {
                bail!("a secret is at most {MAX_SECRET_LEN} bytes");
            }
            let key = vault_key(settings)?;
            let sealed = key.seal(&name, &value)?;
            store.put_sealed(&name, &sealed, now).await?;
            println!(
                "kept {} ({} bytes; the value is never shown)",
                terminal_safe(&name),
                value.len()
            );
        }
        VaultCommand::List => {
            let names = store.secret_names().await?;
            if names.is_empty() {
                println!("the vault is empty");
                return Ok(ExitCode::SUCCESS);
            }
            let key = vault_key(settings)?;
            let mut damaged = 0;
            for entry in names {
                let opens = match store.sealed(&entry.name).await {
                    Ok(Some(sealed)) => key.open(&entry.name, &sealed).is_ok(),
                    _ => false,
                };
                if !opens {
                    damaged += 1;
                }
                println!(
                    "{}  {}",
                    terminal_safe(&entry.name),
                    if opens {
                        "ok"
                    } else {
                        "does not open: changed, or sealed under another key"
                    }
                );
            }
            if damaged > 0 {
                return Ok(ExitCode::FAILURE);
            }
        }
        VaultCommand::Rm { name } => {
            if store.delete_sealed(&name).await? {
                println!("forgot {}", terminal_safe(&name));
            } else {
                bail!("no secret named {}", terminal_safe(&name));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
