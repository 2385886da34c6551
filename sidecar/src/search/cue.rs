//! The kind of fact a question asks for, read from its wording ("when",
//! "how long", "what unit", "how many", "how far", "how do I", "who"), and
//! whether a sentence holds that kind of fact: the cues that help the chat
//! quote the sentence that answers, not one that only shares its words.

/// The kind of fact a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cue {
    None,
    /// "when", "what year", "since when".
    Date,
    /// "how long", "how often".
    Duration,
    /// "what unit", "in what units".
    Unit,
    /// "how many", "how much", "maximum".
    Number,
    /// "how far", "how close", "how deep": a number with a unit of length.
    Distance,
    /// "how do I", "how should I", "how to".
    Procedure,
    /// "who": a sentence that names who does it ("funded by …").
    Agent,
}

impl Cue {
    /// Every kind of fact a sentence can hold.
    pub(super) const ALL: [Cue; 7] = [
        Cue::Date,
        Cue::Duration,
        Cue::Unit,
        Cue::Number,
        Cue::Distance,
        Cue::Procedure,
        Cue::Agent,
    ];

    /// A bit of its own per kind ([`Cue::None`] has none).
    pub(super) fn bit(self) -> u8 {
        match self {
            Cue::None => 0,
            Cue::Date => 1,
            Cue::Duration => 2,
            Cue::Unit => 4,
            Cue::Number => 8,
            Cue::Distance => 16,
            Cue::Procedure => 32,
            Cue::Agent => 64,
        }
    }

    /// The cue of a question, from its wording.
    pub fn of(question: &str) -> Cue {
        let lower = question.to_lowercase();
        let padded = format!(" {} ", lower.replace(['?', ',', '.'], " "));
        // A word that names the kind of fact asked counts wherever it stands.
        if [" unit ", " units "].iter().any(|p| padded.contains(p)) {
            return Cue::Unit;
        }
        if [" maximum ", " minimum ", " limit "]
            .iter()
            .any(|p| padded.contains(p))
        {
            return Cue::Number;
        }
        // An interrogative counts where it opens a clause ("so when did …",
        // "I am a journalist: how many …"), not where it joins two ("how
        // close must I be when I start?" asks for a distance, not a date).
        for clause in lower.split(['?', ',', '.', ':', ';', '!', '(', ')']) {
            let words: Vec<&str> = clause.split_whitespace().collect();
            for skip in 0..words.len().min(2) {
                let opening = format!(" {} ", words[skip..].join(" "));
                if let Some(&(_, cue)) = OPENINGS.iter().find(|(p, _)| opening.starts_with(p)) {
                    return cue;
                }
                // Only a word like "so", "and" or "but" may stand before.
                if !["so", "and", "but", "then", "ok", "okay", "also"].contains(&words[skip]) {
                    break;
                }
            }
        }
        Cue::None
    }

    /// Whether `sentence` (under `heading`) holds the kind of fact asked.
    pub(super) fn met(self, sentence: &str, heading: &str) -> bool {
        let lower = sentence.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric() && c != '/' && c != '°' && c != '%')
            .filter(|w| !w.is_empty())
            .collect();
        let number = |w: &str| w.chars().any(|c| c.is_ascii_digit());
        match self {
            Cue::None => false,
            Cue::Date => words.iter().any(|w| {
                (w.len() == 4
                    && w.chars().all(|c| c.is_ascii_digit())
                    && (w.starts_with("19") || w.starts_with("20")))
                    || MONTHS.contains(w)
            }),
            Cue::Duration => {
                words.windows(2).any(|p| {
                    (number(p[0]) || COUNTS.contains(&p[0]))
                        && DURATIONS.iter().any(|d| p[1].trim_end_matches('s') == *d)
                }) || words.iter().any(|w| FREQUENCIES.contains(w))
            }
            Cue::Unit => {
                words.iter().any(|w| UNITS.contains(w)) || lower.contains("°c") || {
                    words.windows(2).any(|p| number(p[0]) && p[1] == "%")
                }
            }
            Cue::Number => words.iter().any(|w| number(w)),
            Cue::Distance => words.windows(2).any(|p| {
                (number(p[0]) && LENGTHS.contains(&p[1]))
                    || LENGTHS.iter().any(|u| {
                        p[0].strip_suffix(u)
                            .is_some_and(|n| n.parse::<f64>().is_ok())
                    })
            }),
            Cue::Agent => words.iter().any(|w| AGENTS.contains(w)),
            Cue::Procedure => {
                let h = heading.to_lowercase();
                ["step", "procedure", "method", "how to", "what to do"]
                    .iter()
                    .any(|k| h.contains(k))
            }
        }
    }
}

