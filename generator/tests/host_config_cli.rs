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
    let root = env!("CARGO_MANIFEST_DIR");
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

/// nginx and Caddy send the build's twins as they are: a site built
/// without `--precompress` is refused for them, by name; the hosts that
/// compress at their edge take it.
#[test]
fn nginx_and_caddy_ask_for_a_precompressed_build() {
    let dir = tempfile::tempdir().unwrap();
    let dist = dir.path().join("dist");
    build_sample(&dist, &[]);
    assert!(!dist.join("index.html.br").exists());
    for (host, accepted) in [
        ("nginx", false),
        ("caddy", false),
        ("netlify", true),
        ("cloudflare", true),
    ] {
        let out = dir.path().join(host);
        let o = host_config(host, &dist, &out, &[]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.success(), accepted, "{host}: {stderr}");
        if !accepted {
            assert!(
                stderr.contains("generate build --precompress"),
                "{host}: {stderr}"
            );
            assert!(!out.exists(), "{host}: nothing may be written");
        }
    }
}
