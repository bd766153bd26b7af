//! Unit tests of the parent module.

use super::*;
use crate::engine::tests::call;

fn result(cap: &str, items: u64, raw: u64, trimmed: u64, latency_ms: u64) -> TraceCall {
    let mut c = call(1, raw, trimmed);
    c.capability = cap.into();
    c.items = items;
    c.latency_ms = latency_ms;
    c
}

#[test]
fn a_trace_without_a_result_has_nothing_to_draw() {
    let mut c = result("a", 1, 100, 10, 5);
    c.status = 500;
    assert!(Sampler::new(&[c], Method::Bootstrap).is_err());
}

#[test]
fn the_mix_is_the_recorded_share_of_each_capability() {
    let trace = [
        result("a", 1, 100, 10, 5),
        result("a", 2, 300, 30, 5),
        result("a", 1, 100, 10, 5),
        result("b", 4, 800, 80, 5),
    ];
    let s = Sampler::new(&trace, Method::Bootstrap).unwrap();
    let fits = s.fits();
    assert_eq!(fits.len(), 2);
    assert_eq!(
        (fits[0].capability.as_str(), fits[0].share, fits[0].calls),
        ("a", 0.75, 3)
    );
    assert_eq!(
        (fits[1].capability.as_str(), fits[1].share, fits[1].calls),
        ("b", 0.25, 1)
    );
    // Restricted to b, every draw is b's one call.
    let only_b = s.only(&["b".to_string()]);
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    for _ in 0..100 {
        assert_eq!(only_b.draw(&mut rng), (800, 80, 5));
    }
}

#[test]
fn a_bootstrap_draw_is_recorded_items_times_recorded_bytes_per_item() {
    // Calls of 1 and 3 items; bytes per item 100 (raw) and 10 (trimmed)
    // in the first, 200 and 20 in the second. A draw is items from one
    // call times bytes per item from one call: 100, 200, 300 or 600 raw.
    let trace = [result("a", 1, 100, 10, 7), result("a", 3, 600, 60, 9)];
    let s = Sampler::new(&trace, Method::Bootstrap).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..1000 {
        let (raw, trimmed, latency) = s.draw(&mut rng);
        assert!([100, 200, 300, 600].contains(&raw), "{raw}");
        assert_eq!(trimmed * 10, raw, "trimmed keeps the pair's ratio");
        assert!([7, 9].contains(&latency));
        seen.insert(raw);
    }
    assert_eq!(seen.len(), 4, "every combination is drawn: {seen:?}");
    // The same seed draws the same results.
    let mut a = Pcg64Mcg::seed_from_u64(42);
    let mut b = Pcg64Mcg::seed_from_u64(42);
    let first: Vec<_> = (0..50).map(|_| s.draw(&mut a)).collect();
    let again: Vec<_> = (0..50).map(|_| s.draw(&mut b)).collect();
    assert_eq!(first, again);
}

#[test]
fn a_log_normal_fit_is_the_mean_and_population_deviation_of_the_logs() {
    // ln e = 1, ln e³ = 3: mean 2, population deviation 1.
    let f = Fit::of([1f64.exp(), 3f64.exp()].into_iter()).unwrap();
    assert!(
        (f.mu - 2.0).abs() < 1e-12 && (f.sigma - 1.0).abs() < 1e-12,
        "{f:?}"
    );
    assert_eq!(Fit::of([0.0, -1.0].into_iter()), None, "no positive value");
}

#[test]
fn exact_sums_refuse_to_wrap() {
    let mut overflow = None;
    let mut a = i128::MAX - 1;
    add_exact(&mut a, 1, &mut overflow);
    assert_eq!((a, overflow.is_none()), (i128::MAX, true));
    add_exact(&mut a, 1, &mut overflow);
    assert_eq!(a, i128::MAX);
    assert!(overflow.unwrap().contains("beyond exact arithmetic"));
}

#[test]
fn variants_that_differ_only_in_prices_share_one_tally() {
    use crate::scenario::{Cache, Mode, PricedVariant, Variant};
    let p = crate::engine::tests::prices();
    let v = |results, cache, mode| {
        let v = Variant {
            name: format!("{results:?} {cache} {mode:?}"),
            results,
            cache,
            mode,
            service: None,
            region: None,
        };
        PricedVariant::new(v, &p).unwrap()
    };
    let variants = [
        v(Content::Raw, Cache::None, Mode::Sync),
        v(Content::Raw, Cache::FiveMinutes, Mode::Sync),
        // Batch: the 5-minute replay's tokens at other prices.
        v(Content::Raw, Cache::FiveMinutes, Mode::Batch),
        // Trimmed results, or another tier (another lifetime), replay apart.
        v(Content::Trimmed, Cache::FiveMinutes, Mode::Sync),
        v(Content::Raw, Cache::OneHour, Mode::Sync),
        v(Content::Raw, Cache::None, Mode::Batch),
    ];
    assert_eq!(same_tallies(&variants, &[0; 6]), [0, 1, 1, 3, 4, 0]);
    // On another band (a model of another tokenizer) nothing is shared.
    assert_eq!(
        same_tallies(&variants, &[0, 0, 1, 0, 0, 1]),
        [0, 1, 2, 3, 4, 5]
    );
}

