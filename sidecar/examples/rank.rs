//! Prints how the passages of a built site rank for some questions:
//! `cargo run -p sidecar --example rank -- dist/search-passages.json "question" …`.
//! For tuning the ranking and the synonym table against real content.

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args.next().unwrap();
    let idx = sidecar::search::Index::new(
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap(),
    );
    for q in args {
        println!("== {q}");
        for p in idx.rank_pages(&q, 5) {
            let b = p.best();
            println!(
                "  {:6.2} cov {:.2} {} #{} {:?}",
                p.score, p.coverage, p.url, b.passage.anchor, b.matched
            );
        }
    }
}
