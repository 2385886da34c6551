//! The `monthly` series of the statistics: observations and
//! classifications per calendar month (UTC), oldest first, so a chart can
//! draw the figures over time.
//!
//! The series runs from the month of the oldest counted row to the current
//! month, at most [`MAX_MONTHS`] long, and every month in it is present
//! (with zeros where nothing happened), so a chart has no gaps. Rows dated
//! after the current month are left out: a series that ends in the future
//! would not be "up to now". Only counts leave the database.

use std::collections::HashMap;

use serde::Serialize;
use time::{Date, Month, UtcDateTime};

use crate::store::MonthCounts;

/// The longest series: ten years. Older months are left out of the
/// series (the totals still count them).
pub const MAX_MONTHS: i64 = 120;

/// One month of the series.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MonthFigures {
    /// `YYYY-MM`, UTC.
    pub month: String,
    pub observations: i64,
    pub classifications: i64,
}

/// A month as a count of months since the year 0.
fn month_index(secs: i64) -> i64 {
    let t = UtcDateTime::from_unix_timestamp(secs).unwrap_or(if secs < 0 {
        UtcDateTime::MIN
    } else {
        UtcDateTime::MAX
    });
    i64::from(t.year()) * 12 + i64::from(u8::from(t.month())) - 1
}

fn year_month(index: i64) -> (i32, u8) {
    (
        i32::try_from(index.div_euclid(12)).unwrap_or(i32::MAX),
        u8::try_from(index.rem_euclid(12) + 1).unwrap_or(1),
    )
}

/// Unix seconds of the first instant of a month.
fn month_start(index: i64) -> i64 {
    let (y, m) = year_month(index);
    let month = Month::try_from(m).unwrap_or(Month::January);
    Date::from_calendar_date(y, month, 1)
        .map(|d| d.midnight().as_utc().unix_timestamp())
        .unwrap_or(if index < 0 { i64::MIN } else { i64::MAX })
}

fn label(index: i64) -> String {
    let (y, m) = year_month(index);
    format!("{y:04}-{m:02}")
}

/// The window `[from, to)` in Unix seconds the store counts for a series
/// ending with the month of `now`.
pub fn window(now: i64) -> (i64, i64) {
    let current = month_index(now);
    (
        month_start(current - MAX_MONTHS + 1),
        month_start(current + 1),
    )
}

/// The series ending with the month of `now`, from the store's counts
/// over [`window`]`(now)`.
pub fn series(now: i64, counts: &MonthCounts) -> Vec<MonthFigures> {
    let current = month_index(now);
    let oldest = current - MAX_MONTHS + 1;
    let mut by_month: HashMap<&str, (i64, i64)> = HashMap::new();
    for (m, n) in &counts.observations {
        by_month.entry(m).or_default().0 += n;
    }
    for (m, n) in &counts.classifications {
        by_month.entry(m).or_default().1 += n;
    }
    let months: Vec<String> = (oldest..=current).map(label).collect();
    let Some(first) = months
        .iter()
        .position(|m| by_month.contains_key(m.as_str()))
    else {
        return Vec::new();
    };
    months
        .into_iter()
        .skip(first)
        .map(|month| {
            let (observations, classifications) =
                by_month.get(month.as_str()).copied().unwrap_or_default();
            MonthFigures {
                month,
                observations,
                classifications,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::rfc3339::parse_rfc3339;

    fn at(s: &str) -> i64 {
        parse_rfc3339(s).unwrap()
    }

    #[test]
    fn window_is_ten_years_of_whole_months() {
        let (from, to) = window(at("2026-11-27T01:00:00Z"));
        assert_eq!(from, at("2016-12-01T00:00:00Z"));
        assert_eq!(to, at("2026-12-01T00:00:00Z"));
        let (from, to) = window(at("2026-12-31T23:59:59Z"));
        assert_eq!(from, at("2017-01-01T00:00:00Z"));
        assert_eq!(to, at("2027-01-01T00:00:00Z"));
    }

    #[test]
    fn series_starts_at_the_first_month_with_data_and_has_no_gaps() {
        let counts = MonthCounts {
            observations: vec![("2026-08".into(), 3), ("2026-06".into(), 2)],
            classifications: vec![("2026-08".into(), 5), ("2026-11".into(), 1)],
        };
        let s = series(at("2026-11-27T01:00:00Z"), &counts);
        let got: Vec<(&str, i64, i64)> = s
            .iter()
            .map(|m| (m.month.as_str(), m.observations, m.classifications))
            .collect();
        assert_eq!(
            got,
            [
                ("2026-06", 2, 0),
                ("2026-07", 0, 0),
                ("2026-08", 3, 5),
                ("2026-09", 0, 0),
                ("2026-10", 0, 0),
                ("2026-11", 0, 1),
            ]
        );
        assert!(series(at("2026-11-27T01:00:00Z"), &MonthCounts::default()).is_empty());
    }

    #[test]
    fn series_is_bounded() {
        let counts = MonthCounts {
            observations: vec![("2016-12".into(), 1), ("2016-11".into(), 9)],
            classifications: vec![],
        };
        let s = series(at("2026-11-27T01:00:00Z"), &counts);
        assert_eq!(s.len() as i64, MAX_MONTHS);
        assert_eq!(s[0].month, "2016-12");
        assert_eq!(s[0].observations, 1);
        assert_eq!(s.last().unwrap().month, "2026-11");
    }
}
