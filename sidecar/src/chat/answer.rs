//! Composing an answer: passages quoted exactly and cited, live figures
//! with their time, a plain "no good match", or a declined action — each
//! with the hand-off to the contact form.

use serde::Serialize;

use super::intent::{Figure, Intent};
use super::reading::classify_in;
use super::request::Question;
use super::words::{Words, words};
use crate::live::PlatformStats;
use crate::search::{self, Index, Page, Quote};

/// Below this share of a question's weight, a passage does not answer it:
/// more than half, so that a page matching one of two words (the site
/// mentions leptospirosis, not its symptoms) does not answer.
pub const MIN_COVERAGE: f32 = 0.51;
/// A page beside the first is cited when it covers this share of
/// [`MIN_COVERAGE`]; a page for everyone that does keeps the pages for
/// developers after it.
const CITED_SHARE: f32 = 0.75;
/// A page for developers answers a question not in developers' words
/// only when it covers this share of it and no other page answers.
const DEVELOPERS_FALLBACK: f32 = 0.75;
/// At most this many passages are quoted, and this many pages listed.
const CITATIONS: usize = 3;
const RELATED: usize = 4;
/// About how long a quote is, in characters.
/// Questions this short (in meaningful words) may lean on the previous one.
const FOLLOW_UP_TERMS: usize = 3;

/// The kind of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Published passages answer the question.
    Answer,
    /// Live figures from the platform statistics answer it.
    Figures,
    /// Nothing published answers it well.
    NoMatch,
    /// It asks the service to act, which it never does.
    Declined,
}

/// A quoted passage.
#[derive(Debug, Clone, Serialize)]
pub struct Citation {
    /// An exact excerpt of the published text.
    pub quote: String,
    pub title: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub heading: String,
    /// The page, with the heading's anchor.
    pub url: String,
    pub historical: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub licence: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribution: Option<String>,
}

/// A page worth reading.
#[derive(Debug, Clone, Serialize)]
pub struct Link {
    pub title: String,
    pub url: String,
}

/// Figures from the platform statistics.
#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    pub generated_at: String,
    pub stale: bool,
    /// Each figure asked for, by its name in the statistics document.
    pub values: serde_json::Map<String, serde_json::Value>,
}

/// The way to a person: the contact form, prefilled, sent only by the
/// visitor.
#[derive(Debug, Clone, Serialize)]
pub struct Handoff {
    pub url: String,
    /// Whether the answer recommends it (no good match, or an action).
    pub suggested: bool,
    pub label: &'static str,
}

/// The licence and attribution quoted passages are used under: one line
/// per answer for each, not one under every quote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Credit {
    pub licence: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribution: Option<String>,
}

/// The answer document.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    pub kind: Kind,
    /// How sure a passage answer is (figures are read, so `high`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
    pub text: String,
    pub citations: Vec<Citation>,
    /// The licences and attributions of the quoted passages, once each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub credits: Vec<Credit>,
    pub related: Vec<Link>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statistics: Option<Figures>,
    pub handoff: Handoff,
    pub notice: &'static str,
    /// The release whose pages the citations quote.
    pub release: String,
}

impl Answer {
    /// Whether the question was answered (by passages or figures).
    pub fn matched(&self) -> bool {
        matches!(self.kind, Kind::Answer | Kind::Figures)
    }
}

/// Where the answer's links point.
pub struct Links<'a> {
    pub base_url: &'a str,
    /// The contact form's URL (absolute).
    pub form_url: &'a str,
}

