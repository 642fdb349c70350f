//! The Bot API client against the fake: calls decode into frankenstein's types, the fake's
//! wire format (case-insensitive method names, error objects) is what the client reads, and
//! the token stays out of `Debug` and every error text.

use std::time::Duration;

use steward_telegram::frankenstein::AsyncTelegramApi;
use steward_telegram::frankenstein::methods::SendMessageParams;
use steward_telegram::frankenstein::response::MethodResponse;
use steward_telegram::frankenstein::types::User;
use steward_telegram::{BotApi, BotToken, FailureKind, TelegramError};

use crate::support::{api, tls};
use steward_testkit::telegram::{BOT_ID, FakeBotApi, TOKEN};

#[tokio::test]
async fn methods_decode_into_the_bot_api_types() {
    let fake = FakeBotApi::start().await.unwrap();
    let bot = api(&fake.base);
    let me = bot.get_me().await.unwrap().result;
    assert_eq!((me.id, me.is_bot), (BOT_ID, true));
    let params = SendMessageParams::builder()
        .chat_id(1001)
        .text("<b>hi</b>")
        .build();
    let sent = bot.send_message(&params).await.unwrap().result;
    assert_eq!(
        (sent.message_id, sent.text.as_deref()),
        (1, Some("<b>hi</b>"))
    );
    let call = fake.calls().pop().unwrap();
    assert_eq!(call.method, "sendmessage");
    assert_eq!(call.body["chat_id"], 1001);
    // Method names are case-insensitive on the Bot API.
    let shouted: MethodResponse<User> = bot.request("GETME", None::<()>).await.unwrap();
    assert_eq!(shouted.result.id, BOT_ID);
}

#[tokio::test]
async fn a_wrong_token_and_an_unknown_method_are_the_api_errors_without_the_token() {
    let fake = FakeBotApi::start().await.unwrap();
    tls();
    let other = "999:AAOtherTokenOtherTokenOtherToken_xyz";
    let bot = BotApi::new(
        &fake.base,
        BotToken::parse(other).unwrap(),
        Duration::from_secs(1),
    )
    .unwrap();
    let err = bot.get_me().await.unwrap_err();
    assert!(
        matches!(err, TelegramError::Api { code: 401, .. }),
        "{err:?}"
    );
    assert_eq!(err.kind(), FailureKind::Refused);
    for text in [err.to_string(), format!("{err:?}"), format!("{bot:?}")] {
        assert!(!text.contains(other) && !text.contains("AAOther"), "{text}");
    }
    let bot = api(&fake.base);
    let err: TelegramError = bot
        .request::<(), MethodResponse<bool>>("noSuchMethod", None)
        .await
        .unwrap_err();
    assert!(
        matches!(err, TelegramError::Api { code: 404, .. }),
        "{err:?}"
    );
    assert!(!format!("{bot:?}").contains(TOKEN));
}

#[tokio::test]
async fn transport_errors_are_transient_and_name_no_url() {
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let bot = api(&format!("http://{addr}"));
    let err = bot.get_me().await.unwrap_err();
    assert_eq!(err.kind(), FailureKind::Transient, "{err:?}");
    let text = format!("{err} {err:?}");
    assert!(!text.contains(TOKEN) && !text.contains("/bot"), "{text}");
}
