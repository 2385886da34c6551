//! `sidecar enquiries`: what an operator needs to answer a person who asks
//! what the service holds about them (access) or to delete it (erasure).
//!
//! The service holds an enquiry in two rows, the enquiry and its outbox
//! row, and nowhere else: logs carry only the reference, and the mail sent
//! to the organisation is the organisation's copy, outside the service. So
//! an erasure deletes both rows, in one transaction. Addresses are matched
//! in any letter case, since people rarely remember how they typed theirs.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use serde_json::json;

use crate::config::{EnquiriesAction, EnquiriesArgs};
use crate::store::contact::{EnquiryRecord, Selection};
use crate::store::rfc3339::format_rfc3339;
use crate::store::{SampleSize, Store};

/// Runs the command and maps the outcome to an exit code: 0, or 1 with the
/// reason on stderr.
pub fn main(args: &EnquiriesArgs) -> ExitCode {
    match run(args, &mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sidecar enquiries: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the command, writing its answer to `out`.
pub fn run(args: &EnquiriesArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let action = checked(&args.action)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let store = Store::open(args.database.as_deref(), &args.data_dir, SampleSize::None)
            .await
            .context("opening the database")?;
        match action {
            Checked::List(selection) => {
                for r in store.enquiries(selection).await? {
                    writeln!(
                        out,
                        "{}\t{}\t{}\t{}",
                        r.reference,
                        time(r.received_at),
                        r.status.as_deref().unwrap_or("no outbox row"),
                        r.email
                    )?;
                }
            }
            Checked::Show(reference) => {
                let records = store
                    .enquiries(Selection::Reference(reference.clone()))
                    .await?;
                let r = records
                    .first()
                    .with_context(|| format!("no enquiry {reference}"))?;
                show(r, out)?;
            }
            Checked::Export(email) => {
                let records = store.enquiries(Selection::Email(email.clone())).await?;
                let doc = json!({
                    "email": email,
                    "exported_at": time(super::now_ms()),
                    "enquiries": records.iter().map(exported).collect::<Vec<_>>(),
                });
                serde_json::to_writer_pretty(&mut *out, &doc)?;
                writeln!(out)?;
            }
            Checked::Delete(selection) => {
                let d = store.delete_enquiries(selection).await?;
                writeln!(
                    out,
                    "deleted {} enquiries and {} outbox rows",
                    d.enquiries, d.outbox
                )?;
            }
        }
        Ok(())
    })
}

/// An action with its arguments checked.
enum Checked {
    List(Selection),
    Show(String),
    Export(String),
    Delete(Selection),
}

fn checked(action: &EnquiriesAction) -> anyhow::Result<Checked> {
    Ok(match action {
        EnquiriesAction::List { email: None } => Checked::List(Selection::All),
        EnquiriesAction::List { email: Some(e) } => Checked::List(Selection::Email(address(e)?)),
        EnquiriesAction::Show { reference } => Checked::Show(reference_of(reference)?),
        EnquiriesAction::Export { email } => Checked::Export(address(email)?),
        EnquiriesAction::Delete {
            reference: Some(r), ..
        } => Checked::Delete(Selection::Reference(reference_of(r)?)),
        EnquiriesAction::Delete { email: Some(e), .. } => {
            Checked::Delete(Selection::Email(address(e)?))
        }
        EnquiriesAction::Delete { .. } => anyhow::bail!("give --reference or --email"),
    })
}

/// An address to match: trimmed, with one `@` between two non-empty parts.
fn address(raw: &str) -> anyhow::Result<String> {
    let a = raw.trim();
    match a.split_once('@') {
        Some((local, domain)) if !local.is_empty() && !domain.is_empty() => Ok(a.to_owned()),
        _ => anyhow::bail!("{raw:?} is not an e-mail address"),
    }
}

/// A reference as the form prints it (`ENQ-XXXXXX-XXXXXX`), in any case.
fn reference_of(raw: &str) -> anyhow::Result<String> {
    let r = raw.trim().to_ascii_uppercase();
    anyhow::ensure!(
        r.starts_with("ENQ-")
            && r.len() <= 32
            && r.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
        "{raw:?} is not an enquiry reference (ENQ-…)"
    );
    Ok(r)
}

fn time(ms: i64) -> String {
    format_rfc3339(ms.div_euclid(1000))
}

fn show(r: &EnquiryRecord, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "reference:    {}", r.reference)?;
    writeln!(out, "received:     {}", time(r.received_at))?;
    writeln!(out, "name:         {}", r.name)?;
    writeln!(out, "email:        {}", r.email)?;
    writeln!(
        out,
        "organisation: {}",
        r.organisation.as_deref().unwrap_or("")
    )?;
    writeln!(out, "topic:        {}", r.topic)?;
    writeln!(out, "language:     {}", r.language)?;
    writeln!(
        out,
        "delivery:     {} after {} attempt(s){}",
        r.status.as_deref().unwrap_or("no outbox row"),
        r.attempts.unwrap_or(0),
        r.sent_at
            .map(|t| format!(", sent {}", time(t)))
            .unwrap_or_default()
    )?;
    if let Some(e) = &r.last_error {
        writeln!(out, "last error:   {e}")?;
    }
    writeln!(out, "message:\n{}", r.message)
}

/// One enquiry for an export: every stored field, times also readable.
fn exported(r: &EnquiryRecord) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap_or_default();
    v["received"] = time(r.received_at).into();
    if let Some(t) = r.sent_at {
        v["sent"] = time(t).into();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_checked() {
        assert_eq!(
            reference_of(" enq-abc123-def456 ").unwrap(),
            "ENQ-ABC123-DEF456"
        );
        assert!(reference_of("ABC").is_err());
        assert!(reference_of("ENQ-'; DROP").is_err());
        assert_eq!(
            address(" Ada@Visitor.example ").unwrap(),
            "Ada@Visitor.example"
        );
        assert!(address("ada").is_err());
        assert!(address("@x").is_err());
    }
}
