//! The bot token: a secret that is only ever part of the Bot API's URL path.
//!
//! Owns: `BotToken` (its shape check, its masked `Debug`), and `scrub`, which cuts the token
//! out of any text before it reaches an error or a log. Does not own: where the token comes
//! from (the binary's config registry) or the URL it goes into (`client`).

use std::fmt;

/// A Bot API token (`<bot id>:<secret>`, as @BotFather hands it out). `Debug` and `Display`
/// never show it; `expose` is for building the request URL only.
#[derive(Clone, PartialEq, Eq)]
pub struct BotToken(String);

/// Why a token was refused; never quotes the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a Telegram bot token is the bot's numeric id, a colon and 30 to 100 letters, digits, `_` or `-`"
)]
pub struct BadToken;

impl BotToken {
    /// The rule's words, for config errors and docs.
    pub const RULE: &str = "the bot's numeric id, a colon and 30 to 100 letters, digits, `_` or `-`, as @BotFather gives it";

    /// Checks the shape @BotFather gives (`123456:AA…`). The shape matters beyond tidiness:
    /// the token goes into a URL path, so a `/`, `?` or `#` in it would reach another route.
    pub fn parse(raw: &str) -> Result<Self, BadToken> {
        let (id, secret) = raw.split_once(':').ok_or(BadToken)?;
        let id_ok = (1..=20).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_digit());
        let secret_ok = (30..=100).contains(&secret.len())
            && secret
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if id_ok && secret_ok {
            Ok(Self(raw.to_owned()))
        } else {
            Err(BadToken)
        }
    }

    /// The token itself, for the request URL.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the token replaced: error texts from the HTTP stack
    /// may carry the request URL, and the URL carries the token.
    pub fn scrub(&self, text: &str) -> String {
        text.replace(&self.0, "<bot-token>")
    }
}

impl fmt::Debug for BotToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BotToken(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq";

    #[test]
    fn botfather_shaped_tokens_parse_and_others_do_not() {
        assert!(BotToken::parse(GOOD).is_ok());
        for bad in [
            "",
            "123456789",
            ":AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq",
            "12a:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq",
            "123:short",
            "123:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDs/../x",
            "123:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq?x=1",
            "123:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDs awq",
        ] {
            assert_eq!(BotToken::parse(bad), Err(BadToken), "{bad:?}");
        }
        let long = format!("1:{}", "a".repeat(101));
        assert!(BotToken::parse(&long).is_err());
    }

    #[test]
    fn debug_and_scrub_hide_the_token() {
        let token = BotToken::parse(GOOD).unwrap();
        assert!(!format!("{token:?}").contains("AAHdq"));
        let text = format!("error sending request for url (http://x/bot{GOOD}/getUpdates)");
        let scrubbed = token.scrub(&text);
        assert!(!scrubbed.contains(GOOD), "{scrubbed}");
        assert!(scrubbed.contains("/bot<bot-token>/getUpdates"));
        assert!(!BadToken.to_string().contains(GOOD));
    }
}
