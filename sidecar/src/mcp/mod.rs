//! The MCP endpoint (`POST /mcp/` and `/mcp`): stateless Streamable HTTP,
//! one JSON-RPC object per request, one JSON object per answer.
//!
//! The router has already checked the method; [`Mcp`]'s handler reads the
//! body (its size and content type checked as for every route, the faults
//! answered as JSON-RPC errors), then [`answer`] parses the message,
//! negotiates the protocol version, dispatches and shapes the answer for
//! that version, which names the release it was made from. Status codes follow
//! what real clients need: transport faults (bad JSON, a batch, a malformed
//! message, an unsupported version header) are 4xx with a JSON-RPC error;
//! errors on a well-formed request are HTTP 200, because some clients drop
//! the body of any non-2xx answer. No session id is ever issued.

pub mod catalog;
pub mod jsonrpc;
mod memo;
pub mod prompts;
pub mod resources;
pub mod tools;

use contract::mcp::PROTOCOL_VERSIONS;
use std::sync::Arc;

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{HeaderMap, Response, StatusCode};
use serde_json::{Map, Value, json};

use crate::Body;
use crate::http::handler::{self, Handler};
use crate::http::json;
use crate::http::panic::CatchPanic;
use crate::http::problem::{self, Code};
use crate::published::{Content, Published};
use jsonrpc::{Call, Message, Params, RpcError};
use tools::Answer;
pub use tools::{LiveBody, LiveFuture, LiveTools};

/// The request header naming the negotiated protocol version.
pub const VERSION_HEADER: &str = "mcp-protocol-version";

/// The protocol versions served, oldest first: the contract's, as an enum
/// so features can be gated by comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    V2024_11_05,
    V2025_03_26,
    V2025_06_18,
}

// One variant per version of the contract, in its order.
const _: () = assert!(Version::ALL.len() == PROTOCOL_VERSIONS.len());

impl Version {
    pub const ALL: [Version; 3] = [
        Version::V2024_11_05,
        Version::V2025_03_26,
        Version::V2025_06_18,
    ];
    pub const LATEST: Version = Version::V2025_06_18;
    /// Assumed when a request other than `initialize` names none.
    pub const DEFAULT: Version = Version::V2025_03_26;

    pub fn as_str(self) -> &'static str {
        PROTOCOL_VERSIONS[self as usize]
    }

    pub fn parse(s: &str) -> Option<Version> {
        Version::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// The MCP side of the shared state; what it serves is the release's.
#[derive(Default)]
pub struct Mcp {
    live: Option<Arc<dyn LiveTools>>,
    memo: memo::Memo,
    /// Live tools' serialised results, by their data's ETag.
    live_memo: memo::Memo,
}

impl std::fmt::Debug for Mcp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mcp")
            .field("live", &self.live.is_some())
            .finish()
    }
}

impl Mcp {
    /// Offers the live-data tools, answered by `live`.
    pub fn set_live_tools(&mut self, live: Arc<dyn LiveTools>) {
        self.live = Some(live);
        // The answers that name the tools change with them.
        self.memo = memo::Memo::default();
    }
}

impl Handler for Mcp {
    /// Answers from the release the request holds, and names it.
    async fn handle(&self, mut call: handler::Call<'_>) -> handler::Answer {
        let body = match call.body().await {
            Ok(body) => body,
            // MCP clients read JSON-RPC errors, not problem objects, for
            // transport faults in the body.
            Err(problem)
                if matches!(problem.code, Code::UnsupportedMediaType | Code::BadRequest) =>
            {
                let mut response = problem::jsonrpc_error(
                    problem::status(problem.code),
                    jsonrpc::INVALID_REQUEST,
                    &problem.detail,
                );
                if problem.close {
                    crate::http::body::close(&mut response);
                }
                return Ok(response);
            }
            Err(problem) => return Err(problem),
        };
        let mut response = answer(self, call.release, &call.parts.headers, &body).await;
        handler::name_release(&mut response, call.release);
        Ok(response)
    }
}

