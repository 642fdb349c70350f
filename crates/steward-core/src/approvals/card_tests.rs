//! Tests for the card renderer: per-class escapes, untouched scripts, homoglyph words,
//! fuzzing (nothing dangerous raw, deterministic, lossless), length limits and plan cards.
//! The "must be escaped" predicates here are written from the spec, not copied from card.rs.

use super::*;
use proptest::prelude::*;
use serde_json::json;
use steward_protocol::{ActionStatus, ConversationId, PrincipalId, Surface};

fn action(kind: ActionKind, tool: &str, arguments: &Value, preview: &str) -> PendingAction {
    PendingAction {
        id: "5f0c1d2e-0000-4000-8000-000000000001".into(),
        kind,
        tool: tool.into(),
        arguments: arguments.to_string(),
        payload_hash: "0".repeat(64),
        preview: preview.into(),
        trace_id: "trace-1".into(),
        conversation: ConversationId::parse("c1").unwrap(),
        surface: Surface::Http,
        principal: PrincipalId::parse("owner").unwrap(),
        created_at_ms: 1_700_000_000_000,
        expires_at_ms: 1_700_001_800_000,
        status: ActionStatus::Pending,
        revision: 0,
        awaiting_edit: false,
        outcome: None,
        updated_at_ms: 1_700_000_000_000,
    }
}

/// The classes the spec says must never appear raw (`\n` is allowed).
#[rustfmt::skip]
fn must_escape(c: char) -> bool {
    let cp = c as u32;
    (cp < 0x20 && c != '\n')
        || cp & 0xFFFE == 0xFFFE
        || matches!(cp, 0x7F..=0x9F | 0xA0 | 0xAD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x180E
            | 0x2000..=0x200F | 0x2028..=0x202F | 0x205F..=0x2064 | 0x2066..=0x2069 | 0x27E6
            | 0x27E7 | 0x3000 | 0x3164 | 0xE000..=0xF8FF | 0xFDD0..=0xFDEF | 0xFE00..=0xFE0F
            | 0xFEFF | 0xFF01..=0xFF5E | 0xFFA0 | 0x1D400..=0x1D7FF | 0xE0000..=0xE007F
            | 0xE0100..=0xE01EF | 0xF0000..=0x10FFFF)
}

/// Confusable blocks from the spec: never raw in a word that also has an ASCII letter.
fn confusable(c: char) -> bool {
    matches!(c as u32, 0x0370..=0x03FF | 0x0400..=0x052F | 0x0530..=0x058F | 0x13A0..=0x13FF
        | 0x2100..=0x214F | 0xFF00..=0xFFEF)
}

/// Checks the escapes are well formed and returns the text with them removed.
fn strip_escapes(s: &str) -> String {
    let mut residue = String::new();
    let mut rest = s;
    while let Some(start) = rest.find('⟦') {
        residue.push_str(&rest[..start]);
        let after = &rest[start + '⟦'.len_utf8()..];
        let end = after.find('⟧').expect("unclosed escape");
        let inner = &after[..end];
        if inner != "data" {
            let (code, label) = inner.split_once(' ').expect("escape without label");
            let hex = code.strip_prefix("U+").expect("escape without U+");
            assert!((4..=6).contains(&hex.len()), "bad escape {inner}");
            assert!(u32::from_str_radix(hex, 16).is_ok(), "bad escape {inner}");
            assert!(label.chars().all(|c| c.is_ascii_graphic() || c == ' '));
        }
        rest = &after[end + '⟧'.len_utf8()..];
    }
    residue.push_str(rest);
    assert!(!residue.contains('⟧'), "stray closing bracket in {s:?}");
    residue
}

/// Asserts nothing dangerous is raw in `out`.
fn assert_honest(out: &str) {
    let residue = strip_escapes(out);
    if let Some(c) = residue.chars().find(|&c| must_escape(c)) {
        panic!("raw U+{:04X} in {out:?}", c as u32);
    }
    for word in residue.split([' ', '\n']) {
        if word.chars().any(|c| c.is_ascii_alphabetic()) {
            assert!(!word.chars().any(confusable), "raw homoglyph in {word:?}");
        }
    }
}

