//! Trusted proxies and the client address behind them.
//!
//! A client can write anything into `X-Forwarded-For`, so only the entries
//! appended by proxies we trust count: walk the list from the right, skipping
//! trusted proxies, and the first address that is not one is the client. (The
//! left-most entry, which naive code uses, is whatever the client claimed.)

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// An IP network, `addr/prefix` (a bare address is a single host).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

impl Cidr {
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => mask_eq(
                u128::from(u32::from(net)),
                u128::from(u32::from(ip)),
                self.prefix,
                32,
            ),
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                mask_eq(u128::from(net), u128::from(ip), self.prefix, 128)
            }
            _ => false,
        }
    }
}

fn mask_eq(a: u128, b: u128, prefix: u8, bits: u8) -> bool {
    let shift = u32::from(bits - prefix);
    prefix == 0 || (a >> shift) == (b >> shift)
}

impl FromStr for Cidr {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (addr, prefix) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let addr: IpAddr = addr
            .parse()
            .map_err(|_| format!("{s:?} is not an IP address or CIDR"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| format!("{s:?}: prefix length must be 0..={max}"))?,
        };
        Ok(Cidr { addr, prefix })
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
    }
}

/// The peer address of a connection, put into request extensions by the
/// server (tests set it to act as a given client).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerAddr(pub IpAddr);

/// The client of a request: its peer address (unspecified when the server
/// set none) resolved through `X-Forwarded-For` and the trusted proxies.
pub fn client_of(parts: &http::request::Parts, trusted: &[Cidr]) -> IpAddr {
    let peer = parts
        .extensions
        .get::<PeerAddr>()
        .map_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |p| p.0);
    let xff = parts
        .headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>();
    client_ip(peer, xff.into_iter(), trusted)
}

/// The client address of a request that arrived from `peer` with the given
/// `X-Forwarded-For` values (in header order).
pub fn client_ip<'a>(
    peer: IpAddr,
    forwarded_for: impl DoubleEndedIterator<Item = &'a str>,
    trusted: &[Cidr],
) -> IpAddr {
    let is_trusted = |ip: IpAddr| trusted.iter().any(|c| c.contains(ip));
    if !is_trusted(peer) {
        return peer;
    }
    let mut client = peer;
    for value in forwarded_for.rev() {
        for entry in value.rsplit(',') {
            match entry.trim().parse::<IpAddr>() {
                Ok(ip) => {
                    client = ip.to_canonical();
                    if !is_trusted(client) {
                        return client;
                    }
                }
                // Garbage in the chain: stop at the last address we could
                // attribute, which is a trusted proxy's view of its peer.
                Err(_) => return client,
            }
        }
    }
    client
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn cidr_parse_and_contains() {
        let c: Cidr = "10.0.0.0/8".parse().unwrap();
        assert!(c.contains(ip("10.1.2.3")));
        assert!(c.contains(ip("::ffff:10.1.2.3")));
        assert!(!c.contains(ip("11.0.0.1")));
        assert!("0.0.0.0/0".parse::<Cidr>().unwrap().contains(ip("1.2.3.4")));
        assert!("fd00::/8".parse::<Cidr>().unwrap().contains(ip("fd12::1")));
        assert_eq!(
            "127.0.0.1".parse::<Cidr>().unwrap().to_string(),
            "127.0.0.1/32"
        );
        assert!("10.0.0.0/33".parse::<Cidr>().is_err());
        assert!("nope".parse::<Cidr>().is_err());
    }

    #[test]
    fn rightmost_untrusted_wins() {
        let trusted = ["10.0.0.0/8".parse().unwrap()];
        let xff = ["6.6.6.6, 1.2.3.4", "10.0.0.2"];
        assert_eq!(
            client_ip(ip("10.0.0.1"), xff.into_iter(), &trusted),
            ip("1.2.3.4")
        );
        // An untrusted peer's header is ignored.
        assert_eq!(
            client_ip(ip("8.8.8.8"), xff.into_iter(), &trusted),
            ip("8.8.8.8")
        );
        // No header: the proxy itself.
        assert_eq!(
            client_ip(ip("10.0.0.1"), [].into_iter(), &trusted),
            ip("10.0.0.1")
        );
        assert_eq!(
            client_ip(ip("10.0.0.1"), ["junk, 10.0.0.3"].into_iter(), &trusted),
            ip("10.0.0.3")
        );
    }
}
