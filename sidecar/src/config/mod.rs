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

mod args;
mod check;
mod export;
pub use args::*;
pub(crate) use check::parse_origin;
use check::*;
pub use export::ExportArgs;

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
    Serve(Box<ServeArgs>),
    /// Import an observation CSV export into the database, all or nothing:
    /// a bad row aborts the import with its line number and reason.
    Import(ImportArgs),
    /// Apply pending schema migrations, or with --check only report them
    /// (exit 0: up to date, 3: migrations pending).
    Migrate(MigrateArgs),
    /// Probe a running sidecar's `/healthz`: exit 0 when it answers 200,
    /// 1 otherwise (for container health checks; no shell or curl needed).
    Healthcheck(crate::healthcheck::HealthcheckArgs),
    /// Copy the SQLite database, while the sidecar runs, to a file that
    /// `sidecar restore` reads back (PostgreSQL: use `pg_dump`; see
    /// docs/operating.md).
    Backup(BackupArgs),
    /// Restore a `sidecar backup` file as the SQLite database, which must
    /// not exist yet (stop the sidecar and move the old file away first).
    Restore(RestoreArgs),
    /// Write a citable snapshot of the public observations and sites (CSV,
    /// GeoJSON, Data Package, README, licence, DataCite and CFF metadata,
    /// SHA-256 sums) to `DIR/VERSION/`, for `generate build --snapshots`.
    #[command(disable_version_flag = true)]
    Export(ExportArgs),
    /// List, show, export or delete stored enquiries, to answer a person's
    /// request for access to or erasure of their data.
    Enquiries(EnquiriesArgs),
}

/// The database a maintenance command works on.
#[derive(Debug, Clone, Args)]
pub struct DatabaseArgs {
    /// Database URL (`sqlite:PATH` or `postgres://…`); default: the SQLite
    /// file in the data directory.
    #[arg(long, env = "SIDECAR_DATABASE")]
    pub database: Option<String>,

    /// Directory of the default SQLite database.
    #[arg(long, env = "SIDECAR_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,
}

/// `sidecar backup --to FILE`.
#[derive(Debug, Clone, Args)]
pub struct BackupArgs {
    /// The backup file to write (replaced whole, and only once the new copy
    /// is complete and checked).
    #[arg(long)]
    pub to: PathBuf,

    #[command(flatten)]
    pub db: DatabaseArgs,
}

/// `sidecar restore --from FILE`.
#[derive(Debug, Clone, Args)]
pub struct RestoreArgs {
    /// The file `sidecar backup` wrote.
    #[arg(long)]
    pub from: PathBuf,

    #[command(flatten)]
    pub db: DatabaseArgs,
}

/// `sidecar enquiries ACTION`.
#[derive(Debug, Clone, Args)]
pub struct EnquiriesArgs {
    #[command(subcommand)]
    pub action: EnquiriesAction,

    /// Database URL (`sqlite:PATH` or `postgres://…`); default: the SQLite
    /// file in the data directory.
    #[arg(long, env = "SIDECAR_DATABASE", global = true)]
    pub database: Option<String>,

    /// Directory of the default SQLite database.
    #[arg(long, env = "SIDECAR_DATA_DIR", default_value = "data", global = true)]
    pub data_dir: PathBuf,
}

#[derive(Debug, Clone, Subcommand)]
pub enum EnquiriesAction {
    /// One line per enquiry (reference, received, delivery, address),
    /// oldest first.
    List {
        /// Only those sent from this address (any letter case).
        #[arg(long)]
        email: Option<String>,
    },
    /// Every stored field of one enquiry.
    Show {
        /// The reference, `ENQ-…`.
        reference: String,
    },
    /// All enquiries sent from an address, every stored field, as JSON on
    /// stdout (an answer to a request of access).
    Export {
        #[arg(long)]
        email: String,
    },
    /// Deletes enquiries and their outbox rows for good, and prints how
    /// many (an answer to a request of erasure).
    #[command(group(clap::ArgGroup::new("which").required(true)))]
    Delete {
        #[arg(long, group = "which")]
        reference: Option<String>,
        /// Every enquiry sent from this address (any letter case).
        #[arg(long, group = "which")]
        email: Option<String>,
    },
}

/// `sidecar import FILE`.
#[derive(Debug, Clone, Args)]
pub struct ImportArgs {
    /// The CSV file (columns documented in docs/operating.md).
    pub file: PathBuf,

    /// What the file holds.
    #[arg(long, value_enum, default_value = "observations")]
    pub kind: ImportKind,

    /// Database URL (`sqlite:PATH` or `postgres://…`); default: the SQLite
    /// file in the data directory.
    #[arg(long, env = "SIDECAR_DATABASE")]
    pub database: Option<String>,

    /// Directory of the default SQLite database.
    #[arg(long, env = "SIDECAR_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,
}

/// The kinds of CSV export `sidecar import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImportKind {
    /// Observations, with optional corrections (withdraw, replace).
    Observations,
    /// Classifications from a classification platform's export.
    Classifications,
}

/// `sidecar migrate [--check]`.
#[derive(Debug, Clone, Args)]
pub struct MigrateArgs {
    /// Only print the schema version and the pending migrations; change
    /// nothing. Exit 0 when none are pending, 3 when some are.
    #[arg(long)]
    pub check: bool,

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
    /// 400 sites in 8 countries, 40,000 Water Watch observations up to
    /// June 2024, 8,000 Riverlens classifications up to today.
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

/// The stream log lines go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogOutput {
    Stderr,
    Stdout,
}

