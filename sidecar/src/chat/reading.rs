//! What a question asks for, read by the rules of its language.

use super::dutch;
use super::intent::{self, Intent};
use crate::search::text::Lang;

/// Reads the intent of a question in `lang`: Dutch by Dutch rules
/// ([`dutch`]), any other language as English ([`intent`]).
pub fn classify_in(lang: Lang, question: &str) -> Intent {
    match lang {
        Lang::Dutch => dutch::classify(question),
        Lang::English | Lang::Plain => intent::classify(question),
    }
}
