//! Storage of the contact form: enquiries, their mail outbox, used
//! challenges and per-client rate-limit counters, on either backend.
//!
//! Times are Unix milliseconds. An enquiry, its outbox row and its used
//! challenge are written in one transaction ([`Store::insert_enquiry`]), so an
//! acknowledged enquiry always has its mail pending, and a challenge can be
//! used once. Outbox rows are claimed with a lease (`claimed_until`) so that
//! replicas sharing PostgreSQL never send the same row at the same time, and
//! a row claimed by a process that died is claimed again once the lease ends.

use super::Store;

/// An enquiry to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEnquiry {
    pub reference: String,
    pub received_at: i64,
    pub name: String,
    pub email: String,
    pub organisation: Option<String>,
    pub topic: String,
    pub message: String,
    /// The language the visitor wrote in (a code of
    /// [`contract::contact::ContactLanguage`]).
    pub language: String,
}

/// What storing an enquiry did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// Committed with its outbox row and used challenge.
    Committed,
    /// The challenge was used already: nothing was written.
    Replayed,
}

/// An outbox row claimed for sending, with its enquiry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxItem {
    pub enquiry: NewEnquiry,
    /// Attempts so far, this one included.
    pub attempts: i64,
}

/// The state of one outbox row (for tests and operations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxState {
    pub status: String,
    pub attempts: i64,
}

impl Store {
    /// Counts one hit of `client` in `bucket` in the fixed window that ends at
    /// the row's `reset_at` (a new window of `window_ms` starts when it has
    /// passed). Returns the hits in the window and its end.
    pub async fn rate_hit(
        &self,
        bucket: &'static str,
        client: String,
        window_ms: i64,
        now: i64,
    ) -> anyhow::Result<(i64, i64)> {
        match self {
            Store::Sqlite(s) => s.rate_hit(bucket, client, window_ms, now).await,
            Store::Postgres(s) => s.rate_hit(bucket, client, window_ms, now).await,
        }
    }

    /// Commits the enquiry, its outbox row (due at once) and the used
    /// challenge `nonce` in one transaction; nothing when the nonce is used.
    pub async fn insert_enquiry(
        &self,
        enquiry: NewEnquiry,
        nonce: String,
        nonce_expires_at: i64,
    ) -> anyhow::Result<Stored> {
        match self {
            Store::Sqlite(s) => s.insert_enquiry(enquiry, nonce, nonce_expires_at).await,
            Store::Postgres(s) => s.insert_enquiry(enquiry, nonce, nonce_expires_at).await,
        }
    }

    /// Claims up to `limit` due, unclaimed outbox rows until `now + lease_ms`
    /// under `token`, counting an attempt on each.
    pub async fn claim_outbox(
        &self,
        now: i64,
        lease_ms: i64,
        limit: i64,
        token: String,
    ) -> anyhow::Result<Vec<OutboxItem>> {
        match self {
            Store::Sqlite(s) => s.claim_outbox(now, lease_ms, limit, token).await,
            Store::Postgres(s) => s.claim_outbox(now, lease_ms, limit, token).await,
        }
    }

    /// Settles a claimed row: `sent`, back to `pending` from `attempt_after`,
    /// or `parked`. Only the claim's holder (`token`) can; returns whether it
    /// did.
    pub async fn settle_outbox(
        &self,
        reference: String,
        token: String,
        outcome: Settle,
    ) -> anyhow::Result<bool> {
        match self {
            Store::Sqlite(s) => s.settle_outbox(reference, token, outcome).await,
            Store::Postgres(s) => s.settle_outbox(reference, token, outcome).await,
        }
    }

    /// Deletes used challenges and rate-limit windows that have expired.
    pub async fn contact_cleanup(&self, now: i64) -> anyhow::Result<()> {
        match self {
            Store::Sqlite(s) => s.contact_cleanup(now).await,
            Store::Postgres(s) => s.contact_cleanup(now).await,
        }
    }

