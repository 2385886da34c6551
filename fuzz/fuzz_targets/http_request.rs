//! Whole HTTP requests through the sidecar's router, in sequences: a
//! structured input (`arbitrary`) of up to eight requests, each a method, a
//! path (one of the site's routes and files with an arbitrary suffix, or
//! arbitrary text), a query, headers picked from those the sidecar reads
//! (or arbitrary ones) and a body, sent one after another to one state, so
//! that caches, rate limits and the store see sequences.
//!
//! The state is the serving process's own (`server::open_state`): a SQLite
//! file with the sample data, the contact form, the live routes and the MCP
//! live-data tools, over a built site: `$SIDECAR_FUZZ_DIST` when set, else the
//! repository's `dist/` when built, else the repository's content built once
//! into a temporary folder.
//!
//! Every answer must obey the rules every answer obeys: never a 500 (a
//! handler's panic is caught and answered 500, so this finds panics too),
//! `nosniff`, a `Content-Length` equal to the body, no body for HEAD, 204 and
//! 304, a problem object that parses with its status, and a `Location` that
//! stays on the site.

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bytes::Bytes;
use http::{Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use sidecar::{AppState, Config, handle};

const METHODS: [&str; 8] = [
    "GET", "HEAD", "POST", "OPTIONS", "PUT", "DELETE", "PATCH", "TRACE",
];

/// Paths of the site besides the route table's.
const SITE_PATHS: [&str; 5] = ["/", "/index.html", "/docs/", "/docs", "/assets/"];

/// The route table's paths (static files and sidecar routes) and the site's.
fn paths() -> &'static [&'static str] {
    static PATHS: OnceLock<Vec<&'static str>> = OnceLock::new();
    PATHS.get_or_init(|| {
        let mut paths: Vec<&'static str> = contract::routes::ROUTES
            .iter()
            .flat_map(|r| r.paths())
            .collect();
        paths.extend(SITE_PATHS);
        paths
    })
}

const HEADERS: [&str; 16] = [
    "accept-encoding",
    "range",
    "if-none-match",
    "if-modified-since",
    "if-range",
    "origin",
    "content-type",
    "accept",
    "mcp-protocol-version",
    "mcp-session-id",
    "access-control-request-method",
    "access-control-request-headers",
    "x-forwarded-for",
    "forwarded",
    "host",
    "cookie",
];

const CONTENT_TYPES: [&str; 4] = [
    "application/json",
    "application/x-www-form-urlencoded",
    "text/plain",
    "multipart/form-data; boundary=x",
];

#[derive(Arbitrary, Debug)]
enum Path_ {
    Known(u8, String),
    Any(String),
}

#[derive(Arbitrary, Debug)]
enum Name {
    Known(u8),
    Any(String),
}

