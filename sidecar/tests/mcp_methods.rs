//! The MCP methods through the request handler, over each protocol
//! version: every tool, resources, templates, prompts and the live-data
//! tools behind their hook.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value, json};
use sidecar::mcp::jsonrpc::RpcError;
use sidecar::mcp::tools::tool_fault;
use sidecar::mcp::{LiveBody, LiveFuture, LiveTools};

use common::handler::state;
use common::mcp::*;

#[tokio::test]
async fn tools_list_follows_the_version() {
    let f = fixture();
    let s = state(&f);
    for v in VERSIONS {
        let r = ok(&s, v, "tools/list", json!({})).await;
        let tools = r["tools"].as_array().unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "get_service_information",
                "search_documentation",
                "get_document",
                "prepare_enquiry"
            ]
        );
        assert!(r.get("nextCursor").is_none());
        for t in tools {
            assert!(!t["description"].as_str().unwrap().is_empty());
            assert_eq!(t["inputSchema"]["type"], "object");
            assert_eq!(t.get("annotations").is_some(), v != "2024-11-05", "{v}");
            if v != "2024-11-05" {
                assert_eq!(t["annotations"], reads_own_data());
            }
            assert_eq!(t.get("title").is_some(), v == "2025-06-18");
            assert_eq!(t.get("outputSchema").is_some(), v == "2025-06-18");
        }
    }
}

/// The hints of a tool that only reads the organisation's own data.
fn reads_own_data() -> Value {
    json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
}

/// Every tool's annotations as `tools/list` gives them, the live tools
/// included: each only reads (`prepare_enquiry` drafts text, stores and
/// sends nothing), destroys nothing, answers alike when repeated and
/// reaches nothing beyond the organisation's own data.
#[tokio::test]
async fn every_tools_annotations() {
    let f = fixture();
    let mut s = state(&f);
    s.mcp.set_live_tools(Arc::new(FakeLive));
    let expected = [
        "get_service_information",
        "get_platform_statistics",
        "get_observations",
        "get_observation_trend",
        "get_globe_points",
        "search_documentation",
        "get_document",
        "prepare_enquiry",
    ];
    for v in ["2025-03-26", "2025-06-18"] {
        let r = ok(&s, v, "tools/list", json!({})).await;
        let tools = r["tools"].as_array().unwrap();
        let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        names.sort_unstable();
        let mut want = expected;
        want.sort_unstable();
        assert_eq!(names, want, "{v}");
        for t in tools {
            assert_eq!(t["annotations"], reads_own_data(), "{v} {}", t["name"]);
        }
    }
}

