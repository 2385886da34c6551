//! Answers for files of `dist/`: negotiation of the compressed twins,
//! `If-None-Match` → 304, single ranges, the 404 page and directory
//! redirects. Everything here works on pre-rendered values from
//! [`crate::published::files`]; the hot path clones `Bytes` and
//! `HeaderValue`s only.

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{HeaderMap, Response, StatusCode};

use crate::Body;
use crate::http::conditional;
use crate::http::encode::{QUERY_KEEPS, percent_encode_into};
use crate::http::negotiate::{self, Coding};
use crate::http::problem::{Code, Problem};
use crate::http::range::{self, RangeRequest};
use crate::http::security_headers;
use crate::published::entry::{Entry, entity_headers, insert_encoding};

const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
/// `Allow` of every static file.
pub const ALLOW: HeaderValue = HeaderValue::from_static(contract::routes::Method::Get.allow());
/// Request headers a static GET may carry cross-origin.
pub const REQUEST_HEADERS: HeaderValue =
    HeaderValue::from_static(contract::headers::FILE_REQUEST_HEADERS);

/// The answer to GET (or HEAD, `head` set) for a file: 200, 206 or 304, or
/// a 416 problem.
pub fn serve(entry: &Entry, request: &HeaderMap, head: bool) -> Result<Response<Body>, Problem> {
    // A range selects bytes of the identity representation: byte offsets
    // into a compressed twin are rarely what a download client wants.
    let range = if head {
        None
    } else {
        request.get(header::RANGE)
    };
    let coding = if range.is_some() {
        Coding::Identity
    } else {
        choose(entry, request)
    };
    let variant = entry.variant(coding);

    if let Some(inm) = request.get(header::IF_NONE_MATCH)
        && conditional::none_match(inm.as_bytes(), variant.etag.as_bytes())
    {
        let mut response = empty(StatusCode::NOT_MODIFIED);
        *response.headers_mut() = entry.not_modified_headers(variant);
        return Ok(response);
    }

    let range = range.filter(|_| {
        request
            .get(header::IF_RANGE)
            .is_none_or(|v| conditional::if_range_matches(v.as_bytes(), variant.etag.as_bytes()))
    });
    let len = variant.len;
    // A file not held in memory is read now, and only for a body.
    let read = || {
        variant.bytes().map_err(|e| {
            tracing::error!(file = entry.key, error = %e, "a published file could not be read");
            Problem::new(Code::InternalError, "The file could not be read.")
        })
    };
    let (part, content_range) = match range.map(|r| range::parse(r.as_bytes(), len)) {
        None | Some(RangeRequest::Full) => {
            // The whole representation: its prepared headers, complete.
            let body = if head { Bytes::new() } else { read()? };
            let mut response = Response::new(Body::new(body));
            *response.headers_mut() = entry.ok_headers(variant);
            return Ok(response);
        }
        Some(RangeRequest::Partial { start, end }) => {
            let content_range = HeaderValue::try_from(format!("bytes {start}-{end}/{len}"))
                .expect("digits are a valid header");
            (start as usize..=end as usize, content_range)
        }
        Some(RangeRequest::Unsatisfiable) => return Err(Problem::range_not_satisfiable(len)),
    };
    let body = read()?.slice(part);
    // A part (never for HEAD, which ignores Range).
    let length = HeaderValue::from(body.len());
    let mut response = Response::new(Body::new(body));
    *response.status_mut() = StatusCode::PARTIAL_CONTENT;
    let h = response.headers_mut();
    h.reserve(16);
    entity_headers(h, &entry.kind, &variant.etag, coding, length);
    h.insert(header::CONTENT_RANGE, content_range);
    Ok(response)
}

/// The coding to answer `request` with: negotiated over the twins the file
/// has, or may get (a lazy file's are made when one is chosen).
fn choose(entry: &Entry, request: &HeaderMap) -> Coding {
    let accept = request
        .get(header::ACCEPT_ENCODING)
        .map(HeaderValue::as_bytes);
    let (br, gzip) = entry.offers();
    let coding = negotiate::choose(accept, br, gzip);
    if entry.get(coding).is_some() {
        return coding;
    }
    // The chosen twin was not worth keeping: choose among those that were.
    let twins = entry.twins();
    negotiate::choose(accept, twins.br.is_some(), twins.gzip.is_some())
}

/// The 404 page, negotiated like any page but never cached and never
/// conditional.
pub fn not_found_page(entry: &Entry, request: &HeaderMap, head: bool) -> Response<Body> {
    let coding = choose(entry, request);
    let variant = entry.variant(coding);
    let body = if head {
        Bytes::new()
    } else {
        variant.bytes().unwrap_or_default()
    };
    let mut response = Response::new(Body::new(body));
    *response.status_mut() = StatusCode::NOT_FOUND;
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, entry.kind.content_type.clone());
    h.insert(header::CONTENT_LENGTH, variant.content_length.clone());
    h.insert(header::CACHE_CONTROL, NO_STORE);
    if let Some(vary) = &entry.kind.vary {
        h.insert(header::VARY, vary.clone());
    }
    insert_encoding(h, coding);
    if let Some(csp) = &entry.kind.csp {
        security_headers::apply_html(h, csp);
    }
    response
}

/// 308 from a directory URL without its slash to the one with it; the query
/// string is kept, with what a URI's query may not hold raw (non-ASCII
/// bytes, spaces, quotes, angle brackets) percent-encoded, so the
/// `Location` is always a valid URI reference (RFC 3986 §3.4).
pub fn redirect(location: &HeaderValue, query: Option<&str>) -> Response<Body> {
    redirect_with(StatusCode::PERMANENT_REDIRECT, location, query)
}

/// A moved page: 301 to `location`, the query kept, as [`redirect`].
pub fn moved(location: &HeaderValue, query: Option<&str>) -> Response<Body> {
    redirect_with(StatusCode::MOVED_PERMANENTLY, location, query)
}

fn redirect_with(
    status: StatusCode,
    location: &HeaderValue,
    query: Option<&str>,
) -> Response<Body> {
    let location = match query {
        Some(q) => {
            let mut target = String::with_capacity(location.len() + 1 + q.len());
            target.push_str(location.to_str().unwrap_or("/"));
            target.push('?');
            percent_encode_into(&mut target, q, QUERY_KEEPS);
            HeaderValue::try_from(target).unwrap_or_else(|_| location.clone())
        }
        None => location.clone(),
    };
    let mut response = empty(status);
    let h = response.headers_mut();
    h.insert(header::LOCATION, location);
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(0));
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(contract::headers::REDIRECT_CACHE),
    );
    response
}

fn empty(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::new(Bytes::new()));
    *response.status_mut() = status;
    response
}
