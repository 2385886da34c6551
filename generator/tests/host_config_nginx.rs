//! `generate host-config --for nginx` under a real nginx (Debian's, as
//! `tests/e2e/fronts.sh` installs it), in a main configuration that loads no
//! module, as the official nginx image has none: the configuration for a
//! front container (`--root` elsewhere than where the build was read)
//! passes `nginx -t` and serves that root, gzipped on the fly for a build
//! without twins, its .gz twins for one with; the one that asks for
//! brotli_static does not start without the module. Hashed assets the
//! manifest does not list (an earlier release's, on disk beside it) are
//! served as hashed assets; missing ones are the 404 page.
//!
//! Without an `nginx` on this machine these tests say so and pass: the
//! end-to-end suite (tests/e2e/fronts.sh, which installs nginx) runs the
//! same check on every CI run.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::host_config::{
    Running, add_kept_asset, build, check_assets, copy_readable, find, free_port, generate, get,
};

fn nginx() -> Option<PathBuf> {
    find("nginx")
}

/// `generate host-config --for nginx` of `dist` with `extra`, wrapped in a
/// main configuration that loads `modules`; returns the main file.
fn configure(dir: &Path, dist: &Path, port: u16, extra: &[&str], modules: &str) -> PathBuf {
    let out = dir.join("generated");
    let mut args = vec![
        "host-config",
        "--for",
        "nginx",
        "--dist",
        dist.to_str().unwrap(),
        // Nothing listens there: only files are asked for.
        "--sidecar-url",
        "http://127.0.0.1:9",
        "--out",
        out.to_str().unwrap(),
    ];
    let listen = format!("127.0.0.1:{port}");
    args.extend(["--listen", &listen]);
    args.extend_from_slice(extra);
    generate(&args);
    let prefix = dir.join("prefix");
    std::fs::create_dir_all(&prefix).unwrap();
    let p = prefix.display();
    let main = dir.join("main.conf");
    std::fs::write(
        &main,
        format!(
            "{modules}\nworker_processes 1;\npid {p}/nginx.pid;\nerror_log {p}/error.log warn;\n\
             events {{ worker_connections 64; }}\n\
             http {{\n    access_log off;\n    client_body_temp_path {p}/body;\n    proxy_temp_path {p}/proxy;\n    \
             fastcgi_temp_path {p}/fastcgi;\n    uwsgi_temp_path {p}/uwsgi;\n    scgi_temp_path {p}/scgi;\n    \
             include {};\n}}\n",
            out.join("nginx.conf").display()
        ),
    )
    .unwrap();
    main
}

fn test_config(nginx: &Path, main: &Path) -> Output {
    Command::new(nginx)
        .args(["-t", "-q", "-c"])
        .arg(main)
        .arg("-p")
        .arg(main.parent().unwrap().join("prefix"))
        .output()
        .unwrap()
}

fn start(nginx: &Path, main: &Path, port: u16) -> Running {
    let child = Command::new(nginx)
        .arg("-c")
        .arg(main)
        .arg("-p")
        .arg(main.parent().unwrap().join("prefix"))
        .args(["-g", "daemon off; master_process off;"])
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    Running(child).listening(port)
}