#[derive(Arbitrary, Debug)]
enum Body {
    Empty,
    Json(String),
    Form(String),
    Bytes(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct Req {
    method: u8,
    path: Path_,
    query: Option<String>,
    headers: Vec<(Name, String)>,
    body: Body,
}

struct Harness {
    runtime: tokio::runtime::Runtime,
    state: AppState,
    _dirs: Vec<tempfile::TempDir>,
}

fn dist(dirs: &mut Vec<tempfile::TempDir>) -> PathBuf {
    if let Some(dist) = std::env::var_os("SIDECAR_FUZZ_DIST") {
        return dist.into();
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if repo.join("dist/manifest.json").exists() {
        return repo.join("dist");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dist");
    generator::build(&generator::BuildOptions {
        content: repo.join("content"),
        templates: repo.join("templates"),
        out: out.clone(),
        base_url: None,
        api_origin: None,
        progress: false,
        cache: None,
        // The default build: the sidecar makes the twins on first use.
        precompress: false,
        drafts: false,
        snapshots: None,
    })
    .expect("the repository's content builds");
    dirs.push(dir);
    out
}

fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(|| {
        let mut dirs = Vec::new();
        let dist = dist(&mut dirs);
        let data = tempfile::tempdir().unwrap();
        let mut config = Config::defaults(&dist);
        config.data_dir = data.path().to_owned();
        config.sample = sidecar::store::sample::SampleSize::Default;
        dirs.push(data);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let published = sidecar::published::Published::load(&dist, "http://127.0.0.1:8080")
            .expect("the site loads");
        let (state, _outbox) = runtime
            .block_on(sidecar::server::open_state(
                config,
                published,
                "127.0.0.1:8080".parse().unwrap(),
            ))
            .expect("the state opens");
        Harness {
            runtime,
            state,
            _dirs: dirs,
        }
    })
}

fn request(r: &Req) -> Option<Request<Full<Bytes>>> {
    let method = match METHODS.get(usize::from(r.method) % (METHODS.len() + 1)) {
        Some(m) => Method::from_bytes(m.as_bytes()).unwrap(),
        None => Method::from_bytes(b"PROPFIND").unwrap(),
    };
    let mut target = match &r.path {
        Path_::Known(i, suffix) => {
            let paths = paths();
            format!("{}{suffix}", paths[usize::from(*i) % paths.len()])
        }
        Path_::Any(p) => p.clone(),
    };
    if let Some(q) = &r.query {
        target.push('?');
        target.push_str(q);
    }
    // What hyper refuses never reaches the router.
    let uri: Uri = target.parse().ok()?;
    uri.path().starts_with('/').then_some(())?;
    let mut builder = Request::builder().method(method).uri(uri);
    for (name, value) in r.headers.iter().take(16) {
        let name = match name {
            Name::Known(i) => HEADERS[usize::from(*i) % HEADERS.len()].to_owned(),
            Name::Any(n) => n.clone(),
        };
        let (Ok(name), Ok(value)) = (
            http::HeaderName::from_bytes(name.as_bytes()),
            http::HeaderValue::from_str(value),
        ) else {
            continue;
        };
        builder = builder.header(name, value);
    }
    let body = match &r.body {
        Body::Empty => Bytes::new(),
        Body::Json(s) => {
            builder = builder.header("content-type", CONTENT_TYPES[0]);
            Bytes::from(s.clone())
        }
        Body::Form(s) => {
            builder = builder.header("content-type", CONTENT_TYPES[1]);
            Bytes::from(s.clone())
        }
        Body::Bytes(b) => Bytes::from(b.clone()),
    };
    builder.body(Full::new(body)).ok()
}

fuzz_target!(|requests: Vec<Req>| {
    let h = harness();
    for r in requests.iter().take(8) {
        let Some(request) = request(r) else {
            continue;
        };
        let what = format!("{} {}", request.method(), request.uri());
        let head = request.method() == Method::HEAD;
        let (parts, body) = h.runtime.block_on(async {
            let response = handle(&h.state, request).await;
            let (parts, body) = response.into_parts();
            (parts, body.collect().await.unwrap().to_bytes())
        });
        let status = parts.status.as_u16();
        assert_ne!(status, 500, "{what}: {body:?}");
        assert_eq!(parts.headers["x-content-type-options"], "nosniff", "{what}");
        if head || status == 204 || status == 304 {
            assert!(body.is_empty(), "{what}: a body with {status}");
        } else if let Some(len) = parts.headers.get("content-length") {
            assert_eq!(len.to_str().unwrap(), body.len().to_string(), "{what}");
        }
        if let Some(location) = parts.headers.get("location") {
            let l = location.to_str().unwrap();
            assert!(
                l.starts_with('/') && !l.starts_with("//") && !l.starts_with("/\\"),
                "{what}: {l}"
            );
        }
        let problem = parts
            .headers
            .get("content-type")
            .is_some_and(|t| t == "application/problem+json");
        if problem && !head {
            let v: Value = serde_json::from_slice(&body).expect("a problem body");
            assert_eq!(v["status"], status, "{what}");
            assert!(v["code"].is_string(), "{what}");
        }
    }
});
