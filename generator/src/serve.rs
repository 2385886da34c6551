//! `generate serve`: a preview for people writing content.
//!
//! It builds into a temporary folder (without compressed twins: the
//! preview answers with the files as they are), serves it on loopback, watches
//! `content/` and `templates/`, rebuilds after each change (incrementally
//! when only documents were edited, see [`crate::pipeline::Session`]: just the
//! pages that show what changed are rendered, and only files whose bytes
//! changed are written) and tells open pages to reload through
//! Server-Sent Events, from a small script
//! that only the preview adds to its answers (never to `dist/`). A build
//! that fails keeps the server up: every page then shows the error until
//! the next build succeeds. With `--sidecar-url`, the sidecar's routes
//! (live data, MCP, the contact form, the chat) are passed to a running
//! sidecar, so the whole site works in the preview.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use anyhow::{Context, Result};
use bytes::Bytes;
use contract::routes::Endpoint;
use http::header::{self, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use notify::Watcher;
use tokio::sync::{mpsc, watch};

use crate::manifest::Manifest;
use crate::origin::HttpOrigin;
use crate::pipeline::{BuildOptions, Session};

/// The preview's own paths (never in `dist/`).
pub const RELOAD_SCRIPT: &str = "/__generate/reload.js";
pub const EVENTS: &str = "/__generate/events";

/// Changes closer together than this make one rebuild.
const SETTLE: Duration = Duration::from_millis(60);
/// An SSE comment this often keeps idle connections open through proxies.
const HEARTBEAT: Duration = Duration::from_secs(15);

/// What `generate serve` takes.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub content: PathBuf,
    pub templates: PathBuf,
    /// Where to listen (loopback unless told otherwise); port 0 picks one.
    pub listen: SocketAddr,
    /// The running sidecar the live routes go to.
    pub sidecar: Option<HttpOrigin>,
}

/// The latest build: its number and, when it failed, why.
#[derive(Debug, Clone, Default)]
struct Status {
    generation: u64,
    error: Option<String>,
}

struct State {
    out: PathBuf,
    /// Published path → media type, from the latest good build.
    files: RwLock<BTreeMap<String, String>>,
    status: watch::Receiver<Status>,
    sidecar: Option<HttpOrigin>,
}

type Body = BoxBody<Bytes, Box<dyn std::error::Error + Send + Sync>>;

/// Builds, serves and rebuilds until the process is stopped; prints the
/// preview's URL on its first line of output.
pub fn serve(opts: ServeOptions) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the runtime")?;
    runtime.block_on(run(opts))
}

