//! `sidecar healthcheck`: probes a running sidecar's `/healthz` and exits
//! 0 (healthy) or 1 (not), for a container's `HEALTHCHECK` in an image
//! without a shell or curl.
//!
//! The probe is one HTTP/1.1 request over a plain `std::net::TcpStream`,
//! written and read by hand: it needs no runtime and no client crate, and a
//! deadline bounds every step (connect, write, read), so a hung server
//! counts as unhealthy instead of hanging the health check.
//!
//! The address comes from `--url` (`SIDECAR_HEALTHCHECK_URL`), else from
//! the same `SIDECAR_LISTEN` the server reads, with an unspecified address
//! (`0.0.0.0`, `[::]`) replaced by the loopback of its family: inside a
//! container the probe runs next to the server with the same environment.

use contract::routes::Endpoint;
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream, ToSocketAddrs};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;

/// Largest answer read; `/healthz` answers with a few hundred bytes.
const MAX_REPLY: usize = 16 * 1024;

/// `sidecar healthcheck`.
#[derive(Debug, Clone, Args)]
pub struct HealthcheckArgs {
    /// URL probed (`http://HOST:PORT/PATH`; `HOST:PORT` means
    /// `http://HOST:PORT/healthz`). Default: `/healthz` on the `--listen`
    /// address.
    #[arg(long, env = "SIDECAR_HEALTHCHECK_URL")]
    pub url: Option<String>,

    /// The server's listen address, as given to `sidecar serve`; an
    /// unspecified IP (`0.0.0.0`, `[::]`) is probed on loopback.
    #[arg(long, env = "SIDECAR_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// Time the whole probe may take, in milliseconds.
    #[arg(long, env = "SIDECAR_HEALTHCHECK_TIMEOUT_MS", default_value_t = 2000)]
    pub timeout_ms: u64,
}

/// Where to send the probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `host:port` to connect to and to send as `Host`.
    pub authority: String,
    /// Request target, starting with `/`.
    pub path: String,
}

impl Target {
    /// The target for these arguments.
    pub fn from_args(args: &HealthcheckArgs) -> Result<Target, String> {
        match &args.url {
            Some(url) => Target::parse(url),
            None => Ok(Target::for_listen(args.listen)),
        }
    }

    /// `/healthz` on a listen address, unspecified IPs mapped to loopback.
    pub fn for_listen(listen: SocketAddr) -> Target {
        let ip = match listen.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        Target {
            authority: SocketAddr::new(ip, listen.port()).to_string(),
            path: Endpoint::Healthz.path().into(),
        }
    }

    /// Parses `http://host:port[/path]` or `host:port`.
    pub fn parse(url: &str) -> Result<Target, String> {
        let bad = |why: &str| Err(format!("--url {url:?}: {why}"));
        let rest = match url.split_once("://") {
            Some(("http", rest)) => rest,
            Some(_) => return bad("only http:// is supported"),
            None => url,
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, Endpoint::Healthz.path()),
        };
        if authority.is_empty()
            || authority.contains(['@', ' ', '?', '#'])
            || path.bytes().any(|b| b.is_ascii_control() || b == b' ')
        {
            return bad("expected http://HOST:PORT/PATH");
        }
        let has_port = match authority.rsplit_once(':') {
            Some((host, port)) => !host.is_empty() && port.parse::<u16>().is_ok(),
            None => false,
        };
        let authority = if has_port && !authority.ends_with(']') {
            authority.to_owned()
        } else {
            format!("{authority}:80")
        };
        Ok(Target {
            authority,
            path: path.to_owned(),
        })
    }

    pub fn url(&self) -> String {
        format!("http://{}{}", self.authority, self.path)
    }
}

/// Why a probe failed.
#[derive(Debug)]
pub struct Unhealthy(pub String);

/// Sends `GET path` and returns the status code if it is 200; any other
/// status, a connection failure or the deadline passing is an error.
pub fn probe(target: &Target, timeout: Duration) -> Result<u16, Unhealthy> {
    let deadline = Instant::now() + timeout;
    let fail = |what: &str, e: &dyn std::fmt::Display| Err(Unhealthy(format!("{what}: {e}")));
    let addrs: Vec<SocketAddr> = match target.authority.to_socket_addrs() {
        Ok(addrs) => addrs.collect(),
        Err(e) => return fail("resolving the address", &e),
    };
    let mut last = None;
    let mut stream = None;
    for addr in addrs {
        let Some(left) = remaining(deadline) else {
            break;
        };
        match TcpStream::connect_timeout(&addr, left) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = Some(e),
        }
    }
    let Some(mut stream) = stream else {
        return match last {
            Some(e) => fail("connecting", &e),
            None => fail("connecting", &"timed out"),
        };
    };
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: sidecar-healthcheck\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
        target.path, target.authority
    );
    let step = |stream: &TcpStream| {
        let left = remaining(deadline).unwrap_or(Duration::from_millis(1));
        stream.set_write_timeout(Some(left))?;
        stream.set_read_timeout(Some(left))
    };
    if let Err(e) = step(&stream).and_then(|()| stream.write_all(request.as_bytes())) {
        return fail("sending the request", &e);
    }
    // Read until the status line is complete (the rest is not needed).
    let mut reply = Vec::with_capacity(256);
    let mut buf = [0u8; 1024];
    while !reply.windows(2).any(|w| w == b"\r\n") {
        if reply.len() > MAX_REPLY || remaining(deadline).is_none() {
            return fail("reading the answer", &"no status line in time");
        }
        if let Err(e) = step(&stream) {
            return fail("reading the answer", &e);
        }
        match stream.read(&mut buf) {
            Ok(0) => return fail("reading the answer", &"connection closed"),
            Ok(n) => reply.extend_from_slice(&buf[..n]),
            Err(e) => return fail("reading the answer", &e),
        }
    }
    let line = String::from_utf8_lossy(&reply);
    let line = line.lines().next().unwrap_or_default();
    let status = line
        .strip_prefix("HTTP/1.")
        .and_then(|rest| rest.get(2..5))
        .and_then(|code| code.parse::<u16>().ok());
    match status {
        Some(200) => Ok(200),
        Some(code) => Err(Unhealthy(format!("status {code}"))),
        None => fail("reading the answer", &format!("not HTTP: {line:?}")),
    }
}

