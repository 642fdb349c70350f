//! `GET /api/v1/status`: the JSON shape and values from a fake `StatusSource`, uptime from
//! the injected clock, the `days` window passed through and refused out of range or
//! malformed, and the refusals: no token, a wrong token, no source, a failing source.

use crate::support::{Fake, TOKEN, client, json_of, start_with};
use reqwest::header::AUTHORIZATION;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use steward_core::usage::{DayUsage, ModelUsage, UsageDays, UsageReport, UsageTotals};
use steward_protocol::ManualClock;
use steward_server::{
    EmbedderState, McpServerStatus, RecentError, StatusError, StatusSnapshot, StatusSource,
};

pub struct FakeStatus {
    fail: bool,
    asked: Mutex<Vec<u32>>,
}

fn totals(calls: u64, unpriced: u64, cost: u64) -> UsageTotals {
    UsageTotals {
        calls,
        input_tokens: calls * 100,
        output_tokens: calls * 10,
        cost_micro_usd: cost,
        unpriced_calls: unpriced,
    }
}

#[async_trait::async_trait]
impl StatusSource for FakeStatus {
    async fn snapshot(&self, days: UsageDays) -> Result<StatusSnapshot, StatusError> {
        self.asked.lock().unwrap().push(days.get());
        if self.fail {
            return Err(StatusError);
        }
        Ok(StatusSnapshot {
            model: Some("openai:gpt-4o".into()),
            fallback_model: None,
            database_bytes: Some(123_456),
            embedder: EmbedderState::NotLoaded,
            embedder_model: Some("local:all-MiniLM-L6-v2".into()),
            mcp: vec![McpServerStatus {
                name: "<b>tracker</b>".into(),
                state: "down".into(),
                tools: 0,
                last_error: Some("connection refused".into()),
            }],
            recent_errors: vec![RecentError {
                at_secs: 1_700_000_000,
                level: "ERROR".into(),
                target: "steward_core::turn".into(),
                message: "turn failed".into(),
            }],
            usage: UsageReport {
                timezone: "Europe/Paris".into(),
                days: vec![
                    DayUsage {
                        date: "2026-03-09".into(),
                        totals: totals(0, 0, 0),
                    },
                    DayUsage {
                        date: "2026-03-10".into(),
                        totals: totals(3, 1, 1_050),
                    },
                ],
                by_model: vec![
                    ModelUsage {
                        model: "openai:gpt-4o".into(),
                        totals: totals(2, 0, 1_050),
                    },
                    ModelUsage {
                        model: "ollama:qwen3:8b".into(),
                        totals: totals(1, 1, 0),
                    },
                ],
                total: totals(3, 1, 1_050),
            },
        })
    }
}

pub fn source(fail: bool) -> Arc<FakeStatus> {
    Arc::new(FakeStatus {
        fail,
        asked: Mutex::new(Vec::new()),
    })
}

async fn get(base: &str, path: &str, token: Option<&str>) -> reqwest::Response {
    let mut req = client().get(format!("{base}{path}"));
    if let Some(t) = token {
        req = req.header(AUTHORIZATION, format!("Bearer {t}"));
    }
    req.send().await.unwrap()
}

