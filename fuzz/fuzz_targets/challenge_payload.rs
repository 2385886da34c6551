//! The contact form's `altcha` field: base64 JSON, decoded and verified.
//! The first input byte picks the mode: the rest of the input as the field,
//! or the JSON of a correctly solved challenge with the rest spliced in at
//! a position the input gives, then encoded. Asserts that nothing is ever
//! accepted but the challenge this key issued, with its parameters unchanged
//! and its own derived key; that a decoded payload re-serialises; and that
//! nothing panics.

#![no_main]

use std::sync::OnceLock;

use base64::Engine;
use libfuzzer_sys::fuzz_target;
use sidecar::contact::altcha::{Altcha, Challenge, Payload, Solution, pbkdf2_sha256};

const ISSUED_MS: i64 = 1_800_000_000_000;
const NOW_MS: i64 = ISSUED_MS + 5_000;

struct Solved {
    altcha: Altcha,
    challenge: Challenge,
    derived_key: String,
    json: String,
}

fn solved() -> &'static Solved {
    static SOLVED: OnceLock<Solved> = OnceLock::new();
    SOLVED.get_or_init(|| {
        let altcha = Altcha::new(b"fuzz-challenge-key".to_vec());
        let challenge = altcha.issue(1, (0, 8), ISSUED_MS, 60_000);
        let p = &challenge.parameters;
        let nonce = hex::decode(&p.nonce).unwrap();
        let salt = hex::decode(&p.salt).unwrap();
        let derived_key = (0u32..)
            .map(|counter| {
                let mut password = nonce.clone();
                password.extend_from_slice(&counter.to_be_bytes());
                hex::encode(pbkdf2_sha256(&password, &salt, p.cost, p.key_length as usize))
            })
            .find(|key| key.starts_with(&p.key_prefix))
            .unwrap();
        let json = format!(
            r#"{{"challenge":{},"solution":{{"counter":1,"derivedKey":"{derived_key}","time":0.5}}}}"#,
            serde_json::to_string(&challenge).unwrap()
        );
        let field = base64::engine::general_purpose::STANDARD.encode(&json);
        let payload = Altcha::decode(&field).expect("the solved payload decodes");
        altcha
            .verify(&payload, NOW_MS, 1_000)
            .expect("the solved payload verifies");
        Solved {
            altcha,
            challenge,
            derived_key,
            json,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let s = solved();
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let field = if mode % 2 == 0 {
        String::from_utf8_lossy(rest).into_owned()
    } else {
        let Some((at, splice)) = rest.split_first_chunk::<2>() else {
            return;
        };
        let at = usize::from(u16::from_le_bytes(*at)) % (s.json.len() + 1);
        let mut json = s.json.as_bytes()[..at].to_vec();
        json.extend_from_slice(splice);
        json.extend_from_slice(&s.json.as_bytes()[at..]);
        base64::engine::general_purpose::STANDARD.encode(json)
    };
    let Ok(payload) = Altcha::decode(&field) else {
        return;
    };
    let _ = serde_json::to_vec(&payload.challenge).unwrap();
    let Payload {
        challenge,
        solution: Solution { derived_key, .. },
    } = &payload;
    // Now, too soon after issue, and after expiry (the clock is the server's).
    for (now, min_fill) in [
        (NOW_MS, 1_000),
        (ISSUED_MS, 1_000),
        (ISSUED_MS + 120_000, 0),
    ] {
        let accepted = s.altcha.verify(&payload, now, min_fill).is_ok();
        assert!(!accepted || now == NOW_MS, "accepted at {now}");
        if accepted {
            assert_eq!(challenge, &s.challenge, "an altered challenge was accepted");
            assert_eq!(
                derived_key.to_ascii_lowercase(),
                s.derived_key,
                "another key was accepted"
            );
        }
    }
});
