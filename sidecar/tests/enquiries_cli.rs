//! `sidecar enquiries` through the real binary on a real SQLite file: bad
//! arguments get a clear message and a non-zero exit, never a panic, and an
//! erasure of an address nothing matches says so and succeeds.

use std::process::{Command, Output};

fn enquiries(data_dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sidecar"))
        .arg("enquiries")
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("SIDECAR_DATABASE")
        .output()
        .expect("the sidecar binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn bad_arguments_are_refused_plainly() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    for (args, expect) in [
        (
            &["show", "not-a-reference"][..],
            "is not an enquiry reference",
        ),
        (
            &["show", "ENQ-NOPE00-NOPE00"][..],
            "no enquiry ENQ-NOPE00-NOPE00",
        ),
        (
            &["export", "--email", "nobody"][..],
            "is not an e-mail address",
        ),
        (&["delete", "--email", "@"][..], "is not an e-mail address"),
    ] {
        let out = enquiries(&data, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(expect), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // Neither or both of --reference and --email: a usage error.
    let out = enquiries(&data, &["delete"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out = enquiries(
        &data,
        &["delete", "--email", "a@b.example", "--reference", "ENQ-A"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn nothing_matched_is_an_answer_too() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let out = enquiries(&data, &["delete", "--email", "Nobody@Example.org"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).trim(),
        "deleted 0 enquiries and 0 outbox rows"
    );
    let out = enquiries(&data, &["export", "--email", "nobody@example.org"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["email"], "nobody@example.org");
    assert_eq!(doc["enquiries"], serde_json::json!([]));
    let out = enquiries(&data, &["list"]);
    assert!(out.status.success() && out.stdout.is_empty());
}
