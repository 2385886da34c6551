//! When a compressed twin of a file or answer is worth keeping: the rule
//! the build's `--precompress` and the sidecar's own twins share, so a
//! file gets the same representations whoever compresses it.

/// Brotli quality of every twin: 5 compresses the site's pages within 1 %
/// of quality 9 at about 15 times the speed (measured on 10,000 generated
/// pages; 11 is slower still).
pub const BROTLI_QUALITY: u32 = 5;
/// Brotli window bits: fitted to the input, at least 18 (smaller windows
/// are far slower in the encoder) and at most 22.
pub const BROTLI_WINDOW: std::ops::RangeInclusive<u32> = 18..=22;
/// gzip level of every twin: zlib's default, as level 9 saves under 1 %
/// more on pages at half the speed.
pub const GZIP_LEVEL: u32 = 6;

/// Brotli window bits for an input of `len` bytes.
pub fn brotli_window(len: usize) -> u32 {
    (usize::BITS - len.leading_zeros()).clamp(*BROTLI_WINDOW.start(), *BROTLI_WINDOW.end())
}

/// Files smaller than this (bytes) get no twins: the headers of a
/// `Content-Encoding` would eat most of what compression saves.
pub const TWIN_FROM: usize = 256;

/// A twin must save at least this share of the identity's bytes, in
/// percent.
pub const MIN_SAVING_PERCENT: usize = 5;

/// Whether a twin of `twin` bytes is worth sending instead of `identity`
/// bytes.
pub fn worth_keeping(identity: usize, twin: usize) -> bool {
    twin.saturating_mul(100) <= identity.saturating_mul(100 - MIN_SAVING_PERCENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_percent_or_more() {
        assert!(worth_keeping(1000, 950));
        assert!(!worth_keeping(1000, 951));
        assert!(!worth_keeping(0, 1));
        assert!(worth_keeping(0, 0));
    }
}