#[tokio::test]
async fn every_tool_on_every_version() {
    let f = fixture();
    let s = state(&f);
    for v in VERSIONS {
        // Without a section: identity, contact and guardrails in full, the
        // other sections by title.
        let all = tool(&s, v, "get_service_information", json!({})).await;
        assert_eq!(all["name"], "Blue Reach Observatory");
        assert!(all["sections"]["services"].is_array(), "{all}");
        assert!(all["more"].as_str().unwrap().contains("section"));
        for section in [
            "services",
            "projects",
            "evidence",
            "scope",
            "consortium",
            "contact",
            "guardrails",
        ] {
            let one = tool(
                &s,
                v,
                "get_service_information",
                json!({"section": section}),
            )
            .await;
            assert_eq!(one.as_object().unwrap().len(), 1);
            assert!(!one[section].is_null(), "{section}");
            if ["contact", "guardrails"].contains(&section) {
                assert_eq!(one[section], all[section], "{section}");
            }
        }

        let found = tool(
            &s,
            v,
            "search_documentation",
            json!({"query": "nitrate in rivers", "limit": 1}),
        )
        .await;
        let results = found["results"].as_array().unwrap();
        assert_eq!(results.len(), 1);
        assert_eq!(results[0]["url"], format!("{BASE}/docs/archive/"));
        assert_eq!(results[0]["uri"], format!("{BASE}/docs/archive/index.md"));
        assert!(results[0]["snippet"].as_str().unwrap().contains("nitrate"));
        // Only the passages mention kingfishers.
        let shared = tool(
            &s,
            v,
            "search_documentation",
            json!({"query": "kingfisher"}),
        )
        .await;
        let results = shared["results"].as_array().unwrap();
        assert_eq!(results.len(), 1, "{shared}");
        assert_eq!(results[0]["url"], format!("{BASE}/docs/archive/"));
        assert_eq!(results[0]["title"], "Water Watch archive");
        assert!(
            results[0]["snippet"]
                .as_str()
                .unwrap()
                .contains("Kingfisher")
        );
        let none = tool(&s, v, "search_documentation", json!({"query": "zebra"})).await;
        assert_eq!(none["results"], json!([]));

        for path in [
            "/docs/archive/",
            "/docs/archive",
            "https://water.example.org/docs/archive/index.md",
        ] {
            let r = ok(
                &s,
                v,
                "tools/call",
                call("get_document", json!({"path": path})),
            )
            .await;
            assert_eq!(r["isError"], false);
            assert_eq!(r["content"][0]["text"], ARCHIVE);
            if v == "2025-06-18" {
                let d = &r["structuredContent"];
                assert_eq!(d["licence"], "CC-BY-4.0");
                assert_eq!(d["attribution"], "The Water Watch volunteers");
                assert_eq!(d["title"], "Water Watch archive");
            }
        }
        tool(&s, v, "get_document", json!({"path": "/docs/"})).await;
        // A page that does not exist is a tool error the model can read,
        // without structured content.
        let r = ok(
            &s,
            v,
            "tools/call",
            call("get_document", json!({"path": "/docs/none/"})),
        )
        .await;
        assert_eq!(r["isError"], true);
        assert!(r.get("structuredContent").is_none());

        let args = json!({"topic": "Data access", "message": "May we use the nitrate data?", "name": "Ana", "organisation": "River Trust"});
        let e = tool(&s, v, "prepare_enquiry", args.clone()).await;
        let r = ok(&s, v, "tools/call", call("prepare_enquiry", args)).await;
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(text.contains(&format!("{BASE}/contact/")));
        assert!(text.contains("Only the user may submit"));
        if v == "2025-06-18" {
            assert_eq!(e["submitted"], false);
            assert_eq!(e["form_url"], format!("{BASE}/contact/"));
            assert!(e["draft"].as_str().unwrap().contains("Ana, River Trust"));
        }
    }
}

#[tokio::test]
async fn tool_arguments_are_checked() {
    let f = fixture();
    let s = state(&f);
    let cases = [
        json!({"name": "no_such_tool"}),
        json!({"name": "get_platform_statistics"}),
        json!({}),
        json!({"name": 3}),
        json!({"name": "get_service_information", "arguments": []}),
        json!({"name": "get_service_information", "arguments": {"section": "secrets"}}),
        json!({"name": "get_service_information", "arguments": {"extra": 1}}),
        json!({"name": "search_documentation", "arguments": {}}),
        json!({"name": "search_documentation", "arguments": {"query": ""}}),
        json!({"name": "search_documentation", "arguments": {"query": 5}}),
        json!({"name": "search_documentation", "arguments": {"query": "a", "limit": 0}}),
        json!({"name": "search_documentation", "arguments": {"query": "a", "limit": 21}}),
        json!({"name": "search_documentation", "arguments": {"query": "a", "limit": "3"}}),
        json!({"name": "get_document", "arguments": {}}),
        json!({"name": "prepare_enquiry", "arguments": {"topic": "x"}}),
        json!({"name": "prepare_enquiry", "arguments": {"topic": "  ", "message": "m"}}),
        json!({"name": "prepare_enquiry", "arguments": {"topic": "x", "message": "m".repeat(5001)}}),
        json!({"name": "prepare_enquiry", "arguments": {"topic": "x", "message": "m", "email": "a@b"}}),
    ];
    for v in VERSIONS {
        for params in &cases {
            assert_eq!(
                err(&s, v, "tools/call", params.clone()).await,
                -32602,
                "{params}"
            );
        }
    }
}

