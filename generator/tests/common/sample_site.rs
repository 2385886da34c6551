//! A copy of the repository's sample content in a temporary folder, built
//! with the real `generate` and the repository's templates: what the
//! writer's-toolkit tests change and build.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::{copy_dir, generate_bin, repo};

/// The base URL every build of a [`SampleSite`] is made for.
pub const BASE: &str = "https://example.org";

/// The sample content copied to a temporary folder (`content/`, and
/// `dist/` once built).
pub struct SampleSite {
    tmp: tempfile::TempDir,
}

impl SampleSite {
    pub fn new() -> SampleSite {
        let tmp = tempfile::tempdir().unwrap();
        copy_dir(&repo().join("content"), &tmp.path().join("content"));
        SampleSite { tmp }
    }

    /// The temporary folder holding `content/` and `dist/`.
    pub fn root(&self) -> &Path {
        self.tmp.path()
    }

    pub fn content(&self) -> PathBuf {
        self.root().join("content")
    }

    pub fn dist(&self) -> PathBuf {
        self.root().join("dist")
    }

    /// Copies the repository's templates beside the content, for a test to
    /// add to; later builds use the copy. Returns its folder.
    pub fn own_templates(&self) -> PathBuf {
        let dir = self.root().join("templates");
        if !dir.is_dir() {
            copy_dir(&repo().join("templates"), &dir);
        }
        dir
    }

    fn templates(&self) -> PathBuf {
        let own = self.root().join("templates");
        if own.is_dir() {
            own
        } else {
            repo().join("templates")
        }
    }

    /// Adds `lines` to the front matter of `docs/<rel>`.
    pub fn front(&self, rel: &str, lines: &str) {
        let path = self.content().join("docs").join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        let (open, rest) = text.split_at(4);
        assert_eq!(open, "+++\n", "{rel} starts with front matter");
        std::fs::write(&path, format!("{open}{lines}\n{rest}")).unwrap();
    }

    /// Writes `content/docs/<rel>`.
    pub fn write(&self, rel: &str, text: &str) {
        self.write_content(&format!("docs/{rel}"), text);
    }

    /// Writes `content/<rel>`, making its folders.
    pub fn write_content(&self, rel: &str, text: &str) {
        let path = self.content().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Runs `generate` with `args`.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new(generate_bin())
            .args(args)
            .env_remove("GENERATE_SIDECAR_URL")
            .output()
            .expect("running generate")
    }

    /// `generate build` of the content into `dist/`, for [`BASE`].
    pub fn build(&self) -> Output {
        self.build_with(&[])
    }

    /// [`Self::build`] with `extra` arguments (`--snapshots DIR`, …).
    pub fn build_with(&self, extra: &[&str]) -> Output {
        let (content, templates, dist) = (self.content(), self.templates(), self.dist());
        let mut args = vec![
            "build",
            "--content",
            content.to_str().unwrap(),
            "--templates",
            templates.to_str().unwrap(),
            "--out",
            dist.to_str().unwrap(),
            "--base-url",
            BASE,
            "--quiet",
            "--no-cache",
        ];
        args.extend_from_slice(extra);
        self.run(&args)
    }

    /// Builds, asserting success.
    pub fn built(&self) {
        let o = self.build();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }

    /// Builds, asserting failure; the error output.
    pub fn refused(&self) -> String {
        let o = self.build();
        assert!(!o.status.success(), "the build should fail");
        String::from_utf8_lossy(&o.stderr).into_owned()
    }

    /// `generate check` of the content and `dist/`.
    pub fn check(&self) -> Output {
        self.check_with(&[])
    }

    /// [`Self::check`] with `extra` arguments (`--strict-translations`).
    pub fn check_with(&self, extra: &[&str]) -> Output {
        let (content, dist) = (self.content(), self.dist());
        let mut args = vec![
            "check",
            "--content",
            content.to_str().unwrap(),
            "--out",
            dist.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        self.run(&args)
    }

    /// A file of `dist/`.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dist().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }
}

impl Default for SampleSite {
    fn default() -> Self {
        Self::new()
    }
}
