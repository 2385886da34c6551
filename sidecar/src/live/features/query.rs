//! Query parameters of the OGC API – Features routes, validated.
//!
//! | name | routes | value |
//! |---|---|---|
//! | `f` | all | `json` or `html` (else `Accept` decides) |
//! | `bbox` | items | `minLon,minLat,maxLon,maxLat` or `minLon,minLat,minHeight,maxLon,maxLat,maxHeight` (CRS84; heights checked, then ignored); `minLon > maxLon` crosses the antimeridian; matched on the published location |
//! | `datetime` | items | an instant or an interval `start/end`, either end open (`..` or empty); dates, dates with a bare `T` (as GDAL sends them) or RFC 3339 date-times |
//! | `limit` | items | 1–[`MAX_LIMIT`], default [`DEFAULT_LIMIT`] |
//! | `cursor` | items | the token of a `next` link |
//! | the collection's queryables | items | equality on a property ([`SITE_QUERYABLES`], [`OBSERVATION_QUERYABLES`]) |
//!
//! As on the other live routes (and as Part 1 requires), any other name, a
//! repeated name, an empty or invalid value is a 400 naming the parameter.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
pub use contract::observations::{DEFAULT_LIMIT, MAX_LIMIT};
use contract::vocabulary::{PARAMETER_NAMES, QUALITY_FLAGS, WATER_BODY_TYPES};

use crate::live::query::{LiveError, date_bound, decode, decode_cursor};

/// The parameters of the items route of each collection, and of the other
/// routes.
pub const SITES_ITEMS_PARAMETERS: &[&str] = &[
    "f",
    "bbox",
    "datetime",
    "limit",
    "cursor",
    "site_id",
    "country",
    "water_body_type",
];
pub const OBSERVATIONS_ITEMS_PARAMETERS: &[&str] = &[
    "f",
    "bbox",
    "datetime",
    "limit",
    "cursor",
    "site_id",
    "country",
    "water_body_type",
    "parameter",
    "quality_flag",
];
pub const OTHER_PARAMETERS: &[&str] = &["f"];

/// The properties each collection filters on by equality (its queryables,
/// Part 3), each a query parameter of its items route.
pub const SITE_QUERYABLES: &[&str] = &["site_id", "country", "water_body_type"];
pub const OBSERVATION_QUERYABLES: &[&str] = &[
    "site_id",
    "country",
    "water_body_type",
    "parameter",
    "quality_flag",
];

/// The values a queryable takes, when it is one of a closed list.
pub fn queryable_enum(name: &str) -> Option<&'static [&'static str]> {
    match name {
        "parameter" => Some(&PARAMETER_NAMES),
        "water_body_type" => Some(&WATER_BODY_TYPES),
        "quality_flag" => Some(&QUALITY_FLAGS),
        _ => None,
    }
}

/// The longest free-text queryable value taken (a site id, a country).
pub const PROPERTY_MAX: usize = 64;

/// Equality filters on properties.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Properties {
    pub site_id: Option<String>,
    pub country: Option<String>,
    pub water_body_type: Option<String>,
    pub parameter: Option<String>,
    pub quality_flag: Option<String>,
}

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
    /// `[minLon, minLat, maxLon, maxLat]`; `minLon > maxLon` crosses the
    /// antimeridian.
    pub bbox: Option<[f64; 4]>,
    /// Inclusive lower and exclusive upper bound, Unix seconds.
    pub from: Option<i64>,
    pub until: Option<i64>,
    pub limit: Option<u32>,
    pub cursor: Option<Cursor>,
    pub properties: Properties,
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

/// One end of a `datetime`: a date or an RFC 3339 date-time, or one of
/// the shortened date-times GDAL writes (`2024-06-01T` for midnight,
/// `2024-06-01T10Z`, `2024-06-01T10:30Z`; decision 0211). A date as a
/// start is its first second; as an end (or an instant's end), the day
/// whole. A date-time is its second.
fn bound(value: &str, end: bool) -> Result<i64, LiveError> {
    date_bound("datetime", &gdal_form(value), end)
}

