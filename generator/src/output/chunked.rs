//! Twins of large files (the parts of the search files, a big sitemap or
//! llms.txt) compressed in independent chunks and joined into one valid
//! brotli or gzip stream.
//!
//! Chunk boundaries are chosen by content: after a line break or a `}`
//! (the end of an object of a compact JSON array), where a hash of the 64
//! bytes that follow selects it, at least [`CHUNK_MIN`] bytes after the
//! previous boundary (and at the first possible place after [`CHUNK_MAX`]).
//! An edit inside one page's entry therefore changes one chunk, and the
//! others are taken from a memory of the last build ([`ChunkMemo`], what
//! `generate serve` keeps) or from the twin cache (keyed by the chunk's
//! SHA-256) instead of being compressed again. Chunks are compressed in
//! parallel. Each chunk's stream stands alone (no back-reference crosses
//! a boundary), which costs well under 1 % of the size at these chunk
//! sizes.
//!
//! - brotli: each chunk is a "catable" stream (no shared dictionary,
//!   byte-aligned ends) and the streams are spliced by the encoder crate's
//!   own concatenator, giving one stream.
//! - gzip: one header, each chunk a raw deflate run ended by a sync flush
//!   (so it ends on a byte, with no final block), one empty final block,
//!   then the CRC-32 and length of the whole file (RFC 1951, RFC 1952).

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::manifest::sha256_hex;
use crate::twin_cache::TwinCache;
use contract::compression::{BROTLI_QUALITY, GZIP_LEVEL};

/// Files at least this large are compressed in chunks (a part of the
/// search files at 200 pages: 0.5–1.5 MB).
pub(super) const CHUNKED_FROM: usize = 256 << 10;
const CHUNK_MIN: usize = 128 << 10;
const CHUNK_MAX: usize = 1 << 20;
/// One candidate place in this many is a boundary (after `CHUNK_MIN`).
const SELECT_ONE_IN: u64 = 16;
/// Bytes after a candidate place that decide whether it is a boundary.
const LOOKAHEAD: usize = 64;
/// The window of every chunk's brotli stream (all equal, as the
/// concatenator requires): 2 MiB, above any chunk but a pathological one.
const BROTLI_CHUNK_WINDOW: i32 = 21;
/// A gzip header: deflate, no flags, no time, no extra flags, unknown OS.
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
/// An empty final deflate block with fixed codes: BFINAL 1, BTYPE 01, EOB.
const DEFLATE_FINAL: [u8; 2] = [0x03, 0x00];

/// The ends of the chunks of `bytes` (the last is `bytes.len()`).
pub(super) fn chunk_ends(bytes: &[u8]) -> Vec<usize> {
    let mut ends = Vec::with_capacity(bytes.len() / CHUNK_MIN + 1);
    let mut start = 0;
    let mut from = CHUNK_MIN;
    while from < bytes.len() {
        let Some(i) = memchr::memchr2(b'\n', b'}', &bytes[from..]) else {
            break;
        };
        let place = from + i + 1;
        if place >= bytes.len() {
            break;
        }
        let next = &bytes[place..bytes.len().min(place + LOOKAHEAD)];
        if place - start >= CHUNK_MAX || fnv1a(next).is_multiple_of(SELECT_ONE_IN) {
            ends.push(place);
            start = place;
            from = place + CHUNK_MIN;
        } else {
            from = place;
        }
    }
    ends.push(bytes.len());
    ends
}

fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_of(bytes.iter().copied())
}

