//! The day a document last changed when its front matter gives none: the
//! last commit that touched its file, when the file is in a git repository
//! and unchanged since that commit; otherwise the file's modification time
//! (UTC). Four git commands for a whole build (one when no file under the
//! folder is tracked; the last three at once), run while the documents
//! are read.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::model::Date;

/// Last-change days of the committed files under a folder.
#[derive(Default)]
pub(super) struct LastChanges {
    committed: HashMap<PathBuf, String>,
}

impl LastChanges {
    /// The history of `dir`; empty outside a repository or without git.
    pub(super) fn of(dir: &Path) -> LastChanges {
        LastChanges {
            committed: committed(dir).unwrap_or_default(),
        }
    }

    /// The day `file` last changed; `None` when it cannot be read.
    pub(super) fn day(&self, file: &Path) -> Option<Date> {
        // Without a history there is nothing to look the file up in, so
        // no canonical path (a system call per folder above the file).
        let day = if self.committed.is_empty() {
            modified_day(file)?
        } else {
            let file = std::fs::canonicalize(file).ok()?;
            match self.committed.get(&file) {
                Some(day) => day.clone(),
                None => modified_day(&file)?,
            }
        };
        Date::parse(&day).ok()
    }
}

fn git(dir: &Path, args: &[&str]) -> Option<Vec<u8>> {
    finish(start(dir, args)?)
}

/// A git command started in `dir`, its output piped.
fn start(dir: &Path, args: &[&str]) -> Option<std::process::Child> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.quotePath=false"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()
}

/// What a started command printed, when it succeeded.
fn finish(child: std::process::Child) -> Option<Vec<u8>> {
    let out = child.wait_with_output().ok()?;
    out.status.success().then_some(out.stdout)
}

/// Each file under `dir` with the day of the last commit that touched it,
/// leaving out files changed since (or never committed).
fn committed(dir: &Path) -> Option<HashMap<PathBuf, String>> {
    // A folder with no tracked file (ignored, or never added) has no
    // history: one quick command instead of a walk through every commit.
    let tracked = git(dir, &["ls-files", "-z", "--", "."])?;
    if tracked.is_empty() {
        return Some(HashMap::new());
    }
    // The other three do not depend on each other: they run at once, so
    // the build waits for the longest (the log), not for their sum.
    let top = start(dir, &["rev-parse", "--show-toplevel"]);
    let status = start(
        dir,
        &[
            "status",
            "--porcelain",
            "-z",
            "--untracked-files=all",
            "--",
            ".",
        ],
    );
    let log = start(
        dir,
        &[
            "log",
            "--format=%x00%cs",
            "--name-only",
            "--no-renames",
            "--",
            ".",
        ],
    );
    // Each is waited for, whatever the others gave.
    let (top, status, log) = (
        top.and_then(finish),
        status.and_then(finish),
        log.and_then(finish),
    );
    let (top, status, log) = (top?, status?, log?);
    let top = std::fs::canonicalize(String::from_utf8(top).ok()?.trim_end()).ok()?;
    // Porcelain paths are relative to the repository's root.
    let changed: HashSet<PathBuf> = status
        .split(|b| *b == 0)
        .filter_map(|entry| entry.get(3..))
        .map(|path| top.join(String::from_utf8_lossy(path).as_ref()))
        .collect();
    let log = String::from_utf8(log).ok()?;
    let mut days = HashMap::new();
    let mut day = "";
    for line in log.lines() {
        if let Some(d) = line.strip_prefix('\0') {
            day = d;
        } else if !line.is_empty() {
            let path = top.join(line);
            if !changed.contains(&path) {
                // The log is newest first: keep a file's first day.
                days.entry(path).or_insert_with(|| day.to_owned());
            }
        }
    }
    Some(days)
}

fn modified_day(file: &Path) -> Option<String> {
    let modified = std::fs::metadata(file).ok()?.modified().ok()?;
    let seconds = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    let date = time::OffsetDateTime::from_unix_timestamp(i64::try_from(seconds).ok()?)
        .ok()?
        .date();
    Some(format!(
        "{:04}-{:02}-{:02}",
        date.year(),
        u8::from(date.month()),
        date.day()
    ))
}
