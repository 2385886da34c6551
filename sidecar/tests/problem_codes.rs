//! Every problem code the sidecar can answer with is documented by the
//! generator (which builds its `type` page at `/docs/problems/<code>/`) with
//! the same status and title. The two crates share no code, so this test
//! reads the generator's list from its source.

use sidecar::problem::Code;

#[test]
fn every_code_has_a_generated_page_with_the_same_status_and_title() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../generator/src/problems.rs");
    let source = std::fs::read_to_string(path).expect("the generator's problem list");
    for code in Code::ALL {
        let needle = format!("code: \"{}\",", code.as_str());
        let at = source
            .find(&needle)
            .unwrap_or_else(|| panic!("{} has no page in the generator", code.as_str()));
        let entry = &source[at..source[at..].find('}').map_or(source.len(), |e| at + e)];
        assert!(
            entry.contains(&format!("status: {},", code.status().as_u16())),
            "{}: status differs from the generator's",
            code.as_str()
        );
        assert!(
            entry.contains(&format!("title: \"{}\",", code.title())),
            "{}: title differs from the generator's",
            code.as_str()
        );
    }
}
