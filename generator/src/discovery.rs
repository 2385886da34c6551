//! Discovery documents: how crawlers, developers and agents find the contract,
//! the data and the documentation without reading HTML.
//!
//! Every function is pure: the same content gives the same bytes, and every
//! date derives from the content, never from the clock.

mod catalogs;
mod crawlers;
mod datasets;
mod feed;
mod llms_txt;
mod security_txt;
mod text;

pub use catalogs::{
    AI_CATALOG_SPEC_VERSION, MCP_SERVER_CARD_MEDIA_TYPE, MCP_SERVER_CARD_PATH,
    MCP_SERVER_CARD_SCHEMA, OPENAPI_MEDIA_TYPE, ai_catalog, api_catalog, mcp_server_card,
};
pub use crawlers::{SitemapAlternates, robots_txt, sitemap_xml};
pub use datasets::{CATALOG_PATH, OpenData};
pub use feed::{Category, FEED_ENTRIES, FeedEntry, FeedHead, atom_feed};
pub use llms_txt::{Translated, llms_txt};
pub use security_txt::{security_expires, security_txt};
pub use text::DocLink;
pub(crate) use text::xml_escape;

#[cfg(test)]
mod tests;
