//! Honest approval cards: the text a human reads before confirming a consequential action.
//!
//! Owns: `make_visible` (escaping invisible, formatting, bidi, control and confusable
//! characters) and `render_card` (a `PendingAction` → an `ActionCard`). Does not own: storing,
//! deciding or expiring actions (the rest of `approvals`), nor how a surface draws the text.
//!
//! # Notation
//! Every escaped character becomes `⟦U+XXXX NAME⟧`: 4–6 uppercase hex digits, a space and an
//! ASCII name or class (`⟦U+202E RIGHT-TO-LEFT OVERRIDE⟧`, `⟦U+0430 CYRILLIC⟧`,
//! `⟦U+E0061 TAG 'a'⟧`). `⟦` and `⟧` in the input are escaped as well, so every `⟦` in a card
//! was written by this renderer and a payload cannot forge an escape or hide one. The only
//! other bracketed marker is `⟦data⟧` (see the layout below).
//!
//! # What is escaped
//! Always: C0 controls except `\n` (`\t` and `\r` included), DEL, C1 controls; zero-width,
//! bidi and other invisible format characters; variation selectors; tag characters; Hangul
//! fillers; private use; noncharacters; large unassigned ranges; every whitespace except
//! plain space and `\n` (no-break, thin, ideographic spaces, U+2028/U+2029...); fullwidth
//! ASCII forms, mathematical alphanumerics and segmented digits (they only imitate ASCII).
//! In a word (a run between plain spaces and line breaks) that contains a Latin
//! letter: letters and digits of other scripts (Greek, Cyrillic, Armenian, Cherokee,
//! letterlike symbols, halfwidth forms, IPA, ...) and a short list of lookalike punctuation
//! (`․` `∕` `꞉` ...).
//! Whole words in one non-Latin script ("Привет", "東京", "café") are shown as is, so people
//! can read their own language. Deliberate exceptions: CJK ideographs, kana and Hangul
//! syllables have no ASCII lookalikes and are routinely written against Latin words without
//! spaces ("私はPythonが好き"), so they stay raw even in a mixed word.
//!
//! The ranges are hand-coded because the workspace takes no Unicode-data crate (build time on
//! two cores matters); this is a cheap heuristic, not a full UTS #39 confusable check.
//!
//! # Layout
//! Header lines (`Action:`, `Id:`, `Expires:`, `Arguments:`, `Step i of n:`, `Preview:`)
//! start at column 0. Tool names and ids in headers are escaped on one line (`\n` escaped
//! too). User data — the arguments as JSON with keys sorted, and the preview — is indented
//! under the gutter `  │ `; a data line that, after leading spaces, starts like a header
//! (case-insensitive) also gets `⟦data⟧ ` in front, so even a surface that drops indentation
//! cannot show it as part of the card's structure. Inside JSON strings, `"`, `\` and C0
//! controls keep their JSON escapes (`\n`, `\t`, `\u001b`); everything else follows the
//! rules above, so decoding the escapes gives back exactly the stored payload.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::Value;
use steward_protocol::{ActionCard, ActionKind, PendingAction};

/// Prefix of every line of user data on a card.
const GUTTER: &str = "  │ ";
/// Put in front of a data line that starts like one of `HEADERS`.
const DATA_MARK: &str = "⟦data⟧ ";
/// Line starts the card itself emits (compared ASCII case-insensitively).
const HEADERS: [&str; 7] = [
    "action:",
    "id:",
    "expires:",
    "arguments",
    "preview:",
    "step ",
    "this action is too long",
];

/// Make every invisible, formatting, bidi, control or confusable character visible, as
/// `⟦U+XXXX NAME⟧` (see the module docs for the exact rules). `\n` is kept.
pub fn make_visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_visible(&mut out, s, Mode::Text);
    out
}