#[tokio::test]
async fn resources_on_every_version() {
    let f = fixture();
    let s = state(&f);
    for v in VERSIONS {
        let r = ok(&s, v, "resources/list", json!({})).await;
        let list = r["resources"].as_array().unwrap();
        let uris: Vec<&str> = list.iter().map(|r| r["uri"].as_str().unwrap()).collect();
        assert_eq!(
            uris,
            [
                "https://water.example.org/api/service.json",
                "https://water.example.org/openapi.json",
                "https://water.example.org/docs/archive/index.md",
                "https://water.example.org/docs/guide/index.md",
                "https://water.example.org/docs/index.md",
            ]
        );
        for resource in list {
            assert!(resource["name"].is_string() && resource["mimeType"].is_string());
            assert_eq!(resource.get("title").is_some(), v == "2025-06-18");
            let read = ok(&s, v, "resources/read", json!({"uri": resource["uri"]})).await;
            let contents = &read["contents"][0];
            assert_eq!(contents["uri"], resource["uri"]);
            assert_eq!(contents["mimeType"], resource["mimeType"]);
            assert!(!contents["text"].as_str().unwrap().is_empty());
        }
        let doc = ok(&s, v, "resources/read", json!({"uri": uris[2]})).await;
        assert_eq!(doc["contents"][0]["text"], ARCHIVE);
        assert_eq!(doc["contents"][0]["_meta"]["licence"], "CC-BY-4.0");
        assert_eq!(
            list[2]["_meta"]["attribution"],
            "The Water Watch volunteers"
        );
        let service = ok(&s, v, "resources/read", json!({"uri": uris[0]})).await;
        let text = service["contents"][0]["text"].as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap()["name"],
            "Blue Reach Observatory"
        );

        for uri in [
            "https://water.example.org/docs/none/index.md",
            "https://elsewhere.example/docs/archive/index.md",
            "file:///etc/passwd",
        ] {
            assert_eq!(
                err(&s, v, "resources/read", json!({"uri": uri})).await,
                -32002,
                "{uri}"
            );
        }
        assert_eq!(err(&s, v, "resources/read", json!({})).await, -32602);

        let t = ok(&s, v, "resources/templates/list", json!({})).await;
        let template = &t["resourceTemplates"][0];
        assert_eq!(
            template["uriTemplate"],
            "https://water.example.org/docs/{+path}/index.md"
        );
        assert_eq!(template.get("title").is_some(), v == "2025-06-18");
    }
}

/// Resource URIs, page URLs and the instructions name the origin the site
/// was built for, where the pages and their Markdown twins are served, not
/// the organisation's address in `service.json`.
#[tokio::test]
async fn resources_name_the_origin_the_site_was_built_for() {
    const BUILT: &str = "http://127.0.0.1:4000";
    let f = fixture_built_for(BUILT);
    let s = state(&f);
    for v in VERSIONS {
        let r = ok(&s, v, "resources/list", json!({})).await;
        let uris: Vec<&str> = r["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uri"].as_str().unwrap())
            .collect();
        assert!(uris.contains(&"http://127.0.0.1:4000/docs/archive/index.md"));
        for uri in &uris {
            assert!(uri.starts_with(BUILT), "{uri}");
            // The twin a resource names is served at that very URL.
            let path = &uri[BUILT.len()..];
            let served = common::handler::send(&s, "GET", path, &[]).await;
            assert_eq!(served.status, 200, "{uri}");
            let read = ok(&s, v, "resources/read", json!({"uri": uri})).await;
            assert_eq!(
                read["contents"][0]["text"].as_str().unwrap().as_bytes(),
                &served.body[..]
            );
        }
        let old = "https://water.example.org/docs/archive/index.md";
        assert_eq!(
            err(&s, v, "resources/read", json!({"uri": old})).await,
            -32002
        );
        let t = ok(&s, v, "resources/templates/list", json!({})).await;
        assert_eq!(
            t["resourceTemplates"][0]["uriTemplate"],
            "http://127.0.0.1:4000/docs/{+path}/index.md"
        );
        let found = tool(
            &s,
            v,
            "search_documentation",
            json!({"query": "kingfisher"}),
        )
        .await;
        assert_eq!(
            found["results"][0]["url"],
            "http://127.0.0.1:4000/docs/archive/"
        );

        let init = json!({
            "protocolVersion": v,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}
        });
        let r = ok(&s, v, "initialize", init).await;
        let instructions = r["instructions"].as_str().unwrap();
        assert!(
            instructions.contains("(http://127.0.0.1:4000)"),
            "{instructions}"
        );
        assert!(
            !instructions.contains("water.example.org"),
            "{instructions}"
        );
    }
}

