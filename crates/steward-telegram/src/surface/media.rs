//! Photos, voice notes and files sent to the bot.
//!
//! - A photo: the largest size Telegram offers within the part limit is fetched and goes to
//!   the turn as a JPEG image part, with the caption as the text ("(photo)" without one).
//! - A voice note: fetched, transcribed by the configured speech-to-text endpoint, and the
//!   transcript is the turn's text. What was heard is sent back first ("🎤 …", its own
//!   message, so a mishearing shows before the answer does); the answer is also spoken when
//!   text-to-speech is configured. Without speech-to-text: a reply naming the setting.
//! - A text or markdown file (UTF-8, within the note limit): saved as a note of the person's
//!   own, the reply saying so. A PDF: its text, read by the confined document reader
//!   (steward-sandbox's `document`), saved the same way — as many whole pages as a note
//!   holds, the reply saying how many — or a reply saying why it could not be read (a scan,
//!   encrypted, damaged, too costly). Anything else (videos, other files): a reply saying
//!   what is taken.
//!
//! Every size is checked before the download — the size in the update, then the one
//! `getFile` declares — and the download itself stops once the bytes read pass the limit.
//!
//! Owns: what each kind becomes and the replies. Does not own: the Bot API's file calls
//! (`files`), starting the turn (`turn`), the speech endpoints (steward-llm).

use std::sync::Arc;

use frankenstein::types::{Document, Message, PhotoSize, Voice};
use steward_core::memory_desk::{MAX_NOTE_BODY_BYTES, NoteAuthor, NoteDraft};
use steward_protocol::{FileName, MimeType, Principal, Upload};
use steward_sandbox::document::{DocumentError, MAX_DOCUMENT_BYTES, PdfRefusal};

use super::turn::{self, AnswerAs};
use super::{MAX_INBOUND_BYTES, Shared, send};
use crate::allowlist::ChatKind;
use crate::error::TelegramError;

/// Telegram's Bot API serves files up to 20 MB for download.
const BOT_API_DOWNLOAD_LIMIT: u64 = 20 * 1024 * 1024;
/// The text of a photo's turn when it came without a caption.
pub(crate) const PHOTO_WITHOUT_CAPTION: &str = "(photo)";
/// The reply to a voice note while no speech-to-text endpoint is configured.
pub(crate) const STT_NOT_CONFIGURED: &str = "I cannot listen to voice notes yet: set speech.stt_base_url (STEWARD_SPEECH_STT_BASE_URL) to an OpenAI-compatible speech-to-text endpoint, e.g. whisper.cpp's server, and restart. Until then, send text.";
/// Longest note title made from a file name.
const MAX_TITLE_CHARS: usize = 200;

