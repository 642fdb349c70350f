//! Parsing one `SKILL.md`: YAML-ish front matter between `---` lines (`name`,
//! `description`, optional `tools` / `allowed-tools`; other keys ignored) followed by the
//! instructions as markdown. Deliberately a small line parser, not YAML: the format is
//! three keys, and a full YAML parser would accept far more than we can explain in errors.
//!
//! Owns the rules for names, descriptions and tool lists and their error wording. Does not
//! own reading files (size, encoding, symlinks: see `mod.rs`).

/// Longest description, in chars (it is sent to the model on every call).
pub const MAX_DESCRIPTION_CHARS: usize = 200;
/// Longest skill name: `[a-z0-9][a-z0-9_-]{0,63}`.
pub const MAX_NAME_LEN: usize = 64;
/// Tools one skill may list.
pub const MAX_TOOLS: usize = 16;

/// A parsed skill, before it knows its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub name: String,
    pub description: String,
    pub tools: Vec<String>,
    pub instructions: String,
}

/// Parse the text of a SKILL.md; the error says what is wrong (the caller adds the file).
pub fn parse(text: &str) -> Result<Parsed, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Err(
            "it must start with a `---` line opening the front matter (name, description)".into(),
        );
    }
    let mut name = None;
    let mut description = None;
    let mut tools: Option<Vec<String>> = None;
    let mut in_tools_list = false;
    let mut closed = false;
    for (i, line) in lines.by_ref().enumerate() {
        let line_no = i + 2;
        let trimmed = line.trim_end();
        if trimmed == "---" {
            closed = true;
            break;
        }
        if trimmed.trim().is_empty() || trimmed.trim_start().starts_with('#') {
            continue;
        }
        if let Some(item) = trimmed.trim_start().strip_prefix("- ") {
            if !in_tools_list {
                return Err(format!(
                    "line {line_no}: a list item outside a `tools:` list"
                ));
            }
            tools
                .get_or_insert_with(Vec::new)
                .push(unquote(item).to_owned());
            continue;
        }
        if line.starts_with([' ', '\t']) {
            // Indented continuation of a multi-line value: we keep values on one line.
            return Err(format!(
                "line {line_no}: values must fit on one line (no multi-line YAML)"
            ));
        }
        in_tools_list = false;
        let Some((key, value)) = trimmed.split_once(':') else {
            return Err(format!(
                "line {line_no}: expected `key: value` in the front matter"
            ));
        };
        let value = value.trim();
        match key.trim() {
            "name" => name = Some(unquote(value).to_owned()),
            "description" => {
                if value.starts_with(['>', '|']) {
                    return Err(format!(
                        "line {line_no}: the description must fit on one line"
                    ));
                }
                description = Some(unquote(value).to_owned());
            }
            "tools" | "allowed-tools" => {
                if value.is_empty() {
                    in_tools_list = true;
                    tools.get_or_insert_with(Vec::new);
                } else {
                    tools = Some(inline_list(value));
                }
            }
            // Other keys (license, metadata, ...) are allowed and ignored.
            _ => {}
        }
    }
    if !closed {
        return Err("the front matter is not closed by a `---` line".into());
    }
    let name = name.ok_or("the front matter has no `name:`")?;
    check_name(&name)?;
    let description = description.ok_or("the front matter has no `description:`")?;
    check_description(&description)?;
    let tools = tools.unwrap_or_default();
    check_tools(&tools)?;
    let instructions = lines.collect::<Vec<_>>().join("\n").trim().to_owned();
    if instructions.is_empty() {
        return Err("there are no instructions after the front matter".into());
    }
    Ok(Parsed {
        name,
        description,
        tools,
        instructions,
    })
}

/// `[a-z0-9][a-z0-9_-]{0,63}`: no dots or slashes, so a name can never act as a path.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = (1..=MAX_NAME_LEN).contains(&name.len())
        && name.bytes().enumerate().all(|(i, b)| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || (i > 0 && (b == b'_' || b == b'-'))
        });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "the name `{}` must be 1 to {MAX_NAME_LEN} of a-z, 0-9, `-`, `_` (starting with a letter or digit)",
            crate::schema::echo(name)
        ))
    }
}

