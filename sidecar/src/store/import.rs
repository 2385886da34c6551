//! `sidecar import FILE`: loads an observation CSV export, all or nothing,
//! as often as needed.
//!
//! The file is RFC 4180 CSV in UTF-8 (CRLF or LF line ends, `"` quoting,
//! an optional BOM). Its first line names the columns, in any order: the
//! twelve of [`HEADER`] must be there, the four of [`OPTIONAL`] may be.
//!
//! | column | content |
//! |---|---|
//! | `site_id` | 1–64 of `A-Z a-z 0-9 _ -`; new sites are created, known ones updated |
//! | `site_name` | non-empty, at most 200 characters |
//! | `country` | ISO 3166-1 alpha-2, upper case (`NL`) |
//! | `water_body_type` | one of [`super::WATER_BODY_TYPES`] |
//! | `latitude`, `longitude` | exact WGS 84 decimal degrees (coarsened only when published) |
//! | `observed_at` | RFC 3339 date-time (`2025-06-01T10:30:00Z`, offsets allowed) |
//! | `parameter` | one of [`super::PARAMETERS`] |
//! | `value` | a finite decimal number |
//! | `unit`, `method` | non-empty, at most 100 characters |
//! | `quality_flag` | one of [`super::QUALITY_FLAGS`] |
//! | `site_public` | optional: `true` or `false`; without the column new sites are public and known ones keep their setting |
//! | `source` | optional: the exporting system, at most 100 characters (default [`DEFAULT_SOURCE`]) |
//! | `source_id` | optional: the source's own row id, at most 100 characters; empty: the row is known by its natural key (source, site, parameter, time) |
//! | `action` | optional: `add` (or empty), `withdraw` or `replace` |
//!
//! A row's key (source and source id, or the natural key) is unique:
//! adding a row whose key is already in the database changes nothing, so
//! importing the same file twice adds nothing the second time. A
//! `withdraw` row hides the observation with its key from every public
//! read (it stays as a tombstone, so importing the original file again
//! does not bring it back); a `replace` row sets its value, unit, method
//! and quality flag. A correction whose key is not in the database fails
//! the import with its line.
//!
//! Every row is validated before the database is touched; the first bad
//! row aborts the import with its line number (the physical line the record
//! starts on, the header being line 1) and the reason. The rows are then
//! written in one transaction, so a database failure leaves nothing behind
//! either.

use std::collections::HashMap;
use std::path::Path;

use super::{
    Action, Applied, ImportBatch, ImportRow, NewObservation, PARAMETERS, QUALITY_FLAGS, Site,
    Store, WATER_BODY_TYPES, rfc3339,
};

pub mod classifications;
mod csv;

/// The columns an observation export must have.
pub const HEADER: [&str; 12] = [
    "site_id",
    "site_name",
    "country",
    "water_body_type",
    "latitude",
    "longitude",
    "observed_at",
    "parameter",
    "value",
    "unit",
    "method",
    "quality_flag",
];

/// The columns an observation export may add.
pub const OPTIONAL: [&str; 4] = ["site_public", "source", "source_id", "action"];

/// The source of rows from a file without a `source` column.
pub const DEFAULT_SOURCE: &str = "import";

/// Why an import wrote nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    /// The file could not be read.
    Io(String),
    /// Line `line` is malformed or invalid.
    Row { line: u64, reason: String },
    /// The database refused the transaction (it was rolled back).
    Database(String),
}

impl ImportError {
    /// A correction on line `line` names no observation in the database.
    pub fn not_found(line: u64, action: Action) -> ImportError {
        let verb = match action {
            Action::Withdraw => "withdraw",
            _ => "replace",
        };
        row(
            line,
            format!("no observation with this row's key to {verb} (nothing was imported)"),
        )
    }
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportError::Io(e) => write!(f, "reading the file: {e}"),
            ImportError::Row { line, reason } => write!(f, "line {line}: {reason}"),
            ImportError::Database(e) => write!(f, "database (nothing imported): {e}"),
        }
    }
}

impl std::error::Error for ImportError {}

