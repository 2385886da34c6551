//! The `generate` library: turns `content/` and `templates/` into `dist/`.
#![forbid(unsafe_code)]

pub mod discovery;
pub mod manifest;
pub mod model;
pub mod openapi;
pub mod problems;
