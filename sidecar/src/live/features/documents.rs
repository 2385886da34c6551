//! The JSON documents of the OGC API – Features routes.

use http::request::Parts;
use serde_json::{Value, json};

use super::query::{Cursor, FeaturesQuery, offset_cursor};
use super::{Collection, Doc, Kind, Origins, Sites};
use crate::http::problem::Problem;
use crate::live::query::{LiveError, encode_cursor};
use crate::live::{Live, LiveConfig, PRECISION_DECIMALS, coarsen};
use crate::store::rfc3339::format_rfc3339;
use crate::store::{ObservationFilter, ObservationRow, SiteSummary};

const ROOT: &str = contract::routes::FEATURES_ROOT;
const CRS84: &str = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
const GREGORIAN: &str = "http://www.opengis.net/def/uom/ISO-8601/0/Gregorian";
const CONFORMANCE: [&str; 6] = [
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables",
    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters",
];
/// The link relation of a collection's queryables (Part 3).
pub(super) const QUERYABLES_REL: &str = "http://www.opengis.net/def/rel/ogc/1.0/queryables";

fn link(href: impl Into<String>, rel: &str, kind: &str, title: &str) -> Value {
    json!({ "href": href.into(), "rel": rel, "type": kind, "title": title })
}

/// `self` in JSON (or GeoJSON) and its HTML `alternate`.
fn self_links(path: &str, kind: &str) -> [Value; 2] {
    [
        link(path, "self", kind, "This document"),
        link(
            format!("{path}?f=html"),
            "alternate",
            "text/html",
            "This document as HTML",
        ),
    ]
}

fn licence_link(cfg: &LiveConfig) -> Value {
    link(
        cfg.licence.url.clone(),
        "license",
        "text/html",
        &cfg.licence.title,
    )
}

fn doc(json: Value) -> Doc {
    Doc {
        json,
        kind: Kind::Json,
    }
}

pub(super) fn landing(cfg: &LiveConfig, o: &Origins) -> Doc {
    let (site, api) = (o.site, o.api);
    let mut links = self_links(&format!("{api}{ROOT}"), "application/json").to_vec();
    links.extend([
        link(
            format!("{site}/{}", contract::manifest::FEATURES_OPENAPI),
            "service-desc",
            contract::media::OPENAPI_30,
            "These routes' API definition (OpenAPI 3.0)",
        ),
        link(
            format!("{site}/openapi.json"),
            "service-desc",
            contract::media::OPENAPI,
            "The service's whole contract (OpenAPI 3.1)",
        ),
        link(
            format!("{site}/{}", contract::manifest::API_REFERENCE),
            "service-doc",
            "text/html",
            "API reference",
        ),
        link(
            format!("{api}{ROOT}/conformance"),
            "conformance",
            "application/json",
            "Conformance classes",
        ),
        link(
            format!("{api}{ROOT}/collections"),
            "data",
            "application/json",
            "Feature collections",
        ),
        licence_link(cfg),
    ]);
    doc(json!({
        "title": "Public monitoring sites and water observations",
        "description": format!(
            "OGC API – Features over the public monitoring sites and their validated water \
             observations. Locations are rounded to {PRECISION_DECIMALS} decimal places \
             (about 1 km); private sites are left out. {}",
            cfg.attribution
        ),
        "links": links,
    }))
}

pub(super) fn conformance(o: &Origins) -> Doc {
    let mut json = json!({ "conformsTo": CONFORMANCE });
    json["links"] = json!(self_links(
        &format!("{}{ROOT}/conformance", o.api),
        "application/json"
    ));
    doc(json)
}

/// The extent of the public sites: rounded locations, and the first and
/// latest observation times.
fn extent(sites: &Sites) -> Option<Value> {
    let first = sites.iter().map(|s| s.first_observed_at).min()?;
    let latest = sites.iter().map(|s| s.latest_observed_at).max()?;
    let lon = sites.iter().map(|s| coarsen(s.site.longitude));
    let lat = sites.iter().map(|s| coarsen(s.site.latitude));
    let (w, e) = lon.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (s, n) = lat.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    Some(json!({
        "spatial": { "bbox": [[w, s, e, n]], "crs": CRS84 },
        "temporal": {
            "interval": [[format_rfc3339(first), format_rfc3339(latest)]],
            "trs": GREGORIAN,
        },
    }))
}

