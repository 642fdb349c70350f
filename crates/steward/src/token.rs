//! The API bearer token: `STEWARD_API_TOKEN` when set, else one generated on first start,
//! stored in the data directory (mode 0600) and printed once.

use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const TOKEN_FILE: &str = "api_token";

pub enum TokenOrigin {
    Configured,
    Stored(PathBuf),
    Generated(PathBuf),
}

pub fn resolve(configured: Option<&str>, data_dir: &Path) -> anyhow::Result<(String, TokenOrigin)> {
    if let Some(t) = configured {
        return Ok((t.to_owned(), TokenOrigin::Configured));
    }
    let path = data_dir.join(TOKEN_FILE);
    match std::fs::read_to_string(&path) {
        Ok(s) if s.trim().len() >= 16 => {
            return Ok((s.trim().to_owned(), TokenOrigin::Stored(path)));
        }
        Ok(_) => anyhow::bail!(
            "the stored API token in {} is too short; delete the file to generate a new one",
            path.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no secure random source: {e}"))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    write_private(&path, &token).with_context(|| format!("cannot write {}", path.display()))?;
    Ok((token, TokenOrigin::Generated(path)))
}

fn write_private(path: &Path, token: &str) -> std::io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path)?;
    f.write_all(token.as_bytes())?;
    f.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generates_once_then_reuses() {
        let dir = std::env::temp_dir().join(format!("steward-token-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (t1, o1) = resolve(None, &dir).unwrap();
        assert!(matches!(o1, TokenOrigin::Generated(_)));
        assert_eq!(t1.len(), 64);
        let (t2, o2) = resolve(None, &dir).unwrap();
        assert!(matches!(o2, TokenOrigin::Stored(_)));
        assert_eq!(t1, t2);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(TOKEN_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "token file must not be readable by others");
        }
        let (t3, o3) = resolve(Some("configured-token-123456"), &dir).unwrap();
        assert!(matches!(o3, TokenOrigin::Configured));
        assert_eq!(t3, "configured-token-123456");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
