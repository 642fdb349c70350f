//! Log output, Steward's and every dependency's (rmcp, reqwest, hyper…): one subscriber, one
//! filter rule and one redaction, applied to each formatted line before it is written. A
//! dependency logs whatever it likes (rmcp's error log quotes a failing request's URL, key
//! and all); nothing reaches stderr or a log file without passing `scrub_line`.
//!
//! Owns: the filter rule (third-party crates at WARN unless the filter names them; Steward's
//! crates at the configured level), the process-wide set of secret values to redact (filled
//! from the configuration as soon as it is loaded, see `main.rs`), and `Redacting`, the
//! `MakeWriter` wrapper any log destination must be wrapped in; and, in `recent`, the ring of
//! recent warnings and errors that `GET /api/v1/status` shows, redacted the same way. Does
//! not own what is secret (`Settings::secret_values`, `steward_protocol::secret_url`).

pub mod recent;

use crate::config::Settings;
use std::io::{self, Write};
use std::sync::RwLock;
use steward_protocol::secret_url::{REDACTED, mask_url, url_secrets};
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::fmt::MakeWriter;

/// Values never written to a log, longest first (so one containing another goes whole).
static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());
/// Shorter values are not redacted: they would redact half the alphabet.
const MIN_SECRET_LEN: usize = 4;

/// Redact these values from every log line from now on (added to what is already there).
pub fn redact(values: impl IntoIterator<Item = String>) {
    let mut set = SECRETS.write().unwrap_or_else(|p| p.into_inner());
    for v in values {
        if v.len() >= MIN_SECRET_LEN && !set.contains(&v) {
            set.push(v);
        }
    }
    set.sort_by_key(|s| std::cmp::Reverse(s.len()));
}

/// Redact everything secret in `settings`: its secret values (keys, token, MCP env and
/// header values, MCP URLs' credentials) and the credentials in every configured URL.
pub fn redact_settings(settings: &Settings) {
    let mut values = settings.secret_values();
    for p in &settings.providers {
        values.extend(url_secrets(&p.base_url));
    }
    if let Some(url) = &settings.web.search_url {
        values.extend(url_secrets(url));
    }
    redact(values);
}

/// The `EnvFilter` for a `STEWARD_LOG`-style spec (an invalid one means "info").
pub fn env_filter(spec: &str) -> tracing_subscriber::EnvFilter {
    let spec = if tracing_subscriber::EnvFilter::try_new(spec).is_ok() {
        spec
    } else {
        "info"
    };
    tracing_subscriber::EnvFilter::try_new(filter_directives(spec))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,steward=info"))
}

/// A spec's bare level (`debug`) applies to Steward's crates (every target starting with
/// `steward`); other crates get WARN, or that level if it is quieter. Directives naming a
/// target (`rmcp=debug`, `steward_core=trace`) stay as written and win, being more specific.
/// `"debug"` → `"warn,steward=debug"`; `"info,rmcp=trace"` → `"warn,steward=info,rmcp=trace"`.
pub fn filter_directives(spec: &str) -> String {
    let mut level: Option<LevelFilter> = None;
    let mut targeted = Vec::new();
    for d in spec.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        match d.parse::<LevelFilter>() {
            Ok(l) => level = Some(l),
            Err(_) => targeted.push(d),
        }
    }
    let third_party = level.map_or(LevelFilter::WARN, |l| l.min(LevelFilter::WARN));
    let mut out = vec![third_party.to_string().to_ascii_lowercase()];
    if let Some(l) = level {
        out.push(format!("steward={}", l.to_string().to_ascii_lowercase()));
    }
    out.extend(targeted.into_iter().map(str::to_owned));
    out.join(",")
}

/// `line` with every http(s) URL in it masked by the one URL rule (userinfo, query values
/// and fragment shown as `…`), then every registered secret replaced by `[redacted]`.
pub fn scrub_line(line: &str) -> String {
    let mut out = mask_urls(line);
    let set = SECRETS.read().unwrap_or_else(|p| p.into_inner());
    for s in set.iter() {
        if out.contains(s.as_str()) {
            out = out.replace(s.as_str(), REDACTED);
        }
    }
    out
}

