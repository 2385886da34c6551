//! The addresses the command line names: the sidecar's origin
//! (`--sidecar-url`), the separate API origin of a build (`--api-origin`),
//! a front's listening address (`--listen`) and the site's public origin
//! (read from the built sitemap).

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

/// An absolute `http(s)` origin: scheme, host and optional port, nothing
/// else (no path, query, fragment or credentials).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOrigin {
    pub https: bool,
    /// Host as written (`[v6]` with brackets), lower-cased.
    pub host: String,
    pub port: Option<u16>,
}

impl HttpOrigin {
    /// `scheme://host[:port]`, without a trailing slash.
    pub fn origin(&self) -> String {
        let scheme = if self.https { "https" } else { "http" };
        match self.port {
            Some(p) => format!("{scheme}://{}:{p}", self.host),
            None => format!("{scheme}://{}", self.host),
        }
    }

    /// `host:port` with the scheme's default port filled in.
    pub fn authority(&self) -> String {
        let port = self.port.unwrap_or(if self.https { 443 } else { 80 });
        format!("{}:{port}", self.host)
    }
}

impl fmt::Display for HttpOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.origin())
    }
}

/// Parses `--sidecar-url`.
pub fn sidecar_url(raw: &str) -> Result<HttpOrigin, String> {
    HttpOrigin::parse("--sidecar-url", raw)
}

/// Parses `--api-origin`.
pub fn api_origin(raw: &str) -> Result<HttpOrigin, String> {
    HttpOrigin::parse("--api-origin", raw)
}

impl HttpOrigin {
    /// Parses the origin given to `flag`; every error names the flag.
    pub fn parse(flag: &str, raw: &str) -> Result<Self, String> {
        let fail = |why: &str| {
            Err(format!(
                "{flag} {raw:?}: {why} (expected an origin such as http://127.0.0.1:8081 or https://api.example.org)"
            ))
        };
        let (https, rest) = if let Some(r) = strip_prefix_ci(raw, "http://") {
            (false, r)
        } else if let Some(r) = strip_prefix_ci(raw, "https://") {
            (true, r)
        } else {
            return fail("not an absolute http:// or https:// URL");
        };
        let (authority, tail) = match rest.find(['/', '?', '#']) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        if tail.contains('?') {
            return fail("a query string is not allowed");
        }
        if tail.contains('#') {
            return fail("a fragment is not allowed");
        }
        if !tail.is_empty() && tail != "/" {
            return fail(
                "a path is not allowed: the sidecar's routes keep their own paths (/api/…, /mcp/)",
            );
        }
        if authority.contains('@') {
            return fail("credentials (user:password@) are not allowed");
        }
        if authority.is_empty() {
            return fail("the host is missing");
        }
        let (host, port) = split_host_port(authority).map_err(|why| {
            format!("{flag} {raw:?}: {why} (expected an origin such as http://127.0.0.1:8081)")
        })?;
        Ok(HttpOrigin {
            https,
            host: host.to_ascii_lowercase(),
            port,
        })
    }
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    (s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix))
        .then(|| &s[prefix.len()..])
}

/// `host[:port]` of an authority; IPv6 hosts keep their brackets.
fn split_host_port(authority: &str) -> Result<(&str, Option<u16>), String> {
    let (host, port) = if authority.starts_with('[') {
        let end = authority
            .find(']')
            .ok_or("an IPv6 address needs its closing ']'")?;
        let inner = &authority[1..end];
        inner
            .parse::<std::net::Ipv6Addr>()
            .map_err(|_| format!("{inner:?} is not an IPv6 address"))?;
        let after = &authority[end + 1..];
        match after.strip_prefix(':') {
            Some(p) => (&authority[..=end], Some(p)),
            None if after.is_empty() => (&authority[..=end], None),
            None => return Err(format!("unexpected {after:?} after the host")),
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
        return Err(format!("{host:?} is not a host name or IP address"));
    }
    let port = match port {
        None => None,
        Some(p) => Some(
            p.parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| format!("port {p:?} is not a number from 1 to 65535"))?,
        ),
    };
    Ok((host, port))
}

/// Where the front listens: an `IP:PORT`, or a port on every interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    Port(u16),
    Addr(SocketAddr),
}

impl Listen {
    pub fn port(&self) -> u16 {
        match self {
            Listen::Port(p) => *p,
            Listen::Addr(a) => a.port(),
        }
    }

    pub fn ip(&self) -> Option<IpAddr> {
        match self {
            Listen::Port(_) => None,
            Listen::Addr(a) => Some(a.ip()),
        }
    }
}

impl Default for Listen {
    fn default() -> Self {
        Listen::Port(80)
    }
}

impl FromStr for Listen {
    type Err = String;

    fn from_str(raw: &str) -> Result<Self, String> {
        if let Ok(port) = raw.parse::<u16>() {
            return Ok(Listen::Port(port));
        }
        raw.parse::<SocketAddr>().map(Listen::Addr).map_err(|_| {
            format!("--listen {raw:?}: expected IP:PORT (127.0.0.1:8080, [::1]:8080) or a port")
        })
    }
}

impl fmt::Display for Listen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Listen::Port(p) => write!(f, "{p}"),
            Listen::Addr(a) => write!(f, "{a}"),
        }
    }
}

