//! A collection's queryables (OGC API – Features Part 3): a JSON Schema of
//! the properties its items route filters on by equality, each also a
//! query parameter of that route.

use serde_json::{Map, Value, json};

use super::query::{OBSERVATION_QUERYABLES, PROPERTY_MAX, SITE_QUERYABLES, queryable_enum};
use super::{Collection, Doc, Kind, Origins};

const ROOT: &str = contract::routes::FEATURES_ROOT;

/// The queryables of a collection, by name.
pub fn names(c: Collection) -> &'static [&'static str] {
    match c {
        Collection::Sites => SITE_QUERYABLES,
        Collection::Observations => OBSERVATION_QUERYABLES,
    }
}

fn schema(name: &str) -> Value {
    let (title, description) = match name {
        "site_id" => ("Site", "The site's identifier, as in the sites collection."),
        "country" => ("Country", "The site's country, an ISO 3166-1 alpha-2 code."),
        "water_body_type" => ("Water body type", "The kind of water the site is on."),
        "parameter" => ("Parameter", "What was measured."),
        "quality_flag" => (
            "Quality flag",
            "The result of the observation's validation.",
        ),
        _ => (name, ""),
    };
    let mut s = json!({ "type": "string", "title": title, "description": description });
    if let Some(values) = queryable_enum(name) {
        s["enum"] = json!(values);
    } else if name == "country" {
        s["pattern"] = json!("^[A-Z]{2}$");
    } else {
        s["minLength"] = json!(1);
        s["maxLength"] = json!(PROPERTY_MAX);
    }
    s
}

/// The JSON Schema document of `c`'s queryables.
pub(super) fn queryables(o: &Origins, c: Collection) -> Doc {
    let properties: Map<String, Value> = names(c)
        .iter()
        .map(|n| ((*n).to_owned(), schema(n)))
        .collect();
    let json = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("{}{ROOT}/collections/{}/queryables", o.api, c.id()),
        "type": "object",
        "title": format!("Queryables of the {} collection", c.id()),
        "description": "Each property is also a query parameter of the collection's items \
                        route, matching features whose property equals the value.",
        "properties": properties,
        "additionalProperties": false,
    });
    Doc {
        json,
        kind: Kind::Schema,
    }
}
