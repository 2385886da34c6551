//! `/.well-known/security.txt` (RFC 9116) and its expiry.

use super::text::{midnight, one_line};
use crate::model::{Date, ServiceInformation, Site};

/// RFC 9116 `Expires`: 364 days after `date`, at midnight UTC — always less
/// than a year ahead of the content date, leap years included.
pub fn security_expires(date: &Date) -> String {
    // Past the calendar's last day (in 9999) the last day stands.
    let expires = date
        .calendar()
        .checked_add(time::Duration::days(364))
        .unwrap_or(time::Date::MAX);
    midnight(expires)
}

/// `/.well-known/security.txt` (RFC 9116).
pub fn security_txt(base_url: &str, site: &Site, service: &ServiceInformation) -> String {
    let languages = if service.contact.languages.is_empty() {
        site.language.clone()
    } else {
        service.contact.languages.join(", ")
    };
    format!(
        "# How to report a security problem to {name}.\n\
        Contact: mailto:{email}\n\
        Contact: {form}\n\
        Expires: {expires}\n\
        Preferred-Languages: {languages}\n\
        Canonical: {base_url}/.well-known/security.txt\n",
        name = one_line(&service.name),
        email = service.contact.email,
        form = service.contact.form_url.absolute(base_url),
        expires = security_expires(&site.updated),
    )
}
