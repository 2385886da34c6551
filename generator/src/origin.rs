//! The addresses the command line names: the sidecar's origin
//! (`--sidecar-url`), the separate API origin of a build (`--api-origin`),
//! a front's listening address (`--listen`) and the site's public origin
//! (read from the built sitemap).

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

pub use contract::origin::Origin as HttpOrigin;
use contract::origin::OriginError;

/// Parses `--sidecar-url`.
pub fn sidecar_url(raw: &str) -> Result<HttpOrigin, String> {
    parse("--sidecar-url", raw)
}

/// Checks `--base-url` (an http or https origin, without a path) and
/// returns it without a trailing slash.
pub fn base_url(url: &str) -> anyhow::Result<String> {
    use anyhow::Context;
    let url = url.trim_end_matches('/');
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .with_context(|| format!("--base-url {url}: expected an http:// or https:// origin"))?;
    if rest.is_empty() || rest.contains('/') || rest.contains(['?', '#', ' ']) {
        anyhow::bail!(
            "--base-url {url}: expected an origin such as https://example.org, without a path"
        );
    }
    Ok(url.to_owned())
}

/// Parses `--api-origin`.
pub fn api_origin(raw: &str) -> Result<HttpOrigin, String> {
    parse("--api-origin", raw)
}

/// Parses the origin given to `flag`; every error names the flag.
fn parse(flag: &str, raw: &str) -> Result<HttpOrigin, String> {
    HttpOrigin::parse(raw).map_err(|e| {
        let example = match e {
            OriginError::NotIpv6(_)
            | OriginError::UnclosedIpv6
            | OriginError::AfterHost(_)
            | OriginError::NotHost(_)
            | OriginError::Port(_) => "http://127.0.0.1:8081",
            _ => "http://127.0.0.1:8081 or https://api.example.org",
        };
        let why = match e {
            OriginError::Path => {
                format!("{e}: the sidecar's routes keep their own paths (/api/…, /mcp/)")
            }
            _ => e.to_string(),
        };
        format!("{flag} {raw:?}: {why} (expected an origin such as {example})")
    })
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
    HttpOrigin::of_url(&sitemap[start..end]).map(|o| o.to_string())
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
            (u.to_string(), u.authority()),
            ("http://127.0.0.1:8081".into(), "127.0.0.1:8081".into())
        );
        let u = api_origin("HTTPS://API.Example.org/").unwrap();
        assert_eq!(
            (u.to_string(), u.authority()),
            (
                "https://api.example.org".into(),
                "api.example.org:443".into()
            )
        );
        let u = sidecar_url("http://[::1]:9").unwrap();
        assert_eq!(u.to_string(), "http://[::1]:9");
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
