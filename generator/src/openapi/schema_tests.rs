//! The schemas accept what the services send and refuse what they must not.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::fixture::{self, BASE_URL};
use super::tests::doc;
use super::*;
use crate::discovery;

/// A validator for `schema`, with the document's components in reach of its
/// references.
fn validator(doc: &Value, schema: &Value) -> jsonschema::Validator {
    let wrapper = json!({
        "$schema": JSON_SCHEMA_DIALECT,
        "allOf": [schema],
        "components": doc["components"],
    });
    jsonschema::options()
        .should_validate_formats(true)
        .build(&wrapper)
        .unwrap_or_else(|e| panic!("schema does not compile: {e}\n{schema}"))
}

fn component(doc: &Value, name: &str) -> jsonschema::Validator {
    validator(doc, &schemas::schema_ref(name))
}

fn assert_valid(v: &jsonschema::Validator, instance: &Value) {
    let errors: Vec<String> = v.iter_errors(instance).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}\n{instance:#}");
}

#[test]
fn service_information_validates() {
    let d = doc();
    let v = component(&d, "ServiceInformation");
    let instance = serde_json::to_value(fixture::service()).unwrap();
    assert_valid(&v, &instance);

    let mut missing_name = instance.clone();
    missing_name.as_object_mut().unwrap().remove("name");
    assert!(!v.is_valid(&missing_name));
    let mut bad_status = instance.clone();
    bad_status["services"][0]["status"] = json!("sunset");
    assert!(!v.is_valid(&bad_status));
    let mut unknown = instance;
    unknown["guardrails"]["surprise"] = json!(true);
    assert!(!v.is_valid(&unknown));
}

#[test]
fn every_component_schema_compiles() {
    let d = doc();
    for name in d["components"]["schemas"].as_object().unwrap().keys() {
        component(&d, name);
    }
}

#[test]
fn examples_validate_against_their_schemas() {
    fn walk(doc: &Value, value: &Value, checked: &mut usize) {
        match value {
            Value::Object(map) => {
                if let (Some(schema), Some(example)) = (map.get("schema"), map.get("example")) {
                    assert_valid(&validator(doc, schema), example);
                    *checked += 1;
                }
                map.values().for_each(|v| walk(doc, v, checked));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(doc, v, checked)),
            _ => {}
        }
    }
    let d = doc();
    let mut checked = 0;
    walk(&d, &d, &mut checked);
    assert!(checked >= 10, "only {checked} examples");
}

#[test]
fn problems_validate() {
    let d = doc();
    let v = component(&d, "Problem");
    for p in contract::ProblemCode::ALL {
        let problem = json!({
            "type": format!("{BASE_URL}/docs/problems/{}/", p.as_str()),
            "title": p.title(),
            "status": p.status(),
            "detail": "Something specific.",
            "instance": "/api/contact.php",
            "code": p.as_str(),
            "errors": [{ "name": "email", "reason": "not an address" }],
            "extension": "allowed",
        });
        assert_valid(&v, &problem);
    }
    let unknown = json!({ "type": "about:blank", "title": "x", "status": 400, "code": "nope" });
    assert!(!v.is_valid(&unknown));
    let no_code = json!({ "type": "about:blank", "title": "x", "status": 400 });
    assert!(!v.is_valid(&no_code));
    let bad_status =
        json!({ "type": "about:blank", "title": "x", "status": 99, "code": "bad_request" });
    assert!(!v.is_valid(&bad_status));
}

#[test]
fn discovery_documents_match_their_schemas() {
    let d = doc();
    let (site, service) = (fixture::site(), fixture::service());
    let cases = [
        (
            "AiCatalog",
            discovery::ai_catalog(BASE_URL, &site, &service),
        ),
        (
            "ApiCatalog",
            discovery::api_catalog(&Origins::same(BASE_URL), &service),
        ),
        (
            "McpServerCard",
            discovery::mcp_server_card(&Origins::same(BASE_URL), &site, &service),
        ),
        ("OpenApiDocument", d.clone()),
    ];
    for (name, instance) in cases {
        assert_valid(&component(&d, name), &instance);
    }
    let mut both = discovery::ai_catalog(BASE_URL, &site, &service);
    both["entries"][0]["data"] = json!({});
    assert!(!component(&d, "AiCatalog").is_valid(&both));
}

