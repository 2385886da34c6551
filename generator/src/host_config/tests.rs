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
