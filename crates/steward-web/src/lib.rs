//! steward-web: the web tools, `fetch_url` (a page as readable text, behind the SSRF guard)
//! and `web_search` (SearXNG, Brave or Tavily). Both are `Effect::Read` and fence what they
//! return as untrusted data. The only crate with the HTML tokenizer and its own TLS config.
//!
//! Owns: the tools, their configuration (`WebConfig`), the SSRF guard (`guard`, `ranges`,
//! `resolve`), guarded fetching (`fetch`), page-to-text (`html`) and the fence (`fence`).
//! Does not own: the `Tool` trait and the registry (steward-tools), whether a tool may run
//! (the approval gate), the registry's own timeout and output cap (keep `fetch_timeout` and
//! `max_output_bytes` under them), or config parsing (the binary maps its settings onto
//! `WebConfig`).

mod fence;
mod fetch;
mod fetch_tool;
mod guard;
mod html;
mod ranges;
mod resolve;
mod search;
mod tls;

pub use fetch::{FetchError, FetchLimits, Fetched, Kind, fetch, kind_of};
pub use fetch_tool::FetchUrl;
pub use guard::{AllowList, GuardError, SsrfGuard, Target};
pub use html::{Link, Page, extract as extract_html};
pub use ranges::refusal as address_refusal;
pub use resolve::{Resolver, SystemResolver, Vetted, vet};
pub use search::{SearchBackend, SearchConfig, WebSearch};

use std::sync::Arc;
use std::time::Duration;
use steward_tools::Tool;

/// Settings of both web tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebConfig {
    /// Hosts `fetch_url` may reach although their addresses are private or local.
    pub allow_hosts: AllowList,
    /// Bytes of a response body read at most (the rest is never downloaded).
    pub fetch_max_bytes: usize,
    /// Deadline of one fetch (all hops and the body) and of one search request.
    pub fetch_timeout: Duration,
    /// Redirects `fetch_url` follows at most, each re-checked by the guard.
    pub max_redirects: usize,
    /// Longest tool output in bytes, fence included; keep it under the registry's cap so
    /// the fence's close tag is never cut off.
    pub max_output_bytes: usize,
    pub search: SearchConfig,
}

impl Default for WebConfig {
    /// 4 MiB bodies, 15 s, 5 redirects, 14 000-byte outputs, no search backend.
    fn default() -> WebConfig {
        WebConfig {
            allow_hosts: AllowList::default(),
            fetch_max_bytes: 4 * 1024 * 1024,
            fetch_timeout: Duration::from_secs(15),
            max_redirects: 5,
            max_output_bytes: 14_000,
            search: SearchConfig::default(),
        }
    }
}

/// `[fetch_url, web_search]` resolving names with the system resolver.
pub fn web_tools(cfg: WebConfig) -> Vec<Arc<dyn Tool>> {
    web_tools_with_resolver(cfg, Arc::new(SystemResolver))
}

/// `[fetch_url, web_search]` with an injected resolver (tests answer names themselves).
pub fn web_tools_with_resolver(cfg: WebConfig, resolver: Arc<dyn Resolver>) -> Vec<Arc<dyn Tool>> {
    let cfg = Arc::new(cfg);
    vec![
        Arc::new(FetchUrl::new(Arc::clone(&cfg), resolver)),
        Arc::new(WebSearch::new(cfg)),
    ]
}
