//! Arbitrary text as an observations CSV for `sidecar import`: the parser
//! must never panic, and what it accepts must be importable as it stands:
//! every observation names a site of the file, with a finite value, and
//! every site has coordinates on the globe.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sidecar::store::import::parse;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(batch) = parse(text) else {
        return;
    };
    let (sites, observations): (Vec<_>, Vec<_>) = (
        batch.sites,
        batch.rows.into_iter().map(|r| r.observation).collect(),
    );
    for s in &sites {
        assert!((-90.0..=90.0).contains(&s.latitude), "{s:?}");
        assert!((-180.0..=180.0).contains(&s.longitude), "{s:?}");
    }
    for o in &observations {
        assert!(o.value.is_finite(), "{o:?}");
        assert!(
            sites.iter().any(|s| s.id == o.site_id),
            "{o:?} names no site of the file"
        );
    }
});