/// `assert_honest` for card text: JSON escapes (`\n`, `\u001b`) are ASCII but not letters of
/// the word they sit in, so they count as word breaks.
fn assert_card_honest(text: &str) {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        // Outside JSON a backslash is literal, so only an ASCII follower is consumed.
        if c == '\\' && chars.peek().is_some_and(char::is_ascii) {
            out.pop();
            out.push(' ');
            // `\uXXXX` eats its hex digits only: a literal `\u` in a preview may be followed
            // by an escape (`\u⟦U+041F CYRILLIC⟧`), which must still be checked.
            if chars.next() == Some('u') {
                for _ in 0..4 {
                    if chars.next_if(char::is_ascii_hexdigit).is_none() {
                        break;
                    }
                }
            }
        }
    }
    assert_honest(&out);
}

/// Replaces every `⟦U+XXXX …⟧` with its character.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("⟦U+") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "⟦U+".len()..];
        let end = after.find('⟧').unwrap();
        let hex = after[..end].split(' ').next().unwrap();
        out.push(char::from_u32(u32::from_str_radix(hex, 16).unwrap()).unwrap());
        rest = &after[end + '⟧'.len_utf8()..];
    }
    out.push_str(rest);
    out
}

/// The card split into (header line, data under it), data with gutter and marks removed.
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, Vec<&str>)> = Vec::new();
    for line in text.split('\n') {
        match line.strip_prefix(GUTTER) {
            Some(data) => {
                let data = data.strip_prefix(DATA_MARK).unwrap_or(data);
                out.last_mut().unwrap().1.push(data);
            }
            None => out.push((line.to_owned(), Vec::new())),
        }
    }
    out.into_iter().map(|(h, d)| (h, d.join("\n"))).collect()
}

#[test]
fn each_class_is_escaped_with_its_code_point() {
    #[rustfmt::skip]
    let table: &[(char, &str)] = &[
        ('\u{0}', "NULL"), ('\t', "TAB"), ('\r', "CARRIAGE RETURN"), ('\u{1b}', "ESCAPE"),
        ('\u{1f}', "CONTROL"), ('\u{7f}', "DELETE"), ('\u{80}', "CONTROL"), ('\u{9f}', "CONTROL"),
        ('\u{200b}', "ZERO WIDTH SPACE"), ('\u{200f}', "RIGHT-TO-LEFT MARK"),
        ('\u{2060}', "WORD JOINER"), ('\u{2064}', "INVISIBLE PLUS"),
        ('\u{2066}', "LEFT-TO-RIGHT ISOLATE"), ('\u{2069}', "POP DIRECTIONAL ISOLATE"),
        ('\u{202a}', "LEFT-TO-RIGHT EMBEDDING"), ('\u{202e}', "RIGHT-TO-LEFT OVERRIDE"),
        ('\u{61c}', "ARABIC LETTER MARK"), ('\u{feff}', "ZERO WIDTH NO-BREAK SPACE"),
        ('\u{ad}', "SOFT HYPHEN"), ('\u{180e}', "MONGOLIAN VOWEL SEPARATOR"),
        ('\u{34f}', "COMBINING GRAPHEME JOINER"), ('\u{fe00}', "VARIATION SELECTOR-1"),
        ('\u{fe0f}', "VARIATION SELECTOR-16"), ('\u{e0100}', "VARIATION SELECTOR-17"),
        ('\u{e01ef}', "VARIATION SELECTOR-256"), ('\u{e0000}', "TAG"), ('\u{e0041}', "TAG 'A'"),
        ('\u{e007f}', "TAG"), ('\u{115f}', "HANGUL FILLER"), ('\u{1160}', "HANGUL FILLER"),
        ('\u{3164}', "HANGUL FILLER"), ('\u{ffa0}', "HANGUL FILLER"), ('\u{e000}', "PRIVATE USE"),
        ('\u{f8ff}', "PRIVATE USE"), ('\u{10fffd}', "PRIVATE USE"), ('\u{fdd0}', "NONCHARACTER"),
        ('\u{fffe}', "NONCHARACTER"), ('\u{1ffff}', "NONCHARACTER"), ('\u{50000}', "UNASSIGNED"),
        ('\u{600}', "FORMAT"), ('\u{2028}', "LINE SEPARATOR"), ('\u{2029}', "PARAGRAPH SEPARATOR"),
        ('\u{a0}', "NO-BREAK SPACE"), ('\u{2000}', "SPACE"), ('\u{200a}', "SPACE"),
        ('\u{202f}', "NARROW NO-BREAK SPACE"), ('\u{205f}', "MEDIUM MATHEMATICAL SPACE"),
        ('\u{3000}', "IDEOGRAPHIC SPACE"), ('\u{ff41}', "FULLWIDTH 'a'"),
        ('\u{1d41a}', "MATHEMATICAL ALPHANUMERIC"), ('⟦', "LEFT WHITE SQUARE BRACKET"),
        ('⟧', "RIGHT WHITE SQUARE BRACKET"),
    ];
    for &(c, label) in table {
        // Alone, inside an ASCII word and inside a Cyrillic word: escaped every time.
        for (before, after) in [("", ""), ("ab", "cd"), ("При", "вет")] {
            let got = make_visible(&format!("{before}{c}{after}"));
            let want = format!("{before}⟦U+{:04X} {label}⟧{after}", c as u32);
            assert_eq!(got, want, "U+{:04X}", c as u32);
        }
    }
}