/// Every `http://` / `https://` URL in `text` through `mask_url`. A URL ends at whitespace,
/// a quote, or a closing bracket (as in reqwest's "error sending request for url (…)").
fn mask_urls(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while let Some(found) = next_url(&lower, at) {
        let end = text[found..]
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>' | ')' | ']' | '}')
            })
            .map_or(text.len(), |n| found + n);
        out.push_str(&text[at..found]);
        out.push_str(&mask_url(&text[found..end]));
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

fn next_url(lower: &str, from: usize) -> Option<usize> {
    let rest = lower.get(from..)?;
    let http = rest.find("http://");
    let https = rest.find("https://");
    let first = match (http, https) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    Some(from + first)
}

/// A `MakeWriter` whose writers collect one event's formatted output and write it scrubbed
/// (see [`scrub_line`]) in one piece when dropped. Wrap every log destination in it.
#[derive(Clone, Copy, Debug)]
pub struct Redacting<M>(pub M);

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for Redacting<M> {
    type Writer = Scrubbed<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        Scrubbed {
            inner: self.0.make_writer(),
            buf: Vec::new(),
        }
    }

    fn make_writer_for(&'a self, meta: &tracing::Metadata<'_>) -> Self::Writer {
        Scrubbed {
            inner: self.0.make_writer_for(meta),
            buf: Vec::new(),
        }
    }
}

/// One event's output, held until drop.
pub struct Scrubbed<W: Write> {
    inner: W,
    buf: Vec<u8>,
}

impl<W: Write> Write for Scrubbed<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    /// Nothing leaves before the whole event is in: a secret split across two writes
    /// would otherwise pass unseen.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<W: Write> Drop for Scrubbed<W> {
    fn drop(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        let text = scrub_line(&String::from_utf8_lossy(&self.buf));
        // A log line that cannot be written has nowhere else to go.
        let _ = self.inner.write_all(text.as_bytes());
        let _ = self.inner.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn third_party_crates_default_to_warn() {
        assert_eq!(filter_directives("debug"), "warn,steward=debug");
        assert_eq!(filter_directives("info"), "warn,steward=info");
        assert_eq!(filter_directives("error"), "error,steward=error");
        assert_eq!(filter_directives("off"), "off,steward=off");
        assert_eq!(
            filter_directives("info, rmcp=trace,steward_core=debug"),
            "warn,steward=info,rmcp=trace,steward_core=debug"
        );
        assert_eq!(
            filter_directives("steward_mcp=debug"),
            "warn,steward_mcp=debug"
        );
        // What the filter then does with targets.
        let f = env_filter("debug").to_string();
        assert!(f.contains("steward=debug") && f.contains("warn"), "{f}");
    }

    #[test]
    fn lines_lose_secrets_and_url_credentials() {
        redact(["sk-logging-canary-77".to_owned(), "abc".to_owned()]);
        let line = "key sk-logging-canary-77 in error sending request for url (http://127.0.0.1:9/mcp?api_key=other-value-1&x=2) abc";
        assert_eq!(
            scrub_line(line),
            "key [redacted] in error sending request for url (http://127.0.0.1:9/mcp?api_key=…&x=…) abc"
        );
        // (A URL runs to whitespace, so the comma goes with the masked fragment.)
        assert_eq!(
            scrub_line("to HTTPS://u:pw@h.example/p#frag, done"),
            "to HTTPS://…@h.example/p#… done"
        );
        // A secret the URL rule already masked is not left half-replaced.
        redact(["url-secret-4242".to_owned()]);
        assert_eq!(
            scrub_line("url: \"http://h:9/mcp?api_key=url-secret-4242\", path /x/url-secret-4242"),
            "url: \"http://h:9/mcp?api_key=…\", path /x/[redacted]"
        );
        assert_eq!(scrub_line("no urls here"), "no urls here");
    }

    #[test]
    fn the_writer_scrubs_each_event_as_a_whole() {
        redact(["split-secret-9911".to_owned()]);
        let sink = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
        struct Sink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Sink {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let make = Redacting(|| Sink(sink.clone()));
        {
            let mut w = make.make_writer();
            w.write_all(b"a split-sec").unwrap();
            w.flush().unwrap();
            w.write_all(b"ret-9911 b\n").unwrap();
        }
        assert_eq!(
            String::from_utf8_lossy(&sink.lock().unwrap()),
            "a [redacted] b\n"
        );
    }
}
