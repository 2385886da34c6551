//! Shapes of the OGC API – Features routes (Part 1: Core, GeoJSON).

use contract::observations::{MAX_LATITUDE, MAX_LONGITUDE};
use serde_json::{Value, json};

use super::{OBSERVATION_PARAMETERS, QUALITY_FLAGS, WATER_BODY_TYPES, schema_ref};

fn links() -> Value {
    json!({ "type": "array", "items": schema_ref("OgcLink") })
}

fn date_time(description: &str) -> Value {
    json!({ "type": "string", "format": "date-time", "description": description })
}

pub(super) fn ogc_link() -> Value {
    json!({
        "type": "object",
        "description": "A link (RFC 8288 terms), absolute.",
        "properties": {
            "href": { "type": "string", "format": "uri" },
            "rel": { "type": "string" },
            "type": { "type": "string" },
            "title": { "type": "string" }
        },
        "required": ["href", "rel"]
    })
}

pub(super) fn landing() -> Value {
    json!({
        "type": "object",
        "description": "The landing page: links to the API definition and documentation, the conformance classes and the collections.",
        "properties": {
            "title": { "type": "string" },
            "description": { "type": "string" },
            "links": links()
        },
        "required": ["links"]
    })
}

pub(super) fn conformance() -> Value {
    json!({
        "type": "object",
        "properties": {
            "conformsTo": {
                "type": "array",
                "items": { "type": "string", "format": "uri" },
                "minItems": 1
            },
            "links": links()
        },
        "required": ["conformsTo"]
    })
}

pub(super) fn collections() -> Value {
    json!({
        "type": "object",
        "properties": {
            "links": links(),
            "collections": { "type": "array", "items": schema_ref("FeatureCollectionInfo") }
        },
        "required": ["links", "collections"]
    })
}

pub(super) fn collection_info() -> Value {
    let bbox = json!({
        "type": "array",
        "items": { "type": "number" },
        "minItems": 4,
        "maxItems": 4
    });
    json!({
        "type": "object",
        "description": "A collection, its extent computed from the published data.",
        "properties": {
            "id": { "type": "string", "enum": ["sites", "observations"] },
            "title": { "type": "string" },
            "description": { "type": "string" },
            "itemType": { "const": "feature" },
            "crs": { "type": "array", "items": { "type": "string", "format": "uri" } },
            "extent": {
                "type": "object",
                "properties": {
                    "spatial": {
                        "type": "object",
                        "properties": {
                            "bbox": { "type": "array", "items": bbox, "minItems": 1 },
                            "crs": { "type": "string", "format": "uri" }
                        },
                        "required": ["bbox"]
                    },
                    "temporal": {
                        "type": "object",
                        "properties": {
                            "interval": {
                                "type": "array",
                                "items": {
                                    "type": "array",
                                    "items": { "type": ["string", "null"], "format": "date-time" },
                                    "minItems": 2,
                                    "maxItems": 2
                                },
                                "minItems": 1
                            },
                            "trs": { "type": "string", "format": "uri" }
                        },
                        "required": ["interval"]
                    }
                }
            },
            "links": links()
        },
        "required": ["id", "links"]
    })
}

fn point() -> Value {
    json!({
        "type": "object",
        "properties": {
            "type": { "const": "Point" },
            "coordinates": {
                "type": "array",
                "description": "Longitude then latitude (CRS84), rounded to protect volunteers' privacy.",
                "prefixItems": [
                    { "type": "number", "minimum": -MAX_LONGITUDE, "maximum": MAX_LONGITUDE },
                    { "type": "number", "minimum": -MAX_LATITUDE, "maximum": MAX_LATITUDE }
                ],
                "items": { "type": "number" },
                "minItems": 2,
                "maxItems": 2
            }
        },
        "required": ["type", "coordinates"]
    })
}

