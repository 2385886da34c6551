//! The MCP live-data tools, answered by the very handlers of the live HTTP
//! routes: a tool call becomes the GET request the route would get, and the
//! route's JSON body is the tool's result. One source of truth, one set of
//! filters, limits and errors.

use std::sync::Arc;

use contract::Endpoint;
use http::request::Parts;
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Map, Value};

use super::Live;
use crate::Body;
use crate::mcp::jsonrpc::RpcError;
use crate::mcp::tools::{LiveBody, LiveFuture, LiveTools};

/// [`LiveTools`] over the shared [`Live`] state.
pub struct McpLiveTools(pub Arc<Live>);

impl LiveTools for McpLiveTools {
    fn stats(&self) -> LiveFuture<'_> {
        Box::pin(async move {
            let parts = get(Endpoint::PlatformStats.path(), &Map::new())?;
            into_result(super::platform_stats(&self.0, &parts).await).await
        })
    }

    fn observations(&self, args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async move {
            let parts = get(Endpoint::ObservationsData.path(), &args)?;
            into_result(super::observations(&self.0, &parts).await).await
        })
    }

    fn globe(&self) -> LiveFuture<'_> {
        Box::pin(async move {
            let parts = get(Endpoint::GlobeData.path(), &Map::new())?;
            into_result(super::globe(&self.0, &parts).await).await
        })
    }
}

/// The GET request of `path` with `args` as its query. Tools answer JSON
/// only, so `format` is not taken.
fn get(path: &str, args: &Map<String, Value>) -> Result<Parts, RpcError> {
    let mut uri = String::from(path);
    for (i, (name, value)) in args.iter().enumerate() {
        if name == "format" {
            return Err(RpcError::invalid_params(
                "`format` is not an argument of this tool: tool results are JSON",
            ));
        }
        let value = match value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => {
                return Err(RpcError::invalid_params(format!(
                    "`{name}` must be a string or a number"
                )));
            }
        };
        uri.push(if i == 0 { '?' } else { '&' });
        encode(name, &mut uri);
        uri.push('=');
        encode(&value, &mut uri);
    }
    let request = Request::builder()
        .method(Method::GET)
        .uri(uri)
        .header(http::header::ACCEPT, "application/json")
        .body(())
        .map_err(|e| RpcError::invalid_params(format!("unusable arguments: {e}")))?;
    Ok(request.into_parts().0)
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
fn encode(s: &str, out: &mut String) {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// The route's answer as a tool's data: its JSON and ETag on 200, its
/// problem's detail as -32602 on a 400, -32603 otherwise.
async fn into_result(response: http::Response<Body>) -> Result<LiveBody, RpcError> {
    let status = response.status();
    let etag = response
        .headers()
        .get(http::header::ETAG)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let bytes = response
        .into_body()
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    if status == StatusCode::OK {
        return Ok(LiveBody { etag, json: bytes });
    }
    let body: Value = serde_json::from_slice(&bytes)
        .map_err(|_| RpcError::internal("the data route answered something other than JSON"))?;
    match status {
        StatusCode::BAD_REQUEST => Err(RpcError::invalid_params(
            body["detail"].as_str().unwrap_or("invalid arguments"),
        )),
        _ => Err(RpcError::internal(
            body["detail"]
                .as_str()
                .unwrap_or("the data is not available right now"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_become_an_encoded_query() {
        let mut args = Map::new();
        args.insert("parameter".into(), Value::from("nitrate"));
        args.insert("limit".into(), Value::from(5));
        args.insert("bbox".into(), Value::from("4.1,51 ,6&x"));
        let parts = get("/api/observations-data.php", &args).unwrap();
        assert_eq!(
            parts.uri.to_string(),
            "/api/observations-data.php?bbox=4.1%2C51%20%2C6%26x&limit=5&parameter=nitrate"
        );
        args.insert("format".into(), Value::from("csv"));
        assert_eq!(
            get("/x", &args).unwrap_err().code,
            RpcError::invalid_params("").code
        );
    }
}
