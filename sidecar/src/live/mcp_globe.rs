//! The `get_globe_points` tool's answer, shaped from the globe route's
//! document (decision 0221): the route keeps serving the globe page every
//! site at once; an agent gets, without arguments, a summary — sites and
//! observations per region and country, the extent — and with `bbox`,
//! `country`, `region`, `limit` or `cursor`, a page of the matching sites
//! as GeoJSON points, in `site_id` order. `bbox` matches the published
//! (coarsened) coordinates, as on `/api/observations-data.php`.

use std::collections::BTreeMap;

use contract::regions::region_of;
use serde_json::{Map, Value, json};

use super::query;
use crate::mcp::catalog::{PAGE_DEFAULT, PAGE_MAX};
use crate::mcp::jsonrpc::RpcError;
use crate::mcp::tools::bad_argument;

const NARROW: &str = "Pass country (e.g. NL), region, or bbox (minLon,minLat,maxLon,maxLat) to get the matching sites as GeoJSON points, `limit` (default 20, at most 50) at a time; follow next_cursor. For one site's observations use get_observations, for figures over time get_observation_trend.";

#[derive(Default)]
struct Count {
    sites: u64,
    observations: u64,
    extent: Extent,
}

/// minLon, minLat, maxLon, maxLat of the points added.
#[derive(Default, Clone, Copy)]
struct Extent(Option<[f64; 4]>);

impl Extent {
    fn add(&mut self, point: Option<(f64, f64)>) {
        if let Some((lon, lat)) = point {
            let e = self.0.get_or_insert([lon, lat, lon, lat]);
            *e = [e[0].min(lon), e[1].min(lat), e[2].max(lon), e[3].max(lat)];
        }
    }
}

/// The tool's result from the route's FeatureCollection `doc`.
pub(crate) fn answer(mut doc: Value, args: &Map<String, Value>) -> Result<Value, RpcError> {
    let features = match doc["features"].take() {
        Value::Array(f) => f,
        _ => Vec::new(),
    };
    let mut out = if args.is_empty() {
        summary(&features)
    } else {
        points(features, args)?
    };
    for key in ["licence", "attribution"] {
        out[key] = doc[key].take();
    }
    Ok(out)
}

fn coordinates(f: &Value) -> Option<(f64, f64)> {
    let c = &f["geometry"]["coordinates"];
    Some((c[0].as_f64()?, c[1].as_f64()?))
}

fn summary(features: &[Value]) -> Value {
    let mut regions: BTreeMap<&str, Count> = BTreeMap::new();
    let mut countries: BTreeMap<&str, Count> = BTreeMap::new();
    let mut total = Count::default();
    for f in features {
        let p = &f["properties"];
        let country = p["country"].as_str().unwrap_or_default();
        let observations = p["observations"].as_u64().unwrap_or(0);
        for count in [
            regions.entry(region_of(country)).or_default(),
            countries.entry(country).or_default(),
            &mut total,
        ] {
            count.sites += 1;
            count.observations += observations;
            count.extent.add(coordinates(f));
        }
    }
    let regions: Vec<Value> = regions
        .iter()
        .map(|(r, c)| json!({"region": r, "sites": c.sites, "observations": c.observations, "extent": c.extent.0}))
        .collect();
    let countries: Vec<Value> = countries
        .iter()
        .map(|(k, c)| {
            json!({"country": k, "region": region_of(k), "sites": c.sites, "observations": c.observations, "extent": c.extent.0})
        })
        .collect();
    json!({
        "mode": "summary",
        "sites": total.sites,
        "observations": total.observations,
        "extent": total.extent.0,
        "regions": regions,
        "countries": countries,
        "next": NARROW,
    })
}

