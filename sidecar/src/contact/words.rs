//! The sentences the contact route answers a person with, in each language
//! the form speaks: every field's error and the `detail` of a refusal once
//! the form has been read (decision 0266). What is answered before the body
//! is read (origin, rate limit, the body's size and syntax) does not know
//! the language and stays English, as do the problem titles.

use contract::contact::ContactLanguage;

/// One language's sentences. `{label}` is a field's name as a sentence
/// starts with it (lower-cased after "Please enter"), `{kind}` what came
/// instead of text, `{max}` a length, `{n}` a count, `{seconds}` a wait.
#[derive(Debug)]
pub struct Words {
    pub name: &'static str,
    pub email: &'static str,
    pub organisation: &'static str,
    pub topic: &'static str,
    pub message: &'static str,
    pub altcha: &'static str,
    pub language: &'static str,
    pub required: &'static str,
    pub not_text: &'static str,
    pub null: &'static str,
    pub number: &'static str,
    pub array: &'static str,
    pub object: &'static str,
    pub too_long: &'static str,
    pub control: &'static str,
    pub email_format: &'static str,
    pub topic_choice: &'static str,
    pub consent: &'static str,
    pub to_correct_one: &'static str,
    pub to_correct: &'static str,
    pub challenge_missing: &'static str,
    pub challenge_invalid: &'static str,
    pub challenge_expired: &'static str,
    pub too_fast: &'static str,
    pub challenge_replayed: &'static str,
    pub not_stored: &'static str,
}

const EN: Words = Words {
    name: "Your name",
    email: "Your email address",
    organisation: "The organisation",
    topic: "A topic",
    message: "Your message",
    altcha: "The verification field",
    language: "The language",
    required: "Please enter {label}.",
    not_text: "{label} must be text, not {kind}.",
    null: "null",
    number: "a number",
    array: "an array",
    object: "an object",
    too_long: "{label} must be at most {max} characters.",
    control: "{label} contains control characters.",
    email_format: "Please enter an email address like name@example.org.",
    topic_choice: "Please choose one of the listed topics.",
    consent: "Please agree to be contacted about this enquiry, or we cannot answer it.",
    to_correct_one: "1 field of the form must be corrected; `errors` lists them.",
    to_correct: "{n} fields of the form must be corrected; `errors` lists them.",
    challenge_missing: "The form carries no solved verification challenge (`altcha`); the contact \
                        page solves one with scripts enabled.",
    challenge_invalid: "The verification challenge could not be verified: it is malformed, \
                        altered or wrongly solved.",
    challenge_expired: "The verification challenge has expired; fetch a new one and submit again.",
    too_fast: "The form was sent less than {seconds} seconds after its challenge was issued; wait \
               a moment and submit again.",
    challenge_replayed: "This verification challenge was already used; fetch a new one to send \
                         another enquiry.",
    not_stored: "The enquiry could not be stored right now; nothing was recorded. Please try again.",
};

const NL: Words = Words {
    name: "Uw naam",
    email: "Uw e-mailadres",
    organisation: "De organisatie",
    topic: "Een onderwerp",
    message: "Uw bericht",
    altcha: "Het verificatieveld",
    language: "De taal",
    required: "Vul {label} in.",
    not_text: "{label} moet tekst zijn, niet {kind}.",
    null: "null",
    number: "een getal",
    array: "een lijst",
    object: "een object",
    too_long: "{label} mag hoogstens {max} tekens lang zijn.",
    control: "{label} bevat stuurtekens.",
    email_format: "Vul een e-mailadres in zoals naam@voorbeeld.nl.",
    topic_choice: "Kies een van de onderwerpen uit de lijst.",
    consent: "Geef aan dat we over deze vraag contact met u mogen opnemen; anders kunnen we haar \
              niet beantwoorden.",
    to_correct_one: "1 veld van het formulier moet worden verbeterd; `errors` noemt het.",
    to_correct: "{n} velden van het formulier moeten worden verbeterd; `errors` noemt ze.",
    challenge_missing: "Het formulier bevat geen opgeloste verificatie (`altcha`); de \
                        contactpagina lost die op als scripts aan staan.",
    challenge_invalid: "De verificatie kon niet worden gecontroleerd: ze is onjuist, gewijzigd of \
                        verkeerd opgelost.",
    challenge_expired: "De verificatie is verlopen; haal een nieuwe op en verstuur het formulier \
                        opnieuw.",
    too_fast: "Het formulier is minder dan {seconds} seconden na de verificatie verstuurd; wacht \
               even en verstuur het opnieuw.",
    challenge_replayed: "Deze verificatie is al gebruikt; haal een nieuwe op om nog een vraag te \
                         versturen.",
    not_stored: "Uw vraag kon nu niet worden opgeslagen; er is niets vastgelegd. Probeer het \
                 opnieuw.",
};

/// The sentences of `language`.
pub fn words(language: ContactLanguage) -> &'static Words {
    match language {
        ContactLanguage::En => &EN,
        ContactLanguage::Nl => &NL,
    }
}

/// `template` with each `{name}` of `vars` replaced.
pub fn fill(template: &str, vars: &[(&str, &str)]) -> String {
    vars.iter().fold(template.to_owned(), |s, (name, value)| {
        s.replace(&format!("{{{name}}}"), value)
    })
}

impl Words {
    /// The `detail` of a 422 with `n` field errors.
    pub fn to_correct(&self, n: usize) -> String {
        if n == 1 {
            self.to_correct_one.to_owned()
        } else {
            fill(self.to_correct, &[("n", &n.to_string())])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_fills_the_same_places() {
        let places = |w: &Words| {
            let all = [
                w.required,
                w.not_text,
                w.too_long,
                w.control,
                w.to_correct,
                w.too_fast,
            ];
            all.map(|s| {
                ["{label}", "{kind}", "{max}", "{n}", "{seconds}"]
                    .into_iter()
                    .filter(|p| s.contains(p))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(places(&EN), places(&NL));
        assert_eq!(
            EN.to_correct(2),
            "2 fields of the form must be corrected; `errors` lists them."
        );
        assert_eq!(NL.to_correct(1), NL.to_correct_one);
    }
}
