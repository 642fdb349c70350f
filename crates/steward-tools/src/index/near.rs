//! Near matches for a tool name the model got wrong: small edit distance, one name inside
//! the other, or a shared word (`_`-separated). Does not own the wording around them.

/// How many suggestions a message carries.
const MAX_SUGGESTIONS: usize = 5;
/// Names are at most 64 bytes; anything longer from the model is cut before comparing.
const MAX_COMPARED: usize = 64;

/// Up to five candidates most like `wanted`, closest first (ties by name).
pub fn near_matches<'a>(wanted: &str, candidates: impl Iterator<Item = &'a str>) -> Vec<String> {
    let wanted: String = wanted
        .chars()
        .take(MAX_COMPARED)
        .collect::<String>()
        .to_ascii_lowercase()
        .replace(['-', ' ', '.'], "_");
    let words: Vec<&str> = wanted.split('_').filter(|w| w.len() >= 3).collect();
    let mut scored: Vec<(usize, &str)> = candidates
        .filter_map(|name| {
            let distance = edit_distance(&wanted, name);
            let close = distance <= (wanted.len().max(name.len()) / 3).max(2);
            let contains =
                wanted.len() >= 3 && (name.contains(wanted.as_str()) || wanted.contains(name));
            let shares_word = name.split('_').any(|w| w.len() >= 3 && words.contains(&w));
            // A shared word or containment ranks after close spellings but before nothing.
            (close || contains || shares_word).then_some((distance, name))
        })
        .collect();
    scored.sort();
    scored.dedup();
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, n)| n.to_owned())
        .collect()
}

/// Levenshtein distance over chars (both sides are at most 64 chars here).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().take(MAX_COMPARED).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != cb);
            cur[j + 1] = substitute.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &[
        "convert_units",
        "current_time",
        "everything_echo",
        "filesystem_read_file",
        "filesystem_write_file",
        "memory_create_entities",
    ];

    #[test]
    fn finds_typos_words_and_parts() {
        assert_eq!(
            near_matches("curent_time", NAMES.iter().copied()),
            ["current_time"]
        );
        assert_eq!(
            near_matches("echo", NAMES.iter().copied()),
            ["everything_echo"]
        );
        let files = near_matches("read_file", NAMES.iter().copied());
        assert_eq!(files[0], "filesystem_read_file", "{files:?}");
        assert!(files.contains(&"filesystem_write_file".to_owned()));
        assert!(
            near_matches("Convert-Units", NAMES.iter().copied())
                .contains(&"convert_units".to_owned())
        );
    }

    #[test]
    fn nothing_alike_gives_nothing_and_hostile_input_is_bounded() {
        assert!(near_matches("zzzz", NAMES.iter().copied()).is_empty());
        let huge = "x".repeat(1_000_000);
        assert!(near_matches(&huge, NAMES.iter().copied()).is_empty());
        assert!(near_matches("", NAMES.iter().copied()).is_empty());
    }

    #[test]
    fn distance_is_levenshtein() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