fn collection_json(cfg: &LiveConfig, o: &Origins, sites: &Sites, c: Collection) -> Value {
    let path = format!("{}{ROOT}/collections/{}", o.api, c.id());
    let (title, description) = match c {
        Collection::Sites => (
            "Public monitoring sites",
            "One point per public site that has observations: its name, country, water body \
             type, number of observations, first and latest observation time and the \
             parameters measured there.",
        ),
        Collection::Observations => (
            "Water observations",
            "One point per validated observation, newest first: its site, time, parameter, \
             value, unit, method and quality flag.",
        ),
    };
    let mut links = self_links(&path, "application/json").to_vec();
    links.extend([
        link(
            format!("{path}/items"),
            "items",
            "application/geo+json",
            "The features",
        ),
        link(
            format!("{path}/items?f=html"),
            "items",
            "text/html",
            "The features as HTML",
        ),
        link(
            format!("{path}/queryables"),
            QUERYABLES_REL,
            contract::routes::SCHEMA_JSON,
            "The properties the features can be filtered on",
        ),
        licence_link(cfg),
    ]);
    let mut json = json!({
        "id": c.id(),
        "title": title,
        "description": description,
        "itemType": "feature",
        "crs": [CRS84],
        "links": links,
    });
    if let Some(extent) = extent(sites) {
        json["extent"] = extent;
    }
    json
}

pub(super) fn collections(cfg: &LiveConfig, o: &Origins, sites: &Sites) -> Doc {
    let path = format!("{}{ROOT}/collections", o.api);
    doc(json!({
        "links": self_links(&path, "application/json"),
        "collections": Collection::ALL.map(|c| collection_json(cfg, o, sites, c)),
    }))
}

pub(super) fn collection(cfg: &LiveConfig, o: &Origins, sites: &Sites, c: Collection) -> Doc {
    doc(collection_json(cfg, o, sites, c))
}

/// One page of features, and the cursor of the next one.
pub(super) struct Page {
    features: Vec<Value>,
    next: Option<String>,
    /// How many features match in all (the page's filters, not its
    /// cursor).
    matched: Option<usize>,
}

fn wrong_cursor() -> Problem {
    LiveError::invalid("cursor", "not a cursor of this collection").into_problem()
}

pub(super) fn site_feature(s: &SiteSummary) -> Value {
    json!({
        "type": "Feature",
        "id": s.site.id,
        "geometry": {
            "type": "Point",
            "coordinates": [coarsen(s.site.longitude), coarsen(s.site.latitude)],
        },
        "properties": {
            "site_id": s.site.id,
            "name": s.site.name,
            "country": s.site.country,
            "water_body_type": s.site.water_body_type,
            "observations": s.observations,
            "first_observed_at": format_rfc3339(s.first_observed_at),
            "latest_observed_at": format_rfc3339(s.latest_observed_at),
            "parameters": s.parameters,
        },
    })
}

/// Sites whose rounded location lies in `bbox` and whose observations span
/// a time in `datetime`, in id order.
pub(super) fn site_page(sites: &Sites, q: &FeaturesQuery, limit: u32) -> Result<Page, Problem> {
    let offset = match q.cursor {
        None => 0,
        Some(Cursor::Offset(n)) => n,
        Some(Cursor::Observation(..)) => return Err(wrong_cursor()),
    };
    let p = &q.properties;
    let inside = |s: &&SiteSummary| {
        let (lon, lat) = (coarsen(s.site.longitude), coarsen(s.site.latitude));
        let in_box = q.bbox.is_none_or(|[w, so, e, n]| {
            // West above east: across the antimeridian.
            let in_lon = if w > e {
                lon >= w || lon <= e
            } else {
                (w..=e).contains(&lon)
            };
            in_lon && (so..=n).contains(&lat)
        });
        let in_time = q.from.is_none_or(|f| s.latest_observed_at >= f)
            && q.until.is_none_or(|u| s.first_observed_at < u);
        let is = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w == have);
        let props = is(&p.site_id, &s.site.id)
            && is(&p.country, &s.site.country)
            && is(&p.water_body_type, &s.site.water_body_type);
        in_box && in_time && props
    };
    let matching: Vec<&SiteSummary> = sites.iter().filter(inside).collect();
    let end = offset.saturating_add(limit as usize).min(matching.len());
    let features = matching
        .get(offset..end)
        .unwrap_or_default()
        .iter()
        .map(|s| site_feature(s))
        .collect();
    let next = (end < matching.len()).then(|| offset_cursor(end));
    Ok(Page {
        features,
        next,
        matched: Some(matching.len()),
    })
}

fn observation_feature(r: &ObservationRow) -> Value {
    json!({
        "type": "Feature",
        "id": r.id,
        "geometry": {
            "type": "Point",
            "coordinates": [coarsen(r.longitude), coarsen(r.latitude)],
        },
        "properties": {
            "site_id": r.site_id,
            "site_name": r.site_name,
            "country": r.country,
            "water_body_type": r.water_body_type,
            "observed_at": format_rfc3339(r.observed_at),
            "parameter": r.parameter,
            "value": r.value,
            "unit": r.unit,
            "method": r.method,
            "quality_flag": r.quality_flag,
        },
    })
}

