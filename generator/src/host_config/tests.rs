//! Tests of the plan shared by every host.
use super::*;

#[test]
fn plan_lists_urls_redirects_and_sidecar_paths() {
    let plan = fixture::plan();
    let about = plan
        .files
        .iter()
        .find(|f| f.key == "docs/about/index.html")
        .unwrap();
    assert_eq!(about.urls, ["/docs/about/", "/docs/about/index.html"]);
    let home = plan.files.iter().find(|f| f.key == "index.html").unwrap();
    assert_eq!(home.urls, ["/", "/index.html"]);
    assert_eq!(home.link, Some(contract::headers::API_CATALOG_LINK));
    assert_eq!(
        plan.redirects,
        [("/docs/about".to_owned(), "/docs/about/".to_owned())]
    );
    let paths = plan.sidecar_paths();
    assert!(paths.contains(&"/mcp") && paths.contains(&"/mcp/"));
    // Every route without `{name}` segments, and the two aliases.
    let templated = Endpoint::ALL
        .iter()
        .filter(|e| e.route().is_template())
        .count();
    assert_eq!(templated, 4);
    assert_eq!(paths.len(), Endpoint::ALL.len() - templated + 2);
    assert_eq!(plan.sidecar_prefixes(), ["/api/features/collections/"]);
    let problem: serde_json::Value =
        serde_json::from_str(&plan.problem(ProblemCode::NotFound, problems::NOT_FOUND)).unwrap();
    assert_eq!(
        problem["type"],
        "https://example.org/docs/problems/not_found/"
    );
    assert_eq!(problem["status"], 404);
    assert_eq!(problem["title"], ProblemCode::NotFound.title());
}

/// A site built for a separate API origin: every host sends the CSP that
/// names it, the one the sidecar sends for the same manifest.
#[test]
fn every_host_sends_the_csp_of_a_separate_api_origin() {
    let api = "https://api.example.net";
    let mut manifest = fixture::manifest();
    manifest.api_origin = Some(api.to_owned());
    let plan = Plan::new(
        PathBuf::from("/srv/site/dist"),
        &manifest,
        crate::origin::sidecar_url(api).unwrap(),
        "127.0.0.1:8080".parse::<Listen>().unwrap(),
        "https://example.org".to_owned(),
    )
    .unwrap();
    let csp = headers::content_security_policy(Some(api));
    assert_eq!(plan.html_headers()[0], ("Content-Security-Policy", &*csp));
    for host in [Host::Nginx, Host::Caddy, Host::Netlify, Host::Cloudflare] {
        let text: String = render(host, &plan)
            .unwrap()
            .into_iter()
            .map(|(_, text)| text)
            .collect();
        assert!(text.contains(&*csp), "{host:?}");
        assert!(!text.contains(headers::CONTENT_SECURITY_POLICY), "{host:?}");
    }
}

/// Metrics belong to the sidecar's admin listener: no front routes them.
#[test]
fn no_host_routes_metrics() {
    let plan = fixture::plan();
    assert!(!plan.sidecar_paths().contains(&"/metrics"));
    for host in [Host::Nginx, Host::Caddy, Host::Netlify, Host::Cloudflare] {
        for (name, text) in render(host, &plan).unwrap() {
            assert!(!text.contains("/metrics"), "{host:?} {name}");
        }
    }
}

