//! `format/` through the public API: Markdown rendered as Telegram HTML (each construct,
//! hostile input), split into messages within the limit (a 10,000-character answer, astral
//! characters at the cut, tags carried across), checked by the tests' own reader of
//! Telegram HTML (`format/checker.rs`); the property tests are in `format/props.rs`.

mod checker;
mod props;

use checker::{check, check_chunks, lost_only_whitespace, utf16, visible};
use std::time::{Duration, Instant};
use steward_telegram::{MESSAGE_LIMIT, render_html, split_html, telegram_messages};

fn rendered(markdown: &str) -> String {
    let html = render_html(markdown);
    if let Err(e) = check(&html) {
        panic!("render_html({markdown:.80?}) is not well-formed: {e}\n{html:.400}");
    }
    html
}

#[test]
fn each_construct_becomes_telegram_html() {
    assert_eq!(
        rendered("# Title\n\nSome *em* and **strong**."),
        "<b>Title</b>\n\nSome <i>em</i> and <b>strong</b>."
    );
    assert_eq!(
        rendered("~~gone~~ and `a<b>`"),
        "<s>gone</s> and <code>a&lt;b&gt;</code>"
    );
    assert_eq!(
        rendered("[site](https://example.com/?a=1&b=\"2\")"),
        "<a href=\"https://example.com/?a=1&amp;b=&quot;2&quot;\">site</a>"
    );
    assert_eq!(
        rendered("> quoted\n> still"),
        "<blockquote>quoted\nstill</blockquote>"
    );
    assert_eq!(rendered("a\n\n---\n\nb"), "a\n\n──────────\n\nb");
    assert_eq!(
        rendered("```rust\nfn main() {}\n```"),
        "<pre><code class=\"language-rust\">fn main() {}</code></pre>"
    );
    assert_eq!(
        rendered("    indented <code>\n"),
        "<pre>indented &lt;code&gt;</pre>"
    );
    assert_eq!(
        rendered("![a cat](https://x.test/cat.png)"),
        "<a href=\"https://x.test/cat.png\">a cat</a>"
    );
    assert_eq!(
        rendered("![](https://x.test/c.png)"),
        "<a href=\"https://x.test/c.png\">image</a>"
    );
    assert_eq!(
        rendered("<mail@example.com>"),
        "<a href=\"mailto:mail@example.com\">mail@example.com</a>"
    );
    assert_eq!(rendered("- [x] done\n- [ ] todo"), "• ☑ done\n• ☐ todo");
}

#[test]
fn lists_become_marked_indented_lines() {
    let html = rendered(
        "Intro:\n\n- one\n- two\n  1. first\n  2. second\n     - deep\n- three\n\n3. c\n4. d\n\nAfter.",
    );
    assert_eq!(
        html,
        "Intro:\n\n• one\n• two\n  1. first\n  2. second\n    • deep\n• three\n\n3. c\n4. d\n\nAfter."
    );
}

#[test]
fn loose_lists_and_quoted_paragraphs_keep_their_first_line() {
    assert_eq!(rendered("- one\n\n  more\n\n- two"), "• one\n  more\n• two");
    assert_eq!(
        rendered("> first\n>\n> second\n>\n> > inner"),
        "<blockquote>first\n\nsecond\n\ninner</blockquote>"
    );
    assert_eq!(
        rendered("- > quoted item"),
        "• <blockquote>quoted item</blockquote>"
    );
}

#[test]
fn a_huge_table_is_written_unpadded() {
    let header = format!("|{}\n|{}\n", "h|".repeat(1000), "-|".repeat(1000));
    let markdown = format!("{header}{}", "|x\n".repeat(1000));
    let html = rendered(&markdown);
    assert!(
        html.len() < 16 * markdown.len(),
        "{} bytes from {}",
        html.len(),
        markdown.len()
    );
    assert!(
        html.starts_with("<pre>h | h | h") && html.contains("\n---\nx\nx\n"),
        "{html:.80}"
    );
}

#[test]
fn a_table_becomes_an_aligned_pre_block() {
    let html = rendered(
        "| Name | Qty | Note |\n|:-----|----:|:----:|\n| apple | 3 | *ok* |\n| kiwi | 12 | `x` |",
    );
    assert_eq!(
        html,
        "<pre>Name  | Qty | Note\n------+-----+-----\napple |   3 |  ok\nkiwi  |  12 |  x</pre>"
    );
}

