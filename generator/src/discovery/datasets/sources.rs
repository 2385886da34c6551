//! Where the catalogue's data are served: the distributions of a dataset
//! (contract routes, OGC API – Features collections, snapshot files) and
//! the two data services (the API the contract describes, the OGC API –
//! Features).

use contract::routes::{self, RouteId, StaticFile};

use super::codes::media_essence;
use crate::data_snapshots::Snapshot;

/// OGC API – Features, Part 1: Core 1.0, the standard the features
/// routes follow, and the conformance classes they declare (their
/// `/conformance` document; the open-data check compares the two).
pub(super) const FEATURES_STANDARD: &str = "http://www.opengis.net/doc/IS/ogcapi-features-1/1.0";
pub(super) const FEATURES_CONFORMANCE: [&str; 4] = [
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
];
/// The collections of the features routes that hold a catalogue dataset's
/// data, with their titles.
const FEATURES_COLLECTIONS: [(&str, &str); 2] = [
    ("sites", "Public monitoring sites"),
    ("observations", "Water observations"),
];

/// Which data service answers a distribution's URL, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Service {
    /// A file: `url` is the download.
    None,
    /// A route of the contract (`openapi.json`).
    Api,
    /// A collection of the OGC API – Features.
    Features,
}

/// One distribution: where to get the data and in which form.
#[derive(Debug, Clone)]
pub(super) struct Distribution {
    pub title: String,
    pub description: String,
    /// What answers with `media_type` (with the query that asks for it).
    pub url: String,
    pub service: Service,
    pub media_type: &'static str,
    pub size: Option<u64>,
    pub sha256: Option<String>,
}

impl Distribution {
    /// Whether `url` is the file itself (a download) rather than an API.
    pub fn download(&self) -> bool {
        self.service == Service::None
    }
}

/// The data files of each citable snapshot, newest first.
pub(super) fn snapshot_distributions(snapshots: &[Snapshot], base_url: &str) -> Vec<Distribution> {
    let data = [
        contract::snapshot::OBSERVATIONS_CSV,
        contract::snapshot::SITES_CSV,
        contract::snapshot::SITES_GEOJSON,
    ];
    snapshots
        .iter()
        .flat_map(|s| {
            s.files
                .iter()
                .filter(|f| data.contains(&f.name.as_str()))
                .map(move |f| Distribution {
                    title: format!("{}, snapshot {}", f.name, s.version),
                    description: format!(
                        "Citable snapshot {} of {} ({}): {}",
                        s.version,
                        s.issued,
                        s.sizes.join(", "),
                        f.name
                    ),
                    url: format!("{base_url}{}", f.url),
                    service: Service::None,
                    media_type: media_essence(&f.media_type),
                    size: Some(f.size),
                    sha256: Some(f.sha256.clone()),
                })
        })
        .collect()
}

/// The query that makes `route` answer `media_type` rather than its
/// first, default one: `?format=` where the route takes it.
fn format_query(route: &routes::Route, media_type: &str) -> Option<String> {
    if route.media_types.first().map(|m| media_essence(m)) == Some(media_type) {
        return Some(String::new());
    }
    if route.path != routes::OBSERVATIONS_DATA.path {
        return None;
    }
    let name = contract::observations::FORMATS
        .iter()
        .find(|f| media_essence(&format!("text/{f}")) == media_type)?;
    Some(format!("?format={name}"))
}

/// The distributions of a contract route: one per media type it answers,
/// each at the URL that answers it (a media type no query asks for is
/// left out: its URL would answer another).
pub(super) fn route_distributions(path: &str, api_origin: &str) -> Vec<Distribution> {
    let Some(route) = routes::ROUTES.iter().find(|r| r.path == path) else {
        return Vec::new();
    };
    let file = matches!(route.id, RouteId::Static(StaticFile::ServiceInformation));
    route
        .media_types
        .iter()
        .filter_map(|m| {
            let media_type = media_essence(m);
            let query = format_query(route, media_type)?;
            Some(Distribution {
                title: format!("{} ({media_type})", route.summary),
                description: format!(
                    "{}: {}{query} answered as {media_type}; its parameters are in the OpenAPI contract",
                    route.summary, route.path,
                ),
                url: format!("{api_origin}{path}{query}"),
                service: if file { Service::None } else { Service::Api },
                media_type,
                size: None,
                sha256: None,
            })
        })
        .collect()
}

/// The GeoJSON items of the OGC API – Features collections.
pub(super) fn features_distributions(api_origin: &str) -> Vec<Distribution> {
    FEATURES_COLLECTIONS
        .iter()
        .map(|(id, title)| Distribution {
            title: format!("{title}, OGC API – Features collection `{id}` (GeoJSON)"),
            description: format!(
                "The items of the collection `{id}` as GeoJSON, paged by `next` links and filtered \
                 by `bbox` and `datetime`"
            ),
            url: format!(
                "{api_origin}{}/collections/{id}/items",
                routes::FEATURES_ROOT
            ),
            service: Service::Features,
            media_type: contract::media::GEO_JSON,
            size: None,
            sha256: None,
        })
        .collect()
}
