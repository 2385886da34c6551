//! Caddy: the hashed assets a build does not list (an earlier release's,
//! see `host_config::kept_assets`), in a `handle` of their own before the
//! files': any file below `/assets/` that is not a listed asset, a twin by
//! name or a folder is sent from disk with the hashed assets' policy and a
//! type by extension; a path that is no file there is the 404 page. A
//! `route` keeps the steps in the order written.

use std::fmt::Write;

use contract::headers;

use super::{file_server, preflight_headers, q};
use crate::host_config::kept_assets::{self, CACHE, PREFIX, TWIN_EXTENSIONS};
use crate::host_config::{FILE_HEADERS, Plan};

pub(super) fn handle(o: &mut String, plan: &Plan) {
    let listed = plan.listed_assets();
    o.push_str(
        "\t# Files below /assets/ that this build does not list: hashed assets of\n\
         \t# an earlier release, kept beside it. Immutable, typed by extension;\n\
         \t# no such file (or a twin by name, or a folder) is the 404 page.\n",
    );
    let _ = writeln!(o, "\t@pis_kept {{\n\t\tpath {PREFIX}*");
    if !listed.is_empty() {
        let _ = writeln!(o, "\t\tnot path {}", listed.join(" "));
    }
    o.push_str("\t}\n\thandle @pis_kept {\n\t\troute {\n");
    let twins: Vec<String> = TWIN_EXTENSIONS.iter().map(|e| format!("*.{e}")).collect();
    let _ = writeln!(
        o,
        "\t\t\t@pis_kept_gone not file\n\
         \t\t\terror @pis_kept_gone 404\n\
         \t\t\t@pis_kept_other path {} */\n\
         \t\t\terror @pis_kept_other 404\n\
         \t\t\t@pis_kept_preflight method OPTIONS\n\
         \t\t\theader @pis_kept_preflight {{",
        twins.join(" ")
    );
    for (name, value) in preflight_headers() {
        let _ = writeln!(o, "\t\t\t\t{name} {}", q(value));
    }
    o.push_str(
        "\t\t\t}\n\
         \t\t\trespond @pis_kept_preflight 204\n\
         \t\t\t@pis_kept_method not method GET HEAD\n\
         \t\t\terror @pis_kept_method 405\n\
         \t\t\theader {\n",
    );
    let _ = writeln!(o, "\t\t\t\tCache-Control {}", q(CACHE));
    for (name, value) in FILE_HEADERS {
        let _ = writeln!(o, "\t\t\t\t{name} {}", q(value));
    }
    o.push_str("\t\t\t}\n");
    let types = plan.kept_asset_types();
    // A bare token: Caddy keeps a backslash in quotes as it is.
    // A bare token (Caddy keeps a backslash in quotes as it is), the
    // extensions escaped.
    let pattern = |exts: &[&str]| {
        let exts: Vec<String> = exts.iter().map(|e| escape(e)).collect();
        format!("(?i)\\.({})$", exts.join("|"))
    };
    let mut compressible = Vec::new();
    for (n, (ty, exts)) in kept_assets::by_type(&types).into_iter().enumerate() {
        let _ = writeln!(
            o,
            "\t\t\t@pis_kept_{n} path_regexp {}\n\t\t\theader @pis_kept_{n} Content-Type {}",
            pattern(&exts),
            q(ty)
        );
        if contract::media::compressible(ty) {
            compressible.extend(exts);
        }
    }
    // Any other extension: the contract's type for it.
    let _ = writeln!(
        o,
        "\t\t\t@pis_kept_untyped not path_regexp {}\n\t\t\theader @pis_kept_untyped Content-Type \"application/octet-stream\"",
        pattern(&types.keys().map(String::as_str).collect::<Vec<_>>())
    );
    if !compressible.is_empty() {
        // As for the listed files: replaces the Vary Caddy adds only when
        // it sends a twin or compresses.
        let _ = writeln!(
            o,
            "\t\t\t@pis_kept_vary path_regexp {}\n\t\t\theader @pis_kept_vary {{\n\t\t\t\tVary {}\n\t\t\t\tdefer\n\t\t\t}}",
            pattern(&compressible),
            q(headers::VARY_ENCODING)
        );
    }
    file_server(o, plan, "\t\t\t", None);
    o.push_str("\t\t}\n\t}\n\n");
}

/// `s` with every character but letters and digits escaped for a regex.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if !c.is_ascii_alphanumeric() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