/// The card for `action`. With `max_chars = Some(n)` a card longer than `n` characters is
/// replaced by a notice pointing to the web app / API plus as much of the header as fits,
/// and is not confirmable from that surface; the payload is never cut.
pub fn render_card(action: &PendingAction, max_chars: Option<usize>) -> ActionCard {
    let (header, body) = card_lines(action);
    let full = header
        .iter()
        .chain(body.iter())
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("\n");
    let total = full.chars().count();
    let (text, confirmable) = match max_chars {
        Some(limit) if total > limit => (too_long(action, &header, total, limit), false),
        _ => (full, true),
    };
    ActionCard {
        action_id: action.id.clone(),
        kind: action.kind,
        // Surfaces may show this field on its own, so it gets the same escaping.
        tool: visible_line(&action.tool),
        text,
        expires_at_ms: action.expires_at_ms,
        confirmable,
        revision: action.revision,
    }
}

/// The notice shown instead of a card that does not fit. The notice is kept whole even if
/// it alone exceeds `limit` (a cut notice would be meaningless); header lines are added whole,
/// in order, while they fit.
fn too_long(action: &PendingAction, header: &[String], total: usize, limit: usize) -> String {
    let mut text = format!(
        "This action is too long to show here ({total} characters); review and decide it in \
         the web app or via GET /api/v1/approvals/{}.",
        visible_line(&action.id)
    );
    let mut used = text.chars().count();
    for line in header {
        let cost = 1 + line.chars().count();
        if used + cost > limit {
            break;
        }
        text.push('\n');
        text.push_str(line);
        used += cost;
    }
    text
}

/// Header lines and body lines of the full card.
fn card_lines(action: &PendingAction) -> (Vec<String>, Vec<String>) {
    let parsed: Option<Value> = serde_json::from_str(&action.arguments).ok();
    let steps = match action.kind {
        ActionKind::Plan => parsed.as_ref().and_then(plan_steps),
        ActionKind::Tool => None,
    };
    let title = match (action.kind, &steps) {
        (ActionKind::Tool, _) => visible_line(&action.tool),
        (ActionKind::Plan, Some(steps)) => {
            let s = if steps.len() == 1 { "" } else { "s" };
            format!("Plan ({} step{s})", steps.len())
        }
        (ActionKind::Plan, None) => "Plan (steps not in the expected shape; shown whole)".into(),
    };
    let header = vec![
        format!("Action: {title}"),
        format!("Id: {}", visible_line(&action.id)),
        format!("Expires: {}", utc(action.expires_at_ms)),
    ];

    let mut body = Vec::new();
    match (&steps, &parsed) {
        (Some(steps), _) => {
            for (i, (tool, args)) in steps.iter().enumerate() {
                body.push(format!(
                    "Step {} of {}: {}",
                    i + 1,
                    steps.len(),
                    visible_line(tool)
                ));
                push_data(&mut body, &json_text(args));
            }
        }
        (None, Some(value)) => {
            body.push("Arguments:".into());
            push_data(&mut body, &json_text(value));
        }
        (None, None) => {
            // Stored arguments should always be canonical JSON; if not, show them verbatim
            // rather than pretend.
            body.push("Arguments (not valid JSON, shown as stored):".into());
            push_data(&mut body, &make_visible(&action.arguments));
        }
    }
    if action.preview.is_empty() {
        body.push("Preview: (none)".into());
    } else {
        body.push("Preview:".into());
        push_data(&mut body, &make_visible(&action.preview));
    }
    (header, body)
}

/// `{"steps":[{"tool":"x","arguments":...}, ...]}` → the steps, only if the value has exactly
/// that shape (no other keys anywhere): anything else is shown whole, so nothing the executor
/// might read can be left off the card.
fn plan_steps(value: &Value) -> Option<Vec<(&str, &Value)>> {
    let plan = value.as_object()?;
    if plan.len() != 1 {
        return None;
    }
    let steps = plan.get("steps")?.as_array()?;
    steps
        .iter()
        .map(|step| {
            let step = step.as_object()?;
            if step.len() != 2 {
                return None;
            }
            Some((step.get("tool")?.as_str()?, step.get("arguments")?))
        })
        .collect()
}