fn fnv1a_of(bytes: impl Iterator<Item = u8>) -> u64 {
    bytes.fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One chunk's two streams.
struct ChunkTwins {
    br: Vec<u8>,
    gz: Vec<u8>,
}

fn compress_chunk(chunk: &[u8]) -> ChunkTwins {
    let params = brotli::enc::BrotliEncoderParams {
        quality: BROTLI_QUALITY as i32,
        lgwin: BROTLI_CHUNK_WINDOW,
        catable: true,
        appendable: true,
        use_dictionary: false,
        ..Default::default()
    };
    let mut br = Vec::with_capacity(chunk.len() / 3);
    brotli::BrotliCompress(&mut &chunk[..], &mut br, &params).expect("in-memory brotli");

    let mut deflate = flate2::write::DeflateEncoder::new(
        Vec::with_capacity(chunk.len() / 3),
        flate2::Compression::new(GZIP_LEVEL),
    );
    deflate.write_all(chunk).expect("in-memory deflate");
    // A sync flush ends the run on a byte boundary without a final block.
    deflate.flush().expect("in-memory deflate");
    let gz = std::mem::take(deflate.get_mut());
    // Dropping the encoder would finish into the (now empty) vector only.
    drop(deflate);
    ChunkTwins { br, gz }
}

/// The chunks' twins of the last build, for the next one: a chunk is
/// found by a hash of its bytes and taken only when its bytes are equal.
#[derive(Default)]
pub struct ChunkMemo {
    inner: Mutex<MemoInner>,
}

#[derive(Default)]
struct MemoInner {
    generation: u64,
    chunks: HashMap<u64, Vec<Arc<Remembered>>>,
}

struct Remembered {
    bytes: Vec<u8>,
    twins: ChunkTwins,
    used: AtomicU64,
}

impl ChunkMemo {
    /// Starts a build: what it does not use is forgotten at [`Self::sweep`].
    pub fn begin(&self) {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .generation += 1;
    }

    /// Forgets the chunks the build since [`Self::begin`] did not use.
    pub fn sweep(&self) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let generation = inner.generation;
        for list in inner.chunks.values_mut() {
            list.retain(|r| r.used.load(Ordering::Relaxed) == generation);
        }
        inner.chunks.retain(|_, list| !list.is_empty());
    }

    fn key(chunk: &[u8]) -> u64 {
        // A sample is enough for a key: a hit is compared byte for byte.
        let step = (chunk.len() / 256).max(1);
        fnv1a_of(chunk.iter().step_by(step).copied()) ^ (chunk.len() as u64).rotate_left(32)
    }

    fn get(&self, chunk: &[u8]) -> Option<Arc<Remembered>> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let found = inner
            .chunks
            .get(&Self::key(chunk))?
            .iter()
            .find(|r| r.bytes == chunk)?
            .clone();
        found.used.store(inner.generation, Ordering::Relaxed);
        Some(found)
    }

    fn put(&self, chunk: &[u8], twins: ChunkTwins) -> Arc<Remembered> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let remembered = Arc::new(Remembered {
            bytes: chunk.to_vec(),
            twins,
            used: AtomicU64::new(inner.generation),
        });
        inner
            .chunks
            .entry(Self::key(chunk))
            .or_default()
            .push(remembered.clone());
        remembered
    }
}

/// Where a chunk's twins come from, for the build's summary.
#[derive(Default)]
pub(super) struct ChunkCounts {
    pub(super) compressed: usize,
    pub(super) reused: usize,
}

/// The brotli and gzip twins of `bytes`, made chunk by chunk.
pub(super) fn twins(
    bytes: &[u8],
    memo: Option<&ChunkMemo>,
    cache: Option<&TwinCache>,
    cache_key: &str,
) -> (Vec<u8>, Vec<u8>, ChunkCounts) {
    let ends = chunk_ends(bytes);
    let starts = std::iter::once(0).chain(ends.iter().copied());
    let chunks: Vec<&[u8]> = starts.zip(&ends).map(|(s, &e)| &bytes[s..e]).collect();
    let made: Vec<(Arc<Remembered>, bool)> = chunks
        .par_iter()
        .map(|chunk| {
            if let Some(hit) = memo.and_then(|m| m.get(chunk)) {
                return (hit, false);
            }
            let (twins, fresh) = from_cache(chunk, cache, cache_key);
            let remembered = match memo {
                Some(m) => m.put(chunk, twins),
                None => Arc::new(Remembered {
                    bytes: Vec::new(),
                    twins,
                    used: AtomicU64::new(0),
                }),
            };
            (remembered, fresh)
        })
        .collect();
    let mut counts = ChunkCounts::default();
    for (_, fresh) in &made {
        if *fresh {
            counts.compressed += 1;
        } else {
            counts.reused += 1;
        }
    }
    let br = join_brotli(made.iter().map(|(r, _)| &r.twins.br[..]));
    let gz = join_gzip(bytes, made.iter().map(|(r, _)| &r.twins.gz[..]));
    (br, gz, counts)
}

/// A chunk's twins from the twin cache (by the chunk's SHA-256), or
/// compressed now and cached; whether they were compressed.
fn from_cache(chunk: &[u8], cache: Option<&TwinCache>, cache_key: &str) -> (ChunkTwins, bool) {
    let Some(cache) = cache else {
        return (compress_chunk(chunk), true);
    };
    let sha = sha256_hex(chunk);
    let (br_key, gz_key) = (format!("br-{cache_key}"), format!("gz-{cache_key}"));
    if let (Some((br, _)), Some((gz, _))) = (cache.get(&sha, &br_key), cache.get(&sha, &gz_key)) {
        return (ChunkTwins { br, gz }, false);
    }
    let twins = compress_chunk(chunk);
    cache.put(&sha, &br_key, &(twins.br.clone(), sha256_hex(&twins.br)));
    cache.put(&sha, &gz_key, &(twins.gz.clone(), sha256_hex(&twins.gz)));
    (twins, true)
}