#[test]
fn the_name_table_is_sorted_for_binary_search() {
    assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0));
}

#[test]
fn newlines_are_kept_and_one_line_fields_escape_them() {
    assert_eq!(
        make_visible("a\tb\nc\r\n"),
        "a⟦U+0009 TAB⟧b\nc⟦U+000D CARRIAGE RETURN⟧\n"
    );
    assert_eq!(visible_line("a\nb"), "a⟦U+000A LINE FEED⟧b");
    // In a one-line field an escaped newline does not split a word; in JSON `\n` does.
    assert_eq!(
        visible_line("p\nаy"),
        "p⟦U+000A LINE FEED⟧⟦U+0430 CYRILLIC⟧y"
    );
    let mut json = String::new();
    push_json_string(&mut json, "p\nаy\nПривет,\nмир");
    assert_eq!(json, "\"p\\n⟦U+0430 CYRILLIC⟧y\\nПривет,\\nмир\"");
}

#[test]
fn ordinary_text_in_many_scripts_is_untouched() {
    for s in [
        "Hello, world! 1+1=2 (ok) [x] {y} <z> ~/path_to/file.txt",
        "Привет, мир! Встреча в 10:00.",
        "東京タワー 2024年",
        "私はPythonが好き",
        "café crème, naïve façade, Zürich, Straße, Łódź",
        "Γειά σου κόσμε",
        "שלום עולם",
        "مرحبا بالعالم",
        "नमस्ते दुनिया",
        "안녕하세요",
        "Line one\nLine two\n\n  indented",
        "🎉 party",
    ] {
        assert_eq!(make_visible(s), s);
        assert_honest(s);
    }
}

