//! What the sidecar's integration tests share, in one place: a small
//! `dist/` written the way the generator writes it (below), the request
//! handler called without a socket ([`handler`]), the binary on a real socket
//! ([`client`]), real databases ([`live`]), the built contract ([`openapi`])
//! and the helpers of the feature tests ([`chat`], [`contact`], [`mcp`]).
//!
//! A library of its own (a dev-dependency of `sidecar`, named `common`
//! there) rather than a `tests/common/mod.rs` that every test binary
//! compiles: each binary uses only part of the helpers, so as a module each
//! would warn of dead code, or need `#![allow(dead_code)]`, which would hide
//! private helpers nobody calls any more. As a library it is compiled once,
//! its public items are its interface, and nothing is silenced.
//!
//! The fixture `dist/` has files, real brotli and gzip twins, and a manifest
//! of the documented shape. A secret file is planted beside `dist/` (not
//! inside) for the traversal tests.

#![forbid(unsafe_code)]

pub mod chat;
pub mod client;
pub mod contact;
pub mod handler;
pub mod live;
pub mod mcp;
pub mod openapi;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

pub const SECRET: &str = "TOP-SECRET-OUTSIDE-DIST-7f3a9c";

pub struct Fixture {
    /// Holds the temporary directory alive.
    pub dir: tempfile::TempDir,
    pub dist: PathBuf,
}

pub struct File {
    pub key: &'static str,
    pub bytes: Vec<u8>,
    pub content_type: &'static str,
    pub cache_control: &'static str,
    pub compress: bool,
}

pub const PAGE: &str = "public, max-age=60, stale-while-revalidate=600";
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

pub fn html(title: &str) -> Vec<u8> {
    let mut s =
        format!("<!doctype html><html lang=\"en\"><head><title>{title}</title></head><body><main>");
    for i in 0..60 {
        s.push_str(&format!(
            "<p>Paragraph {i} of {title}: water quality observations by volunteers.</p>\n"
        ));
    }
    s.push_str("</main></body></html>\n");
    s.into_bytes()
}

/// Deterministic incompressible-ish bytes.
pub fn noise(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

pub fn default_files() -> Vec<File> {
    let page = |key, title| File {
        key,
        bytes: html(title),
        content_type: "text/html; charset=utf-8",
        cache_control: PAGE,
        compress: true,
    };
    vec![
        page("index.html", "Home"),
        page("404.html", "Page not found"),
        page("docs/guide/index.html", "Guide"),
        File {
            key: "docs/guide/index.md",
            bytes: b"# Guide\n\nThe Markdown twin.\n".to_vec(),
            content_type: "text/markdown; charset=utf-8",
            cache_control: PAGE,
            compress: false,
        },
        File {
            key: "assets/site.0123456789abcdef.css",
            bytes: "body { margin: 0; color: #123; }\n".repeat(40).into_bytes(),
            content_type: "text/css; charset=utf-8",
            cache_control: IMMUTABLE,
            compress: true,
        },
        File {
            key: "openapi.json",
            bytes: br#"{"openapi":"3.1.0","info":{"title":"t","version":"1.0.0"},"paths":{}}"#
                .to_vec(),
            content_type: "application/json",
            cache_control: "no-cache",
            compress: false,
        },
        File {
            key: "api/service.json",
            bytes: format!(
                "{{\"name\":\"Sample\",\"description\":\"{}\"}}",
                "x".repeat(400)
            )
            .into_bytes(),
            content_type: "application/json",
            cache_control: "public, max-age=300, stale-while-revalidate=3600",
            compress: true,
        },
        File {
            key: ".well-known/api-catalog",
            bytes: br#"{"linkset":[]}"#.to_vec(),
            content_type: "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"",
            cache_control: "public, max-age=3600",
            compress: false,
        },
        File {
            key: "files/data.bin",
            bytes: noise(100_000),
            content_type: "application/octet-stream",
            cache_control: "public, max-age=86400",
            compress: false,
        },
    ]
}

/// A strong ETag from a 128-bit FNV-style hash (the generator uses SHA-256;
/// any content hash will do for the server).
pub fn etag(bytes: &[u8]) -> String {
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x8422_2325_cbf2_9ce4;
    for byte in bytes {
        a = (a ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3);
        b = (b ^ u64::from(*byte))
            .wrapping_mul(0x0000_0100_0000_01b3)
            .rotate_left(5);
    }
    format!("\"{a:016x}{b:016x}\"")
}

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

pub fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 11, 22);
        w.write_all(bytes).unwrap();
    }
    out
}

pub fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(bytes), &mut out).unwrap();
    out
}

pub fn unbrotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::BrotliDecompress(&mut &bytes[..], &mut out).unwrap();
    out
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

impl Default for Fixture {
    fn default() -> Fixture {
        Fixture::new()
    }
}

impl Fixture {
    pub fn new() -> Fixture {
        Fixture::with_files(default_files())
    }

    pub fn with_files(files: Vec<File>) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let dist = dir.path().join("dist");
        let mut manifest = Map::new();
        for file in files {
            write(&dist.join(file.key), &file.bytes);
            let mut entry = json!({
                "size": file.bytes.len(),
                "sha256": "0".repeat(64),
                "etag": etag(&file.bytes),
                "content_type": file.content_type,
                "cache_control": file.cache_control,
            });
            if file.compress {
                let mut encodings = Map::new();
                for (coding, suffix, bytes) in [
                    ("br", "br", brotli(&file.bytes)),
                    ("gzip", "gz", gzip(&file.bytes)),
                ] {
                    let path = format!("{}.{suffix}", file.key);
                    write(&dist.join(&path), &bytes);
                    encodings.insert(
                        coding.into(),
                        json!({"path": path, "size": bytes.len(), "etag": etag(&bytes)}),
                    );
                }
                entry["encodings"] = Value::Object(encodings);
            }
            manifest.insert(file.key.into(), entry);
        }
        let manifest = json!({"format": 1, "files": manifest});
        write(
            &dist.join("manifest.json"),
            serde_json::to_string_pretty(&manifest).unwrap().as_bytes(),
        );
        // Planted just outside dist/, where a traversal would land.
        write(&dir.path().join("secret.txt"), SECRET.as_bytes());
        write(&dir.path().join("etc/passwd"), SECRET.as_bytes());
        write(&dist.join("../dist-secret.txt"), SECRET.as_bytes());
        Fixture { dir, dist }
    }

    /// The identity bytes of a file as written.
    pub fn read(&self, key: &str) -> Vec<u8> {
        std::fs::read(self.dist.join(key)).unwrap()
    }
}
