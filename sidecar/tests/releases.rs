//! A content release while serving, through the real binary: `--dist` is a
//! symlink to the current release; pointing it at another release (or
//! SIGHUP) swaps the whole release in, a broken release is refused while
//! the old one keeps answering, and the hashed assets of earlier releases
//! stay served.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::client::Server;
use common::{File, Fixture, IMMUTABLE, PAGE};
use sha2::{Digest, Sha256};

fn release(home: &'static str, asset: &'static str) -> Fixture {
    Fixture::with_files(vec![
        File {
            key: "index.html",
            bytes: format!("<!doctype html><title>{home}</title><p>{home}</p>").into_bytes(),
            content_type: "text/html; charset=utf-8",
            cache_control: PAGE,
            compress: false,
        },
        File {
            key: asset,
            bytes: format!("body {{ content: \"{asset}\" }}\n").into_bytes(),
            content_type: "text/css; charset=utf-8",
            cache_control: IMMUTABLE,
            compress: false,
        },
    ])
}

/// The release id of a `dist/`: the first 16 hex digits of its manifest's
/// SHA-256, as `scripts/release` computes it.
fn id(dist: &Path) -> String {
    let digest = Sha256::digest(std::fs::read(dist.join("manifest.json")).unwrap());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Points the symlink `link` at `target` atomically (a new link renamed
/// over the old), as a release script does.
fn point(link: &Path, target: &Path) {
    let temp = link.with_extension("new");
    let _ = std::fs::remove_file(&temp);
    std::os::unix::fs::symlink(target, &temp).unwrap();
    std::fs::rename(&temp, link).unwrap();
}

fn serving(server: &Server) -> String {
    let reply = server.get("/healthz", &[]);
    let health: serde_json::Value = serde_json::from_slice(&reply.body).unwrap();
    assert_eq!(reply.must("x-release"), health["release"]);
    health["release"].as_str().unwrap().to_owned()
}

fn wait_for(server: &Server, release: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while serving(server) != release {
        assert!(Instant::now() < deadline, "release {release} never served");
        std::thread::sleep(Duration::from_millis(50));
    }
}

struct Releases {
    a: Fixture,
    b: Fixture,
    link: PathBuf,
    _dir: tempfile::TempDir,
}

fn releases() -> Releases {
    let dir = tempfile::tempdir().unwrap();
    let a = release("Release A", "assets/site.aaaaaaaaaaaaaaaa.css");
    let b = release("Release B", "assets/site.bbbbbbbbbbbbbbbb.css");
    let link = dir.path().join("current");
    point(&link, &a.dist);
    Releases {
        a,
        b,
        link,
        _dir: dir,
    }
}

#[test]
fn a_new_release_is_swapped_in_whole_and_old_assets_stay() {
    let r = releases();
    let (a, b) = (id(&r.a.dist), id(&r.b.dist));
    assert_ne!(a, b);
    let server = Server::start(&r.link, &["--dist-poll-ms", "50"]);
    assert_eq!(serving(&server), a);
    let home = server.get("/", &[]);
    assert_eq!(home.must("x-release"), a);
    assert!(String::from_utf8_lossy(&home.body).contains("Release A"));

    point(&r.link, &r.b.dist);
    wait_for(&server, &b);
    let home = server.get("/", &[]);
    assert_eq!(home.must("x-release"), b);
    assert!(String::from_utf8_lossy(&home.body).contains("Release B"));
    // A page cached from release A still finds its stylesheet.
    let old = server.get("/assets/site.aaaaaaaaaaaaaaaa.css", &[]);
    assert_eq!(old.status, 200);
    assert_eq!(
        old.must("x-release"),
        a,
        "a kept file names its own release"
    );
    assert_eq!(
        server.get("/assets/site.bbbbbbbbbbbbbbbb.css", &[]).status,
        200
    );

    // A broken release is refused: the old one keeps answering.
    let broken = tempfile::tempdir().unwrap();
    std::fs::write(
        broken.path().join("manifest.json"),
        b"{\"format\": 1, \"files\"",
    )
    .unwrap();
    point(&r.link, broken.path());
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(serving(&server), b);
    assert_eq!(server.get("/", &[]).must("x-release"), b);
    // A release whose manifest lists a file that is not there, too.
    let missing = release("Release C", "assets/site.cccccccccccccccc.css");
    std::fs::remove_file(missing.dist.join("assets/site.cccccccccccccccc.css")).unwrap();
    point(&r.link, &missing.dist);
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(serving(&server), b);

    // Rolling back is pointing at the earlier release again.
    point(&r.link, &r.a.dist);
    wait_for(&server, &a);
    assert!(String::from_utf8_lossy(&server.get("/", &[]).body).contains("Release A"));
    assert_eq!(
        server.get("/assets/site.bbbbbbbbbbbbbbbb.css", &[]).status,
        200,
        "release B's assets are kept after the rollback"
    );
}

#[test]
fn sighup_reloads_when_polling_is_off() {
    let r = releases();
    let (a, b) = (id(&r.a.dist), id(&r.b.dist));
    let server = Server::start(&r.link, &["--dist-poll-ms", "0"]);
    assert_eq!(serving(&server), a);
    point(&r.link, &r.b.dist);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(serving(&server), a, "no reload without a signal");
    server.signal("HUP");
    wait_for(&server, &b);
    // The process lived through the signal and still serves.
    assert_eq!(server.get("/", &[]).status, 200);
}
