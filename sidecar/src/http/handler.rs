//! The one shape of every feature's handler: [`Handler::handle`] takes a
//! [`Call`] — the request's parts, its route in the contract's table, the
//! release it holds and its body, read on demand — and answers a response
//! or a [`Problem`]. The router checks CORS, the method and OPTIONS for
//! every route alike, hands the call to the route's feature and renders a
//! problem it gets back; a feature gets nothing assembled by the router out
//! of another feature's parts.

use std::error::Error as StdError;
use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use contract::routes::Endpoint;
use http::Response;
use http::header::{self, HeaderMap};
use http::request::Parts;
use hyper::body::Body as HttpBody;

use crate::Body;
use crate::http::body::{Limits, read_body};
use crate::http::problem::{Code, Problem};
use crate::published::Published;

/// The header naming the release an answer was made from.
pub const RELEASE: header::HeaderName = header::HeaderName::from_static(contract::headers::RELEASE);

/// What a handler answers: a response, or a problem the router renders.
pub type Answer = Result<Response<Body>, Problem>;

/// A feature's request handler.
pub trait Handler: Sync {
    /// Answers a call to one of the feature's routes; the method, CORS and
    /// OPTIONS are already dealt with.
    fn handle(&self, call: Call<'_>) -> impl Future<Output = Answer> + Send;

    /// The answer when the feature is not enabled in this process (no
    /// database): 503, unless the feature first checks more of the request.
    fn absent(_call: Call<'_>) -> impl Future<Output = Answer> + Send {
        std::future::ready(Err(not_enabled()))
    }
}

/// `handler`'s answer, or its [`Handler::absent`] one without it.
pub async fn serve<H: Handler>(handler: Option<&H>, call: Call<'_>) -> Answer {
    match handler {
        Some(handler) => handler.handle(call).await,
        None => H::absent(call).await,
    }
}

/// The 503 of a feature this process does not serve.
pub fn not_enabled() -> Problem {
    Problem::new(
        Code::ServiceUnavailable,
        "This feature is not enabled in this build of the service.",
    )
    .retry_after(3600)
}

/// One request to a route of the contract's table, as a handler sees it.
pub struct Call<'a> {
    pub endpoint: Endpoint,
    pub parts: &'a Parts,
    /// The release the request holds from its start to its answer.
    pub release: &'a Published,
    /// The site's origin (the first configured one): links made for the
    /// visitor go there, as problem types do.
    pub site_origin: &'a str,
    limits: Limits,
    body: &'a mut (dyn Unread + 'a),
}

impl<'a> Call<'a> {
    /// A call whose body, when the route reads it, is read within `limits`;
    /// a body left unread stays in `body` for the caller to drain.
    pub fn new(
        endpoint: Endpoint,
        parts: &'a Parts,
        release: &'a Published,
        site_origin: &'a str,
        limits: Limits,
        body: &'a mut (dyn Unread + 'a),
    ) -> Call<'a> {
        Call {
            endpoint,
            parts,
            release,
            site_origin,
            limits,
            body,
        }
    }

    /// Reads the request body: of one of the route's media types, within
    /// the body limits (see [`read_body`]). Read once.
    pub async fn body(&mut self) -> Result<Bytes, Problem> {
        let types = self.endpoint.route().body_types;
        self.body
            .read(self.limits, types, &self.parts.headers)
            .await
    }
}

/// A request body not read yet: `Some` until a handler reads it.
pub trait Unread: Send {
    fn read<'s>(
        &'s mut self,
        limits: Limits,
        types: &'static [&'static str],
        headers: &'s HeaderMap,
    ) -> Pin<Box<dyn Future<Output = Result<Bytes, Problem>> + Send + 's>>;
}

impl<B> Unread for Option<B>
where
    B: HttpBody<Data = Bytes> + Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    fn read<'s>(
        &'s mut self,
        limits: Limits,
        types: &'static [&'static str],
        headers: &'s HeaderMap,
    ) -> Pin<Box<dyn Future<Output = Result<Bytes, Problem>> + Send + 's>> {
        let body = self.take().expect("a request body is read once");
        Box::pin(read_body(limits, types, headers, body))
    }
}

/// Names on `response` the release it was made from.
pub fn name_release(response: &mut Response<Body>, published: &Published) {
    response
        .headers_mut()
        .insert(RELEASE, published.release_header.clone());
}
