//! `generate host-config --for caddy` under a real Caddy (Debian's, as
//! `tests/e2e/fronts.sh` installs it): hashed assets the manifest does not
//! list (an earlier release's, on disk beside it) are served as hashed
//! assets; missing ones are the 404 page; this build's own assets answer as
//! its manifest says.
//!
//! Without a `caddy` on this machine these tests say so and pass: the
//! end-to-end suite (tests/e2e/fronts.sh, which installs Caddy) runs Caddy
//! with the same kind of configuration on every CI run.

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

use common::host_config::{
    Running, add_kept_asset, build, check_assets, copy_readable, find, free_port, generate,
};

/// `scripts/release` leaves the hashed assets of earlier releases in the
/// current one: Caddy serves them from disk as the sidecar does, though
/// the manifest it was configured from does not list them.
#[test]
fn assets_of_earlier_releases_are_served_from_disk() {
    let Some(caddy) = find("caddy") else {
        eprintln!("skipped: no caddy here (tests/e2e/fronts.sh runs Caddy with one)");
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
        let out = dir.join("generated");
        let listen = format!("127.0.0.1:{port}");
        let mut args = vec![
            "host-config",
            "--for",
            "caddy",
            "--dist",
            dist.to_str().unwrap(),
            "--root",
            served.to_str().unwrap(),
            // Nothing listens there: only files are asked for.
            "--sidecar-url",
            "http://127.0.0.1:9",
            "--listen",
            &listen,
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(flags);
        generate(&args);
        // Caddy keeps its state (autosave, certificates) under the XDG folders.
        let child = Command::new(&caddy)
            .args(["run", "--adapter", "caddyfile", "--config"])
            .arg(out.join("Caddyfile"))
            .env("XDG_CONFIG_HOME", &dir)
            .env("XDG_DATA_HOME", &dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let _caddy = Running(child).listening(port);
        check_assets(port, &served, on_the_fly);
    }
}
