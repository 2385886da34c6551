//! The outbox worker: sends each stored enquiry to the organisation's address
//! over SMTP (lettre on tokio, TLS by rustls), never in the HTTP path.
//!
//! - The visitor appears only in `Reply-To`; `From` and `To` are the
//!   organisation's configured addresses.
//! - The mail is written in English for the people who answer; it names
//!   the language the visitor wrote in (`Content-Language` and a line of
//!   the body) so that they answer in it (decision 0266).
//! - `Message-ID` is derived from the reference (`<ENQ-…@domain>`), and
//!   `Date` is the time the enquiry was received, so a resent copy is the
//!   same message and recognisable as a duplicate.
//! - Rows are claimed with a lease, only as many as can be sent within it
//!   (each may take the whole SMTP timeout), and no send starts that could
//!   outlast it: another replica claims a row only after its lease, so it
//!   never sends one that is still being sent. A temporary failure (no connection, a
//!   timeout, a 4xx answer) is retried with exponential backoff and jitter,
//!   a permanent one (5xx) parks the row for a person to look at.
//! - Delivery is marked right after the SMTP server accepts the message. A
//!   crash in the moment between the server's acceptance and that commit
//!   sends the message again after restart: the one at-least-once window,
//!   where the stable `Message-ID` lets mail systems and people spot the
//!   copy. A row claimed but not sent when the process died is claimed again
//!   once its lease has passed; a row marked sent is never sent again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use contract::contact::ContactLanguage;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::{Mailbox, Message};
use lettre::transport::smtp::extension::ClientId;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

use super::altcha::{random_between, random_bytes};
use super::failures::{Failure, SendFailures};
use super::now_ms;
use super::retention::{self, Retention};
use crate::store::Store;
use crate::store::contact::{NewEnquiry, OutboxItem, Settle};

/// Rows claimed per round at most (fewer when the lease cannot cover them:
/// [`batch`]).
const BATCH: i64 = 32;
/// Time kept at the end of a lease for settling the last row sent.
const SETTLE_MARGIN: Duration = Duration::from_millis(500);

/// How many rows one claim takes: only as many as can each take the whole
/// SMTP timeout and still be settled before the lease ends, at least one.
/// A row whose lease ends while it is being sent is claimed again by
/// another replica and sent twice; this keeps every send inside its lease.
fn batch(cfg: &MailConfig) -> i64 {
    let usable = cfg.lease.saturating_sub(SETTLE_MARGIN).as_millis();
    (usable / cfg.timeout.as_millis().max(1)).clamp(1, BATCH as u128) as i64
}
/// How often expired challenges and rate-limit windows are deleted (and
/// enquiries past retention, at least as often: [`Retention::sweep_every`]).
const CLEANUP_EVERY: Duration = Duration::from_secs(60);
/// The worker's wake-up interval without mail: only upkeep to do.
const IDLE_POLL: Duration = Duration::from_millis(500);

/// Settings of mail delivery.
#[derive(Debug, Clone)]
pub struct MailConfig {
    /// lettre connection URL: `smtp://host:port` (plain, for a local relay),
    /// `smtp://user:pass@host:587?tls=required` (STARTTLS) or
    /// `smtps://user:pass@host:465`.
    pub smtp_url: String,
    /// The organisation's address enquiries are sent to.
    pub to: Mailbox,
    /// The sender address.
    pub from: Mailbox,
    /// Limit of one SMTP exchange.
    pub timeout: Duration,
    /// How long a claim holds a row; longer than `timeout`.
    pub lease: Duration,
    /// Wait between polls when nothing is due.
    pub poll: Duration,
    /// First retry delay; doubled per attempt up to `retry_max`.
    pub retry_base: Duration,
    pub retry_max: Duration,
}

/// The delay before retry number `attempts` (1-based): exponential, capped,
/// with "equal jitter" (between half and all of it) so that replicas and
/// rows do not retry in step.
pub fn backoff(attempts: i64, base: Duration, max: Duration) -> Duration {
    let exp = u32::try_from(attempts.clamp(1, 32) - 1).unwrap_or(31);
    let full = base
        .saturating_mul(2u32.saturating_pow(exp))
        .min(max)
        .as_millis() as u64;
    Duration::from_millis(random_between(full / 2, full.max(1)))
}

/// The `Message-ID` of an enquiry's mail.
pub fn message_id(reference: &str, from: &Mailbox) -> String {
    format!("<{reference}@{}>", from.email.domain())
}

