//! A fake Bot API on loopback, speaking the wire format of the Bot API reference:
//! `POST /bot<token>/<method>` (method names case-insensitive), answers
//! `{"ok":true,"result":…}` or `{"ok":false,"error_code":…,"description":…,"parameters":…}`,
//! complete objects. `getUpdates` serves pushed updates from `offset` on (forgetting those
//! below it, as Telegram does), after any scripted failures; every call is recorded.
//! Also the update objects tests push (`private_text`, `group_text`, `reaction`, …). Files
//! (`files`): `getFile` for files a test registered, the download route
//! `GET /file/bot<token>/<path>`, and uploads (`sendVoice`, `sendPhoto`) as multipart forms,
//! recorded with each part's name and size; the media updates tests push (`private_photo`, …).
//!
//! Owns: the fake only. Does not own: any client (steward-telegram's is tested against it;
//! this file knows the wire format, not frankenstein's types).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

mod files;
pub use files::{private_document, private_photo, private_voice};

pub const TOKEN: &str = "4242:AAFakeTokenForTheTestsOnly_abcdefghij";
pub const BOT_ID: u64 = 4242;

/// One scripted answer to the next `getUpdates`.
#[derive(Debug, Clone)]
pub enum Scripted {
    /// The Bot API's error object with this HTTP status and `error_code`.
    Error {
        code: u16,
        description: &'static str,
        retry_after: Option<u64>,
    },
    /// A body that is not the Bot API's (a proxy's error page).
    Raw { status: u16, body: &'static str },
    /// The connection dies in the middle of a 200 answer's body.
    Drop,
}

#[derive(Debug, Clone)]
pub struct Call {
    pub method: String,
    pub body: Value,
}

#[derive(Default)]
struct Inner {
    script: VecDeque<Scripted>,
    /// Scripted answers to other methods, by lowercased method name, taken in order.
    method_script: std::collections::HashMap<String, VecDeque<Scripted>>,
    updates: Vec<Value>,
    calls: Vec<Call>,
    next_message_id: i64,
    files: files::Files,
}

#[derive(Clone)]
pub struct FakeBotApi {
    pub base: String,
    inner: Arc<Mutex<Inner>>,
}

impl FakeBotApi {
    pub async fn start() -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        Self::serve(listener)
    }

