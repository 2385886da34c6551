//! The privacy notice (`/docs/about/privacy/`): what the service stores
//! about a visitor, why, for how long and whom to ask (GDPR Art. 13).
//!
//! Its facts come from the service information, so the page cannot state a
//! different period or address from the one the sidecar uses: the
//! retention is `contact.enquiry_retention_days`, which is also the
//! sidecar's default, and the address is the public contact e-mail.

use std::fmt::Write as _;

use anyhow::Result;

use super::Words;
use crate::model::ServiceInformation;

/// Site path of the page, linked from the contact form, the chat and every
/// page's footer.
pub const URL: &str = "/docs/about/privacy/";

pub(super) fn privacy(s: &ServiceInformation, w: &Words<'_>) -> Result<String> {
    let c = &s.contact;
    let days = c.enquiry_retention_days.to_string();
    let email = c.email.as_str();
    let t = |key: &str| w.get(&format!("privacy.{key}"));
    let mut out = String::new();
    // The coordinator, found by its role in the default language.
    let controller = match w.coordinator(s) {
        Some(m) => w.fill(
            "privacy.controller_member",
            &[("member", &m.name), ("name", &s.name)],
        )?,
        None => w.fill("privacy.controller_consortium", &[("name", &s.name)])?,
    };
    let address = match c.postal_address.as_deref() {
        Some(a) => w.fill("privacy.address", &[("address", a)])?,
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "{}\n",
        w.fill(
            "privacy.intro",
            &[
                ("name", &s.name),
                ("controller", &controller),
                ("email", email),
                ("address", &address),
            ],
        )?
    );
    let _ = writeln!(out, "## {}\n", t("enquiries_heading")?);
    let form = w.url(c.form_url.as_str());
    let _ = writeln!(
        out,
        "{}\n",
        w.fill("privacy.enquiries", &[("form", &form)])?
    );
    let _ = writeln!(out, "- {}", t("why")?);
    let _ = writeln!(out, "- {}", t("who")?);
    let _ = writeln!(
        out,
        "- {}\n",
        w.fill("privacy.how_long", &[("days", &days)])?
    );

    let _ = writeln!(out, "## {}\n", t("else_heading")?);
    for key in ["network", "chat", "logs", "cookies"] {
        let _ = writeln!(out, "- {}", t(key)?);
    }
    out.push('\n');

    let _ = writeln!(out, "## {}\n", t("rights_heading")?);
    let _ = writeln!(out, "{}\n", w.fill("privacy.rights", &[("email", email)])?);
    let _ = writeln!(out, "- {}", t("see")?);
    let _ = writeln!(out, "- {}", t("correct")?);
    let _ = writeln!(out, "- {}", w.fill("privacy.delete", &[("days", &days)])?);
    let _ = writeln!(out, "- {}\n", t("portable")?);
    let _ = writeln!(out, "{}\n", t("answer")?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_states_the_published_period_and_address() {
        let package = std::path::PathBuf::from(
            std::env::var_os("CARGO_MANIFEST_DIR")
                .expect("cargo sets CARGO_MANIFEST_DIR for tests"),
        );
        let content = crate::content::load_content(&package.join("../content")).unwrap();
        let mut s = content.service;
        s.contact.enquiry_retention_days = 42;
        let messages = crate::messages::Messages::load(&package.join("../templates")).unwrap();
        let words = Words::new(&messages, "en", &s, Default::default());
        let text = privacy(&s, &words).unwrap();
        assert!(text.contains("**42 days**"), "{text}");
        assert!(text.contains(&format!("mailto:{}", s.contact.email)));
        assert!(text.contains("Art. 15") && text.contains("Art. 17") && text.contains("Art. 77"));
    }
}
