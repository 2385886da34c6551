//! The MCP transport through the request handler, without sockets: paths,
//! methods, content types, JSON-RPC framing, notifications, version
//! negotiation and the HTTP status of errors.

use serde_json::{Value, json};

use common::handler::{send, state};
use common::mcp::*;

#[tokio::test]
async fn both_paths_answer_without_redirect() {
    let f = fixture();
    let s = state(&f);
    for path in ["/mcp", "/mcp/"] {
        let a = post(
            &s,
            path,
            &[("content-type", "application/json")],
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        )
        .await;
        assert_eq!(a.status, 200, "{path}");
        assert_eq!(a.json()["result"], json!({}));
    }
}

#[tokio::test]
async fn other_methods_are_405_and_options_is_a_preflight() {
    let f = fixture();
    let s = state(&f);
    for path in ["/mcp", "/mcp/"] {
        for method in ["GET", "DELETE", "PUT", "PATCH", "HEAD"] {
            let a = send(&s, method, path, &[("accept", "text/event-stream")]).await;
            assert_eq!(a.status, 405, "{method} {path}");
            assert_eq!(a.header("allow"), "POST, OPTIONS");
            check_common(&a);
        }
        let a = send(&s, "OPTIONS", path, &[("origin", "https://agent.example")]).await;
        assert_eq!(a.status, 204);
        let allowed = a
            .header("access-control-allow-headers")
            .to_ascii_lowercase();
        for h in [
            "content-type",
            "accept",
            "mcp-protocol-version",
            "mcp-session-id",
            "last-event-id",
        ] {
            assert!(allowed.contains(h), "{h}");
        }
        assert!(a.header("access-control-allow-methods").contains("POST"));
        assert!(a.has("access-control-max-age"));
        check_common(&a);
    }
}

#[tokio::test]
async fn content_type_must_be_json_and_accept_is_lenient() {
    let f = fixture();
    let s = state(&f);
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    for ct in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ] {
        let headers: Vec<(&str, &str)> = ct.map(|c| ("content-type", c)).into_iter().collect();
        let a = post(&s, "/mcp/", &headers, ping).await;
        assert_eq!(a.status, 415, "{ct:?}");
        assert_eq!(a.json()["error"]["code"], -32600);
        assert_eq!(a.json()["id"], Value::Null);
    }
    for (ct, accept) in [
        ("application/json; charset=utf-8", None),
        ("Application/JSON", Some("text/event-stream")),
        (
            "application/json",
            Some("application/json, text/event-stream"),
        ),
        ("application/json", Some("text/html")),
    ] {
        let mut headers = vec![("content-type", ct)];
        if let Some(accept) = accept {
            headers.push(("accept", accept));
        }
        let a = post(&s, "/mcp/", &headers, ping).await;
        assert_eq!(a.status, 200, "{ct} {accept:?}");
        assert_eq!(a.header("content-type"), "application/json");
    }
}

#[tokio::test]
async fn malformed_messages() {
    let f = fixture();
    let s = state(&f);
    let json = [("content-type", "application/json")];
    let cases: &[(&str, i64, Value)] = &[
        ("{not json", -32700, Value::Null),
        ("", -32700, Value::Null),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            -32600,
            Value::Null,
        ),
        ("[]", -32600, Value::Null),
        ("42", -32600, Value::Null),
        (r#""ping""#, -32600, Value::Null),
        (
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        (r#"{"id":1,"method":"ping"}"#, -32600, Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"x","method":5}"#,
            -32600,
            Value::Null,
        ),
    ];
    for (body, code, id) in cases {
        let a = post(&s, "/mcp/", &json, body).await;
        assert_eq!(a.status, 400, "{body}");
        assert_eq!(a.header("content-type"), "application/json");
        let v = a.json();
        assert_eq!(v["jsonrpc"], "2.0");
        assert_eq!(v["error"]["code"], *code, "{body}");
        assert_eq!(v["id"], *id, "{body}");
    }
    // Ids may be strings or integers of any size.
    for id in [json!("abc"), json!(0), json!(-3), json!(u64::MAX)] {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
        let a = post(&s, "/mcp/", &json, &body).await;
        assert_eq!(a.status, 200);
        assert_eq!(a.json()["id"], id);
    }
}

#[tokio::test]
async fn notifications_and_client_responses_are_accepted() {
    let f = fixture();
    let s = state(&f);
    let bodies = [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","method":"no/such/notification"}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":"s1","error":{"code":-1,"message":"no"}}"#,
    ];
    for version in [None, Some("2025-06-18")] {
        for body in bodies {
            let mut headers = vec![("content-type", "application/json")];
            headers.extend(version.map(|v| ("mcp-protocol-version", v)));
            let a = post(&s, "/mcp/", &headers, body).await;
            assert_eq!(a.status, 202, "{body}");
            assert!(a.body.is_empty());
        }
    }
}

