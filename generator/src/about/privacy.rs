//! The privacy notice (`/docs/about/privacy/`): what the service stores
//! about a visitor, why, for how long and whom to ask (GDPR Art. 13).
//!
//! Its facts come from the service information, so the page cannot state a
//! different period or address from the one the sidecar uses: the
//! retention is `contact.enquiry_retention_days`, which is also the
//! sidecar's default, and the address is the public contact e-mail.

use std::fmt::Write as _;

use crate::model::ServiceInformation;

/// Site path of the page, linked from the contact form, the chat and every
/// page's footer.
pub const URL: &str = "/docs/about/privacy/";

pub(super) fn privacy(s: &ServiceInformation) -> String {
    let c = &s.contact;
    let days = c.enquiry_retention_days;
    let mut out = String::new();
    let controller = s
        .consortium
        .members
        .iter()
        .find(|m| m.role.to_lowercase().starts_with("coordinator"))
        .map_or_else(
            || format!("the consortium that runs {}", s.name),
            |m| {
                format!(
                    "{}, which coordinates the consortium that runs {}",
                    m.name, s.name
                )
            },
        );
    let _ = writeln!(
        out,
        "This page says what {} keeps about you when you use this site, why, for how long, and how to see or delete it. The organisation responsible (the controller under the EU General Data Protection Regulation, GDPR) is {controller}. Write to [{email}](mailto:{email}){} about anything on this page.\n",
        s.name,
        c.postal_address
            .as_deref()
            .map(|a| format!(" or to {a}"))
            .unwrap_or_default(),
        email = c.email,
    );

    out.push_str("## Enquiries through the contact form\n\n");
    let _ = writeln!(
        out,
        "When you send the [enquiry form]({form}), we store what you typed: your name, e-mail address, organisation (if you gave one), topic and message, with the time we received it, the language of the form you used (so that we answer in it) and a reference (`ENQ-…`). We use them only to answer you, and the form sends nothing until you press send.\n",
        form = c.form_url
    );
    out.push_str("- **Why, and on what basis**: to answer your enquiry, with your consent, which you give with the form's check box (GDPR Art. 6(1)(a)). You may withdraw it at any time by asking us to delete the enquiry.\n");
    out.push_str("- **Who receives it**: the enquiry is mailed to our own contact address and read by the people who answer it. We do not sell it, share it with anyone else or use it for marketing.\n");
    let _ = writeln!(
        out,
        "- **How long**: the service deletes an enquiry **{days} days** after it has been mailed to us; one that could not be delivered is deleted {days} days after we received it. Our reply and your further mails are kept in our mailbox like any other correspondence.\n"
    );

    out.push_str("## What else is processed\n\n");
    let _ = writeln!(
        out,
        "- **Your network address**, only for a few minutes: to limit how many enquiries, challenges and chat questions one client can send, the service counts requests per address (IPv6 per /64 network) in windows of minutes, and deletes each count when its window ends.\n\
         - **The chat** answers from the published pages. It stores no question, and no question is written to a log; when it suggests asking a person, the question goes into the contact form's address after `#`, which your browser does not send to any server.\n\
         - **Server logs** record each request's method, kind of page, status and duration, not the address of the page or what you typed, and never a name, e-mail address or message. When the server is overloaded, the network address of a connection it refuses is logged.\n\
         - **No cookies or trackers**: the site sets no cookies and loads nothing from other sites. Your choice of light or dark theme stays in your browser.\n"
    );

    out.push_str("## Your rights\n\n");
    let _ = writeln!(
        out,
        "Write to [{email}](mailto:{email}), quoting your reference if you have it, to:\n\n\
         - **see** everything we hold about you (a copy of your enquiries with every stored field: GDPR Art. 15);\n\
         - **correct** it (Art. 16);\n\
         - **delete** it before the {days} days are over (Art. 17), or restrict or object to its use (Art. 18 and 21);\n\
         - receive it in a machine-readable form (Art. 20).\n\n\
         We answer within one month. We may ask you to confirm that the address is yours, by writing from it. You also have the right to complain to a data protection supervisory authority, in particular in the EU country where you live or work, or where you think your rights were infringed (Art. 77).\n",
        email = c.email,
    );
    out
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
        let text = privacy(&s);
        assert!(text.contains("**42 days**"), "{text}");
        assert!(text.contains(&format!("mailto:{}", s.contact.email)));
        assert!(text.contains("Art. 15") && text.contains("Art. 17") && text.contains("Art. 77"));
    }
}