#[test]
fn mixed_script_words_show_their_homoglyphs() {
    let cases = [
        ("pаypal.com", "p⟦U+0430 CYRILLIC⟧ypal.com"),
        ("Αpple", "⟦U+0391 GREEK⟧pple"),
        ("gօօgle", "g⟦U+0585 ARMENIAN⟧⟦U+0585 ARMENIAN⟧gle"),
        ("Ꭺdmin", "⟦U+13AA CHEROKEE⟧dmin"),
        ("\u{212A}ey", "⟦U+212A LETTERLIKE⟧ey"),
        ("pɑypal", "p⟦U+0251 PHONETIC⟧ypal"),
        ("paypal\u{2024}com", "paypal⟦U+2024 LOOKALIKE⟧com"),
        ("\u{FB01}le.txt", "⟦U+FB01 LIGATURE⟧le.txt"),
        (
            "paypal.сом",
            "paypal.⟦U+0441 CYRILLIC⟧⟦U+043E CYRILLIC⟧⟦U+043C CYRILLIC⟧",
        ),
        // Whole foreign words next to it stay readable.
        ("Привет pаypal café", "Привет p⟦U+0430 CYRILLIC⟧ypal café"),
        // An invisible or unusual space does not split a word.
        (
            "pay\u{a0}раl",
            "pay⟦U+00A0 NO-BREAK SPACE⟧⟦U+0440 CYRILLIC⟧⟦U+0430 CYRILLIC⟧l",
        ),
        // Imitations of ASCII are escaped even alone.
        (
            "ｐａｙ",
            "⟦U+FF50 FULLWIDTH 'p'⟧⟦U+FF41 FULLWIDTH 'a'⟧⟦U+FF59 FULLWIDTH 'y'⟧",
        ),
        (
            "𝐩𝐚𝐲",
            "⟦U+1D429 MATHEMATICAL ALPHANUMERIC⟧⟦U+1D41A MATHEMATICAL ALPHANUMERIC⟧\
             ⟦U+1D432 MATHEMATICAL ALPHANUMERIC⟧",
        ),
    ];
    for (input, want) in cases {
        let got = make_visible(input);
        assert_eq!(got, want, "{input:?}");
        assert_honest(&got);
    }
}

#[test]
fn a_payload_cannot_forge_an_escape() {
    let forged = "⟦U+200B ZERO WIDTH SPACE⟧";
    let got = make_visible(forged);
    assert!(got.starts_with("⟦U+27E6 LEFT WHITE SQUARE BRACKET⟧U+200B"));
    assert_eq!(unescape(&got), forged);
}

const POOL: &[char] = &[
    'a',
    'z',
    'A',
    'Z',
    '0',
    '9',
    ' ',
    ' ',
    ' ',
    '\n',
    '.',
    '-',
    '"',
    '\\',
    '{',
    ':',
    'é',
    'ß',
    'П',
    'р',
    'а',
    'е',
    'о',
    'с',
    'Α',
    'ο',
    'օ',
    'Ꭺ',
    'ℌ',
    'K',
    '東',
    'タ',
    'ー',
    'ｱ',
    '\u{0}',
    '\t',
    '\r',
    '\u{1b}',
    '\u{7f}',
    '\u{85}',
    '\u{9b}',
    '\u{ad}',
    '\u{34f}',
    '\u{61c}',
    '\u{115f}',
    '\u{180e}',
    '\u{200b}',
    '\u{200d}',
    '\u{200f}',
    '\u{2028}',
    '\u{2029}',
    '\u{202a}',
    '\u{202e}',
    '\u{2060}',
    '\u{2064}',
    '\u{2066}',
    '\u{2069}',
    '\u{3000}',
    '\u{3164}',
    '\u{a0}',
    '\u{2000}',
    '\u{200a}',
    '\u{202f}',
    '\u{205f}',
    '\u{fe0f}',
    '\u{feff}',
    '\u{ffa0}',
    '\u{e000}',
    '\u{f8ff}',
    '\u{fdd0}',
    '\u{fffe}',
    '\u{e0001}',
    '\u{e0041}',
    '\u{e007f}',
    '\u{e0100}',
    '\u{e01ef}',
    '\u{ff41}',
    '\u{1d41a}',
    '⟦',
    '⟧',
    '│',
    '\u{10ffff}',
    '\u{1f600}',
    '\u{301}',
];

fn text() -> impl Strategy<Value = String> {
    let c = prop_oneof![4 => prop::sample::select(POOL), 1 => any::<char>()];
    prop::collection::vec(c, 0..48).prop_map(|v| v.into_iter().collect())
}

