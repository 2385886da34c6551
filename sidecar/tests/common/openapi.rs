//! Validating real answers against the built contract: the sidecar does not
//! depend on the generator, so the contract tests read a built
//! `openapi.json` from `CONTRACT_OPENAPI`, e.g.
//!
//! ```text
//! cargo run -p generator -- build --out /tmp/site
//! CONTRACT_OPENAPI=/tmp/site/openapi.json cargo test -p sidecar --test live_contract
//! ```
//!
//! They fail when the variable is unset, unless `SIDECAR_SKIP_CONTRACT=1`.

use http::HeaderMap;
use serde_json::{Value, json};

use crate::handler::Answer;

/// The built contract's path, or `None` when skipping is asked for.
pub fn contract_path() -> Option<std::path::PathBuf> {
    let Ok(path) = std::env::var("CONTRACT_OPENAPI") else {
        if std::env::var("SIDECAR_SKIP_CONTRACT").as_deref() == Ok("1") {
            return None;
        }
        panic!(
            "CONTRACT_OPENAPI is unset: build the site (`cargo run -p generator -- build --out \
             /tmp/site`) and set CONTRACT_OPENAPI=/tmp/site/openapi.json, or set \
             SIDECAR_SKIP_CONTRACT=1"
        );
    };
    Some(path.into())
}

/// The built contract, or `None` when skipping is asked for.
pub fn contract() -> Option<Value> {
    let path = contract_path()?;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(serde_json::from_str(&text).unwrap())
}

/// Follows a local `$ref` (`#/components/...`).
pub fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    match v["$ref"].as_str() {
        Some(r) => doc
            .pointer(r.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("dangling {r}")),
        None => v,
    }
}

/// Checks one answer against the operation `method path` of the contract:
/// the status is declared, the declared headers are present (`Vary` may be
/// absent on a 304), and the body validates against the schema of its media
/// type (a CSV body as a string). Returns the body as JSON.
pub fn check(
    doc: &Value,
    method: &str,
    path: &str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
) -> Value {
    let status = status.to_string();
    let op = &doc["paths"][path][method];
    assert!(op.is_object(), "{method} {path} is not in the contract");
    let declared = op["responses"]
        .get(&status)
        .unwrap_or_else(|| panic!("{method} {path}: status {status} is not declared"));
    let declared = resolve(doc, declared);
    for name in declared["headers"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|h| h.0)
    {
        if name == "Vary" && status == "304" {
            continue;
        }
        assert!(
            headers.contains_key(name.as_str()),
            "{method} {path} {status}: header {name} is declared but missing"
        );
    }
    let Some(content) = declared["content"].as_object() else {
        assert!(body.is_empty(), "{method} {path} {status}: undeclared body");
        return Value::Null;
    };
    let media = headers["content-type"].to_str().unwrap();
    let essence = contract::media::essence(media);
    let schema = &content.get(essence).unwrap_or_else(|| {
        panic!("{method} {path} {status}: media type {essence} is not declared")
    })["schema"];
    let instance: Value = if essence == contract::media::CSV {
        Value::String(String::from_utf8(body.to_vec()).unwrap())
    } else {
        serde_json::from_slice(body).unwrap()
    };
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": doc["components"],
        "allOf": [schema],
    });
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|e| panic!("{method} {path} {status}: schema does not compile: {e}"));
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{method} {path} {status} ({essence}) does not match the contract:\n{}\n{instance:#}",
        errors.join("\n")
    );
    instance
}

/// [`check`] for an answer of the request handler.
pub fn check_answer(doc: &Value, method: &str, path: &str, a: &Answer) -> Value {
    check(doc, method, path, a.status.as_u16(), &a.headers, &a.body)
}
