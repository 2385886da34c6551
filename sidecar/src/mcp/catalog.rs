//! The tools' static descriptions: names, descriptions with an example,
//! input schemas whose enums come from the contract, and output schemas
//! that name every member a result has (decision 0222). `tools/list` sends
//! these; kept short, since an agent reads them on every session.

use contract::observations::{COUNTRY_PATTERN, INTERVALS, OBSERVATION_FIELDS, SITE_ID_PATTERN};
use contract::regions::REGION_IDS;
use contract::vocabulary::PARAMETER_NAMES;
use serde_json::{Value, json};

/// Sections of the service information an agent may ask for alone.
pub const SECTIONS: [&str; 7] = [
    "services",
    "projects",
    "evidence",
    "scope",
    "consortium",
    "contact",
    "guardrails",
];
pub const SEARCH_MAX: u64 = 20;
pub const SEARCH_DEFAULT: u64 = 5;
pub const TOPIC_MAX: usize = 200;
pub const MESSAGE_MAX: usize = 5000;
pub const NAME_MAX: usize = 200;
/// The `language` argument of the documentation tools; `tools/list` adds
/// the release's languages as its `enum` ([`super::tools::list`]).
pub const LANGUAGE: &str = "A language of the site (BCP 47), the default first in the enum.";
/// Rows or points a live tool answers when `limit` is not given, and the
/// most it answers (decision 0221): a default page stays far below 20,000
/// characters, a full one about 36,000.
pub const PAGE_DEFAULT: u64 = 20;
pub const PAGE_MAX: u64 = 50;

/// A tool's behaviour hints (MCP 2025-03-26 and later), stated per tool so
/// that a tool that came to write or reach outside would have to say so.
#[derive(Clone, Copy)]
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    /// Whether it reaches beyond the organisation's own published data.
    pub open_world: bool,
}

/// Reads the organisation's own published or live data, and nothing else.
/// `prepare_enquiry` is one of these: it drafts text and stores or sends
/// nothing (a human submits the form).
const READS_OWN_DATA: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// A tool's static description.
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub live: bool,
    pub hints: Hints,
    pub input: fn() -> Value,
    pub output: fn() -> Value,
}

fn string() -> Value {
    json!({"type": "string"})
}

fn number() -> Value {
    json!({"type": "number"})
}

fn integer() -> Value {
    json!({"type": "integer"})
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

fn licence() -> Value {
    object(
        json!({"id": string(), "title": string(), "url": string()}),
        &["id", "title", "url"],
    )
}

fn bbox() -> Value {
    json!({"type": "string", "description": "minLon,minLat,maxLon,maxLat in WGS 84 degrees, e.g. 3.3,50.7,7.3,53.6."})
}

fn site() -> Value {
    json!({"type": "string", "pattern": SITE_ID_PATTERN, "description": "A site_id, e.g. nl-0001."})
}

fn country() -> Value {
    json!({"type": "string", "pattern": COUNTRY_PATTERN, "description": "ISO 3166-1 alpha-2, e.g. NL."})
}

fn date(description: &str) -> Value {
    json!({"type": "string", "description": format!("{description} YYYY-MM-DD or RFC 3339 time, UTC.")})
}

fn limit() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": PAGE_MAX, "default": PAGE_DEFAULT})
}

fn cursor() -> Value {
    json!({"type": "string", "description": "next_cursor of the previous page."})
}

fn observations_input() -> Value {
    json!({"type": "object", "properties": {
        "parameter": {"type": "string", "enum": PARAMETER_NAMES},
        "site": site(),
        "from": date("Observed at or after."),
        "to": date("Observed at or before; a date includes its day."),
        "bbox": bbox(),
        "fields": {"type": "array", "items": {"type": "string", "enum": OBSERVATION_FIELDS},
            "minItems": 1, "uniqueItems": true, "description": "Only these members of each row, e.g. [\"observed_at\",\"value\"]."},
        "limit": limit(),
        "cursor": cursor()
    }, "additionalProperties": false})
}

fn observations_output() -> Value {
    let row: serde_json::Map<String, Value> = OBSERVATION_FIELDS
        .iter()
        .map(|f| {
            let t = match *f {
                "id" => integer(),
                "value" | "latitude" | "longitude" => number(),
                _ => string(),
            };
            ((*f).to_owned(), t)
        })
        .collect();
    object(
        json!({
            "data": {"type": "array", "items": {"type": "object", "properties": row, "additionalProperties": false}},
            "next_cursor": {"type": ["string", "null"]},
            "limit": integer(),
            "fields": {"type": "array", "items": string()},
            "licence": licence(), "attribution": string(), "generated_at": string()
        }),
        &["data", "next_cursor", "limit", "licence", "attribution"],
    )
}

fn globe_input() -> Value {
    json!({"type": "object", "properties": {
        "bbox": bbox(),
        "country": country(),
        "region": {"type": "string", "enum": REGION_IDS},
        "fields": {"type": "array", "items": {"type": "string", "enum": GLOBE_FIELDS},
            "minItems": 1, "uniqueItems": true, "description": "Only these properties of each point (site_id always), e.g. [\"name\"]."},
        "limit": limit(),
        "cursor": cursor()
    }, "additionalProperties": false})
}

