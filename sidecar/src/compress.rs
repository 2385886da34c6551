//! The encoders of every twin the sidecar makes itself: for live bodies
//! (`live/encoded.rs`) and for files of a `dist/` built without twins
//! (`published/files.rs`). Whether a twin is kept is the contract's rule,
//! the one the build uses.

use std::io::Write;

use bytes::Bytes;
use contract::compression::{BROTLI_QUALITY, GZIP_LEVEL, brotli_window};

/// `twin` when it is worth sending instead of `identity`.
pub fn worth(identity: &[u8], twin: Vec<u8>) -> Option<Bytes> {
    contract::compression::worth_keeping(identity.len(), twin.len()).then(|| Bytes::from(twin))
}

/// Brotli at the quality and window of every twin the sidecar makes.
pub fn brotli(bytes: &[u8]) -> Vec<u8> {
    let params = brotli::enc::BrotliEncoderParams {
        quality: BROTLI_QUALITY as i32,
        lgwin: brotli_window(bytes.len()) as i32,
        ..Default::default()
    };
    let mut out = Vec::with_capacity(bytes.len() / 4);
    let mut input = bytes;
    // The whole input in one read: given all of a small body at once, the
    // encoder sizes its ring buffer to it, where 4 KiB writes make it
    // allocate (and zero) the whole window on the second (as the build's
    // encoder; 9 % of a precompressed build's time).
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
    .expect("writing to memory");
    out
}

/// Bodies up to this size are handed to brotli in one read.
const ONE_READ_MAX: usize = 1 << 20;

/// gzip at the level of every twin the sidecar makes.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let out = Vec::with_capacity(bytes.len() / 4);
    let mut enc = flate2::write::GzEncoder::new(out, flate2::Compression::new(GZIP_LEVEL));
    enc.write_all(bytes).expect("writing to memory");
    enc.finish().expect("writing to memory")
}

#[cfg(test)]
mod tests {
    use std::io::Read;

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
}
