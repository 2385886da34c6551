//! Log setup: `tracing` lines as text or JSON, on stderr by default so that
//! standard output stays free for whatever a command prints as its result;
//! `--log-output stdout` for containers, whose log collectors read stdout.

pub mod access;
mod line;

use tracing_subscriber::EnvFilter;

pub use crate::config::{LogFormat, LogOutput};

/// Installs the global subscriber. `filter` uses `EnvFilter` syntax
/// (`info`, `sidecar=debug`, …).
pub fn init(format: LogFormat, output: LogOutput, filter: &str) -> anyhow::Result<()> {
    let filter =
        EnvFilter::try_new(filter).map_err(|e| anyhow::anyhow!("--log {filter:?}: {e}"))?;
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let result = match (format, output) {
        (LogFormat::Text, LogOutput::Stderr) => builder
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .try_init(),
        (LogFormat::Text, LogOutput::Stdout) => builder
            .with_writer(std::io::stdout)
            .with_ansi(false)
            .try_init(),
        (LogFormat::Json, LogOutput::Stderr) => builder
            .with_writer(std::io::stderr)
            .json()
            .flatten_event(true)
            .try_init(),
        (LogFormat::Json, LogOutput::Stdout) => builder
            .with_writer(std::io::stdout)
            .json()
            .flatten_event(true)
            .try_init(),
    };
    result.map_err(|e| anyhow::anyhow!("installing the logger: {e}"))
}
