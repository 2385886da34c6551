//! The compressed twins' encoders and their settings, which also name the
//! twins in the cache: a change here is a new cache key, never a stale hit.

use std::io::Write;

// The settings are the contract's: the sidecar makes the same twins.
use contract::compression::{BROTLI_QUALITY, BROTLI_WINDOW, GZIP_LEVEL};
pub(super) use contract::compression::{TWIN_FROM, brotli, worth_keeping as worth_it};

pub(super) fn gzip(bytes: &[u8]) -> Vec<u8> {
    // zlib writes the gzip header itself (mtime 0, no name): deterministic.
    // A window no larger than the input keeps per-file setup cheap.
    let window_bits = ((usize::BITS - bytes.len().leading_zeros()) as u8).clamp(9, 15);
    let compress = flate2::Compress::new_gzip(flate2::Compression::new(GZIP_LEVEL), window_bits);
    let mut enc = flate2::write::ZlibEncoder::new_with_compress(
        Vec::with_capacity(bytes.len() / 3),
        compress,
    );
    enc.write_all(bytes).expect("in-memory gzip");
    enc.finish().expect("in-memory gzip")
}

/// The cache's name for a twin's encoding: the encoder and its settings,
/// and the generator's version (its encoders' versions come with it).
pub(super) fn cache_key(coding: &str) -> String {
    let settings = match coding {
        "br" => format!(
            "q{BROTLI_QUALITY}w{}-{}",
            BROTLI_WINDOW.start(),
            BROTLI_WINDOW.end()
        ),
        _ => format!("l{GZIP_LEVEL}"),
    };
    format!("{coding}-{settings}-{}", env!("CARGO_PKG_VERSION"))
}

/// The cache's name for the chunks of large files ([`super::chunked`]).
pub(super) fn chunked_cache_key() -> String {
    format!(
        "chunk-q{BROTLI_QUALITY}-l{GZIP_LEVEL}-{}",
        env!("CARGO_PKG_VERSION")
    )
}
