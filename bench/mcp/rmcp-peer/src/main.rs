//! The rmcp peer of `scripts/bench-mcp`: rmcp's Streamable HTTP server in
//! stateless mode (`legacy_session_mode: false`) with JSON answers
//! (`json_response: true`), served by hyper 1 through hyper-util on a tokio
//! multi-thread runtime (one worker per core, like the sidecar).
//!
//! It offers the sidecar's tools with the sidecar's own definitions (names,
//! titles, descriptions, input and output schemas, annotations: the
//! `tools/list` answer the bench script captured from the sidecar).
//! `get_service_information` does what the sidecar does: it picks the
//! requested section of `dist/api/service.json` (loaded once at start) and
//! returns it as `structuredContent` and as pretty-printed JSON text. The
//! other tools answer the canned result the script captured from the
//! sidecar for one call of each; they are listed, not measured.
//!
//!     rmcp-peer PORT TOOLS_JSON SERVICE_JSON CANNED_JSON

use std::sync::Arc;

use hyper_util::rt::TokioIo;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};

struct Data {
    tools: Vec<Tool>,
    service: Value,
    canned: Map<String, Value>,
}

#[derive(Clone)]
struct Peer(Arc<Data>);

impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rmcp-peer", "0.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut result = ListToolsResult::default();
        result.tools = self.0.tools.clone();
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.0.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let data = &self.0;
        let args = request.arguments.unwrap_or_default();
        let structured = match request.name.as_ref() {
            "get_service_information" => {
                for key in args.keys() {
                    if key != "section" {
                        return Err(ErrorData::invalid_params(
                            format!("Unknown argument `{key}`."),
                            None,
                        ));
                    }
                }
                match args.get("section") {
                    None => data.service.clone(),
                    Some(Value::String(section)) if data.service.get(section).is_some() => {
                        json!({ section.as_str(): data.service[section.as_str()].clone() })
                    }
                    Some(_) => {
                        return Err(ErrorData::invalid_params(
                            "Argument `section` must be one of the sections.",
                            None,
                        ));
                    }
                }
            }
            name => match data.canned.get(name) {
                Some(value) => value.clone(),
                None => {
                    return Err(ErrorData::invalid_params(
                        format!("Unknown tool: {name}"),
                        None,
                    ));
                }
            },
        };
        let text = serde_json::to_string_pretty(&structured)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(structured);
        Ok(result.into())
    }
}

fn read_json(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, port, tools, service, canned] = args.as_slice() else {
        eprintln!("usage: rmcp-peer PORT TOOLS_JSON SERVICE_JSON CANNED_JSON");
        std::process::exit(2);
    };
    let tools: Vec<Tool> =
        serde_json::from_value(read_json(tools)).expect("the tools file is a list of tools");
    let data = Arc::new(Data {
        tools,
        service: read_json(service),
        canned: match read_json(canned) {
            Value::Object(map) => map,
            _ => panic!("the canned file is an object"),
        },
    });
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_sse_retry(None);
    let service = StreamableHttpService::new(
        move || Ok(Peer(data.clone())),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port.parse::<u16>().expect("PORT")))
        .await
        .expect("bind");
    eprintln!("rmcp-peer listening on http://127.0.0.1:{port}/mcp");
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        tokio::spawn(async move {
            let hyper_service =
                hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let mut service = service.clone();
                    async move { tower_service::Service::call(&mut service, req).await }
                });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), hyper_service)
                .await;
        });
    }
}
