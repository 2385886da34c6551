//! The stable problem `code`s of the service (the RFC 9457 `code` member),
//! each with its HTTP status, title and the explanation its page carries.
//!
//! The generator builds one page per code at `/docs/problems/<code>/` (the
//! `type` URL of every problem object with that code) and lists the codes in
//! the contract; the sidecar answers only with these. A code exists exactly
//! when it is a variant here.

/// One documented problem code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProblemCode {
    BadRequest,
    InvalidParameter,
    UnknownParameter,
    ForbiddenOrigin,
    NotFound,
    MethodNotAllowed,
    RequestTimeout,
    PayloadTooLarge,
    UnsupportedMediaType,
    RangeNotSatisfiable,
    ChallengeExpired,
    ChallengeInvalid,
    ChallengeMissing,
    ChallengeReplayed,
    InvalidSubmission,
    SubmittedTooFast,
    TooManyRequests,
    InternalError,
    ServiceUnavailable,
}

/// The facts of one code.
struct Info {
    code: &'static str,
    status: u16,
    title: &'static str,
    explanation: &'static str,
}

impl ProblemCode {
    /// Every code, ordered by status, then code.
    pub const ALL: [ProblemCode; 19] = [
        ProblemCode::BadRequest,
        ProblemCode::InvalidParameter,
        ProblemCode::UnknownParameter,
        ProblemCode::ForbiddenOrigin,
        ProblemCode::NotFound,
        ProblemCode::MethodNotAllowed,
        ProblemCode::RequestTimeout,
        ProblemCode::PayloadTooLarge,
        ProblemCode::UnsupportedMediaType,
        ProblemCode::RangeNotSatisfiable,
        ProblemCode::ChallengeExpired,
        ProblemCode::ChallengeInvalid,
        ProblemCode::ChallengeMissing,
        ProblemCode::ChallengeReplayed,
        ProblemCode::InvalidSubmission,
        ProblemCode::SubmittedTooFast,
        ProblemCode::TooManyRequests,
        ProblemCode::InternalError,
        ProblemCode::ServiceUnavailable,
    ];

