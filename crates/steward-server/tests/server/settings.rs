//! `/api/v1/settings`: the routes' shapes, statuses and input checks, over a fake
//! `SettingsDesk` that records what reached it (the binary's real desk has its own tests).

use crate::support::{OWNER, TOKEN, client, config, start_with};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use steward_core::{SettingKind, SettingSource, SettingView, SettingsDesk, SettingsError};
use steward_protocol::Principal;

/// One setting `agent.max_rounds` (1..=64) and one `timezone` locked by the environment.
pub struct FakeSettings {
    rounds: Mutex<Option<String>>,
    calls: Mutex<Vec<(String, String, String)>>,
}

impl FakeSettings {
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            rounds: Mutex::new(None),
            calls: Mutex::new(Vec::new()),
        })
    }

    fn view(&self, key: &str) -> SettingView {
        match key {
            "timezone" => SettingView {
                key: "timezone".into(),
                value: Some("Asia/Tokyo".into()),
                fallback: Some("UTC".into()),
                source: SettingSource::Env,
                kind: SettingKind::Timezone,
                help: "IANA time zone".into(),
                rule: "an IANA time zone name".into(),
                locked_by: Some("STEWARD_TIMEZONE".into()),
            },
            _ => {
                let value = self.rounds.lock().unwrap().clone();
                SettingView {
                    key: "agent.max_rounds".into(),
                    source: if value.is_some() {
                        SettingSource::Runtime
                    } else {
                        SettingSource::Default
                    },
                    value: value.or(Some("8".into())),
                    fallback: Some("8".into()),
                    kind: SettingKind::Integer { min: 1, max: 64 },
                    help: "Model calls per turn".into(),
                    rule: "an integer in 1..=64".into(),
                    locked_by: None,
                }
            }
        }
    }
}

#[async_trait::async_trait]
impl SettingsDesk for FakeSettings {
    async fn list(&self, _who: &Principal) -> Result<Vec<SettingView>, SettingsError> {
        Ok(vec![self.view("agent.max_rounds"), self.view("timezone")])
    }

    async fn set(
        &self,
        who: &Principal,
        key: &str,
        value: &str,
    ) -> Result<SettingView, SettingsError> {
        self.calls
            .lock()
            .unwrap()
            .push((who.id().to_string(), key.into(), value.into()));
        match key {
            "timezone" => Err(SettingsError::Locked {
                key: key.into(),
                var: "STEWARD_TIMEZONE".into(),
            }),
            "agent.max_rounds" => match value.parse::<u64>() {
                Ok(n) if (1..=64).contains(&n) => {
                    *self.rounds.lock().unwrap() = Some(value.into());
                    Ok(self.view(key))
                }
                _ => Err(SettingsError::Invalid {
                    key: key.into(),
                    reason: "must be an integer in 1..=64".into(),
                }),
            },
            "store.broken" => Err(SettingsError::Store("the database refused".into())),
            _ => Err(SettingsError::Unknown(key.into())),
        }
    }

    async fn reset(&self, _who: &Principal, key: &str) -> Result<SettingView, SettingsError> {
        match key {
            "agent.max_rounds" => {
                *self.rounds.lock().unwrap() = None;
                Ok(self.view(key))
            }
            _ => Err(SettingsError::Unknown(key.into())),
        }
    }
}

async fn server(desk: &Arc<FakeSettings>) -> crate::support::Server {
    let mut cfg = config();
    cfg.settings = Some(desk.clone());
    start_with(crate::support::Fake::standard(), cfg).await
}

