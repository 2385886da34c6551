//! MCP resources: the service information, the OpenAPI contract and every
//! documentation page as Markdown, named by their public URLs so an agent
//! can also fetch them over plain HTTP. Documents carry their licence and
//! attribution in `_meta`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value, json};

use super::Version;
use super::jsonrpc::{RESOURCE_NOT_FOUND, RpcError};
use crate::published::content::{Content, Document};

/// Resources per `resources/list` page.
pub const PAGE_SIZE: usize = 50;
const CURSOR_PREFIX: &str = "resources:";

/// A fixed (non-document) resource.
struct Fixed {
    path: &'static str,
    name: &'static str,
    title: &'static str,
    description: &'static str,
    mime_type: &'static str,
    /// Its text in the release.
    text: fn(&Content) -> Option<String>,
}

const FIXED: [Fixed; 2] = [
    Fixed {
        path: "/api/service.json",
        name: "service.json",
        title: "Service information",
        description: "What the organisation offers, its projects, evidence, scope, consortium, contact and guardrails, as JSON.",
        mime_type: contract::media::JSON,
        text: |c| c.service_json.clone(),
    },
    Fixed {
        path: "/openapi.json",
        name: "openapi.json",
        title: "OpenAPI description",
        description: "The OpenAPI 3.1 contract of every HTTP route of the service.",
        mime_type: contract::media::OPENAPI,
        text: |c| c.openapi.clone(),
    },
];

impl Fixed {
    fn text(&self, content: &Content) -> Option<String> {
        (self.text)(content)
    }
}

/// A document's licence and attribution, each present only when known.
fn meta(content: &Content, d: &Document) -> Value {
    let mut meta = Map::new();
    meta.insert("language".into(), json!(content.language_of(&d.path)));
    if let Some(licence) = &d.licence {
        meta.insert("licence".into(), json!(licence));
    }
    if let Some(attribution) = &d.attribution {
        meta.insert("attribution".into(), json!(attribution));
    }
    Value::Object(meta)
}

/// Every resource, in listing order.
fn all(content: &Content, version: Version) -> Vec<Value> {
    let mut out: Vec<Value> = FIXED
        .iter()
        .filter(|f| f.text(content).is_some())
        .map(|f| {
            let mut v = json!({
                "uri": format!("{}{}", content.base_url, f.path),
                "name": f.name,
                "description": f.description,
                "mimeType": f.mime_type,
            });
            if version >= Version::V2025_06_18 {
                v["title"] = json!(f.title);
            }
            v
        })
        .collect();
    out.extend(content.documents.iter().map(|d| {
        let mut v = json!({
            "uri": content.document_uri(d),
            "name": d.path,
            "mimeType": "text/markdown",
            "_meta": meta(content, d),
        });
        if let Some(description) = &d.description {
            v["description"] = json!(description);
        }
        if version >= Version::V2025_06_18 {
            v["title"] = json!(d.title);
        }
        v
    }));
    out
}

/// The offset a cursor stands for.
pub fn decode_cursor(cursor: &str) -> Option<usize> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    text.strip_prefix(CURSOR_PREFIX)?.parse().ok()
}

pub fn encode_cursor(offset: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("{CURSOR_PREFIX}{offset}"))
}

/// `resources/list`, one page from `params.cursor`.
pub fn list(
    content: &Content,
    version: Version,
    params: &Map<String, Value>,
) -> Result<Value, RpcError> {
    let all = all(content, version);
    let offset = match params.get("cursor") {
        None | Some(Value::Null) => 0,
        Some(Value::String(c)) => decode_cursor(c)
            .filter(|&o| o > 0 && o < all.len())
            .ok_or_else(|| RpcError::invalid_params("Invalid cursor."))?,
        Some(_) => return Err(RpcError::invalid_params("Invalid cursor.")),
    };
    let end = (offset + PAGE_SIZE).min(all.len());
    let mut result = json!({"resources": all[offset..end]});
    if end < all.len() {
        result["nextCursor"] = json!(encode_cursor(end));
    }
    Ok(result)
}

/// `resources/templates/list`.
pub fn templates(content: &Content, version: Version) -> Value {
    let mut template = json!({
        "uriTemplate": format!("{}/docs/{{+path}}/index.md", content.base_url),
        "name": "document",
        "description": "A documentation page as Markdown; `path` is the page's path under /docs/, such as archive or archive/protocols/nitrate.",
        "mimeType": "text/markdown",
    });
    if version >= Version::V2025_06_18 {
        template["title"] = json!("Documentation page");
    }
    json!({"resourceTemplates": [template]})
}

/// `resources/read`.
pub fn read(content: &Content, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let uri = params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("`uri` must be a string."))?;
    let not_found = || RpcError {
        data: Some(json!({ "uri": uri })),
        ..RpcError::new(RESOURCE_NOT_FOUND, "Resource not found")
    };
    for fixed in &FIXED {
        if uri == format!("{}{}", content.base_url, fixed.path) || uri == fixed.path {
            let text = fixed.text(content).ok_or_else(not_found)?;
            return Ok(
                json!({"contents": [{"uri": uri, "mimeType": fixed.mime_type, "text": text}]}),
            );
        }
    }
    let on_site = uri.starts_with(&content.base_url) || uri.starts_with('/');
    let d = content
        .document(uri)
        .filter(|_| on_site)
        .ok_or_else(not_found)?;
    Ok(json!({"contents": [{
        "uri": uri,
        "mimeType": "text/markdown",
        "text": d.markdown(),
        "_meta": meta(content, d),
    }]}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn many(n: usize) -> Content {
        Content {
            base_url: "https://example.org".into(),
            documents: (0..n)
                .map(|i| Document::parse(format!("/docs/d{i:03}/"), format!("# Doc {i}\n")))
                .collect(),
            ..Content::default()
        }
    }

    #[test]
    fn pages_follow_cursors() {
        let c = many(120);
        let mut seen = 0;
        let mut params = Map::new();
        loop {
            let page = list(&c, Version::V2025_06_18, &params).unwrap();
            seen += page["resources"].as_array().unwrap().len();
            match page.get("nextCursor") {
                Some(next) => {
                    params.insert("cursor".into(), next.clone());
                }
                None => break,
            }
        }
        assert_eq!(seen, 120);
        for bad in [
            json!("nonsense"),
            json!(encode_cursor(0)),
            json!(encode_cursor(500)),
            json!(3),
        ] {
            let params = Map::from_iter([("cursor".to_owned(), bad)]);
            assert_eq!(
                list(&c, Version::V2024_11_05, &params).unwrap_err().code,
                -32602
            );
        }
    }

    #[test]
    fn documents_read_by_uri() {
        let c = many(2);
        let params = Map::from_iter([(
            "uri".to_owned(),
            json!("https://example.org/docs/d001/index.md"),
        )]);
        let r = read(&c, &params).unwrap();
        assert_eq!(r["contents"][0]["text"], "# Doc 1\n");
        let params = Map::from_iter([(
            "uri".to_owned(),
            json!("https://elsewhere.example/docs/d001/index.md"),
        )]);
        assert_eq!(read(&c, &params).unwrap_err().code, RESOURCE_NOT_FOUND);
    }
}
