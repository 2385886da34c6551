//! Compressed twins kept between builds, by the SHA-256 of the bytes they
//! compress: a build into a fresh folder (a CI job, a benchmark, a second
//! checkout) compresses only the files no earlier build compressed.
//!
//! An entry is `DIR/ab/<sha256 of the original>.<encoding>`: a line with
//! the SHA-256 of the compressed bytes, then those bytes. The build hashes
//! a twin anyway (its ETag), so checking an entry against its line costs
//! nothing; an entry that fails the check (a disk error, a hand edit) is
//! deleted and compressed again. The encoding's name carries the encoder
//! settings and the generator's version, so a change to either never
//! reuses a twin the new settings would not write byte for byte.
//!
//! The cache is an accelerator, never a source: any failure to read or
//! write it is the same as a miss. Entries not used for [`MAX_AGE`] are
//! deleted (checked at most once a day); a used entry has its modification
//! time renewed at most once a day.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use crate::manifest::sha256_hex;

/// Entries unused for this long are deleted.
pub const MAX_AGE: Duration = Duration::from_secs(14 * 24 * 3600);
/// How often a used entry's time is renewed, and the sweep runs.
const RENEW: Duration = Duration::from_secs(24 * 3600);
const SWEPT: &str = "swept";

/// The folder of cached twins.
#[derive(Debug, Clone)]
pub struct TwinCache {
    dir: PathBuf,
}

/// A twin: its bytes and their SHA-256 (hex).
pub type Twin = (Vec<u8>, String);

static TEMP: AtomicU64 = AtomicU64::new(0);

impl TwinCache {
    /// The cache in `dir` (created when first written).
    pub fn new(dir: &Path) -> TwinCache {
        TwinCache {
            dir: dir.to_owned(),
        }
    }

    fn entry(&self, sha: &str, encoding: &str) -> PathBuf {
        self.dir
            .join(&sha[..2.min(sha.len())])
            .join(format!("{sha}.{encoding}"))
    }

    /// The twin of the bytes hashing to `sha` in `encoding`, if cached
    /// and intact.
    pub fn get(&self, sha: &str, encoding: &str) -> Option<Twin> {
        let path = self.entry(sha, encoding);
        let file = std::fs::read(&path).ok()?;
        let intact = file
            .iter()
            .position(|&b| b == b'\n')
            .map(|nl| (&file[..nl], &file[nl + 1..]))
            .and_then(|(line, bytes)| {
                let twin_sha = sha256_hex(bytes);
                (line == twin_sha.as_bytes()).then(|| (bytes.to_vec(), twin_sha))
            });
        match intact {
            Some(twin) => {
                renew(&path);
                Some(twin)
            }
            None => {
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// Keeps `twin` of the bytes hashing to `sha` (written whole under a
    /// temporary name, then renamed, so a concurrent build never reads
    /// half an entry).
    pub fn put(&self, sha: &str, encoding: &str, twin: &Twin) {
        let path = self.entry(sha, encoding);
        let Some(parent) = path.parent() else { return };
        if std::fs::create_dir_all(parent).is_err() {
            return;
        }
        let mut file = Vec::with_capacity(twin.1.len() + 1 + twin.0.len());
        file.extend_from_slice(twin.1.as_bytes());
        file.push(b'\n');
        file.extend_from_slice(&twin.0);
        let tmp = parent.join(format!(
            ".tmp-{}-{}",
            std::process::id(),
            TEMP.fetch_add(1, Ordering::Relaxed)
        ));
        if std::fs::write(&tmp, &file).is_err() || std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }

    /// Deletes entries unused for [`MAX_AGE`], at most once a day; returns
    /// how many.
    pub fn sweep(&self) -> usize {
        let marker = self.dir.join(SWEPT);
        if age(&marker).is_some_and(|a| a < RENEW) || !self.dir.is_dir() {
            return 0;
        }
        let _ = std::fs::write(&marker, b"");
        let mut removed = 0;
        let Ok(shards) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        for shard in shards.flatten() {
            let Ok(entries) = std::fs::read_dir(shard.path()) else {
                continue;
            };
            for e in entries.flatten() {
                if age(&e.path()).is_some_and(|a| a > MAX_AGE)
                    && std::fs::remove_file(e.path()).is_ok()
                {
                    removed += 1;
                }
            }
        }
        removed
    }
}

/// How long ago `path` was last modified.
fn age(path: &Path) -> Option<Duration> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    SystemTime::now().duration_since(modified).ok()
}

/// Marks an entry as used (at most once a day, to spare the writes).
fn renew(path: &Path) {
    if age(path).is_some_and(|a| a > RENEW)
        && let Ok(f) = std::fs::File::options().append(true).open(path)
    {
        let _ = f.set_modified(SystemTime::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_round_trips_and_a_damaged_one_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TwinCache::new(&dir.path().join("cache"));
        let sha = sha256_hex(b"original");
        assert!(cache.get(&sha, "br").is_none());
        let twin = (b"compressed".to_vec(), sha256_hex(b"compressed"));
        cache.put(&sha, "br", &twin);
        assert_eq!(cache.get(&sha, "br"), Some(twin.clone()));
        assert!(
            cache.get(&sha, "gz").is_none(),
            "another encoding is another entry"
        );

        // One flipped byte: a miss, and the entry is gone.
        let path = cache.entry(&sha, "br");
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, bytes).unwrap();
        assert!(cache.get(&sha, "br").is_none());
        assert!(!path.exists());

        // Truncated to nothing, or without its line: a miss too.
        cache.put(&sha, "br", &twin);
        std::fs::write(&path, b"").unwrap();
        assert!(cache.get(&sha, "br").is_none());
    }

    #[test]
    fn an_unwritable_cache_is_a_miss_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-folder");
        std::fs::write(&file, b"x").unwrap();
        let cache = TwinCache::new(&file);
        let sha = sha256_hex(b"original");
        cache.put(&sha, "br", &(b"c".to_vec(), sha256_hex(b"c")));
        assert!(cache.get(&sha, "br").is_none());
        assert_eq!(cache.sweep(), 0);
    }

    #[test]
    fn old_entries_are_swept_and_used_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TwinCache::new(dir.path());
        let (old, used) = (sha256_hex(b"old"), sha256_hex(b"used"));
        let twin = (b"c".to_vec(), sha256_hex(b"c"));
        cache.put(&old, "br", &twin);
        cache.put(&used, "br", &twin);
        let long_ago = SystemTime::now() - MAX_AGE - Duration::from_secs(3600);
        for sha in [&old, &used] {
            let f = std::fs::File::options()
                .append(true)
                .open(cache.entry(sha, "br"))
                .unwrap();
            f.set_modified(long_ago).unwrap();
        }
        // Using an entry renews it.
        assert!(cache.get(&used, "br").is_some());
        assert_eq!(cache.sweep(), 1);
        assert!(cache.get(&old, "br").is_none());
        assert!(cache.get(&used, "br").is_some());
        // The sweep runs at most once a day.
        cache.put(&old, "br", &twin);
        std::fs::File::options()
            .append(true)
            .open(cache.entry(&old, "br"))
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        assert_eq!(cache.sweep(), 0);
    }
}
