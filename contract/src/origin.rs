//! Origins (`scheme://host[:port]`) as both command lines name them: the
//! generator's `--sidecar-url` and `--api-origin`, the sidecar's
//! `--site-origin`, and the site origin either reads from a build. One
//! parser, so an origin one program accepts the other accepts too, and one
//! serialisation, the one browsers send in `Origin` (lower case, no default
//! port), so the sidecar can compare what it was given with what it gets.

use std::fmt;

/// An absolute `http(s)` origin: scheme, host and optional port, nothing
/// else (a single trailing `/` is allowed; no path, query, fragment or
/// credentials).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub https: bool,
    /// Host as written (`[v6]` with brackets), lower-cased.
    pub host: String,
    /// The port, unless it is the scheme's default.
    pub port: Option<u16>,
}

/// Why a text is not an [`Origin`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OriginError {
    NotHttp,
    Query,
    Fragment,
    Path,
    Credentials,
    NoHost,
    UnclosedIpv6,
    NotIpv6(String),
    AfterHost(String),
    NotHost(String),
    Port(String),
}

impl fmt::Display for OriginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OriginError::NotHttp => f.write_str("not an absolute http:// or https:// URL"),
            OriginError::Query => f.write_str("a query string is not allowed"),
            OriginError::Fragment => f.write_str("a fragment is not allowed"),
            OriginError::Path => f.write_str("a path is not allowed"),
            OriginError::Credentials => f.write_str("credentials (user:password@) are not allowed"),
            OriginError::NoHost => f.write_str("the host is missing"),
            OriginError::UnclosedIpv6 => f.write_str("an IPv6 address needs its closing ']'"),
            OriginError::NotIpv6(inner) => write!(f, "{inner:?} is not an IPv6 address"),
            OriginError::AfterHost(after) => write!(f, "unexpected {after:?} after the host"),
            OriginError::NotHost(host) => write!(f, "{host:?} is not a host name or IP address"),
            OriginError::Port(port) => write!(f, "port {port:?} is not a number from 1 to 65535"),
        }
    }
}

impl std::error::Error for OriginError {}

impl Origin {
    /// Parses `scheme://host[:port]` (scheme and host in any case).
    pub fn parse(raw: &str) -> Result<Origin, OriginError> {
        let (https, rest) = if let Some(r) = strip_prefix_ci(raw, "http://") {
            (false, r)
        } else if let Some(r) = strip_prefix_ci(raw, "https://") {
            (true, r)
        } else {
            return Err(OriginError::NotHttp);
        };
        let (authority, tail) = match rest.find(['/', '?', '#']) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        if tail.contains('?') {
            return Err(OriginError::Query);
        }
        if tail.contains('#') {
            return Err(OriginError::Fragment);
        }
        if !tail.is_empty() && tail != "/" {
            return Err(OriginError::Path);
        }
        if authority.contains('@') {
            return Err(OriginError::Credentials);
        }
        if authority.is_empty() {
            return Err(OriginError::NoHost);
        }
        let (host, port) = split_host_port(authority)?;
        let default = if https { 443 } else { 80 };
        Ok(Origin {
            https,
            host: host.to_ascii_lowercase(),
            port: port.filter(|p| *p != default),
        })
    }

    /// `host:port` with the scheme's default port filled in.
    pub fn authority(&self) -> String {
        let port = self.port.unwrap_or(if self.https { 443 } else { 80 });
        format!("{}:{port}", self.host)
    }

    /// The origin of an absolute `http(s)` URL: what precedes its path,
    /// query or fragment, parsed; `None` for anything else.
    pub fn of_url(url: &str) -> Option<Origin> {
        let authority_at = url.find("://")? + "://".len();
        let end = url[authority_at..]
            .find(['/', '?', '#'])
            .map_or(url.len(), |i| authority_at + i);
        Origin::parse(&url[..end]).ok()
    }
}

/// `scheme://host[:port]`, without a trailing slash: the serialisation of
/// the HTML standard, which browsers send in `Origin`.
impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.https { "https" } else { "http" };
        match self.port {
            Some(p) => write!(f, "{scheme}://{}:{p}", self.host),
            None => write!(f, "{scheme}://{}", self.host),
        }
    }
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    s.get(..prefix.len())
        .filter(|head| head.eq_ignore_ascii_case(prefix))
        .map(|_| &s[prefix.len()..])
}

/// `host[:port]` of an authority; IPv6 hosts keep their brackets.
fn split_host_port(authority: &str) -> Result<(&str, Option<u16>), OriginError> {
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']').ok_or(OriginError::UnclosedIpv6)?;
        let inner = &authority[1..end];
        if inner.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(OriginError::NotIpv6(inner.to_owned()));
        }
        let after = &authority[end + 1..];
        match after.strip_prefix(':') {
            Some(p) => (&authority[..=end], Some(p)),
            None if after.is_empty() => (&authority[..=end], None),
            None => return Err(OriginError::AfterHost(after.to_owned())),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let valid_name = host.starts_with('[')
        || (!host.is_empty()
            && host.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                    && !label.starts_with('-')
                    && !label.ends_with('-')
            }));
    if !valid_name {
        return Err(OriginError::NotHost(host.to_owned()));
    }
    let port = match port {
        None => None,
        Some(p) => Some(
            p.parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| OriginError::Port(p.to_owned()))?,
        ),
    };
    Ok((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_serialised_as_browsers_send_them() {
        for (raw, origin, authority) in [
            (
                "http://127.0.0.1:8081",
                "http://127.0.0.1:8081",
                "127.0.0.1:8081",
            ),
            (
                "HTTPS://API.Example.org/",
                "https://api.example.org",
                "api.example.org:443",
            ),
            ("http://[::1]:9", "http://[::1]:9", "[::1]:9"),
            (
                "https://example.org:443",
                "https://example.org",
                "example.org:443",
            ),
            (
                "http://example.org:443",
                "http://example.org:443",
                "example.org:443",
            ),
        ] {
            let o = Origin::parse(raw).unwrap();
            assert_eq!(
                (o.to_string(), o.authority()),
                (origin.into(), authority.into())
            );
        }
        let o = Origin::of_url("https://Example.org:443/docs/?q#x").unwrap();
        assert_eq!(o.to_string(), "https://example.org");
        assert_eq!(Origin::of_url("/docs/"), None);
    }

    #[test]
    fn what_is_not_an_origin() {
        for (raw, why) in [
            ("127.0.0.1:8081", OriginError::NotHttp),
            ("ftp://example.org", OriginError::NotHttp),
            ("", OriginError::NotHttp),
            ("http://", OriginError::NoHost),
            ("http://example.org/api/", OriginError::Path),
            ("http://example.org/?x=1", OriginError::Query),
            ("http://example.org#top", OriginError::Fragment),
            ("http://user@example.org", OriginError::Credentials),
            ("http://example.org:0", OriginError::Port("0".into())),
            (
                "http://exa mple.org",
                OriginError::NotHost("exa mple.org".into()),
            ),
            ("http://[::1", OriginError::UnclosedIpv6),
            ("http://[zz]:1", OriginError::NotIpv6("zz".into())),
            ("http://[::1]x", OriginError::AfterHost("x".into())),
            ("héllo://x", OriginError::NotHttp),
        ] {
            assert_eq!(Origin::parse(raw), Err(why), "{raw}");
        }
    }
}
