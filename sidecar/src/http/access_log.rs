//! The request log: one line per request at `info`, target `access` —
//! method, path, status, bytes, duration, client and request id, written
//! off the request's path by [`crate::logging::access`] — and the
//! request id itself, kept from the front's `X-Request-Id` when it is a
//! sane token, made here otherwise, and echoed on every answer so a
//! visitor's report, the front's log and ours can be matched.
//!
//! The query strings of the contact and chat routes, and of the contact
//! form's page (which the chat's hand-off prefills), are never logged (the
//! architecture's personal-data rule); bodies never are, anywhere.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use http::header::{HeaderMap, HeaderName, HeaderValue};
use http::{Method, Uri};

use crate::http::proxy::{Cidr, client_ip};
use crate::logging::access::{AccessLog, Line};

/// The request id header, read from the front and echoed.
pub const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
/// Longest request id kept from a request.
const ID_MAX: usize = 128;

/// Makes the ids of requests that come without one: a random prefix per
/// process (replicas differ) and a counter.
#[derive(Debug)]
pub struct RequestIds {
    /// Eight hex digits.
    prefix: [u8; 8],
    next: AtomicU64,
}

impl Default for RequestIds {
    fn default() -> Self {
        let mut bytes = [0u8; 4];
        // Without the OS random source the ids are still unique per process.
        let _ = getrandom::fill(&mut bytes);
        let mut prefix = [0u8; 8];
        hex(u64::from(u32::from_be_bytes(bytes)), &mut prefix);
        RequestIds {
            prefix,
            next: AtomicU64::new(1),
        }
    }
}

impl RequestIds {
    /// The request's own id when sane (1 to 128 visible ASCII characters,
    /// no quote or backslash), a new one otherwise.
    pub fn of(&self, headers: &HeaderMap) -> HeaderValue {
        if let Some(id) = headers.get(X_REQUEST_ID)
            && sane(id.as_bytes())
        {
            return id.clone();
        }
        // `prefix-counter` in hex, written by hand: this runs for nearly
        // every request, and `format!` cost a tenth of a static answer.
        let n = self.next.fetch_add(1, Relaxed);
        let mut id = [0u8; 8 + 1 + 16];
        id[..8].copy_from_slice(&self.prefix);
        id[8] = b'-';
        let digits = (u64::BITS - n.leading_zeros()).div_ceil(4).max(1) as usize;
        hex(n, &mut id[9..9 + digits]);
        HeaderValue::from_bytes(&id[..9 + digits]).expect("hex digits and a dash")
    }
}

/// The low `4 * out.len()` bits of `n` in lower-case hex, zero-padded.
fn hex(mut n: u64, out: &mut [u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for d in out.iter_mut().rev() {
        *d = DIGITS[(n & 0xf) as usize];
        n >>= 4;
    }
}

/// 1 to 128 visible ASCII characters other than `"` and `\\`: an id
/// that any log, JSON or quoted text carries as it is.
fn sane(id: &[u8]) -> bool {
    (1..=ID_MAX).contains(&id.len())
        && id
            .iter()
            .all(|&b| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\')
}

/// What the log line needs of a request besides its method and target,
/// taken before the request is handed on. The method and target are
/// lent again when the line is written, rather than cloned here for
/// every request.
#[derive(Debug)]
pub struct Seen {
    pub id: HeaderValue,
    client: IpAddr,
    logged: bool,
}

impl Seen {
    /// The request's id, and when `log` the client for its line: `peer`
    /// as seen through `trusted` proxies.
    pub fn new(
        ids: &RequestIds,
        log: bool,
        trusted: &[Cidr],
        headers: &HeaderMap,
        peer: Option<IpAddr>,
    ) -> Seen {
        let id = ids.of(headers);
        let peer = peer.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        let client = if !log || trusted.is_empty() {
            peer
        } else {
            let forwarded = headers
                .get_all(X_FORWARDED_FOR)
                .iter()
                .filter_map(|v| v.to_str().ok());
            client_ip(peer, forwarded, trusted)
        };
        Seen {
            id,
            client,
            logged: log,
        }
    }

    /// Whether the request's line is logged.
    pub fn logged(&self) -> bool {
        self.logged
    }

    /// Logs the line of the request of `method` and `uri` to `log`;
    /// `private` drops the query string.
    pub fn log(&self, log: &AccessLog, (method, uri): (&Method, &Uri), answer: Answered<'_>) {
        let path = match (answer.private, uri.path_and_query()) {
            (false, Some(pq)) => pq.as_str(),
            _ => uri.path(),
        };
        log.log(&Line {
            method: method.as_str(),
            path,
            route: answer.route,
            status: answer.status,
            bytes: answer.bytes,
            duration: answer.elapsed,
            at: answer.at,
            client: self.client,
            // Kept or made sane by `RequestIds::of`.
            request_id: self.id.as_bytes(),
        });
    }
}

/// What a line says of the answer.
#[derive(Debug, Clone, Copy)]
pub struct Answered<'a> {
    pub route: &'a str,
    /// Whether the query string is left out.
    pub private: bool,
    pub status: u16,
    pub bytes: u64,
    pub elapsed: Duration,
    /// When the answer was made.
    pub at: Instant,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_kept_when_sane_and_made_otherwise() {
        let ids = RequestIds::default();
        let mut h = HeaderMap::new();
        let made = ids.of(&h);
        let again = ids.of(&h);
        assert_ne!(made, again);
        assert!(sane(made.as_bytes()));
        // Eight hex digits of the process, a dash, the counter in hex.
        let prefix = std::str::from_utf8(&ids.prefix).unwrap();
        assert!(prefix.bytes().all(|b| b.is_ascii_hexdigit()), "{prefix}");
        assert_eq!(made, format!("{prefix}-1").as_str());
        assert_eq!(again, format!("{prefix}-2").as_str());
        ids.next.store(0x1f, Relaxed);
        assert_eq!(ids.of(&h), format!("{prefix}-1f").as_str());
        ids.next.store(u64::MAX, Relaxed);
        assert_eq!(ids.of(&h), format!("{prefix}-ffffffffffffffff").as_str());
        ids.next.store(0, Relaxed);
        assert_eq!(ids.of(&h), format!("{prefix}-0").as_str());
        h.insert(X_REQUEST_ID, HeaderValue::from_static("front-42.abc"));
        assert_eq!(ids.of(&h), "front-42.abc");
        for bad in [
            &b"with space"[..],
            b"",
            &[b'a'; 129][..],
            b"caf\xc3\xa9",
            b"q\"uote",
            b"back\\slash",
        ] {
            h.insert(X_REQUEST_ID, HeaderValue::from_bytes(bad).unwrap());
            assert_ne!(ids.of(&h).as_bytes(), bad);
        }
    }
}
