//! Test support for the web sign-in: a server with sessions in a real (in-memory) store on a
//! `ManualClock`, the owner's password set, and a conversations desk over the same store;
//! signing in and sending requests with the session cookie.

use crate::desk::FakeDesk;
use crate::support::{Fake, Server, TOKEN, client, config, json_of, start_full};
use reqwest::header::{CONTENT_TYPE, COOKIE, SET_COOKIE};
use reqwest::{Method, Response};
use serde_json::{Value, json};
use std::net::IpAddr;
use std::sync::Arc;
use steward_core::{ConversationDesk, Deleted, DeskError, History};
use steward_protocol::{ConversationId, ConversationTitle, ManualClock, Message};
use steward_server::WebSignIn;
use steward_server::password::{PASSWORD_KEY, hash_password};
use steward_store::{ConversationSummary, KvStore, Store, StoreConfig};

pub const PASSWORD: &str = "correct horse battery staple";

/// The conversations read side straight over the store (what `Steward` does, minus turns).
pub struct StoreDesk(pub Arc<dyn Store>);

#[async_trait::async_trait]
impl ConversationDesk for StoreDesk {
    async fn list(&self, limit: usize) -> Result<Vec<ConversationSummary>, DeskError> {
        Ok(self.0.list_conversations(limit).await?)
    }

    async fn history(
        &self,
        conversation: &ConversationId,
        before: Option<u64>,
        limit: usize,
    ) -> Result<Option<History>, DeskError> {
        let Some(summary) = self.0.conversation(conversation).await? else {
            return Ok(None);
        };
        let items = self.0.history_page(conversation, before, limit).await?;
        Ok(Some(History { summary, items }))
    }

    async fn rename(
        &self,
        conversation: &ConversationId,
        title: Option<ConversationTitle>,
    ) -> Result<Option<ConversationSummary>, DeskError> {
        if !self.0.set_title(conversation, title.as_ref()).await? {
            return Ok(None);
        }
        Ok(self.0.conversation(conversation).await?)
    }

    async fn delete(&self, conversation: &ConversationId) -> Result<Deleted, DeskError> {
        Ok(if self.0.delete_conversation(conversation).await? {
            Deleted::Done
        } else {
            Deleted::NotFound
        })
    }
}

pub struct WebServer {
    pub server: Server,
    pub clock: Arc<ManualClock>,
    pub store: Arc<dyn Store>,
}

/// Options of `start_web`.
#[derive(Default)]
pub struct WebOptions {
    pub trusted_proxy: bool,
    /// No password stored (only the token signs in).
    pub no_password: bool,
    /// The approval desk behind the routes (none: an empty one).
    pub desk: Option<Arc<FakeDesk>>,
}

pub async fn start_web(options: WebOptions) -> WebServer {
    start_web_with(Fake::standard(), options).await
}

pub async fn start_web_with(fake: Arc<Fake>, options: WebOptions) -> WebServer {
    let clock = ManualClock::starting_now();
    let store = steward_store::open(&StoreConfig::in_memory().with_clock(clock.clone())).unwrap();
    if !options.no_password {
        let phc = tokio::task::spawn_blocking(|| hash_password(PASSWORD))
            .await
            .unwrap()
            .unwrap();
        store.kv_put(PASSWORD_KEY, &phc).await.unwrap();
    }
    let mut cfg = config();
    cfg.clock = clock.clone();
    cfg.sign_in = Some(WebSignIn {
        sessions: store.clone(),
        secrets: store.clone(),
    });
    cfg.conversations = Some(Arc::new(StoreDesk(store.clone())));
    cfg.trusted_proxy = options.trusted_proxy;
    let desk = options.desk.unwrap_or_else(FakeDesk::empty);
    let server = start_full(fake, desk, cfg).await;
    WebServer {
        server,
        clock,
        store,
    }
}

/// A signed-in browser: its cookie's value and the CSRF token the sign-in returned.
#[derive(Debug, Clone)]
pub struct Browser {
    pub cookie: String,
    pub csrf: String,
    pub session_id: String,
}

/// The `steward_session=…` value of a `Set-Cookie`, and the whole header.
pub fn set_cookie(resp: &Response) -> Option<(String, String)> {
    let header = resp.headers().get(SET_COOKIE)?.to_str().unwrap().to_owned();
    let value = header
        .strip_prefix("steward_session=")?
        .split(';')
        .next()?
        .to_owned();
    Some((value, header))
}

impl WebServer {
    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    /// `POST /api/v1/session` with `body`, extra headers, from `local` (a loopback address)
    /// when given.
    pub async fn sign_in_raw(
        &self,
        body: &Value,
        headers: &[(&str, &str)],
        local: Option<IpAddr>,
    ) -> Response {
        let client = match local {
            Some(ip) => reqwest::Client::builder()
                .no_proxy()
                .local_address(ip)
                .build()
                .unwrap(),
            None => client(),
        };
        let mut req = client
            .post(self.url("/api/v1/session"))
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        req.send().await.unwrap()
    }

    /// Sign in with the password; panics unless it works.
    pub async fn sign_in(&self) -> Browser {
        self.sign_in_with(&json!({ "password": PASSWORD }), &[])
            .await
    }

    pub async fn sign_in_with(&self, body: &Value, headers: &[(&str, &str)]) -> Browser {
        let resp = self.sign_in_raw(body, headers, None).await;
        assert_eq!(resp.status(), 200, "sign-in failed");
        let (cookie, _) = set_cookie(&resp).expect("a session cookie");
        let body = json_of(resp).await;
        Browser {
            cookie,
            csrf: body["csrf_token"].as_str().unwrap().to_owned(),
            session_id: body["session"]["id"].as_str().unwrap().to_owned(),
        }
    }

    /// A request carrying only the cookie (and the CSRF header when given).
    pub async fn with_cookie(
        &self,
        method: Method,
        path: &str,
        cookie: &str,
        csrf: Option<&str>,
        body: Option<&Value>,
    ) -> Response {
        let mut req = client()
            .request(method, self.url(path))
            .header(COOKIE, format!("steward_session={cookie}"));
        if let Some(token) = csrf {
            req = req.header("x-csrf-token", token);
        }
        if let Some(body) = body {
            req = req
                .header(CONTENT_TYPE, "application/json")
                .body(body.to_string());
        }
        req.send().await.unwrap()
    }

    /// The status `GET /api/v1/conversations` gets with this cookie.
    pub async fn cookie_status(&self, cookie: &str) -> u16 {
        self.with_cookie(Method::GET, "/api/v1/conversations", cookie, None, None)
            .await
            .status()
            .as_u16()
    }

    /// A conversation with one message, so it can be listed, renamed and deleted.
    pub async fn conversation(&self, id: &str) -> ConversationId {
        let id = ConversationId::parse(id).unwrap();
        self.store
            .append_messages(&id, &[Message::user("hello")])
            .await
            .unwrap();
        id
    }

    pub async fn title(&self, id: &ConversationId) -> Option<String> {
        self.store
            .conversation(id)
            .await
            .unwrap()
            .and_then(|s| s.title)
            .map(|t| t.as_str().to_owned())
    }
}

/// The bearer header value of the test token.
pub fn bearer() -> String {
    format!("Bearer {TOKEN}")
}
