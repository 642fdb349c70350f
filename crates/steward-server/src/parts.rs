//! Message parts arriving over HTTP: base64 in JSON, turned into `Upload`s with every rule
//! applied before anything is decoded at size — the part's decoded size read off its base64
//! length first (413 past the limits, so an oversized part is never decoded, let alone
//! stored), then the media type, the name, the base64 itself and a claimed hash (400).
//!
//! Owns: the JSON shape of a part on the Steward API, the error statuses, and the body limit
//! a route that takes parts needs. Does not own the rules (`steward_protocol` parts) or
//! storing the bytes (the assistant does, after the model check).

use crate::error::ApiError;
use base64::Engine as _;
use serde::Deserialize;
use steward_protocol::{BlobRef, FileName, MimeType, PartError, PartKind, PartLimits, Upload};

/// Room in a body for one part's JSON besides its data (field names, type, name, hash).
const PART_JSON_OVERHEAD: usize = 1024;

/// One part in a `POST /api/v1/messages` body: an image, a sound or a file, base64 in the JSON.
#[derive(Deserialize, utoipa::ToSchema)]
pub(crate) struct PartRequest {
    /// `image`, `audio` or `file`; optional, but when given it must be the media type's.
    #[serde(default)]
    kind: Option<String>,
    mime_type: String,
    #[serde(default)]
    name: Option<String>,
    /// The bytes, standard base64 with padding.
    data_base64: String,
    /// The sender's SHA-256 of the bytes (`sha256:<hex>` or bare hex); checked when given.
    #[serde(default)]
    sha256: Option<String>,
}

impl PartRequest {
    /// A part from another surface's shape (the OpenAI endpoint's content parts).
    pub(crate) fn new(mime_type: &str, name: Option<&str>, data_base64: &str) -> Self {
        PartRequest {
            kind: None,
            mime_type: mime_type.to_owned(),
            name: name.map(str::to_owned),
            data_base64: data_base64.to_owned(),
            sha256: None,
        }
    }

    /// The length of this part's data in the body (what the body limit allows for parts).
    pub(crate) fn encoded_len(&self) -> usize {
        self.data_base64.len()
    }
}

/// Parse the JSON body of a route taking parts. Such a route reads bodies past
/// `max_body_bytes` (room for parts' data); one that does not even parse is refused as too
/// large rather than malformed, as it would have been without parts.
pub(crate) fn parse_with_parts<T: serde::de::DeserializeOwned>(
    headers: &axum::http::HeaderMap,
    bytes: axum::body::Bytes,
    max_body_bytes: usize,
) -> Result<T, ApiError> {
    let len = bytes.len();
    crate::body::parse_json(headers, Ok(bytes)).map_err(|e| {
        if len > max_body_bytes {
            too_large_body()
        } else {
            e
        }
    })
}

/// The refusal of a body whose non-part bytes are past the body limit.
pub(crate) fn too_large_body() -> ApiError {
    ApiError::too_large("request body is larger than the configured limit")
}

/// The largest body a route taking parts must accept: `max_body_bytes` for everything else,
/// plus every part at its limit in base64.
pub(crate) fn body_limit(max_body_bytes: usize, limits: &PartLimits) -> usize {
    let parts = usize::try_from(limits.max_message_bytes.div_ceil(3).saturating_mul(4))
        .unwrap_or(usize::MAX);
    max_body_bytes
        .saturating_add(parts)
        .saturating_add(limits.max_parts.saturating_mul(PART_JSON_OVERHEAD))
}

/// `data:<mime>;base64,<data>` split into (mime, data); None for anything else (a remote
/// URL included: Steward never fetches a part for the model).
pub(crate) fn split_data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (mime, data) = rest.split_once(',')?;
    let mime = mime.strip_suffix(";base64")?;
    Some((mime, data))
}

/// The decoded size of standard, padded base64, from its length and padding alone; None
/// when the length cannot be such base64 (it is then refused as malformed).
fn decoded_len(b64: &str) -> Option<u64> {
    let len = b64.len();
    if !len.is_multiple_of(4) {
        return None;
    }
    let pad = b64.bytes().rev().take(2).filter(|&b| b == b'=').count();
    u64::try_from(len / 4 * 3 - pad).ok()
}

fn refusal(e: PartError, at: Option<usize>) -> ApiError {
    let msg = match at {
        Some(i) => format!("attachments[{i}]: {e}"),
        None => e.to_string(),
    };
    if e.is_too_large() {
        ApiError::too_large(msg)
    } else {
        ApiError::bad_request(msg)
    }
}

/// The parts as uploads, or the first refusal: sizes first (413), then shape (400).
pub(crate) fn uploads(
    parts: Vec<PartRequest>,
    limits: &PartLimits,
) -> Result<Vec<Upload>, ApiError> {
    let mut sizes = Vec::with_capacity(parts.len());
    for (i, p) in parts.iter().enumerate() {
        let size =
            decoded_len(&p.data_base64).ok_or_else(|| refusal(PartError::BadBase64, Some(i)))?;
        sizes.push(size);
    }
    limits.check(sizes).map_err(|e| refusal(e, None))?;
    parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| upload(p).map_err(|e| refusal(e, Some(i))))
        .collect()
}

fn upload(p: PartRequest) -> Result<Upload, PartError> {
    let mime = MimeType::parse(&p.mime_type)?;
    if let Some(kind) = &p.kind {
        let kind = PartKind::parse(kind)?;
        if kind != mime.kind() {
            return Err(PartError::KindMismatch {
                kind,
                mime_type: mime,
            });
        }
    }
    let name = p.name.as_deref().map(FileName::parse).transpose()?;
    let data = base64::engine::general_purpose::STANDARD
        .decode(p.data_base64.as_bytes())
        .map_err(|_| PartError::BadBase64)?;
    match &p.sha256 {
        None => Upload::new(mime, name, data),
        Some(claim) => {
            let claim = if claim.starts_with("sha256:") {
                BlobRef::parse(claim)?
            } else {
                BlobRef::parse(&format!("sha256:{claim}"))?
            };
            Upload::verified(mime, name, data, &claim)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoded_length_is_read_off_the_base64() {
        for data in [&b""[..], b"a", b"ab", b"abc", b"abcd", &[0u8; 1000]] {
            let b64 = base64::engine::general_purpose::STANDARD.encode(data);
            assert_eq!(decoded_len(&b64), Some(data.len() as u64), "{b64}");
        }
        assert_eq!(decoded_len("abc"), None);
    }

    #[test]
    fn data_urls_split_and_other_urls_do_not() {
        assert_eq!(
            split_data_url("data:image/png;base64,AAAA"),
            Some(("image/png", "AAAA"))
        );
        for other in [
            "https://example.com/cat.png",
            "data:image/png,AAAA",
            "data:image/png;base64",
            "file:///etc/passwd",
        ] {
            assert_eq!(split_data_url(other), None, "{other}");
        }
    }

    #[test]
    fn the_body_limit_makes_room_for_every_part_in_base64() {
        let limits = PartLimits {
            max_part_bytes: 30,
            max_message_bytes: 30,
            max_parts: 2,
        };
        assert_eq!(body_limit(100, &limits), 100 + 40 + 2 * PART_JSON_OVERHEAD);
    }
}
