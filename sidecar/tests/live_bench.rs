//! p50/p99 of filtered observation pages at 1M rows, through the real
//! handler (query parsing, database, JSON). Ignored by default; run by
//! `scripts/bench-live`, which sets `LIVE_BENCH_DIR` (where the 1M-row
//! SQLite file is kept between runs) and `TEST_DATABASE_URL`.

use std::time::{Duration, Instant};

use common::live::get;
use sidecar::live::{self, Live, LiveConfig};
use sidecar::store::sample::Rng;
use sidecar::store::{PARAMETERS, SampleSize, Store, postgres::PgStore};

const QUERIES: usize = 2_000;

fn queries() -> Vec<String> {
    let mut rng = Rng::new(7);
    let countries = ["nl", "be", "de", "fr", "gb", "ie", "dk", "es"];
    (0..QUERIES)
        .map(|i| {
            let site = format!(
                "{}-{:04}",
                countries[(i * 7) % 8],
                1 + (rng.below(125) * 8 + (i * 7) % 8)
            );
            let parameter = *rng.pick(&PARAMETERS);
            let year = 2023 + rng.below(3);
            let month = 1 + rng.below(12);
            match i % 6 {
                0 => format!("parameter={parameter}&limit=100"),
                1 => format!("site={site}&limit=100"),
                2 => format!("site={site}&parameter={parameter}"),
                3 => format!("from={year}-{month:02}-01&to={year}-{month:02}-28&limit=100"),
                4 => format!("parameter={parameter}&from={year}-{month:02}-01&limit=50"),
                _ => "bbox=4.3,51.3,6.9,53.3&limit=100".to_owned(),
            }
        })
        .collect()
}

async fn measure(name: &str, store: Store) {
    // No page cache: every measured query reaches the database.
    let cfg = LiveConfig {
        observation_pages_cached: 0,
        ..LiveConfig::default()
    };
    let live = Live::new(store, cfg);
    let qs = queries();
    // Warm-up: caches and prepared statements.
    for q in qs.iter().take(200) {
        let r =
            live::observations(&live, &get(&format!("/api/observations-data.php?{q}"), &[])).await;
        assert_eq!(r.status(), 200, "{q}");
    }
    let mut times: Vec<Duration> = Vec::with_capacity(qs.len());
    let mut by_kind: Vec<Vec<Duration>> = vec![Vec::new(); 6];
    let mut pages = 0;
    for (i, q) in qs.iter().enumerate() {
        let t = Instant::now();
        let r =
            live::observations(&live, &get(&format!("/api/observations-data.php?{q}"), &[])).await;
        let elapsed = t.elapsed();
        times.push(elapsed);
        by_kind[i % 6].push(elapsed);
        assert_eq!(r.status(), 200);
        pages += 1;
    }
    for (kind, mut t) in by_kind.into_iter().enumerate() {
        t.sort();
        println!(
            "BENCH {name} kind {kind} ({}): p50 {:.2} ms, p99 {:.2} ms",
            qs[kind].split('=').next().unwrap_or(""),
            t[t.len() / 2].as_secs_f64() * 1e3,
            t[t.len() * 99 / 100].as_secs_f64() * 1e3,
        );
    }
    times.sort();
    let pct = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
    println!(
        "BENCH {name}: {pages} filtered pages at 1M rows: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        pct(0.50).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "slow: fills 1M rows; run by scripts/bench-live"]
async fn bench_sqlite_1m() {
    let dir = std::env::var("LIVE_BENCH_DIR").unwrap_or_else(|_| "target/live-bench".into());
    let t = Instant::now();
    let store = Store::open(None, std::path::Path::new(&dir), SampleSize::Large)
        .await
        .unwrap();
    assert!(store.observation_count().await.unwrap() >= 1_000_000);
    println!("sqlite ready in {:.1} s", t.elapsed().as_secs_f64());
    measure("sqlite", store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "slow: fills 1M rows; run by scripts/bench-live"]
async fn bench_postgres_1m() {
    let Some(url) = common::live::pg_url() else {
        return;
    };
    let t = Instant::now();
    // Kept between runs: filled once.
    let store = Store::Postgres(PgStore::open(&url, Some("bench_1m")).await.unwrap());
    store.fill_sample(SampleSize::Large).await.unwrap();
    assert!(store.observation_count().await.unwrap() >= 1_000_000);
    println!("postgres ready in {:.1} s", t.elapsed().as_secs_f64());
    measure("postgres", store).await;
}
