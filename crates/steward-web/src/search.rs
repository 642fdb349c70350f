//! The `web_search` tool over one configured backend: SearXNG (`GET {base}/search?q=…&
//! format=json`), Brave (`GET {base}/res/v1/web/search?q=…`, `X-Subscription-Token`) or
//! Tavily (`POST {base}/search` with `api_key`, `query`, `max_results`). Results are title,
//! URL and snippet, capped in count and length, fenced as untrusted data.
//!
//! Owns: the backends' wire formats, error wording and the not-configured message. Does not
//! own: the SSRF guard (the backend URL is the owner's choice, not the model's; result URLs
//! are only text until `fetch_url` vets them).
//!
//! The API key travels only in a header marked sensitive (Brave) or the JSON body
//! (Tavily). Errors name the backend and the HTTP status, never the key, the request body
//! or the response body; as a last defence every message is scrubbed of the key.

use super::WebConfig;
use super::fence::{fence, neutralise};
use reqwest::header::{ACCEPT, HeaderValue};
use serde_json::{Value, json};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use steward_protocol::Effect;
use steward_tools::{Reach, Tool, ToolContext, ToolError, str_arg};

/// Longest response body read from a backend.
const MAX_RESPONSE_BYTES: usize = 2 * 1024 * 1024;
const MAX_TITLE: usize = 200;
const MAX_SNIPPET: usize = 400;
const MAX_URL: usize = 500;
const MAX_QUERY: usize = 400;

/// Which search service answers `web_search`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchBackend {
    #[default]
    None,
    Searxng,
    Brave,
    Tavily,
}

impl SearchBackend {
    /// The spellings used in `web.search_backend`.
    pub const NAMES: [&'static str; 4] = ["none", "searxng", "brave", "tavily"];

    pub fn parse(s: &str) -> Option<SearchBackend> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Some(SearchBackend::None),
            "searxng" => Some(SearchBackend::Searxng),
            "brave" => Some(SearchBackend::Brave),
            "tavily" => Some(SearchBackend::Tavily),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SearchBackend::None => "none",
            SearchBackend::Searxng => "searxng",
            SearchBackend::Brave => "brave",
            SearchBackend::Tavily => "tavily",
        }
    }

    /// The public API for hosted backends; SearXNG has none (it is self-hosted).
    fn default_base(self) -> Option<&'static str> {
        match self {
            SearchBackend::Brave => Some("https://api.search.brave.com"),
            SearchBackend::Tavily => Some("https://api.tavily.com"),
            SearchBackend::None | SearchBackend::Searxng => None,
        }
    }
}

/// The search backend's settings. `Debug` masks the key.
#[derive(Clone, PartialEq, Eq)]
pub struct SearchConfig {
    pub backend: SearchBackend,
    /// Base URL; None = the backend's public API (Brave, Tavily).
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    /// Results returned when the call does not ask for a number.
    pub max_results: usize,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            backend: SearchBackend::None,
            base_url: None,
            api_key: None,
            max_results: 5,
        }
    }
}

impl fmt::Debug for SearchConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SearchConfig")
            .field("backend", &self.backend)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "********"))
            .field("max_results", &self.max_results)
            .finish()
    }
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hit {
    title: String,
    url: String,
    snippet: String,
}

pub struct WebSearch {
    cfg: Arc<WebConfig>,
}

impl WebSearch {
    pub fn new(cfg: Arc<WebConfig>) -> WebSearch {
        WebSearch { cfg }
    }

    /// Why searching cannot work with this configuration, phrased as what to set.
    fn not_ready(&self) -> Option<String> {
        let s = &self.cfg.search;
        let how = "set web.search_backend (searxng, brave or tavily; env \
                   STEWARD_WEB_SEARCH_BACKEND), plus web.search_url for SearXNG or \
                   web.search_api_key (STEWARD_WEB_SEARCH_API_KEY) for Brave and Tavily";
        match s.backend {
            SearchBackend::None => Some(format!("web search is not configured: {how}")),
            SearchBackend::Searxng if s.base_url.is_none() => Some(
                "web search is not configured: the searxng backend needs web.search_url \
                 (STEWARD_WEB_SEARCH_URL), e.g. http://localhost:8888"
                    .to_owned(),
            ),
            SearchBackend::Brave | SearchBackend::Tavily
                if s.api_key.as_deref().is_none_or(str::is_empty) =>
            {
                Some(format!(
                    "web search is not configured: the {} backend needs an API key in \
                     web.search_api_key (STEWARD_WEB_SEARCH_API_KEY)",
                    s.backend.as_str()
                ))
            }
            _ => None,
        }
    }