proptest! {
    #[test]
    fn make_visible_hides_nothing_and_loses_nothing(s in text()) {
        let out = make_visible(&s);
        assert_honest(&out);
        prop_assert_eq!(&out, &make_visible(&s));
        prop_assert_eq!(unescape(&out), s);
    }

    #[test]
    fn a_card_is_whole_or_not_confirmable(
        entries in prop::collection::btree_map(text(), text(), 0..5),
        tool in prop_oneof![Just("send_email".to_owned()), text()],
        preview in text(),
        limit in 0usize..1200,
    ) {
        let args = Value::Object(entries.iter().map(|(k, v)| (k.clone(), json!(v))).collect());
        let a = action(ActionKind::Tool, &tool, &args, &preview);
        let full = render_card(&a, None);
        let card = render_card(&a, Some(limit));
        prop_assert!(full.confirmable);
        assert_card_honest(&full.text);
        assert_card_honest(&card.text);
        prop_assert_eq!(&card, &render_card(&a, Some(limit)));
        let total = full.text.chars().count();
        if card.confirmable {
            prop_assert!(card.text.chars().count() <= limit);
            prop_assert_eq!(&card.text, &full.text);
            let blocks = blocks(&card.text);
            let shown = &blocks.iter().find(|b| b.0 == "Arguments:").unwrap().1;
            let decoded: Value = serde_json::from_str(&unescape(shown)).unwrap();
            prop_assert_eq!(decoded, args);
            if !preview.is_empty() {
                let shown = &blocks.iter().find(|b| b.0 == "Preview:").unwrap().1;
                prop_assert_eq!(unescape(shown), preview);
            }
        } else {
            prop_assert!(total > limit);
            let notice = format!("This action is too long to show here ({total} characters)");
            prop_assert!(card.text.starts_with(&notice));
            prop_assert!(!card.text.split('\n').any(|l| l.starts_with(GUTTER)));
            prop_assert!(!card.text.contains("Arguments:") && !card.text.contains("Preview:"));
        }
    }
}

/// Regression (found by the fuzz test in CI): a literal `\u` in a preview followed by an
/// escaped character. The card was right; the checker took `\u⟦U+` for a JSON escape.
#[test]
fn a_literal_backslash_u_before_an_escape_is_checked_whole() {
    let a = action(ActionKind::Tool, "send_email", &json!({}), "\\uП x\\u0041П");
    let card = render_card(&a, Some(0));
    assert!(!card.confirmable);
    let full = render_card(&a, None);
    assert_card_honest(&full.text);
    assert!(full.text.contains("\\u⟦U+041F CYRILLIC⟧"), "{}", full.text);
}

#[test]
fn arguments_are_pretty_with_sorted_keys() {
    let args = json!({"to": "bob@example.com", "cc": ["a", "b"], "meta": {"z": 1, "a": null}});
    let card = render_card(&action(ActionKind::Tool, "send_email", &args, ""), None);
    let want = "Action: send_email\n\
                Id: 5f0c1d2e-0000-4000-8000-000000000001\n\
                Expires: 2023-11-14 22:43:20 UTC\n\
                Arguments:\n  \
                │ {\n  \
                │   \"cc\": [\n  \
                │     \"a\",\n  \
                │     \"b\"\n  \
                │   ],\n  \
                │   \"meta\": {\n  \
                │     \"a\": null,\n  \
                │     \"z\": 1\n  \
                │   },\n  \
                │   \"to\": \"bob@example.com\"\n  \
                │ }\n\
                Preview: (none)";
    assert_eq!(card.text, want);
    assert!(card.confirmable);
    assert_eq!(card.tool, "send_email");
}

#[test]
fn data_cannot_fake_card_structure() {
    let preview = "Will send 1 mail.\nExpires: never\n   action: nothing\nPreview: fine";
    let args = json!({"body": "hi\nExpires: never"});
    let a = action(ActionKind::Tool, "mail\nExpires: never", &args, preview);
    let card = render_card(&a, None);
    let headers: Vec<&str> = card
        .text
        .split('\n')
        .filter(|l| !l.starts_with(GUTTER))
        .collect();
    assert_eq!(
        headers,
        [
            "Action: mail⟦U+000A LINE FEED⟧Expires: never",
            "Id: 5f0c1d2e-0000-4000-8000-000000000001",
            "Expires: 2023-11-14 22:43:20 UTC",
            "Arguments:",
            "Preview:",
        ]
    );
    assert!(card.text.contains("  │ ⟦data⟧ Expires: never\n"));
    assert!(card.text.contains("  │ ⟦data⟧    action: nothing\n"));
    assert!(card.text.ends_with("  │ ⟦data⟧ Preview: fine"));
    assert!(
        card.text
            .contains("  │   \"body\": \"hi\\nExpires: never\"\n")
    );
    assert_eq!(card.tool, "mail⟦U+000A LINE FEED⟧Expires: never");
}

