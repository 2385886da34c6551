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

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}

fn ref_name(v: &Value) -> Option<&str> {
    v.get("$ref")?.as_str()?.rsplit('/').next()
}

/// The anchor of a component schema on the reference page.
pub fn schema_anchor(name: &str) -> String {
    format!("schema-{}", name.to_ascii_lowercase())
}

/// The anchor of an operation on the reference page.
pub fn operation_anchor(operation_id: &str) -> String {
    format!("op-{}", operation_id.to_ascii_lowercase())
}

/// Follows a `$ref` into `#/components/...` of `doc`.
fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    match v.get("$ref").and_then(Value::as_str) {
        Some(target) => {
            let pointer = target.trim_start_matches('#');
            doc.pointer(pointer).unwrap_or(v)
        }
        None => v,
    }
}

fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn kind(schema: &Value) -> Kind {
    if let Some(name) = ref_name(schema) {
        return Kind {
            label: name.to_owned(),
            link: Some(schema_anchor(name)),
            notes: Vec::new(),
        };
    }
    let mut k = Kind::default();
    for key in ["anyOf", "oneOf"] {
        if let Some(variants) = schema.get(key).and_then(Value::as_array) {
            let consts: Vec<String> = variants
                .iter()
                .filter_map(|v| v.get("const").map(compact))
                .collect();
            if consts.len() == variants.len() && !consts.is_empty() {
                k.label = text(&variants[0]["type"]);
                k.notes.push(format!("one of: {}", consts.join(", ")));
            } else {
                let parts: Vec<Kind> = variants.iter().map(kind).collect();
                let base = schema.get("type").map(type_name).filter(|s| !s.is_empty());
                let inner = parts
                    .iter()
                    .map(|p| p.label.clone())
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
                    .join(" or ");
                k.label = match base {
                    Some(b) if inner.is_empty() => b,
                    Some(b) => format!("{b} ({inner})"),
                    None => inner,
                };
                k.link = parts.iter().find_map(|p| p.link.clone());
            }
        }
    }
    let format = schema.get("format").and_then(Value::as_str);
    // A bare `{"format": …}` inside anyOf: the format is the type.
    if k.label.is_empty()
        && schema.get("type").is_none()
        && schema.get("const").is_none()
        && let Some(f) = format
    {
        k.label = f.to_owned();
        return k;
    }
    if k.label.is_empty() {
        k.label = match schema.get("type") {
            Some(t) if t == "array" => match schema.get("items") {
                Some(items) => {
                    let inner = kind(items);
                    k.link = inner.link.clone();
                    k.notes.extend(inner.notes);
                    format!("array of {}", inner.label)
                }
                None => "array".to_owned(),
            },
            Some(t) => type_name(t),
            None if schema.get("const").is_some() => "constant".to_owned(),
            None => "any".to_owned(),
        };
    }
    if let Some(f) = format {
        k.label.push_str(&format!(" ({f})"));
    }
    if let Some(c) = schema.get("const") {
        k.notes.push(format!("always {}", compact(c)));
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(compact).collect();
        k.notes.push(format!("one of: {}", values.join(", ")));
    }
    for (key, word) in [
        ("minimum", "minimum"),
        ("maximum", "maximum"),
        ("minLength", "min. length"),
        ("maxLength", "max. length"),
        ("minItems", "min. items"),
        ("maxItems", "max. items"),
        ("pattern", "pattern"),
        ("default", "default"),
    ] {
        if let Some(v) = schema.get(key) {
            k.notes.push(format!("{word} {}", compact(v)));
        }
    }
    if let Some(ex) = schema.get("examples").and_then(Value::as_array)
        && ex.iter().all(|e| !e.is_object())
        && !ex.is_empty()
    {
        let ex: Vec<String> = ex.iter().map(compact).collect();
        k.notes.push(format!("e.g. {}", ex.join(", ")));
    }
    k
}

fn type_name(t: &Value) -> String {
    match t {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(text).collect::<Vec<_>>().join(" or "),
        _ => String::new(),
    }
}

