//! The MCP tools. Each reads what the HTTP routes serve (the service
//! information, the documentation twins, the live data through
//! [`LiveTools`]), so an agent and a browser get the same answers. None has
//! a side effect: `prepare_enquiry` only drafts text for a human to send.

use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use contract::observations::{DEFAULT_LIMIT, MAX_LIMIT, SITE_ID_PATTERN};
use serde_json::{Map, Value, json};

use super::Version;
use super::jsonrpc::RpcError;
use super::memo::Memo;
use crate::published::Content;

/// Sections of the service information an agent may ask for alone.
pub const SECTIONS: [&str; 7] = [
    "services",
    "projects",
    "evidence",
    "scope",
    "consortium",
    "contact",
    "guardrails",
];
pub const SEARCH_MAX: u64 = 20;
const SEARCH_DEFAULT: u64 = 5;
const TOPIC_MAX: usize = 200;
const MESSAGE_MAX: usize = 5000;
const NAME_MAX: usize = 200;

pub type LiveFuture<'a> = Pin<Box<dyn Future<Output = Result<LiveBody, RpcError>> + Send + 'a>>;

/// A live route's JSON answer, as its bytes, with its strong ETag (a hash of
/// those bytes) when it has one: equal tags, equal bytes, so the tool's
/// serialised result can be kept by tag ([`call`]).
#[derive(Debug, Clone)]
pub struct LiveBody {
    pub etag: Option<String>,
    pub json: Bytes,
}

impl LiveBody {
    /// A body without a tag (never memoised).
    pub fn untagged(value: &Value) -> LiveBody {
        LiveBody {
            etag: None,
            json: Bytes::from(serde_json::to_vec(value).unwrap_or_default()),
        }
    }
}

/// What a tool call answers: a result to serialise, or one serialised
/// already (a live tool's, kept by its data's ETag).
pub(crate) enum Answer {
    Value(Value),
    Serialized(Bytes),
}

/// The live-data tools, answered by the same code as the live HTTP routes.
/// Each returns the JSON object the matching route returns; a rejected
/// argument is an [`RpcError`] with code -32602, a fault one with -32603.
pub trait LiveTools: Send + Sync {
    /// What `/api/platform-stats.php` returns.
    fn stats(&self) -> LiveFuture<'_>;
    /// What `/api/observations-data.php` returns for these filters (the
    /// route's query parameters as JSON members; `limit` is an integer).
    fn observations(&self, args: Map<String, Value>) -> LiveFuture<'_>;
    /// What `/api/globe-data.php` returns.
    fn globe(&self) -> LiveFuture<'_>;
}

/// A tool's behaviour hints (MCP 2025-03-26 and later), stated per tool so
/// that a tool that came to write or reach outside would have to say so.
#[derive(Clone, Copy)]
struct Hints {
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    /// Whether it reaches beyond the organisation's own published data.
    open_world: bool,
}

/// Reads the organisation's own published or live data, and nothing else.
/// `prepare_enquiry` is one of these: it drafts text and stores or sends
/// nothing (a human submits the form).
const READS_OWN_DATA: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// A tool's static description.
struct Tool {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    live: bool,
    hints: Hints,
    input: fn() -> Value,
    output: fn() -> Value,
}

