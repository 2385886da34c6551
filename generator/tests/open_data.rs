//! The open-data catalogue through the real binary: `content/catalog.toml`
//! of the sample site built into `/catalog.jsonld` (DCAT-AP) and into the
//! schema.org JSON-LD of the dataset pages, the two saying the same things,
//! and each mistake in `catalog.toml` refused with its line.
//! (`tests/e2e/open-data.sh` checks the same output against the official
//! DCAT-AP shapes.)

use common::sample_site::{BASE, SampleSite as Site};
use contract::vocabulary::PARAMETERS;
use serde_json::Value;

fn graph(doc: &Value) -> &Vec<Value> {
    doc["@graph"].as_array().expect("a @graph")
}

fn node<'a>(doc: &'a Value, id: &str) -> &'a Value {
    graph(doc)
        .iter()
        .find(|n| n["@id"] == id)
        .unwrap_or_else(|| panic!("no node {id}"))
}

/// The JSON-LD blocks of a page.
fn page_json_ld(html: &str) -> Vec<Value> {
    html.split(r#"<script type="application/ld+json">"#)
        .skip(1)
        .map(|rest| serde_json::from_str(rest.split("</script>").next().unwrap()).unwrap())
        .collect()
}

#[test]
fn the_catalogue_and_the_dataset_pages_say_the_same() {
    let site = Site::new();
    site.built();
    let manifest: Value = serde_json::from_str(&site.read("manifest.json")).unwrap();
    let entry = &manifest["files"]["catalog.jsonld"];
    assert_eq!(entry["content_type"], "application/ld+json", "{entry}");

    let doc: Value = serde_json::from_str(&site.read("catalog.jsonld")).unwrap();
    let catalog = node(&doc, &format!("{BASE}/catalog.jsonld#catalog"));
    assert_eq!(catalog["@type"], "dcat:Catalog");
    let datasets: Vec<&str> = catalog["dcat:dataset"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["@id"].as_str().unwrap())
        .collect();
    assert_eq!(
        datasets,
        [
            format!("{BASE}/catalog.jsonld#observations"),
            format!("{BASE}/catalog.jsonld#water-watch-archive")
        ]
    );

    // The observations: one distribution per media type of each route
    // (each at the URL that answers it) and the GeoJSON items of the two
    // OGC API – Features collections, under the data licence of
    // guardrails.toml.
    let obs = node(&doc, datasets[0]);
    let dists: Vec<&Value> = obs["dcat:distribution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| node(&doc, d["@id"].as_str().unwrap()))
        .collect();
    let mut media: Vec<&str> = dists
        .iter()
        .map(|d| {
            d["dcat:mediaType"]["@id"]
                .as_str()
                .unwrap()
                .trim_start_matches("http://www.iana.org/assignments/media-types/")
        })
        .collect();
    media.sort_unstable();
    assert_eq!(
        media,
        [
            "application/geo+json",
            "application/geo+json",
            "application/geo+json",
            "application/json",
            "text/csv"
        ]
    );
    let csv = dists
        .iter()
        .find(|d| {
            d["dcat:mediaType"]["@id"]
                .as_str()
                .unwrap()
                .ends_with("/text/csv")
        })
        .unwrap();
    assert_eq!(
        csv["dcat:accessURL"]["@id"],
        format!("{BASE}/api/observations-data.php?format=csv")
    );
    for d in &dists {
        assert_eq!(
            d["dct:license"]["@id"],
            "https://opendatacommons.org/licenses/odbl/1-0/"
        );
        let url = d["dcat:accessURL"]["@id"].as_str().unwrap();
        assert!(url.starts_with(&format!("{BASE}/api/")), "{url}");
    }
    // No snapshot, so no coverage computed: none is stated (decision 0215).
    assert!(obs.get("dct:temporal").is_none(), "{obs}");

    // The archive: each file with its size and the checksum the archive's
    // sha256sums.txt gives.
    let sums = site.read("files/archive/sha256sums.txt");
    let archive = node(&doc, datasets[1]);
    let files = archive["dcat:distribution"].as_array().unwrap();
    assert_eq!(files.len(), sums.lines().count());
    for d in files {
        let d = node(&doc, d["@id"].as_str().unwrap());
        let url = d["dcat:downloadURL"]["@id"].as_str().unwrap();
        let name = url.rsplit('/').next().unwrap();
        let sum = d["spdx:checksum"]["spdx:checksumValue"]["@value"]
            .as_str()
            .unwrap();
        assert!(sums.contains(&format!("{sum}  {name}")), "{name}: {sum}");
        assert_eq!(
            d["dct:license"]["@id"],
            "https://creativecommons.org/licenses/by-nc-nd/4.0/"
        );
    }

    // The data page: its article and the observation dataset in one graph,
    // every parameter of the vocabulary with its unit.
    let html = site.read("docs/data/index.html");
    let blocks = page_json_ld(&html);
    assert_eq!(blocks.len(), 1, "one JSON-LD block");
    let nodes = graph(&blocks[0]);
    assert_eq!(nodes[0]["@type"], "TechArticle");
    let ds = nodes
        .iter()
        .find(|n| n["@type"] == "Dataset")
        .expect("a Dataset");
    assert_eq!(ds["@id"], datasets[0]);
    assert_eq!(
        ds["license"],
        "https://opendatacommons.org/licenses/odbl/1-0/"
    );
    assert!(ds.get("temporalCoverage").is_none(), "{ds}");
    let vars = ds["variableMeasured"].as_array().unwrap();
    assert_eq!(vars.len(), PARAMETERS.len());
    for p in PARAMETERS {
        assert!(
            vars.iter()
                .any(|v| v["name"] == p.name && v["unitText"] == p.unit),
            "{}",
            p.name
        );
    }
    let urls: Vec<&str> = ds["distribution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["contentUrl"].as_str().unwrap())
        .collect();
    for d in &dists {
        assert!(urls.contains(&d["dcat:accessURL"]["@id"].as_str().unwrap()));
    }
    // A page that describes no dataset keeps its single article.
    let other = page_json_ld(&site.read("docs/data/globe/index.html"));
    assert_eq!(other[0]["@type"], "TechArticle");

    // Found from the API catalog and llms.txt.
    let linkset: Value = serde_json::from_str(&site.read(".well-known/api-catalog")).unwrap();
    assert!(
        linkset["linkset"][0]["service-meta"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["href"] == format!("{BASE}/catalog.jsonld")
                && l["type"] == "application/ld+json"),
        "{linkset}"
    );
    assert!(
        site.read("llms.txt")
            .contains(&format!("({BASE}/catalog.jsonld)"))
    );
}

#[test]
fn mistakes_in_the_catalogue_are_refused_with_their_line() {
    let cases = [
        (
            r#"page = "/docs/data/""#,
            r#"page = "/docs/no-such/""#,
            "no page at `/docs/no-such/`",
        ),
        (
            r#"frequency = "IRREG""#,
            r#"frequency = "SOMETIMES""#,
            "unknown frequency `SOMETIMES`",
        ),
        (
            r#"themes = ["ENVI"]"#,
            r#"themes = ["WATER"]"#,
            "unknown theme `WATER`",
        ),
        (
            r#"routes = ["/api/observations-data.php", "/api/globe-data.php"]"#,
            r#"routes = ["/api/nothing.php"]"#,
            "`/api/nothing.php` is not a GET route of the contract",
        ),
        (
            r#"start = "2018-04-01""#,
            r#"start = "2025-01-01""#,
            "is before start 2025-01-01",
        ),
        (
            r#"countries = ["NLD""#,
            r#"countries = ["NL""#,
            "country `NL`, expected an ISO 3166-1 alpha-3 code",
        ),
        (
            r#"frequency = "NEVER""#,
            "frequency = \"NEVER\"\nbbox = [14.5, 37.5, -9.5, 57.3]",
            "expected west, south, east, north",
        ),
        (
            "archive_files = true",
            "archive_files = false",
            "has no distribution",
        ),
        (
            "variables = true",
            "variable = true",
            "unknown field `variable`",
        ),
    ];
    let original = std::fs::read_to_string(common::repo().join("content/catalog.toml")).unwrap();
    for (from, to, message) in cases {
        let site = Site::new();
        assert!(original.contains(from), "{from}");
        let changed = original.replacen(from, to, 1);
        site.write_content("catalog.toml", &changed);
        let err = site.refused();
        assert!(
            err.contains("catalog.toml:") && err.contains(message),
            "{to}: {err}"
        );
    }
}
