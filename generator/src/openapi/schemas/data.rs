//! Shapes of the live data routes: statistics, observations, globe points.

use contract::observations::{
    INTERVALS, MAX_LATITUDE, MAX_LIMIT, MAX_LONGITUDE, TREND_MAX_BUCKETS,
};
use serde_json::{Value, json};

use super::{OBSERVATION_PARAMETERS, QUALITY_FLAGS, WATER_BODY_TYPES, schema_ref};

fn count(description: &str) -> Value {
    json!({ "type": "integer", "format": "int64", "minimum": 0, "description": description })
}

fn date_time(description: &str) -> Value {
    json!({ "type": "string", "format": "date-time", "description": description })
}

pub(super) fn platform_stats() -> Value {
    json!({
        "type": "object",
        "description": "Live platform statistics, computed from the database and cached briefly.",
        "properties": {
            "generated_at": date_time("When these figures were computed."),
            "stale": {
                "type": "boolean",
                "description": "True when the database could not be read and older figures are served."
            },
            "cache_max_age_s": count("Seconds these figures stay fresh."),
            "volunteers": count("Registered volunteers."),
            "observations": count("Public observations."),
            "sites": count("Monitoring sites."),
            "countries": count("Countries with at least one site."),
            "classifications": count("Classifications made by volunteers."),
            "classification_projects": count("Projects that collect classifications."),
            "projects": count("Projects."),
            "observations_last_30_days": count("Observations made in the last 30 days."),
            "latest_observation_at": {
                "type": ["string", "null"],
                "format": "date-time",
                "description": "Time of the newest observation; null when there is none."
            },
            "monthly": {
                "type": "array",
                "description": "Observations and classifications per calendar month (UTC), oldest first: from the first month with either, up to and including the current month, at most the last 120 months. Every month in that span is present, with 0 where nothing was counted; empty when there is nothing to count.",
                "maxItems": 120,
                "items": {
                    "type": "object",
                    "properties": {
                        "month": {
                            "type": "string",
                            "pattern": "^[0-9]{4}-(0[1-9]|1[0-2])$",
                            "description": "The month, `YYYY-MM`, in UTC.",
                            "examples": ["2024-06"]
                        },
                        "observations": count("Public observations taken in this month."),
                        "classifications": count("Classifications made in this month.")
                    },
                    "required": ["month", "observations", "classifications"],
                    "additionalProperties": false
                }
            }
        },
        "required": [
            "generated_at", "stale", "cache_max_age_s", "volunteers", "observations", "sites",
            "countries", "classifications", "classification_projects", "projects",
            "observations_last_30_days", "latest_observation_at", "monthly"
        ],
        "additionalProperties": false
    })
}

pub(super) fn data_licence() -> Value {
    json!({
        "type": "object",
        "description": "The licence the served data is published under.",
        "properties": {
            "id": { "type": "string", "description": "SPDX identifier.", "examples": ["CC-BY-4.0"] },
            "title": { "type": "string" },
            "url": { "type": "string", "format": "uri" }
        },
        "required": ["id", "title", "url"],
        "additionalProperties": false
    })
}

pub(super) fn observation() -> Value {
    json!({
        "type": "object",
        "description": "One public water-quality measurement.",
        "properties": {
            "id": { "type": "integer", "format": "int64", "description": "Stable observation number." },
            "site_id": { "type": "string" },
            "site_name": { "type": "string" },
            "country": {
                "type": "string",
                "pattern": "^[A-Z]{2}$",
                "description": "ISO 3166-1 alpha-2 code of the site's country."
            },
            "water_body_type": { "type": "string", "enum": WATER_BODY_TYPES },
            "observed_at": date_time("When the sample was taken."),
            "parameter": { "type": "string", "enum": OBSERVATION_PARAMETERS },
            "value": { "type": "number" },
            "unit": { "type": "string", "examples": ["mg/L"] },
            "method": { "type": "string", "description": "How the value was measured." },
            "quality_flag": { "type": "string", "enum": QUALITY_FLAGS },
            "latitude": {
                "type": "number",
                "minimum": -MAX_LATITUDE,
                "maximum": MAX_LATITUDE,
                "description": "Coarsened to protect volunteers' privacy."
            },
            "longitude": {
                "type": "number",
                "minimum": -MAX_LONGITUDE,
                "maximum": MAX_LONGITUDE,
                "description": "Coarsened to protect volunteers' privacy."
            }
        },
        "required": [
            "id", "site_id", "site_name", "country", "water_body_type", "observed_at",
            "parameter", "value", "unit", "method", "quality_flag", "latitude", "longitude"
        ],
        "additionalProperties": false
    })
}

pub(super) fn observation_page() -> Value {
    json!({
        "type": "object",
        "description": "One page of observations, newest first.",
        "properties": {
            "data": { "type": "array", "items": schema_ref("Observation") },
            "next_cursor": {
                "type": ["string", "null"],
                "description": "Pass as `cursor` to get the next page; null on the last page."
            },
            "limit": { "type": "integer", "format": "int32", "minimum": 1, "maximum": MAX_LIMIT },
            "licence": schema_ref("DataLicence"),
            "attribution": { "type": "string" },
            "generated_at": date_time("When this page was computed.")
        },
        "required": ["data", "next_cursor", "limit", "licence", "attribution", "generated_at"],
        "additionalProperties": false
    })
}