const TOOLS: [Tool; 7] = [
    Tool {
        name: "get_service_information",
        title: "Service information",
        description: "The organisation's published service information: what it offers (services), its projects, evidence of its work, its scope, the consortium behind it, how to contact it and the guardrails for agents. Give `section` to get one part only.",
        live: false,
        hints: READS_OWN_DATA,
        input: || {
            json!({"type": "object", "properties": {"section": {
                "type": "string", "enum": SECTIONS,
                "description": "One section of the service information; omit for all of it."
            }}, "additionalProperties": false})
        },
        output: || json!({"type": "object", "description": "The whole service information, or an object whose only member is the requested section.", "additionalProperties": true}),
    },
    Tool {
        name: "get_platform_statistics",
        title: "Platform statistics",
        description: "Live statistics of the citizen-science platform (volunteers, sites, observations), computed from the database; the same as /api/platform-stats.php.",
        live: true,
        hints: READS_OWN_DATA,
        input: || json!({"type": "object", "properties": {}, "additionalProperties": false}),
        output: || json!({"type": "object", "description": "The platform statistics object.", "additionalProperties": true}),
    },
    Tool {
        name: "get_observations",
        title: "Water observations",
        description: "Public water-quality observations, newest first, with the same filters and limits as /api/observations-data.php. Follow `next_cursor` by passing it back as `cursor`. The data licence and attribution travel with every page.",
        live: true,
        hints: READS_OWN_DATA,
        input: || {
            json!({"type": "object", "properties": {
                "parameter": {"type": "string", "description": "Only this measured parameter, such as nitrate or ph."},
                "site": {"type": "string", "pattern": SITE_ID_PATTERN, "description": "Only this site (site_id)."},
                "from": {"type": "string", "description": "Observed at or after this date (YYYY-MM-DD) or RFC 3339 time, UTC."},
                "to": {"type": "string", "description": "Observed before or at this date or time, UTC; a date includes its whole day."},
                "bbox": {"type": "string", "description": "Only sites inside minLon,minLat,maxLon,maxLat (WGS 84 degrees)."},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": format!("Page size (default {DEFAULT_LIMIT}).")},
                "cursor": {"type": "string", "description": "The next_cursor of the previous page."}
            }, "additionalProperties": false})
        },
        output: || json!({"type": "object", "description": "One page of observations.", "additionalProperties": true}),
    },
    Tool {
        name: "get_globe_points",
        title: "Globe points",
        description: "Public geographic points of observation sites, as shown on the globe page; coordinates are coarsened for volunteers' privacy. The same as /api/globe-data.php.",
        live: true,
        hints: READS_OWN_DATA,
        input: || json!({"type": "object", "properties": {}, "additionalProperties": false}),
        output: || json!({"type": "object", "description": "The globe points.", "additionalProperties": true}),
    },
    Tool {
        name: "search_documentation",
        title: "Search the documentation",
        description: "Full-text search over the published documentation pages. Returns the best-ranked pages with a snippet, the page URL and the resource URI of its Markdown; read one with get_document.",
        live: false,
        hints: READS_OWN_DATA,
        input: || {
            json!({"type": "object", "properties": {
                "query": {"type": "string", "minLength": 1, "description": "Words to look for."},
                "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_MAX, "description": "At most this many results (default 5)."}
            }, "required": ["query"], "additionalProperties": false})
        },
        output: || {
            json!({"type": "object", "required": ["query", "results"], "properties": {
                "query": {"type": "string"},
                "results": {"type": "array", "items": {"type": "object",
                    "required": ["title", "url", "uri", "snippet", "score"],
                    "properties": {
                        "title": {"type": "string"}, "url": {"type": "string"},
                        "uri": {"type": "string"}, "snippet": {"type": "string"},
                        "score": {"type": "integer"}
                    }}}
            }})
        },
    },
    Tool {
        name: "get_document",
        title: "Get a document",
        description: "One documentation page as Markdown, with its licence and attribution. `path` is a page path such as /docs/archive/, its URL, or a resource URI from search_documentation or resources/list.",
        live: false,
        hints: READS_OWN_DATA,
        input: || {
            json!({"type": "object", "properties": {
                "path": {"type": "string", "minLength": 1, "description": "Page path, page URL or resource URI."}
            }, "required": ["path"], "additionalProperties": false})
        },
        output: || {
            json!({"type": "object", "required": ["uri", "url", "title", "markdown"], "properties": {
                "uri": {"type": "string"}, "url": {"type": "string"}, "title": {"type": "string"},
                "licence": {"type": "string", "description": "Absent when the page names none."},
                "attribution": {"type": "string", "description": "Absent when the page names none."},
                "markdown": {"type": "string"}
            }})
        },
    },
    Tool {
        name: "prepare_enquiry",
        title: "Prepare an enquiry",
        description: "Drafts an enquiry to the organisation for the user to review. It sends nothing and stores nothing: it returns the draft and the URL of the contact form, where only the user may submit it.",
        live: false,
        hints: READS_OWN_DATA,
        input: || {
            json!({"type": "object", "properties": {
                "topic": {"type": "string", "minLength": 1, "maxLength": TOPIC_MAX, "description": "What the enquiry is about."},
                "message": {"type": "string", "minLength": 1, "maxLength": MESSAGE_MAX, "description": "The enquiry itself."},
                "name": {"type": "string", "maxLength": NAME_MAX, "description": "The user's name, if they want to give it."},
                "organisation": {"type": "string", "maxLength": NAME_MAX, "description": "The user's organisation, if any."}
            }, "required": ["topic", "message"], "additionalProperties": false})
        },
        output: || {
            json!({"type": "object", "required": ["draft", "form_url", "prefilled_url", "submitted", "notice"], "properties": {
                "draft": {"type": "string"},
                "form_url": {"type": "string"},
                "prefilled_url": {"type": "string", "description": "The contact form with the draft filled in, for the user to review and send."},
                "submitted": {"type": "boolean", "const": false},
                "notice": {"type": "string"}
            }})
        },
    },
];

