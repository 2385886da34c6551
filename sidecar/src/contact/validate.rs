//! The submission: parsed from JSON or an HTML form post, then every field
//! checked for presence, size and format. All field errors are reported at
//! once, each with a stable code and a sentence a person can act on, in the
//! language the form sends (`language`; see `words.rs`).

use std::collections::HashMap;

use contract::contact::ContactLanguage;
use percent_encoding::percent_decode;
use serde_json::Value;

use super::words::{Words, fill, words};
use crate::http::problem::FieldError;

/// Largest sizes, in characters (the contract's `maxLength`s).
pub const NAME_MAX: usize = 200;
pub const EMAIL_MAX: usize = 254;
pub const ORGANISATION_MAX: usize = 200;
pub const TOPIC_MAX: usize = 100;
pub const MESSAGE_MAX: usize = 5000;
pub const ALTCHA_MAX: usize = 8192;

/// The body's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Form,
}

/// A valid submission (the honeypot and challenge are checked elsewhere).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    pub name: String,
    pub email: String,
    pub organisation: Option<String>,
    pub topic: String,
    pub message: String,
    /// The raw `altcha` field, when given.
    pub altcha: Option<String>,
    /// The language the visitor wrote in (the page's).
    pub language: ContactLanguage,
    /// Whether the bot trap was filled in.
    pub honeypot: bool,
}

/// What a JSON field held instead of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotText {
    Null,
    Number,
    Array,
    Object,
}

impl NotText {
    fn said(self, w: &Words) -> &'static str {
        match self {
            NotText::Null => w.null,
            NotText::Number => w.number,
            NotText::Array => w.array,
            NotText::Object => w.object,
        }
    }
}

/// Fields by name; a field whose JSON value is not a string (or boolean,
/// for `consent`) is kept as `Err` with its JSON type.
type Fields = HashMap<String, Result<String, NotText>>;

/// Parses the body into fields; `Err` is the 400 detail.
pub fn parse(body: &[u8], format: Format) -> Result<Fields, String> {
    match format {
        Format::Json => {
            let value: Value = serde_json::from_slice(body)
                .map_err(|e| format!("The body is not valid JSON: {e}."))?;
            let Value::Object(map) = value else {
                return Err("The JSON body must be an object of the form's fields.".into());
            };
            Ok(map
                .into_iter()
                .map(|(k, v)| {
                    let v = match v {
                        Value::String(s) => Ok(s),
                        Value::Bool(b) => Ok(b.to_string()),
                        Value::Null => Err(NotText::Null),
                        Value::Number(_) => Err(NotText::Number),
                        Value::Array(_) => Err(NotText::Array),
                        Value::Object(_) => Err(NotText::Object),
                    };
                    (k, v)
                })
                .collect())
        }
        Format::Form => {
            let mut fields = Fields::new();
            for pair in body.split(|b| *b == b'&').filter(|p| !p.is_empty()) {
                let (k, v) = match pair.iter().position(|b| *b == b'=') {
                    Some(i) => (&pair[..i], &pair[i + 1..]),
                    None => (pair, &b""[..]),
                };
                let decode = |raw: &[u8]| -> Result<String, String> {
                    let plus: Vec<u8> = raw
                        .iter()
                        .map(|b| if *b == b'+' { b' ' } else { *b })
                        .collect();
                    percent_decode(&plus)
                        .decode_utf8()
                        .map(|s| s.into_owned())
                        .map_err(|_| "The form body is not valid UTF-8 once decoded.".to_owned())
                };
                let key = decode(k)?;
                let value = decode(v)?;
                // A repeated field keeps its first value, as a form has one of each.
                fields.entry(key).or_insert(Ok(value));
            }
            Ok(fields)
        }
    }
}

fn has_control(s: &str, allow_newlines: bool) -> bool {
    s.chars()
        .any(|c| c.is_control() && !(allow_newlines && matches!(c, '\n' | '\r' | '\t')))
}

/// A plausible address: one `@`, a non-empty local part of at most 64
/// characters, a domain with a dot, and no spaces, controls or brackets.
pub fn email_ok(email: &str) -> bool {
    let Some((local, domain)) = email.rsplit_once('@') else {
        return false;
    };
    !local.is_empty()
        && local.len() <= 64
        && !local.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
        && domain
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '.')
        && !email
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "<>()[],;:\\\"".contains(c))
}