#[test]
fn sidecar_shapes_accept_good_and_refuse_bad() {
    let d = doc();
    let licence = json!({ "id": "CC-BY-4.0", "title": "CC BY 4.0", "url": "https://creativecommons.org/licenses/by/4.0/" });
    let stats = json!({
        "generated_at": "2026-11-01T10:00:00Z", "stale": false, "cache_max_age_s": 60,
        "volunteers": 10, "observations": 200, "sites": 30, "countries": 4,
        "classifications": 5, "classification_projects": 1, "projects": 3,
        "observations_last_30_days": 12, "latest_observation_at": null,
        "monthly": [
            { "month": "2026-10", "observations": 188, "classifications": 0 },
            { "month": "2026-11", "observations": 12, "classifications": 5 }
        ]
    });
    assert_valid(&component(&d, "PlatformStats"), &stats);
    let mut extra = stats.clone();
    extra["surprise"] = json!(1);
    assert!(!component(&d, "PlatformStats").is_valid(&extra));
    let mut extra_month = stats.clone();
    extra_month["monthly"][0]["sites"] = json!(1);
    assert!(!component(&d, "PlatformStats").is_valid(&extra_month));
    let mut bad_month = stats.clone();
    bad_month["monthly"][0]["month"] = json!("2026-13");
    assert!(!component(&d, "PlatformStats").is_valid(&bad_month));
    let mut without = stats.clone();
    without.as_object_mut().unwrap().remove("monthly");
    assert!(!component(&d, "PlatformStats").is_valid(&without));

    let observation = json!({
        "id": 1, "site_id": "s1", "site_name": "Mill pond", "country": "NL",
        "water_body_type": "pond", "observed_at": "2026-10-01T08:30:00Z",
        "parameter": "nitrate", "value": 2.5, "unit": "mg/L", "method": "test strip",
        "quality_flag": "valid", "latitude": 52.1, "longitude": 5.1
    });
    let page = json!({
        "data": [observation], "next_cursor": null, "limit": 100, "licence": licence,
        "attribution": "Water Watch volunteers", "generated_at": "2026-11-01T10:00:00Z"
    });
    assert_valid(&component(&d, "ObservationPage"), &page);
    let mut bad = page.clone();
    bad["data"][0]["parameter"] = json!("mercury");
    assert!(!component(&d, "ObservationPage").is_valid(&bad));

    let globe = json!({
        "type": "FeatureCollection",
        "features": [{
            "type": "Feature", "id": "s1",
            "geometry": { "type": "Point", "coordinates": [5.1, 52.1] },
            "properties": {
                "site_id": "s1", "name": "Mill pond", "country": "NL",
                "water_body_type": "pond", "observations": 3,
                "latest_observed_at": "2026-10-01T08:30:00Z", "parameters": ["nitrate"]
            }
        }],
        "precision_decimals": 2, "licence": licence, "attribution": "Water Watch volunteers"
    });
    assert_valid(&component(&d, "GlobeData"), &globe);
    let mut three = globe.clone();
    three["features"][0]["geometry"]["coordinates"] = json!([5.1, 52.1, 3.0]);
    assert!(!component(&d, "GlobeData").is_valid(&three));

    let result = json!({ "jsonrpc": "2.0", "id": 1, "result": { "tools": [] } });
    assert_valid(&component(&d, "McpResponse"), &result);
    let error = json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32601, "message": "Method not found" } });
    assert_valid(&component(&d, "McpResponse"), &error);
    let neither = json!({ "jsonrpc": "2.0", "id": 1 });
    assert!(!component(&d, "McpResponse").is_valid(&neither));
    let batch = json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }]);
    assert!(!component(&d, "McpRequest").is_valid(&batch));

    let submission = json!({
        "name": "Ada", "email": "ada@example.org", "topic": "data", "message": "Hello",
        "consent": true, "altcha": "eyJ9", "website": ""
    });
    assert_valid(&component(&d, "ContactSubmission"), &submission);
    let mut dutch = submission.clone();
    dutch["language"] = json!("nl");
    assert_valid(&component(&d, "ContactSubmission"), &dutch);
    dutch["language"] = json!("de");
    assert!(!component(&d, "ContactSubmission").is_valid(&dutch));
    let mut no_consent = submission;
    no_consent["consent"] = json!(false);
    assert!(!component(&d, "ContactSubmission").is_valid(&no_consent));

    let challenge = json!({
        "parameters": {
            "algorithm": "PBKDF2/SHA-256", "nonce": "0a1b", "salt": "c2d3", "cost": 5000,
            "keyLength": 32, "keyPrefix": "ab12", "expiresAt": 1_790_000_000_u64,
            "data": { "issued": 1_789_999_400_u64 }
        },
        "signature": "00ff"
    });
    assert_valid(&component(&d, "ContactChallenge"), &challenge);
    let readiness = json!({ "status": "ready", "checks": { "database": "ok" } });
    assert_valid(&component(&d, "Readiness"), &readiness);
}

