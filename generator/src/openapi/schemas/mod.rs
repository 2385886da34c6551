//! `components.schemas`: the shapes every route serves or accepts.
//!
//! `ServiceInformation` and its parts come from the model's `JsonSchema`
//! derive, so the published document and its schema cannot drift; the shapes
//! the sidecar serves are written here, once, and the sidecar's tests validate
//! its real responses against them.

mod data;
mod exchange;
mod features;

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::model::ServiceInformation;
use contract::ProblemCode;

pub use contract::mcp::PROTOCOL_VERSIONS as MCP_PROTOCOL_VERSIONS;
pub use contract::vocabulary::{
    PARAMETER_NAMES as OBSERVATION_PARAMETERS, QUALITY_FLAGS, WATER_BODY_TYPES,
};

/// A local reference to a component schema.
pub fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// Every component schema, keyed by name.
/// Every schema of the contract; `languages` are the site's (the default
/// first), which the chat answers in.
pub fn all(base_url: &str, languages: &[&str]) -> BTreeMap<String, Value> {
    let mut schemas = service_information();
    let written = [
        ("Problem", problem(base_url)),
        ("InvalidParam", invalid_param()),
        ("PlatformStats", data::platform_stats()),
        ("DataLicence", data::data_licence()),
        ("Observation", data::observation()),
        ("ObservationPage", data::observation_page()),
        ("GlobeData", data::globe_data()),
        ("GlobeFeature", data::globe_feature()),
        ("ObservationTrend", data::observation_trend()),
        ("McpRequest", exchange::mcp_request()),
        ("McpResponse", exchange::mcp_response()),
        ("JsonRpcError", exchange::json_rpc_error()),
        ("ContactChallenge", exchange::contact_challenge()),
        ("ContactSubmission", exchange::contact_submission()),
        ("ContactReceipt", exchange::contact_receipt()),
        ("ChatRequest", exchange::chat_request(languages)),
        ("ChatAnswer", exchange::chat_answer()),
        ("Health", exchange::health()),
        ("Readiness", exchange::readiness()),
        ("AiCatalog", exchange::ai_catalog()),
        ("ApiCatalog", exchange::api_catalog()),
        ("McpServerCard", exchange::mcp_server_card()),
        ("DataCatalog", exchange::data_catalog()),
        ("OpenApiDocument", exchange::openapi_document()),
        ("OgcLink", features::ogc_link()),
        ("FeaturesLanding", features::landing()),
        ("FeaturesConformance", features::conformance()),
        ("FeatureCollections", features::collections()),
        ("FeatureCollectionInfo", features::collection_info()),
        ("SiteFeature", features::site_feature()),
        ("ObservationFeature", features::observation_feature()),
        ("Feature", features::feature()),
        ("FeaturePage", features::feature_page()),
        ("FeatureQueryables", features::queryables()),
        ("OpenApi30Document", features::openapi_30_document()),
    ];
    for (name, schema) in written {
        let clash = schemas.insert(name.to_owned(), schema);
        assert!(
            clash.is_none(),
            "schema name `{name}` is taken by the model"
        );
    }
    schemas
}

/// The model's schema for `ServiceInformation`, split into components: each
/// `$defs` entry becomes its own component and every `#/$defs/` reference is
/// pointed at `#/components/schemas/`.
fn service_information() -> BTreeMap<String, Value> {
    let mut root = serde_json::to_value(schemars::schema_for!(ServiceInformation))
        .expect("a schema is plain JSON");
    let mut out = BTreeMap::new();
    if let Some(obj) = root.as_object_mut() {
        obj.remove("$schema");
        if let Some(Value::Object(defs)) = obj.remove("$defs") {
            for (name, mut schema) in defs {
                rewrite_refs(&mut schema);
                constrain(&name, &mut schema);
                out.insert(name, schema);
            }
        }
    }
    rewrite_refs(&mut root);
    out.insert("ServiceInformation".to_owned(), root);
    out
}

/// The model's checked strings derive a bare `string` schema; this adds the
/// constraint each one checks on parsing (never stricter than the parser),
/// so clients can validate too. A keyword the model already sets is kept.
fn constrain(name: &str, schema: &mut Value) {
    let extra = match name {
        "Date" => json!({ "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" }),
        "Id" => json!({ "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$", "maxLength": 64 }),
        "CountryCode" => json!({ "pattern": "^[A-Z]{2}$" }),
        "LicenceId" => json!({ "pattern": "^[A-Za-z0-9.+-]{1,64}$" }),
        "Email" => json!({ "pattern": "^[^\\s@<>]+@[^\\s@<>]+\\.[^\\s@<>]+$" }),
        "Link" => json!({ "pattern": "^(https://\\S+|/|/[^/\\s]\\S*)$" }),
        _ => return,
    };
    if let (Some(target), Value::Object(extra)) = (schema.as_object_mut(), extra) {
        for (key, value) in extra {
            target.entry(key).or_insert(value);
        }
    }
}

fn rewrite_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if key == "$ref"
                    && let Value::String(target) = v
                    && let Some(name) = target.strip_prefix("#/$defs/")
                {
                    *target = format!("#/components/schemas/{name}");
                } else {
                    rewrite_refs(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

fn problem(base_url: &str) -> Value {
    let codes: Vec<&str> = ProblemCode::ALL.iter().map(|p| p.as_str()).collect();
    json!({
        "type": "object",
        "description": "An RFC 9457 problem object. `type` is the page that explains `code`; \
            clients ignore members they do not know.",
        "properties": {
            "type": {
                "type": "string",
                "format": "uri",
                "description": "Absolute URL of the page documenting this problem code.",
                "examples": [format!("{base_url}/docs/problems/not_found/")]
            },
            "title": { "type": "string", "description": "Short summary of the problem type." },
            "status": {
                "type": "integer",
                "format": "int32",
                "minimum": 100,
                "maximum": 599,
                "description": "The HTTP status code of the response."
            },
            "detail": { "type": "string", "description": "What happened in this occurrence." },
            "instance": {
                "type": "string",
                "format": "uri-reference",
                "description": "The request path this occurrence happened at."
            },
            "code": {
                "type": "string",
                "enum": codes,
                "description": "Stable, machine-readable problem code."
            },
            "errors": {
                "type": "array",
                "description": "Field-level errors of a rejected submission or query.",
                "items": schema_ref("InvalidParam")
            }
        },
        "required": ["type", "title", "status", "code"]
    })
}

fn invalid_param() -> Value {
    json!({
        "type": "object",
        "description": "One rejected field and why.",
        "properties": {
            "name": { "type": "string", "description": "Field or query parameter name." },
            "reason": { "type": "string", "description": "Why the value was rejected." }
        },
        "required": ["name", "reason"]
    })
}