/// Answers one POSTed body (already read and of type `application/json`)
/// from the release `published`.
pub async fn answer(
    mcp: &Mcp,
    published: &Published,
    headers: &HeaderMap,
    body: &[u8],
) -> Response<Body> {
    let content = &published.content;
    let message = match jsonrpc::parse(body) {
        Ok(message) => message,
        Err(rejected) => {
            let status = StatusCode::BAD_REQUEST;
            return json_response(
                status,
                &jsonrpc::response(&rejected.id, Err(rejected.error)),
                None,
            );
        }
    };
    // `initialize` negotiates from its body; every other message is read
    // with the version its header names.
    let initialize = matches!(&message, Message::Call(r) if r.method == "initialize");
    let header_version = match header_version(headers) {
        _ if initialize => None,
        Some(version) => Some(version),
        None => {
            let error = RpcError::new(
                jsonrpc::INVALID_REQUEST,
                format!(
                    "Unsupported MCP-Protocol-Version; supported: {}.",
                    supported_list()
                ),
            );
            return json_response(
                StatusCode::BAD_REQUEST,
                &jsonrpc::response(&Value::Null, Err(error)),
                None,
            );
        }
    };
    let request = match message {
        Message::Call(request) => request,
        Message::NoReply => return accepted(),
    };
    let version = header_version.unwrap_or_else(|| requested_version(&request));
    let key = memo::Memo::key(
        &published.release,
        version,
        &request.method,
        &request.params.text(),
    );
    if let Some(result) = key.as_deref().and_then(|k| mcp.memo.get(k)) {
        return json_bytes(memo::splice(&request.id, &result), Some(version));
    }
    let call = request.into_call();
    let key = key.filter(|_| tools::is_pure(&call.method, &call.params));
    let outcome = match CatchPanic(Box::pin(dispatch(mcp, content, version, &call))).await {
        Ok(outcome) => outcome,
        Err(_) => {
            tracing::error!(method = call.method.as_str(), "an MCP handler panicked");
            Err(RpcError::internal("Internal error"))
        }
    };
    // A result made from the release's content names it; live tools'
    // results come from the database, and the header names the release.
    // `ping` answers an empty result, as the protocol asks.
    let outcome = outcome.map(|answer| match answer {
        Answer::Value(mut result) if call.method != "ping" => {
            name_release(&mut result, &published.release);
            Answer::Value(result)
        }
        serialized => serialized,
    });
    match (key, outcome) {
        (_, Ok(Answer::Serialized(bytes))) => {
            json_bytes(memo::splice(&call.id, &bytes), Some(version))
        }
        (Some(key), Ok(Answer::Value(result))) => match serde_json::to_vec(&result) {
            Ok(bytes) => {
                let bytes = Bytes::from(bytes);
                let body = memo::splice(&call.id, &bytes);
                mcp.memo.put(key, bytes);
                json_bytes(body, Some(version))
            }
            Err(e) => json_response(
                StatusCode::OK,
                &jsonrpc::response(&call.id, Err(RpcError::internal(e.to_string()))),
                Some(version),
            ),
        },
        (_, Ok(Answer::Value(result))) => json_response(
            StatusCode::OK,
            &jsonrpc::response(&call.id, Ok(result)),
            Some(version),
        ),
        (_, Err(error)) => json_response(
            StatusCode::OK,
            &jsonrpc::response(&call.id, Err(error)),
            Some(version),
        ),
    }
}

/// Adds the release to a result's `_meta` (which every result may carry).
fn name_release(result: &mut Value, release: &str) {
    if let Value::Object(result) = result {
        let meta = result
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert("release".into(), Value::String(release.to_owned()));
        }
    }
}

/// The version a request's header names: the default when there is none,
/// `None` when it names one we do not serve.
fn header_version(headers: &HeaderMap) -> Option<Version> {
    match headers.get(VERSION_HEADER) {
        None => Some(Version::DEFAULT),
        Some(value) => value.to_str().ok().and_then(Version::parse),
    }
}

fn supported_list() -> String {
    Version::ALL.map(Version::as_str).join(", ")
}

/// The version `initialize` settles on: the client's when we serve it,
/// otherwise our latest (the client then decides whether to go on).
fn requested_version(request: &jsonrpc::Request) -> Version {
    let version = |params: &Map<String, Value>| {
        params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .and_then(Version::parse)
    };
    let requested = match &request.params {
        Params::Empty => None,
        // `initialize` comes once per client: no need for a faster read.
        Params::Text(text) => serde_json::from_str(text).ok().and_then(|p| version(&p)),
        Params::Parsed(params) => version(params),
    };
    requested.unwrap_or(Version::LATEST)
}

async fn dispatch(
    mcp: &Mcp,
    content: &Content,
    version: Version,
    call: &Call,
) -> Result<Answer, RpcError> {
    if call.method == "tools/call" {
        let live = mcp.live.as_deref();
        return tools::call(content, live, version, &call.params, &mcp.live_memo).await;
    }
    method(mcp, content, version, call).map(Answer::Value)
}

