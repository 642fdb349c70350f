//! Skills: folders holding a `SKILL.md` (front matter with name, description and the tools
//! the skill may use; then instructions in markdown), loaded once at start from a directory.
//! The model sees one line per skill in the `read_skill` tool's description and reads the
//! instructions on demand.
//!
//! Loading never fails as a whole: each bad skill (missing front matter, bad or duplicate
//! name, oversized, not UTF-8, a symlink) becomes a `SkillError` naming its file, and the
//! others load. Owns reading and validating skill files and the `read_skill` tool. Does not
//! own where the directory is (config) or which tools exist (the registry).

mod parse;
mod tool;

pub use parse::{MAX_DESCRIPTION_CHARS, MAX_NAME_LEN, MAX_TOOLS};
pub use tool::READ_SKILL;
pub(crate) use tool::{read_skill_entry, read_skill_spec};

use std::io::Read;
use std::path::{Path, PathBuf};

/// The file each skill folder must hold.
pub const SKILL_FILE: &str = "SKILL.md";
/// Largest SKILL.md read (the instructions go into the model's context when read).
pub const MAX_SKILL_BYTES: u64 = 32 * 1024;
/// Skills loaded from one directory; the rest are reported as errors.
pub const MAX_SKILLS: usize = 100;

/// One loaded skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    /// One line, at most `MAX_DESCRIPTION_CHARS`.
    pub description: String,
    /// Tools the skill uses; `read_skill` loads the on-demand ones among them.
    pub tools: Vec<String>,
    pub instructions: String,
    /// The SKILL.md it came from.
    pub path: PathBuf,
}

/// Why one skill did not load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("skill {}: {message}", path.display())]
pub struct SkillError {
    pub path: PathBuf,
    pub message: String,
}

/// What loading a directory gave: the good skills (sorted by name) and every problem.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skills {
    pub skills: Vec<Skill>,
    pub errors: Vec<SkillError>,
}

/// Load every `<dir>/<folder>/SKILL.md`. A missing directory is no skills and no error
/// (the default directory need not exist); plain files and hidden entries in `dir` are
/// skipped; symlinked folders or files are refused (a skill stays inside its directory).
pub fn load_skills(dir: &Path) -> Skills {
    let mut out = Skills::default();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return out,
        Err(e) => {
            out.errors
                .push(error(dir, format!("cannot read the skills directory: {e}")));
            return out;
        }
    };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    folders.sort();
    for folder in folders {
        let Ok(meta) = std::fs::symlink_metadata(&folder) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            out.errors.push(error(
                &folder,
                "is a symlink; skills must be real folders inside the skills directory".into(),
            ));
            continue;
        }
        if !meta.is_dir() {
            continue;
        }
        let file = folder.join(SKILL_FILE);
        if out.skills.len() >= MAX_SKILLS {
            out.errors.push(error(
                &file,
                format!("not loaded: at most {MAX_SKILLS} skills are loaded"),
            ));
            continue;
        }
        match load_one(&file) {
            Ok(skill) => match out.skills.iter().find(|s| s.name == skill.name) {
                Some(first) => out.errors.push(error(
                    &file,
                    format!(
                        "the name `{}` is already used by {}",
                        skill.name,
                        first.path.display()
                    ),
                )),
                None => out.skills.push(skill),
            },
            Err(e) => out.errors.push(e),
        }
    }
    out.skills.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn load_one(file: &Path) -> Result<Skill, SkillError> {
    let meta = std::fs::symlink_metadata(file).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => error(
            file,
            format!("is missing: each skill folder needs a {SKILL_FILE}"),
        ),
        _ => error(file, format!("cannot read it: {e}")),
    })?;
    if meta.file_type().is_symlink() || !meta.is_file() {
        return Err(error(
            file,
            "must be a regular file, not a symlink or folder".into(),
        ));
    }
    let too_big = || error(file, format!("is larger than {MAX_SKILL_BYTES} bytes"));
    if meta.len() > MAX_SKILL_BYTES {
        return Err(too_big());
    }
    // Read at most one byte past the limit: the file may grow between stat and read.
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_SKILL_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| error(file, format!("cannot read it: {e}")))?;
    if bytes.len() as u64 > MAX_SKILL_BYTES {
        return Err(too_big());
    }
    let text = String::from_utf8(bytes).map_err(|_| error(file, "is not valid UTF-8".into()))?;
    let parsed = parse::parse(&text).map_err(|m| error(file, m))?;
    Ok(Skill {
        name: parsed.name,
        description: parsed.description,
        tools: parsed.tools,
        instructions: parsed.instructions,
        path: file.to_owned(),
    })
}

fn error(path: &Path, message: String) -> SkillError {
    SkillError {
        path: path.to_owned(),
        message,
    }
}
