//! When a compressed twin of a file or answer is worth keeping: the rule
//! the build's `--precompress` and the sidecar's own twins share, so a
//! file gets the same representations whoever compresses it.

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
