//! The stable problem `code`s of the service (RFC 9457 `code` member).
//!
//! The generator builds one page per code at `/docs/problems/<code>/`, which
//! is the `type` URL of every problem object with that code; the contract
//! lists the codes; the sidecar emits only these (its tests check that each
//! code it can emit has a page in the built site).

/// One documented problem code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProblemCode {
    pub code: &'static str,
    pub status: u16,
    pub title: &'static str,
    /// What happened and what the client can do, for the problem's page.
    pub explanation: &'static str,
}

/// Every code, ordered by status then code.
pub const PROBLEMS: &[ProblemCode] = &[
    ProblemCode {
        code: "bad_request",
        status: 400,
        title: "Bad request",
        explanation: "The request could not be understood: its syntax, a header or its framing is malformed. Correct the request before repeating it.",
    },
    ProblemCode {
        code: "invalid_parameter",
        status: 400,
        title: "Invalid parameter",
        explanation: "A query parameter has a value this route does not accept: empty, malformed, out of range, given twice, or a cursor this service did not issue. The detail and the errors member name the parameter and the reason; the route's parameters are described in /openapi.json.",
    },
    ProblemCode {
        code: "unknown_parameter",
        status: 400,
        title: "Unknown parameter",
        explanation: "The request carries a query parameter this route does not take. The detail and the errors member name it; remove it or correct its spelling. The route's parameters are listed in /openapi.json.",
    },
    ProblemCode {
        code: "forbidden_origin",
        status: 403,
        title: "Origin not allowed",
        explanation: "This route accepts requests only from the service's own site. Submit the form from the site's contact page.",
    },
    ProblemCode {
        code: "not_found",
        status: 404,
        title: "Not found",
        explanation: "No resource exists at this URL. The contract at /openapi.json lists every route.",
    },
    ProblemCode {
        code: "method_not_allowed",
        status: 405,
        title: "Method not allowed",
        explanation: "The route exists but does not take this method. The Allow header lists the methods it takes.",
    },
    ProblemCode {
        code: "request_timeout",
        status: 408,
        title: "Request timeout",
        explanation: "The request was not received completely in time. Send it again, faster or smaller.",
    },
    ProblemCode {
        code: "payload_too_large",
        status: 413,
        title: "Payload too large",
        explanation: "The request body is larger than this route accepts. The detail names the limit.",
    },
    ProblemCode {
        code: "unsupported_media_type",
        status: 415,
        title: "Unsupported media type",
        explanation: "The request body's Content-Type is not one this route accepts. The detail names the accepted types.",
    },
    ProblemCode {
        code: "range_not_satisfiable",
        status: 416,
        title: "Range not satisfiable",
        explanation: "The requested byte range lies outside the file. The Content-Range header gives the file's size.",
    },
    ProblemCode {
        code: "challenge_expired",
        status: 422,
        title: "Challenge expired",
        explanation: "The human-verification challenge of the form is older than its expiry. Reload the contact page, or let the form fetch a new challenge, and submit again.",
    },
    ProblemCode {
        code: "challenge_invalid",
        status: 422,
        title: "Challenge invalid",
        explanation: "The human-verification field could not be verified: it is malformed, was altered, was signed by another server, or its solution is wrong. Submit the form from the site's contact page with scripts enabled.",
    },
    ProblemCode {
        code: "challenge_missing",
        status: 422,
        title: "Challenge missing",
        explanation: "The submission carries no solved human-verification challenge (the altcha field). The contact page solves one in the browser before sending; scripts must be enabled.",
    },
    ProblemCode {
        code: "challenge_replayed",
        status: 422,
        title: "Challenge already used",
        explanation: "This human-verification challenge was already used for an enquiry; each challenge counts once. If you meant to send another enquiry, reload the contact page and submit again.",
    },
    ProblemCode {
        code: "invalid_submission",
        status: 422,
        title: "Invalid submission",
        explanation: "The form was understood but one or more fields are missing or invalid. The errors member lists each field with the reason; correct them and submit again.",
    },
    ProblemCode {
        code: "submitted_too_fast",
        status: 422,
        title: "Submitted too fast",
        explanation: "The form was sent sooner after the page issued its challenge than a person can fill it in. Wait a few seconds and submit again.",
    },
    ProblemCode {
        code: "too_many_requests",
        status: 429,
        title: "Too many requests",
        explanation: "This client has sent too many requests to this route. Wait for the number of seconds in the Retry-After header.",
    },
    ProblemCode {
        code: "internal_error",
        status: 500,
        title: "Internal error",
        explanation: "The service failed to answer because of a fault on its side. The fault has been logged; try again later.",
    },
    ProblemCode {
        code: "service_unavailable",
        status: 503,
        title: "Service unavailable",
        explanation: "The service is overloaded, starting, or a dependency such as its database is unreachable. Wait for the number of seconds in the Retry-After header.",
    },
];

/// The documented code, if `code` is one.
pub fn find(code: &str) -> Option<&'static ProblemCode> {
    PROBLEMS.iter().find(|p| p.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_snake_case_and_ordered() {
        for w in PROBLEMS.windows(2) {
            assert!((w[0].status, w[0].code) < (w[1].status, w[1].code));
        }
        for p in PROBLEMS {
            assert!(p.code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
            assert!((400..600).contains(&p.status));
        }
        assert_eq!(find("not_found").map(|p| p.status), Some(404));
    }
}