fn points(features: Vec<Value>, args: &Map<String, Value>) -> Result<Value, RpcError> {
    let text = |k: &str| args.get(k).and_then(Value::as_str);
    let bbox = text("bbox")
        .map(query::bbox)
        .transpose()
        .map_err(|e| bad_argument("bbox", &e.reason(), None))?;
    let country = text("country");
    if let Some(c) = country
        && !(c.len() == 2 && c.bytes().all(|b| b.is_ascii_uppercase()))
    {
        return Err(bad_argument(
            "country",
            "must be an ISO 3166-1 alpha-2 code in capitals, such as NL",
            None,
        ));
    }
    let region = text("region");
    let limit = args
        .get("limit")
        .and_then(Value::as_u64)
        .unwrap_or(PAGE_DEFAULT)
        .clamp(1, PAGE_MAX) as usize;
    let offset = match text("cursor") {
        None => 0,
        Some(c) => c
            .strip_prefix("p")
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| bad_argument("cursor", "is not a next_cursor this tool gave", None))?,
    };
    let mut matched: Vec<Value> = features
        .into_iter()
        .filter(|f| {
            let p = &f["properties"];
            let c = p["country"].as_str().unwrap_or_default();
            country.is_none_or(|want| want == c)
                && region.is_none_or(|want| want == region_of(c))
                && bbox.is_none_or(|[x0, y0, x1, y1]| {
                    coordinates(f).is_some_and(|(x, y)| x0 <= x && x <= x1 && y0 <= y && y <= y1)
                })
        })
        .collect();
    matched.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    let total = matched.len();
    let mut extent = Extent::default();
    for f in &matched {
        extent.add(coordinates(f));
    }
    // `fields` was checked against the tool's input schema (GLOBE_FIELDS).
    let fields: Option<Vec<&str>> = args
        .get("fields")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect());
    let mut page: Vec<Value> = matched.into_iter().skip(offset).take(limit).collect();
    for f in &mut page {
        let c = f["properties"]["country"].as_str().unwrap_or_default();
        f["properties"]["region"] = Value::from(region_of(c));
        if let (Some(keep), Value::Object(p)) = (&fields, &mut f["properties"]) {
            p.retain(|k, _| k == "site_id" || keep.contains(&k.as_str()));
        }
    }
    let next = offset + page.len();
    Ok(json!({
        "mode": "points",
        "type": "FeatureCollection",
        "matched": total,
        "extent": extent.0,
        "features": page,
        "next_cursor": (next < total).then(|| format!("p{next}")),
        "precision_decimals": super::PRECISION_DECIMALS,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(id: &str, country: &str, lon: f64, lat: f64, n: u64) -> Value {
        json!({"type": "Feature", "id": id,
            "geometry": {"type": "Point", "coordinates": [lon, lat]},
            "properties": {"site_id": id, "country": country, "observations": n}})
    }

    fn doc() -> Value {
        json!({"type": "FeatureCollection", "licence": {"id": "L"}, "attribution": "A", "features": [
            site("nl-2", "NL", 5.0, 52.0, 10),
            site("nl-1", "NL", 4.0, 51.5, 5),
            site("es-1", "ES", -3.0, 40.0, 7),
            site("us-1", "US", -90.0, 40.0, 1),
        ]})
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn without_arguments_a_summary() {
        let s = answer(doc(), &Map::new()).unwrap();
        assert_eq!(s["mode"], "summary");
        assert_eq!(s["sites"], 4);
        assert_eq!(s["observations"], 23);
        assert_eq!(s["extent"], json!([-90.0, 40.0, 5.0, 52.0]));
        assert_eq!(
            s["countries"][1],
            json!({"country": "NL", "region": "western_europe", "sites": 2, "observations": 15,
                "extent": [4.0, 51.5, 5.0, 52.0]})
        );
        assert_eq!(s["regions"].as_array().unwrap().len(), 3);
        assert_eq!(s["licence"]["id"], "L");
        assert!(s.get("features").is_none());
    }

    #[test]
    fn filters_and_pages() {
        let p = answer(doc(), &args(json!({"country": "NL", "limit": 1}))).unwrap();
        assert_eq!(p["matched"], 2);
        assert_eq!(p["features"][0]["id"], "nl-1");
        assert_eq!(p["features"][0]["properties"]["region"], "western_europe");
        // The extent of every matched site, not of the page alone.
        assert_eq!(p["extent"], json!([4.0, 51.5, 5.0, 52.0]));
        let c = p["next_cursor"].as_str().unwrap();
        let p = answer(
            doc(),
            &args(json!({"country": "NL", "limit": 1, "cursor": c})),
        )
        .unwrap();
        assert_eq!(p["features"][0]["id"], "nl-2");
        assert_eq!(p["next_cursor"], Value::Null);
        let p = answer(doc(), &args(json!({"region": "other"}))).unwrap();
        assert_eq!(p["features"][0]["id"], "us-1");
        let p = answer(doc(), &args(json!({"bbox": "3.5,51,4.5,52"}))).unwrap();
        assert_eq!(p["matched"], 1);
        let p = answer(
            doc(),
            &args(json!({"country": "ES", "fields": ["observations"]})),
        )
        .unwrap();
        assert_eq!(
            p["features"][0]["properties"],
            json!({"site_id": "es-1", "observations": 7})
        );
        assert!(p["features"][0]["geometry"]["coordinates"].is_array());
        for (bad, name) in [
            (json!({"bbox": "1,2"}), "bbox"),
            (json!({"country": "nl"}), "country"),
            (json!({"cursor": "x"}), "cursor"),
        ] {
            let e = answer(doc(), &args(bad)).unwrap_err();
            assert_eq!(e.code, -32602);
            assert_eq!(e.data.unwrap()["argument"], name);
        }
    }
}
