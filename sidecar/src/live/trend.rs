//! `GET /api/observation-trend`: one parameter's public observations,
//! selected like `/api/observations-data.php` (`site`, `bbox`, `country`,
//! `from`, `to`), summarised per UTC day, ISO week, month or year: count,
//! minimum, mean and maximum per bucket, and a trend — the least-squares
//! slope of value over time (per year of 365.25 days) and the change of the
//! mean from the first bucket to the last. Empty buckets are left out.
//!
//! The rows are read in keyset pages through the same query as the
//! observation pages, so both backends give the same figures, and
//! aggregated here (decision 0220). A selection of more than
//! [`TREND_MAX_OBSERVATIONS`] rows, or a period of more than
//! [`TREND_MAX_BUCKETS`] buckets, is a 400 asking for a narrower one.
//! Rows whose unit differs from the selection's most frequent unit are left
//! out and counted in `excluded_other_units`.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use contract::observations::{
    INTERVALS, TREND_MAX_BUCKETS, TREND_MAX_OBSERVATIONS, TREND_QUERY_PARAMETERS,
};
use http::Response;
use http::request::Parts;
use serde::Serialize;
use serde_json::{Map, Value, json};
use time::{Date, Month, UtcDateTime};

use super::query::{LiveError, check_window, pairs, select};
use super::{Live, Rendered, now};
use crate::Body;
use crate::store::ObservationFilter;
use crate::store::rfc3339::format_rfc3339;

/// Rows read per page of the scan.
const PAGE: u32 = 5_000;
const YEAR_SECONDS: f64 = 365.25 * 86_400.0;

/// The width of a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interval {
    Day,
    Week,
    Month,
    Year,
}

impl Interval {
    fn parse(s: &str) -> Option<Interval> {
        Some(match s {
            "day" => Interval::Day,
            "week" => Interval::Week,
            "month" => Interval::Month,
            "year" => Interval::Year,
            _ => return None,
        })
    }

    fn as_str(self) -> &'static str {
        match self {
            Interval::Day => "day",
            Interval::Week => "week",
            Interval::Month => "month",
            Interval::Year => "year",
        }
    }

    /// The start (Unix seconds, UTC) of the bucket holding `t`.
    pub fn start(self, t: i64) -> i64 {
        let day = t.div_euclid(86_400);
        let midnight = |d: Date| d.midnight().as_utc().unix_timestamp();
        let date = UtcDateTime::from_unix_timestamp(day * 86_400)
            .map(|d| d.date())
            .unwrap_or(Date::MIN);
        match self {
            Interval::Day => day * 86_400,
            // 1970-01-01 was a Thursday: Monday is 3 days before it.
            Interval::Week => (day - (day + 3).rem_euclid(7)) * 86_400,
            Interval::Month => Date::from_calendar_date(date.year(), date.month(), 1)
                .map_or(day * 86_400, midnight),
            Interval::Year => Date::from_calendar_date(date.year(), Month::January, 1)
                .map_or(day * 86_400, midnight),
        }
    }
}

/// A validated trend query.
#[derive(Debug, Clone, PartialEq)]
pub struct TrendQuery {
    pub filter: ObservationFilter,
    pub interval: Interval,
    /// The selection as given (`parameter` and `interval` aside).
    pub selection: Map<String, Value>,
}

/// Parses and validates the query string (without `?`).
pub fn parse(query: Option<&str>) -> Result<TrendQuery, LiveError> {
    let mut filter = ObservationFilter::default();
    let mut interval = Interval::Month;
    let mut selection = Map::new();
    for (name, value) in pairs(query, &TREND_QUERY_PARAMETERS)? {
        if name == "interval" {
            interval = Interval::parse(&value).ok_or_else(|| {
                LiveError::invalid(name, format!("expected one of {}", INTERVALS.join(", ")))
            })?;
            continue;
        }
        if name != "parameter" {
            selection.insert(name.to_owned(), Value::from(value.as_str()));
        }
        select(name, value, &mut filter)?;
    }
    if filter.parameter.is_none() {
        return Err(LiveError::invalid(
            "parameter",
            format!(
                "required; one of {}",
                contract::vocabulary::PARAMETER_NAMES.join(", ")
            ),
        ));
    }
    check_window(&filter)?;
    Ok(TrendQuery {
        filter,
        interval,
        selection,
    })
}

#[derive(Debug, Clone, Copy)]
struct Acc {
    count: u64,
    min: f64,
    max: f64,
    sum: f64,
}

#[derive(Debug, Serialize, PartialEq)]
pub struct Bucket {
    pub start: String,
    pub count: u64,
    pub min: f64,
    pub mean: f64,
    pub max: f64,
}

#[derive(Debug, Serialize, PartialEq)]
pub struct Trend {
    pub slope_per_year: Option<f64>,
    pub change: Option<f64>,
}

