//! What the tests of `generate host-config` under a real front share:
//! building the site, a copy of it the front's workers can read, a free
//! port, a front process ended when dropped, and raw HTTP/1.1 requests.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

/// An executable named `name` on the PATH or in /usr/sbin.
pub fn find(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin")])
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

pub fn generate(args: &[&str]) -> Output {
    let o = Command::new(crate::generate_bin())
        .args(args)
        .env_remove("GENERATE_SIDECAR_URL")
        .env_remove("GENERATE_ROOT")
        .env_remove("GENERATE_COMPRESSION")
        .env_remove("GENERATE_NGINX_BROTLI_STATIC")
        .output()
        .expect("running generate");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

pub fn build(dist: &Path, extra: &[&str]) {
    let root = crate::repo();
    let (content, templates) = (root.join("content"), root.join("templates"));
    let mut args = vec![
        "build",
        "--content",
        content.to_str().unwrap(),
        "--templates",
        templates.to_str().unwrap(),
        "--out",
        dist.to_str().unwrap(),
        "--base-url",
        "https://example.org",
        "--quiet",
        "--no-cache",
    ];
    args.extend_from_slice(extra);
    generate(&args);
}

/// A copy of `from` at `to`, readable by nginx's workers (which drop root
/// for nobody).
pub fn copy_readable(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o755)).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_readable(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A front in the foreground, ended when dropped.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Running {
    /// Waits until something listens on `port`.
    pub fn listening(self, port: u16) -> Running {
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "nothing listens on {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        self
    }
}

/// GET `path` with `Accept-Encoding: accept`: status, lower-cased header
/// lines, body.
pub fn get(port: u16, path: &str, accept: &str) -> (u16, String, Vec<u8>) {
    request(port, "GET", path, accept)
}

/// `method` `path` with `Accept-Encoding: accept` (and an empty body):
/// status, lower-cased header lines, body.
pub fn request(port: u16, method: &str, path: &str, accept: &str) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let length = if method == "POST" {
        "Content-Length: 0\r\n"
    } else {
        ""
    };
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: example.org\r\nAccept-Encoding: {accept}\r\n{length}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..end]).to_lowercase();
    let status = head[9..12].parse().unwrap();
    let mut body = raw[end + 4..].to_vec();
    if method != "HEAD" && head.contains("\r\ntransfer-encoding: chunked") {
        body = dechunk(&body);
    }
    (status, head, body)
}