fn join_brotli<'a>(streams: impl Iterator<Item = &'a [u8]> + Clone) -> Vec<u8> {
    use brotli::concat::{BroCatli, BroCatliResult};
    let mut joiner = BroCatli::new();
    let mut out = Vec::with_capacity(streams.clone().map(<[u8]>::len).sum::<usize>() + 16);
    let mut buf = vec![0u8; 1 << 16];
    for stream in streams {
        joiner.new_brotli_file();
        let mut read = 0;
        loop {
            let mut written = 0;
            let result = joiner.stream(stream, &mut read, &mut buf, &mut written);
            out.extend_from_slice(&buf[..written]);
            match result {
                BroCatliResult::NeedsMoreOutput => continue,
                BroCatliResult::NeedsMoreInput => break,
                other => panic!("joining brotli streams this module made: {other:?}"),
            }
        }
    }
    loop {
        let mut written = 0;
        let result = joiner.finish(&mut buf, &mut written);
        out.extend_from_slice(&buf[..written]);
        match result {
            BroCatliResult::NeedsMoreOutput => continue,
            BroCatliResult::Success => break,
            other => panic!("ending joined brotli streams: {other:?}"),
        }
    }
    out
}

fn join_gzip<'a>(whole: &[u8], runs: impl Iterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut out = Vec::with_capacity(whole.len() / 3);
    out.extend_from_slice(&GZIP_HEADER);
    for run in runs {
        out.extend_from_slice(run);
    }
    out.extend_from_slice(&DEFLATE_FINAL);
    out.extend_from_slice(&crc32fast::hash(whole).to_le_bytes());
    out.extend_from_slice(&(whole.len() as u32).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// A compact JSON array like the search index: entries of about 4 KiB
    /// of words drawn from a vocabulary.
    fn index(entries: usize, marker: Option<usize>) -> Vec<u8> {
        let vocabulary: Vec<String> = (0..2000u32)
            .map(|i| {
                format!(
                    "w{}{}",
                    i * 7919 % 1000,
                    ["ing", "ed", "s", ""][i as usize % 4]
                )
            })
            .collect();
        let mut seed = 12345u64;
        let mut s = String::from("{\"version\":1,\"documents\":[");
        for i in 0..entries {
            if i > 0 {
                s.push(',');
            }
            let mut text = String::new();
            if marker == Some(i) {
                text.push_str("edited ");
            }
            for _ in 0..600 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(&vocabulary[(seed >> 33) as usize % vocabulary.len()]);
                text.push(' ');
            }
            s.push_str(&format!(
                "{{\"url\":\"/docs/section-{}/page-{i:05}/\",\"text\":\"{text}\"}}",
                i % 7
            ));
        }
        s.push_str("]}\n");
        s.into_bytes()
    }

    fn unbrotli(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        brotli::Decompressor::new(bytes, 4096)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    fn gunzip(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut decoder = flate2::read::GzDecoder::new(bytes);
        decoder.read_to_end(&mut out).unwrap();
        // One member, nothing after it.
        assert!(decoder.into_inner().is_empty());
        out
    }

    #[test]
    fn joined_twins_decode_to_the_file_and_an_edit_changes_one_chunk() {
        let file = index(1200, None);
        let ends = chunk_ends(&file);
        assert!(ends.len() > 10, "{} chunks", ends.len());
        assert!(
            ends.windows(2)
                .all(|w| w[1] - w[0] >= CHUNK_MIN || w[1] == file.len())
        );
        let memo = ChunkMemo::default();
        memo.begin();
        let (br, gz, counts) = twins(&file, Some(&memo), None, "test");
        assert_eq!(counts.compressed, ends.len());
        assert_eq!(unbrotli(&br), file);
        assert_eq!(gunzip(&gz), file);
        // Within 1 % of compressing the whole file at once.
        let whole_br = super::super::compress::brotli(&file);
        assert!(
            br.len() * 100 <= whole_br.len() * 101,
            "{} vs {}",
            br.len(),
            whole_br.len()
        );

        // One entry edited (its length changes): one chunk is compressed
        // again, the rest come from the memory, and the result is what a
        // build without the memory makes.
        let edited = index(1200, Some(700));
        memo.begin();
        let (br2, gz2, counts) = twins(&edited, Some(&memo), None, "test");
        memo.sweep();
        assert_eq!(counts.compressed, 1, "{} reused", counts.reused);
        assert_eq!(unbrotli(&br2), edited);
        assert_eq!(gunzip(&gz2), edited);
        let (br3, gz3, _) = twins(&edited, None, None, "test");
        assert_eq!((br2, gz2), (br3, gz3));
    }

    #[test]
    fn the_twin_cache_gives_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TwinCache::new(dir.path());
        let file = index(400, None);
        let (br, gz, first) = twins(&file, None, Some(&cache), "test");
        let (br2, gz2, again) = twins(&file, None, Some(&cache), "test");
        assert_eq!(again.compressed, 0);
        assert_eq!(again.reused, first.compressed);
        assert_eq!((br, gz), (br2, gz2));
    }
}
