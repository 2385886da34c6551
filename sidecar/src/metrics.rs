//! Prometheus metrics, written as text by hand (the format is a few lines;
//! a client library would be the largest dependency of the crate).
//!
//! Labels are bounded by construction: a route label comes from the fixed
//! [`Route`] list (every static file is `static`, every unknown path
//! `unmatched`), and statuses outside a fixed list are counted as `other`.
//! Counters are relaxed atomics in fixed arrays: recording a request takes no
//! lock and allocates nothing.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use contract::Endpoint;

use crate::contact::failures::{Failure, SendFailures};
use crate::store::outbox_stats::OutboxStats;

/// The route label of a request: a sidecar route of the contract, or one
/// of three fixed classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    Static,
    Unmatched,
    Overload,
    Endpoint(Endpoint),
}

const CLASSES: usize = 3;
const ROUTES: usize = CLASSES + Endpoint::ALL.len();

impl Route {
    fn all() -> impl Iterator<Item = Route> {
        [Route::Static, Route::Unmatched, Route::Overload]
            .into_iter()
            .chain(Endpoint::ALL.into_iter().map(Route::Endpoint))
    }

    fn index(self) -> usize {
        match self {
            Route::Static => 0,
            Route::Unmatched => 1,
            Route::Overload => 2,
            Route::Endpoint(e) => CLASSES + e as usize,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Route::Static => "static",
            Route::Unmatched => "unmatched",
            Route::Overload => "overload",
            Route::Endpoint(e) => e.path(),
        }
    }
}

const STATUSES: [u16; 16] = [
    200, 204, 206, 304, 308, 400, 403, 404, 405, 408, 413, 415, 416, 429, 500, 503,
];
/// Upper bounds of the latency buckets, in microseconds.
const BUCKETS_US: [u64; 14] = [
    100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
    1_000_000, 5_000_000,
];

#[derive(Default)]
struct RouteStats {
    /// One per known status, plus `other` last.
    by_status: [AtomicU64; STATUSES.len() + 1],
    /// Non-cumulative; the `+Inf` bucket last.
    buckets: [AtomicU64; BUCKETS_US.len() + 1],
    sum_us: AtomicU64,
}

/// The process's counters.
#[derive(Default)]
pub struct Metrics {
    routes: [RouteStats; ROUTES],
    open_connections: AtomicI64,
    connections_total: AtomicU64,
    connections_rejected: AtomicU64,
    /// The chat's questions, answers with a match and hand-offs.
    pub chat: std::sync::Arc<crate::chat::Counters>,
    /// The outbox's failed sends, by kind.
    pub send_failures: std::sync::Arc<SendFailures>,
}

