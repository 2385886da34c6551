//! `generate serve`, the real binary on a copy of the sample content: it
//! serves the build with the reload script, rebuilds on a change, shows a
//! failed build in the page and recovers, keeps requests inside the build,
//! and says plainly when it has no sidecar for a live route.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{copy_dir, repo};

/// The preview process, stopped when dropped.
struct Preview {
    child: Child,
    addr: String,
}

impl Drop for Preview {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(content: &Path, templates: &Path, cache: &Path) -> Preview {
    let mut child = Command::new(env!("CARGO_BIN_EXE_generate"))
        .args(["serve", "--listen", "127.0.0.1:0", "--content"])
        .arg(content)
        .arg("--templates")
        .arg(templates)
        .arg("--cache")
        .arg(cache)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_owned();
    Preview { child, addr }
}

/// One HTTP/1.1 request; the status, the head and the body.
fn request(addr: &str, method: &str, target: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

/// Polls `target` until `done` holds for its answer (or fails after 20 s).
fn until(addr: &str, target: &str, what: &str, done: impl Fn(u16, &str) -> bool) -> (u16, String) {
    let start = Instant::now();
    loop {
        let (status, _, body) = request(addr, "GET", target);
        if done(status, &body) {
            return (status, body);
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{what}: {status} {body}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_preview_rebuilds_reloads_and_shows_its_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let (content, templates) = (tmp.path().join("content"), tmp.path().join("templates"));
    copy_dir(&repo().join("content"), &content);
    copy_dir(&repo().join("templates"), &templates);
    let preview = start(&content, &templates, &tmp.path().join("cache"));
    let addr = preview.addr.as_str();

    // Pages carry the reload script (their CSP allows it: same origin).
    let (status, head, body) = request(addr, "GET", "/docs/data/");
    assert_eq!(status, 200);
    assert!(body.contains("<script src=\"/__generate/reload.js\"></script></head>"));
    assert!(head.contains("content-security-policy: default-src 'self'"));
    assert!(head.contains("cache-control: no-store"));
    let (status, head, body) = request(addr, "GET", "/__generate/reload.js");
    assert_eq!(status, 200);
    assert!(head.contains("content-type: text/javascript"));
    assert!(body.contains("EventSource('/__generate/events')"));
    let (status, _, body) = request(addr, "HEAD", "/docs/data/");
    assert_eq!((status, body.as_str()), (200, ""));
    // A directory without its slash is sent to it; unknown paths get the
    // site's 404 page; nothing outside the build is reachable.
    let (status, head, _) = request(addr, "GET", "/docs/data");
    assert_eq!(status, 301);
    assert!(head.contains("location: /docs/data/"));
    assert_eq!(request(addr, "GET", "/no/such/page/").0, 404);
    assert_eq!(
        request(addr, "GET", "/docs/%2e%2e/%2e%2e/Cargo.toml").0,
        400
    );
    assert_eq!(request(addr, "POST", "/docs/data/").0, 405);
    // Without --sidecar-url a live route says what is missing.
    let (status, head, body) = request(addr, "GET", "/api/platform-stats.php");
    assert_eq!(status, 502);
    assert!(head.contains("content-type: application/problem+json"));
    assert!(body.contains("--sidecar-url"));

    // An edit shows up.
    let page = content.join("docs/data/_index.md");
    let mut text = std::fs::read_to_string(&page).unwrap();
    text.push_str("\nA sentence written while the preview runs.\n");
    std::fs::write(&page, &text).unwrap();
    until(addr, "/docs/data/", "the edit", |s, b| {
        s == 200 && b.contains("A sentence written while the preview runs.")
    });

    // A broken file: every page shows the error, and the server stays up.
    let broken = content.join("docs/data/broken.md");
    std::fs::write(&broken, "+++\ntitle = \"Broken\"\n").unwrap();
    let (_, body) = until(addr, "/docs/", "the error page", |s, _| s == 500);
    assert!(body.contains("id=\"build-error\""), "{body}");
    assert!(body.contains("broken.md"), "{body}");
    assert!(
        body.contains("/__generate/reload.js"),
        "the error page reloads too"
    );
    // Fixed: pages again.
    std::fs::remove_file(&broken).unwrap();
    until(addr, "/docs/", "the recovery", |s, _| s == 200);
}

#[test]
fn the_event_stream_announces_each_build() {
    let tmp = tempfile::tempdir().unwrap();
    let (content, templates) = (tmp.path().join("content"), tmp.path().join("templates"));
    copy_dir(&repo().join("content"), &content);
    copy_dir(&repo().join("templates"), &templates);
    let preview = start(&content, &templates, &tmp.path().join("cache"));
    let mut s = TcpStream::connect(&preview.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET /__generate/events HTTP/1.1\r\nHost: {}\r\n\r\n",
        preview.addr
    )
    .unwrap();
    let mut reader = BufReader::new(s);
    let mut seen = Vec::new();
    let mut line = String::new();
    let mut edited = false;
    while seen.len() < 2 {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended");
        if line.to_ascii_lowercase().starts_with("content-type:") {
            assert!(line.contains("text/event-stream"), "{line}");
        }
        if let Some(n) = line.strip_prefix("data: ") {
            seen.push(n.trim().to_owned());
            if !edited {
                edited = true;
                let page = content.join("docs/_index.md");
                let text = std::fs::read_to_string(&page).unwrap();
                std::fs::write(&page, format!("{text}\nOne more line.\n")).unwrap();
            }
        }
    }
    assert_ne!(
        seen[0], seen[1],
        "a rebuild announces a new build: {seen:?}"
    );
}