/// Several replicas: nginx and Caddy balance them; Netlify and Cloudflare
/// proxy to one origin and say so; a replica of another scheme is refused.
#[test]
fn replicas_are_balanced_where_the_host_can() {
    let url = |u: &str| crate::origin::sidecar_url(u).unwrap();
    let more = [url("http://127.0.0.1:8082"), url("http://127.0.0.1:8083")];
    let mut plan = fixture::plan();
    plan.set_replicas(Host::Nginx, &more).unwrap();
    let nginx = nginx::render(&plan).unwrap();
    for port in [8081, 8082, 8083] {
        assert!(
            nginx.contains(&format!(
                "server 127.0.0.1:{port} max_fails=1 fail_timeout=2s;"
            )),
            "{port}"
        );
    }
    assert!(!nginx.contains("max_fails=0"));
    let caddy = caddy::render(&plan).unwrap();
    assert!(caddy.contains("reverse_proxy 127.0.0.1:8081 127.0.0.1:8082 127.0.0.1:8083 {"));
    assert!(caddy.contains("lb_policy round_robin"));
    for host in [Host::Netlify, Host::Cloudflare] {
        let e = fixture::plan().set_replicas(host, &more).unwrap_err();
        assert!(e.to_string().contains("load balancer"), "{e}");
    }
    let e = fixture::plan()
        .set_replicas(Host::Nginx, &[url("https://127.0.0.1:8082")])
        .unwrap_err();
    assert!(e.to_string().contains("scheme"), "{e}");
    let e = fixture::plan()
        .set_replicas(Host::Nginx, &[url("http://127.0.0.1:8081")])
        .unwrap_err();
    assert!(e.to_string().contains("twice"), "{e}");
}

/// `--compression` against the manifest: `auto` takes the twins when the
/// build has any, gzip on the fly otherwise; `twins` asked for a build
/// without any is refused with the flags that fix it; nginx sends .br twins
/// only when told its brotli module is there.
#[test]
fn compression_is_resolved_against_the_manifest() {
    let twins = Compress::Twins {
        brotli_static: false,
    };
    let with_br = Compress::Twins {
        brotli_static: true,
    };
    let plain = fixture::plan_without_twins();
    for (host, choice, brotli, built, want) in [
        (
            Host::Nginx,
            Compression::Auto,
            false,
            &fixture::plan(),
            twins,
        ),
        (
            Host::Nginx,
            Compression::Auto,
            true,
            &fixture::plan(),
            with_br,
        ),
        (
            Host::Nginx,
            Compression::Twins,
            false,
            &fixture::plan(),
            twins,
        ),
        (
            Host::Nginx,
            Compression::OnTheFly,
            true,
            &fixture::plan(),
            Compress::OnTheFly,
        ),
        (
            Host::Nginx,
            Compression::Auto,
            false,
            &plain,
            Compress::OnTheFly,
        ),
        (
            Host::Nginx,
            Compression::Auto,
            true,
            &plain,
            Compress::OnTheFly,
        ),
        (
            Host::Caddy,
            Compression::Auto,
            false,
            &fixture::plan(),
            twins,
        ),
        (
            Host::Caddy,
            Compression::Auto,
            false,
            &plain,
            Compress::OnTheFly,
        ),
    ] {
        let mut plan = built.clone();
        plan.set_compression(host, choice, brotli).unwrap();
        assert_eq!(plan.compress, want, "{host:?} {choice:?} {brotli}");
    }
    for host in [Host::Nginx, Host::Caddy] {
        let e = plain
            .clone()
            .set_compression(host, Compression::Twins, false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("generate build --precompress") && e.contains("--compression on-the-fly"),
            "{e}"
        );
    }
    let e = fixture::plan()
        .set_compression(Host::Caddy, Compression::Auto, true)
        .unwrap_err();
    assert!(e.to_string().contains("--nginx-brotli-static"), "{e}");
    for host in [Host::Netlify, Host::Cloudflare] {
        fixture::plan()
            .set_compression(host, Compression::Auto, false)
            .unwrap();
        for (choice, brotli) in [
            (Compression::Twins, false),
            (Compression::OnTheFly, false),
            (Compression::Auto, true),
        ] {
            let e = fixture::plan()
                .set_compression(host, choice, brotli)
                .unwrap_err();
            assert!(e.to_string().contains("compresses at its edge"), "{e}");
        }
    }
}

/// On the fly, the files that vary are the compressible ones of 256 bytes
/// or more, as the sidecar's; with twins, those with twins.
#[test]
fn what_varies_follows_the_compression() {
    let plan = fixture::plan_without_twins();
    let varies = |p: &Plan| -> Vec<String> {
        p.files
            .iter()
            .filter(|f| f.varies(p.compress))
            .map(|f| f.key.clone())
            .collect()
    };
    assert_eq!(plan.compress, Compress::OnTheFly);
    let on_the_fly = varies(&plan);
    assert!(on_the_fly.contains(&"index.html".to_owned()));
    // Too small, and not compressible.
    assert!(!on_the_fly.contains(&"robots.txt".to_owned()));
    assert!(!on_the_fly.contains(&"files/photo.png".to_owned()));
    let mut twins = plan.clone();
    twins.compress = Compress::Twins {
        brotli_static: false,
    };
    assert!(varies(&twins).is_empty());
    assert_eq!(
        plan.on_the_fly_types(),
        [
            "application/json",
            "application/linkset+json",
            "text/css",
            "text/csv",
            "text/html",
            "text/markdown"
        ]
    );
}

