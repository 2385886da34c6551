//! Query parameters of `/api/observations-data.php`, validated.
//!
//! | name | value |
//! |---|---|
//! | `parameter` | one measured parameter (`nitrate`, `ph`, …) |
//! | `site` | one `site_id` (1–64 of `A-Z a-z 0-9 _ -`) |
//! | `from` | `YYYY-MM-DD` or RFC 3339 date-time: observed at or after (UTC; a date is its midnight) |
//! | `to` | the same: observed before or at (a date includes its whole day) |
//! | `bbox` | `minLon,minLat,maxLon,maxLat` in decimal degrees, matched on the published (rounded) location |
//! | `limit` | page size, 1–[`MAX_LIMIT`], default [`DEFAULT_LIMIT`] |
//! | `cursor` | the `next_cursor` of the previous page |
//! | `format` | `json` (default) or `csv` |
//!
//! Any other name, a repeated name, an empty or invalid value is a 400
//! problem whose `code` is `unknown_parameter` or `invalid_parameter` and
//! whose `detail` and `errors[0].name` name the parameter.
//!
//! The cursor is opaque to clients: base64url (no padding) of
//! `1:<observed_at>:<id>` — a version, then the keyset of the last row.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use contract::observations::{
    CURSOR_MAX, MAX_LATITUDE, MAX_LONGITUDE, QUERY_PARAMETERS as KNOWN, SITE_ID_MAX,
};
pub use contract::observations::{DEFAULT_LIMIT, MAX_LIMIT};
use contract::vocabulary::PARAMETER_NAMES as PARAMETERS;

use crate::http::problem::{Code, FieldError, Problem};
use crate::store::{ObservationFilter, rfc3339};

const CURSOR_VERSION: &str = "1";

/// The representation asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
}

/// A validated observation query.
#[derive(Debug, Clone, PartialEq)]
pub struct ObservationQuery {
    pub filter: ObservationFilter,
    /// `None` when no `format` parameter was given (then `Accept` decides).
    pub format: Option<Format>,
}

/// A rejected query parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveError {
    /// `known`: the parameters the route takes.
    UnknownParameter {
        name: String,
        known: &'static [&'static str],
    },
    InvalidParameter {
        name: String,
        reason: String,
    },
}

impl LiveError {
    pub(crate) fn invalid(name: &str, reason: impl Into<String>) -> LiveError {
        LiveError::InvalidParameter {
            name: name.to_owned(),
            reason: reason.into(),
        }
    }

    pub fn code(&self) -> Code {
        match self {
            LiveError::UnknownParameter { .. } => Code::UnknownParameter,
            LiveError::InvalidParameter { .. } => Code::InvalidParameter,
        }
    }

    pub fn name(&self) -> &str {
        match self {
            LiveError::UnknownParameter { name, .. } | LiveError::InvalidParameter { name, .. } => {
                name
            }
        }
    }

    pub(crate) fn reason(&self) -> String {
        match self {
            LiveError::UnknownParameter { known, .. } => format!(
                "not a parameter of this route; it takes {}",
                known.join(", ")
            ),
            LiveError::InvalidParameter { reason, .. } => reason.clone(),
        }
    }

    /// The 400 problem, with `errors` naming the parameter.
    pub fn into_problem(self) -> Problem {
        let reason = self.reason();
        let detail = match &self {
            LiveError::UnknownParameter { name, .. } => {
                format!("Unknown query parameter `{name}`: {reason}.")
            }
            LiveError::InvalidParameter { name, reason } => {
                format!("Invalid query parameter `{name}`: {reason}.")
            }
        };
        let code = self.code();
        let name = match self {
            LiveError::UnknownParameter { name, .. } | LiveError::InvalidParameter { name, .. } => {
                name
            }
        };
        Problem::new(code, detail).with_errors(vec![FieldError {
            name: name.into(),
            reason,
            code: None,
        }])
    }
}

