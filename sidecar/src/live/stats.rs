//! `GET /api/platform-stats.php` and the small cache it shares with the
//! globe route.
//!
//! Statistics (see [`PlatformStats`]) are computed from the database at most
//! once per `stats_max_age` (60 s by default) per process: one request
//! refreshes while concurrent ones keep getting the previous value. When the
//! database cannot be read, the last good value is served with
//! `stale: true` (and `Cache-Control: no-cache`); with no good value yet the
//! answer is a 503 problem with `Retry-After`.
//!
//! Counted: registered volunteers; public observations; public sites;
//! countries with a public site; classifications; projects that collect
//! classifications; all projects; public observations of the last 30 days;
//! time of the newest public observation; and, per month, public
//! observations and classifications (see [`super::monthly`]).

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::Response;
use http::request::Parts;
use serde::Serialize;

use super::monthly::{self, MonthFigures};
use super::{Live, Rendered, now};
use crate::Body;
use crate::store::rfc3339::format_rfc3339;

/// What a cache lookup produced.
pub(crate) enum Got<T> {
    /// A value computed within its lifetime (or being refreshed by another
    /// request right now).
    Fresh(Arc<T>),
    /// The last good value: the database failed on the latest attempt.
    Stale(Arc<T>),
    /// No value, and the database failed.
    Unavailable(String),
}

struct Entry<T> {
    value: Arc<T>,
    at: Instant,
}

/// A single-value cache with a single refresh at a time.
pub(crate) struct Cache<T> {
    slot: RwLock<Option<Entry<T>>>,
    refresh: tokio::sync::Mutex<()>,
    failing: AtomicBool,
}

impl<T> Default for Cache<T> {
    fn default() -> Self {
        Cache {
            slot: RwLock::new(None),
            refresh: tokio::sync::Mutex::new(()),
            failing: AtomicBool::new(false),
        }
    }
}

impl<T> Cache<T> {
    fn current(&self) -> Option<(Arc<T>, Duration)> {
        let slot = self.slot.read().unwrap_or_else(|e| e.into_inner());
        slot.as_ref().map(|e| (e.value.clone(), e.at.elapsed()))
    }

    /// The cached value if younger than `max_age`, else the result of
    /// `load` (bounded by `timeout`), run by one caller at a time.
    pub(crate) async fn get<F>(&self, max_age: Duration, timeout: Duration, load: F) -> Got<T>
    where
        F: Future<Output = anyhow::Result<T>>,
    {
        let old = self.current();
        if let Some((value, age)) = &old
            && *age < max_age
        {
            return Got::Fresh(value.clone());
        }
        let _guard = match (&old, self.refresh.try_lock()) {
            (_, Ok(guard)) => guard,
            // Another request is refreshing: answer with what there is.
            (Some((value, _)), Err(_)) => {
                return if self.failing.load(Ordering::Relaxed) {
                    Got::Stale(value.clone())
                } else {
                    Got::Fresh(value.clone())
                };
            }
            (None, Err(_)) => {
                let guard = self.refresh.lock().await;
                if let Some((value, _)) = self.current() {
                    return Got::Fresh(value);
                }
                guard
            }
        };
        // A refresh may have completed while we waited for the lock.
        if let Some((value, age)) = self.current()
            && age < max_age
        {
            return Got::Fresh(value);
        }
        let (result, why) = match tokio::time::timeout(timeout, load).await {
            Ok(r) => (r, "the database query failed"),
            Err(_) => (
                Err(anyhow::anyhow!("the database did not answer in time")),
                "the database query timed out",
            ),
        };
        match result {
            Ok(value) => {
                let value = Arc::new(value);
                *self.slot.write().unwrap_or_else(|e| e.into_inner()) = Some(Entry {
                    value: value.clone(),
                    at: Instant::now(),
                });
                self.failing.store(false, Ordering::Relaxed);
                Got::Fresh(value)
            }
            Err(e) => {
                tracing::warn!(error = %format!("{e:#}"), "live data refresh failed");
                self.failing.store(true, Ordering::Relaxed);
                match self.current() {
                    Some((value, _)) => Got::Stale(value),
                    // The cause is logged; the public answer names no
                    // table or driver.
                    None => Got::Unavailable(why.to_owned()),
                }
            }
        }
    }
}

