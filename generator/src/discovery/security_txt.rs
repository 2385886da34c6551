//! `/.well-known/security.txt` (RFC 9116) and its expiry.

use super::text::{midnight, one_line};
use crate::model::{Date, ServiceInformation, Site};

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub(super) fn days_from_civil(y: i32, m: u32, d: u32) -> i64 {
    // Count years from March, so the leap day is the last day of a year.
    let y = i64::from(y) - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let month_from_march = (i64::from(m) + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(d) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The inverse of [`days_from_civil`].
pub(super) fn civil_from_days(days: i64) -> (i32, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let d = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let m = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let y = year_of_era + era * 400 + i64::from(m <= 2);
    // The ranges are bounded by construction: a month is 1..=12, a day 1..=31.
    (y as i32, m as u32, d as u32)
}

/// RFC 9116 `Expires`: 364 days after `date`, at midnight UTC — always less
/// than a year ahead of the content date, leap years included.
pub fn security_expires(date: &Date) -> String {
    let (y, m, d) = date.ymd();
    let (y, m, d) = civil_from_days(days_from_civil(y, m, d) + 364);
    midnight(y, m, d)
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
