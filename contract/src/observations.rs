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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_site_pattern_states_the_maximum() {
        assert!(SITE_ID_PATTERN.ends_with(&format!("{{1,{SITE_ID_MAX}}}$")));
        assert!((1..=MAX_LIMIT).contains(&DEFAULT_LIMIT));
    }
}
