//! The contact form: `GET /api/contact-challenge` and `POST /api/contact.php`.
//!
//! A submission is checked in this order, each failure one problem code:
//! origin (`Origin`, else `Sec-Fetch-Site: same-origin`; 403
//! `forbidden_origin`) → rate limit per client (429 `too_many_requests`) →
//! body syntax (400) → honeypot (a filled `website` gets the normal answer
//! and stores nothing) → fields (422 `invalid_submission`, every field at
//! once) → challenge (`challenge_missing`, `challenge_invalid`,
//! `challenge_expired`, `submitted_too_fast`) → one transaction storing the
//! enquiry, its outbox row and the used challenge (`challenge_replayed` when
//! the challenge was used). Only after the commit is the enquiry
//! acknowledged: 201 with the reference for JSON, 303 to the thank-you page
//! for a form post. Mail goes out later from the outbox ([`outbox`]). Logs
//! carry the reference only, never the contents or the address.
//!
//! The form sends its page's language (`language`, English without it):
//! once the form is read, the field errors and refusals are written in it
//! (`words.rs`), a form post is sent to that language's thank-you page, and
//! the enquiry keeps it, so the mail tells the people who answer.
//!
//! The origin is checked by the router, first, as for every route of the
//! site's origins (without `Origin`, it wants `Sec-Fetch-Site:
//! same-origin`); then, as for every route that takes a body, the body's
//! size and media type ([`crate::http::body::read_body`]). The rate limits
//! are [`crate::http::ratelimit`]'s.

pub mod admin;
pub mod altcha;
pub mod failures;
pub mod outbox;
pub mod retention;
pub mod setup;
pub mod validate;
pub mod words;

use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::request::Parts;
use http::{Response, StatusCode};
use serde::Serialize;

use crate::Body;
use crate::http::handler::{Answer, Call, Handler, not_enabled};
use crate::http::json::json_response;
use crate::http::problem::{Code, Problem};
use crate::http::proxy::Cidr;
use crate::http::ratelimit::RateLimiter;
use crate::store::Store;
use crate::store::contact::{NewEnquiry, Stored};
use altcha::{Altcha, Refusal};
use contract::contact::ContactLanguage;
use contract::routes::Endpoint;
use contract::service::ServiceInformation;
use validate::Format;
use words::{Words, fill, words};

/// Settings of the contact routes (from [`crate::config::Config`]).
#[derive(Debug, Clone)]
pub struct ContactConfig {
    /// PBKDF2 iterations of a challenge.
    pub challenge_cost: u32,
    /// Range the secret counter is drawn from (the solver's work).
    pub challenge_counter: (u64, u64),
    pub challenge_ttl: Duration,
    /// Least time between issuing a challenge and a submission using it.
    pub min_fill: Duration,
    /// Submissions per client per window.
    pub submit_limit: u32,
    /// Challenges per client per window.
    pub challenge_limit: u32,
    pub rate_window: Duration,
    pub trusted_proxies: Vec<Cidr>,
    /// Accepted `topic` values: `project:<id>`, `service:<id>`, `other`.
    pub topics: Vec<String>,
}

impl Default for ContactConfig {
    fn default() -> Self {
        ContactConfig {
            challenge_cost: 5000,
            challenge_counter: (5000, 10_000),
            challenge_ttl: Duration::from_secs(600),
            min_fill: Duration::from_secs(3),
            submit_limit: 5,
            challenge_limit: 30,
            rate_window: Duration::from_secs(600),
            trusted_proxies: Vec::new(),
            topics: vec!["other".into()],
        }
    }
}

impl ContactConfig {
    /// Takes the topics from the built service information
    /// (`dist/api/service.json`): one per project and service, and `other`.
    pub fn with_service_information(mut self, service: &ServiceInformation) -> ContactConfig {
        let projects = service.projects.iter().map(|p| format!("project:{}", p.id));
        let services = service.services.iter().map(|s| format!("service:{}", s.id));
        let mut topics: Vec<String> = projects.chain(services).collect();
        topics.push("other".into());
        self.topics = topics;
        self
    }
}

pub use crate::http::proxy::PeerAddr;

