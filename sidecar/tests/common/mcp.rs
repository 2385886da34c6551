//! Helpers for the MCP handler tests: a `dist/` with service information
//! and documentation twins, and calls through the request handler that
//! check the rules every MCP answer obeys.

use bytes::Bytes;
use http_body_util::Full;
use serde_json::{Value, json};
use sidecar::AppState;

use crate::handler::{Answer, send_body};
use crate::{File, Fixture, PAGE, default_files};

pub const VERSIONS: [&str; 3] = ["2024-11-05", "2025-03-26", "2025-06-18"];
pub const BASE: &str = "https://water.example.org";

pub const ARCHIVE: &str = "# Water Watch archive\n\n> The preserved archive of Water Watch.\n>\n> Source: https://water.example.org/docs/archive/\n> Licence: CC-BY-4.0\n> Attribution: The Water Watch volunteers\n\nVolunteers measured nitrate in rivers and ponds.\n";
pub const DOCS: &str = "# Documentation\n\n> Everything published here.\n>\n> Licence: CC0-1.0\n> Attribution: The observatory\n\nStart with the archive of nitrate measurements.\n";

/// The search index the generator writes (`search-index.json`, a head
/// listing its parts, and its one part): the pages, without their text,
/// which the passages below hold and the MCP search ranks.
pub const SEARCH_INDEX: &str = r#"{"version":3,"documents":2,"parts":["/search/index-1.json"]}"#;
pub const SEARCH_INDEX_PART: &str = r#"{"documents":[{"url":"/docs/","title":"Documentation","summary":"Everything published here.","section":""},{"url":"/docs/archive/","title":"Water Watch archive","summary":"The preserved archive of Water Watch.","section":"archive"}]}"#;

/// The passages the generator writes (`search-passages.json` and its
/// parts): what the MCP search ranks. "Kingfisher" occurs only in the
/// second part, so finding it proves the passages, all their parts, are
/// what is searched.
pub const PASSAGES: &str = r#"{"version":3,"language":"en","synonyms":[["nitrate","fertiliser"]],"parts":["/search/passages-1.json","/search/passages-2.json"]}"#;
pub const PASSAGES_PARTS: [&str; 2] = [
    r#"{"passages":[{"url":"/docs/","title":"Documentation","section":"","text":"Start with the archive of nitrate measurements."}]}"#,
    r#"{"passages":[{"url":"/docs/archive/","anchor":"nitrate","title":"Water Watch archive","heading":"Nitrate","section":"archive","historical":true,"licence":"CC BY 4.0","attribution":"The Water Watch volunteers","text":"Volunteers measured nitrate in rivers and ponds. Kingfisher sightings were noted on the visit form."}]}"#,
];

/// A `dist/` built for [`BASE`].
pub fn fixture() -> Fixture {
    fixture_built_for(BASE)
}

/// A `dist/` built for `origin` (`generate build --base-url`): its sitemap
/// names the pages there, while `service.json` keeps the organisation's
/// own address, [`BASE`].
pub fn fixture_built_for(origin: &str) -> Fixture {
    // Complete: the sidecar reads it into the contract's types.
    let service = json!({
        "name": "Blue Reach Observatory",
        "description": "Freshwater research with volunteers.",
        "url": format!("{BASE}/"),
        "updated": "2026-11-26",
        "services": [{"id": "water-data", "title": "Water data", "summary": "Readings.",
            "status": "operational", "access": "open", "audience": ["everyone"], "url": "/docs/"}],
        "projects": [{"id": "water-watch", "title": "Water Watch", "summary": "A volunteer project.",
            "status": "archived", "started": "2019-04-01", "ended": "2024-06-30",
            "url": "/docs/archive/", "themes": ["water"]}],
        "evidence": [],
        "scope": {"summary": "Freshwater.", "themes": ["water"], "regions": ["Lindmark"],
            "in_scope": ["rivers"], "out_of_scope": ["oceans"]},
        "consortium": {"summary": "One member.", "members": []},
        "contact": {"email": "info@water.example.org", "form_url": "/contact/",
            "languages": ["en"], "response_time": "within a week"},
        "guardrails": {
            "summary": "Read-only; only the user submits enquiries.",
            "read_only_calls_have_no_side_effects": true,
            "agents_may": ["Read."],
            "agents_must_not": ["Submit the contact form", "Guess."],
            "enquiries": {"agents_may_prepare": true, "agents_may_submit": false,
                "requires_explicit_user_approval": true, "form_url": "/contact/"},
            "licences": []
        }
    });
    let mut files: Vec<File> = default_files()
        .into_iter()
        .filter(|f| f.key != "api/service.json")
        .collect();
    let md = |key, text: &str| File {
        key,
        bytes: text.as_bytes().to_vec(),
        content_type: "text/markdown; charset=utf-8",
        cache_control: PAGE,
        compress: false,
    };
    files.push(File {
        key: "api/service.json",
        bytes: service.to_string().into_bytes(),
        content_type: "application/json",
        cache_control: PAGE,
        compress: false,
    });
    let sitemap = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
         <url><loc>{origin}/</loc></url>\n<url><loc>{origin}/docs/</loc></url>\n</urlset>\n"
    );
    files.push(File {
        key: "sitemap.xml",
        bytes: sitemap.into_bytes(),
        content_type: "application/xml",
        cache_control: PAGE,
        compress: false,
    });
    files.push(md("docs/archive/index.md", ARCHIVE));
    files.push(md("docs/index.md", DOCS));
    let search = [
        ("search-index.json", SEARCH_INDEX),
        ("search/index-1.json", SEARCH_INDEX_PART),
        ("search-passages.json", PASSAGES),
        ("search/passages-1.json", PASSAGES_PARTS[0]),
        ("search/passages-2.json", PASSAGES_PARTS[1]),
    ];
    for (key, json) in search {
        files.push(File {
            key,
            bytes: json.as_bytes().to_vec(),
            content_type: "application/json",
            cache_control: PAGE,
            compress: false,
        });
    }
    Fixture::with_files(files)
}