/// Six significant digits: enough for any measured value, and short.
fn round(x: f64) -> f64 {
    format!("{x:.5e}").parse().unwrap_or(x)
}

/// The buckets and trend of `(observed_at, value)` points.
pub fn summarise(points: &[(i64, f64)], interval: Interval) -> (Vec<Bucket>, Trend) {
    let mut buckets: BTreeMap<i64, Acc> = BTreeMap::new();
    for &(t, v) in points {
        let a = buckets.entry(interval.start(t)).or_insert(Acc {
            count: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            sum: 0.0,
        });
        a.count += 1;
        a.min = a.min.min(v);
        a.max = a.max.max(v);
        a.sum += v;
    }
    let buckets: Vec<Bucket> = buckets
        .into_iter()
        .map(|(start, a)| Bucket {
            start: format_rfc3339(start)[..10].to_owned(),
            count: a.count,
            min: a.min,
            mean: a.sum / a.count as f64,
            max: a.max,
        })
        .collect();
    let change = match (buckets.first(), buckets.last()) {
        (Some(f), Some(l)) if buckets.len() > 1 => Some(round(l.mean - f.mean)),
        _ => None,
    };
    let buckets = buckets
        .into_iter()
        .map(|b| Bucket {
            mean: round(b.mean),
            ..b
        })
        .collect();
    (
        buckets,
        Trend {
            slope_per_year: slope(points).map(round),
            change,
        },
    )
}

/// The least-squares slope of value over time, per year; `None` without
/// two distinct times.
fn slope(points: &[(i64, f64)]) -> Option<f64> {
    let t0 = points.first()?.0;
    let n = points.len() as f64;
    let x = |t: i64| (t - t0) as f64 / YEAR_SECONDS;
    let mx = points.iter().map(|&(t, _)| x(t)).sum::<f64>() / n;
    let my = points.iter().map(|&(_, v)| v).sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for &(t, v) in points {
        sxy += (x(t) - mx) * (v - my);
        sxx += (x(t) - mx) * (x(t) - mx);
    }
    (sxx > 0.0).then(|| sxy / sxx)
}

/// What the scan found: the points in the selection's main unit.
struct Scan {
    points: Vec<(i64, f64)>,
    unit: Option<String>,
    excluded: usize,
}

enum Scanned {
    Done(Scan),
    TooMany,
}

/// Reads every row of the selection, newest first, in keyset pages.
async fn scan(live: &Live, filter: &ObservationFilter) -> anyhow::Result<Scanned> {
    let mut filter = ObservationFilter {
        limit: PAGE,
        ..filter.clone()
    };
    let mut rows: Vec<(i64, f64, String)> = Vec::new();
    loop {
        let page = live.store.observations(&filter).await?;
        let last = page.last().map(|r| (r.observed_at, r.id));
        let full = page.len() == PAGE as usize;
        rows.extend(page.into_iter().map(|r| (r.observed_at, r.value, r.unit)));
        if rows.len() > TREND_MAX_OBSERVATIONS {
            return Ok(Scanned::TooMany);
        }
        match last {
            Some(keyset) if full => filter.before = Some(keyset),
            _ => break,
        }
    }
    let mut units: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, _, u) in &rows {
        *units.entry(u.as_str()).or_default() += 1;
    }
    let unit = units
        .iter()
        .max_by_key(|(u, n)| (**n, std::cmp::Reverse(**u)))
        .map(|(u, _)| (*u).to_owned());
    let mut points: Vec<(i64, f64)> = rows
        .iter()
        .filter(|(_, _, u)| Some(u) == unit.as_ref())
        .map(|&(t, v, _)| (t, v))
        .collect();
    points.reverse();
    let excluded = rows.len() - points.len();
    Ok(Scanned::Done(Scan {
        points,
        unit,
        excluded,
    }))
}

/// The trend document of a valid query, or the 400 of too large a one.
async fn compute(live: &Live, q: &TrendQuery) -> anyhow::Result<Result<Value, LiveError>> {
    let Scanned::Done(scan) = scan(live, &q.filter).await? else {
        return Ok(Err(LiveError::invalid(
            "from",
            format!(
                "the selection holds more than {TREND_MAX_OBSERVATIONS} observations; narrow it with site, bbox, country or a shorter from-to period"
            ),
        )));
    };
    let (buckets, trend) = summarise(&scan.points, q.interval);
    if buckets.len() > TREND_MAX_BUCKETS {
        return Ok(Err(LiveError::invalid(
            "interval",
            format!(
                "the period spans {} {}s, more than {TREND_MAX_BUCKETS}; choose a longer interval or a shorter from-to period",
                buckets.len(),
                q.interval.as_str()
            ),
        )));
    }
    let parameter = q.filter.parameter.as_deref().unwrap_or_default();
    let unit = scan
        .unit
        .or_else(|| contract::vocabulary::parameter(parameter).map(|p| p.unit.to_owned()));
    let cfg = &live.cfg;
    let mut doc = json!({
        "parameter": parameter,
        "unit": unit,
        "interval": q.interval.as_str(),
        "selection": q.selection,
        "observations": scan.points.len(),
        "first_observed_at": scan.points.first().map(|p| format_rfc3339(p.0)),
        "last_observed_at": scan.points.last().map(|p| format_rfc3339(p.0)),
        "buckets": buckets,
        "trend": trend,
        "licence": cfg.licence,
        "attribution": cfg.attribution,
        "generated_at": format_rfc3339(now()),
    });
    if scan.excluded > 0 {
        doc["excluded_other_units"] = json!(scan.excluded);
    }
    Ok(Ok(doc))
}