/// Every method but `tools/call`.
fn method(mcp: &Mcp, content: &Content, version: Version, call: &Call) -> Result<Value, RpcError> {
    let params = &call.params;
    match call.method.as_str() {
        "initialize" => check_initialize(params).map(|()| initialize(mcp, content, version)),
        "ping" => Ok(json!({})),
        "tools/list" => single_page(params)
            .map(|()| tools::list(version, mcp.live.is_some(), &content.languages())),
        "resources/list" => resources::list(content, version, params),
        "resources/templates/list" => {
            single_page(params).map(|()| resources::templates(content, version))
        }
        "resources/read" => resources::read(content, params),
        "prompts/list" => single_page(params).map(|()| prompts::list(version)),
        "prompts/get" => prompts::get(content, params),
        other => Err(RpcError::new(
            jsonrpc::METHOD_NOT_FOUND,
            format!("Method not found: {other}"),
        )),
    }
}

/// `initialize` must say which protocol version the client speaks and who
/// it is (the specification requires both); a client that does not is
/// refused rather than guessed at.
fn check_initialize(params: &Map<String, Value>) -> Result<(), RpcError> {
    if !params.get("protocolVersion").is_some_and(Value::is_string) {
        return Err(RpcError::invalid_params(
            "initialize needs `protocolVersion`, a string such as \"2025-06-18\".",
        ));
    }
    let info = params.get("clientInfo").and_then(Value::as_object);
    let named = |key| info.and_then(|i| i.get(key)).is_some_and(Value::is_string);
    if !(named("name") && named("version")) {
        return Err(RpcError::invalid_params(
            "initialize needs `clientInfo` with a string `name` and `version`.",
        ));
    }
    if params.get("capabilities").is_some_and(|c| !c.is_object()) {
        return Err(RpcError::invalid_params(
            "`capabilities` must be an object.",
        ));
    }
    Ok(())
}

/// Lists that fit one page take no cursor: any cursor is one we never gave.
fn single_page(params: &Map<String, Value>) -> Result<(), RpcError> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(RpcError::invalid_params("Invalid cursor.")),
    }
}

fn initialize(mcp: &Mcp, content: &Content, version: Version) -> Value {
    let name = content
        .service
        .as_ref()
        .map_or("Public information service", |s| s.name.as_str());
    // The same identity as the published server card.
    let card = &content.server_card;
    let mut server_info = json!({
        "name": card["name"].as_str().unwrap_or("public-information"),
        "version": card["version"].as_str().unwrap_or(env!("CARGO_PKG_VERSION")),
    });
    if version >= Version::V2025_06_18 {
        server_info["title"] = json!(card["title"].as_str().unwrap_or(name));
    }
    json!({
        "protocolVersion": version.as_str(),
        "capabilities": {
            "tools": {"listChanged": false},
            "resources": {"listChanged": false, "subscribe": false},
            "prompts": {"listChanged": false},
        },
        "serverInfo": server_info,
        "instructions": instructions(mcp, content, name),
    })
}

/// What an agent should know before its first call.
fn instructions(mcp: &Mcp, content: &Content, name: &str) -> String {
    let service = content.service.as_ref();
    let description = service.map_or("", |s| s.description.as_str());
    let summary = service.map_or(
        "Every tool here is read-only; only the user may submit an enquiry.",
        |s| s.guardrails.summary.as_str(),
    );
    let must_not: Vec<&str> = service
        .into_iter()
        .flat_map(|s| &s.guardrails.agents_must_not)
        .map(|s| s.trim_end_matches('.'))
        .collect();
    let must_not = if must_not.is_empty() {
        String::new()
    } else {
        format!(" Agents must not: {}.", must_not.join("; "))
    };
    format!(
        "{name} ({base}). {description}\n\n\
        Tools: {tools}. Start with get_service_information; use search_documentation and \
        get_document for detail, and cite the URLs they return. Documents are also resources \
        (Markdown, with licence and attribution in _meta).\n\n\
        Guardrails: {summary}{must_not} Every tool is read-only and has no side effects. \
        prepare_enquiry only drafts text: show it to the user, who alone may submit it through \
        the contact form.",
        base = content.base_url,
        tools = tools::names(mcp.live.is_some()).join(", "),
    )
}

fn json_response(status: StatusCode, value: &Value, version: Option<Version>) -> Response<Body> {
    with_version(json::json_response(status, value), version)
}

/// A 200 `application/json` answer of already serialised bytes.
fn json_bytes(body: Vec<u8>, version: Option<Version>) -> Response<Body> {
    with_version(json::json_bytes(StatusCode::OK, Bytes::from(body)), version)
}

/// Names the protocol version the answer speaks, when one was settled.
fn with_version(mut response: Response<Body>, version: Option<Version>) -> Response<Body> {
    if let Some(version) = version {
        response
            .headers_mut()
            .insert(VERSION_HEADER, HeaderValue::from_static(version.as_str()));
    }
    response
}

/// 202 for a notification or a client's response: nothing to say.
fn accepted() -> Response<Body> {
    let mut response = Response::new(Body::new(Bytes::new()));
    *response.status_mut() = StatusCode::ACCEPTED;
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