/// The statistics document (the contract's `PlatformStats`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PlatformStats {
    pub generated_at: String,
    pub stale: bool,
    pub cache_max_age_s: u64,
    pub volunteers: i64,
    pub observations: i64,
    pub sites: i64,
    pub countries: i64,
    pub classifications: i64,
    pub classification_projects: i64,
    pub projects: i64,
    pub observations_last_30_days: i64,
    pub latest_observation_at: Option<String>,
    pub monthly: Vec<MonthFigures>,
}

/// A computed value: the document, rendered once as it is served while
/// fresh, and once more (marked stale) if the database fails before the next
/// refresh.
pub(crate) struct StatsValue {
    doc: PlatformStats,
    fresh: Rendered,
    stale: OnceLock<Rendered>,
}

fn render(doc: &PlatformStats, cache_control: String) -> Rendered {
    let body = Bytes::from(serde_json::to_vec(doc).expect("statistics serialise"));
    Rendered::new("application/json", body, cache_control, "Accept-Encoding")
}

async fn compute(live: &Live) -> anyhow::Result<StatsValue> {
    let doc = count(live).await?;
    let cfg = &live.cfg;
    let cache_control = format!(
        "public, max-age={}, stale-while-revalidate={}",
        cfg.stats_max_age.as_secs(),
        cfg.stats_stale_while_revalidate.as_secs()
    );
    Ok(StatsValue {
        fresh: render(&doc, cache_control),
        doc,
        stale: OnceLock::new(),
    })
}

async fn count(live: &Live) -> anyhow::Result<PlatformStats> {
    let now = now();
    let c = live.store.counts(now - 30 * 86_400).await?;
    let (from, to) = monthly::window(now);
    let months = live.store.month_counts(from, to).await?;
    Ok(PlatformStats {
        generated_at: format_rfc3339(now),
        stale: false,
        cache_max_age_s: live.cfg.stats_max_age.as_secs(),
        volunteers: c.volunteers,
        observations: c.observations,
        sites: c.sites,
        countries: c.countries,
        classifications: c.classifications,
        classification_projects: c.classification_projects,
        projects: c.projects,
        observations_last_30_days: c.observations_since,
        latest_observation_at: c.latest_observation_at.map(format_rfc3339),
        monthly: monthly::series(now, &months),
    })
}

/// The statistics the route would serve now (marked `stale` when older
/// figures stand in), or `None` when there are none: for the chat, which
/// answers figure questions from exactly what the route publishes.
pub async fn current_stats(live: &Live) -> Option<PlatformStats> {
    let cfg = &live.cfg;
    match live
        .stats
        .get(cfg.stats_max_age, cfg.query_timeout, compute(live))
        .await
    {
        Got::Fresh(v) => Some(v.doc.clone()),
        Got::Stale(v) => Some(PlatformStats {
            stale: true,
            ..v.doc.clone()
        }),
        Got::Unavailable(_) => None,
    }
}

/// `GET /api/platform-stats.php`.
pub async fn platform_stats(live: &Live, parts: &Parts) -> Response<Body> {
    let cfg = &live.cfg;
    let got = live
        .stats
        .get(cfg.stats_max_age, cfg.query_timeout, compute(live))
        .await;
    match got {
        Got::Fresh(v) => v.fresh.respond(parts),
        Got::Stale(v) => v
            .stale
            .get_or_init(|| {
                let doc = PlatformStats {
                    stale: true,
                    ..v.doc.clone()
                };
                render(&doc, "no-cache".to_owned())
            })
            .respond(parts),
        Got::Unavailable(why) => live.unavailable(parts, &why),
    }
}
