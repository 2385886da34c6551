//! ALTCHA proof-of-work challenges, version 2, deterministic mode.
//!
//! The server picks a secret counter, derives `PBKDF2-SHA-256(nonce ‖
//! counter as u32 BE, salt, cost, keyLength)` once, and publishes half of
//! the key (`keyPrefix`) and an HMAC of the whole key (`keySignature`). The
//! browser searches counters until a derived key starts with `keyPrefix`;
//! verifying its answer costs two HMACs and no key derivation. `signature`
//! is the HMAC of the parameters serialised as JSON with sorted keys (the
//! field order of [`Parameters`]), so nothing in them can be altered.
//! Replays are refused by the store (a used nonce), not here.

use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The only algorithm issued and accepted.
pub const ALGORITHM: &str = "PBKDF2/SHA-256";
/// Bytes of a derived key.
const KEY_LENGTH: u32 = 32;

/// Challenge parameters. Fields are in sorted key order: serde writes them
/// in declaration order, which makes the signed bytes canonical.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameters {
    pub algorithm: String,
    pub cost: u32,
    pub data: ChallengeData,
    #[serde(rename = "expiresAt")]
    pub expires_at: i64,
    #[serde(rename = "keyLength")]
    pub key_length: u32,
    #[serde(rename = "keyPrefix")]
    pub key_prefix: String,
    #[serde(rename = "keySignature")]
    pub key_signature: String,
    pub nonce: String,
    pub salt: String,
}

/// The flat `data` map: when the challenge was issued (Unix milliseconds),
/// for the minimum fill time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChallengeData {
    #[serde(rename = "issuedAt")]
    pub issued_at: i64,
}

/// A challenge as served and as echoed back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Challenge {
    pub parameters: Parameters,
    pub signature: String,
}

/// The solver's answer.
#[derive(Debug, Clone, Deserialize)]
pub struct Solution {
    pub counter: u64,
    #[serde(rename = "derivedKey")]
    pub derived_key: String,
    /// Solving time reported by the client (informative only).
    #[serde(default)]
    pub time: Option<f64>,
}

/// The decoded `altcha` form field.
#[derive(Debug, Clone, Deserialize)]
pub struct Payload {
    pub challenge: Challenge,
    pub solution: Solution,
}

/// Why a payload is refused (each maps to one problem code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Undecodable, forged, altered or wrongly solved.
    Invalid,
    Expired,
    TooFast,
}

/// Issues challenges and verifies their solutions with one secret key.
#[derive(Clone)]
pub struct Altcha {
    key: Vec<u8>,
}

impl std::fmt::Debug for Altcha {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Altcha { key: <secret> }")
    }
}

/// PBKDF2 with HMAC-SHA-256 (RFC 8018), by the RustCrypto `pbkdf2` crate
/// on the same `hmac`/`sha2` stack as the signatures.
pub fn pbkdf2_sha256(password: &[u8], salt: &[u8], cost: u32, len: usize) -> Vec<u8> {
    let mut key = vec![0u8; len];
    pbkdf2::pbkdf2_hmac::<Sha256>(password, salt, cost, &mut key);
    key
}

/// Random bytes from the operating system.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).expect("the OS random source works");
    buf
}

/// A uniformly random integer in `lo..=hi`.
pub fn random_between(lo: u64, hi: u64) -> u64 {
    let span = hi.saturating_sub(lo).saturating_add(1);
    lo + u64::from_le_bytes(random_bytes::<8>()) % span
}

impl Altcha {
    pub fn new(key: Vec<u8>) -> Altcha {
        Altcha { key }
    }

    fn mac(&self, parts: &[&[u8]]) -> Vec<u8> {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("HMAC takes any key length");
        parts.iter().for_each(|p| mac.update(p));
        mac.finalize().into_bytes().to_vec()
    }

    fn verify_mac(&self, parts: &[&[u8]], tag_hex: &str) -> bool {
        let Some(tag) = hex::decode(tag_hex).ok() else {
            return false;
        };
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("HMAC takes any key length");
        parts.iter().for_each(|p| mac.update(p));
        mac.verify_slice(&tag).is_ok()
    }

    fn sign(&self, parameters: &Parameters) -> String {
        let bytes = serde_json::to_vec(parameters).expect("parameters serialise");
        hex::encode(self.mac(&[&bytes]))
    }

    /// A new challenge: `counter` drawn from `counter_range`, valid until
    /// `now_ms + ttl_ms`.
    pub fn issue(
        &self,
        cost: u32,
        counter_range: (u64, u64),
        now_ms: i64,
        ttl_ms: i64,
    ) -> Challenge {
        let nonce = random_bytes::<16>();
        let salt = random_bytes::<16>();
        let counter = random_between(counter_range.0, counter_range.1) as u32;
        let mut password = nonce.to_vec();
        password.extend_from_slice(&counter.to_be_bytes());
        let key = pbkdf2_sha256(&password, &salt, cost, KEY_LENGTH as usize);
        let parameters = Parameters {
            algorithm: ALGORITHM.into(),
            cost,
            data: ChallengeData { issued_at: now_ms },
            expires_at: (now_ms + ttl_ms).div_euclid(1000),
            key_length: KEY_LENGTH,
            key_prefix: hex::encode(&key[..KEY_LENGTH as usize / 2]),
            key_signature: hex::encode(self.mac(&[&key])),
            nonce: hex::encode(nonce),
            salt: hex::encode(salt),
        };
        let signature = self.sign(&parameters);
        Challenge {
            parameters,
            signature,
        }
    }