/// Reads `path` as UTF-8 text; a bad byte is reported by line.
pub(crate) fn read(path: &Path) -> Result<String, ImportError> {
    let bytes =
        std::fs::read(path).map_err(|e| ImportError::Io(format!("{}: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..valid]
            .iter()
            .filter(|b| **b == b'\n')
            .count() as u64;
        row(line, "not valid UTF-8")
    })
}

/// A database error, or the row error a backend raised for a correction.
pub(crate) fn from_database(e: anyhow::Error) -> ImportError {
    match e.downcast::<ImportError>() {
        Ok(e) => e,
        Err(e) => ImportError::Database(format!("{e:#}")),
    }
}

/// Imports the CSV file at `path` into `store`, all or nothing.
pub async fn run(store: &Store, path: &Path) -> Result<Applied, ImportError> {
    let batch = parse(&read(path)?)?;
    store.apply(batch).await.map_err(from_database)
}

/// Which field holds which column.
struct Columns {
    required: [usize; 12],
    optional: [Option<usize>; 4],
    width: usize,
}

fn columns(header: &[String]) -> Result<Columns, ImportError> {
    let position = |name: &str| header.iter().position(|h| h.trim() == name);
    for (i, h) in header.iter().enumerate() {
        let h = h.trim();
        if !HEADER.contains(&h) && !OPTIONAL.contains(&h) {
            return Err(row(
                1,
                format!(
                    "unknown column `{h}`; the columns are {}, optionally {}",
                    HEADER.join(","),
                    OPTIONAL.join(",")
                ),
            ));
        }
        if header[..i].iter().any(|g| g.trim() == h) {
            return Err(row(1, format!("column `{h}` appears twice")));
        }
    }
    let mut required = [0; 12];
    for (slot, name) in required.iter_mut().zip(HEADER) {
        *slot = position(name).ok_or_else(|| {
            row(
                1,
                format!(
                    "the header lacks `{name}`; it must name {}",
                    HEADER.join(",")
                ),
            )
        })?;
    }
    Ok(Columns {
        required,
        optional: OPTIONAL.map(position),
        width: header.len(),
    })
}

/// Parses and validates a whole export.
pub fn parse(text: &str) -> Result<ImportBatch, ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let records = csv::records(text)?;
    let mut it = records.into_iter();
    let Some((_, header)) = it.next() else {
        return Err(row(1, "the file is empty; expected the header line"));
    };
    let cols = columns(&header)?;
    let mut sites: Vec<Site> = Vec::new();
    let mut site_index: HashMap<String, usize> = HashMap::new();
    let mut keys: HashMap<String, u64> = HashMap::new();
    let mut rows = Vec::new();
    for (line, fields) in it {
        if fields.len() == 1 && fields[0].is_empty() {
            continue;
        }
        let (site, row_) = validate(&cols, &fields).map_err(|reason| row(line, reason))?;
        match site_index.get(&site.id) {
            Some(&i) if sites[i] != site => {
                return Err(row(
                    line,
                    format!(
                        "site `{}` has different details than on an earlier line",
                        site.id
                    ),
                ));
            }
            Some(_) => {}
            None => {
                site_index.insert(site.id.clone(), sites.len());
                sites.push(site);
            }
        }
        let (action, obs) = row_;
        if let Some(earlier) = keys.insert(key(&obs), line) {
            return Err(row(
                line,
                format!(
                    "the same observation (key) as line {earlier}: one row per observation and file"
                ),
            ));
        }
        rows.push(ImportRow {
            line,
            action,
            observation: obs,
        });
    }
    Ok(ImportBatch {
        sites,
        sets_public: cols.optional[0].is_some(),
        rows,
    })
}

/// A row's key, as the database's unique indexes see it.
fn key(o: &NewObservation) -> String {
    let source = o.source.as_deref().unwrap_or_default();
    match &o.source_id {
        Some(id) => format!("{source}\u{0}{id}"),
        None => format!(
            "{source}\u{0}\u{0}{}\u{0}{}\u{0}{}",
            o.site_id, o.parameter, o.observed_at
        ),
    }
}

pub(super) fn row(line: u64, reason: impl Into<String>) -> ImportError {
    ImportError::Row {
        line,
        reason: reason.into(),
    }
}

pub(super) fn text(name: &str, value: &str, max: usize) -> Result<String, String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(format!("{name} is empty"));
    }
    if v.chars().count() > max {
        return Err(format!("{name} is longer than {max} characters"));
    }
    if v.chars().any(char::is_control) {
        return Err(format!("{name} contains a control character"));
    }
    Ok(v.to_owned())
}

fn one_of(name: &str, value: &str, allowed: &[&str]) -> Result<String, String> {
    if allowed.contains(&value) {
        Ok(value.to_owned())
    } else {
        Err(format!(
            "{name} `{value}` is not one of {}",
            allowed.join(", ")
        ))
    }
}

fn number(name: &str, value: &str, lo: f64, hi: f64) -> Result<f64, String> {
    let v = value.trim();
    let ok = !v.is_empty()
        && v.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    match v.parse::<f64>() {
        Ok(x) if ok && x.is_finite() && (lo..=hi).contains(&x) => Ok(x),
        Ok(_) if ok => Err(format!("{name} {v} is outside {lo}..{hi}")),
        _ => Err(format!("{name} `{v}` is not a number")),
    }
}

