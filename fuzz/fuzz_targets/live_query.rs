//! Arbitrary bytes as the query string of `/api/observations-data.php` (the
//! globe and statistics routes take none): the parser must never panic, and
//! what it accepts must be within the documented bounds, so the database is
//! never asked for more than a page or for a malformed box.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sidecar::live::query::{MAX_LIMIT, parse};

fuzz_target!(|data: &[u8]| {
    let Ok(query) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(q) = parse(Some(query)) else {
        return;
    };
    let f = &q.filter;
    assert!((1..=MAX_LIMIT).contains(&f.limit), "limit {}", f.limit);
    if let Some([w, s, e, n]) = f.bbox {
        assert!([w, s, e, n].iter().all(|v| v.is_finite()));
        assert!((-180.0..=180.0).contains(&w) && (-180.0..=180.0).contains(&e));
        assert!((-90.0..=90.0).contains(&s) && (-90.0..=90.0).contains(&n));
        assert!(s <= n, "south {s} above north {n}");
    }
    if let (Some(from), Some(until)) = (f.from, f.until) {
        assert!(from < until, "from {from} not before {until}");
    }
});
