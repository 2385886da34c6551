//! Loading a new release while serving the old one.
//!
//! A release is published by pointing `--dist` (a symlink) at a new
//! directory, or by building into it again; the sidecar notices the change
//! of the manifest it resolves to (polled) or is told with `SIGHUP`. The
//! new `dist/` is loaded and checked beside the old one, which keeps
//! serving; only a release that passed every check replaces it, in one
//! atomic swap. A release that fails is refused with one log line and is
//! not tried again until the manifest changes once more or another
//! `SIGHUP` arrives.
//!
//! Pages cached by browsers and CDNs from a previous release name its
//! hashed assets (`/assets/<name>.<hash>.<ext>`); the assets of the last
//! `keep` releases stay served beside the current one's.

use std::collections::VecDeque;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use super::files::Entry;
use super::{Current, Published};

use contract::manifest::MANIFEST_FILE;

/// What made a reload happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// `SIGHUP`: load whatever `--dist` points at now.
    Signal,
    /// The manifest `--dist` resolves to changed.
    Changed,
}

/// What a reload did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A new release is served.
    Swapped { from: String, to: String },
    /// `--dist` holds the release already served.
    Unchanged,
    /// The new `dist/` failed its checks; the old release keeps serving.
    Refused(String),
}

/// Reloads `--dist` into a [`Current`], keeping the hashed assets of the
/// last releases.
#[derive(Debug)]
pub struct Reloader {
    dist: PathBuf,
    fallback_base: String,
    keep: usize,
    file_memory: u64,
    /// The hashed assets each of the last `keep` releases published, the
    /// newest last.
    history: VecDeque<Vec<Arc<Entry>>>,
    /// The manifest `--dist` resolved to at the last attempt.
    seen: Option<Fingerprint>,
}

/// Where a manifest is and when it was written: a new symlink target or a
/// rewritten manifest changes it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fingerprint {
    device: u64,
    inode: u64,
    modified_ns: i128,
    len: u64,
}

impl Fingerprint {
    fn of(dist: &Path) -> Option<Fingerprint> {
        let m = std::fs::metadata(dist.join(MANIFEST_FILE)).ok()?;
        Some(Fingerprint {
            device: m.dev(),
            inode: m.ino(),
            modified_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            len: m.len(),
        })
    }
}

impl Reloader {
    /// A reloader of `dist`, whose release `current` serves now.
    pub fn new(dist: &Path, fallback_base: &str, keep: usize, file_memory: u64) -> Reloader {
        Reloader {
            dist: dist.to_owned(),
            fallback_base: fallback_base.to_owned(),
            keep,
            file_memory,
            history: VecDeque::new(),
            seen: Fingerprint::of(dist),
        }
    }

    /// Whether the manifest `--dist` resolves to differs from the one seen
    /// at the last attempt.
    pub fn changed(&self) -> bool {
        let now = Fingerprint::of(&self.dist);
        now.is_some() && now != self.seen
    }

    /// Loads `--dist` and, when it is a new release that passes its
    /// checks, serves it from `current`.
    pub fn reload(&mut self, current: &Current, trigger: Trigger) -> Outcome {
        self.seen = Fingerprint::of(&self.dist);
        let serving = current.full();
        let mut next =
            match Published::load_within(&self.dist, &self.fallback_base, self.file_memory) {
                Ok(next) => next,
                Err(e) => {
                    let reason = format!("{e:#}");
                    tracing::error!(
                        serving = serving.release,
                        ?trigger,
                        dist = %self.dist.display(),
                        "release refused, the old one keeps serving: {reason}"
                    );
                    return Outcome::Refused(reason);
                }
            };
        if next.release == serving.release {
            tracing::info!(release = next.release, ?trigger, "release unchanged");
            return Outcome::Unchanged;
        }
        self.history
            .push_back(serving.files.own_assets(&serving.release_header));
        while self.history.len() > self.keep {
            self.history.pop_front();
        }
        next.files.keep_assets(self.history.iter().flatten());
        let (from, to) = (serving.release.clone(), next.release.clone());
        tracing::info!(
            from,
            to,
            ?trigger,
            files = next.files.file_count(),
            kept_assets = next.files.kept_assets(),
            "release loaded and swapped in"
        );
        drop(serving);
        current.publish(Arc::new(next));
        Outcome::Swapped { from, to }
    }

    /// Reloads on every signal received on `signals`, and when the
    /// manifest changes, checked every `poll` (never when `None`), until
    /// the sender is dropped.
    pub fn watch(mut self, current: &Current, signals: Receiver<()>, poll: Option<Duration>) {
        loop {
            let trigger = match poll {
                Some(every) => match signals.recv_timeout(every) {
                    Ok(()) => Trigger::Signal,
                    Err(RecvTimeoutError::Timeout) if self.changed() => Trigger::Changed,
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => return,
                },
                None => match signals.recv() {
                    Ok(()) => Trigger::Signal,
                    Err(_) => return,
                },
            };
            self.reload(current, trigger);
        }
    }
}