/// Append `text` (already made visible) line by line under the gutter.
fn push_data(lines: &mut Vec<String>, text: &str) {
    for line in text.split('\n') {
        let trimmed = line.trim_start_matches(' ');
        let looks_like_header = HEADERS.iter().any(|h| {
            trimmed
                .get(..h.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(h))
        });
        let mark = if looks_like_header { DATA_MARK } else { "" };
        lines.push(format!("{GUTTER}{mark}{line}"));
    }
}

/// Pretty JSON (two-space indent, object keys in byte order) with strings made visible.
fn json_text(value: &Value) -> String {
    let mut out = String::new();
    push_json(&mut out, value, 0);
    out
}

fn push_json(out: &mut String, value: &Value, depth: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            // Sorted here rather than trusting the map type: serde_json's `preserve_order`
            // feature can be switched on by any crate in the build.
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push_str("{\n");
            for (i, (key, item)) in entries.iter().enumerate() {
                indent(out, depth + 1);
                push_json_string(out, key);
                out.push_str(": ");
                push_json(out, item, depth + 1);
                out.push_str(if i + 1 < entries.len() { ",\n" } else { "\n" });
            }
            indent(out, depth);
            out.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                indent(out, depth + 1);
                push_json(out, item, depth + 1);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            indent(out, depth);
            out.push(']');
        }
        Value::Object(_) => out.push_str("{}"),
        Value::Array(_) => out.push_str("[]"),
        Value::String(s) => push_json_string(out, s),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Null => out.push_str("null"),
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    push_visible(out, s, Mode::JsonString);
    out.push('"');
}

/// `s` escaped onto a single line (`\n` escaped too): for tool names and ids in headers.
fn visible_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_visible(&mut out, s, Mode::Line);
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Multi-line text: `\n` kept.
    Text,
    /// One line: `\n` escaped like any other control.
    Line,
    /// Inside a JSON string literal: JSON escapes for `"`, `\` and C0 controls.
    JsonString,
}

fn push_visible(out: &mut String, s: &str, mode: Mode) {
    // A newline splits words where the reader sees a break: a real line break, or `\n` in a
    // JSON string (multi-line text in one language stays readable). In a one-line field the
    // big `⟦U+000A ...⟧` escape stays inside the word, so no homoglyph can hide behind it.
    let is_break = |c: char| c == ' ' || (c == '\n' && mode != Mode::Line);
    let mut rest = s;
    while let Some(i) = rest.find(is_break) {
        push_word(out, &rest[..i], mode);
        match (&rest[i..=i], mode) {
            ("\n", Mode::JsonString) => out.push_str("\\n"),
            // Both separators are one byte.
            (sep, _) => out.push_str(sep),
        }
        rest = &rest[i + 1..];
    }
    push_word(out, rest, mode);
}

fn push_word(out: &mut String, word: &str, mode: Mode) {
    let latin = word.chars().any(is_latin_letter);
    for c in word.chars() {
        if mode == Mode::JsonString && push_json_escape(out, c) {
            continue;
        }
        if let Some(label) = hidden(c) {
            push_escape(out, c, &label);
        } else if let Some(label) = foreign(c).filter(|_| latin) {
            push_escape(out, c, label);
        } else {
            out.push(c);
        }
    }
}

/// JSON's own escapes, the same bytes serde_json writes.
fn push_json_escape(out: &mut String, c: char) -> bool {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{08}' => out.push_str("\\b"),
        '\u{0C}' => out.push_str("\\f"),
        c if (c as u32) < 0x20 => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        _ => return false,
    }
    true
}

fn push_escape(out: &mut String, c: char, label: &str) {
    let _ = write!(out, "⟦U+{:04X} {label}⟧", c as u32);
}

fn is_latin_letter(c: char) -> bool {
    c.is_ascii_alphabetic() || (is_latin_block(c as u32) && c.is_alphabetic())
}