/// `tools/list`: the live tools only when a data layer is present.
pub fn list(version: Version, live: bool) -> Value {
    let tools: Vec<Value> = TOOLS
        .iter()
        .filter(|t| live || !t.live)
        .map(|t| {
            let mut v =
                json!({"name": t.name, "description": t.description, "inputSchema": (t.input)()});
            if version >= Version::V2025_03_26 {
                let h = t.hints;
                v["annotations"] = json!({
                    "readOnlyHint": h.read_only,
                    "destructiveHint": h.destructive,
                    "idempotentHint": h.idempotent,
                    "openWorldHint": h.open_world,
                });
            }
            if version >= Version::V2025_06_18 {
                v["title"] = json!(t.title);
                v["outputSchema"] = (t.output)();
            }
            v
        })
        .collect();
    json!({ "tools": tools })
}

/// `tools/call`.
pub(crate) async fn call(
    content: &Content,
    live: Option<&dyn LiveTools>,
    version: Version,
    params: &Map<String, Value>,
    live_memo: &Memo,
) -> Result<Answer, RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("`name` must name a tool."))?;
    let args = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(args)) => args.clone(),
        Some(_) => return Err(RpcError::invalid_params("`arguments` must be an object.")),
    };
    let unknown = || RpcError::invalid_params(format!("Unknown tool: {name}"));
    let index = TOOLS
        .iter()
        .position(|t| t.name == name && (live.is_some() || !t.live))
        .ok_or_else(unknown)?;
    let tool = &TOOLS[index];
    let args = Args::new(args, &input_schemas()[index])?;
    let out = match (tool.name, live) {
        ("get_service_information", _) => service_information(content, &args)?,
        ("search_documentation", _) => return search(content, version, &args).map(Answer::Value),
        ("get_document", _) => return document(content, version, &args).map(Answer::Value),
        ("prepare_enquiry", _) => prepare_enquiry(content, &args)?,
        ("get_platform_statistics", Some(live)) => {
            return live_answer(version, tool.name, live.stats().await?, live_memo);
        }
        ("get_observations", Some(live)) => {
            return live_answer(
                version,
                tool.name,
                live.observations(args.0).await?,
                live_memo,
            );
        }
        ("get_globe_points", Some(live)) => {
            return live_answer(version, tool.name, live.globe().await?, live_memo);
        }
        _ => return Err(unknown()),
    };
    result(version, out).map(Answer::Value)
}

/// A tool's result around `out`: as `structuredContent` and as text.
fn result(version: Version, out: Value) -> Result<Value, RpcError> {
    let text = serde_json::to_string_pretty(&out).map_err(|e| RpcError::internal(e.to_string()))?;
    Ok(success(version, out, vec![text_item(text)]))
}

/// A live tool's result, serialised, from its route's answer. The route
/// keeps a page for its `max-age`, so the same call mostly gets the same
/// bytes with the same ETag: the serialised result is then kept under
/// (version, tool, ETag), and the next call costs the route's cache lookup
/// instead of parsing and writing the data twice.
fn live_answer(
    version: Version,
    name: &str,
    body: LiveBody,
    memo: &Memo,
) -> Result<Answer, RpcError> {
    let key = body
        .etag
        .as_ref()
        .map(|tag| format!("{}\n{name}\n{tag}", version.as_str()));
    if let Some(hit) = key.as_deref().and_then(|k| memo.get(k)) {
        return Ok(Answer::Serialized(hit));
    }
    let value: Value = serde_json::from_slice(&body.json)
        .map_err(|_| RpcError::internal("the data route answered something other than JSON"))?;
    let out = result(version, object(value))?;
    let bytes =
        Bytes::from(serde_json::to_vec(&out).map_err(|e| RpcError::internal(e.to_string()))?);
    if let Some(key) = key {
        memo.put(key, bytes.clone());
    }
    Ok(Answer::Serialized(bytes))
}

