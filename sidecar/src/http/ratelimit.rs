//! Per-client rate limits, counted in the database so that replicas share
//! them: one [`RateLimiter`] per feature that limits (contact, chat), each
//! counting its buckets through the same [`Store`]. A client is its IP
//! address as resolved through the trusted proxies
//! ([`crate::http::proxy::client_of`]); an IPv6 client is keyed by its /64,
//! the block one subscriber usually gets.

use std::net::IpAddr;
use std::time::Duration;

use http::request::Parts;

use crate::http::problem::{Code, Problem};
use crate::http::proxy::{self, Cidr};
use crate::store::Store;

/// The key a client's hits are counted under.
pub fn client_key(ip: IpAddr) -> String {
    match ip.to_canonical() {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
    }
}

/// A limit: at most `max` hits per `window`.
#[derive(Debug, Clone, Copy)]
pub struct Limit {
    pub bucket: &'static str,
    pub max: u32,
    pub window: Duration,
}

impl Limit {
    /// Counts a hit; `Ok(None)` when allowed, `Ok(Some(seconds))` to wait.
    pub async fn hit(&self, store: &Store, ip: IpAddr, now_ms: i64) -> anyhow::Result<Option<u32>> {
        let window = self.window.as_millis() as i64;
        let (count, reset_at) = store
            .rate_hit(self.bucket, client_key(ip), window, now_ms)
            .await?;
        if count <= i64::from(self.max) {
            return Ok(None);
        }
        let wait = ((reset_at - now_ms).max(0) + 999) / 1000;
        let wait = wait.max(1);
        Ok(Some(u32::try_from(wait).unwrap_or(u32::MAX)))
    }
}

/// Counts requests per client and bucket in one window, through a store.
#[derive(Debug, Clone)]
pub struct RateLimiter {
    store: Store,
    window: Duration,
    trusted_proxies: Vec<Cidr>,
}

impl RateLimiter {
    /// Clients are resolved through `trusted_proxies`; every bucket counts
    /// over `window`.
    pub fn new(store: Store, window: Duration, trusted_proxies: Vec<Cidr>) -> RateLimiter {
        RateLimiter {
            store,
            window,
            trusted_proxies,
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Counts one request of the client in `bucket` (shared by every
    /// replica through the database): 429 `too_many_requests` with
    /// `Retry-After` past `max` per window, 503 when the store fails.
    pub async fn check(
        &self,
        bucket: &'static str,
        max: u32,
        parts: &Parts,
    ) -> Result<(), Problem> {
        let limit = Limit {
            bucket,
            max,
            window: self.window,
        };
        let client = proxy::client_of(parts, &self.trusted_proxies);
        match limit.hit(&self.store, client, now_ms()).await {
            Ok(None) => Ok(()),
            Ok(Some(wait)) => Err(too_many(wait)),
            Err(e) => {
                tracing::error!(error = %format!("{e:#}"), bucket, "rate limit storage failed");
                Err(Problem::new(
                    Code::ServiceUnavailable,
                    "The request could not be counted against its rate limit right now; nothing was recorded. Please try again.",
                )
                .retry_after(30))
            }
        }
    }
}

/// The 429 of a client past its limit, told to wait `wait` seconds.
fn too_many(wait: u32) -> Problem {
    Problem::new(
        Code::TooManyRequests,
        format!("Too many requests from this address; try again in {wait} seconds."),
    )
    .retry_after(wait)
}

/// Unix milliseconds now.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::proxy::PeerAddr;
    use crate::store::SampleSize;

    #[test]
    fn ipv6_by_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(a), client_key(b));
        assert_ne!(client_key(a), client_key(c));
        assert_eq!(client_key("::ffff:1.2.3.4".parse().unwrap()), "1.2.3.4");
    }

    fn from(peer: &str) -> Parts {
        let mut request = http::Request::new(());
        request
            .extensions_mut()
            .insert(PeerAddr(peer.parse().unwrap()));
        request.into_parts().0
    }

    #[tokio::test]
    async fn limits_per_client_and_bucket() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(None, dir.path(), SampleSize::None)
            .await
            .unwrap();
        let limiter = RateLimiter::new(store, Duration::from_secs(600), Vec::new());
        let (a, a_too, b) = (from("2001:db8::1"), from("2001:db8::2"), from("192.0.2.7"));
        assert!(limiter.check("chat", 2, &a).await.is_ok());
        // The same /64 is the same client.
        assert!(limiter.check("chat", 2, &a_too).await.is_ok());
        let refused = limiter.check("chat", 2, &a).await.unwrap_err();
        assert_eq!(refused.code, Code::TooManyRequests);
        let wait = refused.retry_after.expect("a Retry-After");
        assert!((1..=600).contains(&wait), "{wait}");
        // Another client, and another bucket of the same client, count apart.
        assert!(limiter.check("chat", 2, &b).await.is_ok());
        assert!(limiter.check("submit", 2, &a).await.is_ok());
    }
}