/// Composes the answer to `q`.
pub fn compose(
    index: &Index,
    links: &Links<'_>,
    q: &Question,
    stats: Option<&PlatformStats>,
) -> Answer {
    let w = words(index.lang());
    let handoff = |suggested| Handoff {
        url: crate::contact::prefilled_url(links.form_url, "other", &q.message),
        suggested,
        label: w.handoff,
    };
    let intent = classify_in(index.lang(), &q.message);
    let (pages, query, developers_last) = rank(index, q);
    let link = |p: &Page<'_>| Link {
        title: p.best().passage.title.to_owned(),
        url: format!("{}{}", links.base_url, p.url),
    };
    match intent {
        Intent::Action => {
            return Answer {
                kind: Kind::Declined,
                confidence: None,
                credits: Vec::new(),
                text: w.declined.into(),
                citations: Vec::new(),
                related: pages.iter().take(RELATED).map(link).collect(),
                statistics: None,
                handoff: handoff(true),
                notice: w.notice,
                release: String::new(),
            };
        }
        Intent::Figures(figures) => {
            if let Some(stats) = stats {
                let related = pages.iter().take(RELATED).map(link).collect();
                return figures_answer(w, &figures, stats, links, related, handoff(false));
            }
        }
        Intent::Lookup => {}
    }
    // The first pages again, by their best sentence: a page with one
    // sentence that answers the whole question comes before one that has
    // the question's words in different places.
    let asked = index.question(&query);
    let top = pages.first().map_or(0.0, |p| p.score);
    // When none of the first pages covers the question, the first page
    // further down that does is read too.
    let further = pages
        .iter()
        .take(RERANK)
        .all(|p| p.coverage < MIN_COVERAGE)
        .then(|| {
            pages
                .iter()
                .skip(RERANK)
                .find(|p| p.coverage >= MIN_COVERAGE)
        })
        .flatten();
    let mut quoted: Vec<(f32, &Page<'_>, Quote<'_>)> = pages
        .iter()
        .take(RERANK)
        .chain(further)
        .filter_map(|p| {
            let quote = index.quote(&asked, p)?;
            let score = PAGE_SHARE * p.score / top + quote.score;
            Some((score, p, quote))
        })
        .collect();
    // A page that covers the question comes before one that covers only
    // part of it, whatever their words' weights.
    // A page for developers stays after the pages for everyone where the
    // ranking put it there (see `for_the_reader`).
    let covers = |p: &Page<'_>| p.coverage >= MIN_COVERAGE;
    let kept_back = |p: &Page<'_>| developers_last && p.best().passage.developers;
    quoted.sort_by(|a, b| {
        kept_back(a.1)
            .cmp(&kept_back(b.1))
            .then_with(|| covers(b.1).cmp(&covers(a.1)))
            .then_with(|| b.0.total_cmp(&a.0))
    });
    // A page kept back for developers neither answers a visitor's
    // question nor is quoted beside the answer (it may be listed).
    let answered = quoted
        .first()
        .is_some_and(|(_, p, _)| p.coverage >= MIN_COVERAGE && !kept_back(p));
    if !answered {
        return Answer {
            kind: Kind::NoMatch,
            confidence: None,
            credits: Vec::new(),
            text: w.no_match.into(),
            citations: Vec::new(),
            related: pages.iter().take(RELATED).map(link).collect(),
            statistics: None,
            handoff: handoff(true),
            notice: w.notice,
            release: String::new(),
        };
    }
    let floor = quoted[0].0 * CITE_SHARE;
    let cited: Vec<&(f32, &Page<'_>, Quote<'_>)> = quoted
        .iter()
        .filter(|(score, p, _)| {
            *score >= floor && p.coverage >= MIN_COVERAGE * CITED_SHARE && !kept_back(p)
        })
        .take(CITATIONS)
        .collect();
    let citations: Vec<Citation> = cited
        .iter()
        .map(|(_, _, quote)| citation(quote, links.base_url))
        .collect();
    // How far the first passage stands ahead of the next one is what
    // tells a right answer from a near miss (decision 0256).
    let margin = quoted[0].0 - quoted.get(1).map_or(0.0, |x| x.0);
    let confidence = Confidence::of(margin);
    let mut text = String::from(confidence.lead(w));
    if citations.iter().any(|c| c.historical) {
        text.push(' ');
        text.push_str(w.historical);
    }
    let credits = credits(&citations);
    Answer {
        kind: Kind::Answer,
        confidence: Some(confidence),
        text,
        credits,
        citations,
        related: pages
            .iter()
            .filter(|p| !cited.iter().any(|(_, c, _)| c.url == p.url))
            .take(RELATED)
            .map(link)
            .collect(),
        statistics: None,
        handoff: handoff(confidence == Confidence::Low),
        notice: w.notice,
        release: String::new(),
    }
}