/// Decodes one `application/x-www-form-urlencoded` component.
pub(crate) fn decode(raw: &str) -> Option<String> {
    let b = raw.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = raw.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// Encodes the keyset of a row as a cursor.
pub fn encode_cursor(observed_at: i64, id: i64) -> String {
    URL_SAFE_NO_PAD.encode(format!("{CURSOR_VERSION}:{observed_at}:{id}"))
}

pub(crate) fn decode_cursor(value: &str) -> Option<(i64, i64)> {
    if value.len() > CURSOR_MAX {
        return None;
    }
    let raw = URL_SAFE_NO_PAD.decode(value).ok()?;
    let text = std::str::from_utf8(&raw).ok()?;
    let mut parts = text.split(':');
    if parts.next()? != CURSOR_VERSION {
        return None;
    }
    let at = parts.next()?.parse().ok()?;
    let id = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some((at, id))
}

pub(crate) fn date_bound(name: &str, value: &str, end_of_day: bool) -> Result<i64, LiveError> {
    if let Some(day) = rfc3339::parse_date(value) {
        return Ok((day + i64::from(end_of_day)) * 86_400);
    }
    let t = rfc3339::parse_rfc3339(value).ok_or_else(|| {
        LiveError::invalid(
            name,
            "expected a date (YYYY-MM-DD) or an RFC 3339 date-time",
        )
    })?;
    Ok(if end_of_day { t + 1 } else { t })
}

fn coordinate(s: &str) -> Option<f64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, "0"));
    let ok = !int.is_empty()
        && !frac.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| s.parse().ok()).flatten()
}

pub(crate) fn bbox(value: &str) -> Result<[f64; 4], LiveError> {
    let bad = |why: &str| LiveError::invalid("bbox", why);
    let nums: Vec<f64> = value
        .split(',')
        .map(coordinate)
        .collect::<Option<_>>()
        .ok_or_else(|| bad("expected four decimal numbers minLon,minLat,maxLon,maxLat"))?;
    let [min_lon, min_lat, max_lon, max_lat] = nums[..] else {
        return Err(bad(
            "expected four decimal numbers minLon,minLat,maxLon,maxLat",
        ));
    };
    let (lon, lat) = (f64::from(MAX_LONGITUDE), f64::from(MAX_LATITUDE));
    if !(-lon..=lon).contains(&min_lon) || !(-lon..=lon).contains(&max_lon) {
        return Err(bad(&format!(
            "longitudes must lie within -{MAX_LONGITUDE}..{MAX_LONGITUDE}"
        )));
    }
    if !(-lat..=lat).contains(&min_lat) || !(-lat..=lat).contains(&max_lat) {
        return Err(bad(&format!(
            "latitudes must lie within -{MAX_LATITUDE}..{MAX_LATITUDE}"
        )));
    }
    if min_lon > max_lon || min_lat > max_lat {
        return Err(bad("the minimum must not exceed the maximum"));
    }
    Ok([min_lon, min_lat, max_lon, max_lat])
}

/// The decoded `(name, value)` pairs of a query string (without `?`), each
/// name one of `known`, given once, with a non-empty value.
pub(crate) fn pairs(
    query: Option<&str>,
    known: &'static [&'static str],
) -> Result<Vec<(&'static str, String)>, LiveError> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = decode(raw_name).unwrap_or_else(|| raw_name.to_owned());
        let Some(&name) = known.iter().find(|k| **k == name) else {
            return Err(LiveError::UnknownParameter { name, known });
        };
        if out.iter().any(|(n, _)| *n == name) {
            return Err(LiveError::invalid(name, "given more than once"));
        }
        let value = decode(raw_value)
            .ok_or_else(|| LiveError::invalid(name, "malformed percent-encoding"))?;
        if value.is_empty() {
            return Err(LiveError::invalid(name, "empty value"));
        }
        out.push((name, value));
    }
    Ok(out)
}

/// Validates `value` into `filter` when `name` is one of the selection
/// parameters the observation routes share (`parameter`, `site`,
/// `country`, `from`, `to`, `bbox`); `Ok(false)` for any other name.
pub(crate) fn select(
    name: &'static str,
    value: String,
    filter: &mut ObservationFilter,
) -> Result<bool, LiveError> {
    match name {
        "parameter" => {
            if !PARAMETERS.contains(&value.as_str()) {
                return Err(LiveError::invalid(
                    name,
                    format!("expected one of {}", PARAMETERS.join(", ")),
                ));
            }
            filter.parameter = Some(value);
        }
        "site" => {
            let ok = value.len() <= SITE_ID_MAX
                && value
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !ok {
                return Err(LiveError::invalid(
                    name,
                    format!("expected a site id of 1-{SITE_ID_MAX} characters A-Z a-z 0-9 _ -"),
                ));
            }
            filter.site = Some(value);
        }
        "country" => {
            if value.len() != 2 || !value.bytes().all(|b| b.is_ascii_uppercase()) {
                return Err(LiveError::invalid(
                    name,
                    "expected an ISO 3166-1 alpha-2 code in capitals, such as NL",
                ));
            }
            filter.country = Some(value);
        }
        "from" => filter.from = Some(date_bound(name, &value, false)?),
        "to" => filter.until = Some(date_bound(name, &value, true)?),
        "bbox" => filter.bbox = Some(bbox(&value)?),
        _ => return Ok(false),
    }
    Ok(true)
}