/// A message's media, by what it becomes.
pub(crate) enum Media<'a> {
    Photo(&'a [PhotoSize]),
    Voice(&'a Voice),
    Document(&'a Document),
    /// Not taken in; the words say what it was.
    Unsupported(&'static str),
}

impl<'a> Media<'a> {
    /// The media `message` carries, if any.
    pub(crate) fn of(message: &'a Message) -> Option<Media<'a>> {
        if let Some(sizes) = message.photo.as_deref() {
            return Some(Media::Photo(sizes));
        }
        if let Some(voice) = message.voice.as_deref() {
            return Some(Media::Voice(voice));
        }
        if let Some(document) = message.document.as_deref() {
            return Some(Media::Document(document));
        }
        if message.audio.is_some() {
            return Some(Media::Unsupported("Audio files"));
        }
        if message.video.is_some() || message.video_note.is_some() {
            return Some(Media::Unsupported("Videos"));
        }
        None
    }
}

pub(crate) async fn on_media(
    shared: &Arc<Shared>,
    chat: i64,
    kind: ChatKind,
    principal: Principal,
    message: &Message,
    media: Media<'_>,
) {
    match media {
        Media::Photo(sizes) => on_photo(shared, chat, kind, principal, message, sizes).await,
        Media::Voice(voice) => on_voice(shared, chat, kind, principal, voice).await,
        Media::Document(document) => on_document(shared, chat, &principal, document).await,
        Media::Unsupported(what) => {
            let text = format!(
                "{what} are not taken in: I take text, photos, voice notes, and text or markdown files."
            );
            send::notice(shared, chat, &text).await;
        }
    }
}

/// The largest download a part may come from.
fn part_limit(shared: &Shared) -> u64 {
    shared
        .deps
        .part_limits
        .max_part_bytes
        .min(BOT_API_DOWNLOAD_LIMIT)
}

/// A size in words, as the refusals give it.
fn shown_size(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB {
        format!("{} MB", bytes / MIB)
    } else if bytes >= 1024 {
        format!("{} KB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

fn too_large(what: &str, limit: u64) -> String {
    format!(
        "That {what} is larger than the {} I take in: send a smaller one.",
        shown_size(limit)
    )
}

/// The bytes of `file_id`, or the reply that says why not. `declared` is the size the
/// update gave; `getFile`'s is checked too, and the download is capped at `limit`.
async fn fetch(
    shared: &Shared,
    file_id: &str,
    declared: Option<u64>,
    limit: u64,
    what: &str,
) -> Result<Vec<u8>, String> {
    if declared.is_some_and(|s| s > limit) {
        return Err(too_large(what, limit));
    }
    let api = &shared.deps.api;
    let fetched = match api.get_file(file_id).await {
        Ok(file) => api.download(&file, limit).await,
        Err(e) => Err(e),
    };
    fetched.map_err(|e| match e {
        TelegramError::FileTooLarge { limit } => too_large(what, limit),
        TelegramError::BadFilePath => {
            tracing::warn!("telegram named an unsafe file path; not downloaded");
            format!("Telegram gave an odd location for that {what}, so I did not download it.")
        }
        e => {
            tracing::warn!(error = %e, "a telegram file could not be downloaded");
            format!("I could not download that {what} from Telegram: send it again.")
        }
    })
}

async fn on_photo(
    shared: &Arc<Shared>,
    chat: i64,
    kind: ChatKind,
    principal: Principal,
    message: &Message,
    sizes: &[PhotoSize],
) {
    let limit = part_limit(shared);
    // The largest within the limit (a size without a declared length is tried: the download
    // is capped anyway).
    let Some(best) = sizes
        .iter()
        .filter(|p| p.file_size.is_none_or(|s| s <= limit))
        .max_by_key(|p| u64::from(p.width) * u64::from(p.height))
    else {
        send::notice(shared, chat, &too_large("photo", limit)).await;
        return;
    };
    let caption = message.caption.as_deref().unwrap_or("").trim();
    if caption.len() > MAX_INBOUND_BYTES {
        send::notice(
            shared,
            chat,
            "That caption is too long for me: send it in parts.",
        )
        .await;
        return;
    }
    let bytes = match fetch(shared, &best.file_id, best.file_size, limit, "photo").await {
        Ok(b) => b,
        Err(text) => return send::notice(shared, chat, &text).await,
    };
    // Telegram re-encodes every photo as JPEG; anything else is not what it claims to be.
    if !bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        send::notice(
            shared,
            chat,
            "That photo did not arrive as a JPEG, so I did not pass it on.",
        )
        .await;
        return;
    }
    let upload = MimeType::parse("image/jpeg")
        .and_then(|mime| Upload::new(mime, FileName::parse("photo.jpg").ok(), bytes));
    let upload = match upload.and_then(|u| {
        shared
            .deps
            .part_limits
            .check([u.attachment().size()])
            .map(|()| u)
    }) {
        Ok(u) => u,
        Err(e) => {
            send::notice(shared, chat, &format!("I could not take that photo: {e}")).await;
            return;
        }
    };
    let text = if caption.is_empty() {
        PHOTO_WITHOUT_CAPTION
    } else {
        caption
    };
    turn::start(
        shared,
        chat,
        kind,
        principal,
        text.to_owned(),
        vec![upload],
        AnswerAs::Text,
    )
    .await;
}

async fn on_voice(
    shared: &Arc<Shared>,
    chat: i64,
    kind: ChatKind,
    principal: Principal,
    voice: &Voice,
) {
    let Some(stt) = shared.deps.speech.to_text.clone() else {
        send::notice(shared, chat, STT_NOT_CONFIGURED).await;
        return;
    };
    let limit = part_limit(shared);
    let audio = match fetch(shared, &voice.file_id, voice.file_size, limit, "voice note").await {
        Ok(b) => b,
        Err(text) => return send::notice(shared, chat, &text).await,
    };
    if let Err(e) = shared.deps.api.typing(chat).await {
        tracing::debug!(error = %e, "telegram typing signal failed");
    }
    // Telegram's voice notes are Opus in Ogg, whatever `mime_type` says.
    let heard = match stt.transcribe(audio, "voice.ogg", "audio/ogg").await {
        Ok(t) => t,
        Err(e) => {
            tracing::warn!(error = %e, "speech-to-text failed");
            let text = format!("⚠️ I could not transcribe that voice note: {e}");
            return send::notice(shared, chat, &text).await;
        }
    };
    if heard.is_empty() {
        send::notice(shared, chat, "🎤 I heard no words in that voice note.").await;
        return;
    }
    if heard.len() > MAX_INBOUND_BYTES {
        send::notice(
            shared,
            chat,
            "That voice note is too long for me: send it in parts.",
        )
        .await;
        return;
    }
    send::notice(shared, chat, &format!("🎤 {heard}")).await;
    turn::start(
        shared,
        chat,
        kind,
        principal,
        heard,
        Vec::new(),
        AnswerAs::TextAndVoice,
    )
    .await;
}

/// What a document is, by its declared type or else its name's extension.
#[derive(Debug, PartialEq, Eq)]
enum DocumentKind {
    Text,
    Pdf,
    Other,
}

fn document_kind(document: &Document) -> DocumentKind {
    let mime = document
        .mime_type
        .as_deref()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let extension = document
        .file_name
        .as_deref()
        .and_then(|n| n.rsplit_once('.'))
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match (mime.as_str(), extension.as_str()) {
        ("application/pdf", _) | (_, "pdf") => DocumentKind::Pdf,
        ("text/plain" | "text/markdown" | "text/x-markdown", _)
        | (_, "txt" | "md" | "markdown") => DocumentKind::Text,
        _ => DocumentKind::Other,
    }
}

/// A note's title from a file name: its stem, control characters dropped, shortened.
fn note_title(file_name: Option<&str>) -> String {
    let stem = file_name
        .map(|n| n.rsplit_once('.').map_or(n, |(stem, _)| stem))
        .unwrap_or("");
    let title: String = stem
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_TITLE_CHARS)
        .collect();
    match title.trim() {
        "" => "Note from Telegram".to_owned(),
        t => t.to_owned(),
    }
}

async fn on_document(shared: &Shared, chat: i64, principal: &Principal, document: &Document) {
    let body = match document_kind(document) {
        DocumentKind::Pdf => match pdf_body(shared, chat, document).await {
            Some(body) => body,
            None => return,
        },
        DocumentKind::Other => {
            send::notice(shared, chat, "I keep text, markdown and PDF files (.txt, .md, .pdf) as notes; this kind of file is not read.").await;
            return;
        }
        DocumentKind::Text => match text_body(shared, chat, document).await {
            Some(body) => body,
            None => return,
        },
    };
    let draft = NoteDraft {
        title: note_title(document.file_name.as_deref()),
        body: body.text,
        tags: vec!["telegram".to_owned()],
        author: NoteAuthor::Person,
    };
    let text = match shared.deps.memory.save_note(principal, draft).await {
        Ok(note) => format!(
            "📝 Saved as a note: “{}” ({} characters{}). Ask me about it any time.",
            note.title,
            note.body.chars().count(),
            body.pages.map(pages_said).unwrap_or_default(),
        ),
        Err(e) => format!("I could not save that file as a note: {e}"),
    };
    send::notice(shared, chat, &text).await;
}

/// A note's body from a file, and for a PDF how many of its pages it holds.
struct Body {
    text: String,
    /// `(kept, of)`.
    pages: Option<(usize, usize)>,
}

/// ", 3 pages" or ", the first 12 of 40 pages: a note holds 64 KB".
fn pages_said((kept, of): (usize, usize)) -> String {
    match (kept, of) {
        (1, 1) => ", 1 page".to_owned(),
        (k, n) if k == n => format!(", {n} pages"),
        (k, n) => format!(
            ", the first {k} of {n} pages: a note holds {} — send the rest as another file",
            shown_size(u64::try_from(MAX_NOTE_BODY_BYTES).unwrap_or(u64::MAX))
        ),
    }
}

async fn text_body(shared: &Shared, chat: i64, document: &Document) -> Option<Body> {
    let limit = part_limit(shared).min(u64::try_from(MAX_NOTE_BODY_BYTES).unwrap_or(u64::MAX));
    let bytes = match fetch(shared, &document.file_id, document.file_size, limit, "file").await {
        Ok(b) => b,
        Err(text) => {
            send::notice(shared, chat, &text).await;
            return None;
        }
    };
    let Ok(text) = String::from_utf8(bytes) else {
        send::notice(
            shared,
            chat,
            "That file is not UTF-8 text, so I did not save it.",
        )
        .await;
        return None;
    };
    if text.trim().is_empty() {
        send::notice(shared, chat, "That file is empty: nothing saved.").await;
        return None;
    }
    Some(Body { text, pages: None })
}

/// The text of a PDF, read by the confined reader; every refusal answered in words.
async fn pdf_body(shared: &Shared, chat: i64, document: &Document) -> Option<Body> {
    let Some(reader) = &shared.deps.documents else {
        send::notice(shared, chat, "PDFs are not read here: paste the part you want kept as a message, or send it as a text or markdown file.").await;
        return None;
    };
    let limit = part_limit(shared).min(u64::try_from(MAX_DOCUMENT_BYTES).unwrap_or(u64::MAX));
    let bytes = match fetch(shared, &document.file_id, document.file_size, limit, "PDF").await {
        Ok(b) => b,
        Err(text) => {
            send::notice(shared, chat, &text).await;
            return None;
        }
    };
    match reader.pdf_text(&bytes, MAX_NOTE_BODY_BYTES).await {
        Ok(pdf) => Some(Body {
            text: pdf.text,
            pages: Some((pdf.pages_kept, pdf.pages)),
        }),
        Err(e) => {
            let reply = match e {
                DocumentError::Refused(PdfRefusal::NoText) => "That PDF has no text to read (a scan or pictures only), so nothing was saved. Send a photo of a page and I can look at it.".to_owned(),
                DocumentError::Refused(refusal) => format!("I could not read that PDF: {refusal}. Nothing was saved."),
                DocumentError::TooCostly => "That PDF took too long or too much memory to read, so I stopped: nothing was saved.".to_owned(),
                DocumentError::Failed(reason) => {
                    tracing::warn!(%reason, "the pdf reader failed");
                    "I could not read that PDF (the reader failed; the log says why). Nothing was saved.".to_owned()
                }
            };
            send::notice(shared, chat, &reply).await;
            None
        }
    }
}

#[cfg(test)]
mod tests;
