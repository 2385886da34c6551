//! The MCP protocol revisions the endpoint negotiates.

/// Protocol revisions, oldest first; the last is offered when a client asks
/// for one we do not know.
pub const PROTOCOL_VERSIONS: [&str; 3] = ["2024-11-05", "2025-03-26", "2025-06-18"];

/// The newest revision we speak.
pub const LATEST_PROTOCOL_VERSION: &str = PROTOCOL_VERSIONS[PROTOCOL_VERSIONS.len() - 1];
