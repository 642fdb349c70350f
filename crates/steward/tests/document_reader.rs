//! The confined PDF reader with its real child, `steward read-document` (this package's
//! binary): a real PDF read; damaged bytes refused by kind; the child's own address-space
//! limit enforced (a limit too small to work in ends the reading as too costly, where the
//! default reads the same file); and children that hang, die by a signal, answer nonsense
//! or too much — each a clear error, never a hang of the caller.

use std::path::PathBuf;
use std::time::{Duration, Instant};
use steward_sandbox::document::{Confinement, DocumentError, DocumentReader, PdfRefusal};

const LEASE: &[u8] = include_bytes!("../../steward-sandbox/tests/fixtures/lease-3-pages.pdf");

fn reader() -> DocumentReader {
    DocumentReader::new(PathBuf::from(env!("CARGO_BIN_EXE_steward")))
}

/// A reader whose "child" is a shell script (the arguments the reader adds come after it).
fn shell(script: &str, timeout: Duration) -> DocumentReader {
    DocumentReader::with_command(
        PathBuf::from("/bin/sh"),
        vec!["-c".into(), script.into(), "sh".into()],
    )
    .with_limits(
        Confinement {
            cpu_secs: 5,
            memory_bytes: 1 << 30,
        },
        timeout,
    )
}

#[tokio::test]
async fn the_real_child_reads_a_pdf_and_refuses_a_damaged_one() {
    let pdf = reader().pdf_text(LEASE, 64 * 1024).await.unwrap();
    assert_eq!((pdf.pages, pdf.pages_kept), (3, 3));
    assert!(pdf.text.contains("Page 3 of the lease"), "{}", pdf.text);
    let err = reader()
        .pdf_text(b"%PDF-1.7 fake", 64 * 1024)
        .await
        .unwrap_err();
    assert!(
        matches!(err, DocumentError::Refused(PdfRefusal::Unreadable)),
        "{err:?}"
    );
    // The text budget reaches the child: one page of three.
    let first = pdf.text.find("\n\nPage 2").unwrap();
    let part = reader().pdf_text(LEASE, first + 5).await.unwrap();
    assert_eq!((part.pages, part.pages_kept), (3, 1));
}

#[tokio::test]
async fn the_child_confines_itself_to_its_address_space_limit() {
    // One page whose content stream inflates to 15 MiB (16 KB on disk): within the
    // reader's stream bound, so only the address-space limit can stop it.
    const INFLATES: &[u8] =
        include_bytes!("../../steward-sandbox/tests/fixtures/inflates-15mib.pdf");
    let pdf = reader().pdf_text(INFLATES, 64 * 1024).await.unwrap();
    assert!(pdf.text.contains("mostly blank drawing"), "{}", pdf.text);
    let tight = reader().with_limits(
        Confinement {
            cpu_secs: 5,
            memory_bytes: 48 * 1024 * 1024,
        },
        Duration::from_secs(20),
    );
    let err = tight.pdf_text(INFLATES, 64 * 1024).await.unwrap_err();
    assert!(matches!(err, DocumentError::TooCostly), "{err:?}");
}

#[tokio::test]
async fn a_hanging_child_is_killed_at_the_timeout() {
    let started = Instant::now();
    let err = shell("cat >/dev/null; exec sleep 60", Duration::from_millis(500))
        .pdf_text(LEASE, 1024)
        .await
        .unwrap_err();
    assert!(matches!(err, DocumentError::TooCostly), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the caller waited on the child"
    );
}

#[tokio::test]
async fn a_child_killed_by_a_signal_or_answering_nonsense_is_a_clear_error() {
    let timeout = Duration::from_secs(20);
    let killed = shell("kill -KILL $$", timeout).pdf_text(LEASE, 1024).await;
    assert!(
        matches!(killed, Err(DocumentError::TooCostly)),
        "{killed:?}"
    );
    let nonsense = shell("cat >/dev/null; echo '{\"ok\": 3}'", timeout)
        .pdf_text(LEASE, 1024)
        .await;
    assert!(
        matches!(nonsense, Err(DocumentError::Failed(_))),
        "{nonsense:?}"
    );
    let failed = shell("exit 2", timeout).pdf_text(LEASE, 1024).await;
    assert!(
        matches!(failed, Err(DocumentError::Failed(_))),
        "{failed:?}"
    );
    // More text than the budget allows, even well-formed, is refused.
    let greedy = shell(
        "cat >/dev/null; printf '{\"ok\":{\"text\":\"%s\",\"pages\":1,\"pages_kept\":1}}' aaaaaaaaaaaaaaaaaaaa",
        timeout,
    )
    .pdf_text(LEASE, 8)
    .await;
    assert!(
        matches!(greedy, Err(DocumentError::Failed(_))),
        "{greedy:?}"
    );
    // An endless answer is cut at the cap, not read into memory.
    let flood = shell("cat >/dev/null; yes", timeout)
        .pdf_text(LEASE, 8)
        .await;
    assert!(matches!(flood, Err(DocumentError::Failed(_))), "{flood:?}");
}

#[test]
fn the_child_refuses_arguments_it_does_not_understand() {
    let bin = env!("CARGO_BIN_EXE_steward");
    for args in [
        vec!["read-document"],
        vec!["read-document", "docx", "10", "1", "100000000"],
        vec!["read-document", "pdf", "ten", "1", "100000000"],
    ] {
        let out = std::process::Command::new(bin)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
