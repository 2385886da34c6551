//! Regions of the world a site's country lies in: the sub-regions of the
//! United Nations' M49 standard, for the countries the service expects
//! sites in. A country outside the table lies in [`OTHER`]. The MCP tool
//! `get_globe_points` filters and counts by these (decision 0221).

/// The region of a country the table does not name.
pub const OTHER: &str = "other";

/// Each region's id and the ISO 3166-1 alpha-2 codes of its countries.
pub const REGIONS: [(&str, &[&str]); 4] = [
    (
        "northern_europe",
        &[
            "DK", "EE", "FI", "FO", "GB", "IE", "IM", "IS", "LT", "LV", "NO", "SE", "AX", "GG",
            "JE", "SJ",
        ],
    ),
    (
        "western_europe",
        &["AT", "BE", "CH", "DE", "FR", "LI", "LU", "MC", "NL"],
    ),
    (
        "southern_europe",
        &[
            "AD", "AL", "BA", "ES", "GI", "GR", "HR", "IT", "ME", "MK", "MT", "PT", "RS", "SI",
            "SM", "VA", "XK",
        ],
    ),
    (
        "eastern_europe",
        &["BG", "BY", "CZ", "HU", "MD", "PL", "RO", "RU", "SK", "UA"],
    ),
];

/// Every region id, [`OTHER`] last.
pub const REGION_IDS: [&str; 5] = [
    REGIONS[0].0,
    REGIONS[1].0,
    REGIONS[2].0,
    REGIONS[3].0,
    OTHER,
];

/// The region of `country` (an ISO 3166-1 alpha-2 code, any case).
pub fn region_of(country: &str) -> &'static str {
    REGIONS
        .iter()
        .find(|(_, countries)| countries.iter().any(|c| c.eq_ignore_ascii_case(country)))
        .map_or(OTHER, |(id, _)| id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn countries_lie_in_one_region() {
        assert_eq!(region_of("NL"), "western_europe");
        assert_eq!(region_of("gb"), "northern_europe");
        assert_eq!(region_of("ES"), "southern_europe");
        assert_eq!(region_of("US"), OTHER);
        let mut all: Vec<&str> = REGIONS
            .iter()
            .flat_map(|(_, c)| c.iter().copied())
            .collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a country is listed twice");
    }
}