/// The setting a startup failure is about, attached to an error as
/// `anyhow` context (`.context(Setting::DIST)`) and found again with
/// `downcast_ref` however deep it sits in the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    pub env: &'static str,
    pub flag: &'static str,
}

impl Setting {
    pub const LISTEN: Setting = Setting {
        env: "SIDECAR_LISTEN",
        flag: "--listen",
    };
    pub const ADMIN_LISTEN: Setting = Setting {
        env: "SIDECAR_ADMIN_LISTEN",
        flag: "--admin-listen",
    };
    pub const DIST: Setting = Setting {
        env: "SIDECAR_DIST",
        flag: "--dist",
    };
    pub const DATABASE: Setting = Setting {
        env: "SIDECAR_DATABASE",
        flag: "--database",
    };
    pub const DATA_DIR: Setting = Setting {
        env: "SIDECAR_DATA_DIR",
        flag: "--data-dir",
    };
}

impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.env, self.flag)
    }
}

/// The admin listener's address as configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdminListen {
    /// None (`off`).
    Off,
    /// The default: used when free, skipped with a warning when taken (a
    /// second sidecar on the same machine still starts).
    Default(SocketAddr),
    /// Given by the operator: must bind.
    Given(SocketAddr),
}

/// The admin listener's address when none is given.
pub const ADMIN_LISTEN: &str = "127.0.0.1:9090";

impl AdminListen {
    fn parse(raw: Option<&str>) -> Result<AdminListen, String> {
        match raw.map(str::trim) {
            None => Ok(AdminListen::Default(
                ADMIN_LISTEN.parse().expect("a valid address"),
            )),
            Some("off") => Ok(AdminListen::Off),
            Some(addr) => addr
                .parse()
                .map(AdminListen::Given)
                .map_err(|_| format!("--admin-listen must be IP:PORT or off, not {addr:?}")),
        }
    }
}

/// Everything the server needs, validated.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub admin_listen: AdminListen,
    /// One `access` log line per request.
    pub access_log: bool,
    pub dist: PathBuf,
    /// How often to look for a new release; `None`: only on SIGHUP.
    pub dist_poll: Option<Duration>,
    /// Earlier releases whose hashed assets stay served.
    pub keep_releases: usize,
    /// Bytes of files held in memory (see `Files::load`).
    pub files_memory: u64,
    pub database: Option<String>,
    pub data_dir: PathBuf,
    pub sample: SampleSize,
    /// Serialised origins (`scheme://host[:port]`, lower case, no slash).
    pub site_origins: Vec<String>,
    pub trusted_proxies: Vec<Cidr>,
    pub log_format: LogFormat,
    pub log_output: LogOutput,
    pub log: String,
    pub max_connections: usize,
    pub header_read_timeout: Duration,
    pub request_timeout: Duration,
    pub max_body_bytes: usize,
    pub live_cache_bytes: usize,
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
        let admin_listen = AdminListen::parse(args.admin_listen.as_deref()).map_err(ConfigError)?;
        if let AdminListen::Given(addr) = admin_listen
            && addr == args.listen
            && addr.port() != 0
        {
            return err(format!("--admin-listen must differ from --listen ({addr})"));
        }
        Ok(Config {
            listen: args.listen,
            admin_listen,
            access_log: args.access_log,
            dist: args.dist,
            dist_poll: (args.dist_poll_ms > 0).then(|| Duration::from_millis(args.dist_poll_ms)),
            keep_releases: args.keep_releases,
            files_memory: args.files_memory_mb.saturating_mul(1 << 20),
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
            live_cache_bytes: args.live_cache_bytes,
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
        Config::from_args(*args).expect("the defaults are valid")
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
        Config::from_args(*args).map_err(|e| e.to_string())
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
        assert_eq!(c.live_cache_bytes, 32 << 20);
        assert_eq!(
            c.admin_listen,
            AdminListen::Default("127.0.0.1:9090".parse().unwrap())
        );
        assert!(c.access_log);
    }

    #[test]
    fn admin_listener_and_access_log() {
        assert_eq!(
            parse(&["--admin-listen", "off"]).unwrap().admin_listen,
            AdminListen::Off
        );
        assert_eq!(
            parse(&["--admin-listen", "0.0.0.0:9100"])
                .unwrap()
                .admin_listen,
            AdminListen::Given("0.0.0.0:9100".parse().unwrap())
        );
        assert!(parse(&["--admin-listen", "nine"]).is_err());
        assert!(parse(&["--admin-listen", "127.0.0.1:8080"]).is_err());
        let both_free = ["--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"];
        assert!(parse(&both_free).is_ok());
        assert!(!parse(&["--access-log", "false"]).unwrap().access_log);
        assert!(parse(&["--access-log", "maybe"]).is_err());
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
        assert!(parse(&["--enquiry-retention-days", "0"]).is_err());
        assert!(parse(&["--enquiry-retention-days", "3651"]).is_err());
        assert!(parse(&["--enquiry-retention-s", "0"]).is_err());
        let c = parse(&["--enquiry-retention-days", "30"]).unwrap();
        assert_eq!(c.contact.enquiry_retention_days, Some(30));
        let c = parse(&["--trusted-proxy", "10.0.0.0/8", "--log-format", "json"]).unwrap();
        assert_eq!(c.contact.challenge_cost, 5000);
        assert_eq!(c.contact.contact_rate_limit, 5);
        assert_eq!(c.trusted_proxies.len(), 1);
        assert_eq!(c.log_format, LogFormat::Json);
    }
}
