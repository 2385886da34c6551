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
    assert_eq!(paths.len(), Endpoint::ALL.len() + 1);
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
