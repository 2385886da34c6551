//! What a Dutch question asks for ([`super::intent`] for English): an
//! action, live figures, or something to look up. Dutch puts the verb of a
//! polite request at the end ("Kunt u mijn metingen naar het team
//! sturen?") and a command's verb first ("Verwijder mijn gegevens"), so a
//! request is read from its opening and any action verb, a command from
//! its first word.

use super::intent::{Figure, Intent, normalise};

/// Commands: the verb first, in the imperative.
const COMMANDS: &[&str] = &[
    "abonneer",
    "annuleer",
    "bel",
    "bestel",
    "betaal",
    "boek",
    "contacteer",
    "dien",
    "e-mail",
    "informeer",
    "mail",
    "meld",
    "neem",
    "plaats",
    "publiceer",
    "registreer",
    "schrijf",
    "stuur",
    "upload",
    "verstuur",
    "verwijder",
    "wijzig",
    "wis",
    "zeg",
];

/// Infinitives of the actions a polite request ends with.
const ACTIONS: &[&str] = &[
    "aanmelden",
    "afmelden",
    "annuleren",
    "bellen",
    "bestellen",
    "betalen",
    "boeken",
    "contacteren",
    "doorsturen",
    "e-mailen",
    "indienen",
    "informeren",
    "inschrijven",
    "mailen",
    "melden",
    "opnemen",
    "opsturen",
    "opzeggen",
    "plaatsen",
    "publiceren",
    "registreren",
    "schrijven",
    "sturen",
    "uploaden",
    "versturen",
    "verwijderen",
    "wijzigen",
    "wissen",
];

/// Openings that make what follows a request to the service.
const REQUESTS: &[&str] = &[
    "kun je",
    "kunt u",
    "kunnen jullie",
    "wil je",
    "wilt u",
    "willen jullie",
    "zou je",
    "zou u",
    "zouden jullie",
    "graag",
    "alsjeblieft",
    "alstublieft",
    "ik wil dat je",
    "ik wil dat u",
];

/// Words that make a request one for information ("Kunt u me vertellen
/// hoe ik een meting meld?").
const TELLS: &[&str] = &["uitleggen", "vertel", "vertellen", "weten", "zien"];

/// Words of a figure question that carry no topic of their own.
const FIGURE_WORDS: &[&str] = &[
    "30",
    "aantal",
    "actief",
    "afgelopen",
    "al",
    "bij",
    "classificatie",
    "classificaties",
    "dagen",
    "data",
    "de",
    "deelnemers",
    "deze",
    "dit",
    "een",
    "er",
    "gedaan",
    "gegevens",
    "gemaakt",
    "geregistreerd",
    "het",
    "heeft",
    "hebben",
    "hoeveel",
    "in",
    "is",
    "je",
    "jullie",
    "land",
    "landen",
    "laatste",
    "locaties",
    "maand",
    "meest",
    "meetplek",
    "meetplekken",
    "meetpunten",
    "mensen",
    "meting",
    "metingen",
    "moment",
    "nieuwste",
    "nu",
    "op",
    "platform",
    "project",
    "projecten",
    "recente",
    "toe",
    "tot",
    "totaal",
    "u",
    "van",
    "verzameld",
    "vrijwilliger",
    "vrijwilligers",
    "waarneming",
    "waarnemingen",
    "wanneer",
    "was",
    "wat",
    "welke",
    "werd",
    "zijn",
];

/// Reads the intent of a Dutch question.
pub fn classify(question: &str) -> Intent {
    let q = normalise(question);
    if asks_to_act(&q, question.trim_end().ends_with('?')) {
        return Intent::Action;
    }
    let figures = figures(&q);
    let more = q
        .split(' ')
        .filter(|w| !w.is_empty() && !FIGURE_WORDS.contains(w))
        .count()
        > 1;
    if figures.is_empty() || more {
        Intent::Lookup
    } else {
        Intent::Figures(figures)
    }
}

fn asks_to_act(q: &str, is_question: bool) -> bool {
    let requested = REQUESTS.iter().any(|r| {
        q.strip_prefix(r)
            .is_some_and(|after| after.is_empty() || after.starts_with(' '))
    });
    let first = q.split(' ').next().unwrap_or_default();
    // "Neem contact op met …" is a command; "Hoe neem ik contact op?" opens
    // with a question word and stays a question.
    let command = COMMANDS.contains(&first) && !is_question;
    let acts = q
        .split(' ')
        .any(|w| ACTIONS.contains(&w) || COMMANDS.contains(&w));
    let tells = q.split(' ').any(|w| TELLS.contains(&w));
    command || (requested && acts && !tells)
}

fn figures(q: &str) -> Vec<Figure> {
    let counting = ["hoeveel", "aantal", "totaal"]
        .iter()
        .any(|p| q.contains(p));
    let latest = ["laatste", "meest recente", "nieuwste", "recentste"]
        .iter()
        .any(|p| q.contains(p));
    let has = |stems: &[&str]| q.split(' ').any(|w| stems.iter().any(|s| w.starts_with(s)));
    let observations = ["waarneming", "meting", "registratie"];
    let mut out = Vec::new();
    if counting {
        let recent = ["30 dagen", "deze maand", "afgelopen maand", "vorige maand"]
            .iter()
            .any(|p| q.contains(p));
        if has(&observations) {
            out.push(if recent {
                Figure::ObservationsLast30Days
            } else {
                Figure::Observations
            });
        }
        if has(&["meetplek", "meetpunt", "locatie", "plek", "station"]) {
            out.push(Figure::Sites);
        }
        if q.split(' ').any(|w| w == "land" || w == "landen") {
            out.push(Figure::Countries);
        }
        if has(&["vrijwilliger", "deelnemer", "mensen", "burger"]) {
            out.push(Figure::Volunteers);
        }
        if has(&["classificatie"]) {
            out.push(Figure::Classifications);
        } else if has(&["project"]) {
            out.push(Figure::Projects);
        }
    }
    if latest && has(&["waarneming", "meting", "gegevens", "data", "registratie"]) {
        out.push(Figure::LatestObservation);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dutch_requests_and_commands_are_actions_questions_about_them_are_not() {
        for q in [
            "Kunt u mijn metingen naar het team sturen?",
            "Verwijder mijn gegevens",
            "Wilt u de waterbeheerder mailen?",
            "Neem contact op met de coördinator",
            "Graag mijn aanmelding annuleren",
        ] {
            assert_eq!(classify(q), Intent::Action, "{q}");
        }
        for q in [
            "Hoe neem ik contact op?",
            "Hoe meld ik vissterfte?",
            "Wat meet de nitraattest?",
            "Kunt u uitleggen hoe de meting werkt?",
            "Kunt u me vertellen hoe ik een vissterfte moet melden?",
        ] {
            assert_ne!(classify(q), Intent::Action, "{q}");
        }
    }

    #[test]
    fn dutch_figure_questions_name_their_figures() {
        assert_eq!(
            classify("Hoeveel waarnemingen zijn er?"),
            Intent::Figures(vec![Figure::Observations])
        );
        assert_eq!(
            classify("Hoeveel vrijwilligers en meetplekken heeft het platform?"),
            Intent::Figures(vec![Figure::Sites, Figure::Volunteers])
        );
        assert_eq!(
            classify("Wanneer was de laatste waarneming?"),
            Intent::Figures(vec![Figure::LatestObservation])
        );
        // Figures and a topic of its own: looked up.
        assert_eq!(
            classify("Hoeveel vrijwilligers zijn nodig om een algenbloei te zien?"),
            Intent::Lookup
        );
    }
}