async fn run(opts: ServeOptions) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(opts.listen)
        .await
        .with_context(|| format!("listening on {}", opts.listen))?;
    let addr = listener.local_addr()?;
    let folder = tempfile::Builder::new()
        .prefix("generate-serve-")
        .tempdir()
        .context("creating the preview's folder")?;
    let out = folder.path().join("dist");
    let build_opts = BuildOptions {
        content: opts.content.clone(),
        templates: opts.templates.clone(),
        out: out.clone(),
        base_url: Some(format!("http://{addr}")),
        api_origin: None,
        progress: false,
        // A fresh folder every time: no stamp or twin to keep.
        cache: None,
        // The preview answers with the files as they are.
        precompress: false,
        drafts: true,
        snapshots: None,
    };

    let (status_tx, status_rx) = watch::channel(Status::default());
    let state = Arc::new(State {
        out,
        files: RwLock::new(BTreeMap::new()),
        status: status_rx,
        sidecar: opts.sidecar.clone(),
    });
    let session = Arc::new(std::sync::Mutex::new(Session::new(build_opts)));

    // Watch before the first build, so no edit after the start is missed:
    // one saved while the first build runs makes a rebuild after it.
    // The watcher collects the paths; a message wakes the rebuilder.
    let pending: Arc<std::sync::Mutex<Vec<PathBuf>>> = Arc::default();
    let (changed_tx, mut changed_rx) = mpsc::channel::<()>(1);
    let collected = pending.clone();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        match event {
            Ok(e) if e.kind.is_access() => return,
            Ok(e) => collected
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(e.paths),
            // A lost event: the empty path below asks for a whole build.
            Err(_) => collected
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(PathBuf::new()),
        }
        let _ = changed_tx.try_send(());
    })
    .context("watching for changes")?;
    for dir in [&opts.content, &opts.templates] {
        watcher
            .watch(dir, notify::RecursiveMode::Recursive)
            .with_context(|| format!("watching {}", dir.display()))?;
    }
    rebuild(&session, Vec::new(), &state, &status_tx).await;
    // One write: a reader that takes the first line and closes the pipe
    // must not make a later line fail.
    let sidecar = match &opts.sidecar {
        Some(s) => format!("\nlive routes go to {s}"),
        None => String::new(),
    };
    println!("serving http://{addr}/ (a preview: rebuilt and reloaded on every change){sidecar}");

    let rebuild_state = state.clone();
    tokio::spawn(async move {
        while changed_rx.recv().await.is_some() {
            // Let a burst of writes (an editor's save, a checkout) settle.
            tokio::time::sleep(SETTLE).await;
            while changed_rx.try_recv().is_ok() {}
            let mut changed =
                std::mem::take(&mut *pending.lock().unwrap_or_else(|e| e.into_inner()));
            changed.sort();
            changed.dedup();
            rebuild(&session, changed, &rebuild_state, &status_tx).await;
        }
    });

    loop {
        let (stream, _) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                eprintln!("accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let state = state.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(answer(&state, req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Rebuilds after `changed` and publishes the outcome.
async fn rebuild(
    session: &Arc<std::sync::Mutex<Session>>,
    changed: Vec<PathBuf>,
    state: &State,
    status: &watch::Sender<Status>,
) {
    let session = session.clone();
    let outcome = tokio::task::spawn_blocking(move || {
        session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .rebuild(&changed)
    })
    .await
    .map_err(|e| anyhow::anyhow!("the build stopped: {e}"))
    .and_then(|r| r);
    let generation = status.borrow().generation + 1;
    let error = match outcome {
        Ok(rebuilt) => {
            eprintln!("{}", rebuilt.line());
            // An incremental rebuild publishes the same files.
            if !rebuilt.incremental
                && let Some(manifest) = &rebuilt.summary.manifest
            {
                *state.files.write().unwrap_or_else(|e| e.into_inner()) = types(manifest);
            }
            None
        }
        Err(e) => {
            let message = format!("{e:#}");
            eprintln!("build failed: {message}");
            Some(message)
        }
    };
    status.send_replace(Status { generation, error });
}

fn types(manifest: &Manifest) -> BTreeMap<String, String> {
    manifest
        .files
        .iter()
        .map(|(path, entry)| (path.clone(), entry.content_type.clone()))
        .collect()
}

async fn answer(state: &State, req: Request<Incoming>) -> Response<Body> {
    let path = req.uri().path().to_owned();
    if Endpoint::lookup(&path).is_some() {
        return proxy(state, req).await;
    }
    if path == EVENTS {
        return events(state);
    }
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        return plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "the preview serves files: GET or HEAD",
        );
    }
    let head = req.method() == Method::HEAD;
    let mut response = if path == RELOAD_SCRIPT {
        with_type(
            Response::new(full(RELOAD_JS)),
            "text/javascript; charset=utf-8",
        )
    } else {
        file(state, &path)
    };
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static(contract::headers::NOSNIFF),
    );
    if head {
        *response.body_mut() = empty();
    }
    response
}

