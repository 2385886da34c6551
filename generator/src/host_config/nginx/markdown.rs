//! A page URL asked for in Markdown (decision 0046): `$pis_twin` names
//! the page's twin when the request's `Accept` names `text/markdown` at
//! full quality, and `location /` rewrites to it. nginx cannot compare
//! q-values, so the map takes the headers of
//! [`contract::headers::FRONT_MARKDOWN_ACCEPT`] only; the sidecar takes
//! those and more. Both the page and its twin carry `Vary: Accept` (in
//! `$pis_file_vary`), and the twin is then served as any file, with its
//! own ETag and compressed twins.

use std::fmt::Write;

use super::Plan;

/// The two maps: the `Accept` test, then the twin of the page URL.
pub(super) fn maps(o: &mut String, plan: &Plan) {
    let pages = plan.markdown_pages();
    if pages.is_empty() {
        return;
    }
    // A regex key is not a string nginx expands: `$` in it stays a regex
    // anchor, so it is quoted here rather than by `q`.
    let _ = writeln!(
        o,
        "# A request naming text/markdown at full quality (no q-values: nginx\n\
         # cannot compare them; the sidecar does).\n\
         map $http_accept $pis_wants_markdown {{\n    \
             default \"\";\n    \
             \"~*{}\" 1;\n\
         }}\n",
        contract::headers::FRONT_MARKDOWN_ACCEPT.replace('\\', "\\\\")
    );
    // By pattern, not page by page (nginx/patterns.rs): `location /`
    // rewrites only to a twin on disk.
    o.push_str(
        "# The Markdown twin a page URL would have, for such a request.\n\
         map \"$pis_wants_markdown:$uri\" $pis_twin {\n    volatile;\n    default \"\";\n    \
         \"~^1:(?<pis_page>/(.+/)?)$\" \"${pis_page}index.md\";\n}\n\n",
    );
}

/// The rewrite of `location /`, after its method checks: to the twin, if
/// the page has one (an empty `$pis_twin` names the root, no file).
pub(super) fn rewrite(o: &mut String, plan: &Plan, indent: &str) {
    if !plan.markdown_pages().is_empty() {
        let _ = writeln!(
            o,
            "{indent}if (-f $document_root$pis_twin) {{ rewrite ^ $pis_twin last; }}"
        );
    }
}
