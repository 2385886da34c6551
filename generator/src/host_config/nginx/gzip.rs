//! nginx's compression directives: the twins as they are (gzip_static,
//! brotli_static with its module), or gzip on the fly for the files only.

use super::q;
use crate::host_config::{Compress, File, ON_THE_FLY_FROM, Plan};

/// The types of the files that `location /` compresses on the fly, whole
/// values as the `types {}` of the server give them (`typed_by_extension`).
pub(super) fn types(plan: &Plan, typed_by_extension: impl Fn(&File) -> bool) -> Vec<String> {
    // nginx compares
    // gzip_types with all of a type set from its own table (parameters
    // included). It always compresses a bare text/html, and warns when that
    // is listed.
    let mut gzip_types: Vec<String> = plan
        .files
        .iter()
        .filter(|f| f.on_the_fly() && typed_by_extension(f))
        .map(|f| f.content_type.to_ascii_lowercase())
        .filter(|t| t != "text/html")
        .collect();
    gzip_types.sort_unstable();
    gzip_types.dedup();
    gzip_types
}

/// The longest type nginx's gzip_types hash holds: its buckets are 64
/// bytes, and one must hold a pointer, the name and its length rounded up
/// to 8, and the end marker.
pub(super) const TYPE_MAX: usize = 46;

/// The server-level compression directives of `plan.compress`;
/// `gzip_types`: the types of the files `location /` compresses.
pub(super) fn server(plan: &Plan, gzip_types: &[String]) -> String {
    match plan.compress {
        Compress::Twins { brotli_static } => format!(
            "    # Only the precompressed twins of dist/; the sidecar compresses its own answers.\n    \
             gzip off;\n    \
             gzip_static on;\n{}    \
             # Vary comes from $pis_vary, for every file with twins, as the sidecar sends it.\n    \
             gzip_vary off;\n",
            if brotli_static {
                "    brotli_static on;\n"
            } else {
                "    # No brotli_static: not in this nginx (--nginx-brotli-static adds it).\n"
            }
        ),
        Compress::OnTheFly => {
            let types: Vec<String> = gzip_types.iter().map(|t| q(t)).collect();
            let types = if types.is_empty() {
                String::new()
            } else {
                format!("    gzip_types {};\n", types.join(" "))
            };
            format!(
                "    # gzip per answer, in the locations of files only (`gzip on` there): the\n    \
                 # sidecar compresses its own answers. The compressible types of dist/ and\n    \
                 # the sidecar's least size; no twins are used.\n    \
                 gzip off;\n\
                 {types}    \
                 gzip_min_length {ON_THE_FLY_FROM};\n    \
                 gzip_comp_level 6;\n    \
                 # Also for requests through a CDN or proxy (Vary tells caches).\n    \
                 gzip_proxied any;\n    \
                 # Vary comes from $pis_vary, for every file compressed, as the sidecar sends it.\n    \
                 gzip_vary off;\n"
            )
        }
    }
}
