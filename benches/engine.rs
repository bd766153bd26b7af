//! Replays a synthetic 1,000,000-call trace through every variant
//! (raw/trimmed × no cache/5m/1h × sync/batch = 12 variants).
//!
//! Run: `cargo bench --bench engine`. Target (issue 2): under 1 s per replay.

use criterion::{criterion_group, criterion_main, Criterion};
use std::fmt::Write as _;
use std::hint::black_box;
use tokencast::engine::{simulate, SimulateOptions};
use tokencast::input::SourceText;
use tokencast::scenario::{InMemory, Scenario};

/// The book the synthetic scenario is priced with.
const BOOK: &str = r#"
[models.claude-fable-5-2]
source = "bench"
read_on = "2026-11-14"
input = "8"
output = "40"
cache_write_5m = "10"
cache_write_1h = "16"
cache_read = "0.20"
batch_input = "4"
batch_output = "20"
"#;

/// A scenario of `calls` tool results, checked as a file would be: its
/// text, its price book and its trace CSV are made here and given in memory.
fn synthetic(calls: usize) -> Scenario {
    let mut toml = String::from(
        r#"name = "synthetic"
question = "bench"
model = "claude-fable-5-2"
prices = "book.toml"

[trace]
file = "trace.csv"

[assumptions]
prefix_tokens = 3000
output_tokens_per_step = 500
final_output_tokens = 2000
bytes_per_token = 4
tokenizer_uplift = 1.3
runs_per_day = 100
"#,
    );
    for results in ["raw", "trimmed"] {
        for cache in ["none", "5m", "1h"] {
            for mode in ["sync", "batch"] {
                let _ = write!(
                    toml,
                    "\n[[variants]]\nresults = \"{results}\"\ncache = \"{cache}\"\nmode = \"{mode}\"\n"
                );
            }
        }
    }
    let caps = [
        "reddit/search",
        "trustpilot/reviews",
        "youtube/search",
        "youtube/comments",
    ];
    // A fixed linear congruential sequence: varied sizes, same every run.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut csv = String::from(
        "call,capability,params,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed\n",
    );
    for i in 0..calls {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let raw = 500 + (x >> 33) % 100_000;
        let _ = writeln!(
            csv,
            "{},{},,200,{},{raw},{},{},0.000792,false",
            i + 1,
            caps[i % 4],
            1 + (x >> 20) % 30,
            raw / 5,
            1000 + (x >> 40) % 15_000,
        );
    }
    let text = |name: &str, text: String| SourceText {
        name: name.into(),
        text,
    };
    let files = InMemory(
        [
            ("book.toml".to_string(), text("book.toml", BOOK.into())),
            ("trace.csv".to_string(), text("trace.csv", csv)),
        ]
        .into(),
    );
    Scenario::check(&text("synthetic.toml", toml), &files, None)
        .expect("the synthetic scenario checks")
}

fn bench(c: &mut Criterion) {
    let scenario = synthetic(1_000_000);
    let mut group = c.benchmark_group("replay_1m_calls_12_variants");
    group.sample_size(10);
    group.bench_function("totals", |b| {
        b.iter(|| simulate(black_box(&scenario), SimulateOptions::TOTALS))
    });
    group.bench_function("with_per_request_detail", |b| {
        b.iter(|| simulate(black_box(&scenario), SimulateOptions::ALL_ROWS))
    });
    group.finish();
}

/// Issue 5's target: 1,000,000 forecast runs of 20 calls in at most 2 s.
fn bench_forecast(c: &mut Criterion) {
    use std::sync::atomic::AtomicBool;
    use tokencast::analysis::forecast::{self, ForecastSpec, Method, Sampler};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/research.toml");
    let scenario = tokencast::files::load(&path, None).expect("the research scenario loads");
    let sampler = Sampler::new(scenario.trace(), Method::Bootstrap).unwrap();
    let spec = ForecastSpec {
        calls: 20,
        runs: 1_000_000,
        seed: 1,
        method: Method::Bootstrap,
        budget: None,
    };
    let mut group = c.benchmark_group("forecast_1m_runs_20_calls");
    group.sample_size(10);
    group.bench_function("bootstrap_all_threads", |b| {
        b.iter(|| {
            forecast::run(
                black_box(&scenario),
                &spec,
                &sampler,
                &AtomicBool::new(false),
                &|_| {},
            )
            .ok()
        })
    });
    group.finish();
}

criterion_group!(benches, bench, bench_forecast);
criterion_main!(benches);