async fn put(base: &crate::support::Server, key: &str, body: &str) -> (u16, Value) {
    let resp = client()
        .put(base.url(&format!("/api/v1/settings/{key}")))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(CONTENT_TYPE, "application/json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn lists_every_runtime_setting_with_its_form_data() {
    let desk = FakeSettings::new();
    let s = server(&desk).await;
    let resp = client()
        .get(s.url("/api/v1/settings"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    let list = body["settings"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["key"], "agent.max_rounds");
    assert_eq!(list[0]["kind"], "integer");
    assert_eq!(list[0]["min"], 1);
    assert_eq!(list[0]["max"], 64);
    assert_eq!(list[0]["source"], "default");
    assert_eq!(list[1]["kind"], "timezone");
    assert_eq!(list[1]["source"], "env");
    assert_eq!(list[1]["locked_by"], "STEWARD_TIMEZONE");
}

#[tokio::test]
async fn a_valid_value_is_set_for_the_authenticated_owner() {
    let desk = FakeSettings::new();
    let s = server(&desk).await;
    let (status, body) = put(&s, "agent.max_rounds", r#"{"value":"3"}"#).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["value"], "3");
    assert_eq!(body["source"], "app");
    // A JSON number is taken as its text.
    let (status, body) = put(&s, "agent.max_rounds", r#"{"value":5}"#).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["value"], "5");
    let calls = desk.calls.lock().unwrap().clone();
    assert_eq!(
        calls,
        vec![
            (OWNER.into(), "agent.max_rounds".into(), "3".into()),
            (OWNER.into(), "agent.max_rounds".into(), "5".into())
        ]
    );
    // Reset goes back to the fallback.
    let resp = client()
        .delete(s.url("/api/v1/settings/agent.max_rounds"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["value"], "8");
    assert_eq!(body["source"], "default");
}

#[tokio::test]
async fn refusals_get_their_status_and_a_sentence() {
    let desk = FakeSettings::new();
    let s = server(&desk).await;
    let (status, body) = put(&s, "agent.max_rounds", r#"{"value":"0"}"#).await;
    assert_eq!(status, 422);
    assert_eq!(body["error"]["kind"], "invalid_value", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1..=64")
    );
    let (status, body) = put(&s, "timezone", r#"{"value":"Europe/Paris"}"#).await;
    assert_eq!(status, 409);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("STEWARD_TIMEZONE")
    );
    let (status, _) = put(&s, "api_token", r#"{"value":"x"}"#).await;
    assert_eq!(status, 404);
    let (status, body) = put(&s, "store.broken", r#"{"value":"x"}"#).await;
    assert_eq!(status, 503, "{body}");
    // Nothing but the last three reached the desk as a change to apply.
    assert_eq!(*desk.rounds.lock().unwrap(), None);
}

#[tokio::test]
async fn malformed_oversized_and_forged_input_never_reaches_the_desk() {
    let desk = FakeSettings::new();
    let s = server(&desk).await;
    for (key, body, want) in [
        ("agent.max_rounds", "not json", 400),
        ("agent.max_rounds", r#"{"val":"3"}"#, 422),
        ("agent.max_rounds", r#"{"value":"3","extra":1}"#, 422),
        ("agent.max_rounds", r#"{"value":null}"#, 422),
        ("agent.max_rounds", r#"{"value":["3"]}"#, 422),
        ("agent.max_rounds", r#"{"value":{"a":1}}"#, 422),
        ("AGENT.MAX_ROUNDS", r#"{"value":"3"}"#, 404),
        ("agent.max_rounds%00", r#"{"value":"3"}"#, 404),
        ("..%2F..%2Fetc", r#"{"value":"3"}"#, 404),
    ] {
        let (status, got) = put(&s, key, body).await;
        assert_eq!(status, want, "{key} {body}: {got}");
    }
    let long = format!(r#"{{"value":"{}"}}"#, "9".repeat(300));
    let (status, _) = put(&s, "agent.max_rounds", &long).await;
    assert_eq!(status, 413);
    let long_key = "a".repeat(65);
    let (status, _) = put(&s, &long_key, r#"{"value":"3"}"#).await;
    assert_eq!(status, 404);
    // Wrong content type.
    let resp = client()
        .put(s.url("/api/v1/settings/agent.max_rounds"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(CONTENT_TYPE, "text/plain")
        .body(r#"{"value":"3"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 415);
    assert!(desk.calls.lock().unwrap().is_empty());
}

#[tokio::test]
async fn without_the_token_nothing_is_read_or_changed() {
    let desk = FakeSettings::new();
    let s = server(&desk).await;
    let resp = client()
        .get(s.url("/api/v1/settings"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    let resp = client()
        .put(s.url("/api/v1/settings/agent.max_rounds"))
        .header(CONTENT_TYPE, "application/json")
        .body(json!({"value": "3"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    assert!(desk.calls.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_server_without_settings_says_so() {
    let s = start_with(crate::support::Fake::standard(), config()).await;
    let resp = client()
        .get(s.url("/api/v1/settings"))
        .header(AUTHORIZATION, format!("Bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 503);
}
