//! `sidecar migrate [--check]`: what an upgrade would apply, and applying
//! it (see [`super::migrate`] for the versions).

use std::path::Path;

use super::migrate::{LATEST, SchemaStatus};

/// The schema status of the database the flags name, changing nothing (a
/// missing SQLite file is version 0 and is not created).
pub async fn status(database_url: Option<&str>, data_dir: &Path) -> anyhow::Result<SchemaStatus> {
    let current = match super::Location::of(database_url, data_dir)? {
        super::Location::Postgres(url) => super::postgres::schema_version(url, None).await?,
        super::Location::Sqlite(path) => super::sqlite::schema_version(&path).await?,
    };
    SchemaStatus::of(current)
}

/// What `sidecar migrate` did or would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Lines for the operator.
    pub text: String,
    /// `--check` found migrations to apply.
    pub pending: bool,
}

/// `sidecar migrate [--check]`: reports the schema version and what would
/// run; without `check`, applies it (as every start does).
pub async fn run(
    database_url: Option<&str>,
    data_dir: &Path,
    check: bool,
) -> anyhow::Result<Report> {
    let before = status(database_url, data_dir).await?;
    let mut text = format!(
        "schema version {} (this sidecar knows {LATEST})\n",
        before.current
    );
    let list = |text: &mut String, verb: &str| {
        for m in &before.pending {
            text.push_str(&format!("{verb} {:04}_{}\n", m.version, m.name));
        }
    };
    if before.pending.is_empty() {
        text.push_str("up to date: nothing to apply\n");
        return Ok(Report {
            text,
            pending: false,
        });
    }
    if check {
        list(&mut text, "pending");
        return Ok(Report {
            text,
            pending: true,
        });
    }
    super::Store::open(database_url, data_dir, super::SampleSize::None).await?;
    list(&mut text, "applied");
    let after = status(database_url, data_dir).await?;
    text.push_str(&format!("schema version {}\n", after.current));
    Ok(Report {
        text,
        pending: false,
    })
}
