//! The operations of the OGC API – Features routes (decision 0049).

use serde_json::json;

use super::{Errors, Operation, Parameter, RefOr, Response, live_get, query, schemas};
use contract::observations::{DEFAULT_LIMIT, MAX_LIMIT};
use contract::routes::Endpoint;

const HTML: &str = "text/html; charset=utf-8";

fn path_parameter(
    name: &'static str,
    description: &'static str,
    schema: serde_json::Value,
) -> RefOr<Parameter> {
    RefOr::Item(Parameter {
        name,
        location: "path",
        description,
        required: true,
        schema,
    })
}

fn format_parameter() -> RefOr<Parameter> {
    query(
        "f",
        "`json` or `html`; else `Accept` decides.",
        json!({ "type": "string", "enum": ["json", "html"] }),
    )
}

/// The operation of one of the six routes.
pub(super) fn operation(endpoint: Endpoint, op: Operation) -> Operation {
    let sr = schemas::schema_ref;
    let (json_type, schema, ok, description) = match endpoint {
        Endpoint::FeaturesLanding => (
            "application/json",
            sr("FeaturesLanding"),
            "The landing page.",
            "OGC API – Features (Part 1: Core, GeoJSON, HTML) for GIS clients.",
        ),
        Endpoint::FeaturesConformance => (
            "application/json",
            sr("FeaturesConformance"),
            "The conformance classes.",
            "The OGC conformance classes implemented.",
        ),
        Endpoint::FeaturesCollections => (
            "application/json",
            sr("FeatureCollections"),
            "The collections.",
            "`sites` and `observations`, with their extents.",
        ),
        Endpoint::FeaturesCollection => (
            "application/json",
            sr("FeatureCollectionInfo"),
            "The collection.",
            "One collection and its extent.",
        ),
        Endpoint::FeaturesItems => (
            "application/geo+json",
            sr("FeaturePage"),
            "One page of features.",
            "GeoJSON, at most `limit` features per page, with a `next` link while more match.",
        ),
        Endpoint::FeaturesItem => (
            "application/geo+json",
            sr("Feature"),
            "The feature.",
            "One site (by id) or observation (by number).",
        ),
        _ => unreachable!("only the features routes"),
    };
    let response = Response::new(ok).body(json_type, schema).body(
        HTML,
        json!({ "type": "string", "description": "The same document as an HTML page." }),
    );
    let mut op = live_get(op, response)
        .describe(description)
        .errors(Errors::Query);
    if matches!(
        endpoint,
        Endpoint::FeaturesCollection | Endpoint::FeaturesItems | Endpoint::FeaturesItem
    ) {
        op = op.respond_with("404", "NotFound");
        op.parameters.push(path_parameter(
            "collectionId",
            "The collection.",
            json!({ "type": "string", "enum": ["sites", "observations"] }),
        ));
    }
    if endpoint == Endpoint::FeaturesItem {
        op.parameters.push(path_parameter(
            "featureId",
            "Site id or observation number.",
            json!({ "type": "string", "minLength": 1, "maxLength": 64, "examples": ["nl-0001"] }),
        ));
    }
    op.parameters.push(format_parameter());
    if endpoint == Endpoint::FeaturesItems {
        op.parameters.extend([
            query(
                "bbox",
                "`minLon,minLat,maxLon,maxLat` (CRS84).",
                json!({
                    "type": "string",
                    "pattern": "^-?[0-9]+(\\.[0-9]+)?(,-?[0-9]+(\\.[0-9]+)?){3}$",
                    "examples": ["3.3,50.7,7.3,53.6"]
                }),
            ),
            query(
                "datetime",
                "An instant or an interval `start/end` (`..` for an open end).",
                json!({
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 64,
                    "examples": ["2024-01-01/2024-06-30", "2024-03-01T00:00:00Z/..", "2024-05-02"]
                }),
            ),
            query(
                "limit",
                "Page size.",
                json!({ "type": "integer", "format": "int32", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT }),
            ),
            query(
                "cursor",
                "Token of a `next` link.",
                json!({ "type": "string", "minLength": 1, "maxLength": contract::observations::CURSOR_MAX }),
            ),
        ]);
    }
    op
}