fn validate(cols: &Columns, all: &[String]) -> Result<(Site, (Action, NewObservation)), String> {
    if all.len() != cols.width {
        return Err(format!(
            "expected {} fields, found {}",
            cols.width,
            all.len()
        ));
    }
    let f: [&str; 12] = cols.required.map(|i| all[i].as_str());
    let opt = |i: usize| cols.optional[i].map(|c| all[c].trim());
    let site_id = f[0].trim();
    if site_id.is_empty()
        || site_id.len() > 64
        || !site_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(format!(
            "site_id `{site_id}` must be 1–64 of A-Z a-z 0-9 _ -"
        ));
    }
    let country = f[2].trim();
    if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(format!(
            "country `{country}` is not an upper-case ISO 3166-1 alpha-2 code"
        ));
    }
    let public = match opt(0) {
        None | Some("true") => true,
        Some("false") => false,
        Some(other) => return Err(format!("site_public `{other}` is not true or false")),
    };
    let site = Site {
        id: site_id.to_owned(),
        name: text("site_name", f[1], 200)?,
        country: country.to_owned(),
        water_body_type: one_of("water_body_type", f[3].trim(), &WATER_BODY_TYPES)?,
        latitude: number("latitude", f[4], -90.0, 90.0)?,
        longitude: number("longitude", f[5], -180.0, 180.0)?,
        public,
    };
    let observed_at = rfc3339::parse_rfc3339(f[6].trim())
        .ok_or_else(|| format!("observed_at `{}` is not an RFC 3339 date-time", f[6].trim()))?;
    let source = match opt(1) {
        None => DEFAULT_SOURCE.to_owned(),
        Some(s) => text("source", s, 100)?,
    };
    let source_id = match opt(2) {
        None | Some("") => None,
        Some(id) => Some(text("source_id", id, 100)?),
    };
    let action = match opt(3) {
        None | Some("" | "add") => Action::Add,
        Some("withdraw") => Action::Withdraw,
        Some("replace") => Action::Replace,
        Some(other) => {
            return Err(format!(
                "action `{other}` is not one of add, withdraw, replace"
            ));
        }
    };
    let obs = NewObservation {
        id: 0,
        site_id: site.id.clone(),
        observed_at,
        parameter: one_of("parameter", f[7].trim(), &PARAMETERS)?,
        value: number("value", f[8], f64::MIN, f64::MAX)?,
        unit: text("unit", f[9], 100)?,
        method: text("method", f[10], 100)?,
        quality_flag: one_of("quality_flag", f[11].trim(), &QUALITY_FLAGS)?,
        volunteer_id: None,
        source: Some(source),
        source_id,
    };
    Ok((site, (action, obs)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "site_id,site_name,country,water_body_type,latitude,longitude,observed_at,parameter,value,unit,method,quality_flag\n";

    #[test]
    fn quoted_fields_and_line_numbers() {
        let row = "NL,river,52.1,5.1,2025-01-01T00:00:00Z,ph,7.1,pH,strip,valid";
        let row2 = "NL,river,52.1,5.1,2025-01-02T00:00:00Z,ph,7.1,pH,strip,valid";
        let csv = format!(
            "{HEAD}s1,\"Mill, \"\"old\"\"\",{row}\r\ns1,\"Mill, \"\"old\"\"\",{row2}\n\
             s2,Lake,NL,lake,52.1,5.1,2025-01-02T00:00:00Z,ph,x,pH,strip,valid\n"
        );
        let err = parse(&csv).unwrap_err();
        assert_eq!(err.to_string(), "line 4: value `x` is not a number");
        let good: String = csv.lines().take(3).map(|l| format!("{l}\n")).collect();
        let batch = parse(&good).unwrap();
        assert_eq!(batch.sites.len(), 1);
        assert_eq!(batch.sites[0].name, "Mill, \"old\"");
        assert_eq!(batch.rows.len(), 2);
        assert!(!batch.sets_public);
        // The same observation twice in one file names both lines.
        let twice = format!("{HEAD}s1,M,{row}\ns1,M,{row}\n");
        assert_eq!(
            parse(&twice).unwrap_err().to_string(),
            "line 3: the same observation (key) as line 2: one row per observation and file"
        );
        // A record spanning two lines; the next record starts on line 4.
        let csv = format!("{HEAD}s1,\"a\nb\",{row}\ns1,M,{row},extra\n");
        assert!(
            parse(&csv)
                .unwrap_err()
                .to_string()
                .starts_with("line 2: site_name")
        );
        let csv = format!("{HEAD}s1,\"a\nb\"x,{row}\n");
        assert!(parse(&csv).unwrap_err().to_string().starts_with("line 3:"));
        assert!(
            parse("a,b\n")
                .unwrap_err()
                .to_string()
                .starts_with("line 1:")
        );
    }
}
