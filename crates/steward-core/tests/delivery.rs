//! The delivery port: a proactive message is stored in its conversation as Steward's,
//! published on the event feed, and handed to the target surface's deliverer when one is
//! registered; a failing surface loses nothing; bad text is refused before anything happens.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use steward_core::{AgentSettings, Deliver, Delivery, DeliveryError, DeliveryTarget, Proactive};
use steward_protocol::{ConversationId, FeedEvent, Role, Surface};
use steward_store::ConversationStore;
use steward_testkit::FakeModel;

#[derive(Default)]
struct Recording {
    sent: Mutex<Vec<(DeliveryTarget, String)>>,
    fail: bool,
}

#[async_trait::async_trait]
impl Deliver for Recording {
    async fn deliver(&self, target: &DeliveryTarget, message: &Proactive) -> Result<(), String> {
        if self.fail {
            return Err("the bot was blocked".into());
        }
        assert_eq!(message.genre, "reminder", "the genre reaches the surface");
        assert!(!message.trace_id.is_empty(), "and the trace id");
        self.sent
            .lock()
            .unwrap()
            .push((target.clone(), message.text.clone()));
        Ok(())
    }
}

fn say(text: &str) -> Proactive {
    Proactive {
        text: text.to_owned(),
        genre: "reminder".to_owned(),
        trace_id: "trace-1".to_owned(),
        cards: vec![],
    }
}

fn target(surface: Surface, conv: &str) -> DeliveryTarget {
    DeliveryTarget {
        surface,
        conversation: ConversationId::parse(conv).unwrap(),
    }
}

#[tokio::test]
async fn a_delivery_is_stored_published_and_sent() {
    let fake = FakeModel::start().await.unwrap();
    let h = harness(&fake, AgentSettings::default(), None);
    let mut feed = h
        .steward
        .subscribe(Some(ConversationId::parse("inbox").unwrap()));
    let telegram = Arc::new(Recording::default());
    h.steward
        .register_delivery(Surface::Telegram, telegram.clone());

    let to = target(Surface::Telegram, "inbox");
    let outcome = h
        .steward
        .deliver(&to, &say("Dentist at 14:00."))
        .await
        .unwrap();
    assert_eq!(outcome, Delivery::Sent);
    assert_eq!(
        telegram.sent.lock().unwrap().as_slice(),
        [(to.clone(), "Dentist at 14:00.".to_owned())]
    );
    let stored = h.store.recent_messages(&to.conversation, 10).await.unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].role, Role::Assistant);
    assert_eq!(stored[0].content, "Dentist at 14:00.");
    let ev = tokio::time::timeout(Duration::from_secs(5), feed.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        ev,
        FeedEvent::Delivered {
            conversation_id: to.conversation.clone(),
            surface: Surface::Telegram,
            text: "Dentist at 14:00.".into()
        }
    );

    // A surface with no deliverer: stored (and on the feed), shown when next opened.
    let web = target(Surface::Web, "inbox");
    assert_eq!(
        h.steward
            .deliver(&web, &say("Your briefing"))
            .await
            .unwrap(),
        Delivery::Stored
    );
    assert_eq!(
        h.store
            .recent_messages(&web.conversation, 10)
            .await
            .unwrap()
            .len(),
        2
    );
}

#[tokio::test]
async fn a_failing_surface_loses_nothing_and_bad_text_changes_nothing() {
    let fake = FakeModel::start().await.unwrap();
    let h = harness(&fake, AgentSettings::default(), None);
    h.steward.register_delivery(
        Surface::Telegram,
        Arc::new(Recording {
            fail: true,
            ..Default::default()
        }),
    );
    let to = target(Surface::Telegram, "blocked");
    let outcome = h.steward.deliver(&to, &say("Reminder")).await.unwrap();
    assert_eq!(
        outcome,
        Delivery::SurfaceFailed("the bot was blocked".into())
    );
    assert_eq!(
        h.store
            .recent_messages(&to.conversation, 10)
            .await
            .unwrap()
            .len(),
        1
    );

    let other = target(Surface::Telegram, "untouched");
    assert!(matches!(
        h.steward.deliver(&other, &say("  \n")).await,
        Err(DeliveryError::Empty)
    ));
    let huge = "x".repeat(steward_core::MAX_DELIVERY_BYTES + 1);
    assert!(matches!(
        h.steward.deliver(&other, &say(&huge)).await,
        Err(DeliveryError::TooLong)
    ));
    assert!(
        h.store
            .recent_messages(&other.conversation, 10)
            .await
            .unwrap()
            .is_empty()
    );
}
