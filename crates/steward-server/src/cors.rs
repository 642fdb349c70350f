//! CORS for browser-based clients: the configured origins (`http.cors_origins`; none by
//! default, so no page on another origin can read a response) may call the API with the
//! bearer token; preflights are answered before auth, since browsers send them without it.
//!
//! Owns: the origin list's rule and the CORS layer. Does not own authentication: a browser
//! client still needs the token, CORS only lets its page read the answers.

use axum::http::{HeaderName, HeaderValue, Method};
use std::time::Duration;
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer, ExposeHeaders};

/// Origins allowed to read API responses from a browser page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CorsOrigins(Vec<String>);

impl CorsOrigins {
    /// Comma-separated origins, each `http://host[:port]` or `https://host[:port]` exactly
    /// (no path, no wildcard: `*` would hand the API to every page the owner visits).
    /// Empty means none.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut out = Vec::new();
        for raw in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            out.push(origin(raw)?);
        }
        Ok(Self(out))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn as_slice(&self) -> &[String] {
        &self.0
    }
}

fn origin(raw: &str) -> Result<String, String> {
    let bad = || {
        format!(
            "{raw:?} is not an origin: write scheme://host[:port], e.g. https://chat.example.com \
             (no path, no wildcard)"
        )
    };
    let lower = raw.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
        .ok_or_else(bad)?;
    let host_ok = !rest.is_empty()
        && rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'));
    if !host_ok || rest.starts_with(':') || rest.ends_with(':') {
        return Err(bad());
    }
    Ok(lower)
}

/// The layer, or None when no origin is configured (then no CORS header is ever sent).
pub(crate) fn layer(origins: &CorsOrigins) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    let list: Vec<HeaderValue> = origins
        .0
        .iter()
        .filter_map(|o| HeaderValue::from_str(o).ok())
        .collect();
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(list))
            .allow_methods([
                Method::GET,
                Method::POST,
                Method::PUT,
                Method::PATCH,
                Method::DELETE,
            ])
            // The SDKs send many x-stainless-* headers; the origin check is what guards.
            .allow_headers(AllowHeaders::mirror_request())
            .expose_headers(ExposeHeaders::list([
                HeaderName::from_static("x-steward-conversation"),
                HeaderName::from_static("x-should-retry"),
            ]))
            .max_age(Duration::from_secs(600)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_rule() {
        let o = CorsOrigins::parse("https://Chat.example.com, http://localhost:3000").unwrap();
        assert_eq!(
            o.as_slice(),
            ["https://chat.example.com", "http://localhost:3000"]
        );
        assert!(CorsOrigins::parse("").unwrap().is_empty());
        for bad in [
            "*",
            "chat.example.com",
            "https://chat.example.com/",
            "https://x.com/path",
            "ftp://x.com",
            "https://",
            "https://x.com:",
            "https://a b.com",
        ] {
            assert!(CorsOrigins::parse(bad).is_err(), "{bad} must be refused");
        }
    }
}
