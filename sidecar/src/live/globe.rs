//! `GET /api/globe-data.php`: an RFC 7946 GeoJSON FeatureCollection with one
//! Point per public site that has observations — its observation count,
//! latest observation time and measured parameters. Coordinates are rounded
//! to [`super::PRECISION_DECIMALS`] places. The document is computed at most
//! once per `globe_max_age` and served from memory in between; when the
//! database fails, the last good document is served, or a 503 when there is
//! none.

use bytes::Bytes;
use http::request::Parts;
use http::{HeaderValue, Response};
use serde_json::json;

use super::stats::Got;
use super::{Live, PRECISION_DECIMALS, cacheable, coarsen, etag};
use crate::Body;
use crate::store::time::format_rfc3339;

/// The serialised document and its ETag.
pub(crate) struct GlobeBody {
    body: Bytes,
    etag: HeaderValue,
}

async fn compute(live: &Live) -> anyhow::Result<GlobeBody> {
    let sites = live.store.site_summaries().await?;
    let features: Vec<serde_json::Value> = sites
        .iter()
        .map(|s| {
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
                    "latest_observed_at": format_rfc3339(s.latest_observed_at),
                    "parameters": s.parameters,
                },
            })
        })
        .collect();
    let doc = json!({
        "type": "FeatureCollection",
        "features": features,
        "precision_decimals": PRECISION_DECIMALS,
        "licence": live.cfg.licence,
        "attribution": live.cfg.attribution,
    });
    let body = Bytes::from(doc.to_string());
    let etag = etag(&body);
    Ok(GlobeBody { body, etag })
}

/// `GET /api/globe-data.php`.
pub async fn globe(live: &Live, parts: &Parts) -> Response<Body> {
    let cfg = &live.cfg;
    let got = live
        .globe
        .get(cfg.globe_max_age, cfg.query_timeout, compute(live))
        .await;
    let (doc, cache_control) = match got {
        Got::Fresh(d) => (
            d,
            format!("public, max-age={}", cfg.globe_max_age.as_secs()),
        ),
        Got::Stale(d) => (d, "no-cache".to_owned()),
        Got::Unavailable(why) => return live.unavailable(parts, &why),
    };
    cacheable(
        parts,
        "application/geo+json",
        doc.body.clone(),
        doc.etag.clone(),
        cache_control,
        "Accept-Encoding",
    )
}
