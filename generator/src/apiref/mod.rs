//! The API reference page, read from the built OpenAPI document (the same
//! in-memory value that is written to `openapi.json`), so the page cannot
//! describe a route the contract does not have.
//!
//! [`reference`] flattens the document into what a template needs (every
//! `$ref` resolved to a name and an anchor, every schema as a property
//! table, example requests and responses); [`markdown`] writes the same
//! reference as Markdown for the page's twin and the search index.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use contract::ProblemCode;

mod markdown;
mod schema;
pub use markdown::*;
pub use schema::*;

/// Site path of the API reference page.
pub const URL: &str = "/docs/developers/api/";
/// Template of the page; it receives the reference as `api`.
pub const TEMPLATE: &str = "api-reference.html";

#[derive(Debug, Clone, Serialize)]
pub struct Reference {
    pub title: String,
    pub version: String,
    pub openapi: String,
    pub description: String,
    pub servers: Vec<String>,
    pub tags: Vec<Tag>,
    pub schemas: Vec<Schema>,
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Tag {
    pub name: String,
    pub anchor: String,
    pub description: String,
    pub operations: Vec<Operation>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Operation {
    pub id: String,
    pub anchor: String,
    pub method: String,
    pub path: String,
    pub summary: String,
    pub description: String,
    pub parameters: Vec<Field>,
    pub request_body: Option<Body>,
    pub responses: Vec<Response>,
    /// A shell command that calls the operation.
    pub curl: String,
}

/// A parameter or a schema property.
#[derive(Debug, Clone, Serialize)]
pub struct Field {
    pub name: String,
    /// `query`, `header`, `path`; empty for properties.
    pub location: String,
    pub required: bool,
    pub kind: Kind,
    pub description: String,
}

/// A schema's type, readable: `string`, `array of Observation`, …; `link`
/// is the anchor of the component schema it names, if any.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Kind {
    pub label: String,
    pub link: Option<String>,
    /// Allowed values, constraints and defaults, in words.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Body {
    pub description: String,
    pub required: bool,
    pub media: Vec<Media>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Media {
    pub media_type: String,
    pub kind: Kind,
    /// Pretty JSON (or text) of an example, when the contract gives one.
    pub example: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Response {
    pub status: String,
    pub description: String,
    pub media: Vec<Media>,
    pub headers: Vec<String>,
    /// Problem codes answered with this status.
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Schema {
    pub name: String,
    pub anchor: String,
    pub description: String,
    pub kind: Kind,
    pub properties: Vec<Field>,
    /// Variants of a `oneOf` of constants: (value, description).
    pub variants: Vec<(String, String)>,
    pub example: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    pub code: String,
    pub status: u16,
    pub title: String,
    pub url: String,
}

/// The operation members of an OpenAPI path item (its other members, such
/// as `servers`, are not operations).
const HTTP_METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Flattens the OpenAPI document `doc` for the reference template.
pub fn reference(doc: &Value, base_url: &str) -> Reference {
    let mut tags: Vec<Tag> = doc["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| Tag {
            name: text(&t["name"]),
            anchor: format!("tag-{}", text(&t["name"])),
            description: text(&t["description"]),
            operations: Vec::new(),
        })
        .collect();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        // A path's own server (the sidecar's, when it has a separate origin)
        // is where its examples are sent.
        let server = item["servers"][0]["url"].as_str().unwrap_or(base_url);
        let operations = item.as_object().into_iter().flatten();
        for (method, op) in operations.filter(|(key, _)| HTTP_METHODS.contains(&key.as_str())) {
            let method = method.to_ascii_uppercase();
            let parameters: Vec<Field> = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| {
                    let p = resolve(doc, p);
                    Field {
                        name: text(&p["name"]),
                        location: text(&p["in"]),
                        required: p["required"].as_bool().unwrap_or(false),
                        kind: kind(&p["schema"]),
                        description: text(&p["description"]),
                    }
                })
                .collect();
            let example_query: Vec<(String, String)> = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| resolve(doc, p))
                .filter(|p| p["in"] == "query")
                .filter_map(|p| Some((text(&p["name"]), example_value(&p["schema"])?)))
                .collect();
            let request_body = op.get("requestBody").map(|b| {
                let b = resolve(doc, b);
                Body {
                    description: text(&b["description"]),
                    required: b["required"].as_bool().unwrap_or(false),
                    media: media_list(doc, &b["content"]),
                }
            });
            let body_example = request_body.as_ref().and_then(|b| {
                b.media
                    .iter()
                    .find_map(|m| Some((m.media_type.as_str(), m.example.clone()?)))
            });
            let responses = op["responses"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(status, r)| {
                    let r = resolve(doc, r);
                    let problems = if status.starts_with('4') || status.starts_with('5') {
                        problems_with_status(base_url, status)
                    } else {
                        Vec::new()
                    };
                    Response {
                        status: status.clone(),
                        description: text(&r["description"]),
                        media: media_list(doc, &r["content"]),
                        headers: r["headers"]
                            .as_object()
                            .map(|h| h.keys().cloned().collect())
                            .unwrap_or_default(),
                        problems,
                    }
                })
                .collect();
            // `{name}` segments take their parameter's example.
            let mut example_path = path.clone();
            for p in op["parameters"].as_array().into_iter().flatten() {
                let p = resolve(doc, p);
                if p["in"] == "path"
                    && let Some(value) = example_value(&p["schema"])
                {
                    example_path =
                        example_path.replace(&format!("{{{}}}", text(&p["name"])), &value);
                }
            }
            let id = text(&op["operationId"]);
            let operation = Operation {
                anchor: operation_anchor(&id),
                curl: curl(server, &method, &example_path, &example_query, body_example),
                id,
                method,
                path: path.clone(),
                summary: text(&op["summary"]),
                description: text(&op["description"]),
                parameters,
                request_body,
                responses,
            };
            let tag = text(&op["tags"][0]);
            match tags.iter_mut().find(|t| t.name == tag) {
                Some(t) => t.operations.push(operation),
                None => tags.push(Tag {
                    anchor: format!("tag-{tag}"),
                    name: tag,
                    description: String::new(),
                    operations: vec![operation],
                }),
            }
        }
    }
    tags.retain(|t| !t.operations.is_empty());
    let schemas = doc["components"]["schemas"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, s)| {
            let required: Vec<&str> = s["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let properties = s["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(prop, ps)| Field {
                    name: prop.clone(),
                    location: String::new(),
                    required: required.contains(&prop.as_str()),
                    kind: kind(ps),
                    description: text(&ps["description"]),
                })
                .collect();
            let variants = s["oneOf"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| Some((compact(v.get("const")?), text(&v["description"]))))
                .collect();
            Schema {
                anchor: schema_anchor(name),
                name: name.clone(),
                description: text(&s["description"]),
                kind: kind(s),
                properties,
                variants,
                example: schema_example(s),
            }
        })
        .collect();
    Reference {
        title: text(&doc["info"]["title"]),
        version: text(&doc["info"]["version"]),
        openapi: text(&doc["openapi"]),
        description: text(&doc["info"]["summary"]),
        servers: doc["servers"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| text(&s["url"]))
            .collect(),
        tags,
        schemas,
        problems: ProblemCode::ALL
            .into_iter()
            .map(|p| problem(base_url, p))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_page_is_where_the_sidecar_links_it() {
        // The OGC API landing page's service-doc link names this folder.
        assert_eq!(URL, format!("/{}", contract::manifest::API_REFERENCE));
    }

    #[test]
    fn kinds_read_refs_arrays_and_enums() {
        let k =
            kind(&json!({"type": "array", "items": {"$ref": "#/components/schemas/Observation"}}));
        assert_eq!(k.label, "array of Observation");
        assert_eq!(k.link.as_deref(), Some("schema-observation"));
        let k = kind(&json!({"type": "string", "enum": ["json", "csv"], "default": "json"}));
        assert_eq!(k.label, "string");
        assert_eq!(k.notes, ["one of: json, csv", "default json"]);
        let k = kind(&json!({"type": ["string", "null"], "format": "date-time"}));
        assert_eq!(k.label, "string or null (date-time)");
    }

    #[test]
    fn curl_lines() {
        let c = curl(
            "https://x.org",
            "GET",
            "/a",
            &[("parameter".into(), "nitrate".into())],
            None,
        );
        assert_eq!(c, "curl -sS 'https://x.org/a?parameter=nitrate'");
        let c = curl(
            "https://x.org",
            "POST",
            "/mcp/",
            &[],
            Some(("application/json", "{\n \"a\": 1\n}".into())),
        );
        assert!(c.contains("-d '{\"a\":1}'"), "{c}");
        assert!(c.contains("Accept: application/json, text/event-stream"));
    }
}
