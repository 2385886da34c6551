//! JSON-RPC 2.0 framing for MCP: one object per request, checked strictly
//! (batches, wrong versions and odd ids are refused) because a lenient
//! parser here would let clients depend on behaviour the protocol forbids.

use serde::Serialize;
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

/// A request that expects an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// A string or an integer, echoed as received.
    pub id: Value,
    pub method: String,
    /// The `params` object; an absent or null `params` is an empty one.
    pub params: Map<String, Value>,
}

/// What one POSTed object is.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Call(Call),
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
pub fn parse(body: &[u8]) -> Result<Message, Rejected> {
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
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(params)) => params,
        Some(_) => {
            return Err(Rejected::invalid(
                Value::Null,
                "`params` must be an object.",
            ));
        }
    };
    match id {
        None => Ok(Message::NoReply),
        Some(id) => Ok(Message::Call(Call { id, method, params })),
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
            Message::Call(Call {
                id: json!("a"),
                method: "ping".into(),
                params: Map::new()
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
}
