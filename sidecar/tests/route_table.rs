//! The sidecar answers exactly the contract's route table: every endpoint
//! of `contract::routes` at each of its paths, with its method, its `Allow`
//! and its preflight; no other path in the API space; and the built
//! `openapi.json` lists the same routes with the same methods.

use common::Fixture;
use common::handler::{send, state};
use contract::routes::{self, Endpoint, Method, ROUTES, RouteId};

#[tokio::test]
async fn every_endpoint_answers_at_its_paths_with_its_method() {
    let f = Fixture::new();
    let s = state(&f);
    for endpoint in Endpoint::ALL {
        let route = endpoint.route();
        for path in route.paths() {
            let a = send(&s, route.method.as_str(), path, &[]).await;
            assert!(
                ![404, 405].contains(&a.status.as_u16()),
                "{} {path}: {}",
                route.method.as_str(),
                a.status
            );
            // With no body or the wrong one, a body route refuses the
            // request itself; it never reaches "no handler".
            if a.status == 500 {
                panic!("{path} has no handler: {:?}", a.body);
            }
            let pre = send(&s, "OPTIONS", path, &[("origin", "http://127.0.0.1:8080")]).await;
            assert_eq!(pre.status, 204, "OPTIONS {path}");
            assert_eq!(
                pre.header("access-control-allow-methods"),
                route.method.allow(),
                "{path}"
            );
            assert_eq!(
                pre.header("access-control-allow-headers"),
                route.request_headers,
                "{path}"
            );
            let other = match route.method {
                Method::Get => "POST",
                Method::Post => "GET",
            };
            let wrong = send(&s, other, path, &[]).await;
            assert_eq!(wrong.status, 405, "{other} {path}");
            assert_eq!(wrong.header("allow"), route.method.allow());
        }
    }
}

#[tokio::test]
async fn no_path_outside_the_table_is_answered_in_the_api_space() {
    let f = Fixture::new();
    let s = state(&f);
    let mut probes = vec![
        "/api/".to_owned(),
        "/api/chat".to_owned(),
        "/mcp/x".to_owned(),
    ];
    for route in ROUTES {
        if let RouteId::Sidecar(_) = route.id {
            for path in route.paths() {
                probes.push(format!("{path}x"));
                probes.push(path.to_uppercase());
                probes.push(path.trim_end_matches(".php").to_owned() + ".json");
            }
        }
    }
    for path in probes {
        if ROUTES.iter().any(|r| r.answers(&path)) {
            continue;
        }
        let a = send(&s, "GET", &path, &[]).await;
        if routes::is_api_space(&path) {
            assert_eq!(a.status, 404, "{path}");
            a.problem("not_found");
        } else {
            assert_ne!(a.status, 200, "{path}");
        }
    }
}

#[test]
fn the_built_contract_lists_exactly_the_route_table() {
    let Some(doc) = common::openapi::contract() else {
        return;
    };
    let mut built: Vec<(String, String)> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .filter(|k| ["get", "post", "put", "delete", "patch"].contains(&k.as_str()))
                .map(|m| (path.clone(), m.to_uppercase()))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut table: Vec<(String, String)> = ROUTES
        .iter()
        .flat_map(|r| {
            r.paths()
                .map(|p| (p.to_owned(), r.method.as_str().to_owned()))
        })
        .collect();
    built.sort();
    table.sort();
    assert_eq!(built, table);
}
