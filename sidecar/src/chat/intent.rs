//! What a question asks for, read from its words: an action the service
//! must not take, live figures it can read from its statistics, or
//! something to look up in the published pages.

/// Verbs of actions the chat never takes for anyone.
const ACTIONS: &[&str] = &[
    "arrange",
    "book",
    "buy",
    "call",
    "cancel",
    "change",
    "contact",
    "delete",
    "email",
    "e-mail",
    "erase",
    "file",
    "forward",
    "lodge",
    "mail",
    "message",
    "notify",
    "order",
    "pay",
    "phone",
    "post",
    "publish",
    "register",
    "remove",
    "report",
    "ring",
    "schedule",
    "send",
    "sign",
    "submit",
    "subscribe",
    "tell",
    "text",
    "unsubscribe",
    "update",
    "upload",
    "write",
];

/// Openings that make what follows a request to the service.
const REQUESTS: &[&str] = &[
    "please",
    "can you",
    "could you",
    "would you",
    "will you",
    "can u",
    "i want you to",
    "i would like you to",
    "i'd like you to",
    "go ahead and",
    "kindly",
];

/// A figure of the platform statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    Observations,
    ObservationsLast30Days,
    Sites,
    Countries,
    Volunteers,
    Projects,
    Classifications,
    LatestObservation,
}

/// What the question asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// That the service act (send, submit, contact someone…).
    Action,
    /// Live figures.
    Figures(Vec<Figure>),
    /// Anything else: look it up.
    Lookup,
}

/// Reads the intent of a question in English (the chat reads a Dutch one
/// by Dutch rules, choosing by the question's language).
pub fn classify(question: &str) -> Intent {
    let q = normalise(question);
    if asks_to_act(&q, question.trim_end().ends_with('?')) {
        return Intent::Action;
    }
    let figures = figures(&q);
    if figures.is_empty() || says_more(&q) {
        Intent::Lookup
    } else {
        Intent::Figures(figures)
    }
}

/// Lower case, letters, digits, apostrophes and hyphens kept, everything
/// else one space.
pub(super) fn normalise(question: &str) -> String {
    let mut out = String::with_capacity(question.len());
    for c in question.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '\'' || c == '-' {
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out.trim().to_owned()
}

fn asks_to_act(q: &str, is_question: bool) -> bool {
    let mut rest = q;
    let mut requested = false;
    loop {
        let before = rest;
        for opening in REQUESTS {
            if let Some(after) = rest.strip_prefix(opening)
                && (after.is_empty() || after.starts_with(' '))
            {
                rest = after.trim_start();
                requested = true;
            }
        }
        if rest == before {
            break;
        }
    }
    let mut words = rest.split(' ');
    let first = words.next().unwrap_or_default();
    // "Tell me …" asks for information, not for an action.
    let asks_to_be_told = first == "tell" && words.next() == Some("me");
    // "Can you send …", "Please contact …", "Delete my data": an action verb
    // opening a request or a command. "How do I contact you?" opens with a
    // question word and stays a question.
    ACTIONS.contains(&first) && !asks_to_be_told && (requested || !is_question)
}

/// Words of a figure question that carry no topic of their own.
const FIGURE_WORDS: &[&str] = &[
    "how",
    "many",
    "much",
    "number",
    "total",
    "count",
    "latest",
    "recent",
    "newest",
    "last",
    "first",
    "observations",
    "observation",
    "measurements",
    "measurement",
    "readings",
    "reading",
    "records",
    "sites",
    "site",
    "monitoring",
    "locations",
    "stations",
    "places",
    "countries",
    "country",
    "nations",
    "volunteers",
    "volunteer",
    "citizens",
    "participants",
    "people",
    "contributors",
    "projects",
    "project",
    "classifications",
    "classification",
    "data",
    "sample",
    "samples",
    "made",
    "taken",
    "part",
    "platform",
    "there",
    "currently",
    "now",
    "today",
    "days",
    "30",
    "month",
    "this",
    "so",
    "far",
    "altogether",
    "in",
    "of",
    "have",
    "has",
    "are",
    "is",
    "was",
    "were",
    "the",
    "a",
    "do",
    "does",
    "you",
    "your",
    "when",
    "what",
    "which",
    "been",
    "collected",
    "recorded",
    "registered",
    "active",
    "most",
];

/// Whether a question that names figures also asks about something else
/// ("how many volunteers does it take to spot a bloom?"): then it is
/// looked up, not counted.
fn says_more(q: &str) -> bool {
    q.split(' ')
        .filter(|w| !w.is_empty() && !FIGURE_WORDS.contains(w))
        .count()
        > 1
}

fn figures(q: &str) -> Vec<Figure> {
    let counting = ["how many", "number of", "total", "count of", "how much"]
        .iter()
        .any(|p| q.contains(p));
    let latest = [
        "latest",
        "most recent",
        "newest",
        "last observation",
        "last measurement",
    ]
    .iter()
    .any(|p| q.contains(p));
    let has = |stems: &[&str]| q.split(' ').any(|w| stems.iter().any(|s| w.starts_with(s)));
    let mut out = Vec::new();
    if counting {
        let recent = q.contains("30 days") || q.contains("this month") || q.contains("last month");
        if has(&["observation", "measurement", "reading", "record"]) {
            out.push(if recent {
                Figure::ObservationsLast30Days
            } else {
                Figure::Observations
            });
        }
        if has(&["site", "location", "station", "place"]) {
            out.push(Figure::Sites);
        }
        if has(&["countr", "nation"]) {
            out.push(Figure::Countries);
        }
        if has(&[
            "volunteer",
            "citizen",
            "participant",
            "people",
            "contributor",
        ]) {
            out.push(Figure::Volunteers);
        }
        if has(&["classification"]) {
            out.push(Figure::Classifications);
        } else if has(&["project"]) {
            out.push(Figure::Projects);
        }
    }
    if latest
        && has(&[
            "observation",
            "measurement",
            "reading",
            "data",
            "record",
            "sample",
        ])
    {
        out.push(Figure::LatestObservation);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_are_refused_questions_about_them_are_not() {
        for q in [
            "Can you email the water authority for me?",
            "Please submit my enquiry",
            "Send my measurements to the team",
            "Delete my data",
            "could you contact the coordinator about my pond",
            "Subscribe me to the newsletter.",
        ] {
            assert_eq!(classify(q), Intent::Action, "{q}");
        }
        for q in [
            "How do I contact you?",
            "Who should I contact about pollution?",
            "How do I report a fish kill?",
            "What does the nitrate test measure?",
        ] {
            assert_ne!(classify(q), Intent::Action, "{q}");
        }
    }

    #[test]
    fn figures_are_recognised() {
        assert_eq!(
            classify("How many observations are there?"),
            Intent::Figures(vec![Figure::Observations])
        );
        assert_eq!(
            classify("how many sites in how many countries?"),
            Intent::Figures(vec![Figure::Sites, Figure::Countries])
        );
        assert_eq!(
            classify("When was the latest observation?"),
            Intent::Figures(vec![Figure::LatestObservation])
        );
        assert_eq!(classify("How is nitrate measured?"), Intent::Lookup);
    }
}