/// GDAL's shortened forms, completed; anything else as it is.
fn gdal_form(value: &str) -> String {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((date, time)) = value.split_once(['T', 't'])
        && date.len() == 10
    {
        if time.is_empty() {
            // GDAL's form of a date compared with a date-time field: its
            // midnight, the instant GDAL itself compares with.
            return format!("{date}T00:00:00Z");
        }
        if let Some(t) = time.strip_suffix(['Z', 'z']) {
            match t.split_once(':') {
                None if t.len() == 2 && digits(t) => return format!("{date}T{t}:00:00Z"),
                Some((h, m)) if h.len() == 2 && m.len() == 2 && digits(h) && digits(m) => {
                    return format!("{date}T{h}:{m}:00Z");
                }
                _ => {}
            }
        }
    }
    value.to_owned()
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
        None if open(value) => Err(LiveError::invalid(
            NAME,
            "an instant needs a date or a date-time; an interval is `start/end`",
        )),
        None => Ok((Some(bound(value, false)?), Some(bound(value, true)?))),
        Some((_, end)) if end.contains('/') => Err(LiveError::invalid(
            NAME,
            "an interval has one `/` between its start and its end (dates are written YYYY-MM-DD)",
        )),
        Some((start, end)) => {
            if open(start) && open(end) {
                return Err(LiveError::invalid(
                    NAME,
                    "an interval needs at least one end",
                ));
            }
            let from = (!open(start)).then(|| bound(start, false)).transpose()?;
            let until = (!open(end)).then(|| bound(end, true)).transpose()?;
            if let (Some(f), Some(u)) = (from, until)
                && f >= u
            {
                return Err(LiveError::invalid(NAME, "the start must precede the end"));
            }
            Ok((from, until))
        }
    }
}

/// A number of `bbox`: decimal, optionally signed, with an exponent, finite.
fn number(s: &str) -> Option<f64> {
    let ok = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'));
    ok.then(|| s.parse::<f64>().ok())
        .flatten()
        .filter(|x| x.is_finite())
}

/// `bbox`: four numbers, or six with the minimum and maximum heights in the
/// third and sixth place (checked, then ignored: the data is 2D). A west
/// edge east of the east edge makes a box across the antimeridian.
pub fn bbox(value: &str) -> Result<[f64; 4], LiveError> {
    let bad = |why: &str| LiveError::invalid("bbox", why);
    const FORMS: &str = "expected four numbers minLon,minLat,maxLon,maxLat or six \
                         minLon,minLat,minHeight,maxLon,maxLat,maxHeight";
    let nums: Vec<f64> = value
        .split(',')
        .map(number)
        .collect::<Option<_>>()
        .ok_or_else(|| bad(FORMS))?;
    let [w, s, e, n] = match nums[..] {
        [w, s, e, n] => [w, s, e, n],
        [w, s, low, e, n, high] => {
            if low > high {
                return Err(bad("the minimum height must not exceed the maximum height"));
            }
            [w, s, e, n]
        }
        _ => return Err(bad(FORMS)),
    };
    if ![w, e].iter().all(|x| (-180.0..=180.0).contains(x)) {
        return Err(bad("longitudes must lie within -180..180"));
    }
    if ![s, n].iter().all(|x| (-90.0..=90.0).contains(x)) {
        return Err(bad("latitudes must lie within -90..90"));
    }
    if s > n {
        return Err(bad(
            "the minimum latitude must not exceed the maximum (only longitudes wrap, across the antimeridian)",
        ));
    }
    Ok([w, s, e, n])
}

