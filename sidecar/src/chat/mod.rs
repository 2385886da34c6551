//! `POST /api/chat.php`: a visitor asks in their own words; the service
//! answers with passages quoted exactly from what it has published (each
//! cited with its page, heading anchor and, for archive material, licence
//! and attribution), with live figures from its own statistics, or plainly
//! with "no good match" — never with invented text. When only a person can
//! help, or the visitor asks the service to act, the answer hands over to
//! the contact form, prefilled with the question for the visitor to review
//! and send themselves. It never acts for anyone.
//!
//! Stateless: earlier turns come with the request (`history`), nothing is
//! stored, and questions are never logged; `/metrics` counts questions,
//! answers with a match and hand-offs. The route takes only the site's own
//! origins and is rate-limited per client in the database (the router and
//! the contact state do both).

pub mod answer;
pub mod intent;
pub mod request;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{Response, StatusCode};

use crate::Body;
use crate::http::problem::Problem;
use crate::live::Live;
use crate::search::Index;
pub use answer::Answer;
pub use request::Question;

/// Bounds of a question, in characters.
pub const MESSAGE_MAX: usize = 1000;
/// At most this many earlier turns are read.
pub const HISTORY_MAX: usize = 10;

/// The chat's counters (exposed by `/metrics`).
#[derive(Debug, Default)]
pub struct Counters {
    pub questions: AtomicU64,
    pub answered: AtomicU64,
    pub handoffs: AtomicU64,
}

/// What a chat answer is made from.
pub struct Sources<'a> {
    /// The release the passages come from, named in the answer.
    pub release: &'a str,
    pub index: &'a Index,
    pub links: answer::Links<'a>,
    /// The live data, for figure questions; `None` without a database.
    pub live: Option<&'a Live>,
}

/// Answers one request body (already checked for size and media type).
pub async fn answer(
    sources: &Sources<'_>,
    counters: &Counters,
    body: &[u8],
) -> Result<Response<Body>, Problem> {
    let question = request::parse(body)?;
    counters.questions.fetch_add(1, Relaxed);
    let stats = match (intent::classify(&question.message), sources.live) {
        (intent::Intent::Figures(_), Some(live)) => crate::live::current_stats(live).await,
        _ => None,
    };
    let mut answer = answer::compose(sources.index, &sources.links, &question, stats.as_ref());
    answer.release = sources.release.to_owned();
    if answer.matched() {
        counters.answered.fetch_add(1, Relaxed);
    }
    if answer.handoff.suggested {
        counters.handoffs.fetch_add(1, Relaxed);
    }
    let bytes = serde_json::to_vec(&answer).expect("an answer always serialises");
    let mut response = Response::new(Body::new(Bytes::from(bytes)));
    *response.status_mut() = StatusCode::OK;
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(contract::media::JSON),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(contract::manifest::NO_STORE),
    );
    Ok(response)
}