#[tokio::test]
async fn version_header_rules() {
    let f = fixture();
    let s = state(&f);
    // Unsupported on anything but initialize: 400 with -32600.
    for bad in ["2026-07-28", "2025-11-25", "1.0", ""] {
        let a = rpc(&s, Some(bad), "tools/list", json!({})).await;
        assert_eq!(a.status, 400, "{bad}");
        assert_eq!(a.json()["error"]["code"], -32600);
        assert_eq!(a.json()["id"], Value::Null);
        let a = rpc(&s, Some(bad), "server/discover", json!({})).await;
        assert_eq!(a.status, 400);
        // Ignored on initialize, which negotiates from the body.
        let r = ok(
            &s,
            bad,
            "initialize",
            json!({"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
        )
        .await;
        assert_eq!(r["protocolVersion"], "2025-03-26");
    }
    // No header: 2025-03-26 shapes (annotations, no titles).
    let a = rpc(&s, None, "tools/list", json!({})).await;
    assert_eq!(a.status, 200);
    assert_eq!(a.header("mcp-protocol-version"), "2025-03-26");
    let tool = &a.json()["result"]["tools"][0];
    assert!(tool.get("annotations").is_some() && tool.get("title").is_none());
    // A session id is ignored, never echoed.
    let a = post(
        &s,
        "/mcp/",
        &[
            ("content-type", "application/json"),
            ("mcp-session-id", "abc"),
        ],
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    )
    .await;
    assert_eq!(a.status, 200);
}

#[tokio::test]
async fn initialize_without_version_or_client_info_is_invalid_params() {
    let f = fixture();
    let s = state(&f);
    let client = json!({"name": "t", "version": "0"});
    for params in [
        json!({}),
        json!({"capabilities": {}, "clientInfo": client}),
        json!({"protocolVersion": 5, "capabilities": {}, "clientInfo": client}),
        json!({"protocolVersion": "2025-06-18", "capabilities": {}}),
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}),
        json!({"protocolVersion": "2025-06-18", "capabilities": 1, "clientInfo": client}),
    ] {
        let a = rpc(&s, None, "initialize", params.clone()).await;
        // A protocol-level error on a well-formed request: HTTP 200.
        assert_eq!(a.status, 200, "{params}");
        assert_eq!(a.json()["error"]["code"], -32602, "{params}");
    }
}

#[tokio::test]
async fn initialize_negotiates_from_the_body() {
    let f = fixture();
    let s = state(&f);
    for (requested, answered) in [
        (json!("2024-11-05"), "2024-11-05"),
        (json!("2025-03-26"), "2025-03-26"),
        (json!("2025-06-18"), "2025-06-18"),
        (json!("2025-11-25"), "2025-06-18"),
        (json!("2099-01-01"), "2025-06-18"),
    ] {
        let params = json!({
            "protocolVersion": requested,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}
        });
        let a = rpc(&s, None, "initialize", params).await;
        assert_eq!(a.status, 200);
        let r = &a.json()["result"];
        assert_eq!(r["protocolVersion"], answered, "{requested}");
        assert_eq!(r["capabilities"]["tools"]["listChanged"], false);
        assert!(r["capabilities"]["resources"].is_object());
        assert!(r["capabilities"]["prompts"].is_object());
        assert_eq!(r["serverInfo"]["name"], "public-information");
        assert_eq!(
            r["serverInfo"].get("title").is_some(),
            answered == "2025-06-18"
        );
        let instructions = r["instructions"].as_str().unwrap();
        assert!(instructions.contains("Blue Reach Observatory"));
        assert!(instructions.contains("only the user submits"));
        assert!(instructions.contains("Agents must not: Submit the contact form; Guess."));
        assert!(instructions.contains("prepare_enquiry"));
    }
}

#[tokio::test]
async fn protocol_errors_use_http_200() {
    let f = fixture();
    let s = state(&f);
    for v in VERSIONS {
        assert_eq!(err(&s, v, "no/such/method", json!({})).await, -32601);
        assert_eq!(
            err(&s, v, "logging/setLevel", json!({"level": "info"})).await,
            -32601
        );
        assert_eq!(ok(&s, v, "ping", json!({})).await, json!({}));
        for method in [
            "tools/list",
            "prompts/list",
            "resources/templates/list",
            "resources/list",
        ] {
            assert_eq!(
                err(&s, v, method, json!({"cursor": "bogus"})).await,
                -32602,
                "{method}"
            );
        }
    }
}

/// Every result but `ping`'s names the release it was made from, as the
/// `X-Release` header of the answer does; a memoised result too.
#[tokio::test]
async fn results_name_their_release() {
    let f = fixture();
    let s = state(&f);
    let release = s.published.get().release.clone();
    for v in VERSIONS {
        for method in ["tools/list", "resources/list", "prompts/list"] {
            for _ in 0..2 {
                let result = ok(&s, v, method, json!({})).await;
                assert_eq!(result["_meta"]["release"], release.as_str(), "{v} {method}");
            }
        }
        assert_eq!(ok(&s, v, "ping", json!({})).await, json!({}));
    }
    let a = rpc(&s, Some("2025-06-18"), "tools/list", json!({})).await;
    assert_eq!(a.header("x-release"), release);
}
