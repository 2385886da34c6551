//! Log setup: `tracing` lines on stderr, as text or JSON. Standard output
//! stays free for whatever a command prints as its result.

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Installs the global subscriber. `filter` uses `EnvFilter` syntax
/// (`info`, `sidecar=debug`, …).
pub fn init(format: LogFormat, filter: &str) -> anyhow::Result<()> {
    let filter =
        EnvFilter::try_new(filter).map_err(|e| anyhow::anyhow!("--log {filter:?}: {e}"))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let result = match format {
        LogFormat::Text => builder.with_ansi(false).try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
    result.map_err(|e| anyhow::anyhow!("installing the logger: {e}"))
}