#[tokio::test]
async fn prompts_on_every_version() {
    let f = fixture();
    let s = state(&f);
    for v in VERSIONS {
        let r = ok(&s, v, "prompts/list", json!({})).await;
        let prompts = r["prompts"].as_array().unwrap();
        assert_eq!(prompts.len(), 2);
        for p in prompts {
            assert_eq!(p.get("title").is_some(), v == "2025-06-18");
            let mut args = Map::new();
            for a in p["arguments"].as_array().unwrap() {
                args.insert(a["name"].as_str().unwrap().into(), json!("water quality"));
            }
            let got = ok(
                &s,
                v,
                "prompts/get",
                json!({"name": p["name"], "arguments": args}),
            )
            .await;
            let text = got["messages"][0]["content"]["text"].as_str().unwrap();
            assert_eq!(got["messages"][0]["role"], "user");
            assert!(text.contains("water quality") && text.contains("Blue Reach Observatory"));
        }
        for params in [
            json!({"name": "nope"}),
            json!({"name": "answer_about_organisation"}),
            json!({"name": "answer_about_organisation", "arguments": {"question": 3}}),
            json!({"name": "answer_about_organisation", "arguments": {"question": "q", "x": "y"}}),
        ] {
            assert_eq!(
                err(&s, v, "prompts/get", params.clone()).await,
                -32602,
                "{params}"
            );
        }
    }
}

struct FakeLive;

fn licenced(mut v: Value) -> Value {
    v["licence"] = json!({"id": "L", "title": "Licence", "url": "https://example.org/l"});
    v["attribution"] = json!("A");
    v
}

fn stats_body(observations: u64) -> Value {
    json!({"generated_at": "2026-01-01T00:00:00Z", "observations": observations, "sites": 1, "monthly": []})
}

fn trend_body() -> Value {
    licenced(
        json!({"parameter": "nitrate", "unit": "mg/L", "interval": "month", "observations": 0,
        "buckets": [], "trend": {"slope_per_year": null, "change": null}}),
    )
}

impl LiveTools for FakeLive {
    fn stats(&self) -> LiveFuture<'_> {
        Box::pin(async { Ok(LiveBody::untagged(&stats_body(12))) })
    }

    fn observations(&self, args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async move {
            match args.get("site").and_then(Value::as_str) {
                Some("bad") => return Err(RpcError::invalid_params("Invalid site.")),
                Some("boom") => panic!("a bug in the data layer"),
                Some("down") => {
                    return Err(tool_fault("The database is down. Retry after 30 seconds."));
                }
                _ => {}
            }
            Ok(LiveBody::untagged(&licenced(
                json!({"data": [], "next_cursor": null, "limit": 20, "filters": args}),
            )))
        })
    }

    fn globe(&self, _args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async {
            Ok(LiveBody::untagged(&licenced(
                json!({"mode": "points", "type": "FeatureCollection", "features": []}),
            )))
        })
    }

    fn trend(&self, _args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async { Ok(LiveBody::untagged(&trend_body())) })
    }
}

