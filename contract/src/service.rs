//! The organisation's service information (`api/service.json`), typed:
//! the generator reads `content/` into these types (`deny_unknown_fields`,
//! so a typo fails the build), serialises the published document and its
//! JSON Schema (schemars) from them, and the sidecar reads the published
//! document back into them. One definition, so the two cannot drift.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Declares a string newtype that is validated on deserialisation and
/// serialises as the plain string.
macro_rules! checked_string {
    ($(#[$meta:meta])* $name:ident, $expect:literal, $check:expr) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, JsonSchema)]
        #[schemars(transparent)]
        pub struct $name(String);

        impl $name {
            /// Validates `s`, returning what was expected on failure.
            pub fn parse(s: &str) -> Result<Self, String> {
                let check: fn(&str) -> bool = $check;
                if check(s) {
                    Ok(Self(s.to_owned()))
                } else {
                    Err(format!("invalid value `{s}`, expected {}", $expect))
                }
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Self::parse(&s).map_err(serde::de::Error::custom)
            }
        }
    };
}

checked_string!(
    /// A stable identifier: lowercase ASCII letters, digits and single hyphens.
    Id,
    "an identifier of lowercase letters, digits and hyphens (e.g. `water-watch`)",
    is_id
);

checked_string!(
    /// A calendar date, `YYYY-MM-DD`.
    Date,
    "a date written YYYY-MM-DD",
    is_date
);

checked_string!(
    /// An absolute `https://` URL, or a same-site path starting with `/`.
    Link,
    "an https:// URL or a site path starting with /",
    is_link
);

checked_string!(
    /// A public e-mail address.
    Email,
    "an e-mail address such as info@example.org",
    is_email
);

checked_string!(
    /// An ISO 3166-1 alpha-2 country code, upper case.
    CountryCode,
    "a two-letter upper-case ISO 3166-1 country code (e.g. `NL`)",
    |s| s.len() == 2 && s.bytes().all(|b| b.is_ascii_uppercase())
);

checked_string!(
    /// An SPDX licence identifier such as `CC-BY-4.0`.
    LicenceId,
    "an SPDX licence identifier such as `CC-BY-4.0`",
    |s| !s.is_empty()
        && s.len() <= 64
        && s
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'+')
);

fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('-')
        && !s.ends_with('-')
        && !s.contains("--")
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn is_date(s: &str) -> bool {
    calendar_date(s).is_some()
}

/// The day `s` names when it is written `YYYY-MM-DD` (digits only) and
/// falls in 1900 or later.
fn calendar_date(s: &str) -> Option<time::Date> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u16> {
        let part = &s[r];
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if y < 1900 {
        return None;
    }
    let month = time::Month::try_from(u8::try_from(m).ok()?).ok()?;
    time::Date::from_calendar_date(i32::from(y), month, u8::try_from(d).ok()?).ok()
}

fn is_link(s: &str) -> bool {
    let ok_chars = !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic());
    if !ok_chars {
        return false;
    }
    if let Some(rest) = s.strip_prefix("https://") {
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        return !host.is_empty() && host.contains('.');
    }
    s.starts_with('/') && !s.starts_with("//")
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && s.bytes()
            .all(|b| b.is_ascii_graphic() && b != b'<' && b != b'>')
        && !domain.contains('@')
}

impl Date {
    /// The day this date names (checked on parse, so the fallback is never
    /// taken).
    pub fn calendar(&self) -> time::Date {
        calendar_date(&self.0).unwrap_or(time::Date::MIN)
    }
}

impl Link {
    /// The absolute form of this link under `base_url` (no trailing slash).
    pub fn absolute(&self, base_url: &str) -> String {
        if self.0.starts_with('/') {
            format!("{base_url}{}", self.0)
        } else {
            self.0.clone()
        }
    }
}

/// `api/service.json`: the organisation's public service information.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "ServiceInformation")]
pub struct ServiceInformation {
    /// The organisation's name.
    pub name: String,
    /// What the organisation is and does, in a paragraph.
    pub description: String,
    /// The organisation's public home page.
    pub url: Link,
    /// When this information was last reviewed.
    pub updated: Date,
    pub services: Vec<Service>,
    pub projects: Vec<Project>,
    pub evidence: Vec<Evidence>,
    pub scope: Scope,
    pub consortium: Consortium,
    pub contact: Contact,
    pub guardrails: Guardrails,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServiceStatus {
    Operational,
    Beta,
    Preserved,
    Retired,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Anyone may use it without asking.
    Open,
    /// Available after an enquiry through the contact form.
    OnRequest,
}

/// Something the organisation offers.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Service {
    pub id: Id,
    pub title: String,
    pub summary: String,
    pub status: ServiceStatus,
    pub access: Access,
    /// Who the service is for.
    pub audience: Vec<String>,
    /// Where to read more.
    pub url: Link,
    /// Projects this service grew from or belongs to.
    #[serde(default)]
    pub projects: Vec<Id>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProjectStatus {
    Active,
    Completed,
    /// Finished, with its material kept as a read-only archive.
    Archived,
}

/// A project the organisation runs or ran.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Project {
    pub id: Id,
    pub title: String,
    pub summary: String,
    pub status: ProjectStatus,
    pub started: Date,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<Date>,
    pub url: Link,
    pub themes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub funding: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    Publication,
    Dataset,
    Report,
    CaseStudy,
    Software,
}