/// What a scrape reads besides the counters: the release served, and the
/// database's view (absent without a database, or when it did not answer).
#[derive(Debug, Clone, Copy)]
pub struct Scrape<'a> {
    pub release: &'a str,
    pub site_files: usize,
    pub site_bytes: u64,
    pub outbox: Option<OutboxStats>,
    pub database_errors: Option<u64>,
    /// Request log lines dropped because the log's stream did not take
    /// them (absent with the request log off).
    pub access_log_dropped: Option<u64>,
    /// Now, in Unix milliseconds (the age of the oldest enquiry).
    pub now_ms: i64,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    pub fn record(&self, route: Route, status: u16, elapsed: Duration) {
        let stats = &self.routes[route.index()];
        let s = STATUSES
            .iter()
            .position(|s| *s == status)
            .unwrap_or(STATUSES.len());
        stats.by_status[s].fetch_add(1, Relaxed);
        let us = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        let b = BUCKETS_US
            .iter()
            .position(|le| us <= *le)
            .unwrap_or(BUCKETS_US.len());
        stats.buckets[b].fetch_add(1, Relaxed);
        stats.sum_us.fetch_add(us, Relaxed);
    }

    pub fn connection_opened(&self) {
        self.open_connections.fetch_add(1, Relaxed);
        self.connections_total.fetch_add(1, Relaxed);
    }

    pub fn connection_closed(&self) {
        self.open_connections.fetch_sub(1, Relaxed);
    }

    pub fn connection_rejected(&self) {
        self.connections_rejected.fetch_add(1, Relaxed);
    }

    pub fn open_connections(&self) -> i64 {
        self.open_connections.load(Relaxed)
    }

    /// Requests answered for `route` with `status` so far.
    pub fn requests(&self, route: Route, status: u16) -> u64 {
        let s = STATUSES
            .iter()
            .position(|s| *s == status)
            .unwrap_or(STATUSES.len());
        self.routes[route.index()].by_status[s].load(Relaxed)
    }

    /// The Prometheus text exposition (format 0.0.4).
    pub fn render(&self, scrape: &Scrape<'_>) -> String {
        let (site_files, site_bytes) = (scrape.site_files, scrape.site_bytes);
        let mut out = String::with_capacity(4096);
        out.push_str(
            "# HELP sidecar_http_requests_total HTTP requests answered, by route and status.\n\
             # TYPE sidecar_http_requests_total counter\n",
        );
        for route in Route::all() {
            let stats = &self.routes[route.index()];
            for (i, counter) in stats.by_status.iter().enumerate() {
                let n = counter.load(Relaxed);
                if n > 0 {
                    let status = STATUSES
                        .get(i)
                        .map_or_else(|| "other".to_owned(), u16::to_string);
                    let _ = writeln!(
                        out,
                        "sidecar_http_requests_total{{route=\"{}\",status=\"{status}\"}} {n}",
                        route.label()
                    );
                }
            }
        }
        out.push_str(
            "# HELP sidecar_http_request_duration_seconds Time from request head to response head.\n\
             # TYPE sidecar_http_request_duration_seconds histogram\n",
        );
        for route in Route::all() {
            let stats = &self.routes[route.index()];
            let counts: Vec<u64> = stats.buckets.iter().map(|b| b.load(Relaxed)).collect();
            let total: u64 = counts.iter().sum();
            if total == 0 {
                continue;
            }
            let label = route.label();
            let mut cumulative = 0;
            for (i, n) in counts.iter().enumerate() {
                cumulative += n;
                let le = BUCKETS_US
                    .get(i)
                    .map_or_else(|| "+Inf".to_owned(), |us| seconds(*us));
                let _ = writeln!(
                    out,
                    "sidecar_http_request_duration_seconds_bucket{{route=\"{label}\",le=\"{le}\"}} {cumulative}"
                );
            }
            let sum = seconds(stats.sum_us.load(Relaxed));
            let _ = writeln!(
                out,
                "sidecar_http_request_duration_seconds_sum{{route=\"{label}\"}} {sum}"
            );
            let _ = writeln!(
                out,
                "sidecar_http_request_duration_seconds_count{{route=\"{label}\"}} {total}"
            );
        }
        let gauges: [(&str, &str, &str, String); 8] = [
            (
                "sidecar_open_connections",
                "gauge",
                "Connections open now.",
                self.open_connections().to_string(),
            ),
            (
                "sidecar_connections_total",
                "counter",
                "Connections accepted.",
                self.connections_total.load(Relaxed).to_string(),
            ),
            (
                "sidecar_connections_rejected_total",
                "counter",
                "Connections refused past the connection limit.",
                self.connections_rejected.load(Relaxed).to_string(),
            ),
            (
                "sidecar_static_files",
                "gauge",
                "Files of dist/ held in memory.",
                site_files.to_string(),
            ),
            (
                "sidecar_static_bytes",
                "gauge",
                "Bytes of dist/ held in memory, precompressed twins included.",
                site_bytes.to_string(),
            ),
            (
                "sidecar_chat_questions_total",
                "counter",
                "Chat questions answered (valid requests).",
                self.chat.questions.load(Relaxed).to_string(),
            ),
            (
                "sidecar_chat_answered_total",
                "counter",
                "Chat questions answered from published passages or live figures.",
                self.chat.answered.load(Relaxed).to_string(),
            ),
            (
                "sidecar_chat_handoffs_total",
                "counter",
                "Chat answers that suggested the contact form.",
                self.chat.handoffs.load(Relaxed).to_string(),
            ),
        ];
        for (name, kind, help, value) in gauges {
            metric(&mut out, name, kind, help, &value);
        }
        self.render_operations(&mut out, scrape);
        out
    }

    /// The release, the outbox and the database.
    fn render_operations(&self, out: &mut String, scrape: &Scrape<'_>) {
        // A release id is a hex digest: nothing in it needs escaping.
        let release = format!("{{release=\"{}\"}} 1", scrape.release);
        metric(
            out,
            "sidecar_release_info",
            "gauge",
            "The release being served (its id as a label).",
            &release,
        );
        out.push_str(
            "# HELP sidecar_outbox_send_failures_total Failed mail sends of the outbox, by kind.\n\
             # TYPE sidecar_outbox_send_failures_total counter\n",
        );
        for kind in Failure::ALL {
            let _ = writeln!(
                out,
                "sidecar_outbox_send_failures_total{{kind=\"{}\"}} {}",
                kind.label(),
                self.send_failures.get(kind)
            );
        }
        if let Some(outbox) = scrape.outbox {
            let age = outbox
                .oldest_pending_at
                .map_or(0, |at| (scrape.now_ms - at).max(0));
            metric(
                out,
                "sidecar_outbox_pending",
                "gauge",
                "Enquiries whose mail is not sent yet (every replica's).",
                &outbox.pending.to_string(),
            );
            metric(
                out,
                "sidecar_outbox_parked",
                "gauge",
                "Enquiries whose mail failed for good and waits for a person.",
                &outbox.parked.to_string(),
            );
            metric(
                out,
                "sidecar_outbox_oldest_pending_age_seconds",
                "gauge",
                "Age of the oldest enquiry not sent yet (0 when none waits).",
                &seconds(age as u64 * 1000),
            );
        }
        if let Some(errors) = scrape.database_errors {
            metric(
                out,
                "sidecar_database_errors_total",
                "counter",
                "Database operations that failed.",
                &errors.to_string(),
            );
        }
        if let Some(dropped) = scrape.access_log_dropped {
            metric(
                out,
                "sidecar_access_log_dropped_lines_total",
                "counter",
                "Request log lines dropped because the log's stream did not take them.",
                &dropped.to_string(),
            );
        }
    }
}

