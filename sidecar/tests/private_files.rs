//! The real binary under umask 022, the usual default that makes new files
//! readable by everyone: the SQLite database it creates is 0600 in a data
//! directory it creates 0700, SQLite's `-wal` and `-shm` files beside it
//! take that mode while it serves, `sidecar backup` writes 0600 (also over
//! an earlier file readable by all), `sidecar restore` writes 0600 into a
//! directory it creates 0700, and a data directory that already exists
//! keeps its mode (decision 0055).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::Fixture;

/// `sidecar ARGS` started by a shell that set umask 022 first.
fn sidecar(args: &[&str]) -> Command {
    let mut command = Command::new("sh");
    command
        .args(["-c", "umask 022 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_sidecar"))
        .args(args);
    for (name, _) in std::env::vars() {
        if name.starts_with("SIDECAR_") {
            command.env_remove(name);
        }
    }
    command
}

fn run(args: &[&str]) -> Output {
    let out = sidecar(args).output().expect("the sidecar binary runs");
    assert!(
        out.status.success(),
        "sidecar {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The permission bits, in octal as `ls` and `chmod` write them.
fn mode(path: &Path) -> String {
    let meta = std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    format!("{:o}", meta.permissions().mode() & 0o777)
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn the_database_its_backups_and_restores_are_private_under_umask_022() {
    let tmp = tempfile::tempdir().unwrap();
    // The shell's umask is what the binary gets: a file it creates without
    // care is 0644 here, so the checks below can fail.
    let plain = tmp.path().join("plain");
    let out = Command::new("sh")
        .args(["-c", "umask 022 && : > \"$0\""])
        .arg(&plain)
        .status()
        .unwrap();
    assert!(out.success());
    assert_eq!(mode(&plain), "644");

    let data = tmp.path().join("var/data");
    run(&["migrate", "--data-dir", s(&data)]);
    assert_eq!(mode(&data), "700", "the data directory the sidecar created");
    assert_eq!(mode(&data.join("service.sqlite3")), "600");

    let backups = tmp.path().join("backups");
    std::fs::create_dir(&backups).unwrap();
    let backup = backups.join("service.sqlite3");
    std::fs::write(&backup, b"an earlier backup").unwrap();
    std::fs::set_permissions(&backup, std::fs::Permissions::from_mode(0o644)).unwrap();
    run(&["backup", "--data-dir", s(&data), "--to", s(&backup)]);
    assert_eq!(mode(&backup), "600", "the backup");
    let left: Vec<_> = std::fs::read_dir(&backups)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["service.sqlite3"], "nothing else beside the backup");

    let restored = tmp.path().join("restored/data");
    run(&["restore", "--from", s(&backup), "--data-dir", s(&restored)]);
    assert_eq!(mode(&restored), "700", "the data directory restore created");
    assert_eq!(mode(&tmp.path().join("restored")), "700");
    assert_eq!(mode(&restored.join("service.sqlite3")), "600");

    // A directory that exists keeps its mode; the database made in it is
    // private all the same.
    let existing = tmp.path().join("existing");
    std::fs::create_dir(&existing).unwrap();
    std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o750)).unwrap();
    run(&["migrate", "--data-dir", s(&existing)]);
    assert_eq!(mode(&existing), "750");
    assert_eq!(mode(&existing.join("service.sqlite3")), "600");
}

#[test]
fn the_wal_and_shm_files_of_a_serving_sidecar_are_private_under_umask_022() {
    let f = Fixture::new();
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut child = sidecar(&["serve", "--listen", "127.0.0.1:0", "--sample", "none"])
        .args(["--admin-listen", "off", "--dist"])
        .arg(&f.dist)
        .arg("--data-dir")
        .arg(&data)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let db = data.join("service.sqlite3");
    let (wal, shm) = (
        data.join("service.sqlite3-wal"),
        data.join("service.sqlite3-shm"),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while !(wal.exists() && shm.exists()) {
        if Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!("no -wal and -shm beside {} while serving", db.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let modes = [mode(&data), mode(&db), mode(&wal), mode(&shm)];
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        modes,
        ["700", "600", "600", "600"],
        "data dir, db, -wal, -shm"
    );
}
