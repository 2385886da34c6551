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
