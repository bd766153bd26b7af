//! Replays a synthetic 1,000,000-call trace through every variant
//! (raw/trimmed × no cache/5m/1h × sync/batch = 12 variants).
//!
//! Run: `cargo bench --bench engine`. Target (issue 2): under 1 s per replay.

use criterion::{criterion_group, criterion_main, Criterion};
use rust_decimal::Decimal;
use std::hint::black_box;
use tokencast::engine::{simulate, SimulateOptions};
use tokencast::pricing::ModelPrices;
use tokencast::scenario::{
    Assumptions, Cache, Content, Mode, PricedVariant, Scenario, TraceCall, Variant,
};

fn synthetic(calls: usize) -> Scenario {
    let prices = ModelPrices {
        model: "claude-fable-5-2".into(),
        source: "bench".into(),
        read_on: "2026-11-14".into(),
        input: Decimal::from(8),
        output: Decimal::from(40),
        cache_write_5m: Some(Decimal::from(10)),
        cache_write_1h: Some(Decimal::from(16)),
        cache_read: Some(Decimal::new(20, 2)),
        batch_input: Some(Decimal::from(4)),
        batch_output: Some(Decimal::from(20)),
        ..ModelPrices::default()
    };
    let mut variants = Vec::new();
    for results in [Content::Raw, Content::Trimmed] {
        for cache in [Cache::None, Cache::FiveMinutes, Cache::OneHour] {
            for mode in [Mode::Sync, Mode::Batch] {
                let variant = Variant {
                    name: Variant::default_name(results, cache, mode),
                    results,
                    cache,
                    mode,
                    service: None,
                    region: None,
                };
                variants.push(PricedVariant::new(variant, &prices).unwrap());
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
    let trace = (0..calls)
        .map(|i| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let raw = 500 + (x >> 33) % 100_000;
            TraceCall {
                row: i + 1,
                call: Some(i as u32 + 1),
                capability: caps[i % 4].to_string(),
                params: String::new(),
                status: 200,
                items: 1 + (x >> 20) % 30,
                raw_bytes: Some(raw),
                trimmed_bytes: Some(raw / 5),
                latency_ms: 1000 + (x >> 40) % 15_000,
                charged_usd: Decimal::new(792, 6),
                replayed: false,
                images: 0,
                documents: 0,
                recorded: None,
                request: None,
                resent_output: None,
                hidden_output: None,
                gap_ms: None,
                compacted: false,
            }
        })
        .collect();
    Scenario {
        name: "synthetic".into(),
        question: "bench".into(),
        prices,
        assumptions: Assumptions {
            prefix_tokens: 3000,
            output_tokens_per_step: 500,
            final_output_tokens: 2000,
            bytes_per_token: Decimal::from(4),
            tokenizer_uplift: Decimal::new(13, 1),
            runs_per_day: 100,
            prefix_measured: false,
            prefix_cached_tokens: 0,
            step_overhead_tokens: 0,
            estimate_bytes_per_token: None,
        },
        timing: None,
        what_if: Default::default(),
        variants,
        trace,
        tool_fees: Vec::new(),
        currency: Default::default(),
        price_date: None,
        recorded_prices: Default::default(),
        inputs: Vec::new(),
    }
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
    let sampler = Sampler::new(&scenario.trace, Method::Bootstrap).unwrap();
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
