//! `GET /api/globe-data.php`: an RFC 7946 GeoJSON FeatureCollection with one
//! Point per public site that has observations — its observation count,
//! latest observation time and measured parameters. Coordinates are rounded
//! to [`super::PRECISION_DECIMALS`] places. The document is computed at most
//! once per `globe_max_age` and served from memory in between; when the
//! database fails, the last good document is served, or a 503 when there is
//! none.

use bytes::Bytes;
use http::Response;
use http::header::{self, HeaderValue};
use http::request::Parts;
use serde_json::json;

use super::stats::Got;
use super::{Live, PRECISION_DECIMALS, Rendered, coarsen};
use crate::Body;
use crate::store::rfc3339::format_rfc3339;

/// The rendered document.
pub(crate) struct GlobeBody(Rendered);

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
    let cache_control = format!("public, max-age={}", live.cfg.globe_max_age.as_secs());
    Ok(GlobeBody(Rendered::new(
        "application/geo+json",
        body,
        cache_control,
        "Accept-Encoding",
    )))
}

/// `GET /api/globe-data.php`.
pub async fn globe(live: &Live, parts: &Parts) -> Response<Body> {
    let cfg = &live.cfg;
    let got = live
        .globe
        .get(cfg.globe_max_age, cfg.query_timeout, compute(live))
        .await;
    match got {
        Got::Fresh(d) => d.0.respond(parts),
        Got::Stale(d) => {
            let mut r = d.0.respond(parts);
            r.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            r
        }
        Got::Unavailable(why) => live.unavailable(parts, &why),
    }
}