pub async fn post(state: &AppState, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let body = Full::new(Bytes::from(body.to_owned()));
    let answer = send_body(state, "POST", path, headers, body).await;
    check_common(&answer);
    answer
}

/// Rules every MCP answer obeys.
pub fn check_common(a: &Answer) {
    assert_eq!(a.header("access-control-allow-origin"), "*");
    assert!(
        a.header("access-control-expose-headers")
            .contains("MCP-Protocol-Version")
    );
    assert!(!a.has("mcp-session-id"));
}

/// One JSON-RPC call; `version` is the header (none when `None`).
pub async fn rpc(state: &AppState, version: Option<&str>, method: &str, params: Value) -> Answer {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let mut headers = vec![("content-type", "application/json")];
    if let Some(v) = version {
        headers.push(("mcp-protocol-version", v));
    }
    post(state, "/mcp/", &headers, &body.to_string()).await
}

/// The result of a successful call.
pub async fn ok(state: &AppState, version: &str, method: &str, params: Value) -> Value {
    let a = rpc(state, Some(version), method, params).await;
    assert_eq!(a.status, 200, "{method}: {:?}", a.body);
    assert_eq!(a.header("content-type"), "application/json");
    assert_eq!(a.header("cache-control"), "no-store");
    let v = a.json();
    assert_eq!(v["jsonrpc"], "2.0");
    assert_eq!(v["id"], 7);
    assert!(v.get("error").is_none(), "{method}: {v}");
    v["result"].clone()
}

/// The error code of a call answered with HTTP 200 and a JSON-RPC error.
pub async fn err(state: &AppState, version: &str, method: &str, params: Value) -> i64 {
    let a = rpc(state, Some(version), method, params).await;
    assert_eq!(a.status, 200, "{method}");
    let v = a.json();
    assert_eq!(v["id"], 7);
    assert!(v["error"]["message"].is_string());
    v["error"]["code"].as_i64().unwrap()
}

pub fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

/// Checks a tool result's shape for `version` (and against the tool's
/// output schema on 2025-06-18) and returns its structured content or,
/// before 2025-06-18, the JSON of its first text item when it parses.
pub async fn tool(s: &AppState, v: &str, name: &str, arguments: Value) -> Value {
    let r = ok(s, v, "tools/call", call(name, arguments)).await;
    assert_eq!(r["isError"], false, "{name}: {r}");
    let content = r["content"].as_array().unwrap();
    assert_eq!(content[0]["type"], "text");
    let links = content.iter().any(|c| c["type"] == "resource_link");
    if v == "2025-06-18" {
        let list = ok(s, v, "tools/list", json!({})).await;
        let def = list["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .clone();
        let validator = jsonschema::validator_for(&def["outputSchema"]).unwrap();
        let structured = &r["structuredContent"];
        assert!(structured.is_object(), "{name}");
        assert!(validator.is_valid(structured), "{name}: {structured}");
        if name == "search_documentation" {
            let n = content
                .iter()
                .filter(|c| c["type"] == "resource_link")
                .count();
            assert_eq!(n, structured["results"].as_array().unwrap().len());
        }
        structured.clone()
    } else {
        assert!(r.get("structuredContent").is_none(), "{name} {v}");
        assert!(!links, "resource links belong to 2025-06-18");
        let text = content[0]["text"].as_str().unwrap();
        serde_json::from_str(text).unwrap_or_else(|_| json!({"text": text}))
    }
}
