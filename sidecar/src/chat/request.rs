//! The chat request: `{"message": "…", "history": [{"role", "text"}]}`,
//! checked field by field (400 for a body that is not such an object, 422
//! naming each field that is wrong).

use serde::Deserialize;
use serde_json::Value;

use super::{HISTORY_MAX, MESSAGE_MAX};
use crate::http::problem::{Code, FieldError, Problem};

/// One earlier turn of the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// `user` or `assistant`.
    pub from_user: bool,
    pub text: String,
}

/// A checked question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub message: String,
    pub history: Vec<Turn>,
    /// The language to answer in and from (a BCP 47 code, lower case);
    /// `None`: the site's default.
    pub language: Option<String>,
}

impl Question {
    /// The visitor's previous question, if the history has one.
    pub fn previous_question(&self) -> Option<&str> {
        self.history
            .iter()
            .rev()
            .find(|t| t.from_user)
            .map(|t| t.text.as_str())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    message: Option<Value>,
    history: Option<Value>,
    language: Option<Value>,
}

fn field(name: &'static str, reason: impl Into<String>, code: &'static str) -> FieldError {
    FieldError {
        name: name.into(),
        reason: reason.into(),
        code: Some(code),
    }
}

/// Parses and checks a body.
pub fn parse(body: &[u8]) -> Result<Question, Problem> {
    let raw: Raw = serde_json::from_slice(body).map_err(|e| {
        Problem::new(
            Code::BadRequest,
            format!(
                "The body is not a chat request: a JSON object with `message` and optionally \
                 `history` and `language` ({e})."
            ),
        )
    })?;
    let mut errors = Vec::new();
    let message = match raw.message {
        Some(Value::String(s)) => {
            let s = s.trim().to_owned();
            let n = s.chars().count();
            if n == 0 {
                errors.push(field("message", "must not be empty", "required"));
            } else if n > MESSAGE_MAX {
                errors.push(field(
                    "message",
                    format!("at most {MESSAGE_MAX} characters, not {n}"),
                    "too_long",
                ));
            } else if s.chars().any(|c| c.is_control() && !c.is_whitespace()) {
                errors.push(field(
                    "message",
                    "must not contain control characters",
                    "invalid_characters",
                ));
            }
            s
        }
        None | Some(Value::Null) => {
            errors.push(field("message", "is required", "required"));
            String::new()
        }
        Some(_) => {
            errors.push(field("message", "must be a string", "invalid_type"));
            String::new()
        }
    };
    let history = match raw.history {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(turns)) if turns.len() > HISTORY_MAX => {
            errors.push(field(
                "history",
                format!("at most {HISTORY_MAX} turns, not {}", turns.len()),
                "too_long",
            ));
            Vec::new()
        }
        Some(Value::Array(turns)) => {
            let mut out = Vec::with_capacity(turns.len());
            for turn in turns {
                match turn_of(&turn) {
                    Some(t) => out.push(t),
                    None => {
                        errors.push(field(
                            "history",
                            format!(
                                "each turn is {{\"role\": \"user\" or \"assistant\", \"text\": \
                                 a string of at most {MESSAGE_MAX} characters}}"
                            ),
                            "invalid_format",
                        ));
                        break;
                    }
                }
            }
            out
        }
        Some(_) => {
            errors.push(field(
                "history",
                "must be an array of turns",
                "invalid_type",
            ));
            Vec::new()
        }
    };
    let language = match raw.language {
        None | Some(Value::Null) => None,
        Some(Value::String(code)) if is_language_code(&code) => Some(code.to_ascii_lowercase()),
        Some(Value::String(_)) => {
            errors.push(field(
                "language",
                "must be a language code such as `en` or `nl`",
                "invalid_format",
            ));
            None
        }
        Some(_) => {
            errors.push(field("language", "must be a string", "invalid_type"));
            None
        }
    };
    if !errors.is_empty() {
        let names: Vec<&str> = errors.iter().map(|e| &*e.name).collect();
        return Err(Problem::new(
            Code::InvalidSubmission,
            format!("Correct these fields: {}.", names.join(", ")),
        )
        .with_errors(errors));
    }
    Ok(Question {
        message,
        history,
        language,
    })
}

/// A BCP 47 code as the site declares its languages: two or three
/// letters, optionally `-` and a region or script of two to eight letters
/// or digits.
fn is_language_code(code: &str) -> bool {
    let mut parts = code.split('-');
    let primary = parts.next().unwrap_or_default();
    (2..=3).contains(&primary.len())
        && primary.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
        && code.split('-').count() <= 3
}

fn turn_of(v: &Value) -> Option<Turn> {
    let o = v.as_object()?;
    if o.keys().any(|k| k != "role" && k != "text") {
        return None;
    }
    let from_user = match o.get("role")?.as_str()? {
        "user" => true,
        "assistant" => false,
        _ => return None,
    };
    let text = o.get("text")?.as_str()?;
    (text.chars().count() <= MESSAGE_MAX).then(|| Turn {
        from_user,
        text: text.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(body: &str) -> Vec<(String, &'static str)> {
        match parse(body.as_bytes()) {
            Ok(_) => Vec::new(),
            Err(p) => p
                .errors
                .iter()
                .map(|e| (e.name.to_string(), e.code.unwrap_or(p.code.as_str())))
                .chain(
                    p.errors
                        .is_empty()
                        .then(|| (String::new(), p.code.as_str())),
                )
                .collect(),
        }
    }

    #[test]
    fn fields_are_checked() {
        let ok = parse(
            br#"{"message":"  How is pH measured? ","history":[{"role":"user","text":"Hi"}]}"#,
        )
        .unwrap();
        assert_eq!(ok.message, "How is pH measured?");
        assert_eq!(ok.previous_question(), Some("Hi"));
        assert_eq!(codes("[]"), [(String::new(), "bad_request")]);
        assert_eq!(
            codes(r#"{"message":"x","extra":1}"#),
            [(String::new(), "bad_request")]
        );
        assert_eq!(codes("{}"), [("message".into(), "required")]);
        assert_eq!(
            codes(r#"{"message":"  "}"#),
            [("message".into(), "required")]
        );
        assert_eq!(
            codes(r#"{"message":5}"#),
            [("message".into(), "invalid_type")]
        );
        let long = format!(r#"{{"message":"{}"}}"#, "a".repeat(MESSAGE_MAX + 1));
        assert_eq!(codes(&long), [("message".into(), "too_long")]);
        assert_eq!(
            codes(r#"{"message":"x","history":[{"role":"bot","text":"y"}]}"#),
            [("history".into(), "invalid_format")]
        );
        let many = format!(
            r#"{{"message":"x","history":[{}]}}"#,
            [r#"{"role":"user","text":"y"}"#; 11].join(",")
        );
        assert_eq!(codes(&many), [("history".into(), "too_long")]);
        assert_eq!(
            codes(r#"{"message":"a\u0007b"}"#),
            [("message".into(), "invalid_characters")]
        );
    }
}