#[test]
fn on_the_fly_at_another_root_starts_without_modules_and_gzips() {
    let Some(nginx) = nginx() else {
        eprintln!("skipped: no nginx here (tests/e2e/fronts.sh runs this check with one)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let dist = dir.path().join("dist");
    build(&dist, &[]);
    // The front sees the build elsewhere (a container's mount): the folder
    // read is removed, so only --root can be served.
    let served = dir.path().join("srv/dist");
    copy_readable(&dist, &served);
    let port = free_port();
    let main = configure(
        dir.path(),
        &dist,
        port,
        &[
            "--root",
            served.to_str().unwrap(),
            "--compression",
            "on-the-fly",
        ],
        "",
    );
    std::fs::remove_dir_all(&dist).unwrap();
    let conf = std::fs::read_to_string(dir.path().join("generated/nginx.conf")).unwrap();
    assert!(conf.contains(&format!("    root {};\n", served.display())));
    assert!(!conf.contains("brotli_static on;"));

    let t = test_config(&nginx, &main);
    assert!(
        t.status.success(),
        "nginx -t: {}",
        String::from_utf8_lossy(&t.stderr)
    );
    let _nginx = start(&nginx, &main, port);
    let (status, head, body) = get(port, "/", "gzip");
    assert_eq!(status, 200, "{head}");
    assert!(head.contains("\r\ncontent-encoding: gzip"), "{head}");
    assert!(head.contains("\r\nvary: accept-encoding"), "{head}");
    assert_eq!(&body[..2], b"\x1f\x8b", "a gzip body");
    let (status, head, body) = get(port, "/", "identity");
    assert_eq!(status, 200, "{head}");
    assert!(!head.contains("content-encoding"), "{head}");
    assert!(body.starts_with(b"<!DOCTYPE html>") || body.starts_with(b"<!doctype html>"));
    // Files under 256 bytes stay as they are, as the sidecar keeps them,
    // and do not vary.
    let small = std::fs::metadata(served.join("search-index.json")).unwrap();
    assert!(small.len() < 256, "{}", small.len());
    let (status, head, _) = get(port, "/search-index.json", "gzip");
    assert_eq!(status, 200, "{head}");
    assert!(!head.contains("content-encoding"), "{head}");
    assert!(!head.contains("\r\nvary:"), "{head}");
}

#[test]
fn twins_without_brotli_by_default_and_brotli_static_needs_its_module() {
    let Some(nginx) = nginx() else {
        eprintln!("skipped: no nginx here (tests/e2e/fronts.sh runs this check with one)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let dist = dir.path().join("dist");
    build(&dist, &["--precompress"]);
    let served = dir.path().join("srv/dist");
    copy_readable(&dist, &served);
    let root = ["--root", served.to_str().unwrap()];

    // The default: twins through gzip_static, which every nginx build has.
    let port = free_port();
    let main = configure(dir.path(), &dist, port, &root, "");
    let t = test_config(&nginx, &main);
    assert!(
        t.status.success(),
        "nginx -t: {}",
        String::from_utf8_lossy(&t.stderr)
    );
    {
        let _nginx = start(&nginx, &main, port);
        let (status, head, body) = get(port, "/", "br, gzip");
        assert_eq!(status, 200, "{head}");
        assert!(head.contains("\r\ncontent-encoding: gzip"), "{head}");
        assert_eq!(body, std::fs::read(served.join("index.html.gz")).unwrap());
    }

    // Told that the module is there when it is not: nginx refuses to start,
    // naming the directive.
    let dir2 = tempfile::tempdir().unwrap();
    let main = configure(dir2.path(), &dist, port, &root, "");
    let conf = dir2.path().join("generated/nginx.conf");
    assert!(
        !std::fs::read_to_string(&conf)
            .unwrap()
            .contains("brotli_static on;")
    );
    let main_brotli = configure(
        dir2.path(),
        &dist,
        port,
        &[&root[..], &["--nginx-brotli-static"]].concat(),
        "",
    );
    assert_eq!(main, main_brotli);
    let t = test_config(&nginx, &main_brotli);
    assert!(!t.status.success(), "brotli_static without its module");
    assert!(
        String::from_utf8_lossy(&t.stderr).contains("brotli_static"),
        "{}",
        String::from_utf8_lossy(&t.stderr)
    );
    // With Debian's module loaded, the same configuration passes.
    let module = Path::new("/usr/lib/nginx/modules/ngx_http_brotli_static_module.so");
    if module.is_file() {
        let main = configure(
            dir2.path(),
            &dist,
            port,
            &[&root[..], &["--nginx-brotli-static"]].concat(),
            &format!("load_module {};", module.display()),
        );
        let t = test_config(&nginx, &main);
        assert!(
            t.status.success(),
            "nginx -t with the module: {}",
            String::from_utf8_lossy(&t.stderr)
        );
    }
}

/// `scripts/release` leaves the hashed assets of earlier releases in the
/// current one: nginx serves them from disk as the sidecar does, though
/// the manifest it was configured from does not list them.
#[test]
fn assets_of_earlier_releases_are_served_from_disk() {
    let Some(nginx) = nginx() else {
        eprintln!("skipped: no nginx here (tests/e2e/fronts.sh runs this check with one)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    for (flags, on_the_fly) in [
        (&[][..], false),
        (&["--compression", "on-the-fly"][..], true),
    ] {
        let dir = dir
            .path()
            .join(if on_the_fly { "on-the-fly" } else { "twins" });
        let dist = dir.join("dist");
        build(&dist, if on_the_fly { &[] } else { &["--precompress"] });
        let served = dir.join("srv/current");
        copy_readable(&dist, &served);
        add_kept_asset(&served);
        let port = free_port();
        let root = ["--root", served.to_str().unwrap()];
        let main = configure(&dir, &dist, port, &[&root[..], flags].concat(), "");
        let t = test_config(&nginx, &main);
        // No warning either (a type twice in gzip_types, …).
        assert!(
            t.status.success() && t.stderr.is_empty(),
            "nginx -t: {}",
            String::from_utf8_lossy(&t.stderr)
        );
        let _nginx = start(&nginx, &main, port);
        check_assets(port, &served, on_the_fly);
    }
}
