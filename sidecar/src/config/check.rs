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
