//! The data files of a snapshot and their Frictionless Data Package: the
//! observations and sites as CSV (RFC 4180, header row, CRLF, UTF-8), the
//! sites as GeoJSON, and one Table Schema per CSV whose field types,
//! constraints and units say what a column holds.

use contract::observations::SITE_ID_PATTERN;
use contract::snapshot;
use contract::vocabulary::{PARAMETER_NAMES, PARAMETERS, QUALITY_FLAGS, WATER_BODY_TYPES};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::Snapshot;
use crate::live::csv::push_row;
use crate::store::rfc3339::format_rfc3339;

/// The observation columns: those of the API's CSV, in the same order.
pub use crate::live::csv::COLUMNS as OBSERVATION_COLUMNS;

/// The site columns: the globe route's properties, flattened.
pub const SITE_COLUMNS: [&str; 9] = [
    "site_id",
    "name",
    "country",
    "water_body_type",
    "latitude",
    "longitude",
    "observations",
    "latest_observed_at",
    "parameters",
];

fn header(columns: &[&str]) -> String {
    let mut out = columns.join(",");
    out.push_str("\r\n");
    out
}

/// The observations as the API's CSV writes them (rows already coarsened).
pub fn observations_csv(s: &Snapshot) -> Vec<u8> {
    crate::live::csv::render(&s.observations).into_bytes()
}

pub fn sites_csv(s: &Snapshot) -> Vec<u8> {
    let mut out = header(&SITE_COLUMNS);
    for x in &s.sites {
        push_row(
            &mut out,
            &[
                x.site.id.clone(),
                x.site.name.clone(),
                x.site.country.clone(),
                x.site.water_body_type.clone(),
                x.site.latitude.to_string(),
                x.site.longitude.to_string(),
                x.observations.to_string(),
                format_rfc3339(x.latest_observed_at),
                x.parameters.join(" "),
            ],
        );
    }
    out.into_bytes()
}

/// The sites as the globe route serves them, with the snapshot's licence.
pub fn sites_geojson(s: &Snapshot) -> anyhow::Result<Vec<u8>> {
    let features: Vec<Value> = s
        .sites
        .iter()
        .map(|x| {
            json!({
                "type": "Feature",
                "id": x.site.id,
                "geometry": {"type": "Point", "coordinates": [x.site.longitude, x.site.latitude]},
                "properties": {
                    "site_id": x.site.id,
                    "name": x.site.name,
                    "country": x.site.country,
                    "water_body_type": x.site.water_body_type,
                    "observations": x.observations,
                    "latest_observed_at": format_rfc3339(x.latest_observed_at),
                    "parameters": x.parameters,
                },
            })
        })
        .collect();
    let doc = json!({
        "type": "FeatureCollection",
        "features": features,
        "precision_decimals": contract::observations::PRECISION_DECIMALS,
        "licence": s.about.licence,
        "attribution": s.about.attribution,
    });
    let mut out = serde_json::to_vec(&doc)?;
    out.push(b'\n');
    Ok(out)
}

fn coordinate(name: &str, axis: &str, max: f64) -> Value {
    json!({
        "name": name,
        "type": "number",
        "title": name,
        "description": format!(
            "The site's {name} in decimal degrees {axis} (WGS 84), rounded to {} decimal places \
             (about 1 km) so no volunteer's exact location is published.",
            contract::observations::PRECISION_DECIMALS
        ),
        "unit": "degree",
        "constraints": {"required": true, "minimum": -max, "maximum": max},
    })
}

fn site_fields() -> Vec<Value> {
    vec![
        json!({"name": "site_id", "type": "string", "description": "The monitoring site's code.",
               "constraints": {"required": true, "pattern": SITE_ID_PATTERN.trim_start_matches('^').trim_end_matches('$')}}),
        json!({"name": "country", "type": "string",
               "description": "The site's country, an ISO 3166-1 alpha-2 code such as NL.",
               "constraints": {"required": true, "pattern": "[A-Z]{2}"}}),
        json!({"name": "water_body_type", "type": "string", "description": "The kind of water the site is on.",
               "constraints": {"required": true, "enum": WATER_BODY_TYPES}}),
        coordinate("latitude", "north", 90.0),
        coordinate("longitude", "east", 180.0),
    ]
}