/// How sure an answer is, in plain levels. Below the lowest, the chat
/// does not answer (no page covers the question): it offers the closest
/// pages and the contact form instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    /// The first passage stands well ahead of any other: on the questions
    /// the levels were set on, right at least 95 % of the time.
    High,
    /// Ahead, but not by much: usually right; worth checking the page.
    Medium,
    /// Barely ahead of another page: possibly not the answer.
    Low,
}

/// The margins (first passage's score less the next one's) of the levels,
/// set on the tuning half of the question set (decision 0256).
const HIGH_MARGIN: f32 = 0.8;
const MEDIUM_MARGIN: f32 = 0.2;

impl Confidence {
    fn of(margin: f32) -> Confidence {
        if margin >= HIGH_MARGIN {
            Confidence::High
        } else if margin >= MEDIUM_MARGIN {
            Confidence::Medium
        } else {
            Confidence::Low
        }
    }

    /// The answer's first sentence.
    fn lead(self, w: &Words) -> &'static str {
        match self {
            Confidence::High => w.high,
            Confidence::Medium => w.medium,
            Confidence::Low => w.low,
        }
    }
}

/// The licence and attribution of the quoted passages that carry them,
/// once each.
fn credits(citations: &[Citation]) -> Vec<Credit> {
    let mut out: Vec<Credit> = Vec::new();
    for c in citations {
        if let Some(licence) = &c.licence {
            let credit = Credit {
                licence: licence.clone(),
                attribution: c.attribution.clone(),
            };
            if !out.contains(&credit) {
                out.push(credit);
            }
        }
    }
    out
}

/// How many of the first pages are read again sentence by sentence; they
/// change places among themselves only (on the tuning half of the question
/// set, re-ranking deeper let one matching sentence of a page that mentions
/// the subject outweigh the page about it).
const RERANK: usize = 3;
/// What a page's own score (over the first page's) counts beside its best
/// sentence's score.
const PAGE_SHARE: f32 = 1.5;
/// A page is cited beside the first when it scores at least this share of
/// the first's.
const CITE_SHARE: f32 = 0.5;

/// Ranks the question, leaning on the previous one when it is a short
/// follow-up: one that does not stand on its own, or that opens with "and",
/// "what about"… ("and the safety rules?").
/// The third value says whether the pages for developers were put after
/// the others.
fn rank<'a>(index: &'a Index, q: &Question) -> (Vec<Page<'a>>, String, bool) {
    let (pages, query) = rank_words(index, q);
    let (pages, developers_last) = for_the_reader(&query, pages);
    (pages, query, developers_last)
}

/// Pages for developers go after the others for a question not in
/// developers' words, unless no other page covers it and one of them
/// covers it well ([`DEVELOPERS_FALLBACK`]): a visitor asking when a
/// project stopped is answered from the project's page, not from the API
/// reference that names the same dates.
fn for_the_reader<'a>(query: &str, pages: Vec<Page<'a>>) -> (Vec<Page<'a>>, bool) {
    let developers = |p: &Page<'_>| p.best().passage.developers;
    let others_answer = pages
        .iter()
        .any(|p| !developers(p) && p.coverage >= MIN_COVERAGE * CITED_SHARE);
    // The API reference is all fragments of the contract: it answers
    // developers' words only.
    let first_answers = pages
        .first()
        .is_some_and(|p| p.coverage >= DEVELOPERS_FALLBACK && !p.best().passage.reference);
    if Index::in_developers_words(query) || (!others_answer && first_answers) {
        return (pages, false);
    }
    let (mut first, after): (Vec<_>, Vec<_>) = pages.into_iter().partition(|p| !developers(p));
    first.extend(after);
    (first, true)
}

