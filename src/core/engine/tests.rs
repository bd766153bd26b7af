//! Unit tests of the engine: hand-computed replays, cache rules, rows kept.

use super::*;
use crate::pricing::ModelPrices;
use crate::scenario::{Mode, Variant};
use proptest::prelude::*;
use std::str::FromStr;

/// A decimal written as text (the prices of a test).
pub(crate) fn d(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

pub(crate) fn prices() -> ModelPrices {
    ModelPrices {
        model: "m".into(),
        source: "test".into(),
        read_on: "2026-11-14".into(),
        input: d("8"),
        output: d("40"),
        cache_write_5m: Some(d("10")),
        cache_write_1h: Some(d("16")),
        cache_read: Some(d("0.2")),
        batch_input: Some(d("4")),
        batch_output: Some(d("20")),
        ..ModelPrices::default()
    }
}

pub(crate) fn call(row: usize, raw: u64, trimmed: u64) -> TraceCall {
    TraceCall {
        row: u32::try_from(row).unwrap(),
        call: Some(u32::try_from(row).unwrap()),
        capability: "t/x".into(),
        params: Default::default(),
        status: 200,
        items: 1,
        raw_bytes: Some(raw),
        trimmed_bytes: Some(trimmed),
        latency_ms: 1000,
        charged_usd: d("0.001"),
        replayed: false,
        imported: None,
    }
}

pub(crate) fn scenario(bytes: &[(u64, u64)], extra: Vec<TraceCall>) -> Scenario {
    scenario_priced(bytes, extra, prices())
}

/// [`scenario`] as an importer leaves it: its results grouped
/// `results_a_request` to a recorded request (requests numbered from 1).
pub(crate) fn grouped(mut s: Scenario, results_a_request: u64) -> Scenario {
    for (i, c) in (0u64..).zip(s.trace_mut().iter_mut()) {
        c.imported = Some(Box::new(crate::scenario::trace::Imported {
            request: Some(i / results_a_request + 1),
            ..Default::default()
        }));
    }
    s
}

/// [`scenario`] on the model `p`.
fn scenario_priced(bytes: &[(u64, u64)], extra: Vec<TraceCall>, p: ModelPrices) -> Scenario {
    let variants = [Cache::None, Cache::FiveMinutes]
        .into_iter()
        .map(|cache| {
            let v = Variant {
                name: format!("{cache}"),
                results: Content::Raw,
                cache,
                mode: Mode::Sync,
                service: None,
                region: None,
            };
            PricedVariant::new(v, &p).unwrap()
        })
        .collect();
    let mut trace: Vec<TraceCall> = bytes
        .iter()
        .enumerate()
        .map(|(i, (r, t))| call(i + 1, *r, *t))
        .collect();
    trace.extend(extra);
    Scenario::unchecked_for_test(
        p,
        Assumptions {
            prefix_tokens: 100,
            output_tokens_per_step: 10,
            final_output_tokens: 20,
            bytes_per_token: d("4"),
            tokenizer_uplift: d("1.5"),
            runs_per_day: 3,
            team_size: 1,
            prefix_measured: false,
            prefix_cached_tokens: 0,
            step_overhead_tokens: 0,
            estimate_bytes_per_token: None,
            trim: Default::default(),
            calibration: None,
            content_weights: None,
        },
        variants,
        trace,
    )
}

#[test]
fn content_weights_count_each_kind_of_byte_by_its_weight() {
    use crate::scenario::content::{ContentKind, ContentWeights};
    // Code at 0.5 and tool output at 2 bytes of the band a byte: T = 40 ×
    // 0.5 ÷ 4 = 5 and 80 × 2 ÷ 4 = 40 tokens (unweighted: 10 and 20).
    let mut s = scenario(&[(40, 4), (80, 8)], vec![]);
    s.assumptions_mut().content_weights =
        Some(ContentWeights::from_array([d("0.5"), d("2"), d("1")]));
    s.trace_mut()[0].imported_mut().content = Some(ContentKind::Code);
    let sim = simulate(&s, SimulateOptions::default());
    let p = sim.profile(Content::Raw);
    // Requests: 100; 100 + 10 + 5 = 115; 100 + 20 + 45 = 165.
    assert_eq!(p.input_tokens.lower, d("380"));
    // Upper: 1.5 × 100; 1.5 × 105 + 10 = 167.5; 1.5 × 145 + 20 = 237.5.
    assert_eq!(p.input_tokens.upper, d("555"));
    // The bytes stay bytes; their tokens are the weighed ones.
    assert_eq!(p.result_bytes, 120);
    assert_eq!(p.result_tokens.lower, d("45"));
    let rows: Vec<Decimal> = sim.attribution.iter().map(|a| a.raw_tokens.lower).collect();
    assert_eq!(rows, vec![d("5"), d("40")]);
    // Weights of 1 are the band alone: the unweighted figures.
    s.assumptions_mut().content_weights = Some(ContentWeights::from_array([Decimal::ONE; 3]));
    let plain = simulate(&s, SimulateOptions::default());
    assert_eq!(plain.profile(Content::Raw).input_tokens.lower, d("370"));
}

#[test]
fn two_result_run_matches_hand_computation() {
    // T = 10, 20 tokens. Requests: 100; 100+10+10 = 120; 100+20+30 = 150.
    let sim = simulate(
        &scenario(&[(40, 4), (80, 8)], vec![]),
        SimulateOptions::default(),
    );
    let p = sim.profile(Content::Raw);
    assert_eq!(p.requests, 3);
    assert_eq!(p.input_tokens.lower, d("370"));
    // Upper: 150; 1.5 × 110 + 10 = 175; 1.5 × 130 + 20 = 215.
    assert_eq!(p.input_tokens.upper, d("540"));
    assert_eq!(
        p.final_request_input,
        Bounds {
            lower: d("150"),
            upper: d("215")
        }
    );
    assert_eq!(p.cache_write_tokens.lower, d("150"));
    assert_eq!(p.cache_read_tokens.lower, d("220"));
    assert_eq!(p.output_tokens, 40);
    let none = &sim.variants[0].cost;
    assert_eq!(none.input.lower, d("0.00296")); // 370 × $8/M
    assert_eq!(none.output.lower, d("0.0016")); // 40 × $40/M
    let cached = &sim.variants[1].cost;
    assert_eq!(cached.cache_write.lower, d("0.0015")); // 150 × $10/M
    assert_eq!(cached.cache_read.lower, d("0.000044")); // 220 × $0.20/M
    assert_eq!(cached.uncached_input.lower, Decimal::ZERO);
    assert_eq!(cached.data_fee.lower, d("0.002"));
    assert_eq!(
        sim.variants[1].per_day.total.lower,
        cached.total.lower * d("3")
    );
    // Result 1 is carried by 2 requests: 10 × 2 × $8/M; cached 10 × ($10 + $0.20)/M.
    assert_eq!(sim.attribution[0].resends, 2);
    assert_eq!(sim.attribution[0].cost[0].lower, d("0.00016"));
    assert_eq!(sim.attribution[0].cost[1].lower, d("0.000102"));
}

#[test]
fn errors_and_replays_do_not_enter_the_context() {
    let mut error = call(3, 999, 9);
    error.status = 422;
    error.charged_usd = Decimal::ZERO;
    let mut replay = call(4, 40, 4);
    replay.replayed = true;
    let with = simulate(
        &scenario(&[(40, 4), (80, 8)], vec![error, replay]),
        SimulateOptions::default(),
    );
    let without = simulate(
        &scenario(&[(40, 4), (80, 8)], vec![]),
        SimulateOptions::default(),
    );
    assert_eq!(with.tool_results, 2);
    assert_eq!(with.context, without.context);
    assert_eq!(
        with.ledger.total_usd,
        d("0.002"),
        "replay's echoed fee skipped"
    );
    assert_eq!(with.ledger.replays_skipped, 1);
    assert_eq!(with.ledger.errors, 1);
}

/// P = 100, o = F = 0, two results of 20 tokens: requests carry 100, 120, 140 tokens.
fn rules_scenario(edit: impl FnOnce(&mut ModelPrices)) -> Scenario {
    let mut s = scenario(&[(80, 8), (80, 8)], vec![]);
    s.assumptions_mut().output_tokens_per_step = 0;
    s.assumptions_mut().final_output_tokens = 0;
    edit(s.prices_mut());
    let prices = s.prices().clone();
    for v in s.variants_mut() {
        v.prices = prices.clone();
        v.reprice().unwrap();
    }
    s
}

fn lower_input(s: &Scenario, variant: usize) -> (Decimal, VariantResult) {
    let sim = simulate(s, SimulateOptions::default());
    let v = sim.variants[variant].clone();
    (v.cost.input.lower, v)
}

#[test]
fn minimum_cacheable_length_edges() {
    // At 120: request 1 (100) is billed uncached, request 2 (120) writes all
    // of itself, request 3 writes 20 and reads 120.
    let (at, v) = lower_input(&rules_scenario(|p| p.min_cacheable_tokens = Some(120)), 1);
    assert_eq!(at, d("0.002224")); // (100×8 + 120×10 + 20×10 + 120×0.2) / 1M
    assert_eq!(v.uncacheable_requests, 1);
    let (below, _) = lower_input(&rules_scenario(|p| p.min_cacheable_tokens = Some(119)), 1);
    assert_eq!(below, d("0.002224"));
    // One token above: request 2 is not cached either, request 3 writes 140.
    let (above, v) = lower_input(&rules_scenario(|p| p.min_cacheable_tokens = Some(121)), 1);
    assert_eq!(above, d("0.00316")); // (100×8 + 120×8 + 140×10) / 1M
    assert_eq!(v.uncacheable_requests, 2);
}

#[test]
fn long_context_tier_edges() {
    let tier = |t| {
        move |p: &mut ModelPrices| {
            p.long_context = vec![crate::pricing::LongContext {
                threshold_tokens: t,
                input: d("16"),
                output: d("60"),
                cache_write_5m: None,
                cache_write_1h: None,
                cache_read: None,
            }]
        }
    };
    // Exactly at 120: request 2 is not above it; only request 3 (140) is.
    let (at, v) = lower_input(&rules_scenario(tier(120)), 0);
    assert_eq!(at, d("0.004")); // (100×8 + 120×8 + 140×16) / 1M
    assert_eq!(v.long_context_requests, 1);
    let (below, v) = lower_input(&rules_scenario(tier(119)), 0);
    assert_eq!(below, d("0.00496")); // (100×8 + 120×16 + 140×16) / 1M
    assert_eq!(v.long_context_requests, 2);
    let (above, _) = lower_input(&rules_scenario(tier(121)), 0);
    assert_eq!(above, d("0.004"));
    // Cached requests above the threshold keep the multipliers on the tier's input price.
    let (cached, _) = lower_input(&rules_scenario(tier(130)), 1);
    // 100×10 + (20×10 + 100×0.2) + (20×20 + 120×0.4), per million
    assert_eq!(cached, d("0.001668"));
}

#[test]
fn cache_expires_only_when_the_gap_exceeds_the_lifetime() {
    let timed = |model_ms| {
        let mut s = rules_scenario(|_| {});
        *s.timing_mut() = Some(Timing {
            model_ms_per_step: model_ms,
            pauses: vec![],
        });
        s
    };
    // Each tool call takes 1,000 ms: a gap of exactly 300,000 ms keeps the 5-minute cache.
    let (kept, v) = lower_input(&timed(299_000), 1);
    assert_eq!(kept, d("0.001444")); // 100×10 + (20×10 + 100×0.2) + (20×10 + 120×0.2)
    assert_eq!(v.expiries, 0);
    let (expired, v) = lower_input(&timed(299_001), 1);
    assert_eq!(expired, d("0.0036")); // (100 + 120 + 140) × 10
    assert_eq!(v.expiries, 2);
}

/// Steps of a recorded run: bytes, billed output, output sent back,
/// unmeasured tokens, a flag (a compaction, or a kept request).
fn drawn_steps() -> impl Strategy<Value = Vec<(u64, u64, u64, u64, bool)>> {
    proptest::collection::vec(
        (
            0u64..200_000,
            0u64..3000,
            0u64..2000,
            0u64..500,
            any::<bool>(),
        ),
        1..30,
    )
}

/// Gaps before each of up to 31 requests, mostly within the 5-minute cache.
fn drawn_gaps() -> impl Strategy<Value = Vec<u64>> {
    proptest::collection::vec(0u64..310_000, 31)
}

/// What the plain-rules property tests replay: the drawn steps' result
/// bytes and outputs, the cache (five minutes or none) and the scenario
/// whose variant of that cache gives the rates.
struct Drawn {
    bytes: Vec<u64>,
    outputs: replay::StepOutputs,
    cache: Cache,
    s: Scenario,
}

impl Drawn {
    fn new(steps: &[(u64, u64, u64, u64, bool)], cached: bool) -> Drawn {
        Drawn {
            bytes: steps.iter().map(|s| s.0).collect(),
            outputs: recorded_outputs(steps),
            cache: if cached {
                Cache::FiveMinutes
            } else {
                Cache::None
            },
            s: scenario(&[], vec![]),
        }
    }

    fn rates(&self) -> &crate::pricing::Rates {
        &self.s.variants()[usize::from(self.cache != Cache::None)].rates
    }
}

/// A recorded run's outputs from drawn steps (bytes, billed output, output
/// sent back, unmeasured tokens, a flag): each request's own output, what
/// the next prompt carries back and the tokens the log could not measure.
fn recorded_outputs(steps: &[(u64, u64, u64, u64, bool)]) -> replay::StepOutputs {
    let mut outputs = replay::StepOutputs {
        billed: steps.iter().map(|s| s.1).collect(),
        resent: vec![0],
        drops: vec![false; steps.len() + 1],
        unmeasured: vec![0],
    };
    for (k, s) in steps.iter().enumerate() {
        let (resent, unmeasured) = (outputs.resent[k], outputs.unmeasured[k]);
        outputs.resent.push(resent + u128::from(s.2));
        outputs.unmeasured.push(unmeasured + u128::from(s.3));
    }
    outputs
}

proptest! {
    #[test]
    fn the_closed_form_totals_equal_the_sum_over_requests(
        bytes in proptest::collection::vec(0u64..2_000_000, 0..60),
        overhead in 0u64..50,
        output in 0u64..5000,
    ) {
        let mut a = scenario(&[], vec![]).assumptions().clone();
        a.step_overhead_tokens = overhead;
        a.output_tokens_per_step = output;
        let run = replay::Run::new(replay::Scale::new(&a), &bytes, 7);
        // Request k's numerators, one by one: the prefix, k steps' output
        // and framing, and the bytes before it.
        let (mut cum, mut sum, mut last) = (0u128, [0i128; 2], [0i128; 2]);
        for k in 0..=bytes.len() {
            if k > 0 {
                cum += u128::from(bytes[k - 1]);
            }
            last = run.scale.numerators_out(k as u128 * u128::from(output + overhead), cum);
            sum = [sum[0] + last[0], sum[1] + last[1]];
        }
        prop_assert_eq!(run.totals(), (sum, last));
    }

    #[test]
    fn restarts_without_rules_are_the_walks(
        steps in drawn_steps(),
        cached in any::<bool>(),
        gaps in drawn_gaps(),
        timed in any::<bool>(),
    ) {
        // A recorded run, as below; some requests kept (step.4).
        let d = Drawn::new(&steps, cached);
        let (cache, rates, n) = (d.cache, d.rates(), d.bytes.len());
        // Timed, the gaps mostly within the 5-minute cache (a gap past it
        // is a rule: the walk again).
        let run = replay::Run {
            outputs: Some(&d.outputs),
            gaps_ms: timed.then_some(Gaps::Listed(&gaps[..=n])),
            ..replay::Run::new(replay::Scale::new(d.s.assumptions()), &d.bytes, 20)
        };
        let mut keep: Vec<bool> = steps.iter().map(|s| s.4).collect();
        keep.push(true);
        for rows in [RowSet::Selected(keep), RowSet::Everything, RowSet::Nothing] {
            prop_assert_eq!(
                run.restarts(cache, rates, &rows),
                run.walked_restarts(cache, rates, &rows)
            );
        }
    }

    #[test]
    fn each_kept_requests_cost_without_rules_is_the_walks(
        steps in drawn_steps(),
        cached in any::<bool>(),
        gaps in drawn_gaps(),
        timed in any::<bool>(),
    ) {
        // A recorded run: each request's own output (billed, and the part
        // sent back), tokens the log could not measure, and compactions.
        let d = Drawn::new(&steps, cached);
        let (cache, rates, n) = (d.cache, d.rates(), d.bytes.len());
        let mut compactions = replay::Compactions {
            bytes: vec![0],
            since: vec![0],
            at: vec![false],
        };
        let (mut cum, mut since, mut before) = (0u128, 0u64, 0u128);
        for (k, s) in steps.iter().enumerate() {
            cum += u128::from(s.0);
            if s.4 {
                since = k as u64 + 1;
                before = cum;
            }
            compactions.bytes.push(before);
            compactions.since.push(since);
            compactions.at.push(s.4);
        }
        let scale = replay::Scale::new(d.s.assumptions());
        // With a cache, a compaction is a rule (the walk replays it), so
        // the cached run has none.
        // Timed, the gaps mostly within the 5-minute cache (a gap past it
        // is a rule: the walk again).
        let run = replay::Run {
            outputs: Some(&d.outputs),
            compactions: (!cached).then_some(&compactions),
            gaps_ms: timed.then_some(Gaps::Listed(&gaps[..=n])),
            ..replay::Run::new(scale, &d.bytes, 20)
        };
        let mut kept = Vec::new();
        let tally = run.tally(cache, rates, Some((&RowSet::Everything, &mut kept)));
        prop_assert_eq!(&kept, &run.walked_costs(cache, rates));
        // The closed-form sums are the requests' costs summed.
        let total: Bounds = kept.iter().copied().sum();
        let p = run.priced(tally.sums, rates);
        prop_assert_eq!(total, p.uncached_input + p.cache_write + p.cache_read + p.output);
    }

    #[test]
    fn a_gap_past_the_cache_as_the_only_rule_bills_as_the_walk_does(
        steps in drawn_steps(),
        gaps in proptest::collection::vec(0u64..600_000, 31),
        one_hour in any::<bool>(),
        survival in proptest::option::of(0u8..=100),
        uniform in any::<bool>(),
    ) {
        // A recorded or a uniform run, cached, with gaps on either side of
        // the 5-minute lifetime (about half of them expire it; none outlive
        // the hour). Where part of the cache survives an expiry, the walk
        // bills it; otherwise the sums come from running totals.
        let d = Drawn::new(&steps, true);
        let n = d.bytes.len();
        let (cache, rates) = (if one_hour { Cache::OneHour } else { d.cache }, d.rates());
        let run = replay::Run {
            outputs: (!uniform).then_some(&d.outputs),
            gaps_ms: Some(Gaps::Listed(&gaps[..=n])),
            survival: replay::Run::share(survival.map(|p| Decimal::new(i64::from(p), 2))),
            ..replay::Run::new(replay::Scale::new(d.s.assumptions()), &d.bytes, 20)
        };
        // The walk through every request and rule, whatever applies.
        let walked = run.walked(cache, rates, None);
        let mut kept = Vec::new();
        prop_assert_eq!(run.tally(cache, rates, Some((&RowSet::Everything, &mut kept))), walked);
        prop_assert_eq!(run.tally(cache, rates, None), walked);
        prop_assert_eq!(&kept, &run.walked_costs(cache, rates));
        // Where the sums follow from the totals, their cost as a line in
        // them is the walked tally's cost (the forecast prices them so).
        let plain = run.plain_sums(cache, rates, None);
        prop_assert!(plain.is_some() || survival.is_some());
        if let (Some(p), Some(ir)) = (plain, replay::IntegerRates::new(&run.scale, rates)) {
            prop_assert_eq!(ir.plain_numerators(&p), ir.numerators(&walked));
        }
        // Within the hour nothing expires; past 5 minutes each gap does.
        let past = gaps[1..=n].iter().filter(|g| **g > 300_000).count() as u64;
        prop_assert_eq!(walked.counts.expiries, if one_hour { 0 } else { past });
    }

    #[test]
    fn a_profile_of_totals_or_an_outline_is_the_walked_profile_with_only_its_requests(
        bytes in proptest::collection::vec((0u64..200_000, 0u64..1000), 1..40),
        window in proptest::option::of(0u64..2_000_000),
    ) {
        let bytes: Vec<(u64, u64)> = bytes.into_iter().map(|(r, t)| (r, t.min(r))).collect();
        let p = ModelPrices { context_window_tokens: window, ..prices() };
        let s = scenario_priced(&bytes, vec![], p);
        let walked = simulate(&s, SimulateOptions::ALL_ROWS);
        let quick = simulate(&s, SimulateOptions::TOTALS);
        prop_assert_eq!(quick.context.len(), 2);
        for (q, w) in quick.context.iter().zip(&walked.context) {
            prop_assert!(q.per_request.is_empty());
            prop_assert_eq!(w.per_request.len() as u64, w.requests);
            // The first request past the window, found in the walk.
            let past = window.and_then(|limit| {
                w.per_request.iter().find(|r| r.input.upper > Decimal::from(limit))
            });
            prop_assert_eq!(w.first_over_window, past.map(|r| r.request));
            let w = ContextProfile { per_request: Vec::new(), ..w.clone() };
            prop_assert_eq!(q, &w);
        }
        // An outline (the trace's first and last requests, its spikes, …)
        // counts only its kept requests: each as the walk counts it.
        let outline = simulate(&s, SimulateOptions { rows: Rows::Outline(3) });
        for (o, w) in outline.context.iter().zip(&walked.context) {
            prop_assert!(!o.per_request.is_empty());
            for r in &o.per_request {
                prop_assert_eq!(r, &w.per_request[ix(r.request - 1)]);
            }
            let w = ContextProfile { per_request: o.per_request.clone(), ..w.clone() };
            prop_assert_eq!(o, &w);
        }
    }

    #[test]
    fn running_sums_equal_per_request_sums(bytes in proptest::collection::vec((0u64..200_000, 0u64..1000), 1..40)) {
        let bytes: Vec<(u64, u64)> = bytes.into_iter().map(|(r, t)| (r, t.min(r))).collect();
        let sim = simulate(&scenario(&bytes, vec![]), SimulateOptions::default());
        for p in &sim.context {
            let sum: Bounds = p.per_request.iter().map(|r| r.input).sum();
            prop_assert_eq!(sum, p.input_tokens);
            let writes: Bounds = p.per_request.iter().map(|r| r.cache_write).sum();
            prop_assert_eq!(writes, p.cache_write_tokens);
            let reads: Bounds = p.per_request.iter().map(|r| r.cache_read).sum();
            prop_assert_eq!(reads, p.cache_read_tokens);
        }
        for v in &sim.variants {
            let model: Bounds = v.request_costs.iter().copied().sum();
            prop_assert_eq!(model, v.cost.input + v.cost.output);
        }
        // The closed form (no detail, no rules) agrees with the per-request replay.
        let quick = simulate(&scenario(&bytes, vec![]), SimulateOptions::TOTALS);
        for (a, b) in quick.variants.iter().zip(&sim.variants) {
            prop_assert_eq!(a.cost, b.cost);
        }
        // Without a cache, attributed result costs + prefix + carried outputs = input cost.
        let n = bytes.len() as u64;
        let attributed: Bounds = sim.attribution.iter().map(|a| a.cost[0]).sum();
        let prefix = Decimal::from((n + 1) * 100) * d("8") / PER_MILLION;
        let outputs = Decimal::from(n * (n + 1) / 2 * 10) * d("8") / PER_MILLION;
        let rest = Bounds { lower: prefix + outputs, upper: prefix * d("1.5") + outputs };
        prop_assert_eq!(attributed + rest, sim.variants[0].cost.input);
    }
}

#[test]
fn resuming_after_a_tool_call_past_the_cache_lifetime_adds_nothing() {
    // Untimed, a resumed run's gaps are the tool latencies. Prompts (lower):
    // 100; 100 + 10 + 10 = 120; 120 + 10 + 20 = 150; 150 + 10 + 30 = 190.
    // Resuming before request k writes what it would have read (the prompt
    // before it) at $10/M instead of reading it at $0.20/M: $9.80/M more.
    let resume = |latency_of_second: u64| {
        let mut s = scenario(&[(40, 4), (80, 8), (120, 12)], vec![]);
        s.trace_mut()[1].latency_ms = latency_of_second;
        let r = restarts(&s, &[2, 3, 4]);
        // Variant 1 caches for 5 minutes.
        r.points
            .iter()
            .map(|p| p.resume[1].lower)
            .collect::<Vec<_>>()
    };
    let per_token = d("9.8") / d("1000000");
    // Every call takes 1 s: each resume rewrites the prompt before it.
    assert_eq!(
        resume(1000),
        vec![
            d("100") * per_token,
            d("120") * per_token,
            d("150") * per_token
        ]
    );
    // The second call takes 301 s: the cache had expired before request 3
    // anyway, so resuming there adds nothing; the others are as before.
    assert_eq!(
        resume(301_000),
        vec![d("100") * per_token, Decimal::ZERO, d("150") * per_token]
    );
}

#[test]
fn variants_sharing_a_restart_pass_each_pay_their_own_prices() {
    // Raw results without a cache and with the 5-minute cache: no rule
    // applies, so both price one pass. Prompts (lower): 100, 120, 150, 190;
    // 10 output tokens a step. Per million tokens, input $8, output $40,
    // 5-minute write $10, read $0.20.
    // Without a cache, requests 1–3 cost 100×8 + 10×40 = 1200, 120×8 + 400 =
    // 1360, 150×8 + 400 = 1600; with it 100×10 + 400 = 1400, 100×0.2 +
    // 20×10 + 400 = 620, 120×0.2 + 30×10 + 400 = 724. Starting over before
    // request k pays the requests before it; resuming rewrites the prompt
    // before it at $9.80 more (nothing without a cache).
    let s = scenario(&[(40, 4), (80, 8), (120, 12)], vec![]);
    let r = restarts(&s, &[2, 3, 4]);
    let m = |x: i64| Decimal::from(x) / d("1000000");
    let lower = |f: fn(&RestartCost) -> &Vec<Bounds>, v: usize| -> Vec<Decimal> {
        r.points.iter().map(|p| f(p)[v].lower).collect()
    };
    assert_eq!(lower(|p| &p.start_over, 0), vec![m(1200), m(2560), m(4160)]);
    assert_eq!(lower(|p| &p.start_over, 1), vec![m(1400), m(2020), m(2744)]);
    assert_eq!(lower(|p| &p.resume, 0), vec![Decimal::ZERO; 3]);
    let per_token = d("9.8") / d("1000000");
    assert_eq!(
        lower(|p| &p.resume, 1),
        vec![
            d("100") * per_token,
            d("120") * per_token,
            d("150") * per_token
        ]
    );
    assert_eq!(r.start_over_sum[0].lower, m(1200 + 2560 + 4160));
    assert_eq!(r.start_over_sum[1].lower, m(1400 + 2020 + 2744));
    assert_eq!(r.resume_sum[0].lower, Decimal::ZERO);
    assert_eq!(r.resume_sum[1].lower, d("370") * per_token);
}

/// A hand-written trace keeps no index from results to steps (each result
/// is its own step); an imported one keeps each result's request; both
/// read the rows of their results back.
#[test]
fn steps_of_results_hand_written_and_imported() {
    let mut rows = vec![
        call(1, 100, 50),
        call(2, 40, 20),
        call(3, 60, 30),
        call(4, 8, 4),
    ];
    rows[1].status = 503;
    let sizes = Sizes::of(&rows, None);
    assert!(matches!(sizes.step_of, sizes::StepOf::Own(3)));
    assert_eq!(sizes.raw, [100, 60, 8]);
    let steps: Vec<Option<usize>> = (0..4).map(|j| sizes.step_of.get(j)).collect();
    assert_eq!(steps, [Some(0), Some(1), Some(2), None]);
    let results: Vec<(usize, usize)> = sizes.result_rows().collect();
    assert_eq!(results, [(0, 0), (1, 2), (2, 3)]);
    // Each step's call: its own row's, read from the rows; its tool time:
    // every row's since the step before (the error's too).
    let calls: Vec<Option<u32>> = (0..3).map(|k| sizes.call(&rows, k)).collect();
    assert_eq!(calls, [Some(1), Some(3), Some(4)]);
    for (c, ms) in rows.iter_mut().zip([100, 20, 3, 4000]) {
        c.latency_ms = ms;
    }
    let sizes = Sizes::of(&rows, None);
    assert_eq!(sizes.tool_ms(&rows), [100, 23, 4000]);
    // Rows 1 and 3 before request 1, row 4 before request 2.
    for (c, request) in rows.iter_mut().zip([1, 1, 1, 2]) {
        c.imported_mut().request = Some(request);
    }
    let sizes = Sizes::of(&rows, None);
    assert!(matches!(&sizes.step_of, sizes::StepOf::Grouped(s) if *s == [0, 0, 1]));
    assert_eq!(sizes.tool_ms(&rows), [123, 4000]);
    assert_eq!(sizes.raw, [160, 8]);
    assert_eq!(
        (0..4).map(|j| sizes.step_of.get(j)).collect::<Vec<_>>(),
        [Some(0), Some(0), Some(1), None]
    );
    assert_eq!(sizes.result_rows().collect::<Vec<_>>(), results);
    // A step's call is its last result's (kept: the rows cannot say it).
    rows[2].call = None;
    let sizes = Sizes::of(&rows, None);
    assert_eq!(
        (sizes.call(&rows, 0), sizes.call(&rows, 1)),
        (Some(1), Some(4))
    );
}

proptest! {
    /// Gaps worked out as they are read are the list `Timing::gaps_into`
    /// makes: the first request's 0 (or its pauses), each later one's tool
    /// time plus the model's time, pauses added where they fall (before
    /// request 1, twice before one request, past the run, or before a
    /// request 0 that does not exist), saturating.
    #[test]
    fn timed_gaps_read_as_they_go_are_the_listed_gaps(
        tool_ms in proptest::collection::vec(prop_oneof![0u64..100_000, Just(u64::MAX - 5)], 0..40),
        model_ms in prop_oneof![0u64..600_000, Just(u64::MAX)],
        pauses in proptest::collection::vec((0u64..45, prop_oneof![0u64..4_000_000, Just(u64::MAX)]), 0..5),
    ) {
        let timing = crate::scenario::Timing {
            model_ms_per_step: model_ms,
            pauses: pauses
                .iter()
                .map(|&(before_request, ms)| crate::scenario::Pause { before_request, ms })
                .collect(),
        };
        let mut listed = Vec::new();
        timing.gaps_into(tool_ms.iter().copied(), &mut listed);
        // Both read each gap from `Timing::gap_before`; the gaps by hand:
        let mut want: Vec<u64> = std::iter::once(0)
            .chain(tool_ms.iter().map(|t| t.saturating_add(model_ms)))
            .collect();
        for &(before_request, ms) in &pauses {
            if let Some(g) = before_request.checked_sub(1).and_then(|i| want.get_mut(usize::try_from(i).ok()?)) {
                *g = g.saturating_add(ms);
            }
        }
        prop_assert_eq!(&listed, &want);
        let read = Gaps::Timed { tool_ms: &tool_ms, timing: &timing };
        prop_assert_eq!(read.iter().collect::<Vec<_>>(), listed.clone());
        for k in 0..listed.len() + 3 {
            prop_assert_eq!(read.get(k), listed.get(k).copied());
        }
        let kept = Gaps::Listed(&listed);
        prop_assert_eq!(kept.iter().collect::<Vec<_>>(), listed.clone());
    }
}
