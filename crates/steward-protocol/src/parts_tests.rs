//! Unit tests of the part rules: media types, file names, blob references, limits, serde.

use super::*;
use crate::{Message, PartLimits, Upload};

fn png() -> MimeType {
    MimeType::parse("image/png").unwrap()
}

#[test]
fn media_types_are_allow_listed_per_kind() {
    assert_eq!(
        MimeType::parse("image/png").unwrap().kind(),
        PartKind::Image
    );
    assert_eq!(
        MimeType::parse(" Image/JPEG ").unwrap().as_str(),
        "image/jpeg"
    );
    assert_eq!(
        MimeType::parse("audio/ogg").unwrap().kind(),
        PartKind::Audio
    );
    assert_eq!(
        MimeType::parse("application/pdf").unwrap().kind(),
        PartKind::File
    );
    assert_eq!(
        MimeType::parse("text/plain").unwrap().kind(),
        PartKind::File
    );
    for hostile in [
        "",
        "image/svg+xml",
        "text/html",
        "application/x-sh",
        "image/png; charset=utf-8",
        "image/png\0",
        "image/*",
        "application/octet-stream",
    ] {
        let err = MimeType::parse(hostile).unwrap_err();
        assert_eq!(err, PartError::MimeNotAllowed, "{hostile:?}");
        assert!(err.to_string().contains("image/png"), "{err}");
        if !hostile.is_empty() {
            assert!(!err.to_string().contains(hostile), "echoed {hostile:?}");
        }
    }
}

#[test]
fn file_names_are_one_component_without_controls() {
    assert_eq!(
        FileName::parse("photo 1.jpg").unwrap().as_str(),
        "photo 1.jpg"
    );
    assert!(FileName::parse("Zürich 日本.pdf").is_ok());
    assert!(FileName::parse(&"a".repeat(MAX_FILE_NAME_LEN)).is_ok());
    for hostile in [
        String::new(),
        "a".repeat(MAX_FILE_NAME_LEN + 1),
        "../etc/passwd".into(),
        "dir/file.png".into(),
        "C:\\x.png".into(),
        ".".into(),
        "..".into(),
        "a\0b".into(),
        "line\nbreak.txt".into(),
        "esc\u{1b}[31m.png".into(),
        "gnp.\u{202E}exe".into(),
        " padded.png".into(),
        "padded.png ".into(),
    ] {
        let err = FileName::parse(&hostile).unwrap_err();
        assert!(
            matches!(err, PartError::BadFileName(_)),
            "{hostile:?}: {err}"
        );
    }
}

