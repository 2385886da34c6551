//! JSON-RPC 2.0 framing for MCP: one object per request, checked strictly
//! (batches, wrong versions and odd ids are refused) because a lenient
//! parser here would let clients depend on behaviour the protocol forbids.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

pub const PARSE_ERROR: i32 = -32700;
pub const INVALID_REQUEST: i32 = -32600;
pub const METHOD_NOT_FOUND: i32 = -32601;
pub const INVALID_PARAMS: i32 = -32602;
pub const INTERNAL_ERROR: i32 = -32603;
/// MCP's code for a resource that does not exist.
pub const RESOURCE_NOT_FOUND: i32 = -32002;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RpcError {
    pub code: i32,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i32, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(INVALID_PARAMS, message)
    }

    pub fn internal(message: impl Into<String>) -> RpcError {
        RpcError::new(INTERNAL_ERROR, message)
    }
}

/// A request that expects an answer, ready for dispatch.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// A string or an integer, echoed as received.
    pub id: Value,
    pub method: String,
    /// The `params` object; an absent or null `params` is an empty one.
    pub params: Map<String, Value>,
}

/// A request that expects an answer, as read from the body: its `params`
/// may still be text, so that a memoised answer needs no parsing of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Request<'a> {
    pub id: Value,
    pub method: Cow<'a, str>,
    pub params: Params<'a>,
}

/// A request's `params` object.
#[derive(Debug, Clone, PartialEq)]
pub enum Params<'a> {
    /// Absent or null: an empty object.
    Empty,
    /// The object's text, exactly as sent (valid JSON, starting with `{`).
    Text(&'a str),
    /// Already parsed.
    Parsed(Map<String, Value>),
}

impl Params<'_> {
    /// Text that stands for these params: equal text, equal params. Text
    /// as sent is used as it is; a parsed object is written out (in key
    /// order, so equal objects give equal text).
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Params::Empty => Cow::Borrowed("{}"),
            Params::Text(text) => Cow::Borrowed(text),
            Params::Parsed(map) => Cow::Owned(serde_json::to_string(map).unwrap_or_default()),
        }
    }
}

impl Request<'_> {
    /// The call, its params parsed.
    pub fn into_call(self) -> Call {
        let params = match self.params {
            Params::Empty => Map::new(),
            // Text is a JSON object (checked when read), so this parse
            // cannot fail; an empty object stands in if it ever did.
            Params::Text(text) => serde_json::from_str(text).unwrap_or_default(),
            Params::Parsed(map) => map,
        };
        Call {
            id: self.id,
            method: self.method.into_owned(),
            params,
        }
    }
}

/// What one POSTed object is.
#[derive(Debug, Clone, PartialEq)]
pub enum Message<'a> {
    Call(Request<'a>),
    /// A notification, or the client's answer to a server request: neither
    /// gets a response body.
    NoReply,
}

/// A message the transport refuses before dispatch, with the id to answer
/// with (always null).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    pub id: Value,
    pub error: RpcError,
}

impl Rejected {
    fn invalid(id: Value, message: &str) -> Rejected {
        Rejected {
            id,
            error: RpcError::new(INVALID_REQUEST, message),
        }
    }
}

/// Parses one request body.
pub fn parse(body: &[u8]) -> Result<Message<'_>, Rejected> {
    match envelope(body) {
        Some(message) => Ok(message),
        None => parse_tree(body),
    }
}

/// The members of a request object that framing reads, borrowed from the
/// body. `Some` marks a member that is present, even when it is null.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(borrow, default)]
    jsonrpc: Option<&'a str>,
    #[serde(borrow, default)]
    method: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The common case, read without building a tree: an object whose members
/// have the right types, with no escapes in `jsonrpc` or `method` and no
/// member twice. `None` for anything else, which [`parse_tree`] then
/// answers (with the same result for any body both accept).
fn envelope(body: &[u8]) -> Option<Message<'_>> {
    // A struct also deserializes from an array: only objects come here.
    if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let envelope: Envelope = serde_json::from_slice(body).ok()?;
    if envelope.id.as_ref().is_some_and(|id| !is_valid_id(id)) || envelope.jsonrpc != Some("2.0") {
        return None;
    }
    if envelope.result.is_some() || envelope.error.is_some() {
        return Some(Message::NoReply);
    }
    let method = envelope.method?;
    let params = match envelope.params.map(RawValue::get) {
        None | Some("null") => Params::Empty,
        Some(text) if text.starts_with('{') => Params::Text(text),
        Some(_) => return None,
    };
    Some(match envelope.id {
        None => Message::NoReply,
        Some(id) => Message::Call(Request {
            id,
            method: Cow::Borrowed(method),
            params,
        }),
    })
}

