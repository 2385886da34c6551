//! Answer quality of the chat, measured on the sample content: questions
//! written the way visitors ask them, each with the page that must be cited
//! first, and questions nothing published answers, which must get the plain
//! "no good match" with the hand-off. Targets: the expected page cited
//! first for at least 90 % and among the first three for all; every
//! unanswerable question declined as no match. The figures are printed.

/// The question set of issue 32, tuning and held-out halves.
#[path = "chat_quality/question_set.rs"]
mod question_set;

use common::chat::{ask, env};
use common::live::Backend;
use serde_json::Value;

/// (question, page that must be cited)
const ANSWERABLE: &[(&str, &str)] = &[
    (
        "How do I measure nitrate in a stream?",
        "/docs/archive/protocols/nitrate/",
    ),
    (
        "what equipment do I need for the phosphate test",
        "/docs/archive/protocols/phosphate/",
    ),
    (
        "How was the water temperature taken?",
        "/docs/archive/protocols/temperature/",
    ),
    (
        "how do you test the acidity of water",
        "/docs/archive/protocols/ph/",
    ),
    (
        "Is the ammonium kit safe to use?",
        "/docs/archive/protocols/ammonium/",
    ),
    (
        "How do I read turbidity with the tube?",
        "/docs/archive/protocols/turbidity/",
    ),
    (
        "steps for measuring dissolved oxygen",
        "/docs/archive/protocols/dissolved-oxygen/",
    ),
    (
        "Why does nitrite matter for fish?",
        "/docs/archive/protocols/nitrite/",
    ),
    (
        "What should I bring on my first site visit?",
        "/docs/archive/quick-start/",
    ),
    (
        "How do I upload my readings in the app?",
        "/docs/archive/app-guide/",
    ),
    ("What is a calibration day?", "/docs/archive/app-guide/"),
    (
        "What are the detection limits of the kits?",
        "/docs/archive/reference-data/",
    ),
    (
        "which site type codes are there",
        "/docs/archive/reference-data/",
    ),
    (
        "How can I check that a downloaded file is not corrupted?",
        "/docs/archive/files/",
    ),
    ("What was Water Watch?", "/docs/archive/"),
    ("Why is the archive read-only?", "/docs/archive/"),
    (
        "How are raw readings turned into published observations?",
        "/docs/archive/data-processing/",
    ),
    ("What is Riverlens?", "/docs/platform/"),
    (
        "How does consensus work when volunteers classify images?",
        "/docs/platform/",
    ),
    (
        "Were there false alerts in the 2026 bloom season?",
        "/docs/platform/reports/bloom-season-2026/",
    ),
    (
        "Did the camera traps pick up otters?",
        "/docs/platform/reports/camera-trap-otters/",
    ),
    (
        "How did consensus release 3 hold up against expert checks?",
        "/docs/platform/reports/release-3-audit/",
    ),
    (
        "How were bloom classifications used to target reservoir sampling?",
        "/docs/platform/case-study/",
    ),
    (
        "How do I connect Claude Desktop to your MCP server?",
        "/docs/developers/mcp/",
    ),
    (
        "Which tools does the MCP endpoint offer?",
        "/docs/developers/mcp/",
    ),
    ("What does an observation contain?", "/docs/data/"),
    ("What do the points on the globe show?", "/docs/data/globe/"),
    (
        "What do the live statistics mean?",
        "/docs/data/statistics/",
    ),
    (
        "Who are the members of the consortium?",
        "/docs/about/consortium/",
    ),
    ("Which regions do you cover?", "/docs/about/scope/"),
    ("What do you not deal with?", "/docs/about/scope/"),
    (
        "Do you run water-quality workshops for schools?",
        "/docs/about/services/",
    ),
    (
        "Is there evidence that volunteer test strips agree with laboratory nitrate analyses?",
        "/docs/about/evidence/",
    ),
    (
        "What are AI agents not allowed to do?",
        "/docs/about/guardrails/",
    ),
    (
        "What should I check before I write to you?",
        "/docs/about/contact/",
    ),
    ("What projects do you run?", "/docs/about/projects/"),
    (
        "How many volunteers does it take to spot an algal bloom?",
        "/docs/about/evidence/",
    ),
    (
        "What happens after I upload a visit?",
        "/docs/archive/quick-start/",
    ),
    ("Can I reuse the archive material?", "/docs/"),
    ("How do I take part in classifying?", "/docs/platform/"),
];