    /// On a given listener (a port the test chose, e.g. one that refused connections first).
    pub fn serve(listener: tokio::net::TcpListener) -> std::io::Result<Self> {
        let base = format!("http://{}", listener.local_addr()?);
        let inner = Arc::new(Mutex::new(Inner::default()));
        let app = Router::new()
            .route("/{bot}/{method}", post(handle))
            .route("/file/{bot}/{*path}", get(files::download))
            .with_state(inner.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Ok(Self { base, inner })
    }

    pub fn push_update(&self, update: Value) {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .updates
            .push(update);
    }

    pub fn script(&self, step: Scripted) {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .script
            .push_back(step);
    }

    /// A scripted answer to the next call of `method` (any case), before it answers normally.
    pub fn script_method(&self, method: &str, step: Scripted) {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .method_script
            .entry(method.to_ascii_lowercase())
            .or_default()
            .push_back(step);
    }

    /// The recorded calls of one method (lowercased name), in order.
    pub fn calls_of(&self, method: &str) -> Vec<Value> {
        let method = method.to_ascii_lowercase();
        self.calls()
            .into_iter()
            .filter(|c| c.method == method)
            .map(|c| c.body)
            .collect()
    }

    pub fn calls(&self) -> Vec<Call> {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .calls
            .clone()
    }

    /// The recorded `getUpdates` bodies, in order.
    pub fn polls(&self) -> Vec<Value> {
        self.calls()
            .into_iter()
            .filter(|c| c.method == "getupdates")
            .map(|c| c.body)
            .collect()
    }
}

fn answer(status: StatusCode, body: Value) -> Response {
    (status, axum::Json(body)).into_response()
}

fn error(code: u16, description: &str, retry_after: Option<u64>) -> Response {
    let mut body = json!({"ok": false, "error_code": code, "description": description});
    if let Some(secs) = retry_after {
        body["parameters"] = json!({"retry_after": secs});
    }
    answer(
        StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        body,
    )
}

async fn handle(
    State(inner): State<Arc<Mutex<Inner>>>,
    Path((bot, method)): Path<(String, String)>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if bot.strip_prefix("bot") != Some(TOKEN) {
        return error(401, "Unauthorized", None);
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let body: Value = if content_type.starts_with("multipart/form-data") {
        match files::form_json(content_type, &body) {
            Some(v) => v,
            None => return error(400, "Bad Request: invalid multipart form", None),
        }
    } else if body.is_empty() {
        json!({})
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(_) => return error(400, "Bad Request: invalid JSON", None),
        }
    };
    let method = method.to_ascii_lowercase();
    inner
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .calls
        .push(Call {
            method: method.clone(),
            body: body.clone(),
        });
    if method != "getupdates" {
        let step = inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .method_script
            .get_mut(&method)
            .and_then(VecDeque::pop_front);
        if let Some(step) = step {
            return scripted(step);
        }
    }
    match method.as_str() {
        "getupdates" => get_updates(&inner, &body).await,
        "getme" => answer(
            StatusCode::OK,
            json!({"ok": true, "result": {"id": BOT_ID, "is_bot": true, "first_name": "Steward",
                "username": "steward_test_bot", "can_join_groups": true,
                "can_read_all_group_messages": false, "supports_inline_queries": false}}),
        ),
        "sendmessage" | "sendphoto" | "sendvoice" | "senddocument" => {
            let id = {
                let mut i = inner.lock().unwrap_or_else(PoisonError::into_inner);
                i.next_message_id += 1;
                i.next_message_id
            };
            ok(bot_message(id, &body))
        }
        "editmessagetext" | "editmessagereplymarkup" => {
            let id = body["message_id"].as_i64().unwrap_or(0);
            if id <= 0 {
                return error(400, "Bad Request: message to edit not found", None);
            }
            ok(bot_message(id, &body))
        }
        "sendmessagedraft" => {
            if body["draft_id"].as_i64().unwrap_or(0) == 0 {
                return error(400, "Bad Request: draft_id must be non-zero", None);
            }
            ok(json!(true))
        }
        "sendchataction"
        | "answercallbackquery"
        | "setwebhook"
        | "deletewebhook"
        | "setmessagereaction"
        | "setmycommands" => ok(json!(true)),
        "getfile" => files::get_file(&inner, &body),
        "getwebhookinfo" => ok(json!({"url": "", "has_custom_certificate": false,
            "pending_update_count": 0})),
        _ => error(404, "Not Found: method not found", None),
    }
}

fn ok(result: Value) -> Response {
    answer(StatusCode::OK, json!({"ok": true, "result": result}))
}

/// A message the bot sent or edited, as the Bot API returns it.
fn bot_message(id: i64, body: &Value) -> Value {
    // A form sends every field as text.
    let chat_id = body["chat_id"]
        .as_i64()
        .or_else(|| body["chat_id"].as_str().and_then(|s| s.parse().ok()))
        .unwrap_or(0);
    let chat_type = if chat_id < 0 { "supergroup" } else { "private" };
    json!({"message_id": id, "date": 1_700_000_000,
        "from": {"id": BOT_ID, "is_bot": true, "first_name": "Steward", "username": "steward_test_bot"},
        "chat": {"id": chat_id, "type": chat_type, "first_name": "Ann"},
        "text": body.get("text").cloned().unwrap_or(Value::Null)})
}

fn scripted(step: Scripted) -> Response {
    match step {
        Scripted::Error {
            code,
            description,
            retry_after,
        } => error(code, description, retry_after),
        Scripted::Drop => {
            let pieces: [Result<&'static [u8], std::io::Error>; 2] = [
                Ok(b"{\"ok\":true,\"resu"),
                Err(std::io::Error::other("connection dropped by the fake")),
            ];
            Response::new(axum::body::Body::from_stream(futures_util::stream::iter(
                pieces,
            )))
        }
        Scripted::Raw { status, body } => (
            StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY),
            [("content-type", "text/html")],
            body,
        )
            .into_response(),
    }
}

