//! Problem objects (RFC 9457): the one place that turns an error into a
//! response. Every error the sidecar answers itself goes through here, so
//! none is HTML or an empty body.

use std::borrow::Cow;

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{Response, StatusCode};
use serde::Serialize;

use crate::Body;

/// The documented problem codes: the contract's, so the sidecar can answer
/// only with a code the generator built a page for.
pub use contract::ProblemCode as Code;

/// The HTTP status of a code.
pub fn status(code: Code) -> StatusCode {
    StatusCode::from_u16(code.status()).expect("the contract's statuses are valid")
}

/// A problem to answer with, plus the headers its status calls for.
#[derive(Debug, Clone)]
pub struct Problem {
    pub code: Code,
    pub detail: Cow<'static, str>,
    /// `Retry-After` seconds; set for every 429 and 503.
    pub retry_after: Option<u32>,
    /// `Allow` for 405.
    pub allow: Option<HeaderValue>,
    /// `Content-Range: bytes */len` for 416.
    pub unsatisfied_len: Option<u64>,
    /// Ask the client to close: after a body we did not read, or a timeout.
    pub close: bool,
    /// Field-level errors (the `errors` member), e.g. of a contact form.
    pub errors: Vec<FieldError>,
}

/// One rejected field or query parameter: `name` and `reason` as in the
/// contract's `InvalidParam`, plus, for form fields, a stable snake_case
/// `code`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    pub name: Cow<'static, str>,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
}

impl Problem {
    pub fn new(code: Code, detail: impl Into<Cow<'static, str>>) -> Self {
        let retry_after = match code {
            Code::TooManyRequests | Code::ServiceUnavailable => Some(1),
            _ => None,
        };
        Problem {
            code,
            detail: detail.into(),
            retry_after,
            allow: None,
            unsatisfied_len: None,
            close: false,
            errors: Vec::new(),
        }
    }

    /// Adds field-level errors.
    pub fn with_errors(mut self, errors: Vec<FieldError>) -> Self {
        self.errors = errors;
        self
    }

    pub fn retry_after(mut self, seconds: u32) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    pub fn allow(mut self, allow: HeaderValue) -> Self {
        self.allow = Some(allow);
        self
    }

    pub fn close(mut self) -> Self {
        self.close = true;
        self
    }

    /// 416 for a representation of `len` bytes.
    pub fn range_not_satisfiable(len: u64) -> Self {
        let mut p = Problem::new(
            Code::RangeNotSatisfiable,
            format!("The requested range lies outside the file's {len} bytes."),
        );
        p.unsatisfied_len = Some(len);
        p
    }

    /// The response: `type_base` is the site origin the `type` URL lives
    /// under, `instance` the request path.
    pub fn into_response(self, type_base: &str, instance: &str) -> Response<Body> {
        #[derive(Serialize)]
        struct Json<'a> {
            #[serde(rename = "type")]
            type_: String,
            title: &'static str,
            status: u16,
            detail: &'a str,
            instance: &'a str,
            code: &'static str,
            #[serde(skip_serializing_if = "<[FieldError]>::is_empty")]
            errors: &'a [FieldError],
        }
        let status = status(self.code);
        let json = Json {
            type_: format!("{type_base}/docs/problems/{}/", self.code.as_str()),
            title: self.code.title(),
            status: status.as_u16(),
            detail: &self.detail,
            instance,
            code: self.code.as_str(),
            errors: &self.errors,
        };
        let body = serde_json::to_vec(&json).expect("a problem object always serialises");
        let mut response = Response::new(Body::new(Bytes::from(body)));
        *response.status_mut() = status;
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(contract::media::PROBLEM_JSON),
        );
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(contract::manifest::NO_STORE),
        );
        if let Some(seconds) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if let Some(allow) = self.allow {
            headers.insert(header::ALLOW, allow);
        }
        if let Some(len) = self.unsatisfied_len {
            let value =
                HeaderValue::try_from(format!("bytes */{len}")).expect("digits are a valid header");
            headers.insert(header::CONTENT_RANGE, value);
        }
        if self.close {
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

/// A JSON-RPC 2.0 error response with no request id, for transport faults
/// on the MCP route (an unreadable body, a wrong content type): MCP clients
/// read JSON-RPC errors, not problem objects, there.
pub fn jsonrpc_error(status: StatusCode, code: i32, message: &str) -> Response<Body> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    });
    crate::http::json::json_response(status, &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn problem_members_and_headers() {
        let r = Problem::new(Code::ServiceUnavailable, "later")
            .retry_after(3600)
            .into_response("https://example.org", "/api/x\"y");
        assert_eq!(r.status(), 503);
        assert_eq!(r.headers()["content-type"], "application/problem+json");
        assert_eq!(r.headers()["cache-control"], "no-store");
        assert_eq!(r.headers()["retry-after"], "3600");
        let body = r.into_body().collect().await.unwrap().to_bytes();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            v["type"],
            "https://example.org/docs/problems/service_unavailable/"
        );
        assert_eq!(v["title"], "Service unavailable");
        assert_eq!(v["status"], 503);
        assert_eq!(v["detail"], "later");
        assert_eq!(v["instance"], "/api/x\"y");
        assert_eq!(v["code"], "service_unavailable");
    }

    #[test]
    fn every_code_has_an_error_status_and_429_503_carry_retry_after() {
        for code in Code::ALL {
            assert!(status(code).is_client_error() || status(code).is_server_error());
        }
        assert!(
            Problem::new(Code::TooManyRequests, "x")
                .retry_after
                .is_some()
        );
    }
}
