//! The full-text side of a recall query: the user's words without English function words.
//!
//! Owns: the stopword list. Does not own: turning words into a safe FTS expression (the
//! store does that, quoting every token).
//!
//! Why: the store ORs every query token, so "when do I see the tooth doctor?" would match any
//! note containing "the" or "do", filling the full-text candidate list with noise that
//! reciprocal rank fusion then rewards. Dropping function words leaves the content words; a
//! query made only of them is searched as typed.

const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "being",
    "but",
    "by",
    "can",
    "can't",
    "cannot",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "don't",
    "for",
    "from",
    "get",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "him",
    "his",
    "how",
    "i",
    "i'm",
    "i've",
    "i'd",
    "i'll",
    "if",
    "in",
    "into",
    "is",
    "isn't",
    "it",
    "it's",
    "its",
    "just",
    "me",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "our",
    "ours",
    "out",
    "over",
    "own",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "what's",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "should",
    "shall",
    "may",
    "might",
    "must",
    "ok",
    "okay",
    "please",
    "tell",
    "remind",
    "know",
    "anything",
    "something",
    "much",
    "many",
];

/// The words of `query` worth a full-text match, space-separated; the query itself when
/// every word is a stopword.
pub(crate) fn fts_terms(query: &str) -> String {
    let normalised = query.replace(['\u{2019}', '\u{2018}'], "'");
    let kept: Vec<&str> = normalised
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-' || c == '_' || c == '.'))
        .map(|w| w.trim_matches(|c: char| matches!(c, '\'' | '-' | '_' | '.')))
        .filter(|w| !w.is_empty() && !STOPWORDS.contains(&w.to_lowercase().as_str()))
        .collect();
    if kept.is_empty() {
        query.to_owned()
    } else {
        kept.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_function_words_keeps_content() {
        assert_eq!(
            fts_terms("when do I see the tooth doctor?"),
            "see tooth doctor"
        );
        assert_eq!(fts_terms("What’s my WiFi SSID"), "WiFi SSID");
        assert_eq!(
            fts_terms("model X-200 v1.2 specs"),
            "model X-200 v1.2 specs"
        );
    }

    #[test]
    fn all_stopwords_searches_as_typed() {
        assert_eq!(fts_terms("who am I"), "who am I");
        assert_eq!(fts_terms("   "), "   ");
    }
}