/// A page of the observations matching the query, and how many match in
/// all: up to `limit + 1` rows (one more tells whether a next page exists),
/// then a count with the same filters.
pub(super) async fn observation_page(
    live: &Live,
    q: &FeaturesQuery,
    limit: u32,
) -> anyhow::Result<Result<Page, Problem>> {
    let before = match q.cursor {
        None => None,
        Some(Cursor::Observation(at, id)) => Some((at, id)),
        Some(Cursor::Offset(_)) => return Ok(Err(wrong_cursor())),
    };
    let p = q.properties.clone();
    let filter = ObservationFilter {
        from: q.from,
        until: q.until,
        bbox: q.bbox,
        site: p.site_id,
        parameter: p.parameter,
        country: p.country,
        water_body_type: p.water_body_type,
        quality_flag: p.quality_flag,
        before,
        limit: limit + 1,
        ..ObservationFilter::default()
    };
    let timeout = live.config().query_timeout;
    let store = live.store();
    let (rows, matched) = tokio::time::timeout(timeout, async {
        let rows = store.observations(&filter).await?;
        let matched = store.count_observations(&filter).await?;
        anyhow::Ok((rows, matched))
    })
    .await
    .map_err(|_| anyhow::anyhow!("the database did not answer in time"))??;
    let mut page = page_of(rows, limit);
    page.matched = Some(usize::try_from(matched).unwrap_or(0));
    Ok(Ok(page))
}

fn page_of(mut rows: Vec<ObservationRow>, limit: u32) -> Page {
    let next = if rows.len() > limit as usize {
        rows.truncate(limit as usize);
        rows.last().map(|r| encode_cursor(r.observed_at, r.id))
    } else {
        None
    };
    Page {
        features: rows.iter().map(observation_feature).collect(),
        next,
        matched: None,
    }
}

/// The observation numbered `id`, if it is public.
pub(super) async fn observation(live: &Live, id: i64) -> anyhow::Result<Option<Value>> {
    let filter = ObservationFilter {
        id: Some(id),
        limit: 1,
        ..ObservationFilter::default()
    };
    let timeout = live.config().query_timeout;
    let rows = tokio::time::timeout(timeout, live.store().observations(&filter))
        .await
        .map_err(|_| anyhow::anyhow!("the database did not answer in time"))??;
    Ok(rows.first().map(observation_feature))
}

/// This request's path and query, with `cursor` and `f` replaced.
fn this_url(o: &Origins, parts: &Parts, cursor: Option<&str>, html: bool) -> String {
    let mut query: Vec<String> = parts
        .uri
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|p| {
            let name = p.split('=').next().unwrap_or("");
            !p.is_empty() && name != "cursor" && name != "f"
        })
        .map(str::to_owned)
        .collect();
    if let Some(c) = cursor {
        query.push(format!("cursor={c}"));
    }
    if html {
        query.push("f=html".to_owned());
    }
    let path = format!("{}{}", o.api, parts.uri.path());
    if query.is_empty() {
        path
    } else {
        format!("{path}?{}", query.join("&"))
    }
}

pub(super) fn feature_collection(
    cfg: &LiveConfig,
    o: &Origins,
    parts: &Parts,
    c: Collection,
    page: Page,
) -> Doc {
    let current = parts
        .uri
        .query()
        .unwrap_or("")
        .split('&')
        .find_map(|p| p.strip_prefix("cursor="))
        .map(str::to_owned);
    let mut links = vec![
        link(
            this_url(o, parts, current.as_deref(), false),
            "self",
            "application/geo+json",
            "This page",
        ),
        link(
            this_url(o, parts, current.as_deref(), true),
            "alternate",
            "text/html",
            "This page as HTML",
        ),
        link(
            format!("{}{ROOT}/collections/{}", o.api, c.id()),
            "collection",
            "application/json",
            "The collection",
        ),
        licence_link(cfg),
    ];
    if let Some(next) = &page.next {
        links.push(link(
            this_url(o, parts, Some(next), false),
            "next",
            "application/geo+json",
            "Next page",
        ));
    }
    let mut json = json!({
        "type": "FeatureCollection",
        "numberReturned": page.features.len(),
        "features": page.features,
        "links": links,
        "licence": cfg.licence,
        "attribution": cfg.attribution,
    });
    if let Some(n) = page.matched {
        json["numberMatched"] = json!(n);
    }
    Doc {
        json,
        kind: Kind::Geo,
    }
}

pub(super) fn single(cfg: &LiveConfig, o: &Origins, c: Collection, mut feature: Value) -> Doc {
    let collection = format!("{}{ROOT}/collections/{}", o.api, c.id());
    let id = match &feature["id"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let path = format!("{collection}/items/{id}");
    let mut links = self_links(&path, "application/geo+json").to_vec();
    links.extend([
        link(
            collection,
            "collection",
            "application/json",
            "The collection",
        ),
        licence_link(cfg),
    ]);
    feature["links"] = json!(links);
    Doc {
        json: feature,
        kind: Kind::Geo,
    }
}