/// One metric without labels (or with `value` starting with its labels).
fn metric(out: &mut String, name: &str, kind: &str, help: &str, value: &str) {
    let sep = if value.starts_with('{') { "" } else { " " };
    let _ = write!(
        out,
        "# HELP {name} {help}\n# TYPE {name} {kind}\n{name}{sep}{value}\n"
    );
}

/// Microseconds as decimal seconds, exactly (no float rounding).
fn seconds(us: u64) -> String {
    let frac = us % 1_000_000;
    if frac == 0 {
        format!("{}", us / 1_000_000)
    } else {
        let s = format!("{}.{frac:06}", us / 1_000_000);
        s.trim_end_matches('0').to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_counts_and_histogram() {
        let m = Metrics::default();
        m.record(Route::Static, 200, Duration::from_micros(80));
        m.record(Route::Static, 200, Duration::from_micros(3000));
        m.record(Route::Static, 418, Duration::from_secs(10));
        m.connection_opened();
        m.send_failures.count(Failure::Connect);
        m.send_failures.count(Failure::Connect);
        let scrape = Scrape {
            release: "abc123",
            site_files: 3,
            site_bytes: 1234,
            outbox: Some(OutboxStats {
                pending: 4,
                parked: 1,
                oldest_pending_at: Some(10_000),
            }),
            database_errors: Some(7),
            access_log_dropped: Some(3),
            now_ms: 100_000,
        };
        let text = m.render(&scrape);
        for line in [
            "sidecar_release_info{release=\"abc123\"} 1\n",
            "sidecar_outbox_send_failures_total{kind=\"connect\"} 2\n",
            "sidecar_outbox_send_failures_total{kind=\"timeout\"} 0\n",
            "sidecar_outbox_pending 4\n",
            "sidecar_outbox_parked 1\n",
            "sidecar_outbox_oldest_pending_age_seconds 90\n",
            "sidecar_database_errors_total 7\n",
            "sidecar_access_log_dropped_lines_total 3\n",
        ] {
            assert!(text.contains(line), "{line} in\n{text}");
        }
        let without = m.render(&Scrape {
            outbox: None,
            database_errors: None,
            ..scrape
        });
        assert!(!without.contains("sidecar_outbox_pending"));
        assert!(!without.contains("sidecar_database_errors_total"));
        assert!(text.contains("sidecar_http_requests_total{route=\"static\",status=\"200\"} 2\n"));
        assert!(
            text.contains("sidecar_http_requests_total{route=\"static\",status=\"other\"} 1\n")
        );
        assert!(text.contains(
            "sidecar_http_request_duration_seconds_bucket{route=\"static\",le=\"0.0001\"} 1\n"
        ));
        assert!(text.contains(
            "sidecar_http_request_duration_seconds_bucket{route=\"static\",le=\"0.005\"} 2\n"
        ));
        assert!(text.contains(
            "sidecar_http_request_duration_seconds_bucket{route=\"static\",le=\"+Inf\"} 3\n"
        ));
        assert!(text.contains("sidecar_http_request_duration_seconds_count{route=\"static\"} 3\n"));
        assert!(
            text.contains("sidecar_http_request_duration_seconds_sum{route=\"static\"} 10.00308\n")
        );
        assert!(text.contains("sidecar_open_connections 1\n"));
        assert!(
            !text.contains("/healthz"),
            "routes without requests are left out"
        );
        assert_eq!(m.requests(Route::Static, 200), 2);
    }

    #[test]
    fn seconds_are_exact() {
        assert_eq!(seconds(100), "0.0001");
        assert_eq!(seconds(2_500_000), "2.5");
        assert_eq!(seconds(5_000_000), "5");
    }
}