#[test]
fn blob_refs_are_sha256_of_the_bytes() {
    let r = BlobRef::of(b"abc");
    assert_eq!(
        r.as_str(),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(BlobRef::parse(r.as_str()).unwrap(), r);
    assert_eq!(r.hex().len(), 64);
    let upper = r.as_str().to_uppercase().replace("SHA256:", "sha256:");
    for bad in [
        "",
        "sha256:",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "md5:ba7816bf8f01cfea414140de5dae2223",
        "sha256:../../../../etc/passwd",
        &upper,
        &format!("{}0", r.as_str()),
    ] {
        assert_eq!(BlobRef::parse(bad), Err(PartError::BadBlobRef), "{bad:?}");
    }
}

#[test]
fn an_upload_computes_its_reference_and_refuses_a_forged_one() {
    let up = Upload::new(png(), None, b"\x89PNG fake".to_vec()).unwrap();
    assert_eq!(up.attachment().size(), 9);
    assert_eq!(up.attachment().blob(), &BlobRef::of(b"\x89PNG fake"));
    let forged = BlobRef::of(b"something else");
    assert_eq!(
        Upload::verified(png(), None, b"\x89PNG fake".to_vec(), &forged),
        Err(PartError::HashMismatch)
    );
    let text = MimeType::parse("text/plain").unwrap();
    assert_eq!(
        Upload::new(text, None, vec![0xff, 0xfe]),
        Err(PartError::NotUtf8Text)
    );
    assert!(Upload::new(text, None, "plain".as_bytes().to_vec()).is_ok());
    // Debug never prints the bytes.
    let dbg = format!("{up:?}");
    assert!(
        dbg.contains("bytes: 9") && !dbg.contains("80, 78, 71"),
        "{dbg}"
    );
}

#[test]
fn an_upload_round_trips_through_json_with_its_bytes() {
    let name = FileName::parse("p.png").unwrap();
    let up = Upload::new(png(), Some(name), vec![0u8, 1, 2, 255]).unwrap();
    let json = serde_json::to_value(&up).unwrap();
    assert_eq!(json["data_base64"], "AAEC/w==");
    let back: Upload = serde_json::from_value(json).unwrap();
    assert_eq!(back, up);
    let err = serde_json::from_value::<Upload>(
        serde_json::json!({"mime_type": "image/png", "data_base64": "not base64!"}),
    )
    .unwrap_err();
    assert!(err.to_string().contains("base64"), "{err}");
}

#[test]
fn an_attachment_kind_must_match_its_media_type() {
    let good = serde_json::json!({
        "kind": "image", "mime_type": "image/png", "size": 3, "blob": BlobRef::of(b"abc"),
    });
    let a: Attachment = serde_json::from_value(good.clone()).unwrap();
    assert_eq!((a.kind(), a.size(), a.name()), (PartKind::Image, 3, None));
    let mut lying = good.clone();
    lying["kind"] = "audio".into();
    let err = serde_json::from_value::<Attachment>(lying).unwrap_err();
    assert!(err.to_string().contains("does not match"), "{err}");
    let mut bad_hash = good;
    bad_hash["blob"] = "sha256:zz".into();
    assert!(serde_json::from_value::<Attachment>(bad_hash).is_err());
}

#[test]
fn placeholders_name_the_kind_the_name_and_the_size() {
    let name = FileName::parse("cat<b>.png").unwrap();
    let a = Attachment::new(png(), 120 * 1024, Some(name), BlobRef::of(b"x"));
    assert_eq!(a.placeholder(), "[image: cat&lt;b>.png, 120 KB]");
    let audio = MimeType::parse("audio/ogg").unwrap();
    let a = Attachment::new(audio, 2_500_000, None, BlobRef::of(b"y"));
    assert_eq!(a.placeholder(), "[audio: audio/ogg, 2.3 MB]");
    assert_eq!(human_size(10), "10 B");
}

#[test]
fn limits_check_each_part_the_total_and_the_count() {
    let limits = PartLimits {
        max_part_bytes: 10,
        max_message_bytes: 15,
        max_parts: 2,
    };
    assert!(limits.check([10, 5]).is_ok());
    let err = limits.check([11]).unwrap_err();
    assert!(err.is_too_large() && matches!(err, PartError::PartTooLarge { .. }));
    assert!(matches!(
        limits.check([10, 6]),
        Err(PartError::MessageTooLarge { size: 16, .. })
    ));
    assert!(matches!(
        limits.check([1, 1, 1]),
        Err(PartError::TooManyParts { count: 3, .. })
    ));
    assert!(!PartError::MimeNotAllowed.is_too_large());
}

#[test]
fn old_message_json_without_attachments_still_parses_and_new_json_omits_empty() {
    let old: Message = serde_json::from_str(r#"{"role":"user","content":"hi"}"#).unwrap();
    assert!(old.attachments.is_empty());
    let json = serde_json::to_value(Message::user("hi")).unwrap();
    assert!(json.get("attachments").is_none(), "{json}");
    let a = Attachment::new(png(), 3, None, BlobRef::of(b"abc"));
    let with = Message::user_with("look", vec![a.clone()]);
    let back: Message = serde_json::from_value(serde_json::to_value(&with).unwrap()).unwrap();
    assert_eq!(back.attachments, vec![a]);
}
