//! The API reference as Markdown, for the page's twin and the search index.

use super::*;

pub(super) fn md_cell(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

pub(super) fn kind_md(k: &Kind) -> String {
    let mut s = md_cell(&k.label);
    if !k.notes.is_empty() {
        s.push_str(&format!("; {}", md_cell(&k.notes.join("; "))));
    }
    s
}

/// The reference as Markdown: the page's twin and its search text.
pub fn markdown(r: &Reference, base_url: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "This reference is generated from the contract [`/openapi.json`]({base_url}/openapi.json) \
        (OpenAPI {}, contract version {}). Every operation, parameter and schema below is read \
        from it.\n",
        r.openapi, r.version
    );
    for tag in &r.tags {
        let _ = writeln!(out, "## {}\n\n{}\n", tag.name, tag.description);
        for op in &tag.operations {
            let _ = writeln!(out, "### {} {}\n", op.method, op.path);
            let _ = writeln!(
                out,
                "Operation `{}`: {}\n\n{}\n",
                op.id, op.summary, op.description
            );
            if !op.parameters.is_empty() {
                out.push_str(
                    "| Parameter | In | Required | Type | Description |\n|---|---|---|---|---|\n",
                );
                for p in &op.parameters {
                    let _ = writeln!(
                        out,
                        "| `{}` | {} | {} | {} | {} |",
                        p.name,
                        p.location,
                        if p.required { "yes" } else { "no" },
                        kind_md(&p.kind),
                        md_cell(&p.description)
                    );
                }
                out.push('\n');
            }
            if let Some(b) = &op.request_body {
                let media: Vec<String> = b
                    .media
                    .iter()
                    .map(|m| format!("`{}` ({})", m.media_type, m.kind.label))
                    .collect();
                let _ = writeln!(
                    out,
                    "Request body: {} {}\n",
                    md_cell(&b.description),
                    media.join(", ")
                );
            }
            out.push_str("| Status | Description | Content | Problem codes |\n|---|---|---|---|\n");
            for resp in &op.responses {
                let media: Vec<String> = resp
                    .media
                    .iter()
                    .map(|m| format!("`{}` ({})", m.media_type, m.kind.label))
                    .collect();
                let codes: Vec<String> = resp
                    .problems
                    .iter()
                    .map(|p| format!("[`{}`]({base_url}{})", p.code, p.url))
                    .collect();
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    resp.status,
                    md_cell(&resp.description),
                    media.join(", "),
                    codes.join(", ")
                );
            }
            let _ = writeln!(out, "\n```sh\n{}\n```\n", op.curl);
        }
    }
    out.push_str("## Schemas\n\n");
    for s in &r.schemas {
        let _ = writeln!(out, "### {}\n\n{}\n", s.name, s.description);
        if s.properties.is_empty() {
            let _ = writeln!(out, "Type: {}\n", kind_md(&s.kind));
        } else {
            out.push_str("| Property | Required | Type | Description |\n|---|---|---|---|\n");
            for p in &s.properties {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} |",
                    p.name,
                    if p.required { "yes" } else { "no" },
                    kind_md(&p.kind),
                    md_cell(&p.description)
                );
            }
            out.push('\n');
        }
    }
    out.push_str("## Problem codes\n\n| Code | Status | Title |\n|---|---|---|\n");
    for p in &r.problems {
        let _ = writeln!(
            out,
            "| [`{}`]({base_url}{}) | {} | {} |",
            p.code,
            p.url,
            p.status,
            md_cell(&p.title)
        );
    }
    out
}