/// The observations' Table Schema.
fn observation_schema() -> Value {
    let units: Vec<String> = PARAMETERS
        .iter()
        .map(|p| format!("{} in {}", p.name, p.unit))
        .collect();
    let [site_id, country, water_body_type, latitude, longitude] =
        <[Value; 5]>::try_from(site_fields()).expect("five site fields");
    json!({
        "fields": [
            {"name": "id", "type": "integer", "description": "A stable observation number.",
             "constraints": {"required": true, "unique": true}},
            site_id,
            {"name": "site_name", "type": "string", "description": "The monitoring site's name.",
             "constraints": {"required": true}},
            country,
            water_body_type,
            {"name": "observed_at", "type": "datetime", "format": "default",
             "description": "When the sample was taken, in UTC (ISO 8601, e.g. 2024-05-01T09:30:00Z).",
             "constraints": {"required": true}},
            {"name": "parameter", "type": "string",
             "description": format!("The measured parameter; its unit is in `unit`: {}.", units.join(", ")),
             "constraints": {"required": true, "enum": PARAMETER_NAMES}},
            {"name": "value", "type": "number",
             "description": "The measured value, in the unit of the `unit` column.",
             "constraints": {"required": true}},
            {"name": "unit", "type": "string",
             "description": "The unit of `value` (mg/L milligrams per litre, NTU nephelometric turbidity units, °C degrees Celsius, pH the pH scale).",
             "constraints": {"required": true}},
            {"name": "method", "type": "string", "description": "How the value was measured.",
             "constraints": {"required": true}},
            {"name": "quality_flag", "type": "string",
             "description": "The result of validation: use valid readings, treat suspect and unverified ones with care, leave invalid ones out.",
             "constraints": {"required": true, "enum": QUALITY_FLAGS}},
            latitude,
            longitude,
        ],
        "primaryKey": ["id"],
        "foreignKeys": [{"fields": ["site_id"], "reference": {"resource": "sites", "fields": ["site_id"]}}],
        "missingValues": [""],
    })
}

/// The sites' Table Schema.
fn site_schema() -> Value {
    let [site_id, country, water_body_type, latitude, longitude] =
        <[Value; 5]>::try_from(site_fields()).expect("five site fields");
    json!({
        "fields": [
            site_id,
            {"name": "name", "type": "string", "description": "The monitoring site's name.",
             "constraints": {"required": true}},
            country,
            water_body_type,
            latitude,
            longitude,
            {"name": "observations", "type": "integer",
             "description": "How many public observations of the site the snapshot holds.",
             "constraints": {"required": true, "minimum": 1}},
            {"name": "latest_observed_at", "type": "datetime", "format": "default",
             "description": "When the site's latest observation in the snapshot was taken, in UTC.",
             "constraints": {"required": true}},
            {"name": "parameters", "type": "string",
             "description": "The parameters measured at the site, separated by spaces.",
             "constraints": {"required": true}},
        ],
        "primaryKey": ["site_id"],
        "missingValues": [""],
    })
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `datapackage.json`: a Frictionless Data Package 1.0 naming every data
/// file with its size and SHA-256, the CSV files as tabular resources.
pub fn datapackage(s: &Snapshot, data: &[(&str, Vec<u8>)]) -> anyhow::Result<Vec<u8>> {
    let resource = |name: &str, path: &str, title: &str| -> Value {
        let bytes = data
            .iter()
            .find(|(n, _)| *n == path)
            .map_or(&[][..], |(_, b)| b);
        json!({
            "name": name,
            "path": path,
            "title": title,
            "bytes": bytes.len(),
            "hash": format!("sha256:{}", sha256_hex(bytes)),
            "encoding": "utf-8",
        })
    };
    let mut observations = resource(
        "observations",
        snapshot::OBSERVATIONS_CSV,
        "Public water observations",
    );
    let mut sites = resource(
        "sites",
        snapshot::SITES_CSV,
        "Public monitoring sites with observations",
    );
    for (r, schema) in [
        (&mut observations, observation_schema()),
        (&mut sites, site_schema()),
    ] {
        r["profile"] = json!("tabular-data-resource");
        r["format"] = json!("csv");
        r["mediatype"] = json!("text/csv");
        r["dialect"] = json!({"delimiter": ",", "lineTerminator": "\r\n", "header": true});
        r["schema"] = schema;
    }
    let mut geojson = resource(
        "sites-geojson",
        snapshot::SITES_GEOJSON,
        "Public monitoring sites (GeoJSON)",
    );
    geojson["profile"] = json!("data-resource");
    geojson["format"] = json!("geojson");
    geojson["mediatype"] = json!("application/geo+json");
    let mut package = json!({
        // Not `tabular-data-package`: the GeoJSON file is a resource too.
        "profile": "data-package",
        "name": "public-water-observations",
        "title": s.title(),
        "description": s.description(),
        "version": s.version,
        "created": s.created,
        "licenses": [{"name": s.about.licence.id, "title": s.about.licence.title, "path": s.about.licence.url}],
        "contributors": [{"title": s.about.publisher, "role": "publisher", "path": s.about.home}],
        "keywords": ["water quality", "citizen science", "observations"],
        "resources": [observations, sites, geojson],
    });
    if let Some(url) = s.url() {
        package["id"] = json!(url);
        package["homepage"] = json!(url);
    }
    let mut out = serde_json::to_vec_pretty(&package)?;
    out.push(b'\n');
    Ok(out)
}