/// The mail of an enquiry.
pub fn build_message(e: &NewEnquiry, cfg: &MailConfig) -> anyhow::Result<Message> {
    let visitor = Mailbox::new(Some(e.name.clone()), e.email.parse()?);
    let received = UNIX_EPOCH + Duration::from_millis(e.received_at.max(0) as u64);
    let language = match ContactLanguage::parse(&e.language) {
        Some(l) => format!("{} ({}): please answer in {}", l.code(), l.name(), l.name()),
        None => e.language.clone(),
    };
    let body = format!(
        "Enquiry {reference}, received {received} (Unix ms {at}).\n\n\
         Topic: {topic}\nName: {name}\nEmail: {email}\nOrganisation: {org}\n\
         Language: {language}\n\n\
         {message}\n\n-- \nReply to this mail to answer the visitor (Reply-To). \
         Quote {reference} in any follow-up.\n",
        reference = e.reference,
        received = httpdate(received),
        at = e.received_at,
        topic = e.topic,
        name = e.name,
        email = e.email,
        org = e.organisation.as_deref().unwrap_or("—"),
        message = e.message,
    );
    Ok(Message::builder()
        .from(cfg.from.clone())
        .to(cfg.to.clone())
        .reply_to(visitor)
        .subject(format!("Enquiry {}: {}", e.reference, e.topic))
        .message_id(Some(message_id(&e.reference, &cfg.from)))
        .date(received)
        .header(ContentType::TEXT_PLAIN)
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("Content-Language"),
            e.language.clone(),
        ))
        .body(body)?)
}

fn httpdate(t: SystemTime) -> String {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    crate::store::rfc3339::format_rfc3339(secs)
}

/// Runs the worker until `stop` is set: claims due rows, sends them,
/// settles; and, with or without mail, deletes expired challenges,
/// rate-limit windows and enquiries past their retention period. Failed
/// sends are counted in `failures`.
pub async fn run(
    store: Store,
    mail: Option<MailConfig>,
    retention: Retention,
    stop: Arc<AtomicBool>,
    failures: Arc<SendFailures>,
) {
    let transport = mail.as_ref().and_then(|cfg| {
        match AsyncSmtpTransport::<Tokio1Executor>::from_url(&cfg.smtp_url) {
            Ok(b) => Some(
                b.timeout(Some(cfg.timeout))
                    .hello_name(ClientId::Domain(cfg.from.email.domain().to_owned()))
                    .build(),
            ),
            Err(e) => {
                tracing::error!(error = %e, "the SMTP URL is unusable; enquiries stay in the outbox");
                None
            }
        }
    });
    let upkeep_every = retention.sweep_every().min(CLEANUP_EVERY).as_millis() as i64;
    let mut last_upkeep = now_ms() - upkeep_every;
    while !stop.load(Ordering::Relaxed) {
        let now = now_ms();
        if now - last_upkeep >= upkeep_every {
            last_upkeep = now;
            if let Err(e) = store.contact_cleanup(now).await {
                tracing::warn!(error = %format!("{e:#}"), "contact cleanup failed");
            }
            retention::sweep_and_log(&store, retention.period, now).await;
        }
        let (Some(cfg), Some(transport)) = (&mail, &transport) else {
            tokio::time::sleep(IDLE_POLL).await;
            continue;
        };
        let token: String = random_bytes::<12>()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let lease_ends = now + cfg.lease.as_millis() as i64;
        let items = match store
            .claim_outbox(now, cfg.lease.as_millis() as i64, batch(cfg), token.clone())
            .await
        {
            Ok(items) => items,
            Err(e) => {
                tracing::warn!(error = %format!("{e:#}"), "claiming outbox rows failed");
                tokio::time::sleep(cfg.poll).await;
                continue;
            }
        };
        if items.is_empty() {
            tokio::time::sleep(cfg.poll).await;
            continue;
        }
        for item in items {
            let reference = item.enquiry.reference.clone();
            // A send that could outlast the lease is not started: the row
            // goes back, due now, for the next claim.
            let latest_start = lease_ends - (cfg.timeout + SETTLE_MARGIN).as_millis() as i64;
            if now_ms() > latest_start {
                let back = Settle::Retry {
                    after: now_ms(),
                    error: "not sent: the claim's lease was ending".into(),
                };
                if let Err(e) = store
                    .settle_outbox(reference.clone(), token.clone(), back)
                    .await
                {
                    tracing::warn!(reference, error = %format!("{e:#}"), "returning an outbox row failed");
                }
                continue;
            }
            let outcome = send(transport, cfg, &item, &failures).await;
            match &outcome {
                Settle::Sent { .. } => tracing::info!(reference, "enquiry mailed"),
                Settle::Retry { error, .. } => {
                    tracing::warn!(reference, attempts = item.attempts, error, "mail deferred")
                }
                Settle::Parked { error } => tracing::error!(reference, error, "mail parked"),
            }
            if let Err(e) = store
                .settle_outbox(reference.clone(), token.clone(), outcome)
                .await
            {
                // The lease runs out and the row is claimed again.
                tracing::warn!(reference, error = %format!("{e:#}"), "settling an outbox row failed");
            }
        }
    }
}

