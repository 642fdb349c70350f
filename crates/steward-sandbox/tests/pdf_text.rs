//! PDF text extraction (`document::extract_pdf_text`) on files written by an independent
//! writer (fpdf2: a core font; an embedded TrueType subset with a ToUnicode map; RC4
//! encryption with a user password; pages with no text), a decompression bomb, and random
//! and mangled bytes — which must give a refusal, never a panic. Proptest keeps its
//! regressions under `tests/proptest-regressions/`.

use proptest::prelude::*;
use steward_sandbox::document::{PdfRefusal, extract_pdf_text};

const LEASE: &[u8] = include_bytes!("fixtures/lease-3-pages.pdf");
const RECEIPT: &[u8] = include_bytes!("fixtures/receipt-unicode.pdf");
const LOCKED: &[u8] = include_bytes!("fixtures/locked.pdf");
const BLANK: &[u8] = include_bytes!("fixtures/blank-2-pages.pdf");
const NOTE: usize = 64 * 1024;

#[test]
fn every_page_of_a_core_font_pdf_is_read_in_order() {
    let pdf = extract_pdf_text(LEASE, NOTE).unwrap();
    assert_eq!((pdf.pages, pdf.pages_kept), (3, 3));
    let at: Vec<usize> = (1..=3)
        .map(|p| pdf.text.find(&format!("Page {p} of the lease")).unwrap())
        .collect();
    assert!(at[0] < at[1] && at[1] < at[2], "{}", pdf.text);
    assert!(pdf.text.contains("Café au lait"), "{}", pdf.text);
    assert!(
        pdf.text.contains("\n\n"),
        "pages are separated: {}",
        pdf.text
    );
}

#[test]
fn an_embedded_unicode_font_is_read_through_its_to_unicode_map() {
    let pdf = extract_pdf_text(RECEIPT, NOTE).unwrap();
    for want in ["Квитанция", "3,50 €", "Ünïcödé text survives"] {
        assert!(pdf.text.contains(want), "{want} in {:?}", pdf.text);
    }
}

#[test]
fn a_budget_keeps_whole_leading_pages_and_counts_the_rest() {
    let whole = extract_pdf_text(LEASE, NOTE).unwrap();
    let first_page_len = whole.text.find("\n\nPage 2").unwrap();
    let pdf = extract_pdf_text(LEASE, first_page_len + 10).unwrap();
    assert_eq!((pdf.pages, pdf.pages_kept), (3, 1));
    assert!(pdf.text.len() <= first_page_len + 10);
    assert!(pdf.text.contains("Page 1") && !pdf.text.contains("Page 2"));
    assert_eq!(
        extract_pdf_text(LEASE, 10),
        Err(PdfRefusal::FirstPageTooLong)
    );
}

#[test]
fn encrypted_textless_and_damaged_files_are_refused_by_kind() {
    assert_eq!(extract_pdf_text(LOCKED, NOTE), Err(PdfRefusal::Encrypted));
    assert_eq!(extract_pdf_text(BLANK, NOTE), Err(PdfRefusal::NoText));
    for junk in [
        &b""[..],
        b"%PDF-1.7 fake",
        b"hello",
        &LEASE[..LEASE.len() / 3],
    ] {
        assert!(extract_pdf_text(junk, NOTE).is_err(), "{junk:?}");
    }
}

/// One page whose content stream inflates to 20 MiB (a few KB compressed).
fn bomb() -> Vec<u8> {
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let mut content = b"BT /F1 12 Tf 10 10 Td (boom) Tj ET\n".to_vec();
    content.resize(20 * 1024 * 1024, b' ');
    let mut stream = Stream::new(dictionary! {}, content);
    stream.compress().unwrap();
    let content_id = doc.add_object(stream);
    let page_id = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

#[test]
fn a_stream_that_inflates_past_the_bound_is_refused_as_too_large() {
    let bomb = bomb();
    assert!(bomb.len() < 200 * 1024, "{} bytes", bomb.len());
    assert_eq!(extract_pdf_text(&bomb, NOTE), Err(PdfRefusal::TooLarge));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_bytes_are_refused_without_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let mut pdf = b"%PDF-1.4\n".to_vec();
        pdf.extend_from_slice(&bytes);
        prop_assert!(extract_pdf_text(&pdf, NOTE).is_err());
    }

    #[test]
    fn a_mangled_real_pdf_never_panics_and_never_exceeds_the_budget(
        flips in proptest::collection::vec((0..LEASE.len(), any::<u8>()), 1..16),
        cut in 0..LEASE.len(),
    ) {
        let mut pdf = LEASE[..=cut.max(LEASE.len() / 2)].to_vec();
        for (at, byte) in flips {
            if at < pdf.len() {
                pdf[at] = byte;
            }
        }
        if let Ok(text) = extract_pdf_text(&pdf, 200) {
            prop_assert!(text.text.len() <= 200);
            prop_assert!(text.pages_kept >= 1 && text.pages_kept <= text.pages);
        }
    }
}
