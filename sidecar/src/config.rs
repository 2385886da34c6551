//! Command line → validated [`Config`].
//!
//! Two stages, as ripgrep does it: [`ServeArgs`] is what the user typed
//! (flags with `SIDECAR_…` environment twins, parsed by clap), and
//! [`Config::from_args`] checks it and resolves what it means. Nothing deeper
//! in the crate reads the environment.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::http::proxy::Cidr;
use crate::store::SampleSize;

/// Serves the built site (`dist/`) and the live, MCP and contact routes of
/// the public-information service.
#[derive(Debug, Parser)]
#[command(name = "sidecar", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server until SIGTERM or SIGINT, then finish in-flight
    /// requests and exit 0.
    Serve(ServeArgs),
    /// Import an observation CSV export into the database, all or nothing:
    /// a bad row aborts the import with its line number and reason.
    Import(ImportArgs),
    /// Probe a running sidecar's `/healthz`: exit 0 when it answers 200,
    /// 1 otherwise (for container health checks; no shell or curl needed).
    Healthcheck(crate::healthcheck::HealthcheckArgs),
}

/// `sidecar import FILE`.
#[derive(Debug, Clone, Args)]
pub struct ImportArgs {
    /// The CSV file (columns documented in the README).
    pub file: PathBuf,

    /// Database URL (`sqlite:PATH` or `postgres://…`); default: the SQLite
    /// file in the data directory.
    #[arg(long, env = "SIDECAR_DATABASE")]
    pub database: Option<String>,

    /// Directory of the default SQLite database.
    #[arg(long, env = "SIDECAR_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,
}

/// Sample data to fill an empty database with at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SampleArg {
    /// Nothing: the database stays empty until an import.
    None,
    /// 400 sites in 8 countries, 40,000 observations over 4 years.
    Default,
    /// 1,000,000 observations, for benchmarks.
    Large,
}

impl SampleArg {
    pub fn size(self) -> SampleSize {
        match self {
            SampleArg::None => SampleSize::None,
            SampleArg::Default => SampleSize::Default,
            SampleArg::Large => SampleSize::Large,
        }
    }
}

/// Log line format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on (IP:PORT; port 0 picks a free one, and the
    /// bound address is logged as `listening on http://…`).
    #[arg(long, env = "SIDECAR_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// The directory `generate build` wrote (with its manifest.json).
    #[arg(long, env = "SIDECAR_DIST", default_value = "dist")]
    pub dist: PathBuf,

    /// Database URL (`sqlite:PATH` or `postgres://…`); default: the SQLite
    /// file `service.sqlite3` in the data directory, created on first start.
    #[arg(long, env = "SIDECAR_DATABASE")]
    pub database: Option<String>,

    /// Sample data for an empty database at start. Default: `default` for
    /// SQLite (so a local run shows live data at once), `none` for
    /// PostgreSQL (a shared production database is never filled with
    /// invented data unless asked).
    #[arg(long, env = "SIDECAR_SAMPLE", value_enum)]
    pub sample: Option<SampleArg>,

    /// Directory for the sidecar's own files (the default SQLite database).
    #[arg(long, env = "SIDECAR_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,

    /// A public origin of the site (`https://example.org`), repeatable
    /// (comma-separated in the environment). The first is the base of problem
    /// `type` URLs; all are accepted as `Origin` by the contact routes.
    /// Default: the listen address (plus `localhost` when on loopback).
    #[arg(
        long = "site-origin",
        env = "SIDECAR_SITE_ORIGIN",
        value_delimiter = ','
    )]
    pub site_origins: Vec<String>,

    /// A proxy (IP or CIDR) whose `X-Forwarded-For` entries are believed,
    /// repeatable (comma-separated in the environment).
    #[arg(
        long = "trusted-proxy",
        env = "SIDECAR_TRUSTED_PROXY",
        value_delimiter = ','
    )]
    pub trusted_proxies: Vec<Cidr>,

    /// Log line format.
    #[arg(long, env = "SIDECAR_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,

    /// Stream of the log lines (containers: `stdout`).
    #[arg(long, env = "SIDECAR_LOG_OUTPUT", value_enum, default_value = "stderr")]
    pub log_output: crate::logging::LogOutput,

    /// Log filter (tracing `EnvFilter` syntax). One line per request is
    /// logged at `debug`; start, stop and faults at `info` and above.
    #[arg(long, env = "SIDECAR_LOG", default_value = "info")]
    pub log: String,

    /// Connections served at once; past it, new connections get a 503
    /// problem with `Retry-After` and are closed.
    #[arg(long, env = "SIDECAR_MAX_CONNECTIONS", default_value_t = 1024)]
    pub max_connections: usize,

    /// Time a client has to send a request's headers, in milliseconds;
    /// slower connections are closed.
    #[arg(long, env = "SIDECAR_HEADER_READ_TIMEOUT_MS", default_value_t = 10_000)]
    pub header_read_timeout_ms: u64,

    /// Time a client has to send a request body, in milliseconds (408).
    #[arg(long, env = "SIDECAR_REQUEST_TIMEOUT_MS", default_value_t = 30_000)]
    pub request_timeout_ms: u64,

    /// Largest request body accepted, in bytes (413 past it).
    #[arg(long, env = "SIDECAR_MAX_BODY_BYTES", default_value_t = 64 * 1024)]
    pub max_body_bytes: usize,

    /// How long shutdown waits for in-flight requests, in milliseconds.
    #[arg(long, env = "SIDECAR_SHUTDOWN_TIMEOUT_MS", default_value_t = 30_000)]
    pub shutdown_timeout_ms: u64,

    /// Worker threads serving connections (0: one per CPU core).
    #[arg(long, env = "SIDECAR_WORKERS", default_value_t = 0)]
    pub workers: usize,

    #[command(flatten)]
    pub contact: Box<ContactArgs>,
}

