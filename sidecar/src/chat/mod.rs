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
//! stored, and questions are never logged; the admin listener's `/metrics`
//! counts questions, answers with a match and hand-offs. The route takes
//! only the site's own origins: an `Origin` of the site, or without one a
//! browser's `Sec-Fetch-Site: same-origin` (the router checks that, as for
//! every such route); a script sending neither is refused. It is
//! rate-limited per client in the database ([`Chat`], through
//! [`crate::http::ratelimit`]) before its body is read.

pub mod answer;
mod dutch;
pub mod intent;
pub mod reading;
pub mod request;
pub mod words;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use http::{Response, StatusCode};

use crate::Body;
use crate::http::handler::{self, Call, Handler, name_release};
use crate::http::json::json_response;
use crate::http::problem::Problem;
use crate::http::ratelimit::RateLimiter;
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

/// The chat route's state: its rate limit, the live data it quotes
/// figures from, and its counters.
#[derive(Debug)]
pub struct Chat {
    limiter: RateLimiter,
    /// Questions per client per window.
    limit: u32,
    live: Option<Arc<Live>>,
    counters: Arc<Counters>,
}

impl Chat {
    /// At most `limit` questions per client in `limiter`'s window; figures
    /// from `live` when there is live data; counted in `counters` (those
    /// `/metrics` shows).
    pub fn new(
        limiter: RateLimiter,
        limit: u32,
        live: Option<Arc<Live>>,
        counters: Arc<Counters>,
    ) -> Chat {
        Chat {
            limiter,
            limit,
            live,
            counters,
        }
    }
}

impl Handler for Chat {
    /// Rate limit, then the body, then the answer from the release the
    /// request holds (named in `X-Release`).
    async fn handle(&self, mut call: Call<'_>) -> handler::Answer {
        self.limiter.check("chat", self.limit, call.parts).await?;
        let body = call.body().await?;
        let published = call.release;
        let content = &published.content;
        // Links go to the site the visitor is on (its origin), not to the
        // organisation's address.
        let form_url = content.form_url_under(call.site_origin);
        let sources = Sources {
            release: &published.release,
            index: &content.passages,
            language: &content.language,
            translated: &content.translated,
            links: answer::Links {
                base_url: call.site_origin,
                form_url: &form_url,
            },
            live: self.live.as_deref(),
        };
        let mut response = answer(&sources, &self.counters, &body).await?;
        name_release(&mut response, published);
        Ok(response)
    }
}

/// What a chat answer is made from.
pub struct Sources<'a> {
    /// The release the passages come from, named in the answer.
    pub release: &'a str,
    /// The passages of the site's default language, and its code.
    pub index: &'a Index,
    pub language: &'a str,
    /// Each other language's passages, by code.
    pub translated: &'a [(String, Index)],
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
    let index = sources.index_for(question.language.as_deref())?;
    counters.questions.fetch_add(1, Relaxed);
    let stats = match (
        reading::classify_in(index.lang(), &question.message),
        sources.live,
    ) {
        (intent::Intent::Figures(_), Some(live)) => crate::live::current_stats(live).await,
        _ => None,
    };
    // The hand-off leads to the contact form in the question's language
    // (`/nl/contact/`), which the site has wherever it has pages in that
    // language (decision 0267).
    let form_url = match question.language.as_deref() {
        Some(code) if code != sources.language => {
            form_in(sources.links.form_url, sources.links.base_url, code)
        }
        _ => sources.links.form_url.to_owned(),
    };
    let links = answer::Links {
        base_url: sources.links.base_url,
        form_url: &form_url,
    };
    let mut answer = answer::compose(index, &links, &question, stats.as_ref());
    answer.release = sources.release.to_owned();
    if answer.matched() {
        counters.answered.fetch_add(1, Relaxed);
    }
    if answer.handoff.suggested {
        counters.handoffs.fetch_add(1, Relaxed);
    }
    Ok(json_response(StatusCode::OK, &answer))
}

impl Sources<'_> {
    /// The passages to answer from in `language` (`None`: the default
    /// language's); a language the site has no pages in is a 422 naming
    /// the languages it has.
    pub fn index_for(&self, language: Option<&str>) -> Result<&Index, Problem> {
        match language {
            None => Ok(self.index),
            Some(code) if code == self.language => Ok(self.index),
            Some(code) => match self.translated.iter().find(|(c, _)| c == code) {
                Some((_, index)) => Ok(index),
                None => {
                    let known: Vec<&str> = std::iter::once(self.language)
                        .chain(self.translated.iter().map(|(c, _)| c.as_str()))
                        .collect();
                    Err(Problem::new(
                        crate::http::problem::Code::InvalidSubmission,
                        "Correct these fields: language.".to_owned(),
                    )
                    .with_errors(vec![crate::http::problem::FieldError {
                        name: "language".into(),
                        reason: format!(
                            "the site has no pages in `{code}`; it has {}",
                            known.join(", ")
                        ),
                        code: Some("invalid_choice"),
                    }]))
                }
            },
        }
    }
}

/// The contact form at `form_url` (on the site at `base_url`) in the
/// language `code`: under `/{code}`, as every page of that language; a
/// form on another site is left as it is.
fn form_in(form_url: &str, base_url: &str, code: &str) -> String {
    match form_url.strip_prefix(base_url) {
        Some(path) if path.starts_with('/') => format!("{base_url}/{code}{path}"),
        _ => form_url.to_owned(),
    }
}