/// The contact form's URL with `topic` and `message` prefilled in the
/// fragment, which the page reads into its fields: a fragment never leaves
/// the browser, so the question reaches no server or proxy log. Nothing is
/// sent until the visitor presses send.
pub fn prefilled_url(form_url: &str, topic: &str, message: &str) -> String {
    use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
    let base = form_url.split('#').next().unwrap_or(form_url);
    format!(
        "{base}#topic={}&message={}",
        utf8_percent_encode(topic, NON_ALPHANUMERIC),
        utf8_percent_encode(message, NON_ALPHANUMERIC)
    )
}

/// The contact routes' state.
#[derive(Debug)]
pub struct Contact {
    store: Store,
    altcha: Altcha,
    limiter: RateLimiter,
    cfg: ContactConfig,
}

/// Unix milliseconds now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A new enquiry reference: `ENQ-` and 12 Crockford base-32 characters
/// (60 random bits), easy to read out on the phone.
pub fn new_reference() -> String {
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut n = u64::from_le_bytes(altcha::random_bytes::<8>());
    let mut s = String::from("ENQ-");
    for i in 0..12 {
        if i == 6 {
            s.push('-');
        }
        s.push(ALPHABET[(n & 31) as usize] as char);
        n >>= 5;
    }
    s
}

fn internal(e: &anyhow::Error, w: &'static Words) -> Problem {
    tracing::error!(error = %format!("{e:#}"), "contact storage failed");
    Problem::new(Code::ServiceUnavailable, w.not_stored).retry_after(30)
}

