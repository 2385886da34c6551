//! A small, valid site and service information shared by the tests of the
//! contract and the discovery documents.

use crate::model::{ServiceInformation, Site};

pub(crate) const BASE_URL: &str = "https://waterwatch.example.org";

const SITE: &str = r#"
title = "Water Watch"
base_url = "https://waterwatch.example.org"
language = "en"
updated = "2026-11-01"
default_licence = "CC-BY-4.0"
default_attribution = "Water Watch volunteers"
licences = [
  { id = "CC-BY-4.0", title = "Creative Commons Attribution 4.0", url = "https://creativecommons.org/licenses/by/4.0/" },
]
nav = [{ title = "Docs", url = "/docs/" }]
"#;

const SERVICE: &str = r#"
name = "Water Watch"
description = """
A citizen-science network where volunteers measure the quality of rivers,
lakes & ponds, and publish the results as open data."""
url = "https://waterwatch.example.org/"
updated = "2026-10-15"

[[services]]
id = "open-data"
title = "Open water-quality data"
summary = "Every validated observation, free to reuse."
status = "operational"
access = "open"
audience = ["researchers", "water authorities"]
url = "/docs/data/"
projects = ["freshwater-watch"]

[[projects]]
id = "freshwater-watch"
title = "Freshwater Watch"
summary = "Volunteers test nitrate and phosphate in local waters."
status = "active"
started = "2013-04-01"
url = "/docs/projects/freshwater-watch/"
themes = ["water quality"]

[[evidence]]
id = "nutrient-paper"
title = "Nutrient hotspots found by volunteers"
kind = "publication"
summary = "A peer-reviewed study using the data."
published = "2024-02-29"
url = "https://doi.org/10.1234/example"
doi = "10.1234/example"
project = "freshwater-watch"

[scope]
summary = "Freshwater quality in Europe."
themes = ["water quality"]
regions = ["Europe"]
in_scope = ["monitoring"]
out_of_scope = ["drinking-water testing"]

[consortium]
summary = "Universities and NGOs."
members = [{ id = "uni-a", name = "University A", country = "NL", role = "coordinator", url = "https://uni-a.example.org/" }]

[contact]
email = "info@waterwatch.example.org"
form_url = "/contact/"
languages = ["en", "nl"]
response_time = "Within five working days."

[guardrails]
summary = "Read freely; ask a human before contacting us."
read_only_calls_have_no_side_effects = true
agents_may = ["read and summarise public information"]
agents_must_not = ["submit the contact form"]
licences = [{ applies_to = "observations", covers = ["observation_data"], licence = "CC-BY-4.0", url = "https://creativecommons.org/licenses/by/4.0/", attribution = "Water Watch volunteers" }]

[guardrails.enquiries]
agents_may_prepare = true
agents_may_submit = false
requires_explicit_user_approval = true
form_url = "/contact/"
"#;

pub(crate) fn site() -> Site {
    toml::from_str(SITE).expect("fixture site is valid")
}

pub(crate) fn service() -> ServiceInformation {
    toml::from_str(SERVICE).expect("fixture service information is valid")
}
