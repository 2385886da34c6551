//! The flags of `sidecar export`.

use std::path::PathBuf;

use clap::Args;

use super::DatabaseArgs;

/// `sidecar export --to DIR`.
#[derive(Debug, Clone, Args)]
pub struct ExportArgs {
    /// Folder of snapshots: the snapshot is written to `DIR/VERSION/`
    /// (completed in a hidden folder beside it, then renamed; an existing
    /// version is never overwritten). `generate build --snapshots DIR`
    /// publishes the folder.
    #[arg(long, env = "SIDECAR_EXPORT_TO", value_name = "DIR")]
    pub to: PathBuf,

    /// The snapshot's version: letters, digits, `.`, `_` and `-`, starting
    /// with a letter or digit. Default: the export's date in UTC,
    /// `YYYY-MM-DD`.
    #[arg(long, env = "SIDECAR_EXPORT_VERSION", value_name = "VERSION")]
    pub version: Option<String>,

    /// The built site being served (`generate build`'s output): its
    /// `api/service.json` gives the publisher, the data licence and its
    /// attribution, its manifest the site origin the snapshot is cited at.
    #[arg(long, env = "SIDECAR_DIST", default_value = "dist", value_name = "DIR")]
    pub dist: PathBuf,

    #[command(flatten)]
    pub db: DatabaseArgs,
}