fn remaining(deadline: Instant) -> Option<Duration> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
}

/// Runs the subcommand: one line on stdout when healthy (exit 0), one on
/// stderr when not (exit 1); a bad argument exits 2.
pub fn run(args: &HealthcheckArgs) -> ExitCode {
    let target = match Target::from_args(args) {
        Ok(target) => target,
        Err(e) => {
            eprintln!("sidecar healthcheck: SIDECAR_HEALTHCHECK_URL {e}");
            return ExitCode::from(2);
        }
    };
    if args.timeout_ms == 0 {
        eprintln!(
            "sidecar healthcheck: SIDECAR_HEALTHCHECK_TIMEOUT_MS (--timeout-ms) must be at least 1"
        );
        return ExitCode::from(2);
    }
    let started = Instant::now();
    match probe(&target, Duration::from_millis(args.timeout_ms)) {
        Ok(status) => {
            println!(
                "healthy: {} answered {status} in {} ms",
                target.url(),
                started.elapsed().as_millis()
            );
            ExitCode::SUCCESS
        }
        Err(Unhealthy(why)) => {
            eprintln!("unhealthy: {}: {why}", target.url());
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses_map_to_loopback() {
        let t = |s: &str| Target::for_listen(s.parse().unwrap()).url();
        assert_eq!(t("0.0.0.0:8080"), "http://127.0.0.1:8080/healthz");
        assert_eq!(t("[::]:9000"), "http://[::1]:9000/healthz");
        assert_eq!(t("10.1.2.3:80"), "http://10.1.2.3:80/healthz");
        assert_eq!(t("127.0.0.1:8081"), "http://127.0.0.1:8081/healthz");
    }

    #[test]
    fn urls_parse() {
        let p = |s: &str| Target::parse(s).map(|t| t.url());
        assert_eq!(
            p("http://127.0.0.1:9/readyz").unwrap(),
            "http://127.0.0.1:9/readyz"
        );
        assert_eq!(
            p("localhost:8080").unwrap(),
            "http://localhost:8080/healthz"
        );
        assert_eq!(p("http://example").unwrap(), "http://example:80/healthz");
        assert_eq!(p("http://[::1]:81/").unwrap(), "http://[::1]:81/");
        assert_eq!(p("http://[::1]").unwrap(), "http://[::1]:80/healthz");
        for bad in ["https://x:1/", "http://", "http://u@x:1/", "http://x:1/a b"] {
            assert!(p(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_closed_port_is_unhealthy() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let target = Target::for_listen(addr);
        assert!(probe(&target, Duration::from_secs(2)).is_err());
    }

    #[test]
    fn a_silent_server_is_unhealthy_within_the_timeout() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let target = Target::for_listen(listener.local_addr().unwrap());
        let started = Instant::now();
        let err = probe(&target, Duration::from_millis(300)).unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(2), "{err:?}");
        drop(listener);
    }

    #[test]
    fn only_200_is_healthy() {
        for (answer, healthy) in [
            ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true),
            ("HTTP/1.1 503 Service Unavailable\r\n\r\n", false),
            ("HTTP/1.0 200 OK\r\n\r\n", true),
            ("SSH-2.0-OpenSSH\r\n", false),
        ] {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let target = Target::for_listen(listener.local_addr().unwrap());
            let server = std::thread::spawn(move || {
                let (mut s, _) = listener.accept().unwrap();
                let mut buf = [0u8; 1024];
                let n = s.read(&mut buf).unwrap();
                let request = String::from_utf8_lossy(&buf[..n]).into_owned();
                s.write_all(answer.as_bytes()).unwrap();
                request
            });
            let result = probe(&target, Duration::from_secs(2));
            let request = server.join().unwrap();
            assert!(
                request.starts_with("GET /healthz HTTP/1.1\r\n"),
                "{request}"
            );
            assert_eq!(result.is_ok(), healthy, "{answer:?}: {result:?}");
        }
    }
}
