//! What the Telegram end-to-end tests share: `steward serve`'s command with the fake model and
//! the fake Bot API bound (the allowlist and the rest are each test's), and waiting on the
//! fake's recorded calls.

use super::{TOKEN, TempDir, base_command, with_fake_model};
use std::process::Command;
use std::time::Duration;
use steward_testkit::FakeModel;
use steward_testkit::telegram::{self as tg, FakeBotApi};

/// `steward serve`'s command against `fake` and `bot`: the test token, the bot's token and
/// Bot API base URL; no allowlist (the caller's).
pub fn bot_command(dir: &TempDir, fake: &FakeModel, bot: &FakeBotApi) -> Command {
    let mut cmd = base_command(dir.path());
    with_fake_model(&mut cmd, &fake.openai_base_url(), "openai:gpt-fake");
    cmd.env("STEWARD_API_TOKEN", TOKEN)
        .env("TELEGRAM_BOT_TOKEN", tg::TOKEN)
        .env("STEWARD_TELEGRAM_API_BASE_URL", &bot.base);
    cmd
}

/// Wait until `done` holds for the fake's recorded calls (polling; at most 20 s).
pub async fn until(bot: &FakeBotApi, what: &str, done: impl Fn(&FakeBotApi) -> bool) {
    for _ in 0..400 {
        if done(bot) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "timed out waiting for {what}; calls: {:?}",
        bot.calls()
            .iter()
            .map(|c| (&c.method, c.body.get("text").cloned()))
            .collect::<Vec<_>>()
    );
}