/// Ranks the question's words, with the previous question's for a
/// follow-up.
fn rank_words<'a>(index: &'a Index, q: &Question) -> (Vec<Page<'a>>, String) {
    let pages = index.rank_pages(&q.message, PAGES);
    let weak = pages.first().is_none_or(|p| p.coverage < MIN_COVERAGE);
    let short = index.lang().terms(&q.message).count() <= FOLLOW_UP_TERMS;
    let lower = q.message.trim_start().to_lowercase();
    let continues = ["and ", "also ", "but ", "what about ", "how about ", "and?"]
        .iter()
        .any(|w| lower.starts_with(w));
    match q.previous_question() {
        // A follow-up must be about the site: an off-topic question after
        // a real one ("can I adopt a cat?") stays off topic.
        Some(previous) if short && (weak || continues) && index.knows_all(&q.message) => {
            let joined = index.rank_pages(&format!("{previous} {}", q.message), PAGES);
            if joined.first().is_some_and(|p| p.coverage >= MIN_COVERAGE) {
                (joined, format!("{previous} {}", q.message))
            } else {
                (pages, q.message.clone())
            }
        }
        _ => (pages, q.message.clone()),
    }
}

/// Pages ranked per question (cited and related ones come from these).
const PAGES: usize = 12;

fn citation(quote: &Quote<'_>, base_url: &str) -> Citation {
    let p = quote.passage;
    Citation {
        quote: quote.text.clone(),
        title: p.title.to_owned(),
        heading: p.heading.to_owned(),
        url: format!("{base_url}{}", search::passage_path(p)),
        historical: p.historical,
        licence: p.licence.map(str::to_owned),
        attribution: p.attribution.map(str::to_owned),
    }
}

fn figures_answer(
    w: &Words,
    figures: &[Figure],
    s: &PlatformStats,
    links: &Links<'_>,
    related: Vec<Link>,
    handoff: Handoff,
) -> Answer {
    let count = |name: &'static str, value: i64, phrase: &str| {
        (name, value.into(), phrase.replace("{n}", &w.number(value)))
    };
    let mut parts = Vec::new();
    let mut values = serde_json::Map::new();
    for f in figures {
        let (name, value, phrase) = match f {
            Figure::Observations => count("observations", s.observations, w.observations),
            Figure::ObservationsLast30Days => count(
                "observations_last_30_days",
                s.observations_last_30_days,
                w.observations_30_days,
            ),
            Figure::Sites => count("sites", s.sites, w.sites),
            Figure::Countries => count("countries", s.countries, w.countries),
            Figure::Volunteers => count("volunteers", s.volunteers, w.volunteers),
            Figure::Projects => count("projects", s.projects, w.projects),
            Figure::Classifications => (
                "classifications",
                s.classifications.into(),
                w.classifications
                    .replace("{n}", &w.number(s.classifications))
                    .replace("{m}", &w.number(s.classification_projects)),
            ),
            Figure::LatestObservation => match &s.latest_observation_at {
                Some(at) => (
                    "latest_observation_at",
                    at.clone().into(),
                    w.latest.replace("{at}", at),
                ),
                None => (
                    "latest_observation_at",
                    serde_json::Value::Null,
                    w.no_observation.to_owned(),
                ),
            },
        };
        parts.push(phrase);
        values.insert(name.to_owned(), value);
    }
    let mut text = w
        .figures
        .replace("{at}", &s.generated_at)
        .replace("{figures}", &parts.join("; "));
    if s.stale {
        text.push_str(w.stale);
    }
    let source = contract::routes::PLATFORM_STATS.path;
    Answer {
        kind: Kind::Figures,
        confidence: Some(Confidence::High),
        credits: Vec::new(),
        text,
        citations: vec![Citation {
            quote: parts.join("; "),
            title: w.statistics_title.into(),
            heading: String::new(),
            url: format!("{}{source}", links.base_url),
            historical: false,
            licence: None,
            attribution: None,
        }],
        related,
        statistics: Some(Figures {
            generated_at: s.generated_at.clone(),
            stale: s.stale,
            values,
        }),
        handoff,
        notice: w.notice,
        release: String::new(),
    }
}
