//! The flags of `sidecar serve` as typed, each with its `SIDECAR_…`
//! environment twin and default (the first of the two stages).

#[allow(unused_imports)]
use super::*;

/// Memory for the bytes of the release's files by default, in MiB: the
/// sample site's 1.6 MiB, and at 10,000 pages the assets, discovery
/// documents and the first pages (decision 0023).
pub const FILES_MEMORY_MB: u64 = 16;

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on (IP:PORT; port 0 picks a free one, and the
    /// bound address is logged as `listening on http://…`).
    #[arg(long, env = "SIDECAR_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// Address of the admin listener, which alone answers `/metrics` (and
    /// `/healthz`, `/readyz` too); `off` for none. Default: 127.0.0.1:9090.
    /// Keep it off the public network. Port 0 picks a free one, logged as
    /// `admin listener on http://…`. When the default address is taken,
    /// the sidecar runs without it and says so; an address given here must
    /// bind.
    #[arg(long, env = "SIDECAR_ADMIN_LISTEN", value_name = "ADDR|off")]
    pub admin_listen: Option<String>,

    /// One `access` line per request at `info` (method, path, status,
    /// bytes, duration, client, request id); `false` turns it off.
    #[arg(long, env = "SIDECAR_ACCESS_LOG", default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub access_log: bool,

    /// The directory `generate build` wrote (with its manifest.json);
    /// usually a symlink to the current release's directory. A new release
    /// there is loaded beside the old one and swapped in (on SIGHUP, and
    /// when the manifest it resolves to changes).
    #[arg(long, env = "SIDECAR_DIST", default_value = "dist")]
    pub dist: PathBuf,

    /// How often to look for a new release at --dist, in milliseconds
    /// (0: only on SIGHUP).
    #[arg(long, env = "SIDECAR_DIST_POLL_MS", default_value_t = 1000)]
    pub dist_poll_ms: u64,

    /// Memory for the bytes of the release's files, in MiB: pages and
    /// search files beyond it are read from disk at each request (other
    /// files are always held).
    #[arg(long, env = "SIDECAR_FILES_MEMORY_MB", default_value_t = FILES_MEMORY_MB)]
    pub files_memory_mb: u64,

    /// Earlier releases whose hashed assets (`/assets/…`) stay served
    /// beside the current release's, for pages cached from them.
    #[arg(long, env = "SIDECAR_KEEP_RELEASES", default_value_t = 3)]
    pub keep_releases: usize,

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
    pub log_output: LogOutput,

    /// Log filter (tracing `EnvFilter` syntax). Request lines (target
    /// `access`), start, stop and faults at `info` and above.
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
    #[arg(long, env = "SIDECAR_MAX_BODY_BYTES", default_value_t = contract::routes::MAX_BODY_BYTES)]
    pub max_body_bytes: usize,

    /// Most bytes the live observation pages kept in memory may hold, their
    /// compressed twins counted (0: no page cache).
    #[arg(long, env = "SIDECAR_LIVE_CACHE_BYTES", default_value_t = 32 << 20)]
    pub live_cache_bytes: usize,

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

    /// Chat questions per client per rate window (429 past it).
    #[arg(long, env = "SIDECAR_CHAT_RATE_LIMIT", default_value_t = 120)]
    pub chat_rate_limit: u32,

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

    /// Days an enquiry is kept after it was mailed (one never delivered:
    /// after it was received), 1 to 3650. Default: the period the privacy
    /// page states (`enquiry_retention_days` of `dist/api/service.json`).
    #[arg(long, env = "SIDECAR_ENQUIRY_RETENTION_DAYS")]
    pub enquiry_retention_days: Option<u32>,

    /// The same period in seconds, overriding the days; for tests only.
    #[arg(long, hide = true)]
    pub enquiry_retention_s: Option<u64>,
}
