//! Tests of the built contract: shape, operations, served media types.

use std::collections::BTreeSet;

use serde_json::Value;

use super::fixture::{self, BASE_URL};
use super::*;

const REQUIRED_IDS: [&str; 17] = [
    "getServiceInformation",
    "getPlatformStats",
    "getObservations",
    "getPublicGlobeData",
    "getOpenApi",
    "getAiCatalog",
    "getApiCatalog",
    "getLlmsTxt",
    "getSitemap",
    "getRobotsTxt",
    "getSecurityTxt",
    "postMcp",
    "postMcpNoSlash",
    "getContactChallenge",
    "postContact",
    "getHealth",
    "getReadiness",
];

pub(super) fn doc() -> Value {
    document(
        &crate::origin::Origins::same(BASE_URL),
        &fixture::site(),
        &fixture::service(),
        &[],
    )
}

#[test]
fn a_separate_api_origin_is_the_server_of_the_sidecar_paths_only() {
    let api = "https://api.example.net";
    let origins = crate::origin::Origins {
        site: BASE_URL.to_owned(),
        separate_api: Some(api.to_owned()),
    };
    let split = document(&origins, &fixture::site(), &fixture::service(), &[]);
    assert_eq!(split["servers"][0]["url"], BASE_URL);
    let mut sidecar = 0;
    for (path, item) in split["paths"].as_object().unwrap() {
        let on_api = contract::routes::Endpoint::lookup(path).is_some();
        sidecar += usize::from(on_api);
        match item.get("servers") {
            Some(servers) => {
                assert!(on_api, "{path} is a file of the site");
                assert_eq!(servers[0]["url"], api, "{path}");
                assert_eq!(servers.as_array().unwrap().len(), 1);
            }
            None => assert!(!on_api, "{path} is the sidecar's and names no server"),
        }
    }
    assert!(sidecar >= 8, "{sidecar}");
    assert!(split["info"]["description"].as_str().unwrap().contains(api));
    // Without one, the document is what it always was.
    let same = doc();
    assert!(
        same["paths"]
            .as_object()
            .unwrap()
            .values()
            .all(|item| item.get("servers").is_none())
    );
}

/// Every operation as (path, method, operation).
fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            out.push((path.clone(), method.clone(), op.clone()));
        }
    }
    out
}

/// Follows a local `$ref` (if any) to its target.
fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(target) => {
            let pointer = target.strip_prefix('#').expect("local reference");
            doc.pointer(pointer)
                .unwrap_or_else(|| panic!("dangling {target}"))
        }
        None => value,
    }
}

#[test]
fn snapshot() {
    insta::with_settings!({ snapshot_path => "../snapshots" }, {
        insta::assert_json_snapshot!("openapi", doc());
    });
}

#[test]
fn is_deterministic_and_versioned() {
    let a = serde_json::to_string(&doc()).unwrap();
    let b = serde_json::to_string(&doc()).unwrap();
    assert_eq!(a, b);
    let d = doc();
    assert_eq!(d["openapi"], "3.1.0");
    assert_eq!(d["jsonSchemaDialect"], JSON_SCHEMA_DIALECT);
    assert_eq!(d["info"]["version"], CONTRACT_VERSION);
    assert_eq!(d["info"]["license"]["identifier"], "CC-BY-4.0");
    assert_eq!(d["info"]["contact"]["email"], "info@waterwatch.example.org");
    assert_eq!(d["servers"][0]["url"], BASE_URL);
    assert!(d["info"]["description"].as_str().unwrap().contains("HEAD"));
}

