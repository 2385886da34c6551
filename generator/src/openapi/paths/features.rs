//! The operations of the OGC API – Features routes (decision 0049).

use serde_json::json;

use super::{Errors, Operation, Parameter, RefOr, Response, live_get, query, schemas};
use contract::observations::{DEFAULT_LIMIT, MAX_LIMIT};
use contract::routes::Endpoint;
use contract::vocabulary::{PARAMETER_NAMES, QUALITY_FLAGS, WATER_BODY_TYPES};

/// Four or six comma-separated decimal numbers (an exponent allowed).
const BBOX_PATTERN: &str = "^[-+]?[0-9.]+([eE][-+]?[0-9]+)?(,[-+]?[0-9.]+([eE][-+]?[0-9]+)?){3}((,[-+]?[0-9.]+([eE][-+]?[0-9]+)?){2})?$";

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

/// The operation of one of the seven routes.
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
            "GeoJSON, at most `limit` features per page, with a `next` link while more match \
             and `numberMatched`, how many match in all.",
        ),
        Endpoint::FeaturesItem => (
            "application/geo+json",
            sr("Feature"),
            "The feature.",
            "One site (by id) or observation (by number).",
        ),
        Endpoint::FeaturesQueryables => (
            contract::routes::SCHEMA_JSON,
            sr("FeatureQueryables"),
            "The queryables, a JSON Schema.",
            "OGC API – Features Part 3: the properties the items route filters on by equality, \
             each a query parameter of that route (sites: `site_id`, `country`, \
             `water_body_type`; observations: those and `parameter`, `quality_flag`).",
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
        Endpoint::FeaturesCollection
            | Endpoint::FeaturesItems
            | Endpoint::FeaturesItem
            | Endpoint::FeaturesQueryables
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
                "`minLon,minLat,maxLon,maxLat`, or six numbers \
                 `minLon,minLat,minHeight,maxLon,maxLat,maxHeight` (heights checked, then \
                 ignored), in CRS84. A `minLon` above `maxLon` is a box across the antimeridian.",
                json!({
                    "type": "string",
                    "pattern": BBOX_PATTERN,
                    "examples": ["3.3,50.7,7.3,53.6", "3.3,50.7,-100,7.3,53.6,100", "170,-50,-170,-30"]
                }),
            ),
            query(
                "datetime",
                "An instant or an interval `start/end` (`..` or nothing for an open end): \
                 dates (`2024-06-01`, also `2024-06-01T`) or RFC 3339 date-times. A date as \
                 an end includes its day.",
                json!({
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 64,
                    "examples": ["2024-01-01/2024-06-30", "2024-03-01T00:00:00Z/..", "../2024-06-01", "2024-05-02"]
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
            query(
                "site_id",
                "Queryable: only the features of this site.",
                json!({ "type": "string", "minLength": 1, "maxLength": 64, "examples": ["nl-0001"] }),
            ),
            query(
                "country",
                "Queryable: only the features in this country (ISO 3166-1 alpha-2).",
                json!({ "type": "string", "minLength": 2, "maxLength": 2, "pattern": "^[A-Z]{2}$", "examples": ["NL"] }),
            ),
            query(
                "water_body_type",
                "Queryable: only the features on this kind of water.",
                json!({ "type": "string", "enum": WATER_BODY_TYPES }),
            ),
            query(
                "parameter",
                "Queryable of the observations (a 400 on the sites): only this parameter.",
                json!({ "type": "string", "enum": PARAMETER_NAMES }),
            ),
            query(
                "quality_flag",
                "Queryable of the observations (a 400 on the sites): only this quality flag.",
                json!({ "type": "string", "enum": QUALITY_FLAGS }),
            ),
        ]);
    }
    op
}