    async fn search(&self, query: &str, count: usize) -> Result<Vec<Hit>, String> {
        let tls = super::tls::client_config()?;
        let s = &self.cfg.search;
        let name = s.backend.as_str();
        let base = s
            .base_url
            .as_deref()
            .or(s.backend.default_base())
            .unwrap_or_default()
            .trim_end_matches('/');
        let key = s.api_key.clone().unwrap_or_default();
        let client = reqwest::Client::builder()
            .timeout(self.cfg.fetch_timeout)
            .connect_timeout(self.cfg.fetch_timeout.min(Duration::from_secs(10)))
            .redirect(reqwest::redirect::Policy::none())
            .tls_backend_preconfigured(tls)
            .user_agent(concat!(
                "steward/",
                env!("CARGO_PKG_VERSION"),
                " (web_search)"
            ))
            .build()
            .map_err(|_| format!("cannot set up the {name} search client"))?;
        let bad_base = || format!("web.search_url is not a valid URL for the {name} backend");
        let request = match s.backend {
            SearchBackend::Searxng => {
                let mut url =
                    reqwest::Url::parse(&format!("{base}/search")).map_err(|_| bad_base())?;
                url.query_pairs_mut()
                    .append_pair("q", query)
                    .append_pair("format", "json");
                client.get(url)
            }
            SearchBackend::Brave => {
                let mut url = reqwest::Url::parse(&format!("{base}/res/v1/web/search"))
                    .map_err(|_| bad_base())?;
                url.query_pairs_mut()
                    .append_pair("q", query)
                    .append_pair("count", &count.to_string());
                let mut token = HeaderValue::from_str(&key).map_err(|_| {
                    "web.search_api_key contains characters not allowed in a header".to_owned()
                })?;
                token.set_sensitive(true);
                client.get(url).header("X-Subscription-Token", token)
            }
            SearchBackend::Tavily => {
                let url = reqwest::Url::parse(&format!("{base}/search")).map_err(|_| bad_base())?;
                client
                    .post(url)
                    .json(&json!({"api_key": key, "query": query, "max_results": count}))
            }
            SearchBackend::None => return Err("web search is not configured".to_owned()),
        };
        let resp = request
            .header(ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| transport(name, &e))?;
        let status = resp.status();
        if !status.is_success() {
            return Err(status_error(name, status));
        }
        let body = read_capped(resp).await.map_err(|e| transport(name, &e))?;
        let json: Value = serde_json::from_slice(&body).map_err(|_| malformed(name))?;
        let hits = parse_hits(s.backend, &json).ok_or_else(|| malformed(name))?;
        Ok(hits.into_iter().take(count).collect())
    }
}

fn malformed(name: &str) -> String {
    format!("the {name} search backend sent a response that is not the expected JSON")
}

fn status_error(name: &str, status: reqwest::StatusCode) -> String {
    let hint = match status.as_u16() {
        401 | 403 if name == "searxng" => {
            " (SearXNG answers 403 when the json format is not enabled in its settings.yml \
             under search.formats)"
        }
        401 | 403 => " (check web.search_api_key)",
        429 => " (rate limited: try again later)",
        _ => "",
    };
    format!("the {name} search backend answered HTTP {status}{hint}")
}

fn transport(name: &str, e: &reqwest::Error) -> String {
    let what = if e.is_timeout() {
        "it did not answer in time"
    } else if e.is_connect() {
        "could not connect"
    } else {
        "the request failed"
    };
    format!("cannot reach the {name} search backend: {what}")
}

