//! The sidecar: one process that serves the built site (`dist/`) and the
//! routes that need code, applying the cross-cutting rules of the
//! architecture (problem objects, CORS, caching, limits) to every response.
//!
//! Layout: [`config`] turns flags into a [`config::Config`];
//! [`server`] owns sockets and shutdown; [`router::handle`] is the whole
//! request handler, a plain async function that tests call without sockets;
//! the other modules are one concern each.

#![forbid(unsafe_code)]

pub mod conditional;
pub mod config;
pub mod contact;
pub mod cors;
pub mod health;
pub mod live;
pub mod logging;
pub mod manifest;
pub mod mcp;
pub mod metrics;
pub mod negotiate;
pub mod paths;
pub mod problem;
pub mod proxy;
pub mod range;
pub mod router;
pub mod routes;
pub mod security_headers;
pub mod server;
pub mod state;
pub mod static_files;
pub mod store;

/// The response body type: every answer is a complete buffer (files are in
/// memory, JSON is small).
pub type Body = http_body_util::Full<bytes::Bytes>;

pub use config::Config;
pub use router::handle;
pub use state::AppState;