/// A published file, the build error instead of a page, or 404.
fn file(state: &State, path: &str) -> Response<Body> {
    let status = state.status.borrow().clone();
    let Some(rel) = relative(path) else {
        return plain(StatusCode::BAD_REQUEST, "not a path of the site");
    };
    let files = state.files.read().unwrap_or_else(|e| e.into_inner());
    let is_page = |rel: &str| {
        files
            .get(rel)
            .is_some_and(|t| contract::headers::is_html(t))
    };
    if let Some(error) = &status.error
        && (rel.is_empty()
            || rel.ends_with('/')
            || rel.ends_with(".html")
            || !files.contains_key(&rel))
    {
        return page(StatusCode::INTERNAL_SERVER_ERROR, &error_page(error));
    }
    let key = if rel.is_empty() || rel.ends_with('/') {
        format!("{rel}index.html")
    } else {
        rel.clone()
    };
    if !files.contains_key(&key) {
        if is_page(&format!("{rel}/index.html")) {
            let mut r = plain(StatusCode::MOVED_PERMANENTLY, "moved");
            if let Ok(v) = HeaderValue::try_from(format!("{path}/")) {
                r.headers_mut().insert(header::LOCATION, v);
            }
            return r;
        }
        return match std::fs::read(state.out.join(contract::manifest::NOT_FOUND_PAGE)) {
            Ok(bytes) => page(StatusCode::NOT_FOUND, &String::from_utf8_lossy(&bytes)),
            Err(_) => plain(StatusCode::NOT_FOUND, "not found"),
        };
    }
    let content_type = files[&key].clone();
    drop(files);
    let Ok(bytes) = std::fs::read(state.out.join(&key)) else {
        return plain(StatusCode::NOT_FOUND, "not found");
    };
    if contract::headers::is_html(&content_type) {
        return page(StatusCode::OK, &String::from_utf8_lossy(&bytes));
    }
    with_type(Response::new(full(bytes)), &content_type)
}

/// The request path as a path of the build, or `None` when it could leave
/// it.
fn relative(path: &str) -> Option<String> {
    let decoded = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .ok()?;
    let rel = decoded.strip_prefix('/')?;
    let bad = rel
        .split('/')
        .any(|s| s == ".." || s == "." || s.contains('\\'))
        || rel.contains("//");
    (!bad).then(|| rel.to_owned())
}

/// An HTML answer with the reload script added and the pages' headers.
fn page(status: StatusCode, html: &str) -> Response<Body> {
    let tag = format!("<script src=\"{RELOAD_SCRIPT}\"></script>");
    let html = match html.find("</head>") {
        Some(at) => format!("{}{tag}{}", &html[..at], &html[at..]),
        None => format!("{tag}{html}"),
    };
    let mut r = with_type(Response::new(full(html)), "text/html; charset=utf-8");
    *r.status_mut() = status;
    for (name, value) in contract::headers::HTML {
        r.headers_mut()
            .insert(name, HeaderValue::from_static(value));
    }
    r
}

/// The page shown while the latest build fails.
fn error_page(error: &str) -> String {
    let escaped = error
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Build failed</title></head>\n<body><main><h1>The build failed</h1>\n\
         <p>The preview shows the last change again once it builds.</p>\n\
         <pre id=\"build-error\">{escaped}</pre></main></body></html>\n"
    )
}

/// The reload script: it remembers the build it was loaded with and
/// reloads the page when the server announces another.
const RELOAD_JS: &str = "// generate serve: reloads the page after each rebuild.\n\
(() => {\n\
  let seen = null;\n\
  const events = new EventSource('/__generate/events');\n\
  events.onmessage = (e) => {\n\
    if (seen === null) { seen = e.data; return; }\n\
    if (e.data !== seen) { location.reload(); }\n\
  };\n\
})();\n";

