//! The sidecar: one process that serves the built site (`dist/`) and the
//! routes that need code, applying the cross-cutting rules of the
//! architecture (problem objects, CORS, caching, limits) to every response.
//!
//! One folder per part: [`published`] (the release being served, loaded
//! once from `dist/` and swapped whole for the next), [`http`] (the
//! per-request rules every answer goes through), [`live`] (live data routes),
//! [`mcp`] (the MCP endpoint), [`contact`] (the enquiry form and its
//! outbox), [`chat`] (questions answered from the published passages),
//! [`search`] (the one ranking of those passages, for chat and MCP) and
//! [`store`] (SQLite and PostgreSQL); [`export`] writes the citable
//! open-data snapshot from the store. Each feature (and [`health`]) answers
//! its routes through one handler shape, [`http::handler::Handler`].
//! [`router::handle`] composes them into the request handler, a plain async
//! function of state and request that tests call without sockets; nothing
//! below it imports the router. [`config`] turns flags into a [`config::Config`], [`state`]
//! owns what every request shares, [`server`] owns sockets and shutdown, [`admin`] the operator's listener,
//! [`timer`] its connections' header-read timer. The route table itself is
//! the `contract` crate's.

#![forbid(unsafe_code)]

pub mod admin;
pub mod chat;
pub mod compress;
pub mod config;
pub mod contact;
pub mod export;
pub mod health;
pub mod healthcheck;
pub mod http;
pub mod live;
pub mod logging;
pub mod mcp;
pub mod metrics;
pub mod published;
pub mod router;
pub mod search;
pub mod server;
pub mod startup;
pub mod state;
pub mod store;
pub mod timer;

/// The response body type: every answer is a complete buffer (files are in
/// memory, JSON is small).
pub type Body = http_body_util::Full<bytes::Bytes>;

pub use config::Config;
pub use router::handle;
pub use state::AppState;