/// The origin of the first page URL of a built `sitemap.xml`: the site's
/// public origin, the base of problem `type` URLs.
pub fn site_origin(sitemap: &str) -> Option<String> {
    let start = sitemap.find("<loc>")? + "<loc>".len();
    let end = start + sitemap[start..].find("</loc>")?;
    let url = &sitemap[start..end];
    let scheme_end = url.find("://")? + 3;
    let host_end = url[scheme_end..]
        .find('/')
        .map_or(url.len(), |i| scheme_end + i);
    let origin = &url[..host_end];
    // Checked like --sidecar-url: an origin, nothing a config could trip on.
    sidecar_url(origin).ok().map(|o| o.origin())
}

/// Where the URLs of a built site point: its files on the site's origin,
/// the sidecar's routes on the API origin. The two are one origin unless
/// the build was given `--api-origin` (the separate-origin layout, for hosts
/// that cannot proxy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origins {
    /// The site's public origin, without a trailing slash.
    pub site: String,
    /// The sidecar's origin when it is not the site's.
    pub separate_api: Option<String>,
}

impl Origins {
    pub fn same(site: &str) -> Origins {
        Origins {
            site: site.to_owned(),
            separate_api: None,
        }
    }

    /// The origin of the sidecar's routes.
    pub fn api(&self) -> &str {
        self.separate_api.as_deref().unwrap_or(&self.site)
    }

    /// The absolute URL of a site path, on the origin that answers it (the
    /// route table decides).
    pub fn url(&self, path: &str) -> String {
        let origin = if contract::routes::Endpoint::lookup(path).is_some() {
            self.api()
        } else {
            &self.site
        };
        format!("{origin}{path}")
    }

    /// What page scripts put before a sidecar route: nothing (relative URLs
    /// work on any host) or the separate API origin.
    pub fn script_prefix(&self) -> &str {
        self.separate_api.as_deref().unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecar_urls() {
        let u = sidecar_url("http://127.0.0.1:8081").unwrap();
        assert_eq!(
            (u.origin(), u.authority()),
            ("http://127.0.0.1:8081".into(), "127.0.0.1:8081".into())
        );
        let u = api_origin("HTTPS://API.Example.org/").unwrap();
        assert_eq!(
            (u.origin(), u.authority()),
            (
                "https://api.example.org".into(),
                "api.example.org:443".into()
            )
        );
        let u = sidecar_url("http://[::1]:9").unwrap();
        assert_eq!(u.origin(), "http://[::1]:9");
    }

    #[test]
    fn bad_sidecar_urls_name_the_flag_and_the_reason() {
        for (raw, why) in [
            ("127.0.0.1:8081", "not an absolute http"),
            ("ftp://example.org", "not an absolute http"),
            ("/api", "not an absolute http"),
            ("", "not an absolute http"),
            ("http://", "host is missing"),
            ("http://example.org/sidecar", "a path is not allowed"),
            ("http://example.org/api/", "a path is not allowed"),
            ("http://example.org?x=1", "a query string is not allowed"),
            ("http://example.org/?x=1", "a query string is not allowed"),
            ("http://example.org#top", "a fragment is not allowed"),
            ("http://user:pw@example.org", "credentials"),
            ("http://user@example.org", "credentials"),
            ("http://example.org:0", "port"),
            ("http://example.org:99999", "port"),
            ("http://exa mple.org", "not a host name"),
            ("http://[::1", "closing"),
            ("http://[zz]:1", "not an IPv6 address"),
        ] {
            let e = sidecar_url(raw).unwrap_err();
            assert!(e.starts_with("--sidecar-url "), "{raw}: {e}");
            assert!(e.contains(why), "{raw}: {e}");
            let e = api_origin(raw).unwrap_err();
            assert!(e.starts_with("--api-origin "), "{raw}: {e}");
            assert!(e.contains(why), "{raw}: {e}");
        }
    }

    #[test]
    fn listen_addresses() {
        assert_eq!("8080".parse::<Listen>().unwrap(), Listen::Port(8080));
        assert_eq!(
            "127.0.0.1:8080".parse::<Listen>().unwrap().to_string(),
            "127.0.0.1:8080"
        );
        assert_eq!("[::1]:80".parse::<Listen>().unwrap().port(), 80);
        let e = "localhost:80".parse::<Listen>().unwrap_err();
        assert!(e.starts_with("--listen"), "{e}");
    }

    #[test]
    fn origins_follow_the_route_table() {
        let same = Origins::same("https://example.org");
        assert_eq!(same.url("/mcp/"), "https://example.org/mcp/");
        assert_eq!(same.script_prefix(), "");
        let split = Origins {
            site: "https://example.org".into(),
            separate_api: Some("https://api.example.org".into()),
        };
        assert_eq!(split.url("/mcp/"), "https://api.example.org/mcp/");
        assert_eq!(split.url("/mcp"), "https://api.example.org/mcp");
        assert_eq!(
            split.url("/api/platform-stats.php"),
            "https://api.example.org/api/platform-stats.php"
        );
        assert_eq!(
            split.url("/api/service.json"),
            "https://example.org/api/service.json"
        );
        assert_eq!(split.url("/docs/"), "https://example.org/docs/");
        assert_eq!(split.script_prefix(), "https://api.example.org");
    }

    #[test]
    fn site_origin_from_sitemap() {
        let xml = "<urlset>\n  <url>\n    <loc>https://example.org/</loc>\n  </url>\n</urlset>";
        assert_eq!(site_origin(xml).as_deref(), Some("https://example.org"));
        let xml = "<loc>http://127.0.0.1:8080/docs/</loc>";
        assert_eq!(site_origin(xml).as_deref(), Some("http://127.0.0.1:8080"));
        assert_eq!(site_origin("<urlset/>"), None);
    }
}
