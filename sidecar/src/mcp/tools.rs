//! The MCP tools. Each reads what the HTTP routes serve (the service
//! information, the documentation twins, the live data through
//! [`LiveTools`]), so an agent and a browser get the same answers. None has
//! a side effect: `prepare_enquiry` only drafts text for a human to send.

use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use serde_json::{Map, Value, json};

use super::Version;
pub use super::catalog::SECTIONS;
use super::catalog::{SEARCH_DEFAULT, TOOLS};
use super::jsonrpc::RpcError;
use super::memo::Memo;
use crate::published::Content;

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

/// The code of an [`RpcError`] that stands for a fault while running a
/// tool (the data cannot be read now). It never reaches the wire: the call
/// answers a result with `isError: true` and the message, which says when
/// to try again (decision 0223).
pub const TOOL_FAULT: i32 = -32000;

/// A fault while running a tool, for the model to read and act on.
pub fn tool_fault(message: impl Into<String>) -> RpcError {
    RpcError::new(TOOL_FAULT, message)
}

/// The live-data tools, answered by the same code as the live HTTP routes.
/// Each returns the tool's JSON object (the arguments already checked
/// against the input schema); a rejected argument is an [`RpcError`] with
/// code -32602, a fault while reading the data a [`tool_fault`].
pub trait LiveTools: Send + Sync {
    /// What `/api/platform-stats.php` returns.
    fn stats(&self) -> LiveFuture<'_>;
    /// A page of `/api/observations-data.php` for these filters (the
    /// route's query parameters as JSON members; `limit` is an integer),
    /// with only the `fields` asked for.
    fn observations(&self, args: Map<String, Value>) -> LiveFuture<'_>;
    /// The globe points: a summary without arguments, else a page of the
    /// sites matching `bbox`, `country` and `region`.
    fn globe(&self, args: Map<String, Value>) -> LiveFuture<'_>;
    /// What `/api/observation-trend` returns for these arguments.
    fn trend(&self, args: Map<String, Value>) -> LiveFuture<'_>;
}