pub(super) fn site_feature() -> Value {
    json!({
        "type": "object",
        "description": "A public monitoring site.",
        "properties": {
            "type": { "const": "Feature" },
            "id": { "type": "string" },
            "geometry": point(),
            "properties": {
                "type": "object",
                "properties": {
                    "site_id": { "type": "string" },
                    "name": { "type": "string" },
                    "country": { "type": "string", "pattern": "^[A-Z]{2}$" },
                    "water_body_type": { "type": "string", "enum": WATER_BODY_TYPES },
                    "observations": { "type": "integer", "format": "int64", "minimum": 1 },
                    "first_observed_at": date_time("The site's first public observation."),
                    "latest_observed_at": date_time("The site's latest public observation."),
                    "parameters": {
                        "type": "array",
                        "items": { "type": "string", "enum": OBSERVATION_PARAMETERS }
                    }
                },
                "required": [
                    "site_id", "name", "country", "water_body_type", "observations",
                    "first_observed_at", "latest_observed_at", "parameters"
                ]
            },
            "links": links()
        },
        "required": ["type", "id", "geometry", "properties"]
    })
}

pub(super) fn observation_feature() -> Value {
    json!({
        "type": "object",
        "description": "One validated observation, at its site's rounded location.",
        "properties": {
            "type": { "const": "Feature" },
            "id": { "type": "integer", "format": "int64", "minimum": 1 },
            "geometry": point(),
            "properties": {
                "type": "object",
                "properties": {
                    "site_id": { "type": "string" },
                    "site_name": { "type": "string" },
                    "country": { "type": "string", "pattern": "^[A-Z]{2}$" },
                    "water_body_type": { "type": "string", "enum": WATER_BODY_TYPES },
                    "observed_at": date_time("When the sample was taken."),
                    "parameter": { "type": "string", "enum": OBSERVATION_PARAMETERS },
                    "value": { "type": "number" },
                    "unit": { "type": "string" },
                    "method": { "type": "string" },
                    "quality_flag": { "type": "string", "enum": QUALITY_FLAGS }
                },
                "required": [
                    "site_id", "site_name", "country", "water_body_type", "observed_at",
                    "parameter", "value", "unit", "method", "quality_flag"
                ]
            },
            "links": links()
        },
        "required": ["type", "id", "geometry", "properties"]
    })
}

pub(super) fn feature() -> Value {
    json!({
        "description": "A feature of either collection.",
        "oneOf": [schema_ref("SiteFeature"), schema_ref("ObservationFeature")]
    })
}

pub(super) fn feature_page() -> Value {
    json!({
        "type": "object",
        "description": "A GeoJSON FeatureCollection: one page of features, with a `next` link while there are more.",
        "properties": {
            "type": { "const": "FeatureCollection" },
            "features": { "type": "array", "items": schema_ref("Feature") },
            "numberReturned": { "type": "integer", "format": "int32", "minimum": 0 },
            "numberMatched": {
                "type": "integer",
                "format": "int32",
                "minimum": 0,
                "description": "How many features match the page's filters in all, over every page."
            },
            "links": links(),
            "licence": schema_ref("DataLicence"),
            "attribution": { "type": "string" }
        },
        "required": ["type", "features", "numberReturned", "numberMatched", "links", "licence", "attribution"]
    })
}

pub(super) fn queryables() -> Value {
    json!({
        "type": "object",
        "description": "A JSON Schema (2020-12) of a collection's queryables (OGC API – Features Part 3): each property a query parameter of the items route.",
        "properties": {
            "$schema": { "type": "string", "format": "uri" },
            "$id": { "type": "string", "format": "uri" },
            "type": { "const": "object" },
            "title": { "type": "string" },
            "description": { "type": "string" },
            "properties": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "properties": {
                        "type": { "const": "string" },
                        "title": { "type": "string" },
                        "description": { "type": "string" },
                        "enum": { "type": "array", "items": { "type": "string" } },
                        "pattern": { "type": "string" }
                    },
                    "required": ["type"]
                }
            },
            "additionalProperties": { "const": false }
        },
        "required": ["$schema", "$id", "type", "properties"]
    })
}

pub(super) fn openapi_30_document() -> Value {
    json!({
        "type": "object",
        "description": "The OGC API – Features routes of this contract, in OpenAPI 3.0.",
        "properties": {
            "openapi": { "type": "string", "pattern": "^3\\.0\\.[0-9]+$" },
            "info": { "type": "object" },
            "paths": { "type": "object" }
        },
        "required": ["openapi", "info", "paths"]
    })
}
