//! The quality gate: the code (not a prompt) that decides whether a candidate fact may be
//! stored. Pure functions, no IO.
//!
//! Owns: the refusal rules and their reasons. Does not own: asking a model for candidates
//! (`extract`, `reflect`) or source trust on upsert (the store enforces that a user fact is
//! never overwritten).
//!
//! Rules, in the order they are checked (the first that fails is the reported reason):
//! key shape, value shape, confidence, origin (evidence tool / fetched / not the user),
//! secret-shaped text, the assistant's own state, first-person wording, and finally
//! provenance laundering: a value found verbatim (normalised) in a tool output of the same
//! exchange, or whose content words occur in tool output but nowhere in what the user wrote,
//! is treated as tool-originated whatever the model claims.

mod secrets;
#[cfg(test)]
mod tests;

pub(crate) use secrets::{key_names_secret, looks_secret};

use serde::Serialize;

/// Longest fact value, in characters.
pub const MAX_VALUE_CHARS: usize = 500;

/// Who, according to the model, stated a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    User,
    Assistant,
    Tool,
    Fetched,
    /// Missing or not one of the above.
    Unknown,
}

impl Evidence {
    pub fn parse(s: &str) -> Evidence {
        match s.trim().to_lowercase().as_str() {
            "user" => Evidence::User,
            "assistant" => Evidence::Assistant,
            "tool" | "tool_output" => Evidence::Tool,
            "fetched" | "web" => Evidence::Fetched,
            _ => Evidence::Unknown,
        }
    }
}

/// Why a candidate was refused. Every refusal has exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusalReason {
    /// Key empty, longer than 64 bytes, or outside `[a-z0-9_.]`.
    BadKey,
    /// Value empty after trimming.
    EmptyValue,
    /// Value longer than 500 characters.
    ValueTooLong,
    /// Confidence below the configured minimum (or not a number).
    LowConfidence,
    /// The model itself says it came from a tool or fetched content.
    UntrustedOrigin,
    /// Stated by the assistant, or no evidence given: facts about the user come from the user.
    NotStatedByUser,
    /// Credential or secret-shaped value (or a key naming one).
    Secret,
    /// About the assistant itself (its state, plans, abilities).
    AboutAssistant,
    /// First-person wording: whose "I" it is cannot be told apart.
    FirstPerson,
    /// Found in tool output of the same exchange, whatever the model claimed.
    EchoesToolOutput,
    /// The exchange held untrusted content and most of the value's content words are not
    /// in anything the user wrote (a paraphrase, a translation or a decoding of something).
    Ungrounded,
}

impl RefusalReason {
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalReason::BadKey => "bad_key",
            RefusalReason::EmptyValue => "empty_value",
            RefusalReason::ValueTooLong => "value_too_long",
            RefusalReason::LowConfidence => "low_confidence",
            RefusalReason::UntrustedOrigin => "untrusted_origin",
            RefusalReason::NotStatedByUser => "not_stated_by_user",
            RefusalReason::Secret => "secret",
            RefusalReason::AboutAssistant => "about_assistant",
            RefusalReason::FirstPerson => "first_person",
            RefusalReason::EchoesToolOutput => "echoes_tool_output",
            RefusalReason::Ungrounded => "ungrounded",
        }
    }
}

/// A fact a model proposed.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    pub key: &'a str,
    pub value: &'a str,
    pub confidence: f32,
    pub evidence: Evidence,
}

/// What the gate knows about the exchange the candidate came from.
#[derive(Debug, Clone, Copy)]
pub struct GateContext<'a> {
    pub min_confidence: f32,
    /// Everything the user wrote in the exchange (None: unknown, grounding is not checked).
    pub user_text: Option<&'a str>,
    /// Untrusted text of the exchange: tool outputs and fetched content.
    pub tool_outputs: &'a [&'a str],
}

