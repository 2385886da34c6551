//! The OGC API – Features routes' own API definition in OpenAPI 3.0
//! (`/api/features/openapi.json`, decision 0049): OGC's "OpenAPI 3.0"
//! conformance class asks for one, and GIS clients such as GDAL read only
//! that version. It is cut from the contract, not written again: the
//! contract's operations under [`FEATURES_ROOT`] and every component they
//! reference, with the JSON Schema 2020-12 keywords 3.0 lacks rewritten to
//! their 3.0 forms. Its server is the landing page and its paths are
//! relative to it (`/collections/{collectionId}/items`), the layout OGC's
//! examples use and the one GDAL reads an items route's parameters from
//! (decision 0213).

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use contract::routes::FEATURES_ROOT;

/// The OpenAPI version of the document.
pub const VERSION: &str = "3.0.3";

/// The 3.0 document of the contract `full` (as written, 3.1).
pub fn document(full: &Value, server: &str) -> Value {
    let mut paths = Map::new();
    for (path, item) in full["paths"].as_object().into_iter().flatten() {
        // Paths relative to the landing page, which is the server (as OGC's
        // examples have them, and as GDAL looks up an items route's
        // parameters: `/collections/{collectionId}/items`). The landing
        // page's alias with a slash would be `/` twice; it stays out.
        let relative = match path.strip_prefix(FEATURES_ROOT) {
            Some("") => "/",
            Some(rest) if rest.starts_with('/') && rest != "/" => rest,
            _ => continue,
        };
        let mut item = item.clone();
        if let Some(o) = item.as_object_mut() {
            o.remove("servers");
        }
        paths.insert(relative.to_owned(), item);
    }
    let components = referenced(full, &Value::Object(paths.clone()));
    let mut info = full["info"].clone();
    info["title"] = json!(format!(
        "{} – OGC API – Features",
        full["info"]["title"].as_str().unwrap_or("Public API")
    ));
    info["description"] = json!(
        "The OGC API – Features routes of the service's OpenAPI contract (`/openapi.json`, OpenAPI 3.1), in OpenAPI 3.0."
    );
    if let Some(o) = info.as_object_mut() {
        o.remove("summary");
        if let Some(licence) = o.get_mut("license").and_then(Value::as_object_mut)
            && let Some(Value::String(id)) = licence.remove("identifier")
        {
            licence
                .entry("url")
                .or_insert_with(|| json!(format!("https://spdx.org/licenses/{id}.html")));
        }
    }
    let tags: Vec<Value> = full["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["name"] == "features")
        .cloned()
        .collect();
    let mut doc = json!({
        "openapi": VERSION,
        "info": info,
        "servers": [{ "url": format!("{}{FEATURES_ROOT}", server.trim_end_matches('/')) }],
        "tags": tags,
        "paths": paths,
        "components": components,
    });
    downgrade(&mut doc);
    doc
}

/// The components `root` references, directly or through others, by kind.
fn referenced(full: &Value, root: &Value) -> Value {
    let mut seen = BTreeSet::new();
    let mut todo = Vec::new();
    refs(root, &mut todo);
    while let Some(r) = todo.pop() {
        if !seen.insert(r.clone()) {
            continue;
        }
        if let Some(target) = full.pointer(&r) {
            refs(target, &mut todo);
        }
    }
    let mut out = Map::new();
    for r in seen {
        let mut parts = r.trim_start_matches("/components/").splitn(2, '/');
        let (Some(kind), Some(name)) = (parts.next(), parts.next()) else {
            continue;
        };
        if let Some(target) = full.pointer(&r) {
            let entry = out
                .entry(kind.to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            entry[name] = target.clone();
        }
    }
    Value::Object(out)
}

fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::String(r)) = o.get("$ref")
                && let Some(pointer) = r.strip_prefix('#')
            {
                out.push(pointer.to_owned());
            }
            o.values().for_each(|x| refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

/// Rewrites, everywhere, the keywords OpenAPI 3.0's schema object lacks.
fn downgrade(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if let Some(c) = o.remove("const") {
                o.insert("enum".into(), json!([c]));
            }
            if let Some(Value::Array(examples)) = o.get("examples").cloned() {
                o.remove("examples");
                if let Some(first) = examples.into_iter().next() {
                    o.insert("example".into(), first);
                }
            }
            if let Some(Value::Array(types)) = o.get("type").cloned() {
                let others: Vec<Value> = types.into_iter().filter(|t| t != "null").collect();
                if o.get("type").and_then(Value::as_array).map(Vec::len) != Some(others.len()) {
                    o.insert("nullable".into(), json!(true));
                }
                match others.as_slice() {
                    [one] => {
                        o.insert("type".into(), one.clone());
                    }
                    many => {
                        o.remove("type");
                        let any: Vec<Value> = many.iter().map(|t| json!({ "type": t })).collect();
                        o.insert("anyOf".into(), json!(any));
                    }
                }
            }
            if let Some(n) = o.get("exclusiveMinimum").filter(|n| n.is_number()).cloned() {
                o.insert("minimum".into(), n);
                o.insert("exclusiveMinimum".into(), json!(true));
            }
            if let Some(n) = o.get("exclusiveMaximum").filter(|n| n.is_number()).cloned() {
                o.insert("maximum".into(), n);
                o.insert("exclusiveMaximum".into(), json!(true));
            }
            for key in [
                "prefixItems",
                "contentMediaType",
                "contentEncoding",
                "$schema",
                "$id",
                "$comment",
            ] {
                o.remove(key);
            }
            o.values_mut().for_each(downgrade);
        }
        Value::Array(a) => a.iter_mut().for_each(downgrade),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_rewritten_and_only_referenced_components_kept() {
        let full = json!({
            "openapi": "3.1.0",
            "info": { "title": "T", "version": "1", "license": { "name": "CC BY 4.0", "identifier": "CC-BY-4.0" } },
            "tags": [{ "name": "features" }, { "name": "mcp" }],
            "paths": {
                "/api/features": { "get": { "responses": { "200": { "$ref": "#/components/responses/Ok" } } } },
                "/mcp/": { "post": { "responses": { "200": { "$ref": "#/components/responses/Other" } } } }
            },
            "components": {
                "responses": {
                    "Ok": { "content": { "application/json": { "schema": { "$ref": "#/components/schemas/A" } } } },
                    "Other": {}
                },
                "schemas": {
                    "A": { "type": "object", "properties": {
                        "k": { "const": "x" },
                        "n": { "type": ["string", "null"], "examples": ["e"] },
                        "p": { "type": "array", "prefixItems": [{}], "items": { "$ref": "#/components/schemas/B" } }
                    } },
                    "B": { "type": "number", "exclusiveMinimum": 0 },
                    "Unused": {}
                }
            }
        });
        let d = document(&full, "https://x.example");
        assert_eq!(d["openapi"], VERSION);
        assert_eq!(
            d["info"]["license"]["url"],
            "https://spdx.org/licenses/CC-BY-4.0.html"
        );
        assert!(d["info"]["license"].get("identifier").is_none());
        assert!(d["paths"].get("/mcp/").is_none());
        assert!(
            d["paths"].get("/").is_some(),
            "paths relative to the landing page"
        );
        assert_eq!(d["servers"][0]["url"], "https://x.example/api/features");
        assert_eq!(d["tags"], json!([{ "name": "features" }]));
        let a = &d["components"]["schemas"]["A"]["properties"];
        assert_eq!(a["k"], json!({ "enum": ["x"] }));
        assert_eq!(
            a["n"],
            json!({ "type": "string", "nullable": true, "example": "e" })
        );
        assert!(a["p"].get("prefixItems").is_none());
        assert_eq!(
            d["components"]["schemas"]["B"],
            json!({ "type": "number", "minimum": 0, "exclusiveMinimum": true })
        );
        assert!(d["components"]["schemas"].get("Unused").is_none());
        assert!(d["components"]["responses"].get("Other").is_none());
    }
}