/// Latin-1 Supplement, Latin Extended-A/B/Additional/C/D/E: accented letters of European
/// languages, never escaped on their own account.
fn is_latin_block(cp: u32) -> bool {
    matches!(cp, 0x80..=0x24F | 0x1E00..=0x1EFF | 0x2C60..=0x2C7F | 0xA720..=0xA7FF | 0xAB30..=0xAB6F)
}

/// Scripts without ASCII lookalikes that are commonly written against Latin words.
fn is_cjk(cp: u32) -> bool {
    matches!(cp, 0x3040..=0x30FF | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF | 0xAC00..=0xD7AF | 0x20000..=0x3FFFF)
}

/// Characters escaped only inside a word that also has a Latin letter (homoglyph defence).
#[rustfmt::skip]
fn foreign(c: char) -> Option<&'static str> {
    let cp = c as u32;
    Some(match cp {
        0x00..=0x7F => return None,
        0x0370..=0x03FF | 0x1F00..=0x1FFF => "GREEK",
        0x0400..=0x052F | 0x1C80..=0x1C8F | 0x2DE0..=0x2DFF | 0xA640..=0xA69F => "CYRILLIC",
        0x0530..=0x058F => "ARMENIAN",
        0x13A0..=0x13FF | 0xAB70..=0xABBF => "CHEROKEE",
        0x2100..=0x214F => "LETTERLIKE",
        0xFF00..=0xFFEF => "HALFWIDTH",
        0xFB00..=0xFB06 => "LIGATURE",
        0x0250..=0x02FF | 0x1D00..=0x1DBF => "PHONETIC",
        // Click letters (ǀ ǁ ǂ ǃ), hyphens and dots, slashes, colons, ideographic full stop
        // and zero, katakana middle dot and long vowel mark: lookalikes of ASCII punctuation.
        0x01C0..=0x01C3 | 0x2010..=0x2012 | 0x2024 | 0x2044 | 0x2212 | 0x2215 | 0x2236
        | 0x3002 | 0x3007 | 0x30FB | 0x30FC | 0xA789 | 0xA78A => "LOOKALIKE",
        _ if is_latin_block(cp) || is_cjk(cp) => return None,
        _ if c.is_alphabetic() || c.is_numeric() => "OTHER SCRIPT",
        _ => return None,
    })
}

/// Characters escaped wherever they appear. `\n` is among them (for one-line output);
/// multi-line text is split on it first.
#[rustfmt::skip]
fn hidden(c: char) -> Option<Cow<'static, str>> {
    let cp = c as u32;
    if let Ok(i) = NAMES.binary_search_by_key(&cp, |&(code, _)| code) {
        return Some(Cow::Borrowed(NAMES[i].1));
    }
    let label = match cp {
        0x00..=0x1F | 0x7F..=0x9F => "CONTROL",
        0xFE00..=0xFE0F => return Some(format!("VARIATION SELECTOR-{}", cp - 0xFDFF).into()),
        0xE0100..=0xE01EF => return Some(format!("VARIATION SELECTOR-{}", cp - 0xE00EF).into()),
        // Tags spell hidden ASCII ("ASCII smuggling"): show what they spell.
        0xE0020..=0xE007E => return Some(format!("TAG '{}'", ascii(cp - 0xE0000)).into()),
        0xE0000..=0xE007F => "TAG",
        0xFF01..=0xFF5E => return Some(format!("FULLWIDTH '{}'", ascii(cp - 0xFEE0)).into()),
        0xFF00 | 0xFF5F | 0xFF60 | 0xFFE0..=0xFFEE => "FULLWIDTH",
        0x1D400..=0x1D7FF => "MATHEMATICAL ALPHANUMERIC",
        0x1FBF0..=0x1FBF9 => "SEGMENTED DIGIT",
        _ if cp & 0xFFFE == 0xFFFE || (0xFDD0..=0xFDEF).contains(&cp) => "NONCHARACTER",
        0xE000..=0xF8FF | 0xF0000..=0x10FFFF => "PRIVATE USE",
        0x0600..=0x0605 | 0x06DD | 0x070F | 0x0890 | 0x0891 | 0x08E2 | 0x17B4 | 0x17B5
        | 0x180B..=0x180F | 0x206A..=0x206F | 0xFFF9..=0xFFFB | 0x110BD | 0x110CD
        | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A => "FORMAT",
        0x2065 | 0xFFF0..=0xFFF8 | 0x40000..=0xDFFFF | 0xE0080..=0xE00FF
        | 0xE01F0..=0xEFFFF => "UNASSIGNED",
        _ if c.is_whitespace() && c != ' ' => "SPACE",
        _ => return None,
    };
    Some(Cow::Borrowed(label))
}