/// Parses one request body into a tree and checks it member by member:
/// every body, with the precise error for each fault.
fn parse_tree(body: &[u8]) -> Result<Message<'_>, Rejected> {
    let value: Value = serde_json::from_slice(body).map_err(|e| Rejected {
        id: Value::Null,
        error: RpcError::new(PARSE_ERROR, format!("Parse error: {e}")),
    })?;
    let mut object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(Rejected::invalid(
                Value::Null,
                "Batches are not supported: send one JSON-RPC object per request.",
            ));
        }
        _ => {
            return Err(Rejected::invalid(
                Value::Null,
                "The body must be a JSON-RPC 2.0 object.",
            ));
        }
    };
    // Transport faults answer with a null id, as the contract says, even
    // when the id could be read: the client learns of them from the status.
    let id = match object.remove("id") {
        None => None,
        Some(id) if is_valid_id(&id) => Some(id),
        Some(_) => {
            return Err(Rejected::invalid(
                Value::Null,
                "`id` must be a string or an integer.",
            ));
        }
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(Rejected::invalid(Value::Null, "`jsonrpc` must be \"2.0\"."));
    }
    if object.contains_key("result") || object.contains_key("error") {
        return Ok(Message::NoReply);
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        _ => return Err(Rejected::invalid(Value::Null, "`method` must be a string.")),
    };
    let params = match object.remove("params") {
        None | Some(Value::Null) => Params::Empty,
        Some(Value::Object(params)) => Params::Parsed(params),
        Some(_) => {
            return Err(Rejected::invalid(
                Value::Null,
                "`params` must be an object.",
            ));
        }
    };
    match id {
        None => Ok(Message::NoReply),
        Some(id) => Ok(Message::Call(Request {
            id,
            method: Cow::Owned(method),
            params,
        })),
    }
}

fn is_valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

/// The response object for a call.
pub fn response(id: &Value, outcome: Result<Value, RpcError>) -> Value {
    match outcome {
        Ok(result) => serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(body: &str) -> i32 {
        parse(body.as_bytes()).unwrap_err().error.code
    }

    #[test]
    fn framing_rules() {
        assert_eq!(code("{"), PARSE_ERROR);
        assert_eq!(code("[]"), INVALID_REQUEST);
        assert_eq!(code("7"), INVALID_REQUEST);
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#),
            INVALID_REQUEST
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1}"#), INVALID_REQUEST);
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#),
            INVALID_REQUEST
        );
        let ok = parse(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).unwrap();
        assert_eq!(
            ok,
            Message::Call(Request {
                id: json!("a"),
                method: "ping".into(),
                params: Params::Empty
            })
        );
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap(),
            Message::NoReply
        );
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":4,"result":{}}"#).unwrap(),
            Message::NoReply
        );
        let rejected = parse(br#"{"jsonrpc":"2.1","id":9,"method":"ping"}"#).unwrap_err();
        assert_eq!(rejected.id, Value::Null);
    }

    /// What a parse means, whichever way it was read.
    fn meaning(parsed: Result<Message, Rejected>) -> Value {
        match parsed {
            Ok(Message::NoReply) => json!("no reply"),
            Ok(Message::Call(request)) => {
                let call = request.into_call();
                json!({"id": call.id, "method": call.method, "params": call.params})
            }
            Err(rejected) => json!({"id": rejected.id, "error": rejected.error}),
        }
    }

    #[test]
    fn the_envelope_reads_what_the_tree_reads() {
        let ids = [
            "",
            "1",
            r#""a""#,
            "null",
            "1.5",
            "true",
            "-3",
            r#""\u00e9\"""#,
        ];
        let versions = ["", r#""2.0""#, r#""1.0""#, "2", r#""2\u002e0""#];
        let methods = ["", r#""ping""#, "5", r#""tools/list""#, r#""a\nb""#];
        let params = [
            "",
            "null",
            "{}",
            r#"{"name":"x","arguments":{"n":[1,2.5]}}"#,
            "[1]",
            "3",
        ];
        let answers = ["", r#""result":null"#, r#""error":{}"#];
        let mut bodies = 0;
        let mut read_fast = 0;
        for id in ids {
            for version in versions {
                for method in methods {
                    for param in params {
                        for answer in answers {
                            let mut members: Vec<String> = [
                                ("id", id),
                                ("jsonrpc", version),
                                ("method", method),
                                ("params", param),
                            ]
                            .iter()
                            .filter(|(_, v)| !v.is_empty())
                            .map(|(k, v)| format!(r#""{k}":{v}"#))
                            .collect();
                            if !answer.is_empty() {
                                members.push(answer.to_string());
                            }
                            for body in [
                                format!("{{{}}}", members.join(",")),
                                format!(
                                    " \n{{ {} }}\t",
                                    members
                                        .iter()
                                        .rev()
                                        .cloned()
                                        .collect::<Vec<_>>()
                                        .join(" , ")
                                ),
                                // A member twice: the tree keeps the last.
                                format!(r#"{{{},"id":7}}"#, members.join(",")).replace("{,", "{"),
                            ] {
                                bodies += 1;
                                read_fast += usize::from(envelope(body.as_bytes()).is_some());
                                assert_eq!(
                                    meaning(parse(body.as_bytes())),
                                    meaning(parse_tree(body.as_bytes())),
                                    "{body}"
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(
            read_fast > 400,
            "{read_fast} of {bodies} read without a tree"
        );
        // What clients send is read without a tree.
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":"x-1","method":"tools/call","params":{"name":"a","arguments":{}}}"#,
            r#"{"method":"notifications/initialized","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":0,"result":{}}"#,
        ] {
            assert!(envelope(body.as_bytes()).is_some(), "{body}");
        }
        for body in [
            "[]",
            "[1]",
            r#"["2.0",1,"ping"]"#,
            "7",
            "",
            "{",
            r#"{"id":1}x"#,
        ] {
            assert!(envelope(body.as_bytes()).is_none(), "{body}");
        }
    }
}