#[test]
fn round_trips_through_a_3_1_parser() {
    let d = doc();
    let spec = oas3::from_json(serde_json::to_string(&d).unwrap()).expect("oas3 parses it");
    spec.validate_version().expect("a 3.1 version");
    assert_eq!(spec.openapi, d["openapi"]);

    let ours: BTreeSet<(String, String, String)> = operations(&d)
        .into_iter()
        .map(|(p, m, op)| (p, m, op["operationId"].as_str().unwrap().to_owned()))
        .collect();
    let theirs: BTreeSet<(String, String, String)> = spec
        .operations()
        .map(|(p, m, op)| {
            let id = op.operation_id.clone().expect("operationId");
            (p, m.as_str().to_ascii_lowercase(), id)
        })
        .collect();
    assert_eq!(ours, theirs);

    // Every response and parameter resolves in oas3 too (it drops those
    // that do not).
    for (path, _, op) in spec.operations() {
        let declared = op.responses.as_ref().map_or(0, |r| r.len());
        assert_eq!(op.responses(&spec).len(), declared, "{path}");
        let params = op.parameters(&spec).unwrap();
        assert_eq!(params.len(), op.parameters.len(), "{path}");
    }
    let components = spec.components.expect("components");
    let names: BTreeSet<&String> = components.schemas.keys().collect();
    let ours: BTreeSet<&String> = d["components"]["schemas"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(names, ours);
}

#[test]
fn operation_ids_are_unique_and_complete() {
    let d = doc();
    let ids: Vec<String> = operations(&d)
        .iter()
        .map(|(_, _, op)| op["operationId"].as_str().unwrap().to_owned())
        .collect();
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "duplicate operationId in {ids:?}");
    for id in REQUIRED_IDS {
        assert!(ids.iter().any(|i| i == id), "missing {id}");
    }
    for (path, method, op) in operations(&d) {
        assert!(matches!(method.as_str(), "get" | "post"), "{method} {path}");
        assert!(
            !path.starts_with("/docs"),
            "pages are not operations: {path}"
        );
        for member in ["summary", "description"] {
            assert!(
                op[member].as_str().is_some_and(|s| !s.is_empty()),
                "{path} {member}"
            );
        }
        assert_eq!(op["tags"].as_array().map(Vec::len), Some(1), "{path}");
    }
    assert_eq!(d["paths"]["/mcp"]["post"]["operationId"], "postMcpNoSlash");
    assert_eq!(d["paths"]["/mcp/"]["post"]["operationId"], "postMcp");
}

#[test]
fn every_reference_resolves() {
    fn walk(doc: &Value, value: &Value, seen: &mut usize) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    assert!(target.starts_with("#/components/"), "{target}");
                    assert!(doc.pointer(&target[1..]).is_some(), "dangling {target}");
                    *seen += 1;
                }
                map.values().for_each(|v| walk(doc, v, seen));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(doc, v, seen)),
            _ => {}
        }
    }
    let d = doc();
    let mut seen = 0;
    walk(&d, &d, &mut seen);
    assert!(seen > 50, "only {seen} references");
    assert!(!serde_json::to_string(&d).unwrap().contains("$defs"));
}

fn refers_to(schema: &Value, name: &str) -> bool {
    let target = format!("#/components/schemas/{name}");
    schema["$ref"] == target.as_str()
        || schema["allOf"]
            .as_array()
            .is_some_and(|all| all.iter().any(|s| refers_to(s, name)))
}

