//! The per-request HTTP concerns every answer goes through, whatever
//! serves it: path normalisation, content negotiation, conditional and
//! range requests, CORS, security headers, problem objects, the client
//! address behind trusted proxies, the panic guard, and the answers for
//! files of the loaded release. Nothing here knows a feature (live data,
//! MCP, chat, contact); the features and the router use these.

pub mod body;
pub mod conditional;
pub mod cors;
pub mod encode;
pub mod negotiate;
pub mod panic;
pub mod paths;
pub mod problem;
pub mod proxy;
pub mod range;
pub mod security_headers;
pub mod static_files;