/// Key phrases (lower-case, whole words) that speak about the assistant itself.
const ASSISTANT_PHRASES: &[&str] = &[
    "i will",
    "i'll",
    "i am going to",
    "i'm going to",
    "i can't",
    "i cannot",
    "i don't have",
    "i do not have",
    "i have no",
    "i should",
    "i must",
    "i need to",
    "i remember",
    "as an ai",
    "an ai assistant",
    "language model",
    "the assistant",
    "this assistant",
    "the bot",
    "assistant's",
    "my memory",
    "my instructions",
    "my system prompt",
    "my tools",
    "my context",
    "system prompt",
];

/// First-person words: a fact about the user is written in the third person.
const FIRST_PERSON: &[&str] = &["i", "i'm", "i've", "i'd", "i'll", "me", "myself"];

/// Key prefixes that name the assistant rather than the user.
const ASSISTANT_KEY_PREFIXES: &[&str] = &[
    "assistant",
    "steward",
    "self.",
    "self_",
    "system.",
    "system_",
    "bot.",
    "bot_",
    "agent.",
    "agent_",
];

/// Words too common to say where a value came from.
const STOPWORDS: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "are", "was", "were", "has", "have",
    "had", "not", "but", "user", "users", "user's", "their", "they", "them", "his", "her", "she",
    "does", "did", "into", "about", "than", "then", "all", "any", "can", "will", "would", "should",
    "could", "its", "it's", "who", "what", "when", "where", "which", "also", "very",
];

/// Check a candidate fact. `Ok(())` means it may be stored (still subject to source trust).
pub fn check(c: &Candidate<'_>, ctx: &GateContext<'_>) -> Result<(), RefusalReason> {
    check_shape(c.key, c.value)?;
    if c.confidence.is_nan() || c.confidence < ctx.min_confidence {
        return Err(RefusalReason::LowConfidence);
    }
    match c.evidence {
        Evidence::User => {}
        Evidence::Tool | Evidence::Fetched => return Err(RefusalReason::UntrustedOrigin),
        Evidence::Assistant | Evidence::Unknown => return Err(RefusalReason::NotStatedByUser),
    }
    check_content(c.key, c.value)?;
    check_not_laundered(c.value, ctx, Grounding::Whole)
}

/// Key and value shape only: what any stored fact must satisfy, whoever wrote it.
pub fn check_shape(key: &str, value: &str) -> Result<(), RefusalReason> {
    if steward_protocol::FactKey::parse(key).is_err() {
        return Err(RefusalReason::BadKey);
    }
    let value = value.trim();
    if value.is_empty() {
        return Err(RefusalReason::EmptyValue);
    }
    if value.chars().count() > MAX_VALUE_CHARS {
        return Err(RefusalReason::ValueTooLong);
    }
    Ok(())
}

/// Content rules that need no exchange: secrets, the assistant's own state, first person.
pub fn check_content(key: &str, value: &str) -> Result<(), RefusalReason> {
    if key_names_secret(key) || looks_secret(value) || looks_secret(key) {
        return Err(RefusalReason::Secret);
    }
    if ASSISTANT_KEY_PREFIXES.iter().any(|p| key.starts_with(p))
        || has_phrase(value, ASSISTANT_PHRASES)
    {
        return Err(RefusalReason::AboutAssistant);
    }
    if words(value)
        .iter()
        .any(|w| FIRST_PERSON.contains(&w.as_str()))
    {
        return Err(RefusalReason::FirstPerson);
    }
    Ok(())
}

/// Free text that reaches memory without being a fact (learnings, intentions, summaries):
/// non-empty, at most `max_chars`, no secrets, not laundered from tool output.
pub fn check_text(
    text: &str,
    max_chars: usize,
    ctx: &GateContext<'_>,
) -> Result<(), RefusalReason> {
    let t = text.trim();
    if t.is_empty() {
        return Err(RefusalReason::EmptyValue);
    }
    if t.chars().count() > max_chars {
        return Err(RefusalReason::ValueTooLong);
    }
    if looks_secret(t) {
        return Err(RefusalReason::Secret);
    }
    check_not_laundered(t, ctx, Grounding::NoToolWords)
}

