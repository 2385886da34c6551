//! The per-request HTTP concerns every answer goes through, whatever
//! serves it: the request log and id, path normalisation, content negotiation, conditional and
//! range requests, CORS, security headers, problem objects, request bodies,
//! JSON answers, the client address behind trusted proxies and the rate
//! limits counted per client, the panic guard, the answers for files of
//! the loaded release, and the one shape of a feature's handler
//! ([`handler`]). Nothing here knows a feature (live data, MCP, chat,
//! contact); the features and the router use these.

pub mod access_log;
pub mod body;
pub mod conditional;
pub mod cors;
pub mod encode;
pub mod handler;
pub mod json;
pub mod negotiate;
pub mod panic;
pub mod paths;
pub mod problem;
pub mod proxy;
pub mod range;
pub mod ratelimit;
pub mod security_headers;
pub mod static_files;