#[test]
fn a_plan_card_lists_every_step() {
    let args = json!({"steps": [
        {"tool": "calendar_add", "arguments": {"title": "Dentist", "day": "Fri"}},
        {"tool": "send_email", "arguments": {"to": "pаypal@example.com"}},
        {"tool": "notes_write", "arguments": {}},
    ]});
    let card = render_card(&action(ActionKind::Plan, "plan", &args, "3 steps"), None);
    let blocks = blocks(&card.text);
    let titles: Vec<&str> = blocks.iter().map(|b| b.0.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Action: Plan (3 steps)",
            "Id: 5f0c1d2e-0000-4000-8000-000000000001",
            "Expires: 2023-11-14 22:43:20 UTC",
            "Step 1 of 3: calendar_add",
            "Step 2 of 3: send_email",
            "Step 3 of 3: notes_write",
            "Preview:",
        ]
    );
    for (i, step) in args["steps"].as_array().unwrap().iter().enumerate() {
        let decoded: Value = serde_json::from_str(&unescape(&blocks[3 + i].1)).unwrap();
        assert_eq!(decoded, step["arguments"]);
    }
    assert!(card.text.contains("p⟦U+0430 CYRILLIC⟧ypal@example.com"));
    assert_card_honest(&card.text);
}

#[test]
fn an_odd_plan_or_unparsable_arguments_are_shown_whole() {
    // An extra key could matter to the executor, so the step list is not trusted.
    let args = json!({"steps": [{"tool": "rm", "arguments": {}, "force": true}]});
    let card = render_card(&action(ActionKind::Plan, "plan", &args, ""), None);
    let shown = blocks(&card.text);
    assert_eq!(
        shown[0].0,
        "Action: Plan (steps not in the expected shape; shown whole)"
    );
    assert_eq!(shown[3].0, "Arguments:");
    assert_eq!(serde_json::from_str::<Value>(&shown[3].1).unwrap(), args);

    let mut a = action(ActionKind::Tool, "x", &json!({}), "");
    a.arguments = "{\"a\": 1,\u{202e} oops".into();
    let card = render_card(&a, None);
    let shown = blocks(&card.text);
    assert_eq!(shown[3].0, "Arguments (not valid JSON, shown as stored):");
    assert_eq!(shown[3].1, "{\"a\": 1,⟦U+202E RIGHT-TO-LEFT OVERRIDE⟧ oops");
}

#[test]
fn a_card_too_long_says_so_with_as_much_header_as_fits() {
    let args = json!({"body": "x".repeat(500)});
    let a = action(ActionKind::Tool, "send_email", &args, "");
    let total = render_card(&a, None).text.chars().count();
    let notice = format!(
        "This action is too long to show here ({total} characters); review and decide it in the \
         web app or via GET /api/v1/approvals/5f0c1d2e-0000-4000-8000-000000000001."
    );
    let n = notice.chars().count();
    let first = "\nAction: send_email";
    let cases = [
        (10, notice.clone()),
        (n + first.len() - 1, notice.clone()),
        (n + first.len(), format!("{notice}{first}")),
    ];
    for (limit, want) in cases {
        let card = render_card(&a, Some(limit));
        assert!(!card.confirmable);
        assert_eq!(card.text, want);
    }
    let fits = render_card(&a, Some(total));
    assert!(fits.confirmable);
    assert!(fits.text.contains(&"x".repeat(500)));
}

#[test]
fn expiry_is_shown_in_utc() {
    assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
    assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00 UTC");
    assert_eq!(utc(1_700_000_000_999), "2023-11-14 22:13:20 UTC");
    assert_eq!(utc(-1), "1969-12-31 23:59:59 UTC");
    // Extremes must not overflow.
    assert!(utc(i64::MAX).ends_with(" UTC"));
    assert!(utc(i64::MIN).ends_with(" UTC"));
}
