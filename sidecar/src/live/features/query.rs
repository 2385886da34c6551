//! Query parameters of the OGC API – Features routes, validated.
//!
//! | name | routes | value |
//! |---|---|---|
//! | `f` | all | `json` or `html` (else `Accept` decides) |
//! | `bbox` | items | `minLon,minLat,maxLon,maxLat` (CRS84), matched on the published location |
//! | `datetime` | items | an instant or an interval `start/end`, either end open (`..` or empty); dates or RFC 3339 date-times |
//! | `limit` | items | 1–[`MAX_LIMIT`], default [`DEFAULT_LIMIT`] |
//! | `cursor` | items | the token of a `next` link |
//!
//! As on the other live routes, any other name, a repeated name, an empty
//! or invalid value is a 400 naming the parameter.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
pub use contract::observations::{DEFAULT_LIMIT, MAX_LIMIT};

use crate::live::query::{LiveError, bbox, date_bound, decode, decode_cursor};

/// The parameters of the items route, and of the others.
pub const ITEMS_PARAMETERS: &[&str] = &["f", "bbox", "datetime", "limit", "cursor"];
pub const OTHER_PARAMETERS: &[&str] = &["f"];

/// The representation asked for with `f`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Html,
}

/// Where a page starts: after an observation's keyset, or at an offset of
/// the sites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cursor {
    Observation(i64, i64),
    Offset(usize),
}

/// A validated query.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FeaturesQuery {
    pub format: Option<Format>,
    pub bbox: Option<[f64; 4]>,
    /// Inclusive lower and exclusive upper bound, Unix seconds.
    pub from: Option<i64>,
    pub until: Option<i64>,
    pub limit: Option<u32>,
    pub cursor: Option<Cursor>,
}

const OFFSET_PREFIX: &str = "s1:";

/// The longest `datetime` taken (two RFC 3339 date-times and a slash fit).
pub const DATETIME_MAX: usize = 64;

/// The `cursor` of the sites' page starting at `offset`.
pub fn offset_cursor(offset: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("{OFFSET_PREFIX}{offset}"))
}