/// The properties of a globe point an agent may select with `fields`.
pub const GLOBE_FIELDS: [&str; 8] = [
    "site_id",
    "name",
    "country",
    "region",
    "water_body_type",
    "observations",
    "latest_observed_at",
    "parameters",
];

fn globe_output() -> Value {
    let count = || {
        json!({"type": "array", "items": object(
            json!({"country": string(), "region": string(), "sites": integer(), "observations": integer(), "extent": extent()}),
            &["sites", "observations"],
        )})
    };
    let feature = object(
        json!({
            "type": {"const": "Feature"}, "id": string(),
            "geometry": object(json!({"type": {"const": "Point"}, "coordinates": {"type": "array", "items": number()}}), &["type", "coordinates"]),
            "properties": object(json!({
                "site_id": string(), "name": string(), "country": string(), "region": string(),
                "water_body_type": string(), "observations": integer(),
                "latest_observed_at": string(), "parameters": {"type": "array", "items": string()}
            }), &["site_id"])
        }),
        &["type", "id", "geometry", "properties"],
    );
    object(
        json!({
            "mode": {"enum": ["summary", "points"]},
            "sites": integer(), "observations": integer(),
            "extent": extent(),
            "regions": count(), "countries": count(),
            "type": {"const": "FeatureCollection"},
            "features": {"type": "array", "items": feature},
            "matched": integer(), "next_cursor": {"type": ["string", "null"]},
            "precision_decimals": integer(), "next": string(),
            "licence": licence(), "attribution": string()
        }),
        &["mode", "licence", "attribution"],
    )
}

fn extent() -> Value {
    json!({"type": ["array", "null"], "items": number(), "description": "minLon,minLat,maxLon,maxLat of the sites counted or matched"})
}

fn trend_input() -> Value {
    json!({"type": "object", "properties": {
        "parameter": {"type": "string", "enum": PARAMETER_NAMES},
        "site": site(),
        "bbox": bbox(),
        "country": country(),
        "from": date("Observed at or after."),
        "to": date("Observed at or before; a date includes its day."),
        "interval": {"type": "string", "enum": INTERVALS, "default": INTERVALS[0]}
    }, "required": ["parameter"], "additionalProperties": false})
}

fn trend_output() -> Value {
    let nullable = || json!({"type": ["number", "null"]});
    object(
        json!({
            "parameter": string(), "unit": {"type": ["string", "null"]}, "interval": string(),
            "selection": {"type": "object"}, "observations": integer(),
            "first_observed_at": {"type": ["string", "null"]}, "last_observed_at": {"type": ["string", "null"]},
            "buckets": {"type": "array", "items": object(
                json!({"start": string(), "count": integer(), "min": number(), "mean": number(), "max": number()}),
                &["start", "count", "min", "mean", "max"],
            )},
            "trend": object(json!({"slope_per_year": nullable(), "change": nullable()}), &["slope_per_year", "change"]),
            "excluded_other_units": integer(),
            "licence": licence(), "attribution": string(), "generated_at": string()
        }),
        &[
            "parameter",
            "unit",
            "interval",
            "observations",
            "buckets",
            "trend",
            "licence",
            "attribution",
        ],
    )
}

fn stats_output() -> Value {
    let n = integer;
    object(
        json!({
            "generated_at": string(), "stale": {"type": "boolean"}, "cache_max_age_s": n(),
            "volunteers": n(), "observations": n(), "sites": n(), "countries": n(),
            "classifications": n(), "classification_projects": n(), "projects": n(),
            "observations_last_30_days": n(), "latest_observation_at": {"type": ["string", "null"]},
            "monthly": {"type": "array", "items": object(
                json!({"month": string(), "observations": n(), "classifications": n()}),
                &["month", "observations", "classifications"],
            )}
        }),
        &["generated_at", "observations", "sites", "monthly"],
    )
}

fn service_output() -> Value {
    let part = || json!({"type": ["object", "array"]});
    let mut props = serde_json::Map::new();
    for s in SECTIONS {
        props.insert(s.into(), part());
    }
    for s in ["name", "description", "url", "updated", "more"] {
        props.insert(s.into(), string());
    }
    props.insert("sections".into(), json!({"type": "object"}));
    json!({"type": "object", "properties": props})
}