fn pretty_example(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// An example from a media type object, or from its (resolved) schema.
fn example(doc: &Value, media: &Value) -> Option<String> {
    if let Some(e) = media.get("example") {
        return Some(pretty_example(e));
    }
    let schema = resolve(doc, &media["schema"]);
    schema_example(schema)
}

fn schema_example(schema: &Value) -> Option<String> {
    if let Some(e) = schema.get("example") {
        return Some(pretty_example(e));
    }
    schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .filter(|e| e.is_object() || e.is_array())
        .map(pretty_example)
}

fn media_list(doc: &Value, content: &Value) -> Vec<Media> {
    content
        .as_object()
        .into_iter()
        .flatten()
        .map(|(media_type, m)| Media {
            media_type: media_type.clone(),
            kind: kind(&m["schema"]),
            example: example(doc, m),
        })
        .collect()
}

fn problems_with_status(base_url: &str, status: &str) -> Vec<Problem> {
    ProblemCode::ALL
        .into_iter()
        .filter(|p| p.status().to_string() == status)
        .map(|p| problem(base_url, p))
        .collect()
}

fn problem(_base_url: &str, p: ProblemCode) -> Problem {
    Problem {
        code: p.as_str().to_owned(),
        status: p.status(),
        title: p.title().to_owned(),
        url: format!("/docs/problems/{}/", p.as_str()),
    }
}

/// An example value for a query parameter: its first example or enum value.
fn example_value(schema: &Value) -> Option<String> {
    let first = |key: &str| {
        schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .map(compact)
    };
    let value = first("examples").or_else(|| first("enum"))?;
    let default = schema.get("default").map(compact);
    (Some(&value) != default.as_ref()).then_some(value)
}

fn curl(
    base_url: &str,
    method: &str,
    path: &str,
    params: &[(String, String)],
    body: Option<(&str, String)>,
) -> String {
    let mut url = format!("{base_url}{path}");
    for (i, (name, value)) in params.iter().enumerate() {
        url.push(if i == 0 { '?' } else { '&' });
        url.push_str(name);
        url.push('=');
        url.push_str(value);
    }
    match body {
        None if method == "GET" => format!("curl -sS '{url}'"),
        None => format!("curl -sS -X {method} '{url}'"),
        Some((media_type, data)) => {
            let mut s =
                format!("curl -sS -X {method} '{url}' \\\n  -H 'Content-Type: {media_type}'");
            if path.starts_with("/mcp") {
                s.push_str(" \\\n  -H 'Accept: application/json, text/event-stream'");
            }
            let one_line: String = match serde_json::from_str::<Value>(&data) {
                Ok(v) => v.to_string(),
                Err(_) => data,
            };
            s.push_str(&format!(" \\\n  -d '{}'", one_line.replace('\'', "'\\''")));
            s
        }
    }
}

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
        for (method, op) in item.as_object().into_iter().flatten() {
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
            let id = text(&op["operationId"]);
            let operation = Operation {
                anchor: operation_anchor(&id),
                curl: curl(base_url, &method, path, &example_query, body_example),
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

fn md_cell(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

fn kind_md(k: &Kind) -> String {
    let mut s = md_cell(&k.label);
    if !k.notes.is_empty() {
        s.push_str(&format!("; {}", md_cell(&k.notes.join("; "))));
    }
    s
}

/// The reference as Markdown: the page's twin and its search text.
pub fn markdown(r: &Reference, base_url: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "This reference is generated from the contract [`/openapi.json`]({base_url}/openapi.json) \
        (OpenAPI {}, contract version {}). Every operation, parameter and schema below is read \
        from it.\n",
        r.openapi, r.version
    );
    for tag in &r.tags {
        let _ = writeln!(out, "## {}\n\n{}\n", tag.name, tag.description);
        for op in &tag.operations {
            let _ = writeln!(out, "### {} {}\n", op.method, op.path);
            let _ = writeln!(
                out,
                "Operation `{}`: {}\n\n{}\n",
                op.id, op.summary, op.description
            );
            if !op.parameters.is_empty() {
                out.push_str(
                    "| Parameter | In | Required | Type | Description |\n|---|---|---|---|---|\n",
                );
                for p in &op.parameters {
                    let _ = writeln!(
                        out,
                        "| `{}` | {} | {} | {} | {} |",
                        p.name,
                        p.location,
                        if p.required { "yes" } else { "no" },
                        kind_md(&p.kind),
                        md_cell(&p.description)
                    );
                }
                out.push('\n');
            }
            if let Some(b) = &op.request_body {
                let media: Vec<String> = b
                    .media
                    .iter()
                    .map(|m| format!("`{}` ({})", m.media_type, m.kind.label))
                    .collect();
                let _ = writeln!(
                    out,
                    "Request body: {} {}\n",
                    md_cell(&b.description),
                    media.join(", ")
                );
            }
            out.push_str("| Status | Description | Content | Problem codes |\n|---|---|---|---|\n");
            for resp in &op.responses {
                let media: Vec<String> = resp
                    .media
                    .iter()
                    .map(|m| format!("`{}` ({})", m.media_type, m.kind.label))
                    .collect();
                let codes: Vec<String> = resp
                    .problems
                    .iter()
                    .map(|p| format!("[`{}`]({base_url}{})", p.code, p.url))
                    .collect();
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    resp.status,
                    md_cell(&resp.description),
                    media.join(", "),
                    codes.join(", ")
                );
            }
            let _ = writeln!(out, "\n```sh\n{}\n```\n", op.curl);
        }
    }
    out.push_str("## Schemas\n\n");
    for s in &r.schemas {
        let _ = writeln!(out, "### {}\n\n{}\n", s.name, s.description);
        if s.properties.is_empty() {
            let _ = writeln!(out, "Type: {}\n", kind_md(&s.kind));
        } else {
            out.push_str("| Property | Required | Type | Description |\n|---|---|---|---|\n");
            for p in &s.properties {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} |",
                    p.name,
                    if p.required { "yes" } else { "no" },
                    kind_md(&p.kind),
                    md_cell(&p.description)
                );
            }
            out.push('\n');
        }
    }
    out.push_str("## Problem codes\n\n| Code | Status | Title |\n|---|---|---|\n");
    for p in &r.problems {
        let _ = writeln!(
            out,
            "| [`{}`]({base_url}{}) | {} | {} |",
            p.code,
            p.url,
            p.status,
            md_cell(&p.title)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