fn check_description(description: &str) -> Result<(), String> {
    if description.trim().is_empty() {
        return Err("the description is empty".into());
    }
    let chars = description.chars().count();
    if chars > MAX_DESCRIPTION_CHARS {
        return Err(format!(
            "the description is {chars} characters; the limit is {MAX_DESCRIPTION_CHARS} (it is sent on every call)"
        ));
    }
    if description.chars().any(char::is_control) {
        return Err("the description contains control characters".into());
    }
    Ok(())
}

fn check_tools(tools: &[String]) -> Result<(), String> {
    if tools.len() > MAX_TOOLS {
        return Err(format!(
            "it lists {} tools; the limit is {MAX_TOOLS}",
            tools.len()
        ));
    }
    for tool in tools {
        if let Err(e) = steward_protocol::ToolName::parse(tool) {
            return Err(format!(
                "`tools` lists `{}`, which is not a tool name ({e})",
                crate::schema::echo(tool)
            ));
        }
    }
    Ok(())
}

/// `[a, b]`, `a, b` or `a b`.
fn inline_list(value: &str) -> Vec<String> {
    let inner = value
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .unwrap_or(value);
    inner
        .split([',', ' '])
        .map(unquote)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

fn unquote(value: &str) -> &str {
    let v = value.trim();
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|x| x.strip_suffix(q)) {
            return inner;
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_keys_and_the_body() {
        let p = parse(
            "---\nname: weekly-review\ndescription: \"Review the week: notes, reminders.\"\nlicense: MIT\ntools: [recall, 'db_query']\n---\n\n# Steps\n1. Recall.\n",
        )
        .unwrap();
        assert_eq!(p.name, "weekly-review");
        assert_eq!(p.description, "Review the week: notes, reminders.");
        assert_eq!(p.tools, ["recall", "db_query"]);
        assert_eq!(p.instructions, "# Steps\n1. Recall.");
    }

    #[test]
    fn tool_lists_in_block_form_and_crlf() {
        let p = parse("\u{feff}---\r\nname: a\r\ndescription: d\r\nallowed-tools:\r\n  - x_1\r\n  - y\r\n---\r\nbody\r\n")
            .unwrap();
        assert_eq!(p.tools, ["x_1", "y"]);
        assert_eq!(p.instructions, "body");
    }

    #[test]
    fn each_defect_is_named() {
        let cases = [
            (
                "no front matter",
                "# Just markdown",
                "must start with a `---`",
            ),
            ("unclosed", "---\nname: a\ndescription: d\n", "not closed"),
            ("no name", "---\ndescription: d\n---\nx", "no `name:`"),
            (
                "no description",
                "---\nname: a\n---\nx",
                "no `description:`",
            ),
            (
                "empty description",
                "---\nname: a\ndescription: \n---\nx",
                "description is empty",
            ),
            (
                "bad name",
                "---\nname: ../etc\ndescription: d\n---\nx",
                "the name `../etc`",
            ),
            (
                "upper name",
                "---\nname: Weekly\ndescription: d\n---\nx",
                "the name `Weekly`",
            ),
            (
                "dash first",
                "---\nname: -a\ndescription: d\n---\nx",
                "the name `-a`",
            ),
            (
                "folded",
                "---\nname: a\ndescription: >\n  long\n---\nx",
                "one line",
            ),
            (
                "no body",
                "---\nname: a\ndescription: d\n---\n  \n",
                "no instructions",
            ),
            (
                "bad tool",
                "---\nname: a\ndescription: d\ntools: [rm -rf]\n---\nx",
                "`-rf`",
            ),
            (
                "stray item",
                "---\nname: a\n- x\ndescription: d\n---\nx",
                "line 3",
            ),
            (
                "not key value",
                "---\nname: a\njunk\n---\nx",
                "line 3: expected `key: value`",
            ),
        ];
        for (what, text, expected) in cases {
            let err = parse(text).unwrap_err();
            assert!(err.contains(expected), "{what}: {err}");
        }
        let long_name = format!("---\nname: {}\ndescription: d\n---\nx", "a".repeat(65));
        assert!(parse(&long_name).unwrap_err().contains("must be 1 to 64"));
        let long_desc = format!("---\nname: a\ndescription: {}\n---\nx", "d".repeat(201));
        assert!(parse(&long_desc).unwrap_err().contains("201 characters"));
        let many = (0..17)
            .map(|i| format!("t{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let many_tools = format!("---\nname: a\ndescription: d\ntools: {many}\n---\nx");
        assert!(parse(&many_tools).unwrap_err().contains("lists 17 tools"));
    }
}
