//! What crawlers read first: `/robots.txt` and `/sitemap.xml`.

use std::fmt::Write as _;

use super::text::xml_escape;
use crate::model::Date;
use contract::routes;

/// `/robots.txt`: crawl everything except the endpoints that act or cost.
pub fn robots_txt(base_url: &str) -> String {
    let mcp_alias = routes::MCP.alias.map_or("", |a| a.path);
    format!(
        "# Everything public may be crawled. The contact and MCP endpoints take POSTs,\n\
        # and each challenge costs the server work, so crawlers keep away from them.\n\
        User-agent: *\n\
        Allow: /\n\
        Disallow: {}\n\
        Disallow: {}\n\
        Disallow: {}\n\
        Disallow: {mcp_alias}$\n\
        \n\
        Sitemap: {base_url}{}\n",
        routes::CONTACT.path,
        routes::CONTACT_CHALLENGE.path,
        routes::MCP.path,
        routes::SITEMAP.path,
    )
}

/// A page's versions in each language, for the sitemap: `(hreflang,
/// site path)`, `x-default` among them. Keyed by site path.
pub type SitemapAlternates = std::collections::HashMap<String, Vec<(String, String)>>;

/// `/sitemap.xml` (sitemaps.org) of `pages`, in the order given; a page
/// with versions in other languages lists them all, itself included, as
/// `xhtml:link` alternates.
pub fn sitemap_xml(
    base_url: &str,
    pages: &[(String, Date)],
    alternates: &SitemapAlternates,
) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
        <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"",
    );
    if !alternates.is_empty() {
        out.push_str(" xmlns:xhtml=\"http://www.w3.org/1999/xhtml\"");
    }
    out.push_str(">\n");
    for (path, lastmod) in pages {
        let _ = write!(
            out,
            "  <url>\n    <loc>{}</loc>\n    <lastmod>{lastmod}</lastmod>\n",
            xml_escape(&format!("{base_url}{path}"))
        );
        for (language, other) in alternates.get(path).into_iter().flatten() {
            let _ = writeln!(
                out,
                "    <xhtml:link rel=\"alternate\" hreflang=\"{}\" href=\"{}\"/>",
                xml_escape(language),
                xml_escape(&format!("{base_url}{other}"))
            );
        }
        out.push_str("  </url>\n");
    }
    out.push_str("</urlset>\n");
    out
}
