//! Arbitrary bytes through the MCP endpoint: `sidecar::mcp::answer` must
//! never panic and must answer 200, 202 or 400, with a JSON body whenever the
//! body is not empty (and no body with 202).
//!
//! The first input byte chooses the `MCP-Protocol-Version` header (absent,
//! each served version, newer or garbage values, or raw bytes taken from the
//! input); the rest is the POSTed body. The content comes from a built
//! `dist/`: `$SIDECAR_FUZZ_DIST` when set, else the repository's `dist/` when
//! it has been built, else an empty folder (the endpoint then serves without
//! documents). The live-data tools are answered by a stub, so their
//! argument handling and result shaping are fuzzed too.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use http::{HeaderMap, HeaderValue, StatusCode};
use http_body_util::BodyExt;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use sidecar::mcp::jsonrpc::RpcError;
use sidecar::mcp::{LiveBody, LiveFuture, LiveTools, Mcp, VERSION_HEADER, answer};
use sidecar::published::Published;

/// Fixed answers in place of the live routes; an observations filter whose
/// `station` is "fail" gets the error a rejected query gets.
struct StubLive;

impl LiveTools for StubLive {
    fn stats(&self) -> LiveFuture<'_> {
        Box::pin(async {
            Ok(LiveBody::untagged(
                &json!({"observations": 2, "stations": 1, "updated_at": "2026-01-01T00:00:00Z"}),
            ))
        })
    }

    fn observations(&self, args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async move {
            if args.get("station").and_then(Value::as_str) == Some("fail") {
                return Err(RpcError::invalid_params("Unknown station."));
            }
            // A tag, as the live routes give: the result is kept by it.
            let body = json!({"observations": [{"station": "a", "value": 1.5}], "filters": args});
            let json = serde_json::to_vec(&body).unwrap_or_default();
            let mut hash = std::hash::DefaultHasher::new();
            std::hash::Hasher::write(&mut hash, &json);
            let etag = Some(format!("\"{:016x}\"", std::hash::Hasher::finish(&hash)));
            Ok(LiveBody {
                etag,
                json: json.into(),
            })
        })
    }

    fn globe(&self, args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async move {
            Ok(LiveBody::untagged(
                &json!({"points": [{"lat": 51.5, "lon": -0.1, "label": "a"}], "filters": args}),
            ))
        })
    }

    fn trend(&self, args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async move {
            if args.get("site").and_then(Value::as_str) == Some("down") {
                return Err(sidecar::mcp::tools::tool_fault(
                    "Down. Retry after 30 seconds.",
                ));
            }
            Ok(LiveBody::untagged(&json!({"buckets": [], "filters": args})))
        })
    }
}

struct Fixture {
    mcp: Mcp,
    published: Published,
    runtime: tokio::runtime::Runtime,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dist = std::env::var_os("SIDECAR_FUZZ_DIST")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../dist")));
        let dist = if dist.join("api/service.json").is_file() {
            dist
        } else {
            let empty =
                std::env::temp_dir().join(format!("sidecar-fuzz-empty-{}", std::process::id()));
            std::fs::create_dir_all(&empty).expect("a temporary folder");
            empty
        };
        let published = Published::load(&dist, "http://127.0.0.1:8080")
            .unwrap_or_else(|_| Published::empty("http://127.0.0.1:8080"));
        let mut mcp = Mcp::default();
        mcp.set_live_tools(std::sync::Arc::new(StubLive));
        Fixture {
            mcp,
            published,
            runtime: tokio::runtime::Builder::new_current_thread()
                .build()
                .expect("a tokio runtime"),
        }
    })
}

const FIXED: [&str; 8] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
    "",
    "2025-06-18, 2025-03-26",
    " 2025-06-18",
];

/// The header choice from the first byte, and the body.
fn split(data: &[u8]) -> (HeaderMap, &[u8]) {
    let mut headers = HeaderMap::new();
    let Some((&choice, rest)) = data.split_first() else {
        return (headers, data);
    };
    let choice = choice as usize % 16;
    if choice == 0 {
        return (headers, rest);
    }
    if let Some(fixed) = FIXED.get(choice - 1) {
        headers.insert(VERSION_HEADER, HeaderValue::from_static(fixed));
        return (headers, rest);
    }
    // Raw header bytes: a length byte, then that many bytes, when they make a
    // valid header value (non-UTF-8 included).
    let Some((&len, rest)) = rest.split_first() else {
        return (headers, rest);
    };
    let len = (len as usize).min(rest.len());
    let (value, body) = rest.split_at(len);
    if let Ok(value) = HeaderValue::from_bytes(value) {
        headers.insert(VERSION_HEADER, value);
    }
    (headers, body)
}

fuzz_target!(|data: &[u8]| {
    let fixture = fixture();
    let (headers, body) = split(data);
    let response =
        fixture
            .runtime
            .block_on(answer(&fixture.mcp, &fixture.published, &headers, body));
    let status = response.status();
    assert!(
        [
            StatusCode::OK,
            StatusCode::ACCEPTED,
            StatusCode::BAD_REQUEST
        ]
        .contains(&status),
        "unexpected status {status}"
    );
    let bytes = fixture
        .runtime
        .block_on(response.into_body().collect())
        .expect("a full body")
        .to_bytes();
    if status == StatusCode::ACCEPTED {
        assert!(bytes.is_empty(), "202 with a body");
    } else {
        assert!(!bytes.is_empty(), "{status} without a body");
    }
    if !bytes.is_empty() {
        let value: Value = serde_json::from_slice(&bytes).expect("the body is JSON");
        assert_eq!(value["jsonrpc"], "2.0", "a JSON-RPC answer: {value}");
        assert!(
            value.get("result").is_some() != value.get("error").is_some(),
            "exactly one of result and error: {value}"
        );
    }
});
