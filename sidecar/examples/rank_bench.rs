//! Times the ranking on a built site, without the server around it:
//! `cargo run --release -p sidecar --example rank_bench -- dist [rounds]`.
//! Prints how long loading and indexing took and the cost of one chat-like
//! ranking (the benchmark's questions, best pages, then with the best
//! sentence of the first three pages quoted, as the chat does), so that a change to the
//! ranking can be measured on its own, or under `valgrind --tool=callgrind`
//! for instruction counts that do not depend on the machine's load.
//! With `RANK_DUMP=questions.txt` it prints, instead, the ranking of each
//! line of that file in full (pages, scores, passages), so that two builds
//! of the ranking can be compared with `diff`.

use std::time::Instant;

/// The questions `scripts/bench-chat` rotates.
const QUESTIONS: &[&str] = &[
    "How do I measure nitrate in a stream?",
    "What should I bring on my first site visit?",
    "How does consensus work when volunteers classify images?",
    "Which tools does the MCP endpoint offer?",
    "Can I reuse the archive material?",
    "What is the weather in Paris tomorrow?",
    "How do I connect Claude Desktop to your MCP server?",
    "What are the detection limits of the kits?",
];

fn main() {
    let mut args = std::env::args().skip(1);
    let dist = std::path::PathBuf::from(args.next().expect("a built dist/"));
    let rounds: usize = args.next().map_or(50, |r| r.parse().expect("rounds"));
    let start = Instant::now();
    let parsed =
        contract::search::read_passages(contract::search::read_from(&dist)).expect("passages");
    let parse = start.elapsed();
    let idx = sidecar::search::Index::new(parsed);
    let build = start.elapsed() - parse;
    println!(
        "{} passages: parsed in {parse:.2?}, indexed in {build:.2?}",
        idx.len()
    );
    if let Ok(questions) = std::env::var("RANK_DUMP") {
        for q in std::fs::read_to_string(questions).unwrap().lines() {
            println!("? {q}");
            let asked = idx.question(q);
            for p in idx.rank_pages(q, 12) {
                println!("  {} {:?} {:?}", p.url, p.score, p.coverage);
                if let Some(quote) = idx.quote(&asked, &p) {
                    println!(
                        "    > {:?} {:?} #{} {:?}",
                        quote.score, quote.coverage, quote.passage.anchor, quote.text
                    );
                }
                for h in &p.hits {
                    let anchor = &h.passage.anchor;
                    println!(
                        "    #{anchor} {:?} {:?} {:?}",
                        h.score, h.coverage, h.matched
                    );
                }
            }
            for h in idx.rank(q, 5) {
                println!("  = {}#{} {:?}", h.passage.url, h.passage.anchor, h.score);
            }
        }
        return;
    }
    let mut checksum = 0.0f32;
    let start = Instant::now();
    for _ in 0..rounds {
        for q in QUESTIONS {
            checksum += idx.rank_pages(q, 12).iter().map(|p| p.score).sum::<f32>();
        }
    }
    let per = start.elapsed() / (rounds * QUESTIONS.len()) as u32;
    println!("rank_pages: {per:.2?} per question (checksum {checksum:.3})");
    // As the chat does: the pages, then the best sentence of the first three.
    let start = Instant::now();
    for _ in 0..rounds {
        for q in QUESTIONS {
            let asked = idx.question(q);
            for p in idx.rank_pages(q, 12).iter().take(3) {
                checksum += idx.quote(&asked, p).map_or(0.0, |quote| quote.score);
            }
        }
    }
    let per = start.elapsed() / (rounds * QUESTIONS.len()) as u32;
    println!(
        "rank_pages and quotes of three pages: {per:.2?} per question (checksum {checksum:.3})"
    );
}