    /// The stable snake_case `code` member.
    pub fn as_str(self) -> &'static str {
        self.info().code
    }

    /// The HTTP status, equal to the problem's `status` member.
    pub fn status(self) -> u16 {
        self.info().status
    }

    /// The `title` member: the same for every occurrence of the code.
    pub fn title(self) -> &'static str {
        self.info().title
    }

    /// What happened and what the client can do, for the code's page.
    pub fn explanation(self) -> &'static str {
        self.info().explanation
    }

    /// The code whose `code` member is `code`.
    pub fn find(code: &str) -> Option<ProblemCode> {
        ProblemCode::ALL.into_iter().find(|c| c.as_str() == code)
    }

    /// Every code answered with `status`.
    pub fn with_status(status: u16) -> impl Iterator<Item = ProblemCode> {
        ProblemCode::ALL
            .into_iter()
            .filter(move |c| c.status() == status)
    }

    fn info(self) -> Info {
        let (code, status, title, explanation) = match self {
            ProblemCode::BadRequest => (
                "bad_request",
                400,
                "Bad request",
                "The request could not be understood: its syntax, a header or its framing is malformed. Correct the request before repeating it.",
            ),
            ProblemCode::InvalidParameter => (
                "invalid_parameter",
                400,
                "Invalid parameter",
                "A query parameter has a value this route does not accept: empty, malformed, out of range, given twice, or a cursor this service did not issue. The detail and the errors member name the parameter and the reason; the route's parameters are described in /openapi.json.",
            ),
            ProblemCode::UnknownParameter => (
                "unknown_parameter",
                400,
                "Unknown parameter",
                "The request carries a query parameter this route does not take. The detail and the errors member name it; remove it or correct its spelling. The route's parameters are listed in /openapi.json.",
            ),
            ProblemCode::ForbiddenOrigin => (
                "forbidden_origin",
                403,
                "Origin not allowed",
                "This route accepts requests only from the service's own site. Submit the form from the site's contact page.",
            ),
            ProblemCode::NotFound => (
                "not_found",
                404,
                "Not found",
                "No resource exists at this URL. The contract at /openapi.json lists every route.",
            ),
            ProblemCode::MethodNotAllowed => (
                "method_not_allowed",
                405,
                "Method not allowed",
                "The route exists but does not take this method. The Allow header lists the methods it takes.",
            ),
            ProblemCode::RequestTimeout => (
                "request_timeout",
                408,
                "Request timeout",
                "The request was not received completely in time. Send it again, faster or smaller.",
            ),
            ProblemCode::PayloadTooLarge => (
                "payload_too_large",
                413,
                "Payload too large",
                "The request body is larger than this route accepts. The detail names the limit.",
            ),
            ProblemCode::UnsupportedMediaType => (
                "unsupported_media_type",
                415,
                "Unsupported media type",
                "The request body's Content-Type is not one this route accepts. The detail names the accepted types.",
            ),
            ProblemCode::RangeNotSatisfiable => (
                "range_not_satisfiable",
                416,
                "Range not satisfiable",
                "The requested byte range lies outside the file. The Content-Range header gives the file's size.",
            ),
            ProblemCode::ChallengeExpired => (
                "challenge_expired",
                422,
                "Challenge expired",
                "The human-verification challenge of the form is older than its expiry. Reload the contact page, or let the form fetch a new challenge, and submit again.",
            ),
            ProblemCode::ChallengeInvalid => (
                "challenge_invalid",
                422,
                "Challenge invalid",
                "The human-verification field could not be verified: it is malformed, was altered, was signed by another server, or its solution is wrong. Submit the form from the site's contact page with scripts enabled.",
            ),
            ProblemCode::ChallengeMissing => (
                "challenge_missing",
                422,
                "Challenge missing",
                "The submission carries no solved human-verification challenge (the altcha field). The contact page solves one in the browser before sending; scripts must be enabled.",
            ),
            ProblemCode::ChallengeReplayed => (
                "challenge_replayed",
                422,
                "Challenge already used",
                "This human-verification challenge was already used for an enquiry; each challenge counts once. If you meant to send another enquiry, reload the contact page and submit again.",
            ),
            ProblemCode::InvalidSubmission => (
                "invalid_submission",
                422,
                "Invalid submission",
                "The form was understood but one or more fields are missing or invalid. The errors member lists each field with the reason; correct them and submit again.",
            ),
            ProblemCode::SubmittedTooFast => (
                "submitted_too_fast",
                422,
                "Submitted too fast",
                "The form was sent sooner after the page issued its challenge than a person can fill it in. Wait a few seconds and submit again.",
            ),
            ProblemCode::TooManyRequests => (
                "too_many_requests",
                429,
                "Too many requests",
                "This client has sent too many requests to this route. Wait for the number of seconds in the Retry-After header.",
            ),
            ProblemCode::InternalError => (
                "internal_error",
                500,
                "Internal error",
                "The service failed to answer because of a fault on its side. The fault has been logged; try again later.",
            ),
            ProblemCode::ServiceUnavailable => (
                "service_unavailable",
                503,
                "Service unavailable",
                "The service is overloaded, starting, or a dependency such as its database is unreachable. Wait for the number of seconds in the Retry-After header.",
            ),
        };
        Info {
            code,
            status,
            title,
            explanation,
        }
    }
}

impl std::fmt::Display for ProblemCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_snake_case_ordered_and_errors() {
        for w in ProblemCode::ALL.windows(2) {
            assert!((w[0].status(), w[0].as_str()) < (w[1].status(), w[1].as_str()));
        }
        for c in ProblemCode::ALL {
            assert!(
                c.as_str()
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'_')
            );
            assert!((400..600).contains(&c.status()));
            assert!(!c.explanation().is_empty());
        }
        assert_eq!(ProblemCode::find("not_found"), Some(ProblemCode::NotFound));
        assert_eq!(ProblemCode::with_status(403).count(), 1);
    }
}
