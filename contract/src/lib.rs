//! The contract between `generate` and `sidecar`: every fact both programs
//! must agree on, written once. No I/O and no behaviour beyond lookups and
//! one small parser (of an origin), so
//! both crates can depend on it and a disagreement is a compile error
//! rather than a test failure.
//!
//! - [`routes`]: every HTTP route, who serves it, its CORS class, body
//!   types, media types and cache class;
//! - [`problems`]: the stable problem codes with status, title and the
//!   explanation their pages carry;
//! - [`manifest`]: the shape of `dist/manifest.json`, its format version,
//!   cache policies and media types of published files;
//! - [`vocabulary`]: parameters, units, quality flags and water-body types
//!   of the live observation data;
//! - [`observations`]: the query parameters of the observation route and
//!   their bounds (page size, site id, cursor, coordinates);
//! - [`media`]: media-type constants;
//! - [`headers`]: response header values of the files of `dist/`
//!   (security headers, `Link`, preflight), for the sidecar and the
//!   generated front-server configurations;
//! - [`compression`]: when a compressed twin is worth keeping;
//! - [`search`]: the shape of `dist/search-index.json`;
//! - [`mcp`]: the MCP protocol versions the endpoint negotiates;
//! - [`origin`]: what an origin (`scheme://host[:port]`) is and how it is
//!   written, for the flags of both programs;
//! - [`snapshot`]: the files of a citable open-data snapshot, its DataCite
//!   metadata and its citation;
//! - [`contact`]: the languages the contact form speaks.

#![forbid(unsafe_code)]

pub mod compression;
pub mod contact;
pub mod headers;
pub mod manifest;
pub mod mcp;
pub mod media;
pub mod observations;
pub mod origin;
pub mod problems;
pub mod regions;
pub mod routes;
pub mod search;
pub mod service;
pub mod snapshot;
pub mod twin;
pub mod vocabulary;

pub use problems::ProblemCode;
pub use routes::{Endpoint, Route, RouteId, StaticFile};
