//! The pure parts of media intake: what a document is taken for, a note's title, sizes in words.

use super::*;

fn document(name: Option<&str>, mime: Option<&str>) -> Document {
    serde_json::from_value(serde_json::json!({
        "file_id": "f", "file_unique_id": "u", "file_name": name, "mime_type": mime,
    }))
    .unwrap()
}

#[test]
fn documents_are_told_apart_by_type_then_extension() {
    let cases = [
        (Some("notes.md"), None, DocumentKind::Text),
        (
            Some("notes.MARKDOWN"),
            Some("application/octet-stream"),
            DocumentKind::Text,
        ),
        (Some("a"), Some("text/plain"), DocumentKind::Text),
        (None, Some("Text/Markdown"), DocumentKind::Text),
        (Some("paper.pdf"), Some("text/plain"), DocumentKind::Pdf),
        (Some("paper"), Some("application/pdf"), DocumentKind::Pdf),
        (
            Some("tool.exe"),
            Some("application/x-msdownload"),
            DocumentKind::Other,
        ),
        (Some("md"), None, DocumentKind::Other),
        (None, None, DocumentKind::Other),
    ];
    for (name, mime, kind) in cases {
        assert_eq!(
            document_kind(&document(name, mime)),
            kind,
            "{name:?} {mime:?}"
        );
    }
}

#[test]
fn a_note_title_is_the_file_stem_without_controls() {
    assert_eq!(note_title(Some("Shopping list.md")), "Shopping list");
    assert_eq!(note_title(Some("a.b.txt")), "a.b");
    assert_eq!(note_title(Some("bad\u{7}\nname.md")), "badname");
    assert_eq!(note_title(Some(".md")), "Note from Telegram");
    assert_eq!(note_title(None), "Note from Telegram");
    let long = format!("{}.md", "é".repeat(500));
    assert_eq!(note_title(Some(&long)).chars().count(), MAX_TITLE_CHARS);
}

#[test]
fn sizes_read_as_people_say_them() {
    assert_eq!(shown_size(1024 * 1024), "1 MB");
    assert_eq!(shown_size(64 * 1024), "64 KB");
    assert_eq!(shown_size(10), "10 bytes");
}

#[test]
fn a_pdf_note_says_how_many_pages_it_holds() {
    assert_eq!(pages_said((1, 1)), ", 1 page");
    assert_eq!(pages_said((3, 3)), ", 3 pages");
    let part = pages_said((12, 40));
    assert!(
        part.contains("first 12 of 40 pages") && part.contains("64 KB"),
        "{part}"
    );
}
