//! UTC timestamps as Unix seconds, to and from RFC 3339 text. The calendar
//! is the `time` crate's, as in the generator (built without its parsing
//! and formatting features); what is written here is the text, because the
//! live data takes a stricter RFC 3339 than `time`'s parser: `T` (or `t`)
//! between date and time, no leap second, a year of four digits from 1000.

use time::{Date, Month, Time, UtcDateTime, UtcOffset};

/// `YYYY-MM-DDTHH:MM:SSZ`. An instant beyond the calendar's years
/// (±9999, which no imported observation reaches) is written as its
/// nearest end.
pub fn format_rfc3339(secs: i64) -> String {
    let t = UtcDateTime::from_unix_timestamp(secs).unwrap_or(if secs < 0 {
        UtcDateTime::MIN
    } else {
        UtcDateTime::MAX
    });
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// The value of a run of ASCII digits. Bytes, not a `&str` slice: a
/// slice of text at fixed offsets panics when a multi-byte character
/// straddles them (found by the `csv_import` fuzz target).
fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() || b.len() > 9 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
}

/// The date of `YYYY-MM-DD` (years 1000–9999).
fn date(s: &str) -> Option<Date> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let y = digits(&b[..4])?;
    let m = Month::try_from(u8::try_from(digits(&b[5..7])?).ok()?).ok()?;
    let d = u8::try_from(digits(&b[8..10])?).ok()?;
    if y < 1000 {
        return None;
    }
    Date::from_calendar_date(i32::try_from(y).ok()?, m, d).ok()
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date (years 1000–9999).
pub fn parse_date(s: &str) -> Option<i64> {
    let midnight = date(s)?.midnight().as_utc().unix_timestamp();
    Some(midnight.div_euclid(86_400))
}

/// Unix seconds of an RFC 3339 date-time (`T` or `t`, fraction ignored,
/// `Z` or a numeric offset). Leap seconds are refused.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    if s.len() < 20 || !s.is_char_boundary(10) || !matches!(s.as_bytes()[10], b'T' | b't') {
        return None;
    }
    let day = date(&s[..10])?;
    let rest = &s[11..];
    let b = rest.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let [h, mi, sec] =
        [&b[..2], &b[3..5], &b[6..8]].map(|n| digits(n).and_then(|n| u8::try_from(n).ok()));
    let time = Time::from_hms(h?, mi?, sec?).ok()?;
    // Bytes 0..8 are ASCII (digits and colons), so 8 is a character boundary.
    let mut zone = &rest[8..];
    if let Some(frac) = zone.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        zone = &frac[n..];
    }
    let offset = match zone {
        "Z" | "z" => UtcOffset::UTC,
        _ => {
            let zb = zone.as_bytes();
            if zb.len() != 6 || !matches!(zb[0], b'+' | b'-') || zb[3] != b':' {
                return None;
            }
            let (oh, om) = (digits(&zb[1..3])?, digits(&zb[4..6])?);
            // RFC 3339's offsets end at 23:59; `time`'s go a little further.
            if oh > 23 || om > 59 {
                return None;
            }
            let sign = if zb[0] == b'-' { -1 } else { 1 };
            let (oh, om) = (i8::try_from(oh).ok()?, i8::try_from(om).ok()?);
            UtcOffset::from_hms(sign * oh, sign * om, 0).ok()?
        }
    };
    Some(day.with_time(time).assume_offset(offset).unix_timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for secs in [0, 951_782_400, 1_700_000_000, 4_102_444_799, -86_400] {
            assert_eq!(parse_rfc3339(&format_rfc3339(secs)), Some(secs));
        }
        assert_eq!(format_rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(parse_date("2024-02-29"), Some(19_782));
        assert_eq!(parse_date("2023-02-29"), None);
        // Multi-byte characters where digits belong are refused, not a
        // panic (found by fuzzing the CSV import).
        assert_eq!(parse_date("é2é-01-01"), None);
        assert_eq!(parse_date("2024-0é-1"), None);
        assert_eq!(parse_rfc3339("2025-01-02T09:00:0Ð\0\t+++++++"), None);
        assert_eq!(parse_rfc3339("2025-01-02T0é:00:00Z"), None);
        assert_eq!(parse_rfc3339("2025-01-02T09:00:00+0é:00"), None);
        assert_eq!(
            parse_rfc3339("2023-11-14T23:13:20.5+01:00"),
            Some(1_700_000_000)
        );
        for bad in [
            "2023-11-14",
            "2023-11-14T22:13:20",
            "2023-11-14T24:00:00Z",
            "2023-11-14T22:13:20.Z",
            "2023-11-14T22:13:20+0100",
            "2023-11-14 22:13:20Z",
            "2023-1-14T22:13:20Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
