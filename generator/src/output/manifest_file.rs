//! The manifest on disk: read from an earlier build, written last as the
//! mark of a whole build, and kept as JSON entry by entry between the
//! rebuilds of a session.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use rayon::prelude::*;

use super::publish::write_atomic;
use crate::manifest::{self, FileEntry, MANIFEST_FILE, Manifest};

/// Reads the manifest of a previous build, if there is a readable one.
pub fn read_manifest(out: &Path) -> Option<Manifest> {
    let bytes = std::fs::read(out.join(MANIFEST_FILE)).ok()?;
    let m: Manifest = serde_json::from_slice(&bytes).ok()?;
    (m.format == manifest::FORMAT).then_some(m)
}

/// Writes `manifest` last, as the mark of a whole build (unless it holds
/// these bytes already).
pub(super) fn write_manifest(out: &Path, manifest: &Manifest) -> Result<()> {
    // The entries serialised in parallel, then joined in order: at 10,000
    // pages they are 22,700 entries and 7.6 MB of JSON, which the end of
    // the build used to write on one thread.
    let files: Vec<&FileEntry> = manifest.files.values().collect();
    let fragments: Vec<Vec<u8>> = files.par_iter().map(|e| entry_json(e)).collect();
    let json = assemble(manifest, |i, _| &fragments[i]);
    let manifest_path = out.join(MANIFEST_FILE);
    if std::fs::read(&manifest_path).ok().as_deref() != Some(&json[..]) {
        write_atomic(&manifest_path, &json)?;
    }
    Ok(())
}

/// One file's entry as it sits two levels down in the manifest: what
/// `serde_json::to_vec_pretty` writes, each line after the first indented
/// by 4.
fn entry_json(entry: &FileEntry) -> Vec<u8> {
    let own = serde_json::to_vec_pretty(entry).expect("an entry serialises");
    let mut indented = Vec::with_capacity(own.len() + own.len() / 8);
    for &b in &own {
        indented.push(b);
        if b == b'\n' {
            indented.extend_from_slice(b"    ");
        }
    }
    indented
}

/// The bytes of `serde_json::to_vec_pretty(manifest)` plus a final
/// newline, with each file's entry ([`entry_json`]) given by `fragment`
/// (from its position and path).
fn assemble<'a>(manifest: &Manifest, fragment: impl Fn(usize, &str) -> &'a [u8]) -> Vec<u8> {
    if manifest.files.is_empty() {
        let mut json = serde_json::to_vec_pretty(manifest).expect("a manifest serialises");
        json.push(b'\n');
        return json;
    }
    // About 700 bytes an entry: one allocation, not a doubling series.
    let mut json = Vec::with_capacity(manifest.files.len() * 768 + 256);
    json.extend_from_slice(format!("{{\n  \"format\": {},\n", manifest.format).as_bytes());
    // The members before `files`, in the order serde writes them.
    for (name, value) in [
        ("site_origin", &manifest.site_origin),
        ("api_origin", &manifest.api_origin),
    ] {
        if let Some(origin) = value {
            json.extend_from_slice(format!("  \"{name}\": ").as_bytes());
            serde_json::to_writer(&mut json, origin).expect("a string serialises");
            json.extend_from_slice(b",\n");
        }
    }
    json.extend_from_slice(b"  \"files\": {\n");
    for (i, path) in manifest.files.keys().enumerate() {
        if i > 0 {
            json.extend_from_slice(b",\n");
        }
        json.extend_from_slice(b"    ");
        serde_json::to_writer(&mut json, path).expect("a string serialises");
        json.extend_from_slice(b": ");
        json.extend_from_slice(fragment(i, path));
    }
    json.extend_from_slice(b"\n  }");
    // The members after `files`, as serde writes them.
    if !manifest.redirects.is_empty() {
        json.extend_from_slice(b",\n  \"redirects\": ");
        let own = serde_json::to_vec_pretty(&manifest.redirects).expect("a map serialises");
        for &b in &own {
            json.push(b);
            if b == b'\n' {
                json.extend_from_slice(b"  ");
            }
        }
    }
    json.extend_from_slice(b"\n}\n");
    json
}

/// The manifest's JSON kept entry by entry between the rebuilds of one
/// session, so a rebuild serialises only the entries it published: the
/// bytes of `serde_json::to_vec_pretty` plus a final newline (tested).
#[derive(Default)]
pub struct ManifestJson {
    entries: HashMap<String, Vec<u8>>,
}

impl ManifestJson {
    /// The JSON of `manifest`, whose entries other than `changed` are those
    /// of the last call.
    pub fn render(&mut self, manifest: &Manifest, changed: &[String]) -> Vec<u8> {
        for path in changed {
            self.entries.remove(path);
        }
        // After a render every file has an entry, so more entries than files
        // means some files were removed since.
        if self.entries.len() > manifest.files.len() {
            self.entries
                .retain(|path, _| manifest.files.contains_key(path));
        }
        for (path, entry) in &manifest.files {
            if !self.entries.contains_key(path) {
                self.entries.insert(path.clone(), entry_json(entry));
            }
        }
        assemble(manifest, |_, path| &self.entries[path])
    }
}