async fn get_updates(inner: &Mutex<Inner>, body: &Value) -> Response {
    if let Some(step) = inner
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .script
        .pop_front()
    {
        return scripted(step);
    }
    let offset = body["offset"].as_i64().unwrap_or(0);
    let timeout = body["timeout"].as_u64().unwrap_or(0);
    // Long polling: hold the request until an update is there or the timeout passes.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(timeout);
    loop {
        let ready: Vec<Value> = {
            let mut i = inner.lock().unwrap_or_else(PoisonError::into_inner);
            i.updates
                .retain(|u| u["update_id"].as_i64().unwrap_or(0) >= offset);
            i.updates.clone()
        };
        if !ready.is_empty() || tokio::time::Instant::now() >= deadline {
            return answer(StatusCode::OK, json!({"ok": true, "result": ready}));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn user(id: u64) -> Value {
    json!({"id": id, "is_bot": false, "first_name": "Ann", "language_code": "en"})
}

/// A text message in the sender's private chat with the bot.
pub fn private_text(update_id: u32, from: u64, text: &str) -> Value {
    json!({"update_id": update_id, "message": {"message_id": update_id, "date": 1_700_000_000,
        "from": user(from), "chat": {"id": from, "type": "private", "first_name": "Ann"},
        "text": text}})
}

/// A text message in a group (`chat` negative, as Telegram's group ids are).
pub fn group_text(update_id: u32, chat: i64, from: u64, text: &str) -> Value {
    json!({"update_id": update_id, "message": {"message_id": update_id, "date": 1_700_000_000,
        "from": user(from), "chat": {"id": chat, "type": "supergroup", "title": "Family"},
        "text": text}})
}

/// A 👍 on message 7 of the sender's private chat.
pub fn reaction(update_id: u32, from: u64) -> Value {
    reaction_on(update_id, from, 7, "👍")
}

/// `emoji` set on message `message_id` of the sender's private chat.
pub fn reaction_on(update_id: u32, from: u64, message_id: i64, emoji: &str) -> Value {
    json!({"update_id": update_id, "message_reaction": {"chat": {"id": from, "type": "private",
        "first_name": "Ann"}, "message_id": message_id, "user": user(from), "date": 1_700_000_000,
        "old_reaction": [], "new_reaction": [{"type": "emoji", "emoji": emoji}]}})
}

/// A press of a button under message 7 of the sender's private chat.
pub fn callback(update_id: u32, from: u64, data: &str) -> Value {
    callback_on(update_id, from, from as i64, 7, data)
}

/// A press by `from` of a button under message `message_id` of chat `chat`.
pub fn callback_on(update_id: u32, from: u64, chat: i64, message_id: i64, data: &str) -> Value {
    json!({"update_id": update_id, "callback_query": {"id": format!("cb{update_id}"),
        "from": user(from), "chat_instance": "-77", "data": data,
        "message": {"message_id": message_id, "date": 1_700_000_000,
            "from": {"id": BOT_ID, "is_bot": true, "first_name": "Steward"},
            "chat": {"id": chat, "type": "private", "first_name": "Ann"}, "text": "Confirm?"}}})
}

/// A post in a channel the bot administers (no `from`).
pub fn channel_post(update_id: u32) -> Value {
    json!({"update_id": update_id, "channel_post": {"message_id": 1, "date": 1_700_000_000,
        "chat": {"id": -1001, "type": "channel", "title": "News"}, "text": "hello"}})
}