    /// Decodes the base64 `altcha` field.
    pub fn decode(field: &str) -> Result<Payload, Refusal> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(field.trim())
            .map_err(|_| Refusal::Invalid)?;
        serde_json::from_slice(&bytes).map_err(|_| Refusal::Invalid)
    }

    /// Checks the signature, the expiry, the solution (key prefix and key
    /// signature) and the minimum fill time. Returns the nonce and the
    /// expiry in milliseconds, for the replay record.
    pub fn verify(
        &self,
        p: &Payload,
        now_ms: i64,
        min_fill_ms: i64,
    ) -> Result<(String, i64), Refusal> {
        let params = &p.challenge.parameters;
        let canonical = serde_json::to_vec(params).map_err(|_| Refusal::Invalid)?;
        if !self.verify_mac(&[&canonical], &p.challenge.signature)
            || params.algorithm != ALGORITHM
            || params.key_length != KEY_LENGTH
        {
            return Err(Refusal::Invalid);
        }
        if params.expires_at.saturating_mul(1000) < now_ms {
            return Err(Refusal::Expired);
        }
        let derived = p.solution.derived_key.to_ascii_lowercase();
        if derived.len() != 2 * KEY_LENGTH as usize
            || !derived.starts_with(&params.key_prefix)
            || !self.verify_mac(
                &[&hex::decode(&derived).ok().ok_or(Refusal::Invalid)?],
                &params.key_signature,
            )
        {
            return Err(Refusal::Invalid);
        }
        if now_ms - params.data.issued_at < min_fill_ms {
            return Err(Refusal::TooFast);
        }
        Ok((params.nonce.clone(), params.expires_at.saturating_mul(1000)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Solves as the browser does: counters from 0 until the prefix matches.
    pub(crate) fn solve(c: &Challenge) -> Payload {
        let p = &c.parameters;
        let nonce = hex::decode(&p.nonce).unwrap();
        let salt = hex::decode(&p.salt).unwrap();
        for counter in 0u32.. {
            let mut pw = nonce.clone();
            pw.extend_from_slice(&counter.to_be_bytes());
            let key = hex::encode(pbkdf2_sha256(&pw, &salt, p.cost, p.key_length as usize));
            if key.starts_with(&p.key_prefix) {
                return Payload {
                    challenge: c.clone(),
                    solution: Solution {
                        counter: counter.into(),
                        derived_key: key,
                        time: None,
                    },
                };
            }
        }
        unreachable!()
    }

    #[test]
    fn pbkdf2_matches_rfc_7914_vector() {
        // RFC 7914 §11: PBKDF2-HMAC-SHA256("passwd", "salt", 1, 64), first 32 bytes.
        assert_eq!(
            hex::encode(pbkdf2_sha256(b"passwd", b"salt", 1, 32)),
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
        );
        // RFC 7914 §11 second vector, c = 80000, first 32 bytes.
        assert_eq!(
            hex::encode(pbkdf2_sha256(b"Password", b"NaCl", 80000, 32)),
            "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
        );
    }

    #[test]
    fn issue_solve_verify_and_refusals() {
        let a = Altcha::new(b"test key".to_vec());
        let c = a.issue(10, (3, 6), 1_000_000, 60_000);
        assert_eq!(c.parameters.key_prefix.len(), 32);
        let solved = solve(&c);
        assert!((3..=6).contains(&solved.solution.counter));
        let (nonce, exp) = a.verify(&solved, 1_005_000, 3000).unwrap();
        assert_eq!(nonce, c.parameters.nonce);
        assert_eq!(exp, 1_060_000);
        assert_eq!(a.verify(&solved, 1_001_000, 3000), Err(Refusal::TooFast));
        assert_eq!(a.verify(&solved, 1_061_000, 3000), Err(Refusal::Expired));
        // Another key, an altered parameter, a wrong key: invalid.
        assert_eq!(
            Altcha::new(b"other".to_vec()).verify(&solved, 1_005_000, 0),
            Err(Refusal::Invalid)
        );
        let mut altered = solved.clone();
        altered.challenge.parameters.expires_at += 1000;
        assert_eq!(a.verify(&altered, 1_005_000, 0), Err(Refusal::Invalid));
        let mut wrong = solved.clone();
        wrong.solution.derived_key = format!("{}{}", c.parameters.key_prefix, "0".repeat(32));
        assert_eq!(a.verify(&wrong, 1_005_000, 0), Err(Refusal::Invalid));
        assert!(Altcha::decode("not base64!").is_err());
    }
}
