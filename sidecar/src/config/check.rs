//! Checks of values that clap cannot express: the contact form's limits and
//! the site origins.

#[allow(unused_imports)]
use super::*;

pub(super) fn check_contact(c: &ContactArgs) -> Result<(), String> {
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
    if c.enquiry_retention_days
        .is_some_and(|d| !(1..=3650).contains(&d))
    {
        return Err("--enquiry-retention-days must be between 1 and 3650".into());
    }
    if c.enquiry_retention_s == Some(0) {
        return Err("--enquiry-retention-s must be at least 1".into());
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
pub(crate) fn parse_origin(raw: &str) -> Result<String, String> {
    contract::origin::Origin::parse(raw.trim())
        .map(|o| o.to_string())
        .map_err(|why| format!("--site-origin {raw:?}: {why} (expected scheme://host[:port])"))
}