/// `structuredContent` must be an object.
fn object(value: Value) -> Value {
    match value {
        Value::Object(_) => value,
        other => json!({ "data": other }),
    }
}

fn text_item(text: String) -> Value {
    json!({"type": "text", "text": text})
}

fn success(version: Version, structured: Value, content: Vec<Value>) -> Value {
    let mut result = json!({"content": content, "isError": false});
    if version >= Version::V2025_06_18 {
        result["structuredContent"] = structured;
    }
    result
}

/// A tool-level failure the model should see and act on; no
/// `structuredContent`, whatever the version.
fn failure(text: String) -> Value {
    json!({"content": [text_item(text)], "isError": true})
}

/// Arguments checked against the few schema rules the tools use: no
/// unknown members, required members present, types, string lengths and
/// integer bounds.
struct Args(Map<String, Value>);

impl Args {
    fn new(args: Map<String, Value>, schema: &Value) -> Result<Args, RpcError> {
        let empty = Map::new();
        let props = schema["properties"].as_object().unwrap_or(&empty);
        for (key, value) in &args {
            let Some(rule) = props.get(key) else {
                return Err(RpcError::invalid_params(format!(
                    "Unknown argument `{key}`."
                )));
            };
            check(key, value, rule)?;
        }
        for required in schema["required"].as_array().into_iter().flatten() {
            let key = required.as_str().unwrap_or_default();
            if !args.contains_key(key) {
                return Err(RpcError::invalid_params(format!(
                    "Missing argument `{key}`."
                )));
            }
        }
        Ok(Args(args))
    }

