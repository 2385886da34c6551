//! `sidecar backup` and `sidecar restore` for the SQLite file (decision
//! 0027). PostgreSQL has its own tools (`pg_dump`, `pg_restore`;
//! docs/operating.md gives the commands).
//!
//! A backup is SQLite's online backup of a running database: every page is
//! copied in one step, inside one read transaction, so the copy is the
//! database as of one commit, while the sidecar keeps writing (WAL lets a
//! writer run beside a reader). The copy is written beside its destination
//! under a temporary name, checked (`PRAGMA integrity_check`), synced and
//! then renamed over it: an interrupted backup never leaves a half-written
//! file under the name a restore would read, and never spoils the previous
//! backup of that name. Both the backup and the restored database are
//! written 0600, and a directory a restore creates 0700
//! ([`crate::store::private`]): they hold visitors' enquiries.
//!
//! A restore is the same copy the other way, into a database file that does
//! not exist yet (the sidecar is stopped and the old file moved away first:
//! nothing is ever overwritten). A backup written by a newer schema than
//! this binary knows is refused; an older one is migrated forward when the
//! sidecar opens it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

use super::MIGRATIONS;
use crate::store::private;

/// How long a backup waits for a database that stays locked.
const BUSY_FOR: Duration = Duration::from_secs(30);

/// What a backup or restore copied, for the line the command prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    pub schema_version: i64,
    pub observations: i64,
    pub enquiries: i64,
    /// Enquiries whose mail was not sent yet (pending in the outbox).
    pub unsent: i64,
    pub bytes: u64,
}

impl std::fmt::Display for Copied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "schema version {}, {} observations, {} enquiries ({} not sent yet), {} bytes",
            self.schema_version, self.observations, self.enquiries, self.unsent, self.bytes
        )
    }
}

/// Copies the live database at `source` to `to`, atomically replacing any
/// earlier file of that name.
pub fn backup(source: &Path, to: &Path) -> anyhow::Result<Copied> {
    if !source.is_file() {
        bail!(
            "no database at {} (is --data-dir or --database right?)",
            source.display()
        );
    }
    let src = Connection::open_with_flags(source, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("opening {}", source.display()))?;
    src.busy_timeout(BUSY_FOR)?;
    copy_to_new_file(&src, to).with_context(|| format!("writing the backup {}", to.display()))
}

/// Copies the backup `from` into `target`, which must not exist yet.
pub fn restore(from: &Path, target: &Path) -> anyhow::Result<Copied> {
    if target.exists() {
        bail!(
            "{} already exists: stop the sidecar and move the database (and its -wal and -shm \
             files) away before restoring, so that nothing is overwritten",
            target.display()
        );
    }
    if !from.is_file() {
        bail!("no backup file at {}", from.display());
    }
    let src = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("opening the backup {}", from.display()))?;
    let found = check(&src).with_context(|| format!("checking the backup {}", from.display()))?;
    let known = MIGRATIONS.iter().map(|(v, _)| *v).max().unwrap_or(0);
    if found.schema_version > known {
        bail!(
            "the backup {} has schema version {}, newer than this sidecar knows ({known}): \
             restore it with the release that wrote it",
            from.display(),
            found.schema_version
        );
    }
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        private::create_dir(dir)?;
    }
    copy_to_new_file(&src, target).with_context(|| format!("writing {}", target.display()))
}

/// The online copy of `src` into a temporary file beside `to`, checked,
/// synced and renamed to `to`.
fn copy_to_new_file(src: &Connection, to: &Path) -> anyhow::Result<Copied> {
    let partial = partial_name(to)?;
    // A temporary file left by an interrupted run is ours to replace.
    remove_if_present(&partial)?;
    let result = (|| {
        // 0600 before SQLite writes a page into it (and its -journal with
        // it); the rename keeps the mode.
        private::create_file(&partial)?;
        let mut dst = Connection::open(&partial)?;
        {
            let backup = Backup::new(src, &mut dst)?;
            // -1: every page in one step, so one read transaction on the
            // source; writers go on meanwhile (WAL). Busy or locked: the
            // step is tried again, within the busy timeout's bound.
            let deadline = Instant::now() + BUSY_FOR;
            loop {
                match backup.step(-1)? {
                    StepResult::Done => break,
                    _ if Instant::now() > deadline => bail!("the database stayed busy"),
                    _ => std::thread::sleep(Duration::from_millis(50)),
                }
            }
        }
        // A file that stands alone: no -wal beside it.
        dst.pragma_update(None, "journal_mode", "DELETE")?;
        let copied = check(&dst)?;
        dst.close().map_err(|(_, e)| e)?;
        let file = std::fs::File::open(&partial)?;
        file.sync_all()?;
        let bytes = file.metadata()?.len();
        Ok::<_, anyhow::Error>(Copied { bytes, ..copied })
    })();
    let copied = match result {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    std::fs::rename(&partial, to)?;
    if let Some(dir) = to.parent().filter(|d| !d.as_os_str().is_empty()) {
        // The rename itself is durable once the directory is synced.
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(copied)
}

/// Checks the database's integrity and reads its counts.
fn check(conn: &Connection) -> anyhow::Result<Copied> {
    let verdict: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .context("not a readable SQLite database")?;
    if verdict != "ok" {
        bail!("integrity check failed: {verdict}");
    }
    let has = |table: &str| -> rusqlite::Result<bool> {
        conn.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
            [table],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
    };
    if !has("schema_migrations")? {
        bail!("not a sidecar database (no schema_migrations table)");
    }
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0));
    let (enquiries, unsent) = if has("outbox")? {
        (
            count("SELECT count(*) FROM enquiries")?,
            count("SELECT count(*) FROM outbox WHERE status = 'pending'")?,
        )
    } else {
        (0, 0)
    };
    Ok(Copied {
        schema_version: count("SELECT coalesce(max(version), 0) FROM schema_migrations")?,
        observations: count("SELECT count(*) FROM observations")?,
        enquiries,
        unsent,
        bytes: 0,
    })
}

