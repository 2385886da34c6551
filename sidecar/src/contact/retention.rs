//! Storage limitation: enquiries are deleted, with their outbox rows, a
//! retention period after they were mailed to the organisation, or, never
//! delivered (pending or parked), the same period after they were received.
//!
//! The period the privacy page states (`enquiry_retention_days` in the
//! published service information) is the default, so the page and the
//! behaviour agree unless an operator chooses otherwise; a longer period
//! than the page states is allowed but warned about at start. The outbox
//! worker runs [`sweep`] periodically, with or without mail configured.

use std::time::Duration;

use contract::service::{DEFAULT_ENQUIRY_RETENTION_DAYS, ServiceInformation};

use crate::config::ContactArgs;
use crate::store::Store;
use crate::store::contact::{PURGE_BATCH, Purged};

const DAY: Duration = Duration::from_secs(86_400);

/// How long enquiries are kept, and what the privacy page states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    pub period: Duration,
    /// The period published on the privacy page.
    pub published: Duration,
}

impl Retention {
    /// `--enquiry-retention-s`, else `--enquiry-retention-days`, else the
    /// published period, else the default.
    pub fn resolve(args: &ContactArgs, service: Option<&ServiceInformation>) -> Retention {
        let published_days = service.map_or(DEFAULT_ENQUIRY_RETENTION_DAYS, |s| {
            s.contact.enquiry_retention_days
        });
        let published = DAY * published_days;
        let period = match (args.enquiry_retention_s, args.enquiry_retention_days) {
            (Some(s), _) => Duration::from_secs(s),
            (None, Some(days)) => DAY * days,
            (None, None) => published,
        };
        Retention { period, published }
    }

    /// A period longer than the privacy page states: the page is wrong.
    pub fn exceeds_published(&self) -> bool {
        self.period > self.published
    }

    /// How often to sweep: a quarter of the period, between 1 s and 1 min,
    /// so nothing outlives its period by more than a minute.
    pub fn sweep_every(&self) -> Duration {
        (self.period / 4).clamp(Duration::from_secs(1), Duration::from_secs(60))
    }
}

/// Deletes everything past its period at `now` (Unix ms), batch by batch,
/// each batch one transaction; returns the counts.
pub async fn sweep(store: &Store, period: Duration, now: i64) -> anyhow::Result<Purged> {
    let cut = now.saturating_sub(i64::try_from(period.as_millis()).unwrap_or(i64::MAX));
    let mut total = Purged::default();
    loop {
        let p = store.purge_enquiries(cut, cut, now).await?;
        total.delivered += p.delivered;
        total.undelivered += p.undelivered;
        if p.delivered + p.undelivered < PURGE_BATCH as u64 {
            return Ok(total);
        }
    }
}

/// [`sweep`] with its log line: counts only, never what was deleted.
pub async fn sweep_and_log(store: &Store, period: Duration, now: i64) {
    match sweep(store, period, now).await {
        Ok(p) if p.undelivered > 0 => tracing::warn!(
            delivered = p.delivered,
            undelivered = p.undelivered,
            "enquiries past their retention period deleted, some never delivered"
        ),
        Ok(p) if p.delivered > 0 => tracing::info!(
            delivered = p.delivered,
            "enquiries past their retention period deleted"
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %format!("{e:#}"), "the enquiry retention sweep failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeps_often_enough_for_short_periods_and_rarely_for_long_ones() {
        let r = |secs| Retention {
            period: Duration::from_secs(secs),
            published: DAY,
        };
        assert_eq!(r(2).sweep_every(), Duration::from_secs(1));
        assert_eq!(r(20).sweep_every(), Duration::from_secs(5));
        assert_eq!(r(86_400 * 180).sweep_every(), Duration::from_secs(60));
        assert!(r(86_401).exceeds_published());
        assert!(!r(86_400).exceeds_published());
    }
}