#[test]
fn error_responses_are_problems() {
    let d = doc();
    for (path, method, op) in operations(&d) {
        let responses = op["responses"].as_object().unwrap();
        for status in ["405", "500", "503"] {
            assert!(
                responses.contains_key(status),
                "{method} {path} lacks {status}"
            );
        }
        let has_query = op["parameters"]
            .as_array()
            .is_some_and(|ps| ps.iter().any(|p| resolve(&d, p)["in"] == "query"));
        let mut expected: Vec<&str> = Vec::new();
        if has_query || method == "post" {
            expected.push("400");
        }
        if method == "post" {
            expected.extend(["413", "415", "429"]);
        }
        if path == "/api/contact.php" {
            expected.extend(["403", "422"]);
        }
        for status in expected {
            assert!(
                responses.contains_key(status),
                "{method} {path} lacks {status}"
            );
        }
        for (status, response) in responses {
            let response = resolve(&d, response);
            if matches!(status.as_str(), "429" | "503") {
                assert!(
                    response["headers"]["Retry-After"].is_object(),
                    "{path} {status}"
                );
            }
            if status.as_str() < "400" {
                continue;
            }
            let content = response["content"].as_object().expect("error body");
            assert!(!content.is_empty(), "{path} {status}");
            for (media_type, media) in content {
                let schema = &media["schema"];
                let ok = if media_type == "application/problem+json" {
                    refers_to(schema, "Problem")
                } else {
                    path.starts_with("/mcp")
                        && media_type == "application/json"
                        && refers_to(schema, "JsonRpcError")
                };
                assert!(ok, "{method} {path} {status} {media_type}: {schema}");
            }
        }
    }
}

#[test]
fn cacheable_gets_are_conditional() {
    let d = doc();
    let mut conditional = 0;
    for (path, _, op) in operations(&d) {
        if op["responses"].get("304").is_none() {
            continue;
        }
        conditional += 1;
        let params = op["parameters"].as_array().expect("parameters");
        assert!(
            params
                .iter()
                .any(|p| resolve(&d, p)["name"] == "If-None-Match"),
            "{path}"
        );
        let ok = resolve(&d, &op["responses"]["200"]);
        for header in ["ETag", "Cache-Control"] {
            assert!(ok["headers"][header].is_object(), "{path} {header}");
        }
        let not_modified = resolve(&d, &op["responses"]["304"]);
        assert!(not_modified["headers"]["ETag"].is_object());
        assert!(not_modified.get("content").is_none());
    }
    // Thirteen static documents, four live data routes and the eight
    // paths of the seven OGC API – Features routes.
    assert_eq!(conditional, 25);
}

#[test]
fn static_media_types_agree_with_the_manifest() {
    let d = doc();
    let routes = [
        ("/api/service.json", "api/service.json"),
        ("/openapi.json", "openapi.json"),
        ("/api/features/openapi.json", "api/features/openapi.json"),
        (
            "/.well-known/ai-catalog.json",
            ".well-known/ai-catalog.json",
        ),
        ("/.well-known/api-catalog", ".well-known/api-catalog"),
        ("/llms.txt", "llms.txt"),
        ("/sitemap.xml", "sitemap.xml"),
        ("/robots.txt", "robots.txt"),
        ("/.well-known/security.txt", ".well-known/security.txt"),
    ];
    for (path, file) in routes {
        let served = crate::manifest::content_type(file);
        let essence = served.split(';').next().unwrap().trim();
        let content = d["paths"][path]["get"]["responses"]["200"]["content"]
            .as_object()
            .unwrap();
        assert!(content.contains_key(essence), "{path}: {served}");
    }
}

#[test]
fn public_routes_and_cors_are_stated() {
    let d = doc();
    // No credentials anywhere, said explicitly; every server is public.
    assert_eq!(d["security"], serde_json::json!([]));
    assert_eq!(d["servers"][0]["x-internal"], false);
    assert!(
        d["components"]["headers"][ALLOW_ORIGIN]["schema"].is_object(),
        "the CORS header is a component"
    );
    // Every answer carries the CORS header but the 403 that refuses an origin.
    let mut checked = 0;
    for (path, method, op) in operations(&d) {
        for (status, response) in op["responses"].as_object().unwrap() {
            let has = resolve(&d, response)["headers"][ALLOW_ORIGIN].is_object();
            assert_eq!(has, status != "403", "{method} {path} {status}");
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} responses");
    // Every shared response is used by some operation.
    let used = serde_json::to_string(&d["paths"]).unwrap();
    for name in d["components"]["responses"].as_object().unwrap().keys() {
        let target = format!("\"#/components/responses/{name}\"");
        assert!(used.contains(&target), "{name} is never used");
    }
}