#[test]
fn an_integer_becomes_the_nearest_float_on_either_path() {
    // 2^53 + 1 is not a float: it rounds to even (2^53) on the i64 path
    // as on the i128 one; past i64 the i128 conversion is taken.
    let big = (1i128 << 53) + 1;
    assert_eq!(to_f64(big), 9_007_199_254_740_992.0);
    assert_eq!(to_f64(-big), -9_007_199_254_740_992.0);
    assert_eq!(to_f64(1i128 << 80), 2f64.powi(80));
    assert_eq!(to_f64(0), 0.0);
}

#[test]
fn a_drawn_size_rounds_as_f64_round_does() {
    // Halves round away from zero; the largest double below 0.5 rounds
    // down; beyond 2^52 every double is whole; past u64 both saturate.
    let cases = [
        0.0,
        0.49999999999999994,
        0.5,
        1.5,
        2.5,
        2.4999999999999996,
        4_503_599_627_370_495.5,
        4_503_599_627_370_497.0,
        9_007_199_254_740_993.0,
        1.8e19,
        1.9e19,
        f64::MAX,
    ];
    for x in cases {
        assert_eq!(round_u64(x), x.round() as u64, "{x}");
    }
    // And sizes as the bootstrap makes them: items × bytes ÷ items.
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    for _ in 0..200_000 {
        let items = rng.random_range(1..1_000u64) as f64;
        let bytes = rng.random_range(0..10_000_000u64) as f64;
        let per = rng.random_range(1..1_000u64) as f64;
        let x = items * bytes / per;
        assert_eq!(round_u64(x), x.round() as u64, "{items} × {bytes} ÷ {per}");
    }
}

/// Every drawn run reaches every sketch: runs past a chunk and past a batch
/// of waiting samples (neither a whole number of either) leave nothing out.
#[test]
fn every_run_reaches_every_sketch() {
    let s = crate::engine::tests::scenario(&[(4000, 1000), (2500, 700), (900, 900)], Vec::new());
    let sampler = Sampler::new(s.trace(), Method::Bootstrap).expect("results");
    let runs = CHUNK + accumulate::BATCH as u64 * 3 + 5;
    let spec = ForecastSpec {
        calls: 4,
        runs,
        seed: 7,
        method: Method::Bootstrap,
        budget: None,
    };
    let mut plan = Plan::new(&s, &spec, &sampler).expect("plans");
    plan.fix_bins(&|_| {});
    let acc = plan
        .run_chunks(&AtomicBool::new(false), &|_| {})
        .expect("runs");
    let sketches = acc
        .cost
        .iter()
        .chain(&acc.fan)
        .chain(&acc.context)
        .flatten();
    let mut n = 0;
    for sketch in sketches {
        assert_eq!(sketch.count(), runs as usize);
        n += 1;
    }
    assert_eq!(n, 2 * (s.variants().len() + plan.fan_at.len() + 2));
}

#[test]
fn a_looked_up_draw_is_the_draw_scaled_at_once() {
    // Uneven items and sizes, calls without results, two capabilities;
    // the third has 257 calls with results (66,049 pairs, over the table's
    // bound), so it is scaled at every draw.
    let mut trace = vec![
        result("a", 3, 1001, 333, 5),
        result("a", 0, 17, 17, 6),
        result("a", 7, 9999, 1234, 7),
        result("a", 2, 5, 5, 8),
        result("b", 11, 70001, 3, 9),
        result("b", 1, 13, 12, 10),
    ];
    trace.extend((1..=257).map(|i| result("c", i % 9 + 1, 1000 + 37 * i, 300 + 11 * i, i)));
    let looked_up = Sampler::new(&trace, Method::Bootstrap).unwrap();
    assert_eq!(tables(&looked_up), [Some(4 * 3), Some(2 * 2), None]);
    let mut scaled_each_time = looked_up.clone();
    for c in &mut scaled_each_time.caps {
        c.pairs = None;
    }
    let (mut a, mut b) = (Pcg64Mcg::seed_from_u64(3), Pcg64Mcg::seed_from_u64(3));
    for _ in 0..20_000 {
        assert_eq!(looked_up.draw(&mut a), scaled_each_time.draw(&mut b));
    }
    // A log-normal sampler draws no pairs.
    let fitted = Sampler::new(&trace, Method::Lognormal).unwrap();
    assert!(fitted.caps.iter().all(|c| c.pairs.is_none()));
    // Five capabilities of 256 calls with results: 65,536 pairs each, and
    // 262,144 pairs for all tables together, so the fifth is scaled.
    let wide: Vec<TraceCall> = ["p", "q", "r", "s", "t"]
        .iter()
        .flat_map(|cap| (1..=256).map(move |i| result(cap, i % 5 + 1, 900 + i, 90 + i, i)))
        .collect();
    let s = Sampler::new(&wide, Method::Bootstrap).unwrap();
    let four_then_none: Vec<Option<usize>> = [Some(65_536); 4].into_iter().chain([None]).collect();
    assert_eq!(tables(&s), four_then_none);
}

/// Each capability's pair table's length, if it has one.
fn tables(s: &Sampler) -> Vec<Option<usize>> {
    s.caps
        .iter()
        .map(|c| c.pairs.as_ref().map(|p| p.len()))
        .collect()
}

#[test]
fn an_inlined_index_is_the_draw_random_range_makes() {
    for len in [
        1usize,
        2,
        3,
        7,
        18,
        1000,
        1 << 31,
        (u32::MAX as usize) + 5,
        usize::MAX,
    ] {
        let (mut a, mut b) = (Pcg64Mcg::seed_from_u64(11), Pcg64Mcg::seed_from_u64(11));
        for _ in 0..2_000 {
            assert_eq!(index(&mut a, len), b.random_range(0..len), "{len}");
        }
    }
}
