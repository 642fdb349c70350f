//! The allowlist over updates in the Bot API's own JSON (the fake's complete objects), and
//! through the running poller: who is admitted, who is dropped, and that a drop is silent
//! (no reply) and logged without the message's content.

use serde_json::Value;
use steward_telegram::frankenstein::updates::Update;
use steward_telegram::{ChatKind, DropReason, UpdateKind};

use crate::support::{LogCapture, RecordedPause, allow, start, until};
use steward_testkit::telegram::{
    FakeBotApi, callback, channel_post, group_text, private_text, reaction,
};

const ANN: u64 = 1001;
const MALLORY: u64 = 6666;
const FAMILY: i64 = -100_123;

fn update(v: Value) -> Update {
    serde_json::from_value(v).unwrap()
}

#[test]
fn an_empty_allowlist_lets_nobody_in() {
    let nobody = allow("", true);
    for v in [
        private_text(1, ANN, "hi"),
        group_text(2, FAMILY, ANN, "hi"),
        reaction(3, ANN),
        callback(4, ANN, "c:1:1"),
    ] {
        let dropped = nobody.admit(update(v)).unwrap_err();
        assert_eq!(dropped.reason, DropReason::NotAllowlisted);
        assert_eq!(dropped.sender, Some(ANN));
    }
}

#[test]
fn allowlisted_senders_are_admitted_in_private_with_their_ids() {
    let list = allow("1001", false);
    let a = list.admit(update(private_text(1, ANN, "hi"))).unwrap();
    assert_eq!(
        (a.update_id, a.kind, a.sender, a.chat_id, a.chat),
        (1, UpdateKind::Message, ANN, ANN as i64, ChatKind::Private)
    );
    let r = list.admit(update(reaction(2, ANN))).unwrap();
    assert_eq!(r.kind, UpdateKind::MessageReaction);
    let c = list.admit(update(callback(3, ANN, "c:1:1"))).unwrap();
    assert_eq!(c.kind, UpdateKind::CallbackQuery);
    let mut edited = private_text(4, ANN, "hi!");
    edited["edited_message"] = edited["message"].take();
    edited.as_object_mut().unwrap().remove("message");
    assert_eq!(
        list.admit(update(edited)).unwrap().kind,
        UpdateKind::EditedMessage
    );
    let stranger = list
        .admit(update(private_text(5, MALLORY, "hi")))
        .unwrap_err();
    assert_eq!(stranger.reason, DropReason::NotAllowlisted);
    let pressed = list
        .admit(update(callback(6, MALLORY, "c:1:1")))
        .unwrap_err();
    assert_eq!(pressed.reason, DropReason::NotAllowlisted);
}

#[test]
fn groups_only_when_enabled_and_then_only_allowlisted_senders() {
    let off = allow("1001", false);
    let dropped = off
        .admit(update(group_text(1, FAMILY, ANN, "hi")))
        .unwrap_err();
    assert_eq!(dropped.reason, DropReason::GroupsDisabled);
    let on = allow("1001", true);
    let a = on.admit(update(group_text(2, FAMILY, ANN, "hi"))).unwrap();
    assert_eq!(
        (a.chat, a.chat_id, a.sender),
        (ChatKind::Group, FAMILY, ANN)
    );
    let other = on
        .admit(update(group_text(3, FAMILY, MALLORY, "hi")))
        .unwrap_err();
    assert_eq!(other.reason, DropReason::NotAllowlisted);
}

#[test]
fn channels_and_senderless_updates_are_never_admitted() {
    let all = allow("1001", true);
    assert_eq!(
        all.admit(update(channel_post(1))).unwrap_err().reason,
        DropReason::Channel
    );
    let mut anonymous = reaction(2, ANN);
    anonymous["message_reaction"]
        .as_object_mut()
        .unwrap()
        .remove("user");
    assert_eq!(
        all.admit(update(anonymous)).unwrap_err().reason,
        DropReason::NoSender
    );
    let mut on_behalf = group_text(3, FAMILY, ANN, "hi");
    on_behalf["message"].as_object_mut().unwrap().remove("from");
    assert_eq!(
        all.admit(update(on_behalf)).unwrap_err().reason,
        DropReason::NoSender
    );
}

#[tokio::test]
async fn strangers_get_no_turn_no_reply_and_their_words_stay_out_of_the_log() {
    let logs = LogCapture::default();
    let _guard = logs.install();
    let fake = FakeBotApi::start().await.unwrap();
    fake.push_update(private_text(1, MALLORY, "my secret plans"));
    fake.push_update(group_text(2, FAMILY, ANN, "group secret plans"));
    fake.push_update(private_text(3, ANN, "hello"));
    let mut run = start(&fake.base, allow("1001", false), RecordedPause::default());
    assert_eq!(run.next().await.update_id, 3);
    until(|| fake.polls().len() >= 2).await;
    run.stop().await;
    let methods: Vec<String> = fake.calls().into_iter().map(|c| c.method).collect();
    assert!(methods.iter().all(|m| m == "getupdates"), "{methods:?}");
    let text = logs.text();
    assert_eq!(text.matches("telegram update dropped").count(), 2, "{text}");
    assert!(
        text.contains("6666") && text.contains("NotAllowlisted"),
        "{text}"
    );
    assert!(text.contains("GroupsDisabled"), "{text}");
    assert!(!text.contains("secret plans"), "{text}");
}
