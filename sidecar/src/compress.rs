//! The encoders of every twin the sidecar makes itself: for live bodies
//! (`live/encoded.rs`) and for files of a `dist/` built without twins
//! (`published/files.rs`). Whether a twin is kept is the contract's rule,
//! the one the build uses.

use std::io::Write;

use bytes::Bytes;
use contract::compression::GZIP_LEVEL;
/// Brotli at the quality and window of every twin: the contract's encoder,
/// the build's.
pub use contract::compression::brotli;

/// `twin` when it is worth sending instead of `identity`.
pub fn worth(identity: &[u8], twin: Vec<u8>) -> Option<Bytes> {
    contract::compression::worth_keeping(identity.len(), twin.len()).then(|| Bytes::from(twin))
}

/// gzip at the level of every twin the sidecar makes.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let out = Vec::with_capacity(bytes.len() / 4);
    let mut enc = flate2::write::GzEncoder::new(out, flate2::Compression::new(GZIP_LEVEL));
    enc.write_all(bytes).expect("writing to memory");
    enc.finish().expect("writing to memory")
}
