//! The OGC API – Features routes (decision 0049): a landing page,
//! conformance, the collections, and each collection's features and
//! queryables, over the public sites and observations.

use super::{Alias, Cache, Endpoint, Route, StaticFile, file, get};
use crate::media;
/// The root of the OGC API – Features routes (decision 0049). Fronts send
/// every path below it to the sidecar, which answers unknown ones with its
/// 404 problem.
pub const FEATURES_ROOT: &str = "/api/features";
/// The media type of a JSON Schema document (a collection's queryables).
pub const SCHEMA_JSON: &str = "application/schema+json";

const fn features(
    endpoint: Endpoint,
    path: &'static str,
    operation_id: &'static str,
    summary: &'static str,
    media_types: &'static [&'static str],
) -> Route {
    get(
        endpoint,
        path,
        operation_id,
        "features",
        summary,
        media_types,
        Cache::Live,
    )
}

pub static FEATURES_LANDING: Route = Route {
    alias: Some(Alias {
        path: "/api/features/",
        operation_id: "getFeaturesLandingSlash",
        summary: "OGC API – Features landing page, with the trailing slash",
    }),
    ..features(
        Endpoint::FeaturesLanding,
        FEATURES_ROOT,
        "getFeaturesLanding",
        "OGC API – Features landing page",
        &[media::JSON, media::HTML_UTF8],
    )
};
pub static FEATURES_CONFORMANCE: Route = features(
    Endpoint::FeaturesConformance,
    "/api/features/conformance",
    "getFeaturesConformance",
    "OGC API – Features conformance classes",
    &[media::JSON, media::HTML_UTF8],
);
pub static FEATURES_COLLECTIONS: Route = features(
    Endpoint::FeaturesCollections,
    "/api/features/collections",
    "getFeatureCollections",
    "The feature collections: public sites and observations",
    &[media::JSON, media::HTML_UTF8],
);
pub static FEATURES_COLLECTION: Route = features(
    Endpoint::FeaturesCollection,
    "/api/features/collections/{collectionId}",
    "getFeatureCollection",
    "One feature collection",
    &[media::JSON, media::HTML_UTF8],
);
pub static FEATURES_ITEMS: Route = features(
    Endpoint::FeaturesItems,
    "/api/features/collections/{collectionId}/items",
    "getFeatures",
    "Features of a collection, filtered and paged",
    &[media::GEO_JSON, media::HTML_UTF8],
);
pub static FEATURES_ITEM: Route = features(
    Endpoint::FeaturesItem,
    "/api/features/collections/{collectionId}/items/{featureId}",
    "getFeature",
    "One feature",
    &[media::GEO_JSON, media::HTML_UTF8],
);
pub static FEATURES_QUERYABLES: Route = features(
    Endpoint::FeaturesQueryables,
    "/api/features/collections/{collectionId}/queryables",
    "getFeatureQueryables",
    "The properties a collection's features can be filtered on (Part 3)",
    &[SCHEMA_JSON, media::HTML_UTF8],
);
/// The OGC API – Features routes' definition in OpenAPI 3.0 (decision 0049).
pub static FEATURES_OPENAPI: Route = file(
    StaticFile::FeaturesOpenApi,
    "/api/features/openapi.json",
    "getFeaturesOpenApi",
    "features",
    "OpenAPI 3.0 definition of the OGC API – Features routes",
    &[media::OPENAPI_ESSENCE],
);
