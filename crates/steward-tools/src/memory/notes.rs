//! `save_note` (a titled note with tags) and `read_later` (a link to come back to): both
//! written with the assistant's provenance, since the model chose what to write.
//! Does not own note storage or search (see `recall`).

use super::render::one_line;
use super::{
    MAX_BODY_CHARS, MAX_TITLE_CHARS, MAX_URL_LEN, Shared, memory_error, tags_arg, tags_schema,
    written_by_model,
};
use crate::args::{opt_str_arg, str_arg};
use crate::{OutputTrust, Reach, Tool, ToolContext, ToolError};
use serde_json::{Value, json};
use steward_protocol::Effect;
use steward_store::NewNote;

fn non_empty<'a>(args: &'a Value, name: &str) -> Result<&'a str, ToolError> {
    let text = str_arg(args, name)?.trim();
    if text.is_empty() {
        return Err(ToolError::InvalidArguments(format!(
            "argument `{name}` is empty"
        )));
    }
    Ok(text)
}

pub struct SaveNote(pub(crate) Shared);

#[async_trait::async_trait]
impl Tool for SaveNote {
    fn name(&self) -> &str {
        "save_note"
    }

    fn description(&self) -> &str {
        "Save a note for the user with a title, a body and optional tags."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1, "maxLength": MAX_TITLE_CHARS},
                "body": {"type": "string", "minLength": 1, "maxLength": MAX_BODY_CHARS},
                "tags": tags_schema()
            },
            "required": ["title", "body"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::Memory
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }

    fn reach(&self, args: &Value) -> Reach {
        note_reach(args)
    }

    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        non_empty(args, "title")?;
        non_empty(args, "body")?;
        tags_arg(args)?;
        Ok(())
    }

    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let note = NewNote {
            title: non_empty(&args, "title")?.to_owned(),
            body: non_empty(&args, "body")?.to_owned(),
            tags: tags_arg(&args)?,
            provenance: written_by_model(ctx),
        };
        let note = self
            .0
            .memory
            .save_note(ctx.principal.as_str(), note)
            .await
            .map_err(|e| memory_error(self.name(), e))?;
        Ok(format!(
            "saved note {}: {}",
            note.id,
            one_line(&note.title, MAX_TITLE_CHARS)
        ))
    }
}

pub struct ReadLaterTool(pub(crate) Shared);

/// An http(s) URL with a host, no spaces or control characters, within the length cap.
pub(crate) fn check_url(url: &str) -> Result<(), ToolError> {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return Err(ToolError::InvalidArguments(
            "argument `url` must start with http:// or https://".to_owned(),
        ));
    };
    if url.len() > MAX_URL_LEN {
        return Err(ToolError::InvalidArguments(format!(
            "argument `url` is longer than {MAX_URL_LEN} bytes"
        )));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(ToolError::InvalidArguments(
            "argument `url` must not contain spaces or control characters".to_owned(),
        ));
    }
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.is_empty() {
        return Err(ToolError::InvalidArguments(
            "argument `url` has no host".to_owned(),
        ));
    }
    Ok(())
}

#[async_trait::async_trait]
impl Tool for ReadLaterTool {
    fn name(&self) -> &str {
        "read_later"
    }

    fn description(&self) -> &str {
        "Save a link for the user to read later, with an optional title and tags."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "url": {"type": "string", "minLength": 1, "maxLength": MAX_URL_LEN},
                "title": {"type": "string", "maxLength": MAX_TITLE_CHARS},
                "tags": tags_schema()
            },
            "required": ["url"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::Memory
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }

    fn reach(&self, args: &Value) -> Reach {
        let url = args.get("url").and_then(Value::as_str).unwrap_or("").trim();
        let title = args.get("title").and_then(Value::as_str).unwrap_or("");
        Reach {
            // The link is what gets remembered; it is not fetched.
            remembers: vec![format!("{url} {title}").trim().to_owned()],
            summary: Some(format!("read later: {}", one_line(url, 160))),
            ..Reach::default()
        }
    }

    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        check_url(str_arg(args, "url")?.trim())?;
        tags_arg(args)?;
        Ok(())
    }

    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let url = str_arg(&args, "url")?.trim();
        check_url(url)?;
        let title = opt_str_arg(&args, "title").map(str::trim).unwrap_or("");
        let item = self
            .0
            .memory
            .read_later(ctx.principal.as_str(), url, title, tags_arg(&args)?)
            .await
            .map_err(|e| memory_error(self.name(), e))?;
        Ok(format!(
            "saved for later {}: {}",
            item.id,
            one_line(&item.url, 120)
        ))
    }
}

/// What writing a note (`title`, `body`) touches: the text it remembers, for the taint rule,
/// and its one-line summary. Every note-writing tool declares this (the agent's `save_note`,
/// the MCP server's `steward_save_note`).
pub fn note_reach(args: &Value) -> Reach {
    let title = args.get("title").and_then(Value::as_str).unwrap_or("");
    let body = args.get("body").and_then(Value::as_str).unwrap_or("");
    Reach {
        remembers: vec![format!("{title}\n{body}")],
        summary: Some(format!("note: {}", one_line(title, 120))),
        ..Reach::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked() {
        for good in [
            "https://example.com",
            "HTTP://a.b/c?d#e",
            "https://h:8080/x",
        ] {
            assert!(check_url(good).is_ok(), "{good}");
        }
        for bad in [
            "javascript:alert(1)",
            "ftp://x.y",
            "https://",
            "https:///path",
            "https://a b",
            "https://a\nb",
            "example.com",
            "é",
        ] {
            assert!(check_url(bad).is_err(), "{bad:?}");
        }
        let long = format!("https://e.com/{}", "a".repeat(MAX_URL_LEN));
        assert!(check_url(&long).is_err());
    }
}