/// `tools/list`: the live tools only when a data layer is present; the
/// documentation tools' `language` takes one of `languages` (the
/// release's, the default first).
pub fn list(version: Version, live: bool, languages: &[&str]) -> Value {
    let tools: Vec<Value> = TOOLS
        .iter()
        .filter(|t| live || !t.live)
        .map(|t| {
            let mut input = (t.input)();
            if let Some(language) = input.pointer_mut("/properties/language") {
                language["enum"] = json!(languages);
            }
            let mut v = json!({"name": t.name, "description": t.description, "inputSchema": input});
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
        (name, Some(live)) => {
            let key = serde_json::to_string(&args.0).unwrap_or_default();
            let body = match name {
                "get_platform_statistics" => live.stats().await,
                "get_observations" => live.observations(args.0).await,
                "get_globe_points" => live.globe(args.0).await,
                "get_observation_trend" => live.trend(args.0).await,
                _ => return Err(unknown()),
            };
            return match body {
                Ok(body) => live_answer(version, name, &key, body, live_memo),
                Err(e) if e.code == TOOL_FAULT => Ok(Answer::Value(failure(e.message))),
                Err(e) => Err(e),
            };
        }
        _ => return Err(unknown()),
    };
    result(version, out).map(Answer::Value)
}

/// A tool's result around `out`: as `structuredContent` and as its compact
/// JSON text, which clients without structured content read (decision
/// 0221).
fn result(version: Version, out: Value) -> Result<Value, RpcError> {
    let text = serde_json::to_string(&out).map_err(|e| RpcError::internal(e.to_string()))?;
    Ok(success(version, out, vec![text_item(text)]))
}

/// A live tool's result, serialised, from its route's answer. The route
/// keeps a page for its `max-age`, so the same call mostly gets the same
/// bytes with the same ETag: the serialised result is then kept under
/// (version, tool, arguments, ETag), and the next call costs the route's
/// cache lookup instead of parsing and writing the data twice.
fn live_answer(
    version: Version,
    name: &str,
    args: &str,
    body: LiveBody,
    memo: &Memo,
) -> Result<Answer, RpcError> {
    let key = body
        .etag
        .as_ref()
        .map(|tag| format!("{}\n{name}\n{args}\n{tag}", version.as_str()));
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
/// unknown members, required members present, types, string lengths,
/// enums and integer bounds. A breach is -32602 whose message names the
/// argument and what it may be, and whose `data` says the same as
/// `{"argument", "allowed"?}` (decision 0223).
struct Args(Map<String, Value>);

/// The -32602 of a bad argument `key`.
pub fn bad_argument(key: &str, why: &str, allowed: Option<Value>) -> RpcError {
    let mut e = RpcError::invalid_params(format!("Argument `{key}` {why}."));
    let mut data = json!({ "argument": key });
    if let Some(allowed) = allowed {
        data["allowed"] = allowed;
    }
    e.data = Some(data);
    e
}

impl Args {
    fn new(args: Map<String, Value>, schema: &Value) -> Result<Args, RpcError> {
        let empty = Map::new();
        let props = schema["properties"].as_object().unwrap_or(&empty);
        let names: Vec<&str> = props.keys().map(String::as_str).collect();
        for (key, value) in &args {
            let Some(rule) = props.get(key) else {
                let takes = if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                };
                return Err(bad_argument(
                    key,
                    &format!("is unknown: this tool takes {takes}"),
                    Some(json!(names)),
                ));
            };
            check(key, value, rule)?;
        }
        for required in schema["required"].as_array().into_iter().flatten() {
            let key = required.as_str().unwrap_or_default();
            if !args.contains_key(key) {
                let allowed = props[key].get("enum").cloned();
                let why = match allowed.as_ref().and_then(Value::as_array) {
                    Some(values) => {
                        let names: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
                        format!("is required: one of {}", names.join(", "))
                    }
                    None => "is required".to_owned(),
                };
                return Err(bad_argument(key, &why, allowed));
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
    let bad = |why: &str| Err(bad_argument(key, why, None));
    let one_of = |allowed: &Vec<Value>| {
        let names: Vec<&str> = allowed.iter().filter_map(Value::as_str).collect();
        Err(bad_argument(
            key,
            &format!("must be one of {}", names.join(", ")),
            Some(Value::from(allowed.clone())),
        ))
    };
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
                return one_of(allowed);
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
        Some("array") => {
            let Some(items) = value.as_array() else {
                return bad("must be an array");
            };
            if rule["minItems"]
                .as_u64()
                .is_some_and(|min| (items.len() as u64) < min)
            {
                return bad("must not be empty");
            }
            for (i, item) in items.iter().enumerate() {
                if let Some(allowed) = rule["items"]["enum"].as_array()
                    && !allowed.iter().any(|a| a == item)
                {
                    return one_of(allowed);
                }
                if rule["uniqueItems"] == true && items[..i].contains(item) {
                    return bad(&format!("names {item} twice"));
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// The whole service information is about 17,000 characters: without a
/// section, the tool answers who the organisation is, its contact and the
/// guardrails in full, and the titles of the other sections (decision 0221).
fn service_information(content: &Content, args: &Args) -> Result<Value, RpcError> {
    let unavailable = || RpcError::internal("The service information is not available.");
    let service = content.service.as_ref().ok_or_else(unavailable)?;
    let service = serde_json::to_value(service).map_err(|_| unavailable())?;
    if let Some(section) = args.str("section") {
        return Ok(json!({ section: service[section].clone() }));
    }
    let titles = |items: &Value, name: &str| -> Value {
        items
            .as_array()
            .map(|a| a.iter().map(|i| i[name].clone()).collect())
            .unwrap_or_default()
    };
    let mut out = json!({
        "sections": {
            "services": titles(&service["services"], "title"),
            "projects": titles(&service["projects"], "title"),
            "evidence": titles(&service["evidence"], "title"),
            "scope": service["scope"]["summary"],
            "consortium": titles(&service["consortium"]["members"], "name"),
        },
        "contact": service["contact"],
        "guardrails": service["guardrails"],
        "more": format!("Pass `section` ({}) for one section in full.", SECTIONS.join(", ")),
    });
    for key in ["name", "description", "url", "updated"] {
        if let Some(v) = service.get(key) {
            out[key] = v.clone();
        }
    }
    Ok(out)
}

/// The `language` of a documentation tool's call: the default language's
/// code without one; a language the release has no pages in is refused
/// as the `enum` of `tools/list` would refuse it.
fn language<'a>(content: &'a Content, args: &'a Args) -> Result<&'a str, RpcError> {
    match args.str("language") {
        None => Ok(content.language.as_str()),
        Some(code) if content.index(Some(code)).is_some() => Ok(code),
        Some(_) => {
            let languages = content.languages();
            Err(bad_argument(
                "language",
                &format!("must be one of {}", languages.join(", ")),
                Some(json!(languages)),
            ))
        }
    }
}

fn search(content: &Content, version: Version, args: &Args) -> Result<Value, RpcError> {
    let query = args.str("query").unwrap_or_default();
    let limit = args.int("limit").unwrap_or(SEARCH_DEFAULT) as usize;
    let language = language(content, args)?;
    let index = content.index(Some(language)).unwrap_or(&content.passages);
    let hits = content.search_in(index, query, limit);
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
    let structured = json!({"query": query, "language": language, "results": results});
    let mut items = vec![text_item(
        serde_json::to_string(&structured).map_err(|e| RpcError::internal(e.to_string()))?,
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
    let Some(mut d) = content.document(reference) else {
        return Ok(failure(format!(
            "No documentation page at {reference:?}. Use search_documentation to find pages, or resources/list to see them all."
        )));
    };
    if args.str("language").is_some() {
        let wanted = language(content, args)?;
        match content
            .version_in(&d.path, wanted)
            .and_then(|p| content.document(p))
        {
            Some(version) => d = version,
            None => {
                let have: Vec<&str> = match content.versions(&d.path) {
                    [] => vec![content.language_of(&d.path)],
                    all => all.iter().map(|(l, _)| l.as_str()).collect(),
                };
                return Ok(failure(format!(
                    "The page {} has no version in {wanted:?}; it is in {}.",
                    d.path,
                    have.join(", ")
                )));
            }
        }
    }
    let translations: Vec<Value> = content
        .versions(&d.path)
        .iter()
        .filter(|(_, p)| *p != d.path)
        .map(|(l, p)| json!({"language": l, "uri": content.page_uri(p)}))
        .collect();
    let mut structured = json!({
        "uri": content.document_uri(d),
        "url": content.document_url(d),
        "title": d.title,
        "language": content.language_of(&d.path),
        "markdown": d.markdown(),
    });
    if !translations.is_empty() {
        structured["translations"] = json!(translations);
    }
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