#[test]
fn styles_close_around_inline_code_and_code_in_a_link_is_plain() {
    assert_eq!(
        rendered("**bold `code` bold**"),
        "<b>bold </b><code>code</code><b> bold</b>"
    );
    assert_eq!(
        rendered("# The `x` field"),
        "<b>The </b><code>x</code><b> field</b>"
    );
    assert_eq!(
        rendered("[see `cfg`](https://a.test)"),
        "<a href=\"https://a.test\">see cfg</a>"
    );
    assert_eq!(
        rendered("# **double** bold"),
        "<b>double bold</b>",
        "no <b> inside <b>"
    );
    assert_eq!(
        rendered("[![logo](https://a.test/l.png)](https://a.test)"),
        "<a href=\"https://a.test\">logo</a>"
    );
}

#[test]
fn raw_html_is_escaped_never_passed_through() {
    let html = rendered(
        "<script>alert(1)</script>\n\nHi <b onclick=\"steal()\">there</b> <img src=x onerror=y>",
    );
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
    assert!(
        html.contains("&lt;b onclick=&quot;steal()&quot;&gt;there&lt;/b&gt;"),
        "{html}"
    );
    assert!(
        !html.contains("<script") && !html.contains("<b onclick") && !html.contains("<img"),
        "{html}"
    );
    assert_eq!(
        visible(&html),
        "<script>alert(1)</script>\n\nHi <b onclick=\"steal()\">there</b> <img src=x onerror=y>"
    );
}

#[test]
fn only_http_https_tg_and_mailto_links_are_links() {
    for refused in [
        "[x](javascript:alert(1))",
        "[x](JavaScript:alert(1))",
        "[x]( javascript:alert(1) )",
        "[x](data:text/html,<script>alert(1)</script>)",
        "[x](vbscript:msgbox)",
        "[x](file:///etc/passwd)",
        "[x](/relative/path)",
        "[x](#anchor)",
        "[x](http:no-slashes)",
        "<javascript:alert(1)>",
    ] {
        let html = rendered(refused);
        assert!(!html.contains("<a"), "{refused} → {html}");
        assert!(
            !html.to_ascii_lowercase().contains("href"),
            "{refused} → {html}"
        );
    }
    assert_eq!(rendered("[x](javascript:alert(1))"), "x");
    for allowed in [
        "[x](http://a.test)",
        "[x](HTTPS://a.test/p)",
        "[x](tg://user?id=1)",
        "[x](mailto:a@b.test)",
    ] {
        assert!(rendered(allowed).starts_with("<a href=\""), "{allowed}");
    }
}

#[test]
fn unbalanced_markers_stay_text() {
    assert_eq!(rendered("**never closed"), "**never closed");
    assert_eq!(
        rendered("2 * 3 ** 4 and snake_case_name"),
        "2 * 3 ** 4 and snake_case_name"
    );
    assert_eq!(rendered("**a *b"), "**a *b");
    assert_eq!(
        rendered("```\nunterminated fence"),
        "<pre>unterminated fence</pre>"
    );
    assert_eq!(rendered("`open code"), "`open code");
}

#[test]
fn a_hundred_thousand_stars_render_quickly_and_bounded() {
    for input in [
        "*".repeat(100_000),
        format!("a{}b", "*".repeat(100_000)),
        "*a".repeat(50_000),
        "**_~~`".repeat(20_000),
    ] {
        let started = Instant::now();
        let html = rendered(&input);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "took {:?}",
            started.elapsed()
        );
        assert!(
            html.len() <= 6 * input.len(),
            "{} bytes from {}",
            html.len(),
            input.len()
        );
        let chunks = split_html(&html, MESSAGE_LIMIT);
        check_chunks(&chunks, MESSAGE_LIMIT).unwrap();
        lost_only_whitespace(&visible(&html), &chunks).unwrap();
    }
}

