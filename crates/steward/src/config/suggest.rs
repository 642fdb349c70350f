//! "Did you mean" for unknown keys: the closest known key by edit distance.
//!
//! Owns: the distance metric and threshold. Does not own: the list of keys.

/// Closest candidate to `key`, if any is plausibly a typo of it. A key written without
/// its table (e.g. `max_rounds` for `agent.max_rounds`) also matches.
pub(crate) fn closest<'a>(key: &str, candidates: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut best: Option<(usize, &str)> = None;
    for cand in candidates {
        let last = cand.rsplit('.').next().unwrap_or(cand);
        let d = distance(key, cand).min(if last == key { 0 } else { usize::MAX });
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, cand));
        }
    }
    let (d, cand) = best?;
    let limit = (key.chars().count() / 3).max(2);
    (d <= limit).then(|| cand.to_string())
}

/// Levenshtein distance over chars.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("same", "same"), 0);
    }

    #[test]
    fn suggests_typos_and_missing_table() {
        let keys = ["model", "agent.max_rounds", "http.addr"];
        assert_eq!(closest("modle", keys.into_iter()).as_deref(), Some("model"));
        assert_eq!(
            closest("max_rounds", keys.into_iter()).as_deref(),
            Some("agent.max_rounds")
        );
        assert_eq!(closest("completely_unrelated", keys.into_iter()), None);
    }
}