/// The payload of a chunked body.
pub fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line = rest.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = std::str::from_utf8(&rest[..line]).unwrap();
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        rest = &rest[line + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

/// The asset no manifest lists that [`add_kept_asset`] writes: an earlier
/// release's, as `scripts/release` leaves it beside the current one.
pub const KEPT: &str = "assets/site.0000000000000000.css";

/// Writes [`KEPT`] (over 256 bytes, with a `.gz` twin) into `served`.
pub fn add_kept_asset(served: &Path) {
    let css = ".earlier-release { color: #123456; }\n".repeat(12);
    for (path, bytes) in [
        (served.join(KEPT), css.as_bytes().to_vec()),
        (
            served.join(format!("{KEPT}.gz")),
            b"\x1f\x8b stand-in twin".to_vec(),
        ),
    ] {
        std::fs::write(&path, bytes).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
}

/// The header `name` (lower case) of a lower-cased head, if there.
pub fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.split("\r\n")
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .map(str::trim)
}

/// What a front configured from the build in `served` answers for hashed
/// assets: this build's as its manifest says; [`KEPT`], which it does not
/// list, from disk with the hashed assets' headers (its twin, or gzipped
/// on the fly when `on_the_fly`); a missing asset, a twin by name and a
/// folder are the 404 page.
pub fn check_assets(port: u16, served: &Path, on_the_fly: bool) {
    let immutable = Some(contract::manifest::CACHE_IMMUTABLE);
    let css = "text/css; charset=utf-8";
    let kept = std::fs::read(served.join(KEPT)).unwrap();
    let url = format!("/{KEPT}");
    let (status, head, body) = get(port, &url, "identity");
    assert_eq!(status, 200, "{url}: {head}");
    assert_eq!(header(&head, "cache-control"), immutable, "{head}");
    assert_eq!(header(&head, "content-type"), Some(css), "{head}");
    assert_eq!(
        header(&head, "x-content-type-options"),
        Some("nosniff"),
        "{head}"
    );
    assert_eq!(
        header(&head, "access-control-allow-origin"),
        Some("*"),
        "{head}"
    );
    assert_eq!(
        header(&head, "vary")
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("accept-encoding"),
        "{head}"
    );
    assert!(header(&head, "etag").is_some(), "{head}");
    assert_eq!(body, kept);
    let (status, head, body) = request(port, "HEAD", &url, "identity");
    assert_eq!((status, body.len()), (200, 0), "HEAD {url}: {head}");
    assert_eq!(header(&head, "cache-control"), immutable, "{head}");
    let (status, head, body) = get(port, &url, "gzip");
    assert_eq!(status, 200, "{url} gzip: {head}");
    assert_eq!(header(&head, "content-encoding"), Some("gzip"), "{head}");
    if on_the_fly {
        assert_eq!(&body[..2], b"\x1f\x8b", "a gzip body");
    } else {
        assert_eq!(
            body,
            std::fs::read(served.join(format!("{KEPT}.gz"))).unwrap()
        );
    }
    let (status, head, _) = request(port, "POST", &url, "identity");
    assert_eq!(status, 405, "POST {url}: {head}");
    let (status, head, _) = request(port, "OPTIONS", &url, "identity");
    assert_eq!(status, 204, "OPTIONS {url}: {head}");
    assert!(
        header(&head, "access-control-allow-methods").is_some(),
        "{head}"
    );
    assert_eq!(header(&head, "cache-control"), None, "{head}");

    // Not there, a twin by name, folders: the site's 404 page.
    let page = std::fs::read(served.join("404.html")).unwrap();
    let mut missing = vec![
        "/assets/nope.1111111111111111.css".to_owned(),
        format!("/{KEPT}.gz"),
        "/assets/".to_owned(),
    ];
    for entry in std::fs::read_dir(served.join("assets")).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            let name = entry.file_name().into_string().unwrap();
            missing.extend([format!("/assets/{name}"), format!("/assets/{name}/")]);
        }
    }
    for path in &missing {
        let (status, head, body) = get(port, path, "identity");
        assert_eq!(status, 404, "{path}: {head}");
        assert_eq!(
            header(&head, "cache-control"),
            Some("no-store"),
            "{path}: {head}"
        );
        assert_eq!(body, page, "{path}");
    }

    // This build's own assets, as its manifest says.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(served.join("manifest.json")).unwrap()).unwrap();
    let files = manifest["files"].as_object().unwrap();
    let mut listed = 0;
    for (key, entry) in files.iter().filter(|(k, _)| k.starts_with("assets/")) {
        listed += 1;
        let url = format!("/{key}");
        let (status, head, body) = get(port, &url, "identity");
        assert_eq!(status, 200, "{url}: {head}");
        assert_eq!(
            header(&head, "cache-control"),
            entry["cache_control"].as_str()
        );
        assert_eq!(
            header(&head, "content-type"),
            entry["content_type"].as_str()
        );
        assert_eq!(body, std::fs::read(served.join(key)).unwrap(), "{url}");
        if let Some(gz) = entry["encodings"]["gzip"]["path"].as_str() {
            let (status, head, body) = get(port, &url, "gzip");
            assert_eq!(status, 200, "{url}: {head}");
            assert!(header(&head, "vary").is_some(), "{url}: {head}");
            assert_eq!(body, std::fs::read(served.join(gz)).unwrap(), "{url} gzip");
        }
    }
    assert!(listed > 0, "the build lists no asset");
}