    /// Stored enquiries.
    pub async fn enquiry_count(&self) -> anyhow::Result<i64> {
        match self {
            Store::Sqlite(s) => s.enquiry_count().await,
            Store::Postgres(s) => s.enquiry_count().await,
        }
    }

    /// The outbox row of an enquiry, if it exists.
    pub async fn outbox_state(&self, reference: String) -> anyhow::Result<Option<OutboxState>> {
        match self {
            Store::Sqlite(s) => s.outbox_state(reference).await,
            Store::Postgres(s) => s.outbox_state(reference).await,
        }
    }
}

/// How a send attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settle {
    Sent { at: i64 },
    Retry { after: i64, error: String },
    Parked { error: String },
}

impl Settle {
    /// `(status, sent_at, attempt_after, last_error)` columns.
    pub(crate) fn columns(&self) -> (&'static str, Option<i64>, Option<i64>, Option<&str>) {
        match self {
            Settle::Sent { at } => ("sent", Some(*at), None, None),
            Settle::Retry { after, error } => ("pending", None, Some(*after), Some(error)),
            Settle::Parked { error } => ("parked", None, None, Some(error)),
        }
    }
}

/// The statements both backends share (`?N` placeholders; PostgreSQL gets
/// them rewritten to `$N`).
pub(crate) mod sql {
    pub const RATE_HIT: &str = "INSERT INTO rate_limits (bucket, client, reset_at, count) \
        VALUES (?1, ?2, ?4, 1) ON CONFLICT (bucket, client) DO UPDATE SET \
        count = CASE WHEN rate_limits.reset_at <= ?3 THEN 1 ELSE rate_limits.count + 1 END, \
        reset_at = CASE WHEN rate_limits.reset_at <= ?3 THEN ?4 ELSE rate_limits.reset_at END \
        RETURNING count, reset_at";
    pub const USE_CHALLENGE: &str = "INSERT INTO used_challenges (nonce, expires_at) \
        VALUES (?1, ?2) ON CONFLICT (nonce) DO NOTHING";
    pub const INSERT_ENQUIRY: &str = "INSERT INTO enquiries \
        (reference, received_at, name, email, organisation, topic, message, language) \
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
    pub const INSERT_OUTBOX: &str = "INSERT INTO outbox (reference, status, attempts, attempt_after) VALUES (?1, 'pending', 0, ?2)";
    pub const CLAIMED: &str = "SELECT e.reference, e.received_at, e.name, e.email, \
        e.organisation, e.topic, e.message, o.attempts, e.language FROM outbox o \
        JOIN enquiries e ON e.reference = o.reference WHERE o.claim_token = ?1 \
        AND o.status = 'pending' ORDER BY e.received_at";
    pub const SETTLE: &str = "UPDATE outbox SET status = ?3, sent_at = ?4, \
        attempt_after = coalesce(?5, attempt_after), last_error = ?6, claimed_until = 0, \
        claim_token = NULL WHERE reference = ?1 AND claim_token = ?2 AND status = 'pending'";
    pub const CLEANUP: &str = "DELETE FROM used_challenges WHERE expires_at < ?1";
    pub const CLEANUP_RATES: &str = "DELETE FROM rate_limits WHERE reset_at <= ?1";
    pub const OUTBOX_STATE: &str = "SELECT status, attempts FROM outbox WHERE reference = ?1";

    /// `?N` → `$N`.
    pub fn pg(sql: &str) -> String {
        sql.replace('?', "$")
    }
}

/// Every field the service holds about one enquiry: the enquiry and its
/// outbox row (absent only if the row was lost some other way). What an
/// operator exports for a request of access.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EnquiryRecord {
    pub reference: String,
    /// Unix milliseconds.
    pub received_at: i64,
    pub name: String,
    pub email: String,
    pub organisation: Option<String>,
    pub topic: String,
    pub message: String,
    /// The language the visitor wrote in.
    pub language: String,
    /// `pending`, `sent` or `parked`.
    pub status: Option<String>,
    pub attempts: Option<i64>,
    /// Unix milliseconds.
    pub sent_at: Option<i64>,
    pub last_error: Option<String>,
}

