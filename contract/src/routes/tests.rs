use super::*;

#[test]
fn every_endpoint_is_in_the_table_once_and_found_at_its_paths() {
    for e in Endpoint::ALL {
        let rows = ROUTES.iter().filter(|r| r.endpoint() == Some(e)).count();
        assert_eq!(rows, 1, "{e:?}");
        for path in e.route().paths() {
            assert_eq!(Endpoint::lookup(path), Some(e), "{path}");
        }
    }
    assert_eq!(Endpoint::lookup("/api/service.json"), None);
    assert_eq!(Endpoint::lookup("/docs/"), None);
    assert_eq!(Endpoint::lookup("/"), None);
    for (path, endpoint, values) in [
        ("/api/features", Endpoint::FeaturesLanding, vec![]),
        ("/api/features/", Endpoint::FeaturesLanding, vec![]),
        (
            "/api/features/collections/sites",
            Endpoint::FeaturesCollection,
            vec!["sites"],
        ),
        (
            "/api/features/collections/sites/items",
            Endpoint::FeaturesItems,
            vec!["sites"],
        ),
        (
            "/api/features/collections/observations/items/42",
            Endpoint::FeaturesItem,
            vec!["observations", "42"],
        ),
    ] {
        assert_eq!(Endpoint::lookup(path), Some(endpoint), "{path}");
        assert_eq!(endpoint.route().path_values(path), values, "{path}");
    }
    for path in [
        "/api/features/collections//items",
        "/api/features/collections/sites/items/",
        "/api/features/collections/sites/items/1/x",
        "/api/features/x",
    ] {
        assert_eq!(Endpoint::lookup(path), None, "{path}");
    }
}

#[test]
fn paths_and_operation_ids_are_unique() {
    let mut paths: Vec<_> = ROUTES.iter().flat_map(|r| r.paths()).collect();
    let mut ids: Vec<_> = ROUTES
        .iter()
        .flat_map(|r| std::iter::once(r.operation_id).chain(r.alias.map(|a| a.operation_id)))
        .collect();
    let (n, m) = (paths.len(), ids.len());
    paths.sort();
    paths.dedup();
    ids.sort();
    ids.dedup();
    assert_eq!((paths.len(), ids.len()), (n, m));
}

#[test]
fn bodies_only_on_post_and_static_files_are_public_gets() {
    for r in ROUTES {
        assert_eq!(
            r.body_types.is_empty(),
            r.method == Method::Get,
            "{}",
            r.path
        );
        if let RouteId::Static(f) = r.id {
            assert_eq!(r.path.trim_start_matches('/'), f.file());
            assert_eq!(
                (r.method, r.cors, r.cache),
                (Method::Get, Cors::Public, Cache::File)
            );
        }
    }
}