async fn send(
    transport: &AsyncSmtpTransport<Tokio1Executor>,
    cfg: &MailConfig,
    item: &OutboxItem,
    failures: &SendFailures,
) -> Settle {
    let message = match build_message(&item.enquiry, cfg) {
        Ok(m) => m,
        Err(e) => {
            failures.count(Failure::Message);
            return Settle::Parked {
                error: format!("building the mail: {e}"),
            };
        }
    };
    let retry = |error: String| Settle::Retry {
        after: now_ms() + backoff(item.attempts, cfg.retry_base, cfg.retry_max).as_millis() as i64,
        error,
    };
    let (failure, settle) = match tokio::time::timeout(cfg.timeout, transport.send(message)).await {
        Ok(Ok(_)) => return Settle::Sent { at: now_ms() },
        Ok(Err(e)) if e.is_permanent() => (
            Failure::Permanent,
            Settle::Parked {
                error: e.to_string(),
            },
        ),
        Ok(Err(e)) => (Failure::of(&e), retry(e.to_string())),
        Err(_) => (
            Failure::Timeout,
            retry("the SMTP exchange timed out".into()),
        ),
    };
    failures.count(failure);
    settle
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_takes_only_what_its_lease_can_send() {
        let cfg = |lease_ms, timeout_ms| MailConfig {
            smtp_url: "smtp://127.0.0.1:25".into(),
            to: "to@example.org".parse().unwrap(),
            from: "from@example.org".parse().unwrap(),
            timeout: Duration::from_millis(timeout_ms),
            lease: Duration::from_millis(lease_ms),
            poll: Duration::from_millis(100),
            retry_base: Duration::from_millis(100),
            retry_max: Duration::from_millis(1000),
        };
        assert_eq!(batch(&cfg(3_000, 2_000)), 1);
        assert_eq!(batch(&cfg(30_000, 10_000)), 2);
        assert_eq!(batch(&cfg(300_000, 1_000)), BATCH);
        assert_eq!(batch(&cfg(2_100, 2_000)), 1);
    }

    #[test]
    fn backoff_grows_with_jitter_and_a_cap() {
        let (base, max) = (Duration::from_secs(1), Duration::from_secs(60));
        for _ in 0..50 {
            let first = backoff(1, base, max);
            assert!(first >= Duration::from_millis(500) && first <= base);
            let fourth = backoff(4, base, max);
            assert!(fourth >= Duration::from_secs(4) && fourth <= Duration::from_secs(8));
            assert!(backoff(30, base, max) <= max);
        }
    }

    #[test]
    fn message_headers() {
        let cfg = MailConfig {
            smtp_url: "smtp://127.0.0.1:25".into(),
            to: "Office <office@org.example>".parse().unwrap(),
            from: "Website <web@org.example>".parse().unwrap(),
            timeout: Duration::from_secs(5),
            lease: Duration::from_secs(30),
            poll: Duration::from_secs(1),
            retry_base: Duration::from_secs(1),
            retry_max: Duration::from_secs(60),
        };
        let e = NewEnquiry {
            reference: "ENQ-ABC123-DEF456".into(),
            received_at: 1_700_000_000_000,
            name: "Ada".into(),
            email: "ada@visitor.example".into(),
            organisation: None,
            topic: "other".into(),
            message: "Hello".into(),
            language: "nl".into(),
        };
        let text = String::from_utf8(build_message(&e, &cfg).unwrap().formatted()).unwrap();
        assert!(
            text.contains("Message-ID: <ENQ-ABC123-DEF456@org.example>"),
            "{text}"
        );
        assert!(
            text.contains("Reply-To: Ada <ada@visitor.example>"),
            "{text}"
        );
        assert!(text.contains("To: Office <office@org.example>"), "{text}");
        assert!(text.contains("From: Website <web@org.example>"), "{text}");
        assert!(text.contains("ENQ-ABC123-DEF456"));
        assert!(text.contains("\r\nContent-Language: nl\r\n"), "{text}");
        assert!(
            text.contains("Language: nl (Dutch): please answer in Dutch"),
            "{text}"
        );
        // The same enquiry gives the same message (a resend is a duplicate).
        let again = String::from_utf8(build_message(&e, &cfg).unwrap().formatted()).unwrap();
        assert_eq!(text, again);
    }
}
