//! Single byte-range requests (RFC 9110 §14). Multiple ranges are answered
//! with the whole file, which the RFC allows and which keeps downloads simple;
//! a syntactically invalid `Range` is ignored, as the RFC requires.

/// What a `Range` header asks of a representation of `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeRequest {
    /// Send the whole representation (200).
    Full,
    /// Send bytes `start..=end` (206).
    Partial { start: u64, end: u64 },
    /// No byte of the range exists (416).
    Unsatisfiable,
}

/// Interprets a `Range` header against a representation of `len` bytes.
pub fn parse(header: &[u8], len: u64) -> RangeRequest {
    let Some(spec) = strip_unit(header.trim_ascii()) else {
        return RangeRequest::Full;
    };
    if spec.contains(&b',') {
        return RangeRequest::Full;
    }
    let Some(dash) = spec.iter().position(|b| *b == b'-') else {
        return RangeRequest::Full;
    };
    let (first, last) = (spec[..dash].trim_ascii(), spec[dash + 1..].trim_ascii());
    match (number(first), number(last)) {
        // bytes=-N: the last N bytes.
        (None, Some(suffix)) if first.is_empty() => {
            if suffix == 0 || len == 0 {
                RangeRequest::Unsatisfiable
            } else {
                RangeRequest::Partial {
                    start: len.saturating_sub(suffix),
                    end: len - 1,
                }
            }
        }
        // bytes=N-
        (Some(start), None) if last.is_empty() => satisfiable(start, u64::MAX, len),
        (Some(start), Some(end)) if end >= start => satisfiable(start, end, len),
        _ => RangeRequest::Full,
    }
}

fn satisfiable(start: u64, end: u64, len: u64) -> RangeRequest {
    if start >= len {
        RangeRequest::Unsatisfiable
    } else {
        RangeRequest::Partial {
            start,
            end: end.min(len - 1),
        }
    }
}

fn strip_unit(header: &[u8]) -> Option<&[u8]> {
    let (unit, rest) = header.split_at_checked(6)?;
    unit.eq_ignore_ascii_case(b"bytes=").then_some(rest)
}

/// Decimal digits only; values past u64 saturate (a range that large starts
/// past any file and so is unsatisfiable).
fn number(s: &[u8]) -> Option<u64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0u64, |acc, d| {
        acc.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use RangeRequest::*;

    #[test]
    fn single_ranges() {
        assert_eq!(parse(b"bytes=0-9", 100), Partial { start: 0, end: 9 });
        assert_eq!(parse(b"bytes=90-", 100), Partial { start: 90, end: 99 });
        assert_eq!(parse(b"bytes=90-500", 100), Partial { start: 90, end: 99 });
        assert_eq!(parse(b"bytes=-10", 100), Partial { start: 90, end: 99 });
        assert_eq!(parse(b"bytes=-1000", 100), Partial { start: 0, end: 99 });
        assert_eq!(parse(b"Bytes = 5-5", 100), Full);
        assert_eq!(parse(b"BYTES=5-5", 100), Partial { start: 5, end: 5 });
    }

    #[test]
    fn unsatisfiable() {
        assert_eq!(parse(b"bytes=100-", 100), Unsatisfiable);
        assert_eq!(parse(b"bytes=100-200", 100), Unsatisfiable);
        assert_eq!(parse(b"bytes=-0", 100), Unsatisfiable);
        assert_eq!(parse(b"bytes=0-", 0), Unsatisfiable);
        assert_eq!(parse(b"bytes=99999999999999999999999-", 100), Unsatisfiable);
    }

    #[test]
    fn ignored() {
        assert_eq!(parse(b"bytes=9-0", 100), Full);
        assert_eq!(parse(b"bytes=0-1,5-6", 100), Full);
        assert_eq!(parse(b"items=0-1", 100), Full);
        assert_eq!(parse(b"bytes=a-b", 100), Full);
        assert_eq!(parse(b"bytes=-", 100), Full);
        assert_eq!(parse(b"bytes=5", 100), Full);
    }
}