/// `--root`: where nginx and Caddy see the build, absolute; the hosts that
/// serve a publish root refuse it by name.
#[test]
fn root_is_absolute_and_only_for_nginx_and_caddy() {
    for host in [Host::Nginx, Host::Caddy] {
        let mut plan = fixture::plan();
        plan.set_root(host, Path::new("/srv/dist")).unwrap();
        let text: String = render(host, &plan)
            .unwrap()
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        assert!(text.contains("root /srv/dist;") || text.contains("root * /srv/dist\n"));
        assert!(!text.contains("/srv/site/dist"), "{host:?}");
        let e = plan.set_root(host, Path::new("srv/dist")).unwrap_err();
        assert!(e.to_string().contains("absolute"), "{e}");
        let mut plan = fixture::plan();
        plan.set_root(host, Path::new("/srv/my dist")).unwrap();
        let e = render(host, &plan).unwrap_err();
        assert!(e.to_string().contains("--root"), "{e}");
    }
    for host in [Host::Netlify, Host::Cloudflare] {
        let e = fixture::plan()
            .set_root(host, Path::new("/srv/dist"))
            .unwrap_err();
        assert!(e.to_string().contains("--root"), "{e}");
    }
}

/// Moved pages (the manifest's redirects): every host answers the old
/// path, and a directory's without its slash, with a 301 to the page, in
/// place of the folder redirect and the HTML page the build writes there.
#[test]
fn every_host_redirects_moved_pages() {
    let mut manifest = fixture::manifest();
    manifest.files.insert(
        "old/about/index.html".into(),
        fixture::manifest().files["index.html"].clone(),
    );
    manifest
        .redirects
        .insert("/old/about/".into(), "/docs/about/".into());
    manifest
        .redirects
        .insert("/about.html".into(), "/docs/about/".into());
    let plan = Plan::new(
        PathBuf::from("/srv/site/dist"),
        &manifest,
        crate::origin::sidecar_url("http://127.0.0.1:8081").unwrap(),
        "127.0.0.1:8080".parse::<Listen>().unwrap(),
        "https://example.org".to_owned(),
    )
    .unwrap();
    assert_eq!(
        plan.moved,
        [
            ("/about.html".to_owned(), "/docs/about/".to_owned()),
            ("/old/about".to_owned(), "/docs/about/".to_owned()),
            ("/old/about/".to_owned(), "/docs/about/".to_owned()),
        ]
    );
    assert!(!plan.redirects.iter().any(|(from, _)| from == "/old/about"));
    let text = |host| -> String {
        render(host, &plan)
            .unwrap()
            .into_iter()
            .map(|(_, text)| text)
            .collect()
    };
    let nginx = text(Host::Nginx);
    for from in ["/about.html", "/old/about", "/old/about/"] {
        assert!(
            nginx.contains(&format!("location = \"{from}\" {{")),
            "{from}"
        );
    }
    assert_eq!(
        nginx
            .matches("return 301 \"/docs/about/$is_args$args\";")
            .count(),
        3
    );
    let caddy = text(Host::Caddy);
    assert_eq!(caddy.matches("redir * /docs/about/ 301").count(), 3);
    assert_eq!(caddy.matches("?{query} 301").count(), 3);
    let netlify = text(Host::Netlify);
    assert!(netlify.contains("/old/about/  /docs/about/  301!"));
    let cloudflare = render(Host::Cloudflare, &plan).unwrap();
    let (_, redirects) = cloudflare
        .iter()
        .find(|(name, _)| name == "_redirects")
        .unwrap();
    assert!(redirects.contains("/old/about /docs/about/ 301\n/old/about/ /docs/about/ 301"));
}
