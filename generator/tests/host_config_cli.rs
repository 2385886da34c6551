//! `generate host-config` as deploy scripts call it: bad input fails with
//! the flag named, good input writes the files outside the built site.

use std::process::Command;

fn generate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_generate"))
        .args(args)
        .env_remove("GENERATE_SIDECAR_URL")
        .output()
        .expect("running generate")
}

/// `generate host-config --for host` of `dist` into `out`, for a sidecar at
/// https://api.example.org, with `extra` flags.
fn host_config(
    host: &str,
    dist: &std::path::Path,
    out: &std::path::Path,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec![
        "host-config",
        "--for",
        host,
        "--dist",
        dist.to_str().unwrap(),
        "--sidecar-url",
        "https://api.example.org",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    generate(&args)
}

/// Builds the sample site into `dist` (no cache in the source tree), with
/// `extra` flags.
fn build_sample(dist: &std::path::Path, extra: &[&str]) {
    let root =
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for tests");
    let (content, templates) = (format!("{root}/../content"), format!("{root}/../templates"));
    let mut args = vec![
        "build",
        "--content",
        &content,
        "--templates",
        &templates,
        "--out",
        dist.to_str().unwrap(),
        "--quiet",
        "--no-cache",
    ];
    args.extend_from_slice(extra);
    let o = generate(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_sidecar_url_with_a_path_query_or_credentials_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (url, why) in [
        ("http://127.0.0.1:8081/api", "a path is not allowed"),
        ("http://127.0.0.1:8081?a=1", "a query string is not allowed"),
        ("http://user:secret@127.0.0.1:8081", "credentials"),
        ("127.0.0.1:8081", "not an absolute http"),
        ("ftp://example.org", "not an absolute http"),
    ] {
        let o = generate(&[
            "host-config",
            "--for",
            "nginx",
            "--dist",
            dir.path().to_str().unwrap(),
            "--sidecar-url",
            url,
            "--out",
            out.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{url}");
        assert!(stderr.contains("--sidecar-url"), "{url}: {stderr}");
        assert!(stderr.contains(why), "{url}: {stderr}");
        assert!(!out.exists(), "{url}: nothing may be written");
    }
}

#[test]
fn writes_every_host_outside_the_site_and_never_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let dist = dir.path().join("dist");
    build_sample(
        &dist,
        &["--base-url", "https://example.org", "--precompress"],
    );
    for (host, files) in [
        ("nginx", &["nginx.conf"][..]),
        ("caddy", &["Caddyfile"]),
        ("netlify", &["_headers", "_redirects"]),
        (
            "cloudflare",
            &["_headers", "_routes.json", "functions/[[path]].js"],
        ),
    ] {
        let out = dir.path().join(host);
        let o = host_config(host, &dist, &out, &["--listen", "127.0.0.1:8080"]);
        assert!(
            o.status.success(),
            "{host}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        for f in files {
            let text = std::fs::read_to_string(out.join(f)).unwrap();
            assert!(!text.is_empty(), "{host} {f}");
        }
        // Into the site itself: refused, so the sidecar never has them.
        let o = host_config(host, &dist, &dist, &[]);
        assert!(!o.status.success(), "{host}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("outside --dist"));
    }
    let nginx = std::fs::read_to_string(dir.path().join("nginx/nginx.conf")).unwrap();
    assert!(nginx.contains("https://example.org/docs/problems/not_found/"));
    assert!(nginx.contains("proxy_ssl_name \"api.example.org\";"));
}

/// A build without twins: nginx and Caddy compress it on the fly by
/// default (`--compression auto`); asked for the twins by name, they refuse
/// it and name both ways out; nothing is written then.
#[test]
fn a_build_without_twins_is_compressed_on_the_fly_or_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let dist = dir.path().join("dist");
    build_sample(&dist, &[]);
    assert!(!dist.join("index.html.br").exists());
    for (host, file) in [("nginx", "nginx.conf"), ("caddy", "Caddyfile")] {
        let out = dir.path().join(host);
        let o = host_config(host, &dist, &out, &[]);
        assert!(
            o.status.success(),
            "{host}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(
            !text.contains("\t\t\tprecompressed ") && !text.contains("gzip_static on;"),
            "{host}"
        );
        assert!(
            text.contains("gzip on;") || text.contains("encode gzip {"),
            "{host}"
        );

        let out = dir.path().join(format!("{host}-twins"));
        let o = host_config(host, &dist, &out, &["--compression", "twins"]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{host}");
        assert!(
            stderr.contains("generate build --precompress")
                && stderr.contains("--compression on-the-fly"),
            "{host}: {stderr}"
        );
        assert!(!out.exists(), "{host}: nothing may be written");
    }
    for host in ["netlify", "cloudflare"] {
        let o = host_config(host, &dist, &dir.path().join(host), &[]);
        assert!(
            o.status.success(),
            "{host}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// `--root` and `--compression` as deploy scripts give them, by flag or by
/// environment: the front's root is the container's mount, not the folder
/// that was read; a relative root and the flags for hosts that take no
/// root are refused by name.
#[test]
fn root_and_compression_by_flag_or_environment() {
    let dir = tempfile::tempdir().unwrap();
    let dist = dir.path().join("dist");
    build_sample(
        &dist,
        &["--base-url", "https://example.org", "--precompress"],
    );
    let read_at = dist.canonicalize().unwrap();
    let read_at = read_at.to_str().unwrap();

    // Default: the twins, through gzip_static only (no brotli module).
    let out = dir.path().join("default");
    let o = host_config("nginx", &dist, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let conf = std::fs::read_to_string(out.join("nginx.conf")).unwrap();
    assert!(conf.contains(&format!("    root {read_at};\n")));
    assert!(conf.contains("gzip_static on;") && !conf.contains("brotli_static on;"));

    let out = dir.path().join("flags");
    let o = host_config(
        "nginx",
        &dist,
        &out,
        &["--root", "/srv/dist", "--compression", "on-the-fly"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let conf = std::fs::read_to_string(out.join("nginx.conf")).unwrap();
    assert!(conf.contains("    root /srv/dist;\n"));
    assert!(!conf.contains(read_at));
    assert!(conf.contains("gzip on;") && !conf.contains("gzip_static"));

    let out = dir.path().join("env");
    let o = Command::new(env!("CARGO_BIN_EXE_generate"))
        .args([
            "host-config",
            "--for",
            "caddy",
            "--sidecar-url",
            "http://sidecar:8080",
        ])
        .arg("--dist")
        .arg(&dist)
        .arg("--out")
        .arg(&out)
        .env("GENERATE_ROOT", "/srv/dist")
        .env("GENERATE_COMPRESSION", "on-the-fly")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let caddy = std::fs::read_to_string(out.join("Caddyfile")).unwrap();
    assert!(caddy.contains("\troot * /srv/dist\n") && caddy.contains("encode gzip {"));

    let out = dir.path().join("brotli");
    let o = host_config("nginx", &dist, &out, &["--nginx-brotli-static"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let conf = std::fs::read_to_string(out.join("nginx.conf")).unwrap();
    assert!(conf.contains("brotli_static on;"));

    for (host, extra, named) in [
        ("nginx", &["--root", "srv/dist"][..], "--root"),
        ("netlify", &["--root", "/srv/dist"], "--root"),
        (
            "cloudflare",
            &["--compression", "on-the-fly"],
            "--compression",
        ),
        ("caddy", &["--nginx-brotli-static"], "--nginx-brotli-static"),
        ("nginx", &["--compression", "gzip"], "--compression"),
    ] {
        let out = dir.path().join("refused");
        let o = host_config(host, &dist, &out, extra);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{host} {extra:?}");
        assert!(stderr.contains(named), "{host} {extra:?}: {stderr}");
        assert!(!out.exists(), "{host} {extra:?}: nothing may be written");
    }
}

/// The new flags are documented in `--help`, each with its environment twin.
#[test]
fn help_documents_root_and_compression() {
    let o = generate(&["host-config", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    for needle in [
        "--root <ROOT>",
        "GENERATE_ROOT",
        "--compression <COMPRESSION>",
        "GENERATE_COMPRESSION",
        "on-the-fly",
        "--nginx-brotli-static",
        "GENERATE_NGINX_BROTLI_STATIC",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
}