    fn str(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn int(&self, key: &str) -> Option<u64> {
        self.0.get(key).and_then(Value::as_u64)
    }
}

fn check(key: &str, value: &Value, rule: &Value) -> Result<(), RpcError> {
    let bad = |why: &str| Err(RpcError::invalid_params(format!("Argument `{key}` {why}.")));
    match rule["type"].as_str() {
        Some("string") => {
            let Some(s) = value.as_str() else {
                return bad("must be a string");
            };
            let len = s.trim().chars().count() as u64;
            if rule["minLength"].as_u64().is_some_and(|min| len < min) {
                return bad("must not be empty");
            }
            if rule["maxLength"].as_u64().is_some_and(|max| len > max) {
                return bad(&format!("is longer than {} characters", rule["maxLength"]));
            }
            if let Some(allowed) = rule["enum"].as_array()
                && !allowed.iter().any(|a| a == value)
            {
                let names: Vec<&str> = allowed.iter().filter_map(Value::as_str).collect();
                return bad(&format!("must be one of {}", names.join(", ")));
            }
        }
        Some("integer") => {
            let Some(n) = value.as_i64() else {
                return bad("must be an integer");
            };
            let min = rule["minimum"].as_i64().unwrap_or(i64::MIN);
            let max = rule["maximum"].as_i64().unwrap_or(i64::MAX);
            if n < min || n > max {
                return bad(&format!("must be between {min} and {max}"));
            }
        }
        _ => {}
    }
    Ok(())
}

fn service_information(content: &Content, args: &Args) -> Result<Value, RpcError> {
    let unavailable = || RpcError::internal("The service information is not available.");
    let service = content.service.as_ref().ok_or_else(unavailable)?;
    let service = serde_json::to_value(service).map_err(|_| unavailable())?;
    Ok(match args.str("section") {
        None => service,
        Some(section) => json!({ section: service[section].clone() }),
    })
}

fn search(content: &Content, version: Version, args: &Args) -> Result<Value, RpcError> {
    let query = args.str("query").unwrap_or_default();
    let limit = args.int("limit").unwrap_or(SEARCH_DEFAULT) as usize;
    let hits = content.search(query, limit);
    let results: Vec<Value> = hits
        .iter()
        .map(|h| {
            json!({
                "title": h.title,
                "url": content.page_url(&h.path),
                "uri": content.page_uri(&h.path),
                "snippet": h.snippet,
                "score": h.score,
            })
        })
        .collect();
    let structured = json!({"query": query, "results": results});
    let mut items = vec![text_item(
        serde_json::to_string_pretty(&structured).map_err(|e| RpcError::internal(e.to_string()))?,
    )];
    if version >= Version::V2025_06_18 {
        items.extend(hits.iter().map(|h| {
            json!({
                "type": "resource_link",
                "uri": content.page_uri(&h.path),
                "name": h.path,
                "title": h.title,
                "description": h.snippet,
                "mimeType": "text/markdown",
            })
        }));
    }
    Ok(success(version, structured, items))
}

fn document(content: &Content, version: Version, args: &Args) -> Result<Value, RpcError> {
    let reference = args.str("path").unwrap_or_default();
    let Some(d) = content.document(reference) else {
        return Ok(failure(format!(
            "No documentation page at {reference:?}. Use search_documentation to find pages, or resources/list to see them all."
        )));
    };
    let mut structured = json!({
        "uri": content.document_uri(d),
        "url": content.document_url(d),
        "title": d.title,
        "markdown": d.markdown(),
    });
    // Omitted rather than null: single-type schemas are the portable kind.
    if let Some(licence) = &d.licence {
        structured["licence"] = json!(licence);
    }
    if let Some(attribution) = &d.attribution {
        structured["attribution"] = json!(attribution);
    }
    Ok(success(version, structured, vec![text_item(d.markdown())]))
}

fn prepare_enquiry(content: &Content, args: &Args) -> Result<Value, RpcError> {
    let field = |k| args.str(k).map(str::trim).filter(|s| !s.is_empty());
    let topic = field("topic").unwrap_or_default();
    let message = field("message").unwrap_or_default();
    let form_url = content.form_url();
    let mut draft = format!("Topic: {topic}\n\n{message}\n");
    let signature: Vec<&str> = [field("name"), field("organisation")]
        .into_iter()
        .flatten()
        .collect();
    if !signature.is_empty() {
        draft.push_str(&format!("\n{}\n", signature.join(", ")));
    }
    let notice = format!(
        "This is only a draft: nothing has been sent or stored. Only the user may submit an enquiry, \
        by reviewing this text and sending it themselves through the contact form at {form_url}. \
        Do not attempt to submit it on the user's behalf."
    );
    let prefilled_url = crate::contact::prefilled_url(&form_url, "other", &draft);
    Ok(
        json!({"draft": draft, "form_url": form_url, "prefilled_url": prefilled_url, "submitted": false, "notice": notice}),
    )
}

/// Whether `name` is a tool whose result depends only on the loaded
/// content (not on live data), so it may be memoised.
pub fn is_content_only(name: &str) -> bool {
    TOOLS.iter().any(|t| t.name == name && !t.live)
}

/// Whether a call's result depends only on the release served: every
/// memoised method's does, and a tool call's when the tool reads content
/// only.
pub(crate) fn is_pure(method: &str, params: &Map<String, Value>) -> bool {
    match method {
        "tools/call" => params
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(is_content_only),
        _ => true,
    }
}

/// Every tool's input schema, built once (in `TOOLS` order).
fn input_schemas() -> &'static [Value] {
    static SCHEMAS: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    SCHEMAS.get_or_init(|| TOOLS.iter().map(|t| (t.input)()).collect())
}

/// The names of the tools offered, for the instructions.
pub fn names(live: bool) -> Vec<&'static str> {
    TOOLS
        .iter()
        .filter(|t| live || !t.live)
        .map(|t| t.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_content_tools_are_pure() {
        let call = |name: &str| {
            let mut p = Map::new();
            p.insert("name".into(), json!(name));
            p
        };
        assert!(is_pure("tools/list", &Map::new()));
        assert!(is_pure("tools/call", &call("get_service_information")));
        assert!(!is_pure("tools/call", &call("get_platform_statistics")));
        assert!(!is_pure("tools/call", &call("no_such_tool")));
        assert!(!is_pure("tools/call", &Map::new()));
    }
}