#[test]
fn components_cover_required_names() {
    let d = doc();
    let schemas: BTreeMap<&String, &Value> = d["components"]["schemas"]
        .as_object()
        .unwrap()
        .iter()
        .collect();
    for name in [
        "ServiceInformation",
        "Service",
        "Guardrails",
        "Problem",
        "PlatformStats",
        "ObservationPage",
        "Observation",
        "GlobeData",
        "McpRequest",
        "McpResponse",
        "JsonRpcError",
        "ContactChallenge",
        "ContactSubmission",
        "Health",
        "Readiness",
        "AiCatalog",
        "ApiCatalog",
    ] {
        assert!(schemas.keys().any(|k| *k == name), "missing schema {name}");
    }
    assert!(
        d["components"]["schemas"]["ServiceInformation"]
            .get("$schema")
            .is_none()
    );
    for name in [
        "BadRequest",
        "Forbidden",
        "MethodNotAllowed",
        "PayloadTooLarge",
        "UnsupportedMediaType",
        "TooManyRequests",
        "InternalError",
        "ServiceUnavailable",
    ] {
        let r = &d["components"]["responses"][name];
        assert_eq!(
            r["content"]["application/problem+json"]["schema"]["$ref"],
            "#/components/schemas/Problem",
            "{name}"
        );
    }
    for name in ["ETag", "Cache-Control", "Retry-After", "Vary"] {
        assert!(d["components"]["headers"][name].is_object(), "{name}");
    }
}

#[test]
fn checked_strings_are_never_stricter_than_the_model() {
    use crate::model::{CountryCode, Date, Email, Id, LicenceId, Link};
    let d = doc();
    type Case = (&'static str, fn(&str) -> bool, &'static [&'static str]);
    let cases: [Case; 6] = [
        (
            "Date",
            |s| Date::parse(s).is_ok(),
            &[
                "2024-02-29",
                "2026-11-01",
                "2026-13-01",
                "26-01-01",
                "2023-02-29",
            ],
        ),
        (
            "Id",
            |s| Id::parse(s).is_ok(),
            &["water-watch", "a1", "Water", "a--b", "-a", "a_b"],
        ),
        (
            "CountryCode",
            |s| CountryCode::parse(s).is_ok(),
            &["NL", "nl", "NLD"],
        ),
        (
            "LicenceId",
            |s| LicenceId::parse(s).is_ok(),
            &["CC-BY-4.0", "GPL-3.0+", "CC BY", ""],
        ),
        (
            "Email",
            |s| Email::parse(s).is_ok(),
            &[
                "info@example.org",
                "a.b+c@x.example.org",
                "info",
                "a@b",
                "<a@b.c>",
            ],
        ),
        (
            "Link",
            |s| Link::parse(s).is_ok(),
            &[
                "https://example.org/x",
                "/",
                "/docs/",
                "http://example.org",
                "//evil",
                "docs/",
                "/a b",
            ],
        ),
    ];
    let mut refused = 0;
    for (name, parses, samples) in cases {
        let v = component(&d, name);
        for sample in samples {
            let instance = json!(sample);
            if parses(sample) {
                assert!(v.is_valid(&instance), "{name} schema refuses {sample:?}");
            } else if !v.is_valid(&instance) {
                refused += 1;
            }
        }
    }
    // The schemas catch most of what the parsers refuse.
    assert!(refused >= 12, "schemas refused only {refused} bad values");
}
