//! The `generate` library: turns `content/` and `templates/` into `dist/`.
//!
//! Pure by design: the same inputs give a byte-identical output tree (no
//! clock, no randomness, no absolute paths in what is written).
#![forbid(unsafe_code)]

pub mod about;
pub mod apiref;
pub mod archive;
pub mod assets;
pub mod check;
pub mod content;
pub mod data_facts;
pub mod data_snapshots;
pub mod discovery;
mod eight;
mod highlight;
pub mod host_config;
pub mod images;
pub mod manifest;
pub mod markdown;
pub mod messages;
pub mod model;
pub mod openapi;
pub mod origin;
pub mod output;
pub mod pipeline;
pub mod render;
pub mod search;
pub mod serve;
pub mod shortcodes;
pub mod twin_cache;
mod walk;

pub use pipeline::{BuildOptions, Summary, build};