/// `GET /__generate/events`: the build's number now and after each
/// rebuild, as Server-Sent Events.
fn events(state: &State) -> Response<Body> {
    let mut status = state.status.clone();
    let (tx, rx) = mpsc::channel::<Bytes>(4);
    tokio::spawn(async move {
        let mut last = None;
        loop {
            let generation = status.borrow_and_update().generation;
            let message = if last == Some(generation) {
                Bytes::from_static(b": still here\n\n")
            } else {
                last = Some(generation);
                Bytes::from(format!("data: {generation}\n\n"))
            };
            if tx.send(message).await.is_err() {
                return;
            }
            // A change, or a heartbeat's time; the sender gone ends it.
            if let Ok(Err(_)) = tokio::time::timeout(HEARTBEAT, status.changed()).await {
                return;
            }
        }
    });
    let mut r = Response::new(BoxBody::new(Events(rx)));
    let headers = r.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// A body fed by a channel, for the event stream.
struct Events(mpsc::Receiver<Bytes>);

impl hyper::body::Body for Events {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.0.poll_recv(cx).map(|m| m.map(|b| Ok(Frame::data(b))))
    }
}

/// Passes a sidecar route's request to `--sidecar-url` and its answer
/// back; without one, a 502 problem saying so.
async fn proxy(state: &State, req: Request<Incoming>) -> Response<Body> {
    let Some(sidecar) = &state.sidecar else {
        return problem(
            "the preview has no sidecar: start one and pass --sidecar-url to generate serve",
        );
    };
    match forward(sidecar, req).await {
        Ok(r) => r,
        Err(e) => problem(&format!("the sidecar at {sidecar} did not answer: {e:#}")),
    }
}

async fn forward(sidecar: &HttpOrigin, req: Request<Incoming>) -> Result<Response<Body>> {
    anyhow::ensure!(
        !sidecar.https,
        "the preview passes requests to an http:// sidecar"
    );
    let stream = tokio::net::TcpStream::connect(sidecar.authority())
        .await
        .context("connecting")?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    let (mut parts, body) = req.into_parts();
    if let Ok(host) = HeaderValue::try_from(sidecar.authority()) {
        parts.headers.insert(header::HOST, host);
    }
    let response = sender
        .send_request(Request::from_parts(parts, body))
        .await?;
    Ok(response.map(|b| b.map_err(Into::into).boxed()))
}

fn problem(detail: &str) -> Response<Body> {
    let body = serde_json::json!({
        "type": "about:blank",
        "title": "Bad Gateway",
        "status": 502,
        "detail": detail,
        "code": "preview_without_sidecar",
    });
    let mut r = with_type(
        Response::new(full(body.to_string())),
        contract::media::PROBLEM_JSON,
    );
    *r.status_mut() = StatusCode::BAD_GATEWAY;
    r
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut r = with_type(Response::new(full(text)), "text/plain; charset=utf-8");
    *r.status_mut() = status;
    r
}

fn with_type(mut r: Response<Body>, content_type: &str) -> Response<Body> {
    if let Ok(v) = HeaderValue::try_from(content_type) {
        r.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    r
}

fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into())
        .map_err(|e: Infallible| match e {})
        .boxed()
}

fn empty() -> Body {
    full(Bytes::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_paths_stay_inside_the_build() {
        assert_eq!(relative("/docs/").as_deref(), Some("docs/"));
        assert_eq!(relative("/a%20b.txt").as_deref(), Some("a b.txt"));
        assert_eq!(relative("/").as_deref(), Some(""));
        for bad in [
            "/../etc/passwd",
            "/docs/%2e%2e/x",
            "/a//b",
            "/a\\b",
            "x",
            "/%ff",
        ] {
            assert_eq!(relative(bad), None, "{bad}");
        }
    }

    #[test]
    fn pages_get_the_reload_script_in_their_head() {
        let r = page(
            StatusCode::OK,
            "<html><head><title>x</title></head><body></body></html>",
        );
        assert_eq!(r.status(), 200);
        assert!(r.headers().contains_key("content-security-policy"));
    }

    #[test]
    fn build_errors_are_escaped() {
        let html = error_page("bad <script>alert(1)</script> & more");
        assert!(html.contains("bad &lt;script&gt;alert(1)&lt;/script&gt; &amp; more"));
        assert!(!html.contains("<script>alert"));
    }
}
