//! `GET /api/observations-data.php`: public observations, newest first, in
//! keyset-paginated pages of at most `limit` rows, as JSON (the contract's
//! `ObservationPage`) or CSV (`format=csv`, or `Accept` preferring
//! `text/csv`). Every page carries the licence and attribution: as members
//! in JSON, as `Link: <…>; rel="license"` in CSV (with `rel="next"` for the
//! next page).

use std::sync::Arc;

use bytes::Bytes;
use http::Response;
use http::header::{self, HeaderValue};
use http::request::Parts;
use serde::Serialize;

use super::query::{self, Format, encode_cursor};
use super::{Licence, Live, Rendered, coarsen, now};
use crate::Body;
use crate::store::rfc3339::format_rfc3339;

#[derive(Serialize)]
struct Observation<'a> {
    id: i64,
    site_id: &'a str,
    site_name: &'a str,
    country: &'a str,
    water_body_type: &'a str,
    observed_at: String,
    parameter: &'a str,
    value: f64,
    unit: &'a str,
    method: &'a str,
    quality_flag: &'a str,
    latitude: f64,
    longitude: f64,
}

#[derive(Serialize)]
struct Page<'a> {
    data: Vec<Observation<'a>>,
    next_cursor: Option<String>,
    limit: u32,
    licence: &'a Licence,
    attribution: &'a str,
    generated_at: String,
}

/// The `q` an `Accept` header gives `media` (exact, `type/*` or `*/*`).
pub(crate) fn quality(accept: &str, media: &str) -> f32 {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    let mut best: Option<(u8, f32)> = None;
    for range in accept.split(',') {
        let mut params = range.split(';');
        let name = params.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = params
            .filter_map(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|v| v.parse::<f32>().ok())
            })
            .next()
            .unwrap_or(1.0);
        let specificity = if name == media {
            3
        } else if name.strip_suffix("/*") == Some(kind) {
            2
        } else if name == "*/*" {
            1
        } else {
            continue;
        };
        if best.is_none_or(|(s, _)| specificity > s) {
            best = Some((specificity, q));
        }
    }
    best.map_or(0.0, |(_, q)| q)
}

fn wants_csv(parts: &Parts) -> bool {
    let Some(accept) = parts
        .headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let csv = quality(accept, "text/csv");
    csv > 0.0 && csv > quality(accept, "application/json")
}

/// This request's URL with `cursor` set to `cursor`, for `Link: rel="next"`.
fn next_link(parts: &Parts, cursor: &str) -> String {
    let mut query: Vec<&str> = parts
        .uri
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("cursor=") && *p != "cursor")
        .collect();
    let c = format!("cursor={cursor}");
    query.push(&c);
    format!("{}?{}", parts.uri.path(), query.join("&"))
}

/// `GET /api/observations-data.php`.
pub async fn observations(live: &Live, parts: &Parts) -> Response<Body> {
    let key = format!(
        "{}?{}",
        if wants_csv(parts) { "csv" } else { "json" },
        parts.uri.query().unwrap_or("")
    );
    if let Some(cached) = live.pages.get(&key, parts) {
        return cached;
    }
    match render(live, parts).await {
        Ok(rendered) => {
            let rendered = Arc::new(rendered);
            live.pages.put(key, rendered.clone());
            rendered.respond(parts)
        }
        Err(problem) => problem,
    }
}

/// One observation page, from the database.
async fn render(live: &Live, parts: &Parts) -> Result<Rendered, Response<Body>> {
    let cfg = &live.cfg;
    let q = match query::parse(parts.uri.query()) {
        Ok(q) => q,
        Err(e) => {
            let problem = e.into_problem();
            return Err(super::with_cors(
                problem.into_response(&cfg.problem_base, parts.uri.path()),
            ));
        }
    };
    let format = q.format.unwrap_or(if wants_csv(parts) {
        Format::Csv
    } else {
        Format::Json
    });
    let limit = q.filter.limit;
    let mut filter = q.filter;
    filter.limit = limit + 1;
    let rows = match tokio::time::timeout(cfg.query_timeout, live.store.observations(&filter)).await
    {
        Ok(Ok(rows)) => rows,
        Ok(Err(e)) => {
            tracing::warn!(error = %format!("{e:#}"), "observation query failed");
            return Err(live.unavailable(parts, "the database query failed"));
        }
        Err(_) => return Err(live.unavailable(parts, "the database query timed out")),
    };
    let mut rows = rows;
    let next_cursor = if rows.len() > limit as usize {
        rows.truncate(limit as usize);
        rows.last().map(|r| encode_cursor(r.observed_at, r.id))
    } else {
        None
    };
    for r in &mut rows {
        r.latitude = coarsen(r.latitude);
        r.longitude = coarsen(r.longitude);
    }
    let cache_control = format!("public, max-age={}", cfg.observations_max_age.as_secs());
    let vary = "Accept, Accept-Encoding";
    match format {
        Format::Csv => {
            let body = Bytes::from(super::csv::render(&rows));
            let mut r = Rendered::new(
                "text/csv; charset=utf-8; header=present",
                body,
                cache_control,
                vary,
            );
            let mut links = vec![format!("<{}>; rel=\"license\"", cfg.licence.url)];
            if let Some(c) = &next_cursor {
                links.push(format!("<{}>; rel=\"next\"", next_link(parts, c)));
            }
            r.link = HeaderValue::try_from(links.join(", ")).ok();
            Ok(r)
        }
        Format::Json => {
            let page = Page {
                data: rows
                    .iter()
                    .map(|r| Observation {
                        id: r.id,
                        site_id: &r.site_id,
                        site_name: &r.site_name,
                        country: &r.country,
                        water_body_type: &r.water_body_type,
                        observed_at: format_rfc3339(r.observed_at),
                        parameter: &r.parameter,
                        value: r.value,
                        unit: &r.unit,
                        method: &r.method,
                        quality_flag: &r.quality_flag,
                        latitude: r.latitude,
                        longitude: r.longitude,
                    })
                    .collect(),
                next_cursor,
                limit,
                licence: &cfg.licence,
                attribution: &cfg.attribution,
                generated_at: format_rfc3339(now()),
            };
            let body = Bytes::from(serde_json::to_vec(&page).expect("a page serialises"));
            Ok(Rendered::new("application/json", body, cache_control, vary))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::quality;

    #[test]
    fn accept_quality() {
        assert_eq!(quality("text/csv", "text/csv"), 1.0);
        assert_eq!(quality("application/json, text/*;q=0.5", "text/csv"), 0.5);
        assert_eq!(
            quality("*/*;q=0.1, text/csv;q=0.9", "application/json"),
            0.1
        );
        assert_eq!(quality("text/html", "application/json"), 0.0);
    }
}
