//! Arbitrary bytes as a contact form body, as JSON and as a urlencoded
//! form: parsing and validating must never panic, and a submission that
//! passes is within the form's rules (an address that passes the check,
//! a topic of the list, bounded fields).

#![no_main]

use libfuzzer_sys::fuzz_target;
use sidecar::contact::validate::{Format, email_ok, parse, validate};

fuzz_target!(|data: &[u8]| {
    let topics = vec!["Data access".to_owned(), "Volunteering".to_owned()];
    for format in [Format::Json, Format::Form] {
        let Ok(fields) = parse(data, format) else {
            continue;
        };
        if let Ok(s) = validate(&fields, &topics) {
            assert!(email_ok(&s.email), "{:?}", s.email);
            assert!(topics.contains(&s.topic), "{:?}", s.topic);
            assert!(!s.message.trim().is_empty());
        }
    }
});
