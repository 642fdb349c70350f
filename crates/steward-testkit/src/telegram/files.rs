//! The fake Bot API's files: files a test registers (`add_file`, `add_file_as`), `getFile`
//! answering `{file_id, file_unique_id, file_size, file_path}` for them, the download route
//! `GET /file/bot<token>/<path>` (recorded, so a test can assert nothing was downloaded), and
//! multipart uploads turned into a recorded JSON body. Also the media updates tests push.
//!
//! Owns: these pieces of the fake. Does not own: the method routing (`telegram`) or the form
//! parsing (`multipart`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::{FakeBotApi, Inner, TOKEN, error, ok, user};
use crate::multipart;

/// Pieces a lying file is streamed in (no `Content-Length`, so only the bytes read tell).
const STREAM_PIECE: usize = 64 * 1024;

#[derive(Clone)]
struct FakeFile {
    path: String,
    bytes: Vec<u8>,
    /// What `getFile` says; `None` leaves `file_size` out.
    declared: Option<u64>,
}

#[derive(Default)]
pub(super) struct Files {
    by_id: HashMap<String, FakeFile>,
    downloads: Vec<String>,
}

impl FakeBotApi {
    /// Register a file `getFile` finds under `file_id` (at `files/file_<n>`, its true size
    /// declared).
    pub fn add_file(&self, file_id: &str, bytes: impl Into<Vec<u8>>) {
        let bytes = bytes.into();
        let n = self.lock().files.by_id.len();
        let declared = u64::try_from(bytes.len()).ok();
        self.add_file_as(file_id, &format!("files/file_{n}"), bytes, declared);
    }

    /// Register a file with the `file_path` and `file_size` `getFile` answers, whatever they
    /// are: a hostile path, a size that lies (the body is then streamed without a
    /// `Content-Length`), none at all.
    pub fn add_file_as(
        &self,
        file_id: &str,
        path: &str,
        bytes: impl Into<Vec<u8>>,
        declared: Option<u64>,
    ) {
        self.lock().files.by_id.insert(
            file_id.to_owned(),
            FakeFile {
                path: path.to_owned(),
                bytes: bytes.into(),
                declared,
            },
        );
    }

    /// The paths downloaded through `/file/bot<token>/…`, in order.
    pub fn downloads(&self) -> Vec<String> {
        self.lock().files.downloads.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

pub(super) fn get_file(inner: &Mutex<Inner>, body: &Value) -> Response {
    let id = body["file_id"].as_str().unwrap_or("");
    let file = inner
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .files
        .by_id
        .get(id)
        .cloned();
    let Some(file) = file else {
        return error(400, "Bad Request: invalid file_id", None);
    };
    let mut result = json!({"file_id": id, "file_unique_id": format!("u-{id}"),
        "file_path": file.path});
    if let Some(size) = file.declared {
        result["file_size"] = json!(size);
    }
    ok(result)
}

pub(super) async fn download(
    State(inner): State<Arc<Mutex<Inner>>>,
    Path((bot, path)): Path<(String, String)>,
) -> Response {
    if bot.strip_prefix("bot") != Some(TOKEN) {
        return error(401, "Unauthorized", None);
    }
    let file = {
        let mut i = inner.lock().unwrap_or_else(PoisonError::into_inner);
        i.files.downloads.push(path.clone());
        i.files.by_id.values().find(|f| f.path == path).cloned()
    };
    let Some(file) = file else {
        return error(404, "Not Found", None);
    };
    let honest = file.declared == u64::try_from(file.bytes.len()).ok();
    if honest {
        return (StatusCode::OK, file.bytes).into_response();
    }
    let pieces: Vec<Result<Vec<u8>, std::io::Error>> = file
        .bytes
        .chunks(STREAM_PIECE)
        .map(|c| Ok(c.to_vec()))
        .collect();
    Response::new(Body::from_stream(futures_util::stream::iter(pieces)))
}

/// A multipart form as the recorded call body: a text field as its text, a file (or any
/// part that is not UTF-8) as `{"filename", "content_type", "size"}`; `_parts` lists every
/// part's name and size in order.
pub(super) fn form_json(content_type: &str, body: &[u8]) -> Option<Value> {
    let parts = multipart::parse(content_type, body)?;
    let mut out = Map::new();
    let mut listed = Vec::new();
    for p in &parts {
        listed.push(json!({"name": p.name, "size": p.data.len()}));
        let value = match (p.filename.as_ref(), p.text()) {
            (None, Some(text)) => json!(text),
            _ => json!({"filename": p.filename, "content_type": p.content_type,
                "size": p.data.len()}),
        };
        out.insert(p.name.clone(), value);
    }
    out.insert("_parts".to_owned(), Value::Array(listed));
    Some(Value::Object(out))
}

fn private_message(update_id: u32, from: u64, content: Value) -> Value {
    let mut message = json!({"message_id": update_id, "date": 1_700_000_000,
        "from": user(from), "chat": {"id": from, "type": "private", "first_name": "Ann"}});
    if let (Some(m), Value::Object(extra)) = (message.as_object_mut(), content) {
        m.extend(extra);
    }
    json!({"update_id": update_id, "message": message})
}

/// A photo in the sender's private chat: Telegram's sizes of it, smallest first, each
/// `(file_id, width, file_size)`, with an optional caption.
pub fn private_photo(
    update_id: u32,
    from: u64,
    sizes: &[(&str, u32, Option<u64>)],
    caption: Option<&str>,
) -> Value {
    let sizes: Vec<Value> = sizes
        .iter()
        .map(|(id, width, size)| {
            let mut s = json!({"file_id": id, "file_unique_id": format!("u-{id}"),
                "width": width, "height": width * 3 / 4});
            if let Some(size) = size {
                s["file_size"] = json!(size);
            }
            s
        })
        .collect();
    let mut content = json!({"photo": sizes});
    if let Some(c) = caption {
        content["caption"] = json!(c);
    }
    private_message(update_id, from, content)
}

/// A voice note (Ogg/Opus) in the sender's private chat.
pub fn private_voice(update_id: u32, from: u64, file_id: &str, file_size: u64) -> Value {
    private_message(
        update_id,
        from,
        json!({"voice": {"file_id": file_id, "file_unique_id": format!("u-{file_id}"),
            "duration": 3, "mime_type": "audio/ogg", "file_size": file_size}}),
    )
}

/// A file sent as a document in the sender's private chat.
pub fn private_document(
    update_id: u32,
    from: u64,
    file_id: &str,
    file_name: &str,
    mime_type: &str,
    file_size: u64,
) -> Value {
    private_message(
        update_id,
        from,
        json!({"document": {"file_id": file_id, "file_unique_id": format!("u-{file_id}"),
            "file_name": file_name, "mime_type": mime_type, "file_size": file_size}}),
    )
}