pub const TOOLS: [Tool; 8] = [
    Tool {
        name: "get_service_information",
        title: "Service information",
        description: "The organisation's published service information. Without `section`: who it is, its contact, the guardrails for agents and the titles in each section. `section` gives one section in full, e.g. {\"section\":\"services\"}.",
        live: false,
        hints: READS_OWN_DATA,
        input: || json!({"type": "object", "properties": {"section": {"type": "string", "enum": SECTIONS}}, "additionalProperties": false}),
        output: service_output,
    },
    Tool {
        name: "get_platform_statistics",
        title: "Platform statistics",
        description: "Live statistics of the citizen-science platform (volunteers, sites, observations, per month), as /api/platform-stats.php.",
        live: true,
        hints: READS_OWN_DATA,
        input: || json!({"type": "object", "properties": {}, "additionalProperties": false}),
        output: stats_output,
    },
    Tool {
        name: "get_observations",
        title: "Water observations",
        description: "Public water-quality observations, newest first, as /api/observations-data.php, in pages of `limit` rows (default 20, at most 50); pass `next_cursor` back as `cursor` for more. `fields` keeps only some members of each row. For figures over time use get_observation_trend. Example: {\"parameter\":\"nitrate\",\"site\":\"nl-0001\",\"fields\":[\"observed_at\",\"value\",\"unit\"]}.",
        live: true,
        hints: READS_OWN_DATA,
        input: observations_input,
        output: observations_output,
    },
    Tool {
        name: "get_observation_trend",
        title: "Observation trend",
        description: "One parameter's observations per day, week, month (default) or year: count, min, mean, max per bucket, the least-squares slope per year and the change of the mean from first to last bucket, with unit and licence; as /api/observation-trend. Select by site, bbox or country and from/to. Example: {\"parameter\":\"nitrate\",\"site\":\"nl-0001\",\"from\":\"2024-01-01\",\"interval\":\"month\"}.",
        live: true,
        hints: READS_OWN_DATA,
        input: trend_input,
        output: trend_output,
    },
    Tool {
        name: "get_globe_points",
        title: "Globe points",
        description: "Public observation sites of /api/globe-data.php, coordinates coarsened for privacy. Without arguments: a summary (sites, observations and extent in all, per region and per country). With bbox, country, region, fields, limit or cursor: the matching sites as GeoJSON points with the extent of all of them, `limit` a page (default 20, at most 50), `next_cursor` for more; `fields` keeps only some properties. Example: {\"country\":\"NL\",\"fields\":[\"name\"],\"limit\":10}.",
        live: true,
        hints: READS_OWN_DATA,
        input: globe_input,
        output: globe_output,
    },
    Tool {
        name: "search_documentation",
        title: "Search the documentation",
        description: "Full-text search over the published documentation pages: the best-ranked pages with a snippet, URL and the resource URI of the Markdown (read it with get_document). `language` searches the pages in that language (with its stemming); without it, the site's default language. Example: {\"query\":\"nitrate protocol\"}, {\"query\":\"nitraat meten\",\"language\":\"nl\"}.",
        live: false,
        hints: READS_OWN_DATA,
        input: || {
            json!({"type": "object", "properties": {
                "query": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_MAX, "default": SEARCH_DEFAULT},
                "language": {"type": "string", "description": LANGUAGE}
            }, "required": ["query"], "additionalProperties": false})
        },
        output: || {
            object(
                json!({"query": string(), "language": string(), "results": {"type": "array", "items": object(
                    json!({"title": string(), "url": string(), "uri": string(), "snippet": string(), "score": integer()}),
                    &["title", "url", "uri", "snippet", "score"],
                )}}),
                &["query", "language", "results"],
            )
        },
    },
    Tool {
        name: "get_document",
        title: "Get a document",
        description: "One documentation page as Markdown, with its licence, attribution, language and the URIs of its translations. `path`: a page path, its URL or a resource URI, e.g. {\"path\":\"/docs/archive/\"}; `language`: that page's version in that language, e.g. {\"path\":\"/docs/\",\"language\":\"nl\"}.",
        live: false,
        hints: READS_OWN_DATA,
        input: || json!({"type": "object", "properties": {"path": {"type": "string", "minLength": 1}, "language": {"type": "string", "description": LANGUAGE}}, "required": ["path"], "additionalProperties": false}),
        output: || {
            object(
                json!({"uri": string(), "url": string(), "title": string(), "licence": string(), "attribution": string(), "language": string(),
                    "translations": {"type": "array", "items": object(json!({"language": string(), "uri": string()}), &["language", "uri"])},
                    "markdown": string()}),
                &["uri", "url", "title", "language", "markdown"],
            )
        },
    },
    Tool {
        name: "prepare_enquiry",
        title: "Prepare an enquiry",
        description: "Drafts an enquiry for the user to review. It sends and stores nothing: it returns the draft and the contact form's URL, where only the user may submit it.",
        live: false,
        hints: READS_OWN_DATA,
        input: || {
            json!({"type": "object", "properties": {
                "topic": {"type": "string", "minLength": 1, "maxLength": TOPIC_MAX},
                "message": {"type": "string", "minLength": 1, "maxLength": MESSAGE_MAX},
                "name": {"type": "string", "maxLength": NAME_MAX},
                "organisation": {"type": "string", "maxLength": NAME_MAX}
            }, "required": ["topic", "message"], "additionalProperties": false})
        },
        output: || {
            object(
                json!({"draft": string(), "form_url": string(), "prefilled_url": string(), "submitted": {"const": false}, "notice": string()}),
                &["draft", "form_url", "prefilled_url", "submitted", "notice"],
            )
        },
    },
];