#[tokio::test]
async fn live_tools_when_a_data_layer_is_present() {
    let f = fixture();
    let mut s = state(&f);
    s.mcp.set_live_tools(Arc::new(FakeLive));
    for v in VERSIONS {
        let r = ok(&s, v, "tools/list", json!({})).await;
        assert_eq!(r["tools"].as_array().unwrap().len(), 8);
        let stats = tool(&s, v, "get_platform_statistics", json!({})).await;
        assert_eq!(stats["observations"], 12);
        let globe = tool(&s, v, "get_globe_points", json!({"country": "NL"})).await;
        assert_eq!(globe["type"], "FeatureCollection");
        let trend = tool(&s, v, "get_observation_trend", json!({"parameter": "ph"})).await;
        assert_eq!(trend["unit"], "mg/L");
        let page = tool(&s, v, "get_observations", json!({"site": "S1", "limit": 5})).await;
        assert_eq!(page["filters"], json!({"site": "S1", "limit": 5}));
        // A fault while running is a result the model reads, saying when
        // to try again.
        let r = ok(
            &s,
            v,
            "tools/call",
            call("get_observations", json!({"site": "down"})),
        )
        .await;
        assert_eq!(r["isError"], true);
        assert!(r.get("structuredContent").is_none());
        assert!(
            r["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("Retry after 30 seconds")
        );
        // A panic is a bug: a JSON-RPC internal error, never a 500 page.
        let params = call("get_observations", json!({"site": "boom"}));
        assert_eq!(err(&s, v, "tools/call", params).await, -32603);
    }
}

/// Each fault of each tool and the form it takes: a call that breaks the
/// input schema or names an unknown value is -32602 naming the argument
/// (in the message and in `data.argument`, with `data.allowed` for an
/// enum); a fault while running is a result with `isError: true`.
#[tokio::test]
async fn every_fault_of_every_tool() {
    let f = fixture();
    let mut s = state(&f);
    s.mcp.set_live_tools(Arc::new(FakeLive));
    let v = "2025-06-18";
    let invalid = [
        (
            "get_service_information",
            json!({"section": "secrets"}),
            "section",
            true,
        ),
        (
            "get_service_information",
            json!({"extra": 1}),
            "extra",
            true,
        ),
        ("get_platform_statistics", json!({"x": 1}), "x", true),
        (
            "get_observations",
            json!({"parameter": "gold"}),
            "parameter",
            true,
        ),
        ("get_observations", json!({"limit": 0}), "limit", false),
        ("get_observations", json!({"limit": 51}), "limit", false),
        (
            "get_observations",
            json!({"fields": ["value", "colour"]}),
            "fields",
            true,
        ),
        ("get_observations", json!({"fields": []}), "fields", false),
        (
            "get_observations",
            json!({"fields": "value"}),
            "fields",
            false,
        ),
        (
            "get_observations",
            json!({"colour": "blue"}),
            "colour",
            true,
        ),
        ("get_observations", json!({"site": 3}), "site", false),
        ("get_observation_trend", json!({}), "parameter", true),
        (
            "get_observation_trend",
            json!({"parameter": "gold"}),
            "parameter",
            true,
        ),
        (
            "get_observation_trend",
            json!({"parameter": "ph", "interval": "hour"}),
            "interval",
            true,
        ),
        (
            "get_globe_points",
            json!({"region": "atlantis"}),
            "region",
            true,
        ),
        ("get_globe_points", json!({"limit": 500}), "limit", false),
        ("search_documentation", json!({}), "query", false),
        ("search_documentation", json!({"query": ""}), "query", false),
        (
            "search_documentation",
            json!({"query": "a", "limit": 21}),
            "limit",
            false,
        ),
        ("get_document", json!({}), "path", false),
        ("prepare_enquiry", json!({"topic": "t"}), "message", false),
        (
            "prepare_enquiry",
            json!({"topic": "t", "message": "m".repeat(5001)}),
            "message",
            false,
        ),
    ];
    for (name, args, argument, allowed) in invalid {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call(name, args.clone())});
        let headers = [
            ("content-type", "application/json"),
            ("mcp-protocol-version", v),
        ];
        let answer = post(&s, "/mcp/", &headers, &body.to_string()).await.json();
        let e = &answer["error"];
        assert_eq!(e["code"], -32602, "{name} {args}: {answer}");
        let message = e["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("`{argument}`")),
            "{name} {args}: {message}"
        );
        assert_eq!(e["data"]["argument"], argument, "{name} {args}");
        assert_eq!(
            e["data"]["allowed"].is_array(),
            allowed,
            "{name} {args}: {e}"
        );
    }
    // Faults while running: a result the model reads.
    for (name, args) in [
        ("get_observations", json!({"site": "down"})),
        ("get_document", json!({"path": "/docs/none/"})),
    ] {
        let r = ok(&s, v, "tools/call", call(name, args)).await;
        assert_eq!(r["isError"], true, "{name}");
        assert!(r.get("structuredContent").is_none());
    }
}