/// The contact form: challenge, limits and mail delivery.
#[derive(Debug, Clone, Args)]
pub struct ContactArgs {
    /// Secret key signing the contact form's challenges (any string of 16
    /// or more bytes). Replicas sharing PostgreSQL need the same key.
    /// Default: `--contact-key-file`, else a random key generated once and
    /// kept in `DATA_DIR/contact-key`.
    #[arg(long, env = "SIDECAR_CONTACT_KEY", hide_env_values = true)]
    pub contact_key: Option<String>,

    /// File holding the challenge key (its content, trimmed).
    #[arg(long, env = "SIDECAR_CONTACT_KEY_FILE")]
    pub contact_key_file: Option<PathBuf>,

    /// PBKDF2 iterations per key derivation of a challenge.
    #[arg(long, env = "SIDECAR_CHALLENGE_COST", default_value_t = 5000)]
    pub challenge_cost: u32,

    /// Smallest secret counter of a challenge (the solver's least work).
    #[arg(long, env = "SIDECAR_CHALLENGE_COUNTER_MIN", default_value_t = 5000)]
    pub challenge_counter_min: u64,

    /// Largest secret counter of a challenge.
    #[arg(long, env = "SIDECAR_CHALLENGE_COUNTER_MAX", default_value_t = 10_000)]
    pub challenge_counter_max: u64,

    /// Seconds a challenge stays valid.
    #[arg(long, env = "SIDECAR_CHALLENGE_EXPIRY_S", default_value_t = 600)]
    pub challenge_expiry_s: u64,

    /// Least milliseconds between issuing a challenge and a submission
    /// using it (faster is refused as `submitted_too_fast`).
    #[arg(long, env = "SIDECAR_CONTACT_MIN_FILL_MS", default_value_t = 3000)]
    pub contact_min_fill_ms: u64,

    /// Submissions (every POST from the site origin, accepted or not) per
    /// client per rate window (429 past it).
    #[arg(long, env = "SIDECAR_CONTACT_RATE_LIMIT", default_value_t = 5)]
    pub contact_rate_limit: u32,

    /// Challenges issued per client per rate window (429 past it).
    #[arg(long, env = "SIDECAR_CHALLENGE_RATE_LIMIT", default_value_t = 30)]
    pub challenge_rate_limit: u32,

