//! Published site locations: the precision coordinates are rounded to
//! before they leave the service, and how a filter on published locations
//! becomes a filter on the exact ones the database holds.
//!
//! A filter must never compare against an exact location: a box a hair wide
//! around a point would say whether a site lies there, and halving boxes
//! would recover the point in a couple of dozen requests. Rounding in SQL is
//! no cure either, because the backends round differently from each other
//! and from Rust (PostgreSQL's `round(float8)` rounds halves to even, its
//! `round(numeric)` rounds the decimal text rather than the binary value,
//! SQLite's `round(x, 2)` goes through its own printf), and any mismatch
//! leaks. Instead: [`coarsen`] never decreases as its argument grows, so
//! the exact values whose published value lies in `min..=max` form one
//! interval. [`exact_range`] finds its ends in Rust with the very function
//! that publishes, and the database compares exact values against those
//! ends — a comparison both backends make exactly, inside the query, so
//! limits and cursors apply to the filtered rows.

/// Decimal places published coordinates are rounded to (2: 0.01° ≈ 1.1 km
/// of latitude).
pub use contract::observations::PRECISION_DECIMALS;

/// Rounds a coordinate to [`PRECISION_DECIMALS`] places (halves away from
/// zero, as [`f64::round`]): the published value.
pub fn coarsen(degrees: f64) -> f64 {
    let f = 10f64.powi(PRECISION_DECIMALS as i32);
    (degrees * f).round() / f
}

/// The exact values `lo..=hi` whose published value ([`coarsen`]) lies in
/// `min..=max`, or `None` when no finite value's does.
pub fn exact_range(min: f64, max: f64) -> Option<(f64, f64)> {
    let lo = first_where(|x| coarsen(x) >= min)?;
    let hi = match first_where(|x| coarsen(x) > max) {
        None => f64::MAX,
        Some(f64::MIN) => return None,
        Some(above) => above.next_down(),
    };
    (lo <= hi).then_some((lo, hi))
}

/// The smallest finite value where `holds` is true, for a `holds` that is
/// false up to some value and true from there on.
fn first_where(holds: impl Fn(f64) -> bool) -> Option<f64> {
    if holds(f64::MIN) {
        return Some(f64::MIN);
    }
    if !holds(f64::MAX) {
        return None;
    }
    // Bisect over the finite values in order: false at `below`, true at
    // `at`, until they are neighbours.
    let (mut below, mut at) = (order_key(f64::MIN), order_key(f64::MAX));
    while at - below > 1 {
        let mid = below + (at - below) / 2;
        if holds(from_order_key(mid)) {
            at = mid;
        } else {
            below = mid;
        }
    }
    Some(from_order_key(at))
}

/// Maps a non-NaN value to an integer with the same order (−0 just before
/// +0), so that bisecting the integers bisects the values.
fn order_key(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

fn from_order_key(key: u64) -> f64 {
    f64::from_bits(if key >> 63 == 1 {
        key & !(1 << 63)
    } else {
        !key
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the range test on the exact value agrees with the box test on
    /// the published value.
    fn agrees(x: f64, min: f64, max: f64) {
        let published = coarsen(x);
        let wanted = min <= published && published <= max;
        let got = exact_range(min, max).is_some_and(|(lo, hi)| lo <= x && x <= hi);
        assert_eq!(
            got, wanted,
            "x={x:?} published={published:?} box {min:?}..={max:?}"
        );
    }

    #[test]
    fn order_keys_round_trip_in_order() {
        let values = [
            f64::MIN,
            -180.0,
            -1e-300,
            -0.0,
            0.0,
            1e-300,
            0.125,
            90.0,
            f64::MAX,
        ];
        for pair in values.windows(2) {
            assert!(order_key(pair[0]) < order_key(pair[1]), "{pair:?}");
        }
        for v in values {
            assert_eq!(from_order_key(order_key(v)).to_bits(), v.to_bits());
        }
    }

    #[test]
    fn ends_are_tight() {
        for (min, max) in [(4.99, 4.99), (52.12, 52.13), (-3.38, -3.37), (0.0, 0.0)] {
            let (lo, hi) = exact_range(min, max).unwrap();
            assert!(coarsen(lo) >= min && coarsen(lo.next_down()) < min);
            assert!(coarsen(hi) <= max && coarsen(hi.next_up()) > max);
        }
    }

    #[test]
    fn a_point_published_nowhere_is_found_nowhere() {
        // No two-decimal value lies strictly between 4.987 and 4.988.
        assert_eq!(exact_range(4.987, 4.988), None);
        assert_eq!(exact_range(52.123_456, 52.123_457), None);
        assert_eq!(exact_range(f64::NAN, 1.0), None);
    }

    #[test]
    fn halves_round_away_from_zero() {
        // 10.125 and -3.375 are exact binary fractions: the published values
        // are 10.13 and -3.38 (where half-to-even would give 10.12, -3.38).
        agrees(10.125, 10.13, 10.13);
        agrees(10.125, 10.12, 10.12);
        agrees(-3.375, -3.38, -3.38);
        agrees(-3.375, -3.37, -3.37);
        agrees(1.005, 1.0, 1.0);
        agrees(1.005, 1.01, 1.01);
    }

    #[test]
    fn agrees_with_coarsen_everywhere() {
        // A small xorshift generator keeps the test deterministic.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut degrees = |scale: f64| (next() as f64 / u64::MAX as f64 * 2.0 - 1.0) * scale;
        for _ in 0..2_000 {
            let x = degrees(180.0);
            // Boxes with ends on published values, on half-way points and
            // anywhere, near `x` and far from it.
            let near = coarsen(x);
            let ends = [
                near,
                near - 0.01,
                near + 0.01,
                near - 0.005,
                near + 0.005,
                x,
                x.next_up(),
                x.next_down(),
                degrees(180.0),
            ];
            for &a in &ends {
                for &b in &ends {
                    if a <= b {
                        agrees(x, a, b);
                        agrees(x.next_up(), a, b);
                        agrees(x.next_down(), a, b);
                    }
                }
            }
        }
    }
}
