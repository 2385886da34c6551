//! Who a question is from: a developer's question names the API, HTTP,
//! JSON, MCP and their like, and only such a question is answered from the
//! pages for developers while a page for everyone could answer it.

use super::Index;

/// Words that make a question a developer's, whatever the site says.
const DEVELOPERS_WORDS: &[&str] = &[
    "api",
    "apis",
    "endpoint",
    "endpoints",
    "json",
    "jsonld",
    "geojson",
    "http",
    "https",
    "mcp",
    "openapi",
    "oas",
    "parameter",
    "parameters",
    "param",
    "params",
    "curl",
    "sdk",
    "cors",
    "etag",
    "etags",
    "jsonrpc",
    "rpc",
    "programmatically",
    "developer",
    "developers",
    "webhook",
    "webhooks",
    "pagination",
    "paginate",
    "ogc",
    "wfs",
    "markdown",
    "llms",
];

impl Index {
    /// Whether `text` is in developers' words: it names the API, HTTP,
    /// JSON, MCP and their like, or writes a path or an identifier
    /// (`/api/…`, `site_id`). (A word only the pages for developers use
    /// is no sign: on the sample pages "forbidden" is one.)
    pub fn in_developers_words(text: &str) -> bool {
        let coded = text.split_whitespace().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '/' && c != '_');
            w.starts_with('/') || (w.contains('_') && w.len() > 2)
        });
        coded
            || text
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| DEVELOPERS_WORDS.contains(&w.to_lowercase().as_str()))
    }
}