/// A queryable's value: one of its list, else non-blank text of at most
/// [`PROPERTY_MAX`] characters.
fn property(name: &str, value: String) -> Result<Option<String>, LiveError> {
    if let Some(values) = queryable_enum(name) {
        if !values.contains(&value.as_str()) {
            return Err(LiveError::invalid(
                name,
                format!("expected one of {}", values.join(", ")),
            ));
        }
    } else if name == "country" {
        if !(value.len() == 2 && value.bytes().all(|b| b.is_ascii_uppercase())) {
            return Err(LiveError::invalid(
                name,
                "expected an ISO 3166-1 alpha-2 code in capitals, such as NL",
            ));
        }
    } else if value.chars().count() > PROPERTY_MAX || value.trim().is_empty() {
        return Err(LiveError::invalid(
            name,
            format!("expected 1-{PROPERTY_MAX} characters"),
        ));
    }
    Ok(Some(value))
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
            "site_id" => q.properties.site_id = property(name, value)?,
            "country" => q.properties.country = property(name, value)?,
            "water_body_type" => q.properties.water_body_type = property(name, value)?,
            "parameter" => q.properties.parameter = property(name, value)?,
            "quality_flag" => q.properties.quality_flag = property(name, value)?,
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
        let e = parse(Some(q), OBSERVATIONS_ITEMS_PARAMETERS).unwrap_err();
        (e.code().as_str().to_owned(), e.name().to_owned())
    }

    #[test]
    fn valid_queries() {
        let q = parse(
            Some("f=html&bbox=3.3,50.7,7.3,53.6&datetime=2025-01-01/2025-01-31T12%3A00%3A00Z&limit=5"),
            OBSERVATIONS_ITEMS_PARAMETERS,
        )
        .unwrap();
        assert_eq!(q.format, Some(Format::Html));
        assert_eq!(q.bbox, Some([3.3, 50.7, 7.3, 53.6]));
        assert_eq!(
            (q.from, q.until),
            (Some(1_735_689_600), Some(1_738_324_801))
        );
        assert_eq!(q.limit, Some(5));
        let open = parse(
            Some("datetime=../2025-01-01"),
            OBSERVATIONS_ITEMS_PARAMETERS,
        )
        .unwrap();
        assert_eq!((open.from, open.until), (None, Some(1_735_776_000)));
        let open = parse(
            Some("datetime=2025-01-01T00:00:00Z/"),
            OBSERVATIONS_ITEMS_PARAMETERS,
        )
        .unwrap();
        assert_eq!((open.from, open.until), (Some(1_735_689_600), None));
        let instant = parse(Some("datetime=2025-01-01"), OBSERVATIONS_ITEMS_PARAMETERS).unwrap();
        assert_eq!(
            (instant.from, instant.until),
            (Some(1_735_689_600), Some(1_735_776_000))
        );
        let c = offset_cursor(40);
        assert_eq!(
            parse(Some(&format!("cursor={c}")), OBSERVATIONS_ITEMS_PARAMETERS)
                .unwrap()
                .cursor,
            Some(Cursor::Offset(40))
        );
        let c = crate::live::query::encode_cursor(1_700_000_000, 7);
        assert_eq!(
            parse(Some(&format!("cursor={c}")), OBSERVATIONS_ITEMS_PARAMETERS)
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

    const DAY: i64 = 86_400;
    /// 2024-06-01T00:00:00Z.
    const JUNE: i64 = 1_717_200_000;

    fn window(v: &str) -> (Option<i64>, Option<i64>) {
        let q = parse(
            Some(&format!("datetime={v}")),
            OBSERVATIONS_ITEMS_PARAMETERS,
        )
        .unwrap_or_else(|e| panic!("{v}: {}", e.name()));
        (q.from, q.until)
    }

    #[test]
    fn every_datetime_form() {
        for (v, want) in [
            // Instants: a date is its day, a date-time its second.
            ("2024-06-01", (Some(JUNE), Some(JUNE + DAY))),
            (
                "2024-06-01T10:00:00Z",
                (Some(JUNE + 36_000), Some(JUNE + 36_001)),
            ),
            (
                "2024-06-01T12:00:00%2B02:00",
                (Some(JUNE + 36_000), Some(JUNE + 36_001)),
            ),
            // Closed intervals; a date as the end includes its day.
            ("2024-06-01/2024-06-02", (Some(JUNE), Some(JUNE + 2 * DAY))),
            (
                "2024-06-01T00:00:00Z/2024-06-01T01:00:00Z",
                (Some(JUNE), Some(JUNE + 3_601)),
            ),
            // Open ends, either spelling.
            ("2024-06-01/..", (Some(JUNE), None)),
            ("2024-06-01/", (Some(JUNE), None)),
            ("../2024-06-01", (None, Some(JUNE + DAY))),
            ("/2024-06-01", (None, Some(JUNE + DAY))),
            // What GDAL sends for -where on a date-time field, `/` encoded.
            ("2024-06-01T%2F..", (Some(JUNE), None)),
            ("..%2F2024-06-01T", (None, Some(JUNE + 1))),
            (
                "2024-06-01T%2F2024-07-01T",
                (Some(JUNE), Some(JUNE + 30 * DAY + 1)),
            ),
            ("2024-06-01T10Z%2F..", (Some(JUNE + 36_000), None)),
            ("2024-06-01T10:30Z%2F..", (Some(JUNE + 37_800), None)),
            ("2024-06-01T", (Some(JUNE), Some(JUNE + 1))),
        ] {
            assert_eq!(window(v), want, "{v}");
        }
    }

    #[test]
    fn bad_datetimes_are_400s_naming_it() {
        for v in [
            "..",
            "/",
            "../..",
            "2024-06-01/2024-06-01T00:00:00Z/..",
            "2024-06-02/2024-06-01",
            "2024-13-01",
            "2024-06-01T25Z",
            "2024-06-01T1Z",
            "2024/06/01",
            "tomorrow",
        ] {
            assert_eq!(
                err(&format!("datetime={v}")),
                ("invalid_parameter".to_owned(), "datetime".to_owned()),
                "{v}"
            );
        }
    }

    #[test]
    fn bbox_forms() {
        let b = |v: &str| {
            parse(Some(&format!("bbox={v}")), OBSERVATIONS_ITEMS_PARAMETERS).map(|q| q.bbox)
        };
        assert_eq!(
            b("3.3,50.7,7.3,53.6").unwrap(),
            Some([3.3, 50.7, 7.3, 53.6])
        );
        // Six numbers: the heights are checked, then dropped.
        assert_eq!(
            b("3.3,50.7,-10,7.3,53.6,2e3").unwrap(),
            Some([3.3, 50.7, 7.3, 53.6])
        );
        // Across the antimeridian: west stays above east.
        assert_eq!(
            b("170,-50,-170,-30").unwrap(),
            Some([170.0, -50.0, -170.0, -30.0])
        );
        assert_eq!(
            b("-180,-90,180,90").unwrap(),
            Some([-180.0, -90.0, 180.0, 90.0])
        );
        for bad in [
            "1,2,3",
            "1,2,3,4,5",
            "1,2,3,4,5,6,7",
            "1,2,10,3,4,5",
            "0,0,1,x",
            "0,0,1,NaN",
            "0,0,1,inf",
            "0,10,1,5",
            "-181,0,1,1",
            "0,0,1,91",
            "0,,1,1",
        ] {
            let e = b(bad).unwrap_err();
            assert_eq!(
                (e.code().as_str(), e.name()),
                ("invalid_parameter", "bbox"),
                "{bad}"
            );
        }
    }

    #[test]
    fn property_filters() {
        let q = parse(
            Some("parameter=nitrate&site_id=nl-0001&country=NL&water_body_type=river&quality_flag=valid"),
            OBSERVATIONS_ITEMS_PARAMETERS,
        )
        .unwrap();
        let p = q.properties;
        assert_eq!(p.parameter.as_deref(), Some("nitrate"));
        assert_eq!(p.site_id.as_deref(), Some("nl-0001"));
        assert_eq!(p.country.as_deref(), Some("NL"));
        assert_eq!(p.water_body_type.as_deref(), Some("river"));
        assert_eq!(p.quality_flag.as_deref(), Some("valid"));
        for (q, name) in [
            ("parameter=gold", "parameter"),
            ("water_body_type=sea", "water_body_type"),
            ("quality_flag=great", "quality_flag"),
            ("country=nl", "country"),
            ("country=NLD", "country"),
            ("site_id=%20", "site_id"),
        ] {
            assert_eq!(
                err(q),
                ("invalid_parameter".to_owned(), name.to_owned()),
                "{q}"
            );
        }
        // The sites have no parameter or quality flag of their own.
        for q in ["parameter=nitrate", "quality_flag=valid"] {
            let e = parse(Some(q), SITES_ITEMS_PARAMETERS).unwrap_err();
            assert_eq!(e.code().as_str(), "unknown_parameter", "{q}");
        }
        let q = parse(Some("country=NL&site_id=nl-0001"), SITES_ITEMS_PARAMETERS).unwrap();
        assert_eq!(q.properties.country.as_deref(), Some("NL"));
    }
}
