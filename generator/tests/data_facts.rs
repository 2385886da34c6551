//! Facts about the data on pages (decision 0245), through the real
//! `generate` binary on a copy of the sample content:
//!
//! - with a snapshot, the `data` shortcode renders its countries, counts
//!   and days (page and twin), and `generate check` passes on the sample;
//! - without one, it states no figure and points to the live statistics,
//!   and check says that nothing was verified;
//! - a page, `scope.toml` or the catalogue claiming a country the data lack
//!   makes `generate check` fail, naming the page, the claim and the set.

use std::path::{Path, PathBuf};
use std::process::Output;

use common::sample_site::SampleSite as Site;
use contract::snapshot::*;

const VERSION: &str = "2026-11-27";

/// The sample data's countries.
const SAMPLE: [&str; 8] = ["NL", "BE", "DE", "FR", "GB", "IE", "DK", "ES"];

fn meta() -> DataCite {
    common::snapshots::datacite(
        VERSION,
        VERSION,
        "2021-03-04/2024-06-30",
        &["1234 observations", "56 sites"],
    )
}

/// A snapshot folder under `root/snapshots/` whose sites lie in `countries`;
/// the folder of snapshots.
fn snapshot(root: &Path, countries: &[&str]) -> PathBuf {
    let set = root.join("snapshots");
    let dir = set.join(VERSION);
    std::fs::create_dir_all(&dir).unwrap();
    let features: Vec<serde_json::Value> = countries
        .iter()
        .enumerate()
        .map(|(i, c)| {
            serde_json::json!({"type": "Feature", "id": format!("S{i}"),
                "geometry": {"type": "Point", "coordinates": [5.0, 52.0]},
                "properties": {"site_id": format!("S{i}"), "country": c}})
        })
        .collect();
    common::snapshots::write_files(
        &dir,
        &[
            (DATACITE, serde_json::to_vec_pretty(&meta()).unwrap()),
            (
                SITES_GEOJSON,
                serde_json::to_vec(
                    &serde_json::json!({"type": "FeatureCollection", "features": features}),
                )
                .unwrap(),
            ),
        ],
    );
    set
}

/// `generate build` of the site with the snapshots in `set`.
fn build_with(site: &Site, set: &Path) -> Output {
    site.build_with(&["--snapshots", set.to_str().unwrap()])
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn the_shortcode_renders_the_snapshots_facts_and_the_sample_passes_check() {
    let site = Site::new();
    site.write(
        "data/years.md",
        "+++\ntitle = \"Years\"\nsummary = \"Years.\"\n+++\n\n{{ data(fact=\"years\") }}\n\n\
         Sites: {{ data(fact=\"sites\") }} First: {{ data(fact=\"first\") }}\n",
    );
    let set = snapshot(site.root(), &SAMPLE);
    ok(&build_with(&site, &set));

    let globe = site.read("docs/data/globe/index.html");
    assert!(
        globe.contains(
            "Points cluster where many volunteers lived. The published monitoring sites lie in 8 \
             countries: Belgium, Denmark, France, Germany, Ireland, the Netherlands, Spain and the \
             United Kingdom (from the newest <a href=\"/docs/data/#snapshots\">citable snapshot</a>, \
             version 2026-11-27). Gaps mean"
        ),
        "{globe}"
    );
    assert!(!globe.contains("Finland"));
    let twin = site.read("docs/data/globe/index.md");
    assert!(
        twin.contains("and the United Kingdom (from the newest [citable snapshot](/docs/data/#snapshots), version 2026-11-27)."),
        "{twin}"
    );
    let data = site.read("docs/data/index.html");
    assert!(
        data.contains(
            "The data hold 1234 observations at 56 public monitoring sites in 8 countries (Belgium, \
             Denmark, France, Germany, Ireland, the Netherlands, Spain and the United Kingdom), \
             taken from 2021-03-04 to 2024-06-30"
        ),
        "{data}"
    );
    let years = site.read("docs/data/years/index.html");
    assert!(
        years.contains("The observations in the data run from 2021 to 2024 (from"),
        "{years}"
    );
    assert!(
        years.contains("The data hold 56 public monitoring sites"),
        "{years}"
    );
    assert!(years.contains("was taken on 2021-03-04"), "{years}");

    let out = ok(&site.check());
    assert!(
        out.contains("statements about the data's countries held against snapshot 2026-11-27"),
        "{out}"
    );
}

#[test]
fn without_a_snapshot_no_figure_is_stated() {
    let site = Site::new();
    site.built();
    let globe = site.read("docs/data/globe/index.html");
    assert!(
        globe.contains(
            "This build states no figures from the data: the <a href=\"/docs/data/statistics/\">live \
             statistics</a> give the current ones."
        ),
        "{globe}"
    );
    let twin = site.read("docs/data/index.md");
    assert!(
        twin.contains("the [live statistics](/docs/data/statistics/) give the current ones."),
        "{twin}"
    );
    let out = ok(&site.check());
    assert!(out.contains("were not verified"), "{out}");
}

#[test]
fn check_fails_on_a_country_the_data_lack() {
    let site = Site::new();
    site.write(
        "data/lakes.md",
        "+++\ntitle = \"Lakes\"\nsummary = \"Lakes.\"\n+++\n\nMost points lie in the lake districts of Finland.\n",
    );
    // Outside the data pages only a sentence about the data counts, and
    // one about the project's history does not.
    site.write(
        "archive/kits.md",
        "+++\ntitle = \"Kits\"\nsummary = \"Kits.\"\n+++\n\nAdvanced-kit readings come mostly from sites in Italy.\n\n\
         Water Watch trained its first volunteers at sites in Poland. Our partners meet in Austria.\n",
    );
    let scope = site.content().join("service/scope.toml");
    let text = std::fs::read_to_string(&scope).unwrap();
    std::fs::write(
        &scope,
        text.replace("\"Spain\", ", "\"Spain\", \"Finland\", "),
    )
    .unwrap();
    let catalog = site.content().join("catalog.toml");
    let text = std::fs::read_to_string(&catalog).unwrap();
    std::fs::write(&catalog, text.replace("\"DNK\", ", "\"FIN\", ")).unwrap();
    let set = snapshot(site.root(), &SAMPLE);
    ok(&build_with(&site, &set));

    let o = site.check();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "check passed: {err}");
    let held =
        "but the data (snapshot 2026-11-27) hold sites in BE, DE, DK, ES, FR, GB, IE, NL only";
    for line in [
        "/docs/data/lakes/: names Finland (FI)",
        "/docs/archive/kits/: names Italy (IT)",
        "content/service/scope.toml regions: names Finland (FI)",
        "content/catalog.toml dataset `observations` countries: lists FIN (Finland)",
        "content/catalog.toml dataset `observations` countries: leaves out DNK (Denmark)",
    ] {
        assert!(
            err.contains(&format!("{line}, {held}")),
            "no `{line}` in:\n{err}"
        );
    }
    assert!(!err.contains("Poland") && !err.contains("Austria"), "{err}");
    assert!(
        err.contains("check: 5 statements the data contradict"),
        "{err}"
    );
}

#[test]
fn an_unknown_fact_fails_the_build() {
    let site = Site::new();
    site.write(
        "data/odd.md",
        "+++\ntitle = \"Odd\"\nsummary = \"Odd.\"\n+++\n\n{{ data(fact=\"rivers\") }}\n",
    );
    let err = site.refused();
    assert!(
        err.contains("data needs fact=\"…\", one of: countries, sites, observations"),
        "{err}"
    );
}
