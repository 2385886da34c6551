//! The submission: parsed from JSON or an HTML form post, then every field
//! checked for presence, size and format. All field errors are reported at
//! once, each with a stable code and a sentence a person can act on.

use std::collections::HashMap;

use percent_encoding::percent_decode;
use serde_json::Value;

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
    /// Whether the bot trap was filled in.
    pub honeypot: bool,
}

/// Fields by name; a field whose JSON value is not a string (or boolean,
/// for `consent`) is kept as `Err` with its JSON type.
type Fields = HashMap<String, Result<String, &'static str>>;

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
                        Value::Null => Err("null"),
                        Value::Number(_) => Err("a number"),
                        Value::Array(_) => Err("an array"),
                        Value::Object(_) => Err("an object"),
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

/// Checks every field. `topics` lists the accepted topic values.
pub fn validate(fields: &Fields, topics: &[String]) -> Result<Submission, Vec<FieldError>> {
    let mut errors = Vec::new();
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
                        format!("{label} must be text, not {kind}."),
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
                        format!("Please enter {}.", label.to_lowercase()),
                    );
                    None
                }
                None => None,
                Some(v) if v.chars().count() > max => {
                    err(
                        name,
                        "too_long",
                        format!("{label} must be at most {max} characters."),
                    );
                    None
                }
                Some(v) if has_control(&v, multiline) => {
                    err(
                        name,
                        "invalid_characters",
                        format!("{label} contains control characters."),
                    );
                    None
                }
                Some(v) => Some(v),
            }
        };
    let name = text("name", "Your name", NAME_MAX, true, false);
    let email = text("email", "Your email address", EMAIL_MAX, true, false);
    let organisation = text(
        "organisation",
        "The organisation",
        ORGANISATION_MAX,
        false,
        false,
    );
    let topic = text("topic", "A topic", TOPIC_MAX, true, false);
    let message = text("message", "Your message", MESSAGE_MAX, true, true);
    let altcha = text("altcha", "The verification field", ALTCHA_MAX, false, false);
    let honeypot = matches!(fields.get("website"), Some(Ok(v)) if !v.trim().is_empty());
    if let Some(e) = &email
        && !email_ok(e)
    {
        err(
            "email",
            "invalid_format",
            "Please enter an email address like name@example.org.".into(),
        );
    }
    if let Some(t) = &topic
        && !topics.iter().any(|x| x == t)
    {
        err(
            "topic",
            "invalid_choice",
            "Please choose one of the listed topics.".into(),
        );
    }
    let consent = match fields.get("consent") {
        Some(Ok(v)) => matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "true" | "on" | "yes" | "1"
        ),
        _ => false,
    };
    if !consent {
        err(
            "consent",
            "consent_required",
            "Please agree to be contacted about this enquiry, or we cannot answer it.".into(),
        );
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