/// Questions answered from the live statistics.
const FIGURES: &[&str] = &[
    "How many observations are there?",
    "How many monitoring sites are there, in how many countries?",
    "When was the latest observation made?",
    "how many volunteers have taken part",
];

/// Questions nothing published answers.
const UNANSWERABLE: &[&str] = &[
    "What's the weather in Paris tomorrow?",
    "Who won the football match last night?",
    "Can I adopt a cat from you?",
    "What is the best recipe for chocolate cake?",
    "How do I fix the brakes on my car?",
    "What is the share price of Apple?",
    "Translate hello into Japanese",
    "Who is the president of France?",
    "How tall is Mount Everest?",
    "Recommend a good hotel in Amsterdam",
];

/// The site path of a cited URL (absolute or not), without its fragment.
fn page_of(url: &str) -> String {
    let path = url.split('#').next().unwrap_or_default();
    match path.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]).to_owned(),
        None => path.to_owned(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_expected_page_is_cited_and_nothing_is_invented() {
    let Some(env) = env(Backend::Sqlite, "chat_quality", 10_000).await else {
        return;
    };
    let s = &env.state;
    let (mut first, mut top3, mut misses) = (0, 0, Vec::new());
    for (q, expected) in ANSWERABLE {
        let a = ask(s, "192.0.2.1", q).await;
        assert_eq!(a.status, 200, "{q}: {:?}", a.body);
        let v = a.json();
        let cited: Vec<String> = v["citations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| page_of(c["url"].as_str().unwrap()))
            .collect();
        let at = cited.iter().position(|p| p == expected);
        match at {
            Some(0) => {
                first += 1;
                top3 += 1;
            }
            Some(i) if i < 3 => {
                top3 += 1;
                misses.push(format!("{q:?}: expected {expected} first, cited {cited:?}"));
            }
            _ => misses.push(format!(
                "{q:?}: expected {expected}, got {} citing {cited:?}",
                v["kind"]
            )),
        }
        for c in v["citations"].as_array().unwrap() {
            if c["historical"] == true {
                assert!(
                    v["text"].as_str().unwrap().contains("not current advice"),
                    "{q}"
                );
                assert!(
                    c["licence"].is_string() && c["attribution"].is_string(),
                    "{q}"
                );
                // Said once for the answer.
                let credits = v["credits"].as_array().expect("credits");
                assert!(
                    credits
                        .iter()
                        .any(|k| k["licence"] == c["licence"]
                            && k["attribution"] == c["attribution"]),
                    "{q}: {credits:?}"
                );
            }
        }
        if let Some(credits) = v["credits"].as_array() {
            let mut seen: Vec<&Value> = Vec::new();
            for k in credits {
                assert!(!seen.contains(&k), "{q}: a credit twice: {credits:?}");
                seen.push(k);
            }
        }
        if v["kind"] == "answer" {
            assert!(
                ["high", "medium", "low"].contains(&v["confidence"].as_str().unwrap_or_default()),
                "{q}: {}",
                v["confidence"]
            );
        }
    }
    let mut figures = 0;
    for q in FIGURES {
        let v = ask(s, "192.0.2.1", q).await.json();
        if v["kind"] == "figures" && v["statistics"]["generated_at"].is_string() {
            figures += 1;
        } else {
            misses.push(format!("{q:?}: expected figures, got {}", v["kind"]));
        }
    }
    let mut declined = 0;
    for q in UNANSWERABLE {
        let v = ask(s, "192.0.2.1", q).await.json();
        if v["kind"] == "no_match"
            && v["handoff"]["suggested"] == true
            && v["citations"] == serde_json::json!([])
        {
            declined += 1;
        } else {
            misses.push(format!(
                "{q:?}: expected no_match, got {} {}",
                v["kind"], v["citations"]
            ));
        }
    }
    let n = ANSWERABLE.len();
    println!(
        "chat quality: {first}/{n} expected page cited first ({:.1} %), {top3}/{n} among the first three, \
         {figures}/{} figure questions from the statistics, {declined}/{} unanswerable questions answered \
         \"no good match\" with the hand-off",
        100.0 * first as f64 / n as f64,
        FIGURES.len(),
        UNANSWERABLE.len()
    );
    for m in &misses {
        println!("  miss: {m}");
    }
    assert!(n >= 40 && UNANSWERABLE.len() >= 10);
    assert!(first * 10 >= n * 9, "cited first for fewer than 90 %");
    assert_eq!(top3, n, "not among the first three for every question");
    assert_eq!(figures, FIGURES.len());
    assert_eq!(declined, UNANSWERABLE.len());
}
