//! The MCP endpoint through the real binary on a loopback port: the
//! exchange a client makes (initialize, the initialized notification, a
//! list, the GET it tries afterwards) over one HTTP/1.1 exchange each.

use common::Fixture;
use common::client::Server;
use serde_json::Value;

fn post(server: &Server, path: &str, version: Option<&str>, body: &str) -> common::client::Reply {
    let version = version
        .map(|v| format!("MCP-Protocol-Version: {v}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
        Accept: application/json, text/event-stream\r\n{version}Content-Length: {}\r\n\
        Connection: close\r\n\r\n{body}",
        server.addr,
        body.len()
    );
    server.raw(request.as_bytes(), false)
}

#[test]
fn a_client_session_over_http() {
    let f = Fixture::new();
    let server = Server::start(&f.dist, &[]);
    let init = post(
        &server,
        "/mcp",
        None,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
    );
    assert_eq!(init.status, 200);
    assert_eq!(init.must("content-type"), "application/json");
    assert_eq!(init.must("access-control-allow-origin"), "*");
    assert!(init.header("mcp-session-id").is_none());
    let v: Value = serde_json::from_slice(&init.body).unwrap();
    assert_eq!(v["result"]["protocolVersion"], "2025-06-18");

    let note = post(
        &server,
        "/mcp/",
        Some("2025-06-18"),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(note.status, 202);
    assert!(note.body.is_empty());

    let list = post(
        &server,
        "/mcp/",
        Some("2025-06-18"),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    );
    assert_eq!(list.status, 200);
    let v: Value = serde_json::from_slice(&list.body).unwrap();
    let tools = v["result"]["tools"].as_array().unwrap();
    assert!(!tools.is_empty());
    // Every tool only reads the organisation's own data, as its hints say.
    for t in tools {
        let a = &t["annotations"];
        let hints = (
            &a["readOnlyHint"],
            &a["destructiveHint"],
            &a["idempotentHint"],
            &a["openWorldHint"],
        );
        assert_eq!(
            hints,
            (&true.into(), &false.into(), &true.into(), &false.into()),
            "{}",
            t["name"]
        );
    }

    let get = server.get("/mcp/", &[("Accept", "text/event-stream")]);
    assert_eq!(get.status, 405);
    assert_eq!(get.must("allow"), "POST, OPTIONS");

    let bad = post(
        &server,
        "/mcp/",
        Some("2026-07-28"),
        r#"{"jsonrpc":"2.0","id":2,"method":"server/discover"}"#,
    );
    assert_eq!(bad.status, 400);
    let v: Value = serde_json::from_slice(&bad.body).unwrap();
    assert_eq!(v["error"]["code"], -32600);
}
