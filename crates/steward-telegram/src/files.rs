//! Files to and from the Bot API: `getFile` (a file id → its path on Telegram's file server and
//! its declared size), the download from `{api_base}/file/bot<token>/<file_path>` capped at a
//! limit while it streams, and `sendVoice` as a multipart upload from memory.
//!
//! Owns: the file path rule (a plain relative path of safe segments: a path from the Bot API
//! is still input, and `..` in it must never reach a URL), the size checks on the declared
//! size and on the bytes actually read. Does not own: which limit applies, or what a file
//! becomes (`surface::media`).

use frankenstein::AsyncTelegramApi;
use frankenstein::response::MethodResponse;
use serde_json::{Value, json};

use crate::client::BotApi;
use crate::error::TelegramError;

/// Longest file path taken from `getFile`.
const MAX_FILE_PATH_BYTES: usize = 256;

/// A file on Telegram's file server: where it is and how big `getFile` says it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteFile {
    pub path: FilePath,
    /// As declared; the download checks the bytes it reads against the limit anyway.
    pub size: Option<u64>,
}

/// A file path by the rule: 1..=256 bytes of segments separated by `/`, each segment
/// non-empty, not `.` or `..`, of ASCII letters, digits, `.`, `_` and `-` only (Telegram's
/// own are like `voice/file_12.oga`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePath(String);

impl FilePath {
    pub fn parse(raw: &str) -> Result<FilePath, TelegramError> {
        let ok = !raw.is_empty()
            && raw.len() <= MAX_FILE_PATH_BYTES
            && raw.split('/').all(|seg| {
                !seg.is_empty()
                    && seg != "."
                    && seg != ".."
                    && seg
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
            });
        if ok {
            Ok(FilePath(raw.to_owned()))
        } else {
            Err(TelegramError::BadFilePath)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl BotApi {
    /// `getFile`: where `file_id`'s bytes are, and their declared size.
    pub async fn get_file(&self, file_id: &str) -> Result<RemoteFile, TelegramError> {
        let answer: MethodResponse<Value> = self
            .request("getFile", Some(json!({"file_id": file_id})))
            .await?;
        let file = answer.result;
        let path = file
            .get("file_path")
            .and_then(Value::as_str)
            .ok_or_else(|| TelegramError::Decode {
                method: "getFile".to_owned(),
                reason: "no file_path in the answer (the file may be too large to download)"
                    .to_owned(),
            })?;
        Ok(RemoteFile {
            path: FilePath::parse(path)?,
            size: file.get("file_size").and_then(Value::as_u64),
        })
    }

    /// The bytes of `file`, at most `limit` of them: refused before the request when its
    /// declared size is past the limit, then from the `Content-Length`, then cut off as soon
    /// as the bytes read pass it (a declared size can lie).
    pub async fn download(&self, file: &RemoteFile, limit: u64) -> Result<Vec<u8>, TelegramError> {
        let too_large = TelegramError::FileTooLarge { limit };
        if file.size.is_some_and(|s| s > limit) {
            return Err(too_large);
        }
        let url = format!(
            "{}/file/bot{}/{}",
            self.base,
            self.token.expose(),
            file.path.as_str()
        );
        let mut response = self
            .http
            .get(url)
            .send()
            .await
            .map_err(|e| self.transport(e))?;
        let status = response.status();
        if !status.is_success() {
            return Err(TelegramError::Status {
                method: "file download".to_owned(),
                status: status.as_u16(),
            });
        }
        if response.content_length().is_some_and(|n| n > limit) {
            return Err(too_large);
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| self.transport(e))? {
            let total = u64::try_from(bytes.len().saturating_add(chunk.len())).unwrap_or(u64::MAX);
            if total > limit {
                return Err(too_large);
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    }

    /// `sendVoice`: `audio` (Ogg/Opus) as a voice message, uploaded from memory; the new
    /// message's id.
    pub async fn send_voice(&self, chat: i64, audio: Vec<u8>) -> Result<i64, TelegramError> {
        let voice = reqwest::multipart::Part::bytes(audio)
            .file_name("answer.ogg")
            .mime_str("audio/ogg")
            .map_err(|_| TelegramError::Encode {
                method: "sendVoice".to_owned(),
            })?;
        let form = reqwest::multipart::Form::new()
            .text("chat_id", chat.to_string())
            .part("voice", voice);
        let answer: MethodResponse<Value> = self.request_multipart("sendVoice", form).await?;
        answer
            .result
            .get("message_id")
            .and_then(Value::as_i64)
            .ok_or_else(|| TelegramError::Decode {
                method: "sendVoice".to_owned(),
                reason: "no message_id in the answer".to_owned(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn telegram_paths_pass_and_escapes_do_not() {
        for ok in [
            "voice/file_12.oga",
            "photos/file_0.jpg",
            "documents/a-b.md",
            "x",
        ] {
            assert!(FilePath::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "../secret",
            "voice/../../etc/passwd",
            "/etc/passwd",
            "voice//file",
            "voice/./file",
            "voice/file?x=1",
            "voice/file#frag",
            "voice/%2e%2e/file",
            "voice\\file",
            "voice/fi le",
            "voice/é",
            "voice/file\n",
            &"a".repeat(MAX_FILE_PATH_BYTES + 1),
        ] {
            assert_eq!(
                FilePath::parse(bad),
                Err(TelegramError::BadFilePath),
                "{bad:?}"
            );
        }
    }
}
