//! The MCP live-data tools, answered by the very handlers of the live HTTP
//! routes: a tool call becomes the GET request the route would get, and the
//! route's JSON body is the tool's result. One source of truth, one set of
//! filters, limits and errors.

use std::sync::Arc;

use bytes::Bytes;
use contract::Endpoint;
use http::request::Parts;
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Map, Value};

use super::Live;
use crate::Body;
use crate::mcp::catalog::PAGE_DEFAULT;
use crate::mcp::jsonrpc::RpcError;
use crate::mcp::tools::{LiveBody, LiveFuture, LiveTools, bad_argument, tool_fault};

/// [`LiveTools`] over the shared [`Live`] state.
pub struct McpLiveTools(pub Arc<Live>);

impl LiveTools for McpLiveTools {
    fn stats(&self) -> LiveFuture<'_> {
        Box::pin(async move {
            let parts = get(Endpoint::PlatformStats.path(), &Map::new())?;
            into_result(super::platform_stats(&self.0, &parts).await).await
        })
    }

    fn observations(&self, mut args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async move {
            let fields = args.remove("fields");
            args.entry("limit")
                .or_insert_with(|| Value::from(PAGE_DEFAULT));
            let parts = get(Endpoint::ObservationsData.path(), &args)?;
            let body = into_result(super::observations(&self.0, &parts).await).await?;
            match fields {
                Some(Value::Array(fields)) => select_fields(body, &fields),
                _ => Ok(body),
            }
        })
    }

    fn globe(&self, args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async move {
            let parts = get(Endpoint::GlobeData.path(), &Map::new())?;
            let body = into_result(super::globe(&self.0, &parts).await).await?;
            let doc: Value = serde_json::from_slice(&body.json).map_err(|_| {
                RpcError::internal("the globe route answered something other than JSON")
            })?;
            let out = super::mcp_globe::answer(doc, &args)?;
            Ok(LiveBody {
                etag: body.etag,
                json: Bytes::from(out.to_string()),
            })
        })
    }

    fn trend(&self, args: Map<String, Value>) -> LiveFuture<'_> {
        Box::pin(async move {
            let parts = get(Endpoint::ObservationTrend.path(), &args)?;
            into_result(super::trend::trend(&self.0, &parts).await).await
        })
    }
}

/// An observation page with only `fields` in each row.
fn select_fields(body: LiveBody, fields: &[Value]) -> Result<LiveBody, RpcError> {
    let mut page: Value = serde_json::from_slice(&body.json)
        .map_err(|_| RpcError::internal("the data route answered something other than JSON"))?;
    let keep: Vec<&str> = fields.iter().filter_map(Value::as_str).collect();
    if let Some(rows) = page["data"].as_array_mut() {
        for row in rows {
            if let Some(row) = row.as_object_mut() {
                row.retain(|k, _| keep.contains(&k.as_str()));
            }
        }
    }
    page["fields"] = Value::from(fields.to_vec());
    Ok(LiveBody {
        etag: body.etag,
        json: Bytes::from(page.to_string()),
    })
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

/// The route's answer as a tool's data: its JSON and ETag on 200; on a
/// 400, -32602 naming the argument the route named; on a 503, a
/// [`tool_fault`] saying when to try again; -32603 otherwise.
async fn into_result(response: http::Response<Body>) -> Result<LiveBody, RpcError> {
    let status = response.status();
    let header = |name| {
        response
            .headers()
            .get(name)
            .and_then(|v: &http::HeaderValue| v.to_str().ok())
            .map(str::to_owned)
    };
    let etag = header(http::header::ETAG);
    let retry_after = header(http::header::RETRY_AFTER);
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
    let detail = body["detail"].as_str();
    match status {
        StatusCode::BAD_REQUEST => {
            let error = &body["errors"][0];
            match (error["name"].as_str(), error["reason"].as_str()) {
                (Some(name), Some(reason)) => Err(bad_argument(name, reason, None)),
                _ => Err(RpcError::invalid_params(
                    detail.unwrap_or("invalid arguments"),
                )),
            }
        }
        StatusCode::SERVICE_UNAVAILABLE => Err(tool_fault(format!(
            "{} Retry after {} seconds.",
            detail.unwrap_or("The live data cannot be read right now."),
            retry_after.as_deref().unwrap_or("30")
        ))),
        _ => Err(RpcError::internal(
            detail.unwrap_or("the data is not available right now"),
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