/// `GET /api/observation-trend`.
pub async fn trend(live: &Live, parts: &Parts) -> Response<Body> {
    let cfg = &live.cfg;
    let problem = |e: LiveError| {
        super::with_cors(
            e.into_problem()
                .into_response(&cfg.problem_base, parts.uri.path()),
        )
    };
    let q = match parse(parts.uri.query()) {
        Ok(q) => q,
        Err(e) => return problem(e),
    };
    let key = format!("trend?{}", parts.uri.query().unwrap_or(""));
    if let Some(cached) = live.pages.get(&key, parts) {
        return cached;
    }
    let doc = match tokio::time::timeout(cfg.query_timeout, compute(live, &q)).await {
        Ok(Ok(Ok(doc))) => doc,
        Ok(Ok(Err(e))) => return problem(e),
        Ok(Err(e)) => {
            tracing::warn!(error = %format!("{e:#}"), "trend query failed");
            return live.unavailable(parts, "the database query failed");
        }
        Err(_) => return live.unavailable(parts, "the database query timed out"),
    };
    let rendered = Arc::new(Rendered::new(
        "application/json",
        Bytes::from(doc.to_string()),
        format!("public, max-age={}", cfg.observations_max_age.as_secs()),
        "Accept-Encoding",
    ));
    live.pages.put(key, rendered.clone());
    rendered.respond(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;

    #[test]
    fn buckets_start_where_the_calendar_does() {
        // 2025-03-19T15:00:00Z, a Wednesday.
        let t = 1_742_396_400;
        let date = |s: i64| format_rfc3339(s)[..10].to_owned();
        assert_eq!(date(Interval::Day.start(t)), "2025-03-19");
        assert_eq!(date(Interval::Week.start(t)), "2025-03-17");
        assert_eq!(date(Interval::Month.start(t)), "2025-03-01");
        assert_eq!(date(Interval::Year.start(t)), "2025-01-01");
        assert_eq!(date(Interval::Week.start(-DAY)), "1969-12-29");
    }

    #[test]
    fn figures_per_bucket_and_trend() {
        let jan = 1_735_689_600; // 2025-01-01
        let feb = jan + 31 * DAY;
        let points = [(jan, 1.0), (jan + DAY, 3.0), (feb, 5.0)];
        let (buckets, trend) = summarise(&points, Interval::Month);
        assert_eq!(buckets.len(), 2);
        assert_eq!(
            buckets[0],
            Bucket {
                start: "2025-01-01".into(),
                count: 2,
                min: 1.0,
                mean: 2.0,
                max: 3.0
            }
        );
        assert_eq!(trend.change, Some(3.0));
        // Points on a line rising 1 a day rise 365.25 a year.
        let line: Vec<(i64, f64)> = (0..5).map(|d| (jan + d * DAY, d as f64)).collect();
        assert_eq!(
            summarise(&line, Interval::Year).1.slope_per_year,
            Some(365.25)
        );
        let (none, flat) = summarise(&[], Interval::Day);
        assert!(none.is_empty());
        assert_eq!(
            flat,
            Trend {
                slope_per_year: None,
                change: None
            }
        );
    }

    #[test]
    fn the_query_is_validated() {
        let q = parse(Some(
            "parameter=nitrate&site=nl-0001&interval=week&country=NL",
        ))
        .unwrap();
        assert_eq!(q.interval, Interval::Week);
        assert_eq!(q.filter.country.as_deref(), Some("NL"));
        assert_eq!(q.selection.len(), 2);
        for (query, name) in [
            ("site=nl-0001", "parameter"),
            ("parameter=gold", "parameter"),
            ("parameter=ph&interval=hour", "interval"),
            ("parameter=ph&country=nl", "country"),
            ("parameter=ph&limit=5", "limit"),
            ("parameter=ph&from=2025-02-01&to=2025-01-01", "to"),
            ("parameter=ph&bbox=1,2,3", "bbox"),
        ] {
            assert_eq!(parse(Some(query)).unwrap_err().name(), name, "{query}");
        }
    }
}
