//! The size/time table the twins' compression settings are chosen from:
//! every compressible file of a built site, compressed at each brotli
//! quality and gzip level, one thread, with the window the build uses.
//!
//! ```text
//! cargo run --release -p generator --example compress_levels -- DIST [EVERY]
//! ```
//!
//! `EVERY` takes one file in that many (default 1: all). Prints a Markdown
//! table: encoder, level, output as a share of the input, input MB/s, and
//! the seconds the whole site would take on one core.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("a readable folder") {
        let p = e.expect("a folder entry").path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn compressible(p: &Path) -> bool {
    let name = p.to_string_lossy();
    [
        ".html", ".md", ".json", ".xml", ".txt", ".css", ".js", ".svg", ".csv", ".jsonld",
    ]
    .iter()
    .any(|ext| name.ends_with(ext))
}

/// An encoder: the compressed size of `bytes` at a level.
type Encode = fn(&[u8], u32) -> usize;

fn brotli(bytes: &[u8], quality: u32) -> usize {
    let params = brotli::enc::BrotliEncoderParams {
        quality: quality as i32,
        lgwin: contract::compression::brotli_window(bytes.len()) as i32,
        ..Default::default()
    };
    let mut out = Vec::with_capacity(bytes.len() / 3);
    let mut input = bytes;
    brotli::BrotliCompress(&mut input, &mut out, &params).expect("in-memory brotli");
    out.len()
}

fn gzip(bytes: &[u8], level: u32) -> usize {
    let window_bits = ((usize::BITS - bytes.len().leading_zeros()) as u8).clamp(9, 15);
    let compress = flate2::Compress::new_gzip(flate2::Compression::new(level), window_bits);
    let mut enc = flate2::write::ZlibEncoder::new_with_compress(Vec::new(), compress);
    enc.write_all(bytes).expect("in-memory gzip");
    enc.finish().expect("in-memory gzip").len()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dist = PathBuf::from(args.next().expect("usage: compress_levels DIST [EVERY]"));
    let every: usize = args
        .next()
        .map_or(1, |n| n.parse().expect("EVERY is a number"));
    let mut all = Vec::new();
    files(&dist, &mut all);
    all.sort();
    let bodies: Vec<Vec<u8>> = all
        .iter()
        .filter(|p| compressible(p))
        .step_by(every)
        .map(|p| std::fs::read(p).expect("a readable file"))
        .filter(|b| b.len() >= contract::compression::TWIN_FROM)
        .collect();
    let input: usize = bodies.iter().map(Vec::len).sum();
    let whole: usize = all
        .iter()
        .filter(|p| compressible(p))
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len() as usize))
        .sum();
    println!(
        "{} files, {:.1} MB of {:.1} MB compressible (one in {every})\n",
        bodies.len(),
        input as f64 / 1e6,
        whole as f64 / 1e6
    );
    println!("| encoder | level | output / input | MB/s (one core) | whole site, s (one core) |");
    println!("|---|---|---|---|---|");
    let runs: Vec<(&str, u32, Encode)> = (1..=7)
        .map(|q| ("brotli", q, brotli as Encode))
        .chain((1..=9).map(|l| ("gzip", l, gzip as Encode)))
        .collect();
    for (name, level, encode) in runs {
        let started = Instant::now();
        let out: usize = bodies.iter().map(|b| encode(b, level)).sum();
        let seconds = started.elapsed().as_secs_f64();
        let rate = input as f64 / 1e6 / seconds;
        println!(
            "| {name} | {level} | {:.1} % | {rate:.0} | {:.1} |",
            100.0 * out as f64 / input as f64,
            whole as f64 / 1e6 / rate
        );
    }
}
