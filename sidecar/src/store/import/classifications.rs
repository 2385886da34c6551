//! `sidecar import --kind classifications FILE`: a classification
//! platform's export, one row per classification, all or nothing and
//! repeatable.
//!
//! The header names these columns, in any order:
//!
//! | column | content |
//! |---|---|
//! | `project_id` | 1–64 of `A-Z a-z 0-9 _ -`; the project is created (as one that collects classifications) or renamed |
//! | `project_name` | non-empty, at most 200 characters, the same on every row of a project |
//! | `classification_id` | the platform's own id, at most 100 characters, unique per project |
//! | `created_at` | RFC 3339 date-time |
//!
//! No volunteer or subject columns: the statistics count classifications,
//! and nothing personal is kept. A classification already in the database
//! (same project and id) is skipped, so importing a file twice adds nothing.

use std::collections::HashMap;
use std::path::Path;

use super::{ImportError, csv, from_database, read, row, text};
use crate::store::{NewClassification, Store, rfc3339};

/// The columns of a classification export.
pub const HEADER: [&str; 4] = [
    "project_id",
    "project_name",
    "classification_id",
    "created_at",
];

/// What a classification import found and added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    pub rows: u64,
    pub added: u64,
}

/// Imports the classification CSV at `path` into `store`, all or nothing.
pub async fn run(store: &Store, path: &Path) -> Result<Report, ImportError> {
    let rows = parse(&read(path)?)?;
    let n = rows.len() as u64;
    let added = store
        .import_classifications(rows)
        .await
        .map_err(from_database)?;
    Ok(Report { rows: n, added })
}

/// Parses and validates a whole classification export.
pub fn parse(text_: &str) -> Result<Vec<NewClassification>, ImportError> {
    let text_ = text_.strip_prefix('\u{feff}').unwrap_or(text_);
    let mut it = csv::records(text_)?.into_iter();
    let Some((_, header)) = it.next() else {
        return Err(row(1, "the file is empty; expected the header line"));
    };
    let mut at = [0usize; 4];
    for (slot, name) in at.iter_mut().zip(HEADER) {
        *slot = header
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| row(1, format!("the header must name {}", HEADER.join(","))))?;
    }
    if header.len() != HEADER.len() {
        return Err(row(
            1,
            format!("the header must name exactly {}", HEADER.join(",")),
        ));
    }
    let mut names: HashMap<String, String> = HashMap::new();
    let mut seen: HashMap<(String, String), u64> = HashMap::new();
    let mut out = Vec::new();
    for (line, fields) in it {
        if fields.len() == 1 && fields[0].is_empty() {
            continue;
        }
        let c = validate(&fields, &at).map_err(|reason| row(line, reason))?;
        match names.get(&c.project_id) {
            Some(name) if *name != c.project_name => {
                return Err(row(
                    line,
                    format!(
                        "project `{}` has a different name than on an earlier line",
                        c.project_id
                    ),
                ));
            }
            Some(_) => {}
            None => {
                names.insert(c.project_id.clone(), c.project_name.clone());
            }
        }
        let key = (c.project_id.clone(), c.source_id.clone());
        if let Some(earlier) = seen.insert(key, line) {
            return Err(row(
                line,
                format!("classification `{}` is also on line {earlier}", c.source_id),
            ));
        }
        out.push(c);
    }
    Ok(out)
}

fn validate(f: &[String], at: &[usize; 4]) -> Result<NewClassification, String> {
    if f.len() != HEADER.len() {
        return Err(format!(
            "expected {} fields, found {}",
            HEADER.len(),
            f.len()
        ));
    }
    let project_id = f[at[0]].trim();
    if project_id.is_empty()
        || project_id.len() > 64
        || !project_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(format!(
            "project_id `{project_id}` must be 1–64 of A-Z a-z 0-9 _ -"
        ));
    }
    let created = f[at[3]].trim();
    Ok(NewClassification {
        project_id: project_id.to_owned(),
        project_name: text("project_name", &f[at[1]], 200)?,
        source_id: text("classification_id", &f[at[2]], 100)?,
        created_at: rfc3339::parse_rfc3339(created)
            .ok_or_else(|| format!("created_at `{created}` is not an RFC 3339 date-time"))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_checked_by_line() {
        let head = "project_id,project_name,classification_id,created_at\n";
        let ok = format!("{head}riverlens,Riverlens,101,2026-01-02T03:04:05Z\n");
        assert_eq!(parse(&ok).unwrap()[0].source_id, "101");
        let twice = format!("{ok}riverlens,Riverlens,101,2026-01-02T03:04:05Z\n");
        assert_eq!(
            parse(&twice).unwrap_err().to_string(),
            "line 3: classification `101` is also on line 2"
        );
        let bad = format!("{ok}riverlens,Riverlens,102,yesterday\n");
        assert!(
            parse(&bad)
                .unwrap_err()
                .to_string()
                .starts_with("line 3: created_at")
        );
        assert!(
            parse("project_id,name\n")
                .unwrap_err()
                .to_string()
                .starts_with("line 1:")
        );
    }
}
