//! Property tests over arbitrary Markdown-ish strings (regressions persisted by proptest's
//! default file persistence under `proptest-regressions/`): rendering never panics and is
//! well-formed, and every split of it at any limit in 16..=4096 is well-formed, within the
//! limit and loses nothing but whitespace.

use super::checker::{check, check_chunks, lost_only_whitespace, visible};
use proptest::prelude::*;
use steward_telegram::{render_html, split_html};

const PIECES: &[&str] = &[
    "*",
    "**",
    "_",
    "__",
    "~~",
    "`",
    "```",
    "```rust\n",
    "[",
    "](",
    ")",
    "](https://a.test)",
    "](javascript:x)",
    "![",
    "<",
    ">",
    "&",
    "&amp;",
    "&lt;",
    "\"",
    "\n",
    "\n\n",
    "# ",
    "## ",
    "- ",
    "1. ",
    "  ",
    "    ",
    "> ",
    "|",
    "| a | b |\n|---|:-:|\n",
    "---\n",
    "<b>",
    "</pre>",
    "<a href=\"x\">",
    "🦀",
    "é",
    "\u{0}",
    "\u{1}",
    "\r",
    "\t",
    "[x]: https://a.test\n",
    "\\",
];

fn markdownish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => proptest::sample::select(PIECES).prop_map(str::to_owned),
        2 => "[a-z ]{0,12}",
        1 => any::<String>().prop_map(|s| s.chars().take(6).collect()),
    ];
    proptest::collection::vec(piece, 0..80).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn rendering_is_always_well_formed_and_every_split_fits(
        markdown in markdownish(),
        limit in 16usize..=4096,
    ) {
        let html = render_html(&markdown);
        prop_assert!(check(&html).is_ok(), "{:?} → {:?}: {:?}", markdown, html, check(&html));
        let chunks = split_html(&html, limit);
        let checked = check_chunks(&chunks, limit);
        prop_assert!(checked.is_ok(), "{:?}: {:?}", checked, chunks);
        let kept = lost_only_whitespace(&visible(&html), &chunks);
        prop_assert!(kept.is_ok(), "{:?}: {:?}", kept, chunks);
    }

    #[test]
    fn small_limits_split_long_renders_within_bounds(
        markdown in markdownish(),
        limit in 16usize..64,
    ) {
        let html = render_html(&markdown.repeat(4));
        let chunks = split_html(&html, limit);
        let checked = check_chunks(&chunks, limit);
        prop_assert!(checked.is_ok(), "{:?}: {:?}", checked, chunks);
        prop_assert!(lost_only_whitespace(&visible(&html), &chunks).is_ok());
    }
}