#[test]
fn a_thousand_levels_of_nesting_neither_overflow_nor_blow_up() {
    let lists: String = (0..1000)
        .map(|depth| format!("{}- level {depth}\n", "  ".repeat(depth)))
        .collect();
    let quotes = format!("{} deep", ">".repeat(1000));
    let mixed = format!("{}x", "> - ".repeat(1000));
    let ordered: String = (0..1000)
        .map(|depth| format!("{}1. n\n", "   ".repeat(depth)))
        .collect();
    let emphasis = format!("{}x{}", "*_".repeat(1000), "_*".repeat(1000));
    let links = format!("{}x{}", "[".repeat(1000), "](https://a.test)".repeat(1000));
    for input in [lists, quotes, mixed, ordered, emphasis, links] {
        // The default test thread's stack (2 MiB) is the bound being tested.
        let html = rendered(&input);
        assert!(
            html.len() <= 12 * input.len() + 64,
            "{} bytes from {}",
            html.len(),
            input.len()
        );
        assert!(
            html.matches("<blockquote>").count() <= 1,
            "quotes flatten into one"
        );
        check_chunks(&split_html(&html, MESSAGE_LIMIT), MESSAGE_LIMIT).unwrap();
    }
    let deep_list: String = (0..1000)
        .map(|depth| format!("{}- l\n", "  ".repeat(depth)))
        .collect();
    let longest = render_html(&deep_list).lines().map(str::len).max().unwrap();
    assert!(longest <= 2 * 8 + 8, "indentation stops growing: {longest}");
}

#[test]
fn nul_and_control_characters_are_dropped_or_replaced() {
    let html = rendered("a\0b\u{1}c\u{7f}d\u{1b}[31me\tf\r\ng `\u{0}\u{8}` ```\u{2}");
    assert!(
        !html
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{html:?}"
    );
    assert_eq!(html, "abcd[31me\tf\ng  ```", "only the controls are gone");
    assert!(visible(&html).contains("[31me\tf"), "{html:?}");
}

#[test]
fn astral_characters_at_the_cut_count_two_and_stay_whole() {
    let crabs = "🦀".repeat(3000); // 6000 UTF-16 units, no whitespace: hard cuts only.
    for limit in [2, 3, 7, 4095, MESSAGE_LIMIT] {
        let chunks = split_html(&crabs, limit);
        check_chunks(&chunks, limit).unwrap();
        assert_eq!(chunks.concat(), crabs, "limit {limit}");
        let (last, full) = chunks.split_last().unwrap();
        assert!(
            full.iter().all(|c| utf16(c) >= limit - 1),
            "chunks are full: limit {limit}"
        );
        assert!(!last.is_empty());
    }
    let mixed = format!("**{}**", "a🦀".repeat(2000));
    let chunks = telegram_messages(&mixed);
    check_chunks(&chunks, MESSAGE_LIMIT).unwrap();
    assert_eq!(chunks.len(), 2);
    assert!(
        chunks
            .iter()
            .all(|c| c.starts_with("<b>") && c.ends_with("</b>")),
        "bold reopened"
    );
    assert_eq!(
        chunks.iter().map(|c| visible(c)).collect::<String>(),
        "a🦀".repeat(2000)
    );
}

#[test]
fn a_cut_is_never_inside_an_entity_or_a_tag() {
    let html = "&amp;&lt;&gt;&quot;".repeat(10);
    for limit in 2..12 {
        let chunks = split_html(&html, limit);
        check_chunks(&chunks, limit).unwrap();
        assert_eq!(chunks.concat(), html, "limit {limit}");
    }
    let linked = format!(
        "<a href=\"https://a.test/{}\">{}</a>",
        "p".repeat(100),
        "x".repeat(40)
    );
    let chunks = split_html(&linked, 16);
    check_chunks(&chunks, 16).unwrap();
    assert_eq!(chunks.len(), 3);
    assert!(
        chunks
            .iter()
            .all(|c| c.starts_with("<a href=\"https://a.test/ppp")),
        "{chunks:?}"
    );
}

#[test]
fn split_prefers_paragraphs_then_lines_then_spaces() {
    let para = "word ".repeat(10).trim_end().to_owned(); // 49 units
    let text = format!("{para}\n{para}\n\n{para}");
    let chunks = split_html(&text, 120);
    assert_eq!(
        chunks,
        vec![format!("{para}\n{para}"), para.clone()],
        "the blank line wins"
    );
    let chunks = split_html(&format!("{para}\n{para}"), 60);
    assert_eq!(
        chunks,
        vec![para.clone(), para.clone()],
        "then the line break"
    );
    let chunks = split_html(&para, 12);
    assert_eq!(
        chunks,
        vec![
            "word word",
            "word word",
            "word word",
            "word word",
            "word word"
        ]
    );
    assert!(split_html("", 10).is_empty(), "no empty chunks");
    assert!(split_html("\n\n  \n", 10).is_empty());
    assert!(telegram_messages("   \n\n<!-- -->").len() <= 1);
}

