//! The query of `/api/observations-data.php`: its parameters and their
//! bounds. The sidecar validates against these, the contract and the MCP
//! tool `get_observations` (which calls the route) state them.

/// The query parameters the route takes, in the contract's order.
pub const QUERY_PARAMETERS: [&str; 8] = [
    "parameter",
    "site",
    "from",
    "to",
    "bbox",
    "limit",
    "cursor",
    "format",
];

/// The page size when `limit` is not given.
pub const DEFAULT_LIMIT: u32 = 100;
/// The largest `limit` (the smallest is 1).
pub const MAX_LIMIT: u32 = 1000;

/// The longest `site` (a `site_id`).
pub const SITE_ID_MAX: usize = 64;
/// A `site_id`: 1 to [`SITE_ID_MAX`] of `A-Z a-z 0-9 _ -`.
pub const SITE_ID_PATTERN: &str = "^[A-Za-z0-9_-]{1,64}$";

/// The longest `cursor` the route reads; the ones it issues are far shorter.
pub const CURSOR_MAX: usize = 200;

/// The representations `format` names, the default first.
pub const FORMATS: [&str; 2] = ["json", "csv"];

/// Bounds of the `bbox` corners and of published coordinates, in degrees.
pub const MAX_LONGITUDE: i16 = 180;
pub const MAX_LATITUDE: i16 = 90;

/// Decimal places published coordinates are rounded to, to protect
/// volunteers' privacy.
pub const PRECISION_DECIMALS: u32 = 2;

/// The members of an observation row (`Observation` in the contract), in
/// its order: what the MCP tool's `fields` may select.
pub const OBSERVATION_FIELDS: [&str; 13] = [
    "id",
    "site_id",
    "site_name",
    "country",
    "water_body_type",
    "observed_at",
    "parameter",
    "value",
    "unit",
    "method",
    "quality_flag",
    "latitude",
    "longitude",
];

/// The query parameters of `/api/observation-trend`, in the contract's
/// order (decision 0220).
pub const TREND_QUERY_PARAMETERS: [&str; 7] = [
    "parameter",
    "site",
    "bbox",
    "country",
    "from",
    "to",
    "interval",
];

/// The bucket widths of a trend, the default first. Buckets are UTC
/// calendar days, ISO weeks (from Monday), months and years.
pub const INTERVALS: [&str; 4] = ["month", "day", "week", "year"];

/// The most buckets a trend answers; more is a 400 naming `interval`.
pub const TREND_MAX_BUCKETS: usize = 120;

/// The most observations a trend reads; more is a 400 asking for a
/// narrower selection.
pub const TREND_MAX_OBSERVATIONS: usize = 200_000;

/// A country: ISO 3166-1 alpha-2, upper case.
pub const COUNTRY_PATTERN: &str = "^[A-Z]{2}$";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_site_pattern_states_the_maximum() {
        assert!(SITE_ID_PATTERN.ends_with(&format!("{{1,{SITE_ID_MAX}}}$")));
        assert!((1..=MAX_LIMIT).contains(&DEFAULT_LIMIT));
    }
}
