//! The languages the contact form speaks: the `language` field of a
//! submission, the field errors the sidecar answers in it, the thank-you
//! page a form post is sent to, and the enum the OpenAPI document lists
//! (decision 0266). A language is here once its words are written in both
//! programs: the page's in `templates/messages/`, the field errors in the
//! sidecar.

use crate::routes::CONTACT_THANKS;

/// A language of the contact form; without one, English.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ContactLanguage {
    #[default]
    En,
    Nl,
}

impl ContactLanguage {
    /// Every language, the default first.
    pub const ALL: [ContactLanguage; 2] = [ContactLanguage::En, ContactLanguage::Nl];

    /// The BCP 47 code, as the form sends it and `Content-Language` says it.
    pub const fn code(self) -> &'static str {
        match self {
            ContactLanguage::En => "en",
            ContactLanguage::Nl => "nl",
        }
    }

    /// Its name in English, the language of the mail to the organisation.
    pub const fn name(self) -> &'static str {
        match self {
            ContactLanguage::En => "English",
            ContactLanguage::Nl => "Dutch",
        }
    }

    /// The language whose code is `code`, exactly (the form sends its
    /// page's `lang`, lower case).
    pub fn parse(code: &str) -> Option<ContactLanguage> {
        ContactLanguage::ALL.into_iter().find(|l| l.code() == code)
    }

    /// The codes of [`ContactLanguage::ALL`].
    pub fn codes() -> [&'static str; 2] {
        ContactLanguage::ALL.map(ContactLanguage::code)
    }

    /// The thank-you page in this language: [`CONTACT_THANKS`] for the
    /// default, under `/{code}` for the others (as every page is).
    pub fn thanks_path(self) -> String {
        match self {
            ContactLanguage::En => CONTACT_THANKS.to_owned(),
            other => format!("/{}{CONTACT_THANKS}", other.code()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_the_thanks_page_follows_the_language() {
        for l in ContactLanguage::ALL {
            assert_eq!(ContactLanguage::parse(l.code()), Some(l));
        }
        assert_eq!(ContactLanguage::parse("NL"), None);
        assert_eq!(ContactLanguage::parse("de"), None);
        assert_eq!(ContactLanguage::default(), ContactLanguage::ALL[0]);
        assert_eq!(ContactLanguage::En.thanks_path(), "/contact/thanks/");
        assert_eq!(ContactLanguage::Nl.thanks_path(), "/nl/contact/thanks/");
    }
}