impl Contact {
    /// `key` is the secret that signs challenges.
    pub fn new(store: Store, key: Vec<u8>, cfg: ContactConfig) -> Contact {
        let limiter = RateLimiter::new(store.clone(), cfg.rate_window, cfg.trusted_proxies.clone());
        Contact {
            store,
            altcha: Altcha::new(key),
            limiter,
            cfg,
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn config(&self) -> &ContactConfig {
        &self.cfg
    }

    /// `GET /api/contact-challenge`: a fresh challenge, `no-store`.
    pub async fn challenge(&self, parts: &Parts) -> Result<Response<Body>, Problem> {
        self.limiter
            .check("challenge", self.cfg.challenge_limit, parts)
            .await?;
        let altcha = self.altcha.clone();
        let (cost, counter) = (self.cfg.challenge_cost, self.cfg.challenge_counter);
        let ttl = self.cfg.challenge_ttl.as_millis() as i64;
        // One key derivation: off the connection's thread.
        let challenge =
            tokio::task::spawn_blocking(move || altcha.issue(cost, counter, now_ms(), ttl))
                .await
                .map_err(|_| Problem::new(Code::InternalError, "Issuing a challenge failed."))?;
        let mut response = json_response(StatusCode::OK, &challenge);
        // Public (CORS `*`) and never cached; the header keeps shared caches
        // honest should one ignore `no-store`.
        response
            .headers_mut()
            .insert(header::VARY, HeaderValue::from_static("origin"));
        Ok(response)
    }

    /// `POST /api/contact.php` with a body already size- and type-checked.
    pub async fn submit(&self, parts: &Parts, body: Bytes) -> Result<Response<Body>, Problem> {
        self.limiter
            .check("submit", self.cfg.submit_limit, parts)
            .await?;
        let format = match parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
        {
            Some(ct)
                if ct
                    .trim_start()
                    .to_ascii_lowercase()
                    .starts_with("application/json") =>
            {
                Format::Json
            }
            _ => Format::Form,
        };
        let fields =
            validate::parse(&body, format).map_err(|d| Problem::new(Code::BadRequest, d))?;
        if matches!(fields.get("website"), Some(Ok(v)) if !v.trim().is_empty()) {
            // A bot filled the trap: the usual answer, nothing stored.
            tracing::info!("contact honeypot filled; nothing stored");
            let language = validate::language(&fields).unwrap_or_default();
            return Ok(receipt(format, &new_reference(), language));
        }
        let submission = validate::validate(&fields, &self.cfg.topics).map_err(|errors| {
            let language = validate::language(&fields).unwrap_or_default();
            Problem::new(
                Code::InvalidSubmission,
                words(language).to_correct(errors.len()),
            )
            .with_errors(errors)
        })?;
        let language = submission.language;
        let w = words(language);
        let Some(field) = submission.altcha.as_deref() else {
            return Err(Problem::new(Code::ChallengeMissing, w.challenge_missing));
        };
        let now = now_ms();
        let verified = Altcha::decode(field).and_then(|p| {
            self.altcha
                .verify(&p, now, self.cfg.min_fill.as_millis() as i64)
        });
        let (nonce, expires_at) = verified.map_err(|r| match r {
            Refusal::Invalid => Problem::new(Code::ChallengeInvalid, w.challenge_invalid),
            Refusal::Expired => Problem::new(Code::ChallengeExpired, w.challenge_expired),
            Refusal::TooFast => Problem::new(
                Code::SubmittedTooFast,
                fill(
                    w.too_fast,
                    &[("seconds", &self.cfg.min_fill.as_secs_f64().to_string())],
                ),
            ),
        })?;
        let reference = new_reference();
        let enquiry = NewEnquiry {
            reference: reference.clone(),
            received_at: now,
            name: submission.name,
            email: submission.email,
            organisation: submission.organisation,
            topic: submission.topic,
            message: submission.message,
            language: language.code().to_owned(),
        };
        match self.store.insert_enquiry(enquiry, nonce, expires_at).await {
            Ok(Stored::Committed) => {
                tracing::info!(reference = reference.as_str(), "enquiry received");
                Ok(receipt(format, &reference, language))
            }
            Ok(Stored::Replayed) => {
                Err(Problem::new(Code::ChallengeReplayed, w.challenge_replayed))
            }
            Err(e) => Err(internal(&e, w)),
        }
    }
}

impl Handler for Contact {
    async fn handle(&self, mut call: Call<'_>) -> Answer {
        match call.endpoint {
            Endpoint::Contact => {
                let body = call.body().await?;
                self.submit(call.parts, body).await
            }
            _ => self.challenge(call.parts).await,
        }
    }

    /// A submission's body is checked before the form's absence is told.
    async fn absent(mut call: Call<'_>) -> Answer {
        if call.endpoint == Endpoint::Contact {
            call.body().await?;
        }
        Err(not_enabled())
    }
}

/// The JSON acknowledgement of an enquiry (members in this order).
#[derive(Serialize)]
struct Receipt<'a> {
    reference: &'a str,
    status: &'static str,
}

/// 201 with the reference (JSON), or 303 to the thank-you page in the
/// form's language (form).
fn receipt(format: Format, reference: &str, language: ContactLanguage) -> Response<Body> {
    match format {
        Format::Json => {
            let receipt = Receipt {
                reference,
                status: "received",
            };
            json_response(StatusCode::CREATED, &receipt)
        }
        Format::Form => {
            let mut r = Response::new(Body::new(Bytes::new()));
            *r.status_mut() = StatusCode::SEE_OTHER;
            let h = r.headers_mut();
            let location = format!("{}?reference={reference}", language.thanks_path());
            h.insert(
                header::LOCATION,
                HeaderValue::try_from(location).expect("a reference is a valid header"),
            );
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_look_alike_and_differ() {
        let a = new_reference();
        assert_eq!(a.len(), 17);
        assert!(a.starts_with("ENQ-"));
        assert_ne!(a, new_reference());
    }

    #[tokio::test]
    async fn a_json_receipt_names_the_reference() {
        use http_body_util::BodyExt;
        let r = receipt(Format::Json, "ENQ-ABCDEF-GHJKMN", ContactLanguage::Nl);
        assert_eq!(r.status(), StatusCode::CREATED);
        let body = r.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(
            &body[..],
            br#"{"reference":"ENQ-ABCDEF-GHJKMN","status":"received"}"#
        );
    }

    #[test]
    fn topics_from_service_information() {
        let cfg = ContactConfig::default()
            .with_service_information(&crate::published::content::tests::service());
        assert_eq!(
            cfg.topics,
            ["project:p1", "service:s1", "service:s2", "other"]
        );
    }
}
