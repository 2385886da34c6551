//! nginx: the hashed assets a build does not list (an earlier release's,
//! see `host_config::kept_assets`), in `location ^~ /assets/` beside this
//! build's own. Listed assets keep their values by name in the maps, which
//! nginx matches before any regex; every other path below `/assets/` but a
//! twin by name takes the regex entries: the hashed assets' policy, and
//! `Vary` by the type the location gives it. A path that is no file there
//! (none, a folder) is the 404 page.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{file_headers, gzip, q};
use crate::host_config::kept_assets::{self, CACHE, PREFIX, TWIN_EXTENSIONS};
use crate::host_config::{Compress, File, Plan};

/// The map regex of every path below `/assets/` but the twins by name.
fn unlisted() -> String {
    let twins: String = TWIN_EXTENSIONS
        .iter()
        .map(|e| format!("(?<!\\.{e})"))
        .collect();
    format!("\"~^{PREFIX}.+{twins}$\"")
}

/// The last entry of `$pis_file_cache`.
pub(super) fn cache_entry(o: &mut String) {
    let _ = writeln!(o, "    {} {};", unlisted(), q(CACHE));
}

/// The last entries of `$pis_file_vary`: the listed assets that do not
/// vary, by name (so that the regex does not reach them), then the others
/// (this build's that the patterns give their values too, see `patterns`).
pub(super) fn vary_entries(o: &mut String, plan: &Plan, listed: impl Fn(&File) -> bool) {
    for f in plan.files.iter().filter(|f| f.is_asset() && listed(f)) {
        if !f.varies(plan.compress) {
            for u in &f.urls {
                let _ = writeln!(o, "    {} \"\";", q(u));
            }
        }
    }
    // By extension, not by the type sent, which a 304 lacks: what the
    // maps leave out (patterns.rs) and earlier releases' assets.
    let types = plan.kept_asset_types();
    let compressed = compressed_types(plan, &types);
    let exts: Vec<&str> = types
        .iter()
        .filter(|(e, t)| {
            e.chars().all(|c| c.is_ascii_alphanumeric())
                && compressed.contains(&t.to_ascii_lowercase())
        })
        .map(|(e, _)| e.as_str())
        .collect();
    if !exts.is_empty() {
        let _ = writeln!(
            o,
            "    \"~*^{PREFIX}.+\\.({})$\" \"accept-encoding\";",
            exts.join("|")
        );
    }
    let _ = writeln!(o, "    {} $pis_kept_vary;", unlisted());
}

/// The types an asset not listed may be sent compressed in: its twins,
/// or gzip on the fly (as far as nginx's gzip_types can hold them).
pub(super) fn compressed_types(plan: &Plan, types: &BTreeMap<String, String>) -> Vec<String> {
    let mut out: Vec<String> = types
        .values()
        .filter(|t| contract::media::compressible(t))
        .filter(|t| plan.compress != Compress::OnTheFly || t.len() <= gzip::TYPE_MAX)
        .map(|t| t.to_ascii_lowercase())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// `$pis_kept_vary`: `Vary` of an asset not listed, by the type it is sent
/// with (`$pis_file_vary` names it for those).
pub(super) fn vary_map(o: &mut String, plan: &Plan) {
    o.push_str(
        "# Assets not listed (an earlier release's) vary by Accept-Encoding when\n\
         # their type is one they may be sent compressed in.\n\
         map $sent_http_content_type $pis_kept_vary {\n    default \"\";\n",
    );
    for t in compressed_types(plan, &plan.kept_asset_types()) {
        let _ = writeln!(o, "    {} \"accept-encoding\";", q(&t));
    }
    o.push_str("}\n\n");
}

/// `location ^~ /assets/`: `types` by extension as the contract (and this
/// build's assets) give them; `gzip_types` grown by those types on the fly.
pub(super) fn location(
    o: &mut String,
    plan: &Plan,
    types: &BTreeMap<String, String>,
    gzip_here: &str,
    gzip_types: &[String],
) {
    o.push_str(
        "    # Hashed assets: this build's (as in `location /`), and any other file\n    \
         # below /assets/, an earlier release's kept beside it: immutable, typed\n    \
         # by extension; no such file (or a folder) is the 404 page.\n    \
         location ^~ /assets/ {\n        types {\n",
    );
    for (ty, exts) in kept_assets::by_type(types) {
        let _ = writeln!(o, "            {} {};", q(ty), exts.join(" "));
    }
    o.push_str("        }\n");
    if plan.compress == Compress::OnTheFly {
        let mut all: Vec<String> = gzip_types.to_vec();
        all.extend(
            compressed_types(plan, types)
                .into_iter()
                .filter(|t| t != "text/html"),
        );
        all.sort_unstable();
        all.dedup();
        if all != gzip_types {
            let all: Vec<String> = all.iter().map(|t| q(t)).collect();
            let _ = writeln!(o, "        gzip_types {};", all.join(" "));
        }
    }
    o.push_str(
        "        if ($pis_file_cache = \"\") { return 404; }\n        \
         if (!-f $request_filename) { return 404; }\n",
    );
    file_headers(o, gzip_here, "        ");
    o.push_str("    }\n\n");
}