/// `to` must come after `from`.
pub(crate) fn check_window(filter: &ObservationFilter) -> Result<(), LiveError> {
    if let (Some(from), Some(until)) = (filter.from, filter.until)
        && from >= until
    {
        return Err(LiveError::invalid("to", "must be later than from"));
    }
    Ok(())
}

/// Parses and validates the query string (without `?`).
pub fn parse(query: Option<&str>) -> Result<ObservationQuery, LiveError> {
    let mut filter = ObservationFilter {
        limit: DEFAULT_LIMIT,
        ..ObservationFilter::default()
    };
    let mut format = None;
    for (name, value) in pairs(query, &KNOWN)? {
        if select(name, value.clone(), &mut filter)? {
            continue;
        }
        match name {
            "limit" => {
                let n: u32 = value
                    .parse()
                    .ok()
                    .filter(|n| {
                        (1..=MAX_LIMIT).contains(n) && value.bytes().all(|b| b.is_ascii_digit())
                    })
                    .ok_or_else(|| {
                        LiveError::invalid(name, format!("expected an integer 1-{MAX_LIMIT}"))
                    })?;
                filter.limit = n;
            }
            "cursor" => {
                filter.before =
                    Some(decode_cursor(&value).ok_or_else(|| {
                        LiveError::invalid(name, "not a cursor this service issued")
                    })?);
            }
            "format" => {
                format = Some(match value.as_str() {
                    "json" => Format::Json,
                    "csv" => Format::Csv,
                    _ => return Err(LiveError::invalid(name, "expected json or csv")),
                });
            }
            _ => unreachable!("every known name is handled"),
        }
    }
    check_window(&filter)?;
    Ok(ObservationQuery { filter, format })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(q: &str) -> (String, String) {
        let e = parse(Some(q)).unwrap_err();
        (e.code().as_str().to_owned(), e.name().to_owned())
    }

    #[test]
    fn valid_queries() {
        let q = parse(Some(
            "parameter=nitrate&site=nl-0001&from=2025-01-01&to=2025-01-31T12%3A00%3A00Z&bbox=3.3,50.7,7.3,53.6&limit=5&format=csv",
        ))
        .unwrap();
        assert_eq!(q.filter.parameter.as_deref(), Some("nitrate"));
        assert_eq!(q.filter.from, Some(1_735_689_600));
        assert_eq!(q.filter.until, Some(1_738_324_801));
        assert_eq!(q.filter.bbox, Some([3.3, 50.7, 7.3, 53.6]));
        assert_eq!(q.filter.limit, 5);
        assert_eq!(q.format, Some(Format::Csv));
        assert_eq!(parse(None).unwrap().filter.limit, DEFAULT_LIMIT);
        for f in contract::observations::FORMATS {
            assert!(parse(Some(&format!("format={f}"))).is_ok(), "{f}");
        }
        let c = encode_cursor(1_700_000_000, 42);
        assert_eq!(
            parse(Some(&format!("cursor={c}"))).unwrap().filter.before,
            Some((1_700_000_000, 42))
        );
        assert_eq!(
            parse(Some("to=2025-01-01")).unwrap().filter.until,
            Some(1_735_776_000)
        );
    }

    #[test]
    fn rejections_name_the_parameter() {
        for (q, code, name) in [
            ("colour=red", "unknown_parameter", "colour"),
            ("parameter=gold", "invalid_parameter", "parameter"),
            ("limit=0", "invalid_parameter", "limit"),
            ("limit=1001", "invalid_parameter", "limit"),
            ("limit=+5", "invalid_parameter", "limit"),
            ("limit=5&limit=6", "invalid_parameter", "limit"),
            ("site=", "invalid_parameter", "site"),
            ("site=a%20b", "invalid_parameter", "site"),
            ("from=2025-13-01", "invalid_parameter", "from"),
            ("from=2025-02-01&to=2025-01-01", "invalid_parameter", "to"),
            ("bbox=1,2,3", "invalid_parameter", "bbox"),
            ("bbox=1,2,3,1e2", "invalid_parameter", "bbox"),
            ("bbox=10,0,5,1", "invalid_parameter", "bbox"),
            ("bbox=0,95,1,96", "invalid_parameter", "bbox"),
            ("cursor=abc", "invalid_parameter", "cursor"),
            ("format=xml", "invalid_parameter", "format"),
            ("site=%ZZ", "invalid_parameter", "site"),
        ] {
            assert_eq!(err(q), (code.to_owned(), name.to_owned()), "{q}");
        }
    }
}
