//! Text scanned eight bytes at a time: the escapers (the templates' HTML,
//! the search files' JSON) skip the runs where nothing needs escaping,
//! which is nearly all of prose.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Whether a byte of `word` is below `n` (at most 0x80): such a byte sets
/// its high bit in this expression, and only then is the whole nonzero.
pub fn has_below(word: u64, n: u8) -> bool {
    word.wrapping_sub(ONES * u64::from(n)) & !word & HIGH != 0
}

/// Whether a byte of `word` is `c`.
pub fn has_byte(word: u64, c: u8) -> bool {
    has_below(word ^ (ONES * u64::from(c)), 1)
}

/// From `at`, past every whole run of eight bytes for which `flags` is
/// false: where a byte to look at one by one may be (or where the last
/// short run begins).
pub fn skip_clean(bytes: &[u8], mut at: usize, flags: impl Fn(u64) -> bool) -> usize {
    while let Some(run) = bytes.get(at..at + 8) {
        if flags(u64::from_le_bytes(run.try_into().expect("eight bytes"))) {
            break;
        }
        at += 8;
    }
    at
}
