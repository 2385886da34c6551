//! What the generator's integration tests share, in one place: the
//! repository's folders, copies and snapshots of file trees, and (in
//! [`host_config`]) a site built by the real `generate` under a real front.
//!
//! A library of its own (a dev-dependency of `generator`, named `common`
//! there) rather than a `tests/common/mod.rs` that every test binary
//! compiles: each binary uses only part of the helpers, so as a module each
//! would warn of dead code, or need `#![allow(dead_code)]`, which would hide
//! private helpers nobody calls any more. As a library it is compiled once,
//! its public items are its interface, and nothing is silenced.

#![forbid(unsafe_code)]

pub mod host_config;
pub mod sample_site;
pub mod snapshots;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The repository's root: the workspace's folder above the running test's
/// package. Read when the test runs, not compiled in, so a test binary
/// built from one checkout serves a copy of it elsewhere.
pub fn repo() -> PathBuf {
    let package = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for tests"),
    );
    package
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .expect("the package is inside the workspace")
        .to_path_buf()
}

/// The `generate` binary cargo built for the tests. Cargo names it in
/// `CARGO_BIN_EXE_generate` at compile time only to the test binaries (this
/// library is not one); recent cargo also sets it when it runs them. Without
/// it, the binary is where cargo puts it: beside the `deps/` folder that
/// holds the running test binary.
pub fn generate_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("CARGO_BIN_EXE_generate") {
        return path.into();
    }
    let test = std::env::current_exe().expect("the test binary's path");
    let profile = test
        .parent()
        .and_then(Path::parent)
        .expect("the test binary is in target/<profile>/deps");
    profile.join(format!("generate{}", std::env::consts::EXE_SUFFIX))
}

/// Copies the folder `from` to `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let target = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &target);
        } else {
            std::fs::copy(&p, &target).unwrap();
        }
    }
}

/// Every file under `dir`, recursively.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Every file under `dir`: its path relative to `dir` → its bytes.
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}
