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

/// The brotli twin of `bytes`, at [`BROTLI_QUALITY`] and the window
/// [`brotli_window`] fits to it: the one encoder of the build's and the
/// sidecar's twins, so both make the same bytes.
pub fn brotli(bytes: &[u8]) -> Vec<u8> {
    let params = brotli::enc::BrotliEncoderParams {
        quality: BROTLI_QUALITY as i32,
        lgwin: brotli_window(bytes.len()) as i32,
        ..Default::default()
    };
    let mut out = Vec::with_capacity(bytes.len() / 3);
    let mut input = bytes;
    // The whole input in one read: given all of a small file at once, the
    // encoder sizes its ring buffer to it, where 4 KiB reads make it
    // allocate (and zero) the whole window on the second (9 % of a cold
    // precompressed build's time; decision 0261).
    let mut input_buffer = vec![0; bytes.len().clamp(1, ONE_READ_MAX)];
    let mut output_buffer = [0; 4096];
    brotli::enc::BrotliCompressCustomAlloc(
        &mut input,
        &mut out,
        &mut input_buffer,
        &mut output_buffer,
        &params,
        brotli::enc::StandardAlloc::default(),
    )
    .expect("brotli into memory");
    out
}

/// Inputs up to this size are handed to brotli in one read.
const ONE_READ_MAX: usize = 1 << 20;

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
    use std::io::{Read, Write};

    use super::*;

    /// Text that compresses like a page: words repeated with variation.
    fn text(len: usize) -> Vec<u8> {
        let words = [
            "water ", "nitrate ", "site ", "<p>", "reading ", "2024 ", "\n",
        ];
        let mut out = Vec::with_capacity(len);
        let mut i = 0usize;
        while out.len() < len {
            out.extend_from_slice(words[(i * 7 + i / 5) % words.len()].as_bytes());
            i += 1;
        }
        out.truncate(len);
        out
    }

    #[test]
    fn brotli_in_one_read_decodes_and_matches_the_streaming_encoder() {
        for len in [0, 1, 4095, 4097, 70_000, ONE_READ_MAX + 12_345] {
            let input = text(len);
            let twin = brotli(&input);
            let mut decoded = Vec::new();
            brotli::Decompressor::new(&twin[..], 4096)
                .read_to_end(&mut decoded)
                .unwrap();
            assert_eq!(decoded, input, "{len} bytes");
            // The same bytes as the encoder fed 4 KiB at a time: the twins
            // do not change with how the input is handed over.
            let mut streamed = Vec::new();
            {
                let window = brotli_window(len);
                let mut w =
                    brotli::CompressorWriter::new(&mut streamed, 4096, BROTLI_QUALITY, window);
                w.write_all(&input).unwrap();
            }
            assert_eq!(twin, streamed, "{len} bytes");
        }
    }

    #[test]
    fn five_percent_or_more() {
        assert!(worth_keeping(1000, 950));
        assert!(!worth_keeping(1000, 951));
        assert!(!worth_keeping(0, 1));
        assert!(worth_keeping(0, 0));
    }
}
