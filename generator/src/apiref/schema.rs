//! Reading the OpenAPI document: `$ref`s to names and anchors, schemas to
//! property kinds, examples, media lists, the problem codes of a status, and
//! an example `curl` line per operation.

use super::*;

pub(super) fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_owned()
}

pub(super) fn ref_name(v: &Value) -> Option<&str> {
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
pub(super) fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    match v.get("$ref").and_then(Value::as_str) {
        Some(target) => {
            let pointer = target.trim_start_matches('#');
            doc.pointer(pointer).unwrap_or(v)
        }
        None => v,
    }
}

pub(super) fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(super) fn kind(schema: &Value) -> Kind {
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

pub(super) fn type_name(t: &Value) -> String {
    match t {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(text).collect::<Vec<_>>().join(" or "),
        _ => String::new(),
    }
}

pub(super) fn pretty_example(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// An example from a media type object, or from its (resolved) schema.
pub(super) fn example(doc: &Value, media: &Value) -> Option<String> {
    if let Some(e) = media.get("example") {
        return Some(pretty_example(e));
    }
    let schema = resolve(doc, &media["schema"]);
    schema_example(schema)
}

pub(super) fn schema_example(schema: &Value) -> Option<String> {
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

pub(super) fn media_list(doc: &Value, content: &Value) -> Vec<Media> {
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

pub(super) fn problems_with_status(base_url: &str, status: &str) -> Vec<Problem> {
    ProblemCode::ALL
        .into_iter()
        .filter(|p| p.status().to_string() == status)
        .map(|p| problem(base_url, p))
        .collect()
}

pub(super) fn problem(_base_url: &str, p: ProblemCode) -> Problem {
    Problem {
        code: p.as_str().to_owned(),
        status: p.status(),
        title: p.title().to_owned(),
        url: format!("/docs/problems/{}/", p.as_str()),
    }
}

/// An example value for a query parameter: its first example or enum value.
pub(super) fn example_value(schema: &Value) -> Option<String> {
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

pub(super) fn curl(
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
            if contract::Endpoint::lookup(path) == Some(contract::Endpoint::Mcp) {
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
