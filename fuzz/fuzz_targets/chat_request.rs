//! Arbitrary bytes as a chat request body: `sidecar::chat::request::parse`
//! must never panic and must either refuse with a 400 or 422 problem or
//! give a question within the documented bounds; a question must then be
//! answered (over the passages of a built `dist/`, else a small fixed set)
//! with a document that serialises, whose quotes are exact excerpts of the
//! passages and whose kind matches its citations.
//!
//! The passages come from `$SIDECAR_FUZZ_DIST` (its search passages) when
//! set, else the repository's `dist/` when built, else a fixed pair.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use contract::search::{Passage, PassageIndex};
use libfuzzer_sys::fuzz_target;
use sidecar::chat::answer::{Kind, Links, compose};
use sidecar::chat::{HISTORY_MAX, MESSAGE_MAX, request};
use sidecar::search::Index;

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let dist = std::env::var_os("SIDECAR_FUZZ_DIST")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../dist")));
        let file = contract::search::read_passages(contract::search::read_from(&dist)).ok();
        Index::new(file.unwrap_or_else(|| {
            let p = |url: &str, heading: &str, text: &str| Passage {
                url: url.into(),
                anchor: heading.to_lowercase(),
                title: "Page".into(),
                heading: heading.into(),
                section: "docs".into(),
                historical: url.contains("archive"),
                licence: None,
                attribution: None,
                reference: false,
                developers: false,
                language: None,
                text: text.into(),
            };
            PassageIndex {
                version: contract::search::PASSAGES_VERSION,
                synonyms: vec![vec!["ph".into(), "acidity".into()]],
                passages: vec![
                    p(
                        "/docs/archive/",
                        "Nitrate",
                        "Nitrate was measured with strips. Dip, wait, read.",
                    ),
                    p(
                        "/docs/data/",
                        "Licence",
                        "The data are open. Cite the source.",
                    ),
                ],
            }
        }))
    })
}

fuzz_target!(|body: &[u8]| {
    let question = match request::parse(body) {
        Ok(q) => q,
        Err(problem) => {
            let code = problem.code.as_str();
            assert!(
                code == "bad_request" || code == "invalid_submission",
                "{code}"
            );
            return;
        }
    };
    assert!((1..=MESSAGE_MAX).contains(&question.message.chars().count()));
    assert!(question.history.len() <= HISTORY_MAX);
    let links = Links {
        base_url: "https://example.org",
        form_url: "https://example.org/contact/",
    };
    let answer = compose(index(), &links, &question, None);
    serde_json::to_vec(&answer).expect("an answer serialises");
    match answer.kind {
        Kind::Answer => assert!(!answer.citations.is_empty() && answer.confidence.is_some()),
        Kind::NoMatch | Kind::Declined => {
            assert!(answer.citations.is_empty() && answer.handoff.suggested)
        }
        Kind::Figures => unreachable!("no statistics were given"),
    }
    for c in &answer.citations {
        assert!(
            (0..index().len()).any(|i| index().passage(i).text().contains(&c.quote)),
            "not an exact quote: {:?}",
            c.quote
        );
    }
});