/// The language of the submission: absent or empty is the default; any
/// other value must be one the form speaks. Its error is written in the
/// default language, as the visitor's is unknown then.
pub fn language(fields: &Fields) -> Result<ContactLanguage, FieldError> {
    let w = words(ContactLanguage::default());
    let refuse = |code: &'static str, reason: String| FieldError {
        name: "language".into(),
        reason,
        code: Some(code),
    };
    match fields.get("language") {
        None => Ok(ContactLanguage::default()),
        Some(Err(kind)) => Err(refuse(
            "invalid_type",
            fill(w.not_text, &[("label", w.language), ("kind", kind.said(w))]),
        )),
        Some(Ok(v)) if v.trim().is_empty() => Ok(ContactLanguage::default()),
        Some(Ok(v)) => ContactLanguage::parse(v.trim()).ok_or_else(|| {
            refuse(
                "invalid_choice",
                format!(
                    "{} must be one of {}.",
                    w.language,
                    ContactLanguage::codes().join(", ")
                ),
            )
        }),
    }
}

/// Checks every field. `topics` lists the accepted topic values.
pub fn validate(fields: &Fields, topics: &[String]) -> Result<Submission, Vec<FieldError>> {
    let mut errors = Vec::new();
    let language = language(fields).unwrap_or_else(|e| {
        errors.push(e);
        ContactLanguage::default()
    });
    let w = words(language);
    let mut err = |name: &'static str, code: &'static str, reason: String| {
        errors.push(FieldError {
            name: name.into(),
            reason,
            code: Some(code),
        });
    };
    let mut text =
        |name: &'static str, label: &str, max: usize, required: bool, multiline: bool| {
            let value = match fields.get(name) {
                None => None,
                Some(Err(kind)) => {
                    err(
                        name,
                        "invalid_type",
                        fill(w.not_text, &[("label", label), ("kind", kind.said(w))]),
                    );
                    return None;
                }
                Some(Ok(v)) => Some(v.trim().to_owned()).filter(|v| !v.is_empty()),
            };
            match value {
                None if required => {
                    err(
                        name,
                        "required",
                        fill(w.required, &[("label", &label.to_lowercase())]),
                    );
                    None
                }
                None => None,
                Some(v) if v.chars().count() > max => {
                    err(
                        name,
                        "too_long",
                        fill(w.too_long, &[("label", label), ("max", &max.to_string())]),
                    );
                    None
                }
                Some(v) if has_control(&v, multiline) => {
                    err(
                        name,
                        "invalid_characters",
                        fill(w.control, &[("label", label)]),
                    );
                    None
                }
                Some(v) => Some(v),
            }
        };
    let name = text("name", w.name, NAME_MAX, true, false);
    let email = text("email", w.email, EMAIL_MAX, true, false);
    let organisation = text(
        "organisation",
        w.organisation,
        ORGANISATION_MAX,
        false,
        false,
    );
    let topic = text("topic", w.topic, TOPIC_MAX, true, false);
    let message = text("message", w.message, MESSAGE_MAX, true, true);
    let altcha = text("altcha", w.altcha, ALTCHA_MAX, false, false);
    let honeypot = matches!(fields.get("website"), Some(Ok(v)) if !v.trim().is_empty());
    if let Some(e) = &email
        && !email_ok(e)
    {
        err("email", "invalid_format", w.email_format.into());
    }
    if let Some(t) = &topic
        && !topics.iter().any(|x| x == t)
    {
        err("topic", "invalid_choice", w.topic_choice.into());
    }
    let consent = match fields.get("consent") {
        Some(Ok(v)) => matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "true" | "on" | "yes" | "1"
        ),
        _ => false,
    };
    if !consent {
        err("consent", "consent_required", w.consent.into());
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Submission {
        name: name.unwrap_or_default(),
        email: email.unwrap_or_default(),
        organisation,
        topic: topic.unwrap_or_default(),
        message: message.unwrap_or_default(),
        altcha,
        language,
        honeypot,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topics() -> Vec<String> {
        vec!["other".into(), "project:x".into()]
    }

    #[test]
    fn form_and_json_give_the_same_submission() {
        let form = b"name=Ada+L%C3%B6w&email=ada%40example.org&topic=other&message=Hi%0Athere&consent=on&altcha=abc";
        let json = br#"{"name":"Ada L\u00f6w","email":"ada@example.org","topic":"other","message":"Hi\nthere","consent":true,"altcha":"abc"}"#;
        let a = validate(&parse(form, Format::Form).unwrap(), &topics()).unwrap();
        let b = validate(&parse(json, Format::Json).unwrap(), &topics()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.name, "Ada Löw");
        assert!(!a.honeypot);
    }

    #[test]
    fn every_bad_field_is_reported() {
        let body = format!(
            r#"{{"name":5,"email":"nope","topic":"gold","message":"{}","organisation":"a\u0007b"}}"#,
            "x".repeat(5001)
        );
        let errors =
            validate(&parse(body.as_bytes(), Format::Json).unwrap(), &topics()).unwrap_err();
        let got: Vec<(&str, &str)> = errors
            .iter()
            .map(|e| (&*e.name, e.code.unwrap_or_default()))
            .collect();
        assert_eq!(
            got,
            [
                ("name", "invalid_type"),
                ("organisation", "invalid_characters"),
                ("message", "too_long"),
                ("email", "invalid_format"),
                ("topic", "invalid_choice"),
                ("consent", "consent_required"),
            ]
        );
    }

    fn reasons(body: &str) -> Vec<(String, String)> {
        validate(&parse(body.as_bytes(), Format::Json).unwrap(), &topics())
            .unwrap_err()
            .into_iter()
            .map(|e| (e.name.into_owned(), e.reason))
            .collect()
    }

    #[test]
    fn errors_are_written_in_the_language_the_form_sends() {
        let bad = r#""name":"","email":"x","organisation":5,"topic":"gold","message":"a\u0007b""#;
        let long = format!(r#""name":"{}","consent":true"#, "x".repeat(201));
        let english = [
            ("name", "Please enter your name."),
            (
                "organisation",
                "The organisation must be text, not a number.",
            ),
            ("message", "Your message contains control characters."),
            (
                "email",
                "Please enter an email address like name@example.org.",
            ),
            ("topic", "Please choose one of the listed topics."),
            (
                "consent",
                "Please agree to be contacted about this enquiry, or we cannot answer it.",
            ),
        ];
        let owned = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(n, r)| (n.to_string(), r.to_string()))
                .collect()
        };
        // Without a language, and with `en`: the contract's English, unchanged.
        assert_eq!(reasons(&format!("{{{bad}}}")), owned(&english));
        assert_eq!(
            reasons(&format!(r#"{{{bad},"language":"en"}}"#)),
            owned(&english)
        );
        assert_eq!(
            reasons(&format!("{{{long}}}"))[0],
            owned(&[("name", "Your name must be at most 200 characters.")])[0]
        );
        let dutch = reasons(&format!(r#"{{{bad},"language":"nl"}}"#));
        assert_eq!(
            dutch,
            owned(&[
                ("name", "Vul uw naam in."),
                (
                    "organisation",
                    "De organisatie moet tekst zijn, niet een getal."
                ),
                ("message", "Uw bericht bevat stuurtekens."),
                ("email", "Vul een e-mailadres in zoals naam@voorbeeld.nl."),
                ("topic", "Kies een van de onderwerpen uit de lijst."),
                (
                    "consent",
                    "Geef aan dat we over deze vraag contact met u mogen opnemen; anders kunnen we haar niet beantwoorden.",
                ),
            ])
        );
        assert_eq!(
            reasons(&format!(r#"{{{long},"language":"nl"}}"#))[0].1,
            "Uw naam mag hoogstens 200 tekens lang zijn."
        );
    }

    #[test]
    fn the_language_is_one_the_form_speaks() {
        let ok = |body: &[u8], format| {
            validate(&parse(body, format).unwrap(), &topics())
                .unwrap()
                .language
        };
        let form = b"name=A&email=a%40b.org&topic=other&message=Hi&consent=on";
        assert_eq!(ok(form, Format::Form), ContactLanguage::En);
        assert_eq!(
            ok(&[&form[..], b"&language="].concat(), Format::Form),
            ContactLanguage::En
        );
        assert_eq!(
            ok(&[&form[..], b"&language=nl"].concat(), Format::Form),
            ContactLanguage::Nl
        );
        let refused = |value: &str| {
            let body = format!(
                r#"{{"name":"","email":"a@b.org","topic":"other","message":"Hi","consent":true,"language":{value}}}"#
            );
            let errors =
                validate(&parse(body.as_bytes(), Format::Json).unwrap(), &topics()).unwrap_err();
            errors
                .iter()
                .map(|e| {
                    (
                        e.name.to_string(),
                        e.code.unwrap_or_default(),
                        e.reason.clone(),
                    )
                })
                .collect::<Vec<_>>()
        };
        // An unknown language is refused, and the other errors are English.
        assert_eq!(
            refused(r#""de""#),
            [
                (
                    "language".to_owned(),
                    "invalid_choice",
                    "The language must be one of en, nl.".to_owned()
                ),
                (
                    "name".to_owned(),
                    "required",
                    "Please enter your name.".to_owned()
                ),
            ]
        );
        assert_eq!(refused(r#""NL""#)[0].1, "invalid_choice");
        assert_eq!(
            refused("5")[0],
            (
                "language".to_owned(),
                "invalid_type",
                "The language must be text, not a number.".to_owned()
            )
        );
    }

    #[test]
    fn malformed_bodies() {
        assert!(parse(b"{", Format::Json).is_err());
        assert!(parse(b"[1]", Format::Json).is_err());
        assert!(parse(b"name=%ff%fe", Format::Form).is_err());
        for bad in ["a", "a@b", "a b@c.d", "@c.d", "a@.c", "a@c..d", "<a@b.c>"] {
            assert!(!email_ok(bad), "{bad}");
        }
        assert!(email_ok("first.last+tag@sub.example.org"));
    }
}