async fn read_capped(mut resp: reqwest::Response) -> Result<Vec<u8>, reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_RESPONSE_BYTES {
            // Truncated JSON will not parse: reported as malformed, which it is for us.
            break;
        }
    }
    Ok(body)
}

/// The hits in each backend's JSON; None when the expected list is missing.
fn parse_hits(backend: SearchBackend, json: &Value) -> Option<Vec<Hit>> {
    let (list, snippet_key) = match backend {
        SearchBackend::Searxng => (json.get("results")?, "content"),
        SearchBackend::Brave => (json.get("web")?.get("results")?, "description"),
        SearchBackend::Tavily => (json.get("results")?, "content"),
        SearchBackend::None => return None,
    };
    let field =
        |item: &Value, k: &str| item.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    Some(
        list.as_array()?
            .iter()
            .filter_map(|item| {
                let url = field(item, "url");
                (url.starts_with("http://") || url.starts_with("https://")).then(|| Hit {
                    title: clean(&field(item, "title"), MAX_TITLE),
                    url: url.chars().take(MAX_URL).collect(),
                    snippet: clean(&field(item, snippet_key), MAX_SNIPPET),
                })
            })
            .collect(),
    )
}

/// Snippets may carry markup (Brave wraps matches in `<strong>`): drop tags, decode the
/// common entities, collapse whitespace, bound the length.
fn clean(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    let out = out
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&gt;", ">")
        .replace("&lt;", "<")
        .replace("&amp;", "&");
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() <= max {
        return out;
    }
    let mut cut: String = out.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

fn render(backend: SearchBackend, query: &str, hits: &[Hit], max_bytes: usize) -> String {
    let mut body = String::new();
    if hits.is_empty() {
        body.push_str("No results.\n");
    }
    for (i, h) in hits.iter().enumerate() {
        let entry = format!(
            "{}. {}\n   {}\n   {}\n",
            i + 1,
            neutralise(&h.title),
            h.url,
            neutralise(&h.snippet)
        );
        if body.len() + entry.len() + 600 > max_bytes {
            break;
        }
        body.push_str(&entry);
    }
    fence(
        "search_results",
        &[("query", query), ("backend", backend.as_str())],
        &body,
    )
}

#[async_trait::async_trait]
impl Tool for WebSearch {
    fn name(&self) -> &str {
        "web_search"
    }
    fn description(&self) -> &str {
        "Search the web. Returns titles, URLs and snippets; use fetch_url to read a result."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY},
                "count": {"type": "integer", "minimum": 1, "maximum": 20,
                          "description": "how many results (default 5)"}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }
    /// The query leaves for the search backend the owner configured: text sent out, which
    /// the taint rule checks for private values. Results are untrusted (the default).
    fn reach(&self, args: &Value) -> Reach {
        let query = args
            .get("query")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();
        Reach {
            sends: vec![query.to_owned()],
            summary: Some(format!("search: {}", Reach::line(query, 200))),
            ..Reach::default()
        }
    }
    async fn run(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        if let Some(message) = self.not_ready() {
            return Ok(message);
        }
        let query = str_arg(&args, "query")?.trim();
        if query.is_empty() {
            return Err(ToolError::InvalidArguments("`query` is empty".to_owned()));
        }
        let count = args
            .get("count")
            .and_then(Value::as_u64)
            .map_or(self.cfg.search.max_results, |n| n.clamp(1, 20) as usize);
        let key = self.cfg.search.api_key.clone().unwrap_or_default();
        let scrub = |msg: String| {
            if key.len() >= 4 {
                msg.replace(&key, "********")
            } else {
                msg
            }
        };
        let hits = tokio::time::timeout(self.cfg.fetch_timeout, self.search(query, count))
            .await
            .map_err(|_| {
                ToolError::Failed(format!(
                    "the {} search backend did not answer within {} s",
                    self.cfg.search.backend.as_str(),
                    self.cfg.fetch_timeout.as_secs()
                ))
            })?
            .map_err(|e| ToolError::Failed(scrub(e)))?;
        Ok(scrub(render(
            self.cfg.search.backend,
            query,
            &hits,
            self.cfg.max_output_bytes,
        )))
    }
}
