//! The fake Bot API's own wire format, spoken to with a plain HTTP client: the token is
//! checked, method names match case-insensitively, malformed bodies and unknown methods get
//! the Bot API's error objects, `getUpdates` honours `offset`, and every call is recorded.

use serde_json::{Value, json};
use steward_testkit::telegram::{BOT_ID, FakeBotApi, Scripted, TOKEN, private_text};

use crate::common::client;

async fn call(fake: &FakeBotApi, path: &str, body: &str) -> (u16, Value) {
    let response = client()
        .post(format!("{}/{path}", fake.base))
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn the_fake_speaks_the_bot_api_envelope() {
    let fake = FakeBotApi::start().await.unwrap();
    let (status, me) = call(&fake, &format!("bot{TOKEN}/GetMe"), "").await;
    assert_eq!(
        (status, me["ok"].clone(), me["result"]["id"].clone()),
        (200, json!(true), json!(BOT_ID))
    );
    let (status, err) = call(&fake, "bot1:wrong/getMe", "{}").await;
    assert_eq!((status, err["error_code"].clone()), (401, json!(401)));
    assert_eq!(err["ok"], json!(false));
    let (status, err) = call(&fake, &format!("bot{TOKEN}/sendMessage"), "{not json").await;
    assert_eq!((status, err["error_code"].clone()), (400, json!(400)));
    let (status, err) = call(&fake, &format!("bot{TOKEN}/launchRockets"), "{}").await;
    assert_eq!(
        (status, err["description"].clone()),
        (404, json!("Not Found: method not found"))
    );
    let methods: Vec<String> = fake.calls().into_iter().map(|c| c.method).collect();
    assert_eq!(
        methods,
        ["getme", "launchrockets"],
        "only authorised, well-formed calls are recorded"
    );
}

#[tokio::test]
async fn get_updates_serves_from_the_offset_after_scripted_failures() {
    let fake = FakeBotApi::start().await.unwrap();
    fake.push_update(private_text(1, 7, "a"));
    fake.push_update(private_text(2, 7, "b"));
    fake.script(Scripted::Error {
        code: 429,
        description: "Too Many Requests: retry after 3",
        retry_after: Some(3),
    });
    let path = format!("bot{TOKEN}/getUpdates");
    let (status, err) = call(&fake, &path, "{}").await;
    assert_eq!(
        (status, err["parameters"]["retry_after"].clone()),
        (429, json!(3))
    );
    let (_, all) = call(&fake, &path, "{}").await;
    assert_eq!(all["result"].as_array().unwrap().len(), 2);
    let (_, rest) = call(&fake, &path, r#"{"offset": 2}"#).await;
    assert_eq!(rest["result"][0]["update_id"], json!(2));
    assert_eq!(rest["result"].as_array().unwrap().len(), 1);
    // Update 2 is still unconfirmed: it comes again until an offset past it is sent; then,
    // as on Telegram, confirmed updates are forgotten and an older offset gets nothing back.
    let (_, again) = call(&fake, &path, r#"{"timeout": 0}"#).await;
    assert_eq!(again["result"][0]["update_id"], json!(2));
    let (_, none) = call(&fake, &path, r#"{"offset": 3, "timeout": 0}"#).await;
    assert_eq!(none["result"], json!([]));
    let (_, still_none) = call(&fake, &path, r#"{"offset": 0, "timeout": 0}"#).await;
    assert_eq!(still_none["result"], json!([]));
    assert_eq!(fake.polls().len(), 6);
}
