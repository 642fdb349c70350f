//! The fakes' multipart reader against what reqwest writes, and against forms it must refuse.

use steward_testkit::multipart::parse;

#[tokio::test]
async fn a_reqwest_form_reads_back_part_by_part_through_the_fake_transcriber() {
    // Through the fake's route, so the reader is checked against a real writer (reqwest).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fake = steward_testkit::FakeModel::start().await.unwrap();
    fake.set_transcript("heard it");
    let form = reqwest::multipart::Form::new()
        .text("model", "whisper-1")
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"\x00\xFFbinary\r\n--not-a-boundary".to_vec())
                .file_name("voice.ogg")
                .mime_str("audio/ogg")
                .unwrap(),
        );
    let answer: serde_json::Value = reqwest::Client::new()
        .post(format!("{}/audio/transcriptions", fake.openai_base_url()))
        .multipart(form)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["text"], "heard it");
    let recorded = &fake.speech_requests()[0];
    let parts = &recorded.form;
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].name, "model");
    assert_eq!(parts[0].text(), Some("whisper-1"));
    assert_eq!(parts[1].name, "file");
    assert_eq!(parts[1].filename.as_deref(), Some("voice.ogg"));
    assert_eq!(parts[1].content_type.as_deref(), Some("audio/ogg"));
    assert_eq!(parts[1].data, b"\x00\xFFbinary\r\n--not-a-boundary");
    assert!(fake.requests().is_empty(), "not a model request");

    // Without the file: OpenAI's 400, still recorded.
    let status = reqwest::Client::new()
        .post(format!("{}/audio/transcriptions", fake.openai_base_url()))
        .multipart(reqwest::multipart::Form::new().text("model", "whisper-1"))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 400);
    assert_eq!(fake.speech_requests().len(), 2);
}

#[test]
fn malformed_forms_are_refused() {
    let ok = "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--b--\r\n";
    assert_eq!(
        parse("multipart/form-data; boundary=b", ok.as_bytes())
            .unwrap()
            .len(),
        1
    );
    for (ct, body) in [
        ("multipart/form-data", ok),
        ("application/json; boundary=b", ok),
        ("multipart/form-data; boundary=", ok),
        // never closed
        (
            "multipart/form-data; boundary=b",
            "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx",
        ),
        // a part without a name
        (
            "multipart/form-data; boundary=b",
            "--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--",
        ),
        // no header end
        (
            "multipart/form-data; boundary=b",
            "--b\r\nContent-Disposition: form-data; name=\"a\"\r\nx\r\n--b--",
        ),
        ("multipart/form-data; boundary=b", ""),
    ] {
        assert!(parse(ct, body.as_bytes()).is_none(), "{ct} {body:?}");
    }
}
