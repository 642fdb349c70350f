//! The compact text the memory tools return: one line per hit, carrying its kind and id,
//! score, source and provenance, with stored text flattened onto that line and cut short.
//! Does not own ranking or what is stored.

use steward_memory::RecallHit;
use steward_protocol::{MemoryKind, Provenance};

/// Characters of a hit's text shown; the rest is one `recall` of the exact item away.
const SNIPPET_CHARS: usize = 240;
const TITLE_CHARS: usize = 100;
const ORIGIN_CHARS: usize = 80;

/// `no matches` or `N matches` followed by one line per hit, best first.
pub fn hits(hits: &[RecallHit]) -> String {
    if hits.is_empty() {
        return "no matches".to_owned();
    }
    let mut out = format!(
        "{} match{}",
        hits.len(),
        if hits.len() == 1 { "" } else { "es" }
    );
    for hit in hits {
        out.push('\n');
        out.push_str(&hit_line(hit));
    }
    out
}

fn hit_line(hit: &RecallHit) -> String {
    let item = &hit.item;
    let mut head = format!(
        "[{} {} | score {:.4}",
        item.r#ref.kind.as_str(),
        item.r#ref.id,
        hit.score
    );
    if let Some(source) = item.source {
        head.push_str(" | source ");
        head.push_str(source.as_str());
    }
    head.push_str(" | from ");
    head.push_str(&provenance(&item.provenance));
    if !item.tags.is_empty() {
        head.push_str(" | tags ");
        head.push_str(&one_line(&item.tags.join(","), TITLE_CHARS));
    }
    head.push_str("] ");
    let title = one_line(&item.title, TITLE_CHARS);
    let text = one_line(&item.text, SNIPPET_CHARS);
    match item.r#ref.kind {
        MemoryKind::Fact => format!("{head}{title} = {text}"),
        _ if title.is_empty() => format!("{head}{text}"),
        _ => format!("{head}{title}: {text}"),
    }
}

/// Who a piece of memory came from, in a word or two.
pub(crate) fn provenance(p: &Provenance) -> String {
    match p {
        Provenance::User { .. } => "user".to_owned(),
        Provenance::Assistant { .. } => "assistant".to_owned(),
        Provenance::ToolOutput { tool } => format!("tool:{}", one_line(tool, ORIGIN_CHARS)),
        Provenance::Fetched { url } => format!("fetched:{}", one_line(url, ORIGIN_CHARS)),
        Provenance::Reflection => "reflection".to_owned(),
        Provenance::Tainted { sources, .. } => {
            let s = sources.join(",");
            format!("tainted:{} (unconfirmed)", one_line(&s, ORIGIN_CHARS))
        }
    }
}

/// Stored text on a single line, at most `max` characters (plus "…" when cut). Line breaks
/// and other control characters become spaces so stored text can never start a line of its
/// own and pass for another hit.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max * 4));
    let mut count = 0;
    let mut last_space = true;
    let mut cut = false;
    for c in text.chars() {
        let c = if c.is_control() || c.is_whitespace() {
            ' '
        } else {
            c
        };
        if c == ' ' && last_space {
            continue;
        }
        if count == max {
            cut = true;
            break;
        }
        last_space = c == ' ';
        out.push(c);
        count += 1;
    }
    let trimmed_len = out.trim_end().len();
    out.truncate(trimmed_len);
    if cut {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_flattens_and_cuts() {
        assert_eq!(one_line("a\nb\r\n\tc", 10), "a b c");
        assert_eq!(one_line("  lead  and trail  ", 50), "lead and trail");
        assert_eq!(one_line("abcdef", 3), "abc…");
        assert_eq!(one_line("éééé", 2), "éé…");
        assert_eq!(one_line("ab", 2), "ab");
        assert_eq!(one_line("x\u{2028}y\u{0085}z", 10), "x y z");
    }

    #[test]
    fn provenance_is_short() {
        assert_eq!(provenance(&Provenance::User { conversation: None }), "user");
        let long = Provenance::Fetched {
            url: format!("https://e.com/{}\nx", "a".repeat(500)),
        };
        let shown = provenance(&long);
        assert!(shown.starts_with("fetched:https://e.com/"));
        assert!(shown.chars().count() <= "fetched:".len() + ORIGIN_CHARS + 1);
        assert!(!shown.contains('\n'));
    }
}
