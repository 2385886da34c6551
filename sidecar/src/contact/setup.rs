//! From the validated configuration to the contact routes' state and the
//! outbox worker: the challenge key, the topics and the mail settings.

use contract::service::ServiceInformation;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Context;
use lettre::message::Mailbox;

use super::outbox::{self, MailConfig};
use super::retention::Retention;
use super::{Contact, ContactConfig};
use crate::config::Config;
use crate::store::Store;

/// File of the generated challenge key in the data directory.
pub const KEY_FILE: &str = "contact-key";

/// The challenge key: `--contact-key`, else `--contact-key-file`, else the
/// key kept in the data directory (generated on first use, mode 0600).
pub fn challenge_key(config: &Config) -> anyhow::Result<Vec<u8>> {
    let c = &config.contact;
    if let Some(key) = &c.contact_key {
        return Ok(key.as_bytes().to_vec());
    }
    if let Some(path) = &c.contact_key_file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the contact key file {}", path.display()))?;
        anyhow::ensure!(
            text.trim().len() >= 16,
            "{}: the key must be at least 16 bytes",
            path.display()
        );
        return Ok(text.trim().as_bytes().to_vec());
    }
    if config
        .database
        .as_deref()
        .is_some_and(|u| u.starts_with("postgres"))
    {
        tracing::warn!(
            "no --contact-key: this replica's challenges verify only here; give replicas one shared key"
        );
    }
    generated_key(&config.data_dir)
}

fn generated_key(dir: &Path) -> anyhow::Result<Vec<u8>> {
    let path = dir.join(KEY_FILE);
    if let Ok(text) = std::fs::read_to_string(&path) {
        return Ok(text.trim().as_bytes().to_vec());
    }
    // The data directory, private as the database's (decision 0055).
    crate::store::private::create_dir(dir)?;
    let key: String = super::altcha::random_bytes::<32>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(&path) {
        Ok(mut f) => {
            f.write_all(key.as_bytes())?;
            f.sync_all()?;
            tracing::info!(file = %path.display(), "generated the contact challenge key");
            Ok(key.into_bytes())
        }
        // Another process created it first: use theirs.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            Ok(std::fs::read_to_string(&path)?.trim().as_bytes().to_vec())
        }
        Err(e) => Err(e).with_context(|| format!("writing {}", path.display())),
    }
}

/// The contact routes' settings from the configuration and the built
/// service information.
pub fn contact_config(config: &Config, service: Option<&ServiceInformation>) -> ContactConfig {
    let c = &config.contact;
    let cfg = ContactConfig {
        challenge_cost: c.challenge_cost,
        challenge_counter: (c.challenge_counter_min, c.challenge_counter_max),
        challenge_ttl: Duration::from_secs(c.challenge_expiry_s),
        min_fill: Duration::from_millis(c.contact_min_fill_ms),
        submit_limit: c.contact_rate_limit,
        challenge_limit: c.challenge_rate_limit,
        rate_window: Duration::from_secs(c.contact_rate_window_s),
        trusted_proxies: config.trusted_proxies.clone(),
        topics: vec!["other".into()],
    };
    match service {
        Some(service) => cfg.with_service_information(service),
        None => cfg,
    }
}

/// The mail settings, or `None` without `--smtp-url`.
pub fn mail_config(
    config: &Config,
    service: Option<&ServiceInformation>,
) -> anyhow::Result<Option<MailConfig>> {
    let c = &config.contact;
    let Some(url) = &c.smtp_url else {
        return Ok(None);
    };
    let published = service.map(|s| s.contact.email.to_string());
    let to = c
        .contact_to
        .clone()
        .or(published)
        .context("--smtp-url needs --contact-to (service.json names no contact email)")?;
    let to: Mailbox = to.parse().with_context(|| format!("--contact-to {to:?}"))?;
    let from: Mailbox = match &c.contact_from {
        Some(f) => f.parse().with_context(|| format!("--contact-from {f:?}"))?,
        None => to.clone(),
    };
    Ok(Some(MailConfig {
        smtp_url: url.clone(),
        to,
        from,
        timeout: Duration::from_millis(c.smtp_timeout_ms),
        lease: Duration::from_millis(c.outbox_lease_ms),
        poll: Duration::from_millis(c.outbox_poll_ms),
        retry_base: Duration::from_millis(c.smtp_retry_base_ms),
        retry_max: Duration::from_millis(c.smtp_retry_max_ms),
    }))
}

/// Builds the contact state and starts the outbox worker on its own thread
/// (sending only with mail configured; enforcing retention always);
/// setting the returned flag stops it.
pub fn start(
    config: &Config,
    store: Store,
    service: Option<&ServiceInformation>,
    failures: Arc<super::failures::SendFailures>,
) -> anyhow::Result<(Contact, Arc<AtomicBool>)> {
    let key = challenge_key(config)?;
    let contact = Contact::new(store.clone(), key, contact_config(config, service));
    let stop = Arc::new(AtomicBool::new(false));
    let retention = Retention::resolve(&config.contact, service);
    if retention.exceeds_published() {
        tracing::warn!(
            kept_days = retention.period.as_secs() / 86_400,
            published_days = retention.published.as_secs() / 86_400,
            "enquiries are kept longer than the privacy page states; correct one of them"
        );
    }
    let mail = mail_config(config, service)?;
    match &mail {
        None => tracing::warn!("no --smtp-url: enquiries are stored and wait in the outbox"),
        Some(mail) => {
            tracing::info!(to = %mail.to.email.domain(), "mailing enquiries from the outbox");
        }
    }
    tracing::info!(
        retention_s = retention.period.as_secs(),
        "enquiries are deleted after their retention period"
    );
    let flag = stop.clone();
    std::thread::Builder::new()
        .name("sidecar-outbox".into())
        .spawn(move || {
            match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt.block_on(outbox::run(store, mail, retention, flag, failures)),
                Err(e) => tracing::error!(error = %e, "the outbox runtime failed to start"),
            }
        })
        .context("starting the outbox thread")?;
    Ok((contact, stop))
}
