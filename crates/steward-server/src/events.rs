//! `GET /api/v1/events[?conversation=ID]`: the event feed as Server-Sent Events — `event:
//! turn` for each event of any turn in this process (whichever surface started it), `event:
//! approval` for each change to an approval (from any process on this database, with who
//! and where), `event: lagged` when this client fell behind.
//!
//! Owns: the SSE projection of `FeedEvent`s. Does not own the feed (steward-core).

use crate::AppState;
use crate::api::KEEP_ALIVE;
use crate::body::parse_conversation;
use crate::error::ApiError;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::convert::Infallible;

#[derive(Deserialize)]
pub(crate) struct EventsQuery {
    #[serde(default)]
    conversation: Option<String>,
}

/// The live event feed, as Server-Sent Events, until the client hangs up.
#[utoipa::path(
    get,
    path = "/api/v1/events",
    operation_id = "get_events",
    tag = "events",
    params(("conversation" = Option<String>, Query, description = "Only this conversation's events")),
    responses(
        (status = 200, description = "Server-Sent Events: each `data:` is a JSON `FeedEvent` (`#/components/schemas/FeedEvent`) and its `event:` the event's `type`: `turn` (an event of any turn in this process, whichever surface started it), `approval` (an approval changed, from any process on this database, with who and where), `delivered` (Steward spoke unasked), `lagged` (this client fell behind: refetch). Comments keep the connection alive.",
            content((String = "text/event-stream"))),
        (status = 400, response = crate::apidoc::BadRequest),
        (status = 401, response = crate::apidoc::Unauthorized),
        (status = 503, response = crate::apidoc::Unavailable),
    ),
)]
pub(crate) async fn events(
    State(state): State<AppState>,
    query: Result<Query<EventsQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request("malformed query string"));
    };
    let conversation = match query.conversation.as_deref() {
        Some(raw) => Some(parse_conversation(raw, "conversation")?),
        None => None,
    };
    let Some(feed) = state.feed.as_ref() else {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the event feed is not enabled",
        ));
    };
    let sub = feed.subscribe(conversation);
    let stream = futures_util::stream::unfold(sub, |mut sub| async move {
        let ev = sub.recv().await?;
        let event = match serde_json::to_string(&ev) {
            Ok(data) => Event::default().event(ev.name()).data(data),
            Err(_) => Event::default()
                .event("error")
                .data(r#"{"error":{"kind":"internal","message":"could not encode event"}}"#),
        };
        Some((Ok::<Event, Infallible>(event), sub))
    });
    let mut resp = Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response();
    resp.headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(resp)
}
