//! Unit tests of the small text rules: `escape_html`, `draft_text` and `visible_text`. Rendering and
//! splitting are tested through the public API in `tests/format.rs`.

use super::{MESSAGE_LIMIT, draft_text, escape_html, render_html, visible_text};

fn utf16(text: &str) -> usize {
    text.encode_utf16().count()
}

#[test]
fn escape_html_replaces_exactly_the_four_characters() {
    assert_eq!(
        escape_html(r#"a < b && c > "d" 'e'"#),
        "a &lt; b &amp;&amp; c &gt; &quot;d&quot; 'e'"
    );
    assert_eq!(
        escape_html("&lt;"),
        "&amp;lt;",
        "an entity in the input is text, escaped again"
    );
    assert_eq!(escape_html(""), "");
    assert_eq!(escape_html("plain ✓ 🦀\n\t"), "plain ✓ 🦀\n\t");
    assert_eq!(
        escape_html("<script>alert(1)</script>"),
        "&lt;script&gt;alert(1)&lt;/script&gt;"
    );
}

#[test]
fn draft_text_keeps_short_text_as_is_markdown_included() {
    assert_eq!(draft_text("**bold** `x` <b>", 100), "**bold** `x` <b>");
    let exact = "a".repeat(10);
    assert_eq!(
        draft_text(&exact, 10),
        exact,
        "exactly at the limit is not cut"
    );
    assert_eq!(draft_text("", 5), "");
}

#[test]
fn draft_text_cuts_with_an_ellipsis_inside_the_limit() {
    let text = "a".repeat(5000);
    let draft = draft_text(&text, MESSAGE_LIMIT);
    assert_eq!(utf16(&draft), MESSAGE_LIMIT);
    assert!(draft.ends_with('…'));
    assert_eq!(draft.trim_end_matches('…'), "a".repeat(MESSAGE_LIMIT - 1));
}

#[test]
fn draft_text_counts_utf16_and_never_splits_an_astral_character() {
    // Each crab is two UTF-16 units: with 5 units of room only 2 crabs fit, not 2.5.
    let crabs = "🦀".repeat(10);
    let draft = draft_text(&crabs, 6);
    assert_eq!(draft, "🦀🦀…");
    assert!(utf16(&draft) <= 6);
    for limit in 0..30 {
        let draft = draft_text(&crabs, limit);
        assert!(utf16(&draft) <= limit, "limit {limit}: {draft:?}");
    }
}

#[test]
fn draft_text_trims_whitespace_before_the_ellipsis_and_handles_tiny_limits() {
    assert_eq!(draft_text("hello     world", 8), "hello…");
    assert_eq!(draft_text("hello", 0), "");
    assert_eq!(draft_text("hello", 1), "…");
}

#[test]
fn visible_text_drops_tags_and_turns_entities_back() {
    let html = render_html("**Tom & Jerry** say <hi> \"loud\"\n\n```\na < b\n```");
    let text = visible_text(&html);
    assert!(text.contains("Tom & Jerry say <hi> \"loud\""), "{text:?}");
    assert!(text.contains("a < b"), "{text:?}");
    assert!(
        !text.contains("&amp;") && !text.contains("&lt;"),
        "{text:?}"
    );
    assert!(!text.contains("<b>") && !text.contains("<pre>"), "{text:?}");
    // Stray markup it did not render is read as text, never dropped.
    assert_eq!(visible_text("1 < 2 & <x>"), "1 < 2 & <x>");
}