fn ascii(cp: u32) -> char {
    char::from_u32(cp).unwrap_or('?')
}

/// Names for the characters a reader most needs to recognise; sorted by code point (binary
/// search; a test checks the order). Every entry is escaped wherever it appears.
#[rustfmt::skip]
const NAMES: &[(u32, &str)] = &[
    (0x00, "NULL"), (0x07, "BELL"), (0x08, "BACKSPACE"), (0x09, "TAB"), (0x0A, "LINE FEED"),
    (0x0B, "VERTICAL TAB"), (0x0C, "FORM FEED"), (0x0D, "CARRIAGE RETURN"), (0x1B, "ESCAPE"),
    (0x7F, "DELETE"), (0x85, "NEXT LINE"), (0xA0, "NO-BREAK SPACE"), (0xAD, "SOFT HYPHEN"),
    (0x034F, "COMBINING GRAPHEME JOINER"), (0x061C, "ARABIC LETTER MARK"),
    (0x115F, "HANGUL FILLER"), (0x1160, "HANGUL FILLER"), (0x180E, "MONGOLIAN VOWEL SEPARATOR"),
    (0x200B, "ZERO WIDTH SPACE"), (0x200C, "ZERO WIDTH NON-JOINER"),
    (0x200D, "ZERO WIDTH JOINER"), (0x200E, "LEFT-TO-RIGHT MARK"),
    (0x200F, "RIGHT-TO-LEFT MARK"), (0x2028, "LINE SEPARATOR"), (0x2029, "PARAGRAPH SEPARATOR"),
    (0x202A, "LEFT-TO-RIGHT EMBEDDING"), (0x202B, "RIGHT-TO-LEFT EMBEDDING"),
    (0x202C, "POP DIRECTIONAL FORMATTING"), (0x202D, "LEFT-TO-RIGHT OVERRIDE"),
    (0x202E, "RIGHT-TO-LEFT OVERRIDE"), (0x202F, "NARROW NO-BREAK SPACE"),
    (0x205F, "MEDIUM MATHEMATICAL SPACE"), (0x2060, "WORD JOINER"),
    (0x2061, "FUNCTION APPLICATION"), (0x2062, "INVISIBLE TIMES"),
    (0x2063, "INVISIBLE SEPARATOR"), (0x2064, "INVISIBLE PLUS"),
    (0x2066, "LEFT-TO-RIGHT ISOLATE"), (0x2067, "RIGHT-TO-LEFT ISOLATE"),
    (0x2068, "FIRST STRONG ISOLATE"), (0x2069, "POP DIRECTIONAL ISOLATE"),
    (0x27E6, "LEFT WHITE SQUARE BRACKET"), (0x27E7, "RIGHT WHITE SQUARE BRACKET"),
    (0x2800, "BRAILLE BLANK"), (0x3000, "IDEOGRAPHIC SPACE"), (0x3164, "HANGUL FILLER"),
    (0xFEFF, "ZERO WIDTH NO-BREAK SPACE"), (0xFFA0, "HANGUL FILLER"),
    (0xFFFC, "OBJECT REPLACEMENT CHARACTER"),
];

/// `ms` since the Unix epoch as `YYYY-MM-DD HH:MM:SS UTC` (no date crate in steward-core;
/// the civil-from-days algorithm is Howard Hinnant's).
fn utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
#[path = "card_tests.rs"]
mod tests;