/// Openings of a clause that ask for a kind of fact, padded with spaces.
const OPENINGS: &[(&str, Cue)] = &[
    (" how long ", Cue::Duration),
    (" how often ", Cue::Duration),
    (" how frequently ", Cue::Duration),
    (" how soon ", Cue::Duration),
    (" how quickly ", Cue::Duration),
    (" when ", Cue::Date),
    (" since when ", Cue::Date),
    (" until when ", Cue::Date),
    (" what year ", Cue::Date),
    (" which year ", Cue::Date),
    (" what date ", Cue::Date),
    (" in what year ", Cue::Date),
    (" in which year ", Cue::Date),
    (" how many ", Cue::Number),
    (" how much ", Cue::Number),
    (" how far ", Cue::Distance),
    (" how close ", Cue::Distance),
    (" how near ", Cue::Distance),
    (" how big ", Cue::Number),
    (" how deep ", Cue::Distance),
    (" how large ", Cue::Number),
    (" how high ", Cue::Number),
    (" what size ", Cue::Number),
    (" how do i ", Cue::Procedure),
    (" how should i ", Cue::Procedure),
    (" how to ", Cue::Procedure),
    (" how can i ", Cue::Procedure),
    (" how did volunteers ", Cue::Procedure),
    (" what steps ", Cue::Procedure),
    (" who ", Cue::Agent),
    (" by whom ", Cue::Agent),
];

/// Words that name who does something.
const AGENTS: &[&str] = &[
    "by",
    "university",
    "institute",
    "authority",
    "authorities",
    "consortium",
    "members",
    "foundation",
    "ministry",
    "agency",
    "council",
    "staff",
    "team",
];

/// Units of length, as a sentence's words.
const LENGTHS: &[&str] = &[
    "m",
    "metre",
    "metres",
    "meter",
    "meters",
    "km",
    "kilometre",
    "kilometres",
    "cm",
    "mm",
];

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const DURATIONS: &[&str] = &[
    "second", "minute", "min", "hour", "day", "week", "month", "year",
];
/// Words that count a duration ("half a day", "two weeks").
const COUNTS: &[&str] = &[
    "a", "an", "one", "two", "three", "four", "five", "six", "seven", "ten", "half", "full", "few",
    "several",
];
const FREQUENCIES: &[&str] = &[
    "daily",
    "weekly",
    "monthly",
    "yearly",
    "annually",
    "hourly",
    "fortnightly",
    "once",
    "twice",
    "every",
];
const UNITS: &[&str] = &[
    "mg/l", "µs/cm", "us/cm", "ntu", "ppm", "mg", "ml", "°c", "celsius", "kelvin",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues_follow_the_wording() {
        assert_eq!(Cue::of("When did Water Watch end?"), Cue::Date);
        assert_eq!(Cue::of("how often should I calibrate"), Cue::Duration);
        assert_eq!(Cue::of("what units is phosphate given in"), Cue::Unit);
        assert_eq!(Cue::of("how many sites are there"), Cue::Number);
        assert_eq!(Cue::of("How do I measure nitrate?"), Cue::Procedure);
        assert_eq!(Cue::of("what is turbidity"), Cue::None);
        // An interrogative that joins two clauses does not set the cue.
        assert_eq!(
            Cue::of("How close must I be when I start a visit?"),
            Cue::Distance
        );
        assert_eq!(
            Cue::of("what happens to the figures when the database is down"),
            Cue::None
        );
        assert_eq!(
            Cue::of("I write for a paper: so when did it end?"),
            Cue::Date
        );
        assert_eq!(Cue::of("who finances the school lab?"), Cue::Agent);
        assert!(Cue::Agent.met("Supported by regional authorities.", ""));
        assert!(Cue::Distance.met("You must be within 200 metres of it.", ""));
        assert!(Cue::Distance.met("It lies 3km away.", ""));
        assert!(!Cue::Distance.met("It took 200 volunteers.", ""));
        assert!(Cue::Date.met("It ended in June 2024.", ""));
        assert!(!Cue::Date.met("It ended.", ""));
        assert!(Cue::Duration.met("Wait 60 seconds before reading.", ""));
        assert!(Cue::Unit.met("Phosphate was published in mg/L as PO4.", ""));
        assert!(Cue::Procedure.met("Fill the cup.", "Steps"));
    }
}
