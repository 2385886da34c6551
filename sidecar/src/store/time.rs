//! UTC timestamps as Unix seconds, to and from RFC 3339 — the few
//! conversions the live data needs, without a date-time dependency.

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number (inverse of [`days_from_civil`]).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_rfc3339(secs: i64) -> String {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
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

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The day number of a `YYYY-MM-DD` date (years 1000–9999).
pub fn parse_date(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let y = i64::from(digits(&b[..4])?);
    let m = digits(&b[5..7])?;
    let d = digits(&b[8..10])?;
    if y < 1000 || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// Unix seconds of an RFC 3339 date-time (`T` or `t`, fraction ignored,
/// `Z` or a numeric offset). Leap seconds are refused.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    if s.len() < 20 || !s.is_char_boundary(10) || !matches!(s.as_bytes()[10], b'T' | b't') {
        return None;
    }
    let day = parse_date(&s[..10])?;
    let rest = &s[11..];
    let b = rest.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let (h, mi, sec) = (digits(&b[..2])?, digits(&b[3..5])?, digits(&b[6..8])?);
    if h > 23 || mi > 59 || sec > 59 {
        return None;
    }
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
        "Z" | "z" => 0,
        _ => {
            let zb = zone.as_bytes();
            if zb.len() != 6 || !matches!(zb[0], b'+' | b'-') || zb[3] != b':' {
                return None;
            }
            let (oh, om) = (digits(&zb[1..3])?, digits(&zb[4..6])?);
            if oh > 23 || om > 59 {
                return None;
            }
            let o = i64::from(oh * 3600 + om * 60);
            if zb[0] == b'-' { -o } else { o }
        }
    };
    Some(day * 86_400 + i64::from(h * 3600 + mi * 60 + sec) - offset)
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