fn decode_offset(value: &str) -> Option<usize> {
    let raw = URL_SAFE_NO_PAD.decode(value).ok()?;
    let text = std::str::from_utf8(&raw).ok()?;
    let digits = text.strip_prefix(OFFSET_PREFIX)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `datetime`: an instant matches its second (a date its day); an interval
/// includes both ends.
fn datetime(value: &str) -> Result<(Option<i64>, Option<i64>), LiveError> {
    const NAME: &str = "datetime";
    if value.len() > DATETIME_MAX {
        return Err(LiveError::invalid(
            NAME,
            format!("longer than {DATETIME_MAX} characters"),
        ));
    }
    let open = |s: &str| s.is_empty() || s == "..";
    match value.split_once('/') {
        None => Ok((
            Some(date_bound(NAME, value, false)?),
            Some(date_bound(NAME, value, true)?),
        )),
        Some((start, end)) => {
            if open(start) && open(end) {
                return Err(LiveError::invalid(
                    NAME,
                    "an interval needs at least one end",
                ));
            }
            let from = (!open(start))
                .then(|| date_bound(NAME, start, false))
                .transpose()?;
            let until = (!open(end))
                .then(|| date_bound(NAME, end, true))
                .transpose()?;
            if let (Some(f), Some(u)) = (from, until)
                && f >= u
            {
                return Err(LiveError::invalid(NAME, "the start must precede the end"));
            }
            Ok((from, until))
        }
    }
}

/// Parses the query string (without `?`) of a route taking `known`.
pub fn parse(
    query: Option<&str>,
    known: &'static [&'static str],
) -> Result<FeaturesQuery, LiveError> {
    let mut q = FeaturesQuery::default();
    let mut seen: Vec<&'static str> = Vec::new();
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = decode(raw_name).unwrap_or_else(|| raw_name.to_owned());
        let Some(&name) = known.iter().find(|k| **k == name) else {
            return Err(LiveError::UnknownParameter { name, known });
        };
        if seen.contains(&name) {
            return Err(LiveError::invalid(name, "given more than once"));
        }
        seen.push(name);
        let value = decode(raw_value)
            .ok_or_else(|| LiveError::invalid(name, "malformed percent-encoding"))?;
        if value.is_empty() {
            return Err(LiveError::invalid(name, "empty value"));
        }
        match name {
            "f" => {
                q.format = Some(match value.as_str() {
                    "json" => Format::Json,
                    "html" => Format::Html,
                    _ => return Err(LiveError::invalid(name, "expected json or html")),
                });
            }
            "bbox" => q.bbox = Some(bbox(&value)?),
            "datetime" => (q.from, q.until) = datetime(&value)?,
            "limit" => {
                let n = value
                    .parse::<u32>()
                    .ok()
                    .filter(|n| {
                        (1..=MAX_LIMIT).contains(n) && value.bytes().all(|b| b.is_ascii_digit())
                    })
                    .ok_or_else(|| {
                        LiveError::invalid(name, format!("expected an integer 1-{MAX_LIMIT}"))
                    })?;
                q.limit = Some(n);
            }
            "cursor" => {
                let cursor = decode_cursor(&value)
                    .map(|(at, id)| Cursor::Observation(at, id))
                    .or_else(|| decode_offset(&value).map(Cursor::Offset))
                    .ok_or_else(|| LiveError::invalid(name, "not a cursor this service issued"))?;
                q.cursor = Some(cursor);
            }
            _ => unreachable!("every known name is handled"),
        }
    }
    Ok(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(q: &str) -> (String, String) {
        let e = parse(Some(q), ITEMS_PARAMETERS).unwrap_err();
        (e.code().as_str().to_owned(), e.name().to_owned())
    }

    #[test]
    fn valid_queries() {
        let q = parse(
            Some("f=html&bbox=3.3,50.7,7.3,53.6&datetime=2025-01-01/2025-01-31T12%3A00%3A00Z&limit=5"),
            ITEMS_PARAMETERS,
        )
        .unwrap();
        assert_eq!(q.format, Some(Format::Html));
        assert_eq!(q.bbox, Some([3.3, 50.7, 7.3, 53.6]));
        assert_eq!(
            (q.from, q.until),
            (Some(1_735_689_600), Some(1_738_324_801))
        );
        assert_eq!(q.limit, Some(5));
        let open = parse(Some("datetime=../2025-01-01"), ITEMS_PARAMETERS).unwrap();
        assert_eq!((open.from, open.until), (None, Some(1_735_776_000)));
        let open = parse(Some("datetime=2025-01-01T00:00:00Z/"), ITEMS_PARAMETERS).unwrap();
        assert_eq!((open.from, open.until), (Some(1_735_689_600), None));
        let instant = parse(Some("datetime=2025-01-01"), ITEMS_PARAMETERS).unwrap();
        assert_eq!(
            (instant.from, instant.until),
            (Some(1_735_689_600), Some(1_735_776_000))
        );
        let c = offset_cursor(40);
        assert_eq!(
            parse(Some(&format!("cursor={c}")), ITEMS_PARAMETERS)
                .unwrap()
                .cursor,
            Some(Cursor::Offset(40))
        );
        let c = crate::live::query::encode_cursor(1_700_000_000, 7);
        assert_eq!(
            parse(Some(&format!("cursor={c}")), ITEMS_PARAMETERS)
                .unwrap()
                .cursor,
            Some(Cursor::Observation(1_700_000_000, 7))
        );
    }

    #[test]
    fn rejections_name_the_parameter() {
        for (q, code, name) in [
            ("filter=x", "unknown_parameter", "filter"),
            ("f=xml", "invalid_parameter", "f"),
            ("limit=0", "invalid_parameter", "limit"),
            ("limit=1001", "invalid_parameter", "limit"),
            ("bbox=1,2,3", "invalid_parameter", "bbox"),
            ("datetime=../..", "invalid_parameter", "datetime"),
            (
                "datetime=2025-02-01/2025-01-01",
                "invalid_parameter",
                "datetime",
            ),
            ("datetime=yesterday", "invalid_parameter", "datetime"),
            (
                "datetime=2025-01-01T00:00:00.000000000000000000000000000000000000000000000000Z/..",
                "invalid_parameter",
                "datetime",
            ),
            ("cursor=abc", "invalid_parameter", "cursor"),
            ("f=json&f=json", "invalid_parameter", "f"),
        ] {
            assert_eq!(err(q), (code.to_owned(), name.to_owned()), "{q}");
        }
        let e = parse(Some("limit=5"), OTHER_PARAMETERS).unwrap_err();
        assert_eq!(e.name(), "limit");
    }
}
