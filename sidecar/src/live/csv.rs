//! CSV output of an observation page (RFC 4180, header row, CRLF): the
//! columns are the members of the JSON `Observation`, in the same order.

use crate::store::ObservationRow;
use crate::store::rfc3339::format_rfc3339;

/// The columns: the members of the contract's `Observation`, in its order.
pub use contract::observations::OBSERVATION_FIELDS as COLUMNS;

/// One CSV record of `cells`, quoted where RFC 4180 needs it, with CRLF.
pub(crate) fn push_row(out: &mut String, cells: &[String]) {
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if c.contains([',', '"', '\r', '\n']) {
            out.push('"');
            out.push_str(&c.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(c);
        }
    }
    out.push_str("\r\n");
}

/// The page as CSV; coordinates are already coarsened by the caller.
pub fn render(rows: &[ObservationRow]) -> String {
    let mut out = COLUMNS.join(",");
    out.push_str("\r\n");
    for r in rows {
        let cells = [
            r.id.to_string(),
            r.site_id.clone(),
            r.site_name.clone(),
            r.country.clone(),
            r.water_body_type.clone(),
            format_rfc3339(r.observed_at),
            r.parameter.clone(),
            r.value.to_string(),
            r.unit.clone(),
            r.method.clone(),
            r.quality_flag.clone(),
            r.latitude.to_string(),
            r.longitude.to_string(),
        ];
        push_row(&mut out, &cells);
    }
    out
}
