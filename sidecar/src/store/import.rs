//! `sidecar import FILE`: loads an observation CSV export, all or nothing.
//!
//! The file is RFC 4180 CSV in UTF-8 (CRLF or LF line ends, `"` quoting,
//! an optional BOM) whose first line is exactly this header:
//!
//! ```text
//! site_id,site_name,country,water_body_type,latitude,longitude,observed_at,parameter,value,unit,method,quality_flag
//! ```
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
//!
//! Every row is validated before the database is touched; the first bad
//! row aborts the import with its line number (the physical line the record
//! starts on, the header being line 1) and the reason. The rows are then
//! written in one transaction, so a database failure leaves nothing behind
//! either. Observations get new ids after the largest existing one.

use std::collections::HashMap;
use std::path::Path;

use super::{NewObservation, PARAMETERS, QUALITY_FLAGS, Site, Store, WATER_BODY_TYPES, rfc3339};

/// The header line of an observation CSV export.
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

/// What an import wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportReport {
    pub observations: u64,
    pub sites: u64,
}

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

/// Imports the CSV file at `path` into `store`, all or nothing.
pub async fn run(store: &Store, path: &Path) -> Result<ImportReport, ImportError> {
    let bytes =
        std::fs::read(path).map_err(|e| ImportError::Io(format!("{}: {e}", path.display())))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count() as u64;
        ImportError::Row {
            line,
            reason: "not valid UTF-8".into(),
        }
    })?;
    let (sites, observations) = parse(text)?;
    let report = ImportReport {
        observations: observations.len() as u64,
        sites: sites.len() as u64,
    };
    store
        .import(sites, observations)
        .await
        .map_err(|e| ImportError::Database(format!("{e:#}")))?;
    Ok(report)
}

/// Parses and validates a whole export.
pub fn parse(text: &str) -> Result<(Vec<Site>, Vec<NewObservation>), ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let records = records(text)?;
    let mut it = records.into_iter();
    let Some((_, header)) = it.next() else {
        return Err(row(1, "the file is empty; expected the header line"));
    };
    if header != HEADER {
        return Err(row(1, format!("the header must be `{}`", HEADER.join(","))));
    }
    let mut sites: Vec<Site> = Vec::new();
    let mut site_index: HashMap<String, usize> = HashMap::new();
    let mut observations = Vec::new();
    for (line, fields) in it {
        if fields.len() == 1 && fields[0].is_empty() {
            continue;
        }
        let (site, obs) = validate(&fields).map_err(|reason| row(line, reason))?;
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
        observations.push(obs);
    }
    Ok((sites, observations))
}

fn row(line: u64, reason: impl Into<String>) -> ImportError {
    ImportError::Row {
        line,
        reason: reason.into(),
    }
}

/// Splits RFC 4180 text into records, each with the line it starts on.
fn records(text: &str) -> Result<Vec<(u64, Vec<String>)>, ImportError> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1u64;
    while chars.peek().is_some() {
        let start = line;
        let mut fields = Vec::new();
        let mut field = String::new();
        loop {
            // At the start of a field.
            if chars.peek() == Some(&'"') {
                chars.next();
                loop {
                    match chars.next() {
                        None => return Err(row(start, "a quoted field is not closed")),
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            field.push('"');
                        }
                        Some('"') => break,
                        Some(c) => {
                            if c == '\n' {
                                line += 1;
                            }
                            field.push(c);
                        }
                    }
                }
                match chars.peek() {
                    None | Some(',' | '\n' | '\r') => {}
                    Some(_) => {
                        return Err(row(line, "a quoted field is followed by text"));
                    }
                }
            } else {
                while let Some(&c) = chars.peek() {
                    if matches!(c, ',' | '\n' | '\r') {
                        break;
                    }
                    if c == '"' {
                        return Err(row(line, "a quote inside an unquoted field"));
                    }
                    field.push(c);
                    chars.next();
                }
            }
            fields.push(std::mem::take(&mut field));
            match chars.next() {
                Some(',') => continue,
                Some('\r') => {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    line += 1;
                    break;
                }
                Some('\n') => {
                    line += 1;
                    break;
                }
                None => break,
                Some(_) => unreachable!("fields end at a separator"),
            }
        }
        out.push((start, fields));
    }
    Ok(out)
}

fn text(name: &str, value: &str, max: usize) -> Result<String, String> {
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

fn validate(f: &[String]) -> Result<(Site, NewObservation), String> {
    if f.len() != HEADER.len() {
        return Err(format!(
            "expected {} fields, found {}",
            HEADER.len(),
            f.len()
        ));
    }
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
    let site = Site {
        id: site_id.to_owned(),
        name: text("site_name", &f[1], 200)?,
        country: country.to_owned(),
        water_body_type: one_of("water_body_type", f[3].trim(), &WATER_BODY_TYPES)?,
        latitude: number("latitude", &f[4], -90.0, 90.0)?,
        longitude: number("longitude", &f[5], -180.0, 180.0)?,
        public: true,
    };
    let observed_at = rfc3339::parse_rfc3339(f[6].trim())
        .ok_or_else(|| format!("observed_at `{}` is not an RFC 3339 date-time", f[6].trim()))?;
    let obs = NewObservation {
        id: 0,
        site_id: site.id.clone(),
        observed_at,
        parameter: one_of("parameter", f[7].trim(), &PARAMETERS)?,
        value: number("value", &f[8], f64::MIN, f64::MAX)?,
        unit: text("unit", &f[9], 100)?,
        method: text("method", &f[10], 100)?,
        quality_flag: one_of("quality_flag", f[11].trim(), &QUALITY_FLAGS)?,
        volunteer_id: None,
    };
    Ok((site, obs))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "site_id,site_name,country,water_body_type,latitude,longitude,observed_at,parameter,value,unit,method,quality_flag\n";

    #[test]
    fn quoted_fields_and_line_numbers() {
        let row = "NL,river,52.1,5.1,2025-01-01T00:00:00Z,ph,7.1,pH,strip,valid";
        let csv = format!(
            "{HEAD}s1,\"Mill, \"\"old\"\"\",{row}\r\ns1,\"Mill, \"\"old\"\"\",{row}\n\
             s2,Lake,NL,lake,52.1,5.1,2025-01-02T00:00:00Z,ph,x,pH,strip,valid\n"
        );
        let err = parse(&csv).unwrap_err();
        assert_eq!(err.to_string(), "line 4: value `x` is not a number");
        let good: String = csv.lines().take(3).map(|l| format!("{l}\n")).collect();
        let (sites, obs) = parse(&good).unwrap();
        assert_eq!(sites.len(), 1);
        assert_eq!(sites[0].name, "Mill, \"old\"");
        assert_eq!(obs.len(), 2);
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
