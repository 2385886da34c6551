//! The SQLite database holds visitors' enquiries (names, addresses,
//! messages), so what the sidecar writes of it is readable by its own user
//! only, whatever the umask (decision 0055): the database file and a backup
//! or restored copy 0600, a data directory the sidecar creates 0700.
//!
//! A file is created 0600 before SQLite first opens it; SQLite then gives
//! the `-wal`, `-shm` and `-journal` files beside it the database file's
//! mode. Modes are set explicitly after creating, since a umask can only
//! take permissions away (an odd umask such as 0277 would otherwise leave
//! an unwritable file).
//!
//! What exists is left as it is: a directory made by an operator or an
//! image keeps its mode (its listing shows file names only), and a database
//! file an earlier release created 0644 is kept, with a warning at each
//! open, rather than changed under a tool that may read it.

use std::fs::{DirBuilder, OpenOptions, Permissions};
use std::io::ErrorKind;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use anyhow::Context;

/// The mode of the database file and of backups.
pub const FILE_MODE: u32 = 0o600;
/// The mode of a data directory the sidecar creates.
pub const DIR_MODE: u32 = 0o700;

/// Creates `dir`, and any missing parent, 0700. A directory that exists is
/// left as it is.
pub fn create_dir(dir: &Path) -> anyhow::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)
        .with_context(|| format!("creating {}", dir.display()))?;
    std::fs::set_permissions(dir, Permissions::from_mode(DIR_MODE))
        .with_context(|| format!("making {} private", dir.display()))
}

/// Creates `path` as an empty file with mode 0600, unless it exists.
/// Returns whether it created it.
pub fn create_file(path: &Path) -> anyhow::Result<bool> {
    let created = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(path);
    match created {
        Ok(file) => {
            file.set_permissions(Permissions::from_mode(FILE_MODE))
                .with_context(|| format!("making {} private", path.display()))?;
            Ok(true)
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e).with_context(|| format!("creating {}", path.display())),
    }
}

/// Whether users other than the owner have any access to `path`.
pub fn shared(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o077 != 0)
}

/// Logs a warning when the existing database file at `path` is open to
/// users other than its owner; the file itself is left as it is.
pub fn warn_if_shared(path: &Path) {
    if shared(path) {
        tracing::warn!(
            file = %path.display(),
            "the database file, which holds enquiries, is readable by other users than its \
             owner; make it private with chmod 600 on it and its -wal and -shm files \
             (docs/operating.md, \"Backups and restore\")"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn new_files_and_directories_are_private_and_old_ones_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("a/b");
        create_dir(&data).unwrap();
        assert_eq!(mode(&data), DIR_MODE);
        assert_eq!(mode(&dir.path().join("a")), DIR_MODE);

        let file = data.join("f");
        assert!(create_file(&file).unwrap());
        assert_eq!(mode(&file), FILE_MODE);
        assert!(!shared(&file));

        // An existing file or directory keeps its mode, and its content.
        std::fs::write(&file, b"kept").unwrap();
        std::fs::set_permissions(&file, Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(&data, Permissions::from_mode(0o755)).unwrap();
        assert!(!create_file(&file).unwrap());
        create_dir(&data).unwrap();
        assert_eq!(mode(&file), 0o644);
        assert_eq!(mode(&data), 0o755);
        assert_eq!(std::fs::read(&file).unwrap(), b"kept");
        assert!(shared(&file));

        let err = create_file(&dir.path().join("missing/f")).unwrap_err();
        assert!(format!("{err:#}").contains("creating"), "{err:#}");
    }
}