    /// Length of the contact rate-limit window, in seconds.
    #[arg(long, env = "SIDECAR_CONTACT_RATE_WINDOW_S", default_value_t = 600)]
    pub contact_rate_window_s: u64,

    /// SMTP server enquiries are sent through (lettre URL:
    /// `smtp://host:port` plain, `smtp://user:pass@host:587?tls=required`
    /// STARTTLS, `smtps://user:pass@host:465`). Without it, enquiries are
    /// stored and wait in the outbox.
    #[arg(long, env = "SIDECAR_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,

    /// Address enquiries are sent to. Default: the contact email of the
    /// built service information (`dist/api/service.json`).
    #[arg(long, env = "SIDECAR_CONTACT_TO")]
    pub contact_to: Option<String>,

    /// Sender address of enquiry mails. Default: the `--contact-to` address.
    #[arg(long, env = "SIDECAR_CONTACT_FROM")]
    pub contact_from: Option<String>,

    /// Limit of one SMTP exchange, in milliseconds.
    #[arg(long, env = "SIDECAR_SMTP_TIMEOUT_MS", default_value_t = 30_000)]
    pub smtp_timeout_ms: u64,

    /// How long a sending replica holds an outbox row, in milliseconds;
    /// a row whose holder died is sent by another after this.
    #[arg(long, env = "SIDECAR_OUTBOX_LEASE_MS", default_value_t = 120_000)]
    pub outbox_lease_ms: u64,

    /// Wait between outbox polls when nothing is due, in milliseconds.
    #[arg(long, env = "SIDECAR_OUTBOX_POLL_MS", default_value_t = 1000)]
    pub outbox_poll_ms: u64,

    /// First retry delay after a temporary SMTP failure, in milliseconds
    /// (doubled per attempt, with jitter).
    #[arg(long, env = "SIDECAR_SMTP_RETRY_BASE_MS", default_value_t = 5000)]
    pub smtp_retry_base_ms: u64,

    /// Longest retry delay, in milliseconds.
    #[arg(long, env = "SIDECAR_SMTP_RETRY_MAX_MS", default_value_t = 3_600_000)]
    pub smtp_retry_max_ms: u64,
}

/// Everything the server needs, validated.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub dist: PathBuf,
    pub database: Option<String>,
    pub data_dir: PathBuf,
    pub sample: SampleSize,
    /// Serialised origins (`scheme://host[:port]`, lower case, no slash).
    pub site_origins: Vec<String>,
    pub trusted_proxies: Vec<Cidr>,
    pub log_format: LogFormat,
    pub log_output: crate::logging::LogOutput,
    pub log: String,
    pub max_connections: usize,
    pub header_read_timeout: Duration,
    pub request_timeout: Duration,
    pub max_body_bytes: usize,
    pub shutdown_timeout: Duration,
    /// 0 means one per CPU core.
    pub workers: usize,
    /// The contact form's settings, checked.
    pub contact: ContactArgs,
}

/// A flag value that parses but makes no sense.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Upper bound for `--max-body-bytes`: bodies are held in memory.
const MAX_BODY_CEILING: usize = 16 * 1024 * 1024;

