//! The `fetch_url` tool: one URL in, the page as fenced readable text out (title, text,
//! links), within the output budget.
//!
//! Owns: the schema, argument checks and the output layout. Does not own: the guard and
//! fetching (`fetch`), page-to-text (`html`) or the fence's escaping (`fence`).

use super::fence::{self, fence};
use super::fetch::{FetchLimits, Fetched, Kind, fetch, shown_url};
use super::html::{Page, extract};
use super::resolve::Resolver;
use super::{SsrfGuard, WebConfig};
use serde_json::{Value, json};
use std::sync::Arc;
use steward_protocol::Effect;
use steward_tools::{Reach, Tool, ToolContext, ToolError, str_arg};
use url::Url;

const TAG: &str = "fetched_content";
/// Links listed at most, and the share of the output they may take.
const MAX_LINKS: usize = 30;
const MAX_LINKS_BYTES: usize = 3_000;
/// Room assumed for the fence, title, notices and links when deciding how much page text to
/// extract (the exact cut is made after escaping, in `render`).
const FRAME_BYTES: usize = 1_200;

pub struct FetchUrl {
    cfg: Arc<WebConfig>,
    guard: SsrfGuard,
    resolver: Arc<dyn Resolver>,
}

impl FetchUrl {
    pub fn new(cfg: Arc<WebConfig>, resolver: Arc<dyn Resolver>) -> FetchUrl {
        FetchUrl {
            guard: SsrfGuard::new(cfg.allow_hosts.clone()),
            cfg,
            resolver,
        }
    }

    fn limits(&self) -> FetchLimits {
        FetchLimits {
            max_bytes: self.cfg.fetch_max_bytes,
            timeout: self.cfg.fetch_timeout,
            max_redirects: self.cfg.max_redirects,
        }
    }
}

#[async_trait::async_trait]
impl Tool for FetchUrl {
    fn name(&self) -> &str {
        "fetch_url"
    }
    fn description(&self) -> &str {
        "Fetch a web page (http/https) and return its title, readable text and links. Local \
         and private addresses are refused unless the owner allowed them."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "url": {"type": "string", "minLength": 1, "maxLength": 2048,
                        "description": "absolute http:// or https:// URL"}
            },
            "required": ["url"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }
    /// The URL is the target the taint rule judges; the page's text is untrusted (the
    /// default `output_trust`).
    fn reach(&self, args: &Value) -> Reach {
        let url = args.get("url").and_then(Value::as_str).unwrap_or("").trim();
        Reach {
            urls: vec![url.to_owned()],
            summary: Some(format!("GET {}", Reach::line(url, 300))),
            ..Reach::default()
        }
    }
    /// The static half of the guard (scheme, credentials, host names, IP literals), so an
    /// obviously refused URL fails before anything runs.
    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        let raw = str_arg(args, "url")?;
        let url = Url::parse(raw.trim()).map_err(|e| {
            ToolError::InvalidArguments(format!("`url` is not a valid absolute URL: {e}"))
        })?;
        self.guard
            .check_url(&url)
            .map(|_| ())
            .map_err(|e| ToolError::Failed(e.to_string()))
    }
    async fn run(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        let raw = str_arg(&args, "url")?;
        let fetched = fetch(&self.guard, self.resolver.as_ref(), raw, self.limits())
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        Ok(render(&fetched, self.cfg.max_output_bytes))
    }
}