/// A published result that backs what the organisation says of itself.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    pub id: Id,
    pub title: String,
    pub kind: EvidenceKind,
    pub summary: String,
    pub published: Date,
    pub url: Link,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    /// The project this evidence comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<Id>,
}

/// What the organisation does and does not deal with.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scope {
    pub summary: String,
    pub themes: Vec<String>,
    /// Where the organisation works (countries or regions).
    pub regions: Vec<String>,
    pub in_scope: Vec<String>,
    pub out_of_scope: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Consortium {
    pub summary: String,
    pub members: Vec<Member>,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Member {
    pub id: Id,
    pub name: String,
    pub country: CountryCode,
    pub role: String,
    pub url: Link,
}

/// Public contact data only: no personal addresses.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Contact {
    /// The organisation's public address.
    pub email: Email,
    /// The human enquiry form.
    pub form_url: Link,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_address: Option<String>,
    /// Languages enquiries may be written in (BCP 47).
    pub languages: Vec<String>,
    /// When an enquirer can expect an answer.
    pub response_time: String,
    /// Days an enquiry is kept after it was mailed to the organisation (one
    /// never delivered: after it was received); then the service deletes
    /// it. Stated on the privacy page and the sidecar's default.
    #[serde(default = "default_enquiry_retention_days")]
    #[schemars(range(min = 1, max = 3650))]
    pub enquiry_retention_days: u32,
}

/// The enquiry retention when the service information names none.
pub const DEFAULT_ENQUIRY_RETENTION_DAYS: u32 = 180;

fn default_enquiry_retention_days() -> u32 {
    DEFAULT_ENQUIRY_RETENTION_DAYS
}

/// What agents acting for users may and may not do with this service.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Guardrails {
    pub summary: String,
    /// Always true: no read call triggers an external action.
    pub read_only_calls_have_no_side_effects: bool,
    pub agents_may: Vec<String>,
    pub agents_must_not: Vec<String>,
    pub enquiries: EnquiryPolicy,
    /// Licences of the published material.
    pub licences: Vec<LicenceGrant>,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnquiryPolicy {
    /// An agent may draft an enquiry for its user.
    pub agents_may_prepare: bool,
    /// An agent may submit an enquiry itself (always false here).
    pub agents_may_submit: bool,
    /// Contacting anyone requires the user's explicit approval.
    pub requires_explicit_user_approval: bool,
    /// Where the human submits the enquiry.
    pub form_url: Link,
}

/// Kinds of published material a licence grant can cover; the live routes
/// take their data licence from the grant that covers `observation_data`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Material {
    /// The preserved archive's pages and files.
    Archive,
    /// Observation data: the observation and globe routes, data releases.
    ObservationData,
    /// Classification results of the classification platform.
    Classifications,
    /// Documentation pages outside the archive.
    Documentation,
    /// Service information, the contract and discovery documents.
    ServiceInformation,
}

/// Which licence covers which material.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LicenceGrant {
    /// The material in words.
    pub applies_to: String,
    /// The material in machine-readable kinds; each kind is covered by one
    /// grant at most.
    pub covers: Vec<Material>,
    pub licence: LicenceId,
    /// The licence's full title; filled in from `site.toml`'s licences, so
    /// content need not repeat it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub url: Link,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validators_accept_and_refuse() {
        assert!(Id::parse("water-watch").is_ok());
        for bad in ["", "Water", "a--b", "-a", "a-", "a_b", "a b"] {
            assert!(Id::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Date::parse("2024-02-29").is_ok());
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-1-01",
            "24-01-01",
            "2024-00-10",
        ] {
            assert!(Date::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Link::parse("https://example.org/x").is_ok());
        assert!(Link::parse("/docs/").is_ok());
        for bad in ["http://example.org", "//evil", "docs/", "https://", "/a b"] {
            assert!(Link::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Email::parse("info@example.org").is_ok());
        for bad in ["info", "a@b", "<a@b.c>", "a@.c", "a@b@c.d"] {
            assert!(Email::parse(bad).is_err(), "{bad:?}");
        }
        assert!(CountryCode::parse("NL").is_ok());
        assert!(CountryCode::parse("nl").is_err());
    }

    #[test]
    fn every_valid_date_is_the_day_after_the_one_before() {
        let mut previous: Option<time::Date> = None;
        let mut count = 0;
        for y in 1900..2401 {
            for m in 1..=12 {
                for d in 1..=31 {
                    let s = format!("{y:04}-{m:02}-{d:02}");
                    let Ok(date) = Date::parse(&s) else {
                        continue;
                    };
                    let day = date.calendar();
                    assert_eq!((day.year(), u8::from(day.month()), day.day()), (y, m, d));
                    if let Some(p) = previous {
                        assert_eq!(p.next_day(), Some(day), "{s}");
                    }
                    previous = Some(day);
                    count += 1;
                }
            }
        }
        // 1900..=2400 has 122 leap years (1900 and 2100..2300 are not, 2000
        // and 2400 are).
        assert_eq!(count, 501 * 365 + 122);
    }
}
