//! The manifest on disk: read from an earlier build, written last as the
//! mark of a whole build, and kept as JSON entry by entry between the
//! rebuilds of a session.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result};

use super::publish::write_atomic;
use crate::manifest::{self, MANIFEST_FILE, Manifest};

/// Reads the manifest of a previous build, if there is a readable one.
pub fn read_manifest(out: &Path) -> Option<Manifest> {
    let bytes = std::fs::read(out.join(MANIFEST_FILE)).ok()?;
    let m: Manifest = serde_json::from_slice(&bytes).ok()?;
    (m.format == manifest::FORMAT).then_some(m)
}

/// Writes `manifest` last, as the mark of a whole build (unless it holds
/// these bytes already).
pub(super) fn write_manifest(out: &Path, manifest: &Manifest) -> Result<()> {
    // About 700 bytes an entry: one allocation, not a doubling series.
    let mut json = Vec::with_capacity(manifest.files.len() * 768 + 256);
    serde_json::to_writer_pretty(&mut json, manifest).context("serialising the manifest")?;
    json.push(b'\n');
    let manifest_path = out.join(MANIFEST_FILE);
    if std::fs::read(&manifest_path).ok().as_deref() != Some(&json[..]) {
        write_atomic(&manifest_path, &json)?;
    }
    Ok(())
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
        if manifest.files.is_empty() {
            let mut json = serde_json::to_vec_pretty(manifest).expect("a manifest serialises");
            json.push(b'\n');
            return json;
        }
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
        for (i, (path, entry)) in manifest.files.iter().enumerate() {
            if i > 0 {
                json.extend_from_slice(b",\n");
            }
            json.extend_from_slice(b"    ");
            serde_json::to_writer(&mut json, path).expect("a string serialises");
            json.extend_from_slice(b": ");
            if let Some(fragment) = self.entries.get(path) {
                json.extend_from_slice(fragment);
                continue;
            }
            // An entry two levels down: each of its lines indented by 4.
            let own = serde_json::to_vec_pretty(entry).expect("an entry serialises");
            let mut indented = Vec::with_capacity(own.len() + own.len() / 8);
            for &b in &own {
                indented.push(b);
                if b == b'\n' {
                    indented.extend_from_slice(b"    ");
                }
            }
            json.extend_from_slice(&indented);
            self.entries.insert(path.clone(), indented);
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
}
