//! A turn started from a chat: the chat's conversation found (or bound), the message queued
//! with its parts in the update's order, the answer streamed in a task of its own — and, for
//! a voice note when text-to-speech is configured, the answer also spoken back as a voice
//! message after the text.
//!
//! Owns: starting a turn and the voice reply. Does not own: what the message holds (`dispatch`,
//! `media`), painting the answer (`reply`), the speech endpoints (steward-llm).

use std::sync::Arc;

use steward_protocol::{Inbound, Principal, Surface, Upload};

use super::{Shared, chats, reply, send};
use crate::allowlist::ChatKind;

/// How the answer goes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AnswerAs {
    /// Text only.
    Text,
    /// Text, then the same answer spoken, when text-to-speech is configured.
    TextAndVoice,
}

/// Queue a turn for `chat` with `text` and `attachments`; returns once it is queued.
pub(crate) async fn start(
    shared: &Arc<Shared>,
    chat: i64,
    kind: ChatKind,
    principal: Principal,
    text: String,
    attachments: Vec<Upload>,
    answer_as: AnswerAs,
) {
    let conversation = match chats::conversation_for(shared, chat).await {
        Ok(c) => c,
        Err(()) => {
            send::notice(
                shared,
                chat,
                "I could not open this chat's conversation; see the server log.",
            )
            .await;
            return;
        }
    };
    let mut inbound = Inbound::new(conversation, principal, Surface::Telegram, text);
    inbound.attachments = attachments;
    // Queued now, in this update's order; streamed in a task of its own.
    let stream = shared.deps.assistant.submit(inbound);
    let shared = shared.clone();
    tokio::spawn(async move {
        let answer = reply::stream_turn(&shared, chat, kind, stream).await;
        if let (AnswerAs::TextAndVoice, Some(answer)) = (answer_as, answer) {
            speak(&shared, chat, &answer).await;
        }
    });
}

/// Say `answer` as a voice message, when text-to-speech is configured. A failure is logged
/// only: the text answer is already there.
async fn speak(shared: &Shared, chat: i64, answer: &str) {
    let Some(tts) = shared.deps.speech.to_voice.as_ref() else {
        return;
    };
    let spoken = spoken_text(answer);
    if spoken.trim().is_empty() {
        return;
    }
    let audio = match tts.speak(&spoken).await {
        Ok(a) => a,
        Err(e) => {
            tracing::warn!(error = %e, "text-to-speech failed; the answer stays text only");
            return;
        }
    };
    if let Err(e) = shared.deps.api.send_voice(chat, audio).await {
        tracing::warn!(error = %e, "could not send the spoken answer to telegram");
    }
}

/// The answer as it should be read aloud: markdown's markup characters dropped (a voice
/// reading "asterisk asterisk" helps nobody), code fences' backticks too.
fn spoken_text(markdown: &str) -> String {
    markdown
        .chars()
        .filter(|c| !matches!(c, '*' | '_' | '`' | '#' | '>' | '|'))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn markup_is_not_read_aloud() {
        assert_eq!(
            super::spoken_text("# Title\n**bold** and `code` > quote"),
            " Title\nbold and code  quote"
        );
    }
}