fn partial_name(to: &Path) -> anyhow::Result<PathBuf> {
    let name = to
        .file_name()
        .with_context(|| format!("{} names no file", to.display()))?;
    let mut partial = name.to_os_string();
    partial.push(".partial");
    Ok(to.with_file_name(partial))
}

fn remove_if_present(path: &Path) -> anyhow::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", path.display()))
        }
        _ => Ok(()),
    }
}

/// Times a copy for the command's report.
pub fn timed<T>(f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<(T, Duration)> {
    let start = Instant::now();
    let out = f()?;
    Ok((out, start.elapsed()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::SqliteStore;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// A migrated database with the small sample set.
    fn database(dir: &Path) -> PathBuf {
        let path = dir.join("service.sqlite3");
        runtime().block_on(async {
            let store = crate::store::Store::Sqlite(SqliteStore::open(&path).await.unwrap());
            store
                .fill_sample(crate::store::SampleSize::Default)
                .await
                .unwrap();
        });
        path
    }

    #[test]
    fn a_backup_restores_to_the_same_counts_and_nothing_is_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let db = database(dir.path());
        let file = dir.path().join("backups/b.sqlite3");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let made = backup(&db, &file).unwrap();
        assert!(made.observations > 0 && made.schema_version >= 2, "{made}");
        assert!(!dir.path().join("backups/b.sqlite3.partial").exists());
        assert!(!dir.path().join("backups/b.sqlite3-wal").exists());

        let target = dir.path().join("restored/service.sqlite3");
        let restored = restore(&file, &target).unwrap();
        assert_eq!(restored.observations, made.observations);
        assert_eq!(restored.schema_version, made.schema_version);
        // A second restore onto the restored file is refused, whole.
        let before = std::fs::read(&target).unwrap();
        let err = restore(&file, &target).unwrap_err().to_string();
        assert!(err.contains("already exists"), "{err}");
        assert_eq!(std::fs::read(&target).unwrap(), before);
    }

    #[test]
    fn backups_and_restored_databases_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let db = database(dir.path());
        // A backup replacing an earlier file readable by all is private.
        let file = dir.path().join("b.sqlite3");
        std::fs::write(&file, b"an older backup").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        backup(&db, &file).unwrap();
        assert_eq!(mode(&file), 0o600);

        let target = dir.path().join("new/data/service.sqlite3");
        restore(&file, &target).unwrap();
        assert_eq!(mode(&target), 0o600);
        assert_eq!(mode(target.parent().unwrap()), 0o700);
    }

    #[test]
    fn bad_sources_are_refused_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let missing = backup(&dir.path().join("none.sqlite3"), &dir.path().join("b"));
        assert!(format!("{:#}", missing.unwrap_err()).contains("no database"));

        let junk = dir.path().join("junk.sqlite3");
        std::fs::write(&junk, b"not a database at all, just some text").unwrap();
        let err = format!(
            "{:#}",
            restore(&junk, &dir.path().join("t.sqlite3")).unwrap_err()
        );
        assert!(err.contains("checking the backup"), "{err}");
        assert!(!dir.path().join("t.sqlite3").exists());

        let foreign = dir.path().join("foreign.sqlite3");
        Connection::open(&foreign)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        let err = format!(
            "{:#}",
            restore(&foreign, &dir.path().join("t.sqlite3")).unwrap_err()
        );
        assert!(err.contains("not a sidecar database"), "{err}");
    }

    #[test]
    fn a_backup_from_a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let db = database(dir.path());
        let file = dir.path().join("b.sqlite3");
        backup(&db, &file).unwrap();
        Connection::open(&file)
            .unwrap()
            .execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (9999, 0)",
                [],
            )
            .unwrap();
        let err = format!(
            "{:#}",
            restore(&file, &dir.path().join("t.sqlite3")).unwrap_err()
        );
        assert!(err.contains("schema version 9999"), "{err}");
    }

    #[test]
    fn a_failed_backup_leaves_the_earlier_one_whole() {
        let dir = tempfile::tempdir().unwrap();
        let db = database(dir.path());
        let file = dir.path().join("b.sqlite3");
        backup(&db, &file).unwrap();
        let before = std::fs::read(&file).unwrap();
        // The source is gone: the backup fails before touching the file.
        std::fs::rename(&db, dir.path().join("moved")).unwrap();
        assert!(backup(&db, &file).is_err());
        assert_eq!(std::fs::read(&file).unwrap(), before);
    }
}