/// The fenced output, at most `max_bytes` long (at least the frame itself).
pub(crate) fn render(f: &Fetched, max_bytes: usize) -> String {
    let budget = max_bytes.saturating_sub(FRAME_BYTES).max(500);
    let page = match f.kind {
        Kind::Html => extract(&f.body, &f.url, budget, MAX_LINKS),
        Kind::Text => Page {
            title: None,
            text: fence::cut(&f.body, budget).to_owned(),
            links: Vec::new(),
            cut: f.body.len() > budget,
        },
    };
    // Everything is escaped before it is measured: escaping can only grow text.
    let mut head = String::new();
    if let Some(title) = &page.title {
        head.push_str(&format!("Title: {}\n", fence::neutralise(title)));
    }
    if f.redirects > 0 {
        head.push_str(&format!(
            "(reached after {} redirect{})\n",
            f.redirects,
            if f.redirects == 1 { "" } else { "s" }
        ));
    }
    let links_cap = MAX_LINKS_BYTES.min(max_bytes / 4);
    let mut links = String::new();
    for l in &page.links {
        let line = if l.text.is_empty() {
            format!("- {}\n", l.url)
        } else {
            format!("- {} — {}\n", fence::neutralise(&l.text), l.url)
        };
        if links.len() + line.len() + LINKS_HEADING.len() > links_cap {
            break;
        }
        links.push_str(&line);
    }
    if !links.is_empty() {
        links.insert_str(0, LINKS_HEADING);
    }
    let status = f.status.to_string();
    let url = shown_url_full(&f.url);
    let mime: String = f.mime.chars().take(100).collect();
    let attrs = [
        ("url", url.as_str()),
        ("type", mime.as_str()),
        ("status", status.as_str()),
    ];
    let layout = |text: &str, notes: &str| format!("{head}\n{text}\n{notes}{links}");
    let frame = fence(TAG, &attrs, &layout("", LONGEST_NOTE)).len();
    let escaped = fence::neutralise(&page.text);
    let mut text = fence::cut(&escaped, max_bytes.saturating_sub(frame)).to_owned();
    // Cutting may leave half of an "&lt;" escape; drop the fragment rather than show it.
    if let Some(amp) = text.rfind('&')
        && text.len() - amp < 4
        && !text[amp..].contains(';')
    {
        text.truncate(amp);
    }
    let notes = if f.truncated {
        LONGEST_NOTE
    } else if page.cut || text.len() < escaped.len() {
        "\n[Only the start of the page is shown.]\n"
    } else {
        ""
    };
    fence(TAG, &attrs, &layout(&text, notes))
}

const LINKS_HEADING: &str = "\nLinks:\n";
const LONGEST_NOTE: &str =
    "\n[Only the start of the page is shown (the response was larger than the download limit).]\n";

/// The final URL as fetched, bounded (query kept: it is part of the page's identity).
fn shown_url_full(url: &Url) -> String {
    let s = url.to_string();
    if s.len() <= 500 { s } else { shown_url(url) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetched(kind: Kind, body: String, truncated: bool) -> Fetched {
        Fetched {
            url: Url::parse("https://example.com/a?b=c").unwrap(),
            status: 200,
            mime: "text/html".to_owned(),
            kind,
            body,
            truncated,
            redirects: 2,
        }
    }

    #[test]
    fn output_never_exceeds_the_budget_and_always_closes() {
        let angles = "<".repeat(50_000);
        let hostile = format!(
            "<title>{}</title>{}",
            "&lt;".repeat(400),
            (0..500)
                .map(|i| format!("<p>&lt;&lt;&lt; {i}</p><a href='/{i}'>&lt;&lt;&lt;&lt;</a>"))
                .collect::<String>()
        );
        for max in [2_000, 6_000, 14_000] {
            for (kind, body) in [
                (Kind::Text, angles.clone()),
                (Kind::Html, hostile.clone()),
                (Kind::Html, "plain words ".repeat(10_000)),
                (Kind::Text, "é".repeat(20_000)),
            ] {
                for truncated in [false, true] {
                    let out = render(&fetched(kind, body.clone(), truncated), max);
                    assert!(out.len() <= max, "{} > {max}", out.len());
                    assert!(out.ends_with("</fetched_content>"));
                    assert_eq!(out.matches('<').count(), 2);
                    assert!(out.contains("Only the start of the page is shown"));
                }
            }
        }
    }

    #[test]
    fn small_pages_are_whole_and_unmarked() {
        let out = render(&fetched(Kind::Text, "hello".to_owned(), false), 14_000);
        assert!(out.contains("\nhello\n"), "{out}");
        assert!(out.contains("(reached after 2 redirects)"));
        assert!(!out.contains("Only the start"));
        assert!(out.starts_with(
            "<fetched_content url=\"https://example.com/a?b=c\" type=\"text/html\" status=\"200\">"
        ));
    }
}
