//! Per-client rate limits, counted in the database so that replicas share
//! them. A client is its IP address as resolved through the trusted proxies
//! ([`crate::http::proxy::client_ip`]); an IPv6 client is keyed by its /64, the
//! block one subscriber usually gets.

use std::net::IpAddr;
use std::time::Duration;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_by_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(a), client_key(b));
        assert_ne!(client_key(a), client_key(c));
        assert_eq!(client_key("::ffff:1.2.3.4".parse().unwrap()), "1.2.3.4");
    }
}
