//! JSON answers of the routes that compute them (health, contact, chat,
//! MCP): serialised from typed values, never assembled as strings, with the
//! headers every such answer carries.

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{Response, StatusCode};
use serde::Serialize;

use crate::Body;

/// A `status` answer of `value` as `application/json`, `no-store` (each is
/// computed per request or per client).
pub fn json_response(status: StatusCode, value: &impl Serialize) -> Response<Body> {
    let body = serde_json::to_vec(value).expect("a typed answer always serialises");
    json_bytes(status, Bytes::from(body))
}

/// [`json_response`] of bytes already serialised (a memoised answer).
pub fn json_bytes(status: StatusCode, body: Bytes) -> Response<Body> {
    let mut response = Response::new(Body::new(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(contract::media::JSON),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(contract::manifest::NO_STORE),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[derive(Serialize)]
    struct Receipt<'a> {
        reference: &'a str,
        status: &'a str,
    }

    #[tokio::test]
    async fn typed_values_with_json_headers() {
        let value = Receipt {
            reference: "ENQ-1",
            status: "received",
        };
        let r = json_response(StatusCode::CREATED, &value);
        assert_eq!(r.status(), StatusCode::CREATED);
        assert_eq!(r.headers()["content-type"], "application/json");
        assert_eq!(r.headers()["cache-control"], "no-store");
        let body = r.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], br#"{"reference":"ENQ-1","status":"received"}"#);
    }
}
