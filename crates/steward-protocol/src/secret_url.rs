//! Credentials riding in a URL (`http://user:pw@host/v1?api-key=…`): the one rule that masks
//! them wherever a configured URL is shown (`config show`, `doctor`, `Debug`, logs, errors,
//! MCP listings) and the pieces to scrub from text that may echo the URL (a provider's error
//! body, a transport error).
//!
//! Owns: which parts of a URL count as secret and how they are shown. Does not own parsing
//! or validating URLs (callers do), nor secrets that are not in the URL (API keys in headers:
//! each client redacts its own).
//!
//! Rule, failing closed: the whole userinfo (a user name alone can be the key) and the value
//! of every query parameter, whatever its name (`api-key`, `Token`, `access_token`, `sig`…
//! — no list of names can be complete), plus a bare parameter and the fragment. Parameter
//! names, scheme, host, port and path stay visible.

/// What replaces a secret part in a shown URL.
pub const URL_MASK: &str = "…";

/// What replaces a secret in free text.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this are not scrubbed from free text: they would redact half the
/// alphabet. [`mask_url`] still hides them in the URL itself.
const MIN_SCRUB_LEN: usize = 4;

/// The URL with its userinfo, query values and fragment replaced by [`URL_MASK`]:
/// `https://u:pw@h/v1?api-version=2&key=k#x` → `https://…@h/v1?api-version=…&key=…#…`.
pub fn mask_url(url: &str) -> String {
    let parts = Parts::split(url);
    let mut out = String::with_capacity(url.len());
    out.push_str(parts.scheme);
    if parts.userinfo.is_some() {
        out.push_str(URL_MASK);
        out.push('@');
    }
    out.push_str(parts.host);
    out.push_str(parts.path);
    if let Some(query) = parts.query {
        out.push('?');
        for (i, param) in query.split(['&', ';']).enumerate() {
            if i > 0 {
                out.push('&');
            }
            match param.split_once('=') {
                Some((name, value)) if !value.is_empty() => {
                    out.push_str(name);
                    out.push('=');
                    out.push_str(URL_MASK);
                }
                Some((name, _)) => {
                    out.push_str(name);
                    out.push('=');
                }
                // `?sk-abc123`: the bare parameter may be the key itself.
                None if !param.is_empty() => out.push_str(URL_MASK),
                None => {}
            }
        }
    }
    if parts.fragment.is_some_and(|f| !f.is_empty()) {
        out.push('#');
        out.push_str(URL_MASK);
    }
    out
}

/// Every secret part of `url` as it may appear in other text (raw and percent-decoded),
/// longest first, for [`scrub`]. Parts shorter than 4 bytes are left out.
pub fn url_secrets(url: &str) -> Vec<String> {
    let parts = Parts::split(url);
    let mut raw: Vec<&str> = Vec::new();
    if let Some(userinfo) = parts.userinfo {
        raw.push(userinfo);
        match userinfo.split_once(':') {
            Some((user, password)) => raw.extend([user, password]),
            None => raw.push(userinfo),
        }
    }
    if let Some(query) = parts.query {
        for param in query.split(['&', ';']) {
            raw.push(param.split_once('=').map_or(param, |(_, v)| v));
        }
    }
    raw.extend(parts.fragment);
    let mut out: Vec<String> = Vec::new();
    for piece in raw {
        for candidate in [piece.to_owned(), percent_decode(piece)] {
            if candidate.len() >= MIN_SCRUB_LEN && !out.contains(&candidate) {
                out.push(candidate);
            }
        }
    }
    // Longest first, so a secret that contains another is replaced whole.
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out
}

/// `text` with every one of `secrets` replaced by [`REDACTED`] (pass them longest first, as
/// [`url_secrets`] returns them).
pub fn scrub(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    for s in secrets.iter().filter(|s| !s.is_empty()) {
        if out.contains(s.as_str()) {
            out = out.replace(s.as_str(), REDACTED);
        }
    }
    out
}

/// `text` with the secrets of `url` scrubbed, and `url` itself replaced by its masked form.
pub fn scrub_url(text: &str, url: &str) -> String {
    let text = text.replace(url, &mask_url(url));
    scrub(&text, &url_secrets(url))
}