#[test]
fn split_repairs_html_it_did_not_render() {
    let chunks = split_html("a < b & c > d <i>open <b>x</i> </u> <x-tag> &nbsp;", 4096);
    assert_eq!(
        chunks,
        vec!["a &lt; b &amp; c &gt; d <i>open <b>x</b></i>  &lt;x-tag&gt; &amp;nbsp;"]
    );
    check_chunks(&chunks, 4096).unwrap();
}

#[test]
fn hostile_html_given_to_split_stays_linear_and_bounded() {
    let inputs = [
        format!("{}{}", "<b>".repeat(50_000), "x".repeat(10_000)),
        format!("{}{}", "</i>".repeat(50_000), "y".repeat(5_000)),
        "<".repeat(100_000),
        format!("<a href=\"{}", "z".repeat(100_000)),
    ];
    for html in inputs {
        let started = Instant::now();
        let chunks = split_html(&html, 1000);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "took {:?}",
            started.elapsed()
        );
        check_chunks(&chunks, 1000).unwrap();
        assert!(
            chunks.iter().all(|c| c.len() <= 1000 * 5 + 16 * 8),
            "each chunk's HTML is bounded"
        );
    }
}

fn long_answer() -> (String, String) {
    let mut md = String::from(
        "# Report\n\nHere is **a bold statement\nthat runs across lines** and a [link](https://example.com/a?b=1&c=2).\n\n",
    );
    for i in 0..6 {
        md.push_str(&format!("Paragraph {i}: the quick brown fox jumps over the lazy dog, with *emphasis*, `code`, and ~~strike~~ & <angle> brackets. "));
        md.push_str(&"More words to fill the answer out. ".repeat(8));
        md.push_str("\n\n");
    }
    md.push_str("1. first\n2. second\n   - nested [tg](tg://resolve?domain=x)\n   - nested two\n3. third\n\n");
    let code: String = (0..160)
        .map(|i| format!("    let value_{i} = compute(\"{i}\") & mask << 2; // 🦀 line\n"))
        .collect();
    md.push_str(&format!("```rust\n{code}```\n\n"));
    md.push_str("> A quote at the end with **bold**.\n\n");
    md.push_str(&"Closing words after the code. ".repeat(40));
    (md, code)
}

#[test]
fn a_ten_thousand_character_answer_splits_into_well_formed_messages() {
    let (md, code) = long_answer();
    assert!(md.chars().count() >= 10_000, "{}", md.chars().count());
    assert!(
        utf16(code.trim_end()) > MESSAGE_LIMIT,
        "the code block alone is over the limit"
    );
    let html = rendered(&md);
    let chunks = telegram_messages(&md);
    assert!(chunks.len() >= 3, "{} chunks", chunks.len());
    check_chunks(&chunks, MESSAGE_LIMIT).unwrap();
    // Nothing lost: the chunks' visible texts are the whole's, in order, with only whitespace
    // (the blank line or line break or space each cut was made at) dropped between them.
    let dropped = lost_only_whitespace(&visible(&html), &chunks).unwrap();
    assert!(
        dropped <= 2 * chunks.len(),
        "dropped {dropped} whitespace characters"
    );
    // The code block continues as a <pre> with its language in the next chunk, and its lines
    // come back whole when the pieces are joined at the dropped line break.
    let opening = "<pre><code class=\"language-rust\">";
    let first = chunks.iter().position(|c| c.contains(opening)).unwrap();
    assert!(
        chunks[first].ends_with("</code></pre>"),
        "{:.100}",
        chunks[first]
    );
    assert!(
        chunks[first + 1].starts_with(opening),
        "{:.100}",
        chunks[first + 1]
    );
    let pieces: Vec<String> = chunks[first..]
        .iter()
        .take_while(|c| c.contains(opening))
        .map(|c| {
            let start = c.find(opening).unwrap() + opening.len();
            visible(&c[start..c[start..].find("</code></pre>").unwrap() + start])
        })
        .collect();
    assert!(pieces.len() >= 2);
    assert_eq!(pieces.join("\n"), code.trim_end());
    assert!(
        chunks
            .iter()
            .any(|c| c.contains("<b>a bold statement\nthat runs across lines</b>"))
    );
    assert!(
        chunks
            .iter()
            .any(|c| c.contains("<blockquote>A quote at the end with <b>bold</b>.</blockquote>"))
    );
}