impl Config {
    pub fn from_args(args: ServeArgs) -> Result<Config, ConfigError> {
        let err = |msg: String| Err(ConfigError(msg));
        if args.max_connections == 0 {
            return err("--max-connections must be at least 1".into());
        }
        for (flag, ms) in [
            ("--header-read-timeout-ms", args.header_read_timeout_ms),
            ("--request-timeout-ms", args.request_timeout_ms),
            ("--shutdown-timeout-ms", args.shutdown_timeout_ms),
        ] {
            if ms == 0 || ms > 3_600_000 {
                return err(format!("{flag} must be between 1 and 3600000, not {ms}"));
            }
        }
        if args.workers > 1024 {
            return err(format!(
                "--workers must be at most 1024, not {}",
                args.workers
            ));
        }
        if args.max_body_bytes == 0 || args.max_body_bytes > MAX_BODY_CEILING {
            return err(format!(
                "--max-body-bytes must be between 1 and {MAX_BODY_CEILING}, not {}",
                args.max_body_bytes
            ));
        }
        if args.dist.as_os_str().is_empty() {
            return err("--dist must not be empty".into());
        }
        if let Some(url) = &args.database
            && !(url.starts_with("sqlite:")
                || url.starts_with("postgres://")
                || url.starts_with("postgresql://"))
        {
            return err(format!(
                "--database must be a sqlite: or postgres:// URL, not {url:?}"
            ));
        }
        check_contact(&args.contact).map_err(ConfigError)?;
        let mut site_origins = Vec::new();
        for raw in &args.site_origins {
            let origin = parse_origin(raw).map_err(ConfigError)?;
            if !site_origins.contains(&origin) {
                site_origins.push(origin);
            }
        }
        Ok(Config {
            listen: args.listen,
            dist: args.dist,
            sample: args.sample.map_or_else(
                || match &args.database {
                    Some(url) if url.starts_with("postgres") => SampleSize::None,
                    _ => SampleSize::Default,
                },
                SampleArg::size,
            ),
            database: args.database,
            data_dir: args.data_dir,
            site_origins,
            trusted_proxies: args.trusted_proxies,
            log_format: args.log_format,
            log_output: args.log_output,
            log: args.log,
            max_connections: args.max_connections,
            header_read_timeout: Duration::from_millis(args.header_read_timeout_ms),
            request_timeout: Duration::from_millis(args.request_timeout_ms),
            max_body_bytes: args.max_body_bytes,
            shutdown_timeout: Duration::from_millis(args.shutdown_timeout_ms),
            workers: args.workers,
            contact: *args.contact,
        })
    }

    /// The configuration `sidecar serve` has with no flags, for `dist`.
    pub fn defaults(dist: impl Into<PathBuf>) -> Config {
        let cli = Cli::parse_from(["sidecar", "serve"]);
        let Command::Serve(mut args) = cli.command else {
            unreachable!("parsed `serve`")
        };
        args.dist = dist.into();
        Config::from_args(args).expect("the defaults are valid")
    }
}

fn check_contact(c: &ContactArgs) -> Result<(), String> {
    if c.challenge_cost == 0 || c.challenge_cost > 1_000_000 {
        return Err(format!(
            "--challenge-cost must be between 1 and 1000000, not {}",
            c.challenge_cost
        ));
    }
    if c.challenge_counter_min > c.challenge_counter_max
        || c.challenge_counter_max > u64::from(u32::MAX)
    {
        return Err(
            "--challenge-counter-min must not exceed --challenge-counter-max (at most 4294967295)"
                .into(),
        );
    }
    if c.challenge_expiry_s == 0 || c.contact_rate_window_s == 0 {
        return Err("--challenge-expiry-s and --contact-rate-window-s must be at least 1".into());
    }
    if c.contact_min_fill_ms / 1000 >= c.challenge_expiry_s {
        return Err("--contact-min-fill-ms must be shorter than --challenge-expiry-s".into());
    }
    if let Some(key) = &c.contact_key
        && key.len() < 16
    {
        return Err("--contact-key must be at least 16 bytes".into());
    }
    if c.smtp_timeout_ms == 0 || c.outbox_poll_ms == 0 || c.smtp_retry_base_ms == 0 {
        return Err(
            "--smtp-timeout-ms, --outbox-poll-ms and --smtp-retry-base-ms must be at least 1"
                .into(),
        );
    }
    if c.outbox_lease_ms <= c.smtp_timeout_ms {
        return Err("--outbox-lease-ms must be longer than --smtp-timeout-ms".into());
    }
    if c.smtp_retry_max_ms < c.smtp_retry_base_ms {
        return Err("--smtp-retry-max-ms must be at least --smtp-retry-base-ms".into());
    }
    for (flag, addr) in [
        ("--contact-to", &c.contact_to),
        ("--contact-from", &c.contact_from),
    ] {
        if let Some(a) = addr
            && a.parse::<lettre::message::Mailbox>().is_err()
        {
            return Err(format!("{flag} {a:?} is not an email address"));
        }
    }
    Ok(())
}