/// A URL cut at its delimiters; empty pieces where the URL has none.
struct Parts<'a> {
    /// Up to and including `://` (empty for a URL without a scheme).
    scheme: &'a str,
    userinfo: Option<&'a str>,
    host: &'a str,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

impl<'a> Parts<'a> {
    fn split(url: &'a str) -> Parts<'a> {
        let (scheme, rest) = match url.find("://") {
            Some(i) => url.split_at(i + 3),
            None => ("", url),
        };
        let (rest, fragment) = match rest.split_once('#') {
            Some((r, f)) => (r, Some(f)),
            None => (rest, None),
        };
        let (rest, query) = match rest.split_once('?') {
            Some((r, q)) => (r, Some(q)),
            None => (rest, None),
        };
        // WHATWG parsers end the authority at `\` too (for http and https).
        let (authority, path) = match rest.find(['/', '\\']) {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        let (userinfo, host) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        Parts {
            scheme,
            userinfo,
            host,
            path,
            query,
            fragment,
        }
    }
}

/// `%XX` decoded (and `+` as a space, as in form-encoded queries); invalid escapes kept.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_query_values_and_fragment_are_masked() {
        assert_eq!(
            mask_url("http://user:pw-canary@host:8080/v1?api-key=k-canary&API_KEY=x2&v=1#frag"),
            "http://…@host:8080/v1?api-key=…&API_KEY=…&v=…#…"
        );
        assert_eq!(mask_url("https://KEY123@h/"), "https://…@h/");
        assert_eq!(mask_url("https://h?sk-bare"), "https://h?…");
        assert_eq!(mask_url("https://h/v1?empty="), "https://h/v1?empty=");
        assert_eq!(
            mask_url("http://127.0.0.1:11434/v1"),
            "http://127.0.0.1:11434/v1"
        );
        // An `@` in the path is not userinfo; one in the authority is, even after a `\`.
        assert_eq!(mask_url("https://h/a@b"), "https://h/a@b");
        assert_eq!(mask_url("https://u:p@h\\x"), "https://…@h\\x");
    }

    #[test]
    fn every_spelling_of_a_key_parameter_is_masked() {
        for name in [
            "api-key",
            "api_key",
            "Api-Key",
            "apikey",
            "APIKEY",
            "key",
            "KEY",
            "token",
            "Token",
            "access_token",
            "ACCESS_TOKEN",
            "sig",
        ] {
            let url = format!("https://h/v1?a=1&{name}=s3cret-canary");
            let shown = mask_url(&url);
            assert!(!shown.contains("s3cret-canary"), "{name}: {shown}");
            assert!(shown.contains(&format!("{name}=…")), "{name}: {shown}");
        }
    }

    #[test]
    fn secrets_cover_raw_and_decoded_forms_longest_first() {
        let s = url_secrets("http://us%65r:p%40ss-word@h/v1?token=a%2Bb-tok&x=ab#fragment");
        for want in [
            "us%65r:p%40ss-word",
            "p%40ss-word",
            "p@ss-word",
            "user",
            "a+b-tok",
        ] {
            assert!(s.contains(&want.to_owned()), "{want} missing from {s:?}");
        }
        // "ab" is too short to scrub from free text.
        assert!(!s.contains(&"ab".to_owned()));
        assert!(s.windows(2).all(|w| w[0].len() >= w[1].len()), "{s:?}");
    }

    #[test]
    fn scrub_url_removes_the_url_and_echoed_parts() {
        let url = "http://user:pw-canary@h/v1?api-key=k-canary";
        let text = format!("GET {url}/chat failed; server said: bad key k-canary (pw-canary)");
        let out = scrub_url(&text, url);
        assert!(
            !out.contains("pw-canary") && !out.contains("k-canary"),
            "{out}"
        );
        assert!(out.contains("[redacted]"), "{out}");
    }

    #[test]
    fn percent_decoding_is_lenient() {
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
        assert_eq!(percent_decode("%"), "%");
    }
}
