//! A small `multipart/form-data` reader (RFC 7578) for the fakes that take uploads: the Bot
//! API's `sendVoice` / `sendPhoto` and the speech-to-text route. It reads what HTTP clients
//! write — a boundary from the `Content-Type`, CRLF line ends, `Content-Disposition` with
//! `name` and an optional `filename`, an optional part `Content-Type` — and refuses anything
//! else (a missing boundary, a part without a name, a body that never closes).
//!
//! Owns: the parsing only. Does not own: what a fake does with the parts.

/// One part of a form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormPart {
    pub name: String,
    pub filename: Option<String>,
    pub content_type: Option<String>,
    pub data: Vec<u8>,
}

impl FormPart {
    /// The part as text (a plain form field), if it is UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.data).ok()
    }
}

/// The parts of `body`, sent with `content_type`; `None` when it is not a well-formed form.
pub fn parse(content_type: &str, body: &[u8]) -> Option<Vec<FormPart>> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    let boundary = params.split(';').find_map(|p| {
        let (k, v) = p.trim().split_once('=')?;
        k.eq_ignore_ascii_case("boundary")
            .then(|| v.trim_matches('"').to_owned())
    })?;
    if boundary.is_empty() {
        return None;
    }
    let delimiter = format!("--{boundary}").into_bytes();
    let next_delimiter = format!("\r\n--{boundary}").into_bytes();
    let mut at = find(body, &delimiter, 0)? + delimiter.len();
    let mut parts = Vec::new();
    loop {
        let rest = body.get(at..)?;
        if rest.starts_with(b"--") {
            return Some(parts);
        }
        at += rest.strip_prefix(b"\r\n").map(|_| 2)?;
        let head_end = find(body, b"\r\n\r\n", at)?;
        let head = std::str::from_utf8(body.get(at..head_end)?).ok()?;
        let data_start = head_end + 4;
        let data_end = find(body, &next_delimiter, data_start)?;
        parts.push(part(head, body.get(data_start..data_end)?)?);
        at = data_end + next_delimiter.len();
    }
}

fn part(head: &str, data: &[u8]) -> Option<FormPart> {
    let mut name = None;
    let mut filename = None;
    let mut content_type = None;
    for line in head.split("\r\n") {
        let (header, value) = line.split_once(':')?;
        if header.trim().eq_ignore_ascii_case("content-disposition") {
            for param in value.split(';').skip(1) {
                let Some((k, v)) = param.trim().split_once('=') else {
                    continue;
                };
                let v = v.trim_matches('"').to_owned();
                match k.trim() {
                    "name" => name = Some(v),
                    "filename" => filename = Some(v),
                    _ => {}
                }
            }
        } else if header.trim().eq_ignore_ascii_case("content-type") {
            content_type = Some(value.trim().to_owned());
        }
    }
    Some(FormPart {
        name: name?,
        filename,
        content_type,
        data: data.to_vec(),
    })
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}