#[tokio::test]
async fn the_status_shape_and_values() {
    let clock = ManualClock::at_ms(1_773_166_800_000);
    let fake = source(false);
    let mut cfg = crate::support::config();
    cfg.clock = clock.clone();
    cfg.status = Some(fake.clone());
    let server = start_with(Fake::standard(), cfg).await;
    let resp = get(&server.base, "/api/v1/status", Some(TOKEN)).await;
    assert_eq!(resp.status(), 200);
    let body = json_of(resp).await;
    let day = |date: &str, calls: u64, cost: serde_json::Value, unpriced: u64| {
        json!({"date": date, "calls": calls, "input_tokens": calls * 100,
               "output_tokens": calls * 10, "cost_usd": cost, "unpriced_calls": unpriced})
    };
    assert_eq!(
        body,
        json!({
            "version": env!("CARGO_PKG_VERSION"),
            "uptime_secs": 0,
            "model": "openai:gpt-4o",
            "fallback_model": null,
            "database": {"bytes": 123_456},
            "embedder": {"state": "not_loaded", "model": "local:all-MiniLM-L6-v2"},
            "mcp": [{"name": "<b>tracker</b>", "state": "down", "tools": 0,
                     "last_error": "connection refused"}],
            "recent_errors": [{"at_secs": 1_700_000_000, "level": "ERROR",
                               "target": "steward_core::turn", "message": "turn failed"}],
            "usage": {
                "timezone": "Europe/Paris",
                "days": [day("2026-03-09", 0, json!(0.0), 0),
                         day("2026-03-10", 3, json!(0.00105), 1)],
                "by_model": [
                    {"model": "openai:gpt-4o", "calls": 2, "input_tokens": 200,
                     "output_tokens": 20, "cost_usd": 0.00105, "unpriced_calls": 0},
                    // Every call unpriced: no price, not $0.
                    {"model": "ollama:qwen3:8b", "calls": 1, "input_tokens": 100,
                     "output_tokens": 10, "cost_usd": null, "unpriced_calls": 1},
                ],
                "total": {"calls": 3, "input_tokens": 300, "output_tokens": 30,
                          "cost_usd": 0.00105, "unpriced_calls": 1},
            },
        })
    );
    // Uptime follows the injected clock; the window is the default 30 days, then as asked.
    clock.advance(Duration::from_secs(3_725));
    let body = json_of(get(&server.base, "/api/v1/status?days=7", Some(TOKEN)).await).await;
    assert_eq!(body["uptime_secs"], 3_725);
    let body = json_of(get(&server.base, "/api/v1/status?days=366", Some(TOKEN)).await).await;
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(*fake.asked.lock().unwrap(), [30, 7, 366]);
}

#[tokio::test]
async fn a_bad_window_is_refused_before_the_source_is_asked() {
    let fake = source(false);
    let mut cfg = crate::support::config();
    cfg.status = Some(fake.clone());
    let server = start_with(Fake::standard(), cfg).await;
    for bad in [
        "0",
        "abc",
        "100000",
        "367",
        "-1",
        "1.5",
        "",
        "%20%207",
        "7%00",
        "99999999999999999999999",
    ] {
        let resp = get(
            &server.base,
            &format!("/api/v1/status?days={bad}"),
            Some(TOKEN),
        )
        .await;
        assert_eq!(resp.status(), 400, "days={bad}");
        let body = json_of(resp).await;
        assert_eq!(
            body["error"]["message"], "days must be a whole number from 1 to 366",
            "days={bad}: {body}"
        );
    }
    // A repeated parameter or a broken query string is malformed, not a window.
    let resp = get(&server.base, "/api/v1/status?days=1&days=2", Some(TOKEN)).await;
    assert_eq!(resp.status(), 400);
    assert!(
        fake.asked.lock().unwrap().is_empty(),
        "the source was never asked"
    );
}

#[tokio::test]
async fn without_the_token_nothing_is_shown() {
    let fake = source(false);
    let mut cfg = crate::support::config();
    cfg.status = Some(fake.clone());
    let server = start_with(Fake::standard(), cfg).await;
    for token in [None, Some("wrong-token-0123456789"), Some("")] {
        let resp = get(&server.base, "/api/v1/status", token).await;
        assert_eq!(resp.status(), 401, "{token:?}");
        let text = resp.text().await.unwrap();
        assert!(
            !text.contains("gpt-4o") && !text.contains("123456"),
            "{text}"
        );
    }
    // Refused before the query is even looked at.
    let resp = get(&server.base, "/api/v1/status?days=abc", None).await;
    assert_eq!(resp.status(), 401);
    assert!(fake.asked.lock().unwrap().is_empty());
}

#[tokio::test]
async fn no_source_is_503_and_a_failing_one_500_without_details() {
    let server = start_with(Fake::standard(), crate::support::config()).await;
    let resp = get(&server.base, "/api/v1/status", Some(TOKEN)).await;
    assert_eq!(resp.status(), 503);
    let mut cfg = crate::support::config();
    cfg.status = Some(source(true));
    let server = start_with(Fake::standard(), cfg).await;
    let resp = get(&server.base, "/api/v1/status", Some(TOKEN)).await;
    assert_eq!(resp.status(), 500);
    let body = json_of(resp).await;
    assert_eq!(
        body["error"]["message"],
        "status unavailable: storage failed; see the server log"
    );
}