/// A data layer whose answers carry an ETag, as the live routes' do: the
/// data (and its tag) change when `generation` does.
struct TaggedLive {
    generation: AtomicU64,
}

impl TaggedLive {
    fn body(&self, value: impl FnOnce(u64) -> Value) -> LiveBody {
        let g = self.generation.load(Ordering::SeqCst);
        LiveBody {
            etag: Some(format!("\"g{g}\"")),
            json: serde_json::to_vec(&value(g)).unwrap().into(),
        }
    }
}

impl LiveTools for TaggedLive {
    fn stats(&self) -> LiveFuture<'_> {
        Box::pin(async { Ok(self.body(stats_body)) })
    }

    fn observations(&self, args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async move {
            Ok(self.body(|g| {
                licenced(json!({"data": [], "next_cursor": null, "limit": 5, "items": [g], "filters": args}))
            }))
        })
    }

    fn globe(&self, _args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async { Ok(self.body(|g| licenced(json!({"mode": "summary", "g": g})))) })
    }

    fn trend(&self, _args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async { Ok(self.body(|_| trend_body())) })
    }
}

/// A live tool's serialised result is kept by its data's ETag: the same
/// data answers the same result (under each caller's id), new data a new
/// one, and each version its own form.
#[tokio::test]
async fn live_results_follow_their_data() {
    let f = fixture();
    let mut s = state(&f);
    let live = Arc::new(TaggedLive {
        generation: AtomicU64::new(1),
    });
    s.mcp.set_live_tools(live.clone());
    for v in VERSIONS {
        live.generation.store(1, Ordering::SeqCst);
        let first = tool(&s, v, "get_platform_statistics", json!({})).await;
        assert_eq!(first["observations"], 1, "{v}");
        assert_eq!(
            tool(&s, v, "get_platform_statistics", json!({})).await,
            first
        );
        let page = tool(&s, v, "get_observations", json!({"limit": 5})).await;
        assert_eq!(page["items"], json!([1]), "{v}");
        live.generation.store(2, Ordering::SeqCst);
        let second = tool(&s, v, "get_platform_statistics", json!({})).await;
        assert_eq!(second["observations"], 2, "{v}: the data changed");
        let page = tool(&s, v, "get_observations", json!({"limit": 5})).await;
        assert_eq!(page["items"], json!([2]), "{v}");
        let globe = tool(&s, v, "get_globe_points", json!({})).await;
        assert_eq!(globe["g"], 2, "{v}");
    }
}

/// Content-only results are memoised: a repeated call answers the same
/// result under the caller's own id, per version, and errors are not kept.
#[tokio::test]
async fn repeated_calls_answer_alike_with_their_own_ids() {
    let f = fixture();
    let s = state(&f);
    let send = |id: Value, version: &'static str, method: &'static str, params: Value| {
        let s = &s;
        async move {
            let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            let headers = [
                ("content-type", "application/json"),
                ("mcp-protocol-version", version),
            ];
            post(s, "/mcp/", &headers, &body.to_string()).await.json()
        }
    };
    let params = call("get_service_information", json!({"section": "projects"}));
    for v in VERSIONS {
        let first = send(json!(1), v, "tools/call", params.clone()).await;
        let again = send(json!("x\"y"), v, "tools/call", params.clone()).await;
        assert_eq!(again["id"], "x\"y");
        assert_eq!(first["id"], 1);
        assert_eq!(first["result"], again["result"], "{v}");
        assert_eq!(
            again["result"].get("structuredContent").is_some(),
            v == "2025-06-18",
            "the memo is per version"
        );
        let listed = send(json!(3), v, "tools/list", json!({})).await;
        let relisted = send(json!(4), v, "tools/list", json!({})).await;
        assert_eq!(listed["result"], relisted["result"]);
        assert_eq!(relisted["id"], 4);
    }
    let bad = call("get_service_information", json!({"section": "nope"}));
    for id in [5, 6] {
        let answer = send(json!(id), "2025-06-18", "tools/call", bad.clone()).await;
        assert_eq!(answer["id"], id);
        assert!(answer.get("result").is_none() || answer["result"]["isError"] == true);
    }
}
