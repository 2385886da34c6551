//! The encoders of every twin the sidecar makes itself: for live bodies
//! (`live/encoded.rs`) and for files of a `dist/` built without twins
//! (`published/files.rs`). Whether a twin is kept is the contract's rule,
//! the one the build uses.

use std::io::Write;

use bytes::Bytes;

/// Brotli quality: a body is compressed once per cache fill or once per
/// release, so a middle quality (about gzip's speed at a smaller size) is
/// the trade.
const BR_QUALITY: u32 = 5;
/// Brotli window (log2): fitted to the body, at least 18 (smaller windows
/// are slower in this encoder) and at most 22.
const BR_WINDOW: std::ops::RangeInclusive<u32> = 18..=22;
/// gzip level: zlib's default trade.
const GZIP_LEVEL: u32 = 6;

/// `twin` when it is worth sending instead of `identity`.
pub fn worth(identity: &[u8], twin: Vec<u8>) -> Option<Bytes> {
    contract::compression::worth_keeping(identity.len(), twin.len()).then(|| Bytes::from(twin))
}

/// Brotli at the quality and window of every twin the sidecar makes.
pub fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() / 4);
    {
        let window =
            (usize::BITS - bytes.len().leading_zeros()).clamp(*BR_WINDOW.start(), *BR_WINDOW.end());
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, BR_QUALITY, window);
        w.write_all(bytes).expect("writing to memory");
    }
    out
}

/// gzip at the level of every twin the sidecar makes.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let out = Vec::with_capacity(bytes.len() / 4);
    let mut enc = flate2::write::GzEncoder::new(out, flate2::Compression::new(GZIP_LEVEL));
    enc.write_all(bytes).expect("writing to memory");
    enc.finish().expect("writing to memory")
}