/// Checks and serialises an origin the way browsers send it in `Origin`:
/// lower-case scheme and host, no default port, no path.
fn parse_origin(raw: &str) -> Result<String, String> {
    let bad = |why: &str| Err(format!("--site-origin {raw:?}: {why}"));
    let trimmed = raw.trim().trim_end_matches('/');
    let Some((scheme, rest)) = trimmed.split_once("://") else {
        return bad("expected scheme://host[:port]");
    };
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return bad("the scheme must be http or https");
    }
    if rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ', '\\']) {
        return bad("expected only a host and an optional port, no path, query or user");
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(':') && !p.contains(']') => (h, Some(p)),
        _ => (rest, None),
    };
    if host.is_empty()
        || !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.[]:".contains(&b))
    {
        return bad("the host is not a valid DNS name or IP literal");
    }
    let host = host.to_ascii_lowercase();
    match port {
        None => Ok(format!("{scheme}://{host}")),
        Some(p) => {
            let port: u16 = p
                .parse()
                .map_err(|_| format!("--site-origin {raw:?}: bad port"))?;
            let default = if scheme == "http" { 80 } else { 443 };
            if port == default {
                Ok(format!("{scheme}://{host}"))
            } else {
                Ok(format!("{scheme}://{host}:{port}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Config, String> {
        let mut argv = vec!["sidecar", "serve"];
        argv.extend_from_slice(args);
        let cli = Cli::try_parse_from(argv).map_err(|e| e.to_string())?;
        let Command::Serve(args) = cli.command else {
            panic!("parsed `serve`")
        };
        Config::from_args(args).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_match_the_architecture_table() {
        let c = parse(&[]).unwrap();
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(c.dist, PathBuf::from("dist"));
        assert_eq!(c.data_dir, PathBuf::from("data"));
        assert!(c.site_origins.is_empty());
        assert_eq!(c.log_format, LogFormat::Text);
        assert_eq!(c.max_body_bytes, 65536);
    }

    #[test]
    fn origins_are_normalised() {
        let c = parse(&[
            "--site-origin",
            "HTTPS://Example.org/",
            "--site-origin",
            "http://localhost:8080",
            "--site-origin",
            "https://example.org:443",
            "--site-origin",
            "http://[::1]:9000",
        ])
        .unwrap();
        assert_eq!(
            c.site_origins,
            [
                "https://example.org",
                "http://localhost:8080",
                "http://[::1]:9000"
            ]
        );
        for bad in [
            "example.org",
            "ftp://x",
            "https://x/path",
            "https://u@x",
            "https://x:99999",
            "https://",
        ] {
            assert!(parse(&["--site-origin", bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn limits_are_checked() {
        assert!(parse(&["--max-connections", "0"]).is_err());
        assert!(parse(&["--request-timeout-ms", "0"]).is_err());
        assert!(parse(&["--max-body-bytes", "0"]).is_err());
        assert!(parse(&["--trusted-proxy", "10.0.0.0/99"]).is_err());
        assert!(parse(&["--database", "mysql://x"]).is_err());
        assert!(
            parse(&[
                "--challenge-counter-min",
                "9",
                "--challenge-counter-max",
                "8"
            ])
            .is_err()
        );
        assert!(parse(&["--contact-key", "short"]).is_err());
        assert!(parse(&["--contact-to", "not an address"]).is_err());
        assert!(parse(&["--outbox-lease-ms", "1000", "--smtp-timeout-ms", "2000"]).is_err());
        let c = parse(&["--trusted-proxy", "10.0.0.0/8", "--log-format", "json"]).unwrap();
        assert_eq!(c.contact.challenge_cost, 5000);
        assert_eq!(c.contact.contact_rate_limit, 5);
        assert_eq!(c.trusted_proxies.len(), 1);
        assert_eq!(c.log_format, LogFormat::Json);
    }
}
