//! Prints how the passages of a built site rank for some questions:
//! `cargo run -p sidecar --example rank -- dist "question" …`.
//! For tuning the ranking and the synonym table against real content.

fn main() {
    let mut args = std::env::args().skip(1);
    let dist = std::path::PathBuf::from(args.next().expect("a built dist/"));
    let idx = sidecar::search::Index::new(
        contract::search::read_passages(contract::search::read_from(&dist)).unwrap(),
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
