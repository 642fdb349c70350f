//! Private values: what the owner keeps in Steward that must not leave in a URL or a payload
//! without a card showing it — stored facts, notes, and the secrets in the configuration.
//! Matching is done on a normalised form (lower-case letters and digits only), so spacing,
//! punctuation, case, subdomain dots and path slashes cannot hide a value; the texts
//! searched come already decoded (`links::decode`).
//!
//! Owns: what counts as a private value and how it is matched. Does not own: decoding
//! URLs, or when a match makes a call ask (`rule`).

use std::sync::Arc;
use steward_memory::{Memory, RecallMode, RecallOptions};
use steward_protocol::{MemoryKind, Quarantine};
use steward_store::MemoryFilter;

/// Normalised fact values shorter than this are not searched (too many false matches:
/// "yes", a city code).
const MIN_VALUE_CHARS: usize = 5;
/// Facts read per check (the context block reads the same number).
const MAX_FACTS: usize = 500;
/// Notes that the full-text search proposes for a closer look.
const NOTES_CHECKED: usize = 5;
/// A note is "in" a text when this many consecutive words of it are.
const SHINGLE_WORDS: usize = 3;
/// ... and those words make at least this many normalised characters.
const MIN_SHINGLE_CHARS: usize = 10;
/// Configured secrets shorter than this are not searched.
const MIN_SECRET_CHARS: usize = 8;

/// One private value found in an outbound text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    /// What it is, for the card: "fact home.address", "note 12 (Passport)", "a secret
    /// from the configuration".
    pub what: String,
    /// The value as the owner knows it (never shown for secrets).
    pub shown: Option<String>,
}

/// Where private values come from. Cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct PrivateValues {
    pub(crate) memory: Option<Arc<Memory>>,
    /// Secret values from the configuration (API keys, tokens, MCP credentials).
    pub(crate) secrets: Arc<Vec<String>>,
}

/// Lower-case letters and digits only.
pub(crate) fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The normalised pieces of a fact value that each count as the value: the whole, each
/// comma/semicolon/line part, and each long run of digits (phone and account numbers).
fn value_pieces(value: &str) -> Vec<String> {
    let mut out = vec![norm(value)];
    out.extend(value.split([',', ';', '\n', '/', '|']).map(norm));
    let mut digits = String::new();
    for c in value.chars().chain(std::iter::once('x')) {
        if c.is_ascii_digit() {
            digits.push(c);
        } else if !matches!(c, ' ' | '-' | '.' | '(' | ')' | '+') {
            if digits.len() >= 6 {
                out.push(std::mem::take(&mut digits));
            }
            digits.clear();
        }
    }
    out.retain(|p| p.chars().count() >= MIN_VALUE_CHARS);
    out.sort();
    out.dedup();
    out
}

/// Does `body` share `SHINGLE_WORDS` consecutive words with the normalised `hay`?
fn shares_words(body: &str, hay: &str) -> bool {
    let w = words(body);
    w.windows(SHINGLE_WORDS).any(|win| {
        let joined: String = win.concat();
        joined.chars().count() >= MIN_SHINGLE_CHARS && hay.contains(&joined)
    })
}

impl PrivateValues {
    /// Private values that occur in any of `texts` (already decoded). A memory failure is
    /// logged and counts as "nothing found": the tainted-turn rule still applies.
    pub(crate) async fn find(&self, user: &str, texts: &[String]) -> Vec<Finding> {
        let hay: Vec<String> = texts.iter().map(|t| norm(t)).collect();
        let joined = hay.join(" ");
        let mut found = Vec::new();
        for s in self
            .secrets
            .iter()
            .filter(|s| s.chars().count() >= MIN_SECRET_CHARS)
        {
            let ns = norm(s);
            if texts.iter().any(|t| t.contains(s.as_str()))
                || (ns.len() >= MIN_SECRET_CHARS && joined.contains(&ns))
            {
                found.push(Finding {
                    what: "a secret from Steward's configuration".into(),
                    shown: None,
                });
                break;
            }
        }
        let Some(memory) = &self.memory else {
            return found;
        };
        match memory.list_facts(user, MAX_FACTS, 0).await {
            Ok(facts) => {
                for f in facts {
                    if value_pieces(&f.value)
                        .iter()
                        .any(|p| joined.contains(p.as_str()))
                    {
                        found.push(Finding {
                            what: format!("your stored fact `{}`", f.key),
                            shown: Some(f.value.clone()),
                        });
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "facts unavailable for the outbound check"),
        }
        let query = texts
            .iter()
            .flat_map(|t| words(t))
            .filter(|w| w.chars().count() >= 3)
            .take(64)
            .collect::<Vec<_>>()
            .join(" ");
        if !query.is_empty() {
            let opts = RecallOptions {
                filter: MemoryFilter {
                    kinds: vec![MemoryKind::Note],
                    ..MemoryFilter::default()
                },
                limit: NOTES_CHECKED,
                mode: RecallMode::FullText,
                recency_half_life: None,
                quarantine: Quarantine::ShowAll,
            };
            match memory.recall(user, &query, &opts).await {
                Ok(hits) => {
                    for h in hits {
                        let body = format!("{} {}", h.item.title, h.item.text);
                        if shares_words(&body, &joined) {
                            found.push(Finding {
                                what: format!(
                                    "your note {} ({})",
                                    h.item.r#ref.id,
                                    short(&h.item.title)
                                ),
                                shown: None,
                            });
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "notes unavailable for the outbound check"),
            }
        }
        found
    }
}

fn short(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_pieces_cover_parts_and_numbers() {
        let p = value_pieces("12 Rue de la Paix, 75002 Paris");
        assert!(p.contains(&"12ruedelapaix75002paris".to_owned()), "{p:?}");
        assert!(p.contains(&"12ruedelapaix".to_owned()), "{p:?}");
        let phone = value_pieces("+33 6 12 34 56 78");
        assert!(phone.iter().any(|x| x == "33612345678"), "{phone:?}");
        assert!(value_pieces("yes").is_empty());
    }

    #[test]
    fn shingles_match_across_separators() {
        assert!(shares_words(
            "Passport number is X1234567 expires",
            "numberisx1234567"
        ));
        assert!(!shares_words("a b c", "abc"));
        assert!(!shares_words("Passport number is", "passport"));
    }
}