/// Which enquiries an operator means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    All,
    /// One reference, exactly (`ENQ-…`, upper case).
    Reference(String),
    /// Every enquiry sent from an address, compared case-insensitively.
    Email(String),
}

impl Selection {
    /// The `WHERE` clause (with `?1` when it takes a value) and its value.
    pub(crate) fn clause(&self) -> (&'static str, Option<&str>) {
        match self {
            Selection::All => ("", None),
            Selection::Reference(r) => (" WHERE e.reference = ?1", Some(r)),
            Selection::Email(a) => (" WHERE lower(e.email) = lower(?1)", Some(a)),
        }
    }
}

/// What an erasure removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Deleted {
    pub enquiries: u64,
    pub outbox: u64,
}

/// What one retention sweep removed, enquiry and outbox row together.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Purged {
    /// Delivered before the cut-off.
    pub delivered: u64,
    /// Never delivered (pending or parked) and received before the cut-off.
    pub undelivered: u64,
}

/// Enquiries removed by one retention transaction at most; a sweep repeats
/// until less is left.
pub const PURGE_BATCH: i64 = 500;

impl Store {
    /// The selected enquiries with their delivery state, oldest first.
    pub async fn enquiries(&self, selection: Selection) -> anyhow::Result<Vec<EnquiryRecord>> {
        match self {
            Store::Sqlite(s) => s.enquiries(selection).await,
            Store::Postgres(s) => s.enquiries(selection).await,
        }
    }

    /// Deletes the selected enquiries and their outbox rows in one
    /// transaction (an erasure request).
    pub async fn delete_enquiries(&self, selection: Selection) -> anyhow::Result<Deleted> {
        match self {
            Store::Sqlite(s) => s.delete_enquiries(selection).await,
            Store::Postgres(s) => s.delete_enquiries(selection).await,
        }
    }

    /// Deletes, with their outbox rows, up to [`PURGE_BATCH`] enquiries
    /// delivered before `sent_before` or, never delivered, received before
    /// `received_before`, in one transaction. A row being sent (its claim
    /// not yet expired at `now`) is left for the next sweep.
    pub async fn purge_enquiries(
        &self,
        sent_before: i64,
        received_before: i64,
        now: i64,
    ) -> anyhow::Result<Purged> {
        match self {
            Store::Sqlite(s) => s.purge_enquiries(sent_before, received_before, now).await,
            Store::Postgres(s) => s.purge_enquiries(sent_before, received_before, now).await,
        }
    }
}

/// Statements of access, erasure and retention (`?N` placeholders).
pub(crate) mod subject_sql {
    pub const RECORDS: &str = "SELECT e.reference, e.received_at, e.name, e.email, \
        e.organisation, e.topic, e.message, o.status, o.attempts, o.sent_at, o.last_error, \
        e.language FROM enquiries e LEFT JOIN outbox o ON o.reference = e.reference";
    pub const SELECTED: &str = "SELECT e.reference FROM enquiries e";
    pub const RECORDS_ORDER: &str = " ORDER BY e.received_at, e.reference";
    /// `?1` sent before, `?2` received before, `?3` now, `?4` limit.
    pub const EXPIRED: &str = "SELECT o.reference, o.status FROM outbox o \
        JOIN enquiries e ON e.reference = o.reference \
        WHERE (o.status = 'sent' AND o.sent_at < ?1) \
        OR (o.status <> 'sent' AND e.received_at < ?2 AND o.claimed_until <= ?3) \
        ORDER BY e.received_at LIMIT ?4";
    /// Enquiries without an outbox row, past the period from receipt.
    pub const EXPIRED_ORPHANS: &str = "SELECT e.reference FROM enquiries e \
        WHERE e.received_at < ?1 AND NOT EXISTS \
        (SELECT 1 FROM outbox o WHERE o.reference = e.reference) LIMIT ?2";
}
