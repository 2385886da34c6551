//! The practical ceiling of static serving on this stack, for
//! `scripts/bench serve`: hyper answering every request with one fixed
//! answer (a file's bytes and the headers the sidecar sends with an HTML
//! page), with no routing, lookup, negotiation or metrics. One
//! current-thread runtime per worker, each accepting on its own
//! `SO_REUSEPORT` socket.
//!
//!     bare_hyper ADDR FILE [WORKERS]

use std::convert::Infallible;
use std::net::SocketAddr;

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{HeaderMap, Response};
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpSocket;

fn headers() -> HeaderMap {
    let mut h = HeaderMap::new();
    let fixed = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::ETAG, "\"0123456789abcdef0123456789abcdef\""),
        (
            header::CACHE_CONTROL,
            "public, max-age=60, stale-while-revalidate=600",
        ),
        (header::VARY, "accept-encoding"),
        (header::ACCEPT_RANGES, "bytes"),
        (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        (
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            contract::routes::EXPOSE_HEADERS,
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (
            header::CONTENT_SECURITY_POLICY,
            contract::headers::CONTENT_SECURITY_POLICY,
        ),
        (header::REFERRER_POLICY, contract::headers::REFERRER_POLICY),
        (header::X_FRAME_OPTIONS, contract::headers::FRAME_OPTIONS),
    ];
    for (name, value) in fixed {
        h.insert(name, HeaderValue::from_static(value));
    }
    h.insert(
        header::HeaderName::from_static("permissions-policy"),
        HeaderValue::from_static(contract::headers::PERMISSIONS_POLICY),
    );
    h
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(addr), Some(file)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: bare_hyper ADDR FILE [WORKERS]");
        std::process::exit(2);
    };
    let addr: SocketAddr = addr.parse().expect("an address such as 127.0.0.1:8080");
    let body = Bytes::from(std::fs::read(file).expect("a readable file"));
    let workers = args
        .get(3)
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let headers = headers();
    let threads: Vec<_> = (0..workers)
        .map(|_| {
            let (body, headers) = (body.clone(), headers.clone());
            std::thread::spawn(move || serve(addr, body, headers))
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
}

fn serve(addr: SocketAddr, body: Bytes, headers: HeaderMap) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let socket = TcpSocket::new_v4().expect("a socket");
        socket.set_reuseport(true).expect("SO_REUSEPORT");
        socket.set_reuseaddr(true).expect("SO_REUSEADDR");
        socket.bind(addr).expect("bind");
        let listener = socket.listen(1024).expect("listen");
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let (body, headers) = (body.clone(), headers.clone());
            tokio::spawn(async move {
                let service = service_fn(move |_request| {
                    let mut response = Response::new(Full::new(body.clone()));
                    *response.headers_mut() = headers.clone();
                    async move { Ok::<_, Infallible>(response) }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
}