/// Turn a model-written key into the stored form: trimmed, lower-case, spaces and dashes as
/// `_`. The result still goes through `steward_protocol::FactKey` (in `check_shape`).
pub fn normalise_key(raw: &str) -> String {
    raw.trim()
        .to_lowercase()
        .chars()
        .map(|c| if c == ' ' || c == '-' { '_' } else { c })
        .collect()
}

/// Provenance laundering, checked only when the exchange held untrusted text (otherwise
/// there is nothing to launder): the value appears verbatim (normalised) in a tool output and
/// not in the user's own words; or, when the user's words are known, any content word of the
/// value occurs in tool output but not in what the user wrote (the whole value must be
/// grounded, not one word of it); or most content words are not in the user's words at all
/// (a paraphrase, translation or decoding of something the user never said; facts and
/// tainted-turn memory writes only, see `Grounding`).
fn check_not_laundered(
    value: &str,
    ctx: &GateContext<'_>,
    grounding: Grounding,
) -> Result<(), RefusalReason> {
    if ctx.tool_outputs.is_empty() {
        return Ok(());
    }
    let v = normalise(value);
    if v.is_empty() {
        return Ok(());
    }
    let tools: Vec<String> = ctx.tool_outputs.iter().map(|t| normalise(t)).collect();
    let user = ctx.user_text.map(normalise);
    let padded = |hay: &str| format!(" {hay} ");
    let needle = padded(&v);
    let in_tool = tools.iter().any(|t| padded(t).contains(&needle));
    let in_user = user.as_deref().is_some_and(|u| padded(u).contains(&needle));
    if in_user {
        return Ok(());
    }
    if in_tool {
        return Err(RefusalReason::EchoesToolOutput);
    }
    let Some(user) = user else {
        return Ok(());
    };
    let content: Vec<&str> = v
        .split(' ')
        .filter(|w| w.chars().count() >= 3 && !STOPWORDS.contains(w))
        .collect();
    let occurs = |hay: &str, w: &str| padded(hay).contains(&format!(" {w} "));
    let missing: Vec<&str> = content
        .iter()
        .copied()
        .filter(|w| !occurs(&user, w))
        .collect();
    if missing.iter().any(|w| tools.iter().any(|t| occurs(t, w))) {
        return Err(RefusalReason::EchoesToolOutput);
    }
    if grounding == Grounding::Whole && missing.len() * 2 > content.len() {
        return Err(RefusalReason::Ungrounded);
    }
    Ok(())
}

/// How much of a text must be the user's own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grounding {
    /// A fact about the user, or text the model writes into memory in a tainted turn:
    /// most content words must be the user's.
    Whole,
    /// Reflection's own inferences (learnings, summaries, intentions) are not quotes; they
    /// only must not carry words that came from tool output.
    NoToolWords,
}

/// The laundering check alone, for text the model writes into memory in a turn that read
/// untrusted content (`remember`, `save_note`, `read_later`): `owner_text` is everything the
/// owner wrote in the conversation, `untrusted` the untrusted texts the model saw.
pub fn check_grounded(
    text: &str,
    owner_text: &str,
    untrusted: &[&str],
) -> Result<(), RefusalReason> {
    let ctx = GateContext {
        min_confidence: 0.0,
        user_text: Some(owner_text),
        tool_outputs: untrusted,
    };
    check_not_laundered(text, &ctx, Grounding::Whole)
}

/// Lower-case alphanumeric words separated by single spaces (punctuation dropped).
pub(crate) fn normalise(text: &str) -> String {
    words(text)
        .into_iter()
        .map(|w| w.replace('\'', ""))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Lower-case words; apostrophes (straight or curly) stay inside words.
pub(crate) fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['\u{2019}', '\u{2018}'], "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_owned())
        .filter(|w| !w.is_empty())
        .collect()
}

fn has_phrase(text: &str, phrases: &[&str]) -> bool {
    let joined = format!(" {} ", words(text).join(" "));
    phrases.iter().any(|p| joined.contains(&format!(" {p} ")))
}