pub(super) fn globe_data() -> Value {
    json!({
        "type": "object",
        "description": "RFC 7946 GeoJSON FeatureCollection of public monitoring sites.",
        "properties": {
            "type": { "const": "FeatureCollection" },
            "features": { "type": "array", "items": schema_ref("GlobeFeature") },
            "precision_decimals": {
                "type": "integer",
                "format": "int32",
                "minimum": 0,
                "maximum": 6,
                "description": "Decimal places coordinates are rounded to."
            },
            "licence": schema_ref("DataLicence"),
            "attribution": { "type": "string" }
        },
        "required": ["type", "features", "precision_decimals", "licence", "attribution"]
    })
}

pub(super) fn globe_feature() -> Value {
    json!({
        "type": "object",
        "description": "One monitoring site as a GeoJSON Point feature.",
        "properties": {
            "type": { "const": "Feature" },
            "id": { "type": "string" },
            "geometry": {
                "type": "object",
                "properties": {
                    "type": { "const": "Point" },
                    "coordinates": {
                        "type": "array",
                        "description": "Longitude then latitude, coarsened.",
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
            },
            "properties": {
                "type": "object",
                "properties": {
                    "site_id": { "type": "string" },
                    "name": { "type": "string" },
                    "country": { "type": "string", "pattern": "^[A-Z]{2}$" },
                    "water_body_type": { "type": "string", "enum": WATER_BODY_TYPES },
                    "observations": { "type": "integer", "format": "int64", "minimum": 0 },
                    "latest_observed_at": { "type": "string", "format": "date-time" },
                    "parameters": {
                        "type": "array",
                        "items": { "type": "string", "enum": OBSERVATION_PARAMETERS }
                    }
                },
                "required": [
                    "site_id", "name", "country", "water_body_type", "observations",
                    "latest_observed_at", "parameters"
                ]
            }
        },
        "required": ["type", "id", "geometry", "properties"]
    })
}

pub(super) fn observation_trend() -> Value {
    let number = |d: &str| json!({ "type": "number", "description": d });
    let nullable = |d: &str| json!({ "type": ["number", "null"], "description": d });
    json!({
        "type": "object",
        "description": "One parameter's observations per interval, with a trend.",
        "properties": {
            "parameter": { "type": "string", "enum": OBSERVATION_PARAMETERS },
            "unit": { "type": ["string", "null"], "description": "The unit of every figure; the selection's most frequent one." },
            "interval": { "type": "string", "enum": INTERVALS },
            "selection": {
                "type": "object",
                "description": "The selection as given.",
                "properties": {
                    "site": { "type": "string" }, "bbox": { "type": "string" },
                    "country": { "type": "string" }, "from": { "type": "string" },
                    "to": { "type": "string" }
                },
                "additionalProperties": false
            },
            "observations": { "type": "integer", "format": "int64", "minimum": 0, "description": "Observations summarised." },
            "first_observed_at": { "type": ["string", "null"], "format": "date-time" },
            "last_observed_at": { "type": ["string", "null"], "format": "date-time" },
            "buckets": {
                "type": "array",
                "maxItems": TREND_MAX_BUCKETS,
                "description": "Oldest first; empty buckets are left out.",
                "items": {
                    "type": "object",
                    "properties": {
                        "start": { "type": "string", "format": "date", "description": "First day of the bucket (UTC)." },
                        "count": { "type": "integer", "format": "int64", "minimum": 1 },
                        "min": number("Smallest value."),
                        "mean": number("Arithmetic mean, to six significant digits."),
                        "max": number("Largest value.")
                    },
                    "required": ["start", "count", "min", "mean", "max"],
                    "additionalProperties": false
                }
            },
            "trend": {
                "type": "object",
                "properties": {
                    "slope_per_year": nullable("Least-squares slope of value over time, in units per year of 365.25 days; null without two distinct times."),
                    "change": nullable("Mean of the last bucket minus mean of the first; null with fewer than two buckets.")
                },
                "required": ["slope_per_year", "change"],
                "additionalProperties": false
            },
            "excluded_other_units": { "type": "integer", "format": "int64", "minimum": 1, "description": "Observations left out for being in another unit; absent when none." },
            "licence": schema_ref("DataLicence"),
            "attribution": { "type": "string" },
            "generated_at": date_time("When the figures were computed.")
        },
        "required": [
            "parameter", "unit", "interval", "selection", "observations", "first_observed_at",
            "last_observed_at", "buckets", "trend", "licence", "attribution", "generated_at"
        ],
        "additionalProperties": false,
        "examples": [{
            "parameter": "nitrate", "unit": "mg/L", "interval": "year",
            "selection": { "site": "nl-0001", "from": "2024-01-01" },
            "observations": 24,
            "first_observed_at": "2024-01-09T10:00:00Z", "last_observed_at": "2025-12-14T09:30:00Z",
            "buckets": [
                { "start": "2024-01-01", "count": 12, "min": 1.2, "mean": 2.41667, "max": 3.9 },
                { "start": "2025-01-01", "count": 12, "min": 0.9, "mean": 2.05, "max": 3.1 }
            ],
            "trend": { "slope_per_year": -0.312455, "change": -0.36667 },
            "licence": { "id": "CC-BY-4.0", "title": "Creative Commons Attribution 4.0 International", "url": "https://creativecommons.org/licenses/by/4.0/" },
            "attribution": "Water-quality observations by citizen-science volunteers.",
            "generated_at": "2026-01-01T00:00:00Z"
        }]
    })
}
