//! Schema versions: which migrations this binary knows, where a database
//! stands, and the refusal to run on a database a later release has
//! upgraded (every start and `sidecar migrate` check it; [`super::upgrade`]
//! is the command).
//!
//! Both backends record each applied version in `schema_migrations`; the
//! list here names them, so `--check` can say what would run.

/// A migration this binary knows: its number and the name of its files
/// (`migrations/{sqlite,postgres}/NNNN_name.sql`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migration {
    pub version: i64,
    pub name: &'static str,
}

/// Every migration, in order; the backends hold the SQL of each.
pub const MIGRATIONS: [Migration; 4] = [
    Migration {
        version: 1,
        name: "init",
    },
    Migration {
        version: 2,
        name: "contact",
    },
    Migration {
        version: 3,
        name: "import_keys",
    },
    Migration {
        version: 4,
        name: "enquiry_language",
    },
];

/// The newest schema version this binary knows.
pub const LATEST: i64 = MIGRATIONS[MIGRATIONS.len() - 1].version;

/// Where a database stands against this binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaStatus {
    /// The newest version applied (0: an empty or missing database).
    pub current: i64,
    /// What `sidecar migrate` would apply, in order.
    pub pending: Vec<Migration>,
}

impl SchemaStatus {
    /// The status of a database at `current`; an error when a later
    /// release has upgraded it.
    pub fn of(current: i64) -> anyhow::Result<SchemaStatus> {
        refuse_newer(current)?;
        Ok(SchemaStatus {
            current,
            pending: MIGRATIONS
                .iter()
                .copied()
                .filter(|m| m.version > current)
                .collect(),
        })
    }
}

/// Refuses a database whose schema is newer than this binary knows: a
/// rolled-back binary would misread it, or write rows a later migration
/// forbids.
pub fn refuse_newer(current: i64) -> anyhow::Result<()> {
    anyhow::ensure!(
        current <= LATEST,
        "the database's schema is version {current}, newer than this sidecar knows \
         (version {LATEST}): a later release upgraded it. Run that release, or restore \
         the backup taken before the upgrade (docs/operating.md, \"Upgrades and rollback\")"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_consecutive_and_newer_ones_are_refused() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version, i as i64 + 1);
        }
        assert_eq!(SchemaStatus::of(1).unwrap().pending.len(), 3);
        assert!(SchemaStatus::of(LATEST).unwrap().pending.is_empty());
        let err = SchemaStatus::of(LATEST + 1).unwrap_err().to_string();
        assert!(err.contains("newer than this sidecar knows"), "{err}");
    }
}
