//! A page URL asked for in Markdown (decision 0046): a `handle` of its
//! own, before the files', for GET and HEAD of the pages with a twin whose
//! `Accept` names `text/markdown` at full quality
//! ([`contract::headers::FRONT_MARKDOWN_ACCEPT`]; Caddy's matchers cannot
//! compare q-values, the sidecar does). It sets the twin's headers and
//! rewrites to the twin, which `file_server` then answers as any file,
//! with its own ETag and compressed twins. The headers are set here
//! whole: `header` runs before `rewrite`, so the files' path matchers
//! would see the page's URL and type it as HTML.

use std::fmt::Write;

use super::{FILE_HEADERS, Plan, file_server, q};

pub(super) fn handle(o: &mut String, plan: &Plan) {
    let pages = plan.markdown_pages();
    // One handle per set of the twins' own headers (one on a built site).
    let mut groups: std::collections::BTreeMap<_, Vec<&str>> = Default::default();
    for (page, twin) in &pages {
        let key = (
            twin.cache_control.as_str(),
            twin.content_type.as_str(),
            twin.vary(plan.compress),
        );
        groups.entry(key).or_default().push(page);
    }
    for (i, ((cache, ty, vary), pages)) in groups.into_iter().enumerate() {
        let _ = writeln!(
            o,
            "\t# Page URLs asked for in Markdown: the page's twin.\n\
             \t@pis_markdown_{i} {{\n\
             \t\tmethod GET HEAD\n\
             \t\tpath {}\n\
             \t\theader_regexp Accept `(?i){}`\n\
             \t}}\n\
             \thandle @pis_markdown_{i} {{\n\
             \t\theader {{",
            pages.join(" "),
            contract::headers::FRONT_MARKDOWN_ACCEPT,
        );
        for (name, value) in FILE_HEADERS
            .into_iter()
            .chain([("Cache-Control", cache), ("Content-Type", ty)])
        {
            let _ = writeln!(o, "\t\t\t{name} {}", q(value));
        }
        o.push_str("\t\t}\n");
        if let Some(vary) = vary {
            let _ = writeln!(
                o,
                "\t\theader {{\n\t\t\tVary {}\n\t\t\tdefer\n\t\t}}",
                q(vary)
            );
        }
        o.push_str("\t\trewrite * {path}index.md\n");
        file_server(o, plan, "\t\t", None);
        o.push_str("\t}\n\n");
    }
}
