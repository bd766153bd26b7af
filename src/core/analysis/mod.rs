//! What-if analyses: retry break-even, cache lifetime, effort, restarts.
//!
//! Every figure comes from the engine: an analysis changes one assumption of
//! a checked scenario, replays it with [`crate::engine::simulate`], and reads
//! the result. None has an arithmetic path of its own beyond counting
//! attempts and comparing engine totals.

pub mod backtest;
pub mod confidence;
pub mod context;
pub mod corpus;
pub mod forecast;
pub mod models;
pub mod periods;
pub mod replay;
pub mod sweep;

use crate::engine::{simulate, Bounds, SimulateOptions, Simulation};
use crate::input::whole;
use crate::pricing::{ModelPrices, PER_MILLION};
use crate::scenario::change::{Param, Value};
use crate::scenario::{Cache, Content, Mode, Pause, Scenario, Timing, Variant};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Results of every what-if the scenario asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct WhatIf {
    /// Retry break-even between two models.
    pub retry: Option<RetryBreakEven>,
    /// How often the cheapest variant's run can be retried before it costs
    /// more than one run of the most expensive variant.
    pub run_break_even: Option<RunBreakEven>,
    /// 5-minute vs 1-hour cache from timing.
    pub cache_lifetime: Option<Lifetime>,
    /// Effort presets.
    pub effort: Vec<EffortRow>,
    /// One restart at each step.
    pub restart: Option<Restart>,
    /// Compaction and clearing against the plain run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<context::ContextManagement>,
}

/// Retry break-even between a baseline and a candidate model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetryBreakEven {
    /// Baseline model id.
    pub baseline_model: String,
    /// Candidate model id.
    pub candidate_model: String,
    /// Cost of one attempt on the baseline.
    pub baseline_cost_per_attempt: Decimal,
    /// Cost of one attempt on the candidate.
    pub candidate_cost_per_attempt: Decimal,
    /// Baseline attempts.
    pub baseline_attempts: u64,
    /// Accepted answers.
    pub accepted: u64,
    /// Baseline cost of all its attempts.
    pub baseline_total: Decimal,
    /// Baseline cost per accepted answer.
    pub baseline_cost_per_accepted: Decimal,
    /// Most candidate attempts that cost no more than the baseline's total
    /// (none when the candidate is not cheaper per attempt).
    pub break_even_attempts: Option<u64>,
    /// Extra candidate attempts per accepted answer that use the saving up.
    pub extra_attempts_per_success: Option<Decimal>,
    /// The same, as successes per extra attempt ("one extra attempt per four").
    pub successes_per_extra_attempt: Option<Decimal>,
    /// Cost as the candidate's attempts grow.
    pub curve: Vec<RetryPoint>,
}

/// One point of the retry curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetryPoint {
    /// Attempts for the same accepted answers.
    pub attempts: u64,
    /// Baseline cost of that many attempts.
    pub baseline_total: Decimal,
    /// Baseline cost per accepted answer at that many attempts.
    pub baseline_per_accepted: Decimal,
    /// Candidate cost of that many attempts.
    pub candidate_total: Decimal,
    /// Candidate cost per accepted answer (failed attempts included).
    pub candidate_per_accepted: Decimal,
}

/// Whole-run break-even between the cheapest and the dearest variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunBreakEven {
    /// Cheapest variant.
    pub cheapest: String,
    /// Most expensive variant.
    pub dearest: String,
    /// Runs of the cheapest that cost no more than one run of the dearest.
    pub runs: u64,
    /// Retries: runs − 1.
    pub retries: u64,
}

/// The cache tiers compared for one kind of results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TierComparison {
    /// Raw or trimmed.
    pub results: Content,
    /// Expiries under the 5-minute tier.
    pub expiries_5m: u64,
    /// Expiries under the 1-hour tier.
    pub expiries_1h: u64,
    /// Model input cost with the 5-minute tier.
    pub input_5m: Bounds,
    /// Model input cost with the 1-hour tier.
    pub input_1h: Bounds,
    /// The cheaper tier, lower bound (5m or 1h).
    pub cheaper: Cache,
}

/// What one expiry before the final request costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinalExpiry {
    /// Raw or trimmed.
    pub results: Content,
    /// Tokens written again: the final request's whole prefix.
    pub rewrite_tokens: Bounds,
    /// Those tokens at the 5-minute write price.
    pub rewrite_cost: Bounds,
    /// How much more the run costs with the expiry than without.
    pub extra_cost: Bounds,
    /// How much more the whole run costs on the 1-hour tier, without expiries.
    pub one_hour_premium: Bounds,
}

/// One point of the model-time sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LifetimePoint {
    /// Model time per step, seconds.
    pub model_seconds: u64,
    /// Tier comparison per kind of results.
    pub tiers: Vec<TierComparison>,
}

/// Cache lifetime from timing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lifetime {
    /// Model time per step used, milliseconds.
    pub model_ms_per_step: u64,
    /// The tiers at that timing.
    pub tiers: Vec<TierComparison>,
    /// One expiry before the final request.
    pub final_expiry: Vec<FinalExpiry>,
    /// The sweep over model time per step.
    pub sweep: Vec<LifetimePoint>,
    /// Per kind of results, the first swept model time at which the cheaper tier changes.
    pub flips: Vec<(Content, Option<u64>)>,
}

/// One effort preset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EffortRow {
    /// Preset name.
    pub preset: String,
    /// Output tokens per step.
    pub output_tokens_per_step: u64,
    /// Output tokens of the run.
    pub output_tokens: u64,
    /// Output cost per variant (scenario order).
    pub output_cost: Vec<Decimal>,
    /// Total cost per variant, lower bound (scenario order).
    pub total: Vec<Decimal>,
}

/// Cost of one restart before request k, per variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RestartRow {
    /// The request the worker restarts before.
    pub before_request: u64,
    /// Resuming from an intact session: the cache expired, so request k writes its whole prefix again.
    pub resume: Vec<Decimal>,
    /// Starting over: requests before k paid again (and their data fees without idempotency keys).
    pub start_over: Vec<Decimal>,
}

/// Restart and resume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Restart {
    /// Whether idempotency keys spare the data fee on a re-run.
    pub idempotency_keys: bool,
    /// One row per restart point.
    pub rows: Vec<RestartRow>,
    /// The cheapest variant.
    pub cheapest: String,
    /// Its lead over the next cheapest, lower bound.
    pub lead: Decimal,
    /// Restarts (at an average step) it absorbs before losing the lead, resuming.
    pub absorbed_resuming: Option<u64>,
    /// The same, starting over.
    pub absorbed_starting_over: Option<u64>,
}

fn lower_total(s: &Simulation, i: usize) -> Decimal {
    s.variants[i].cost.total.lower
}

/// The cost of one attempt: a single request with no tool results, replayed by the engine.
pub fn attempt_cost(model: &ModelPrices, input_tokens: u64, output_tokens: u64) -> Decimal {
    // A retried attempt is far inside exact decimals (its tokens are
    // checked against MAX_TOKENS); one that was not costs nothing here.
    let Ok(scenario) = Scenario::single_request(model, input_tokens, output_tokens) else {
        return Decimal::ZERO;
    };
    simulate(&scenario, SimulateOptions::TOTALS).variants[0]
        .cost
        .total
        .lower
}

pub use crate::limits::MAX_CURVE_POINTS;

/// `value ÷ base − 1` to 4 places (a share: `-0.35` is 35 % less); none
/// when `base` is zero or the quotient is beyond exact decimals (a base of
/// a millionth of a cent against thousands of dollars).
pub fn relative_change(value: Decimal, base: Decimal) -> Option<Decimal> {
    value
        .checked_div(base)?
        .checked_sub(Decimal::ONE)
        .map(|c| c.round_dp(4))
}

fn curve_points(from: u64, to: u64, also: &[u64]) -> Vec<u64> {
    let mut points: Vec<u64> = if to - from < MAX_CURVE_POINTS {
        (from..=to).collect()
    } else {
        (0..MAX_CURVE_POINTS)
            .map(|i| {
                from + (u128::from(i) * u128::from(to - from) / u128::from(MAX_CURVE_POINTS - 1))
                    as u64
            })
            .collect()
    };
    points.extend_from_slice(also);
    points
}

fn retry(case: &crate::scenario::RetryCase) -> RetryBreakEven {
    let base = attempt_cost(
        &case.baseline,
        case.input_tokens_per_attempt,
        case.output_tokens_per_attempt,
    );
    let cand = attempt_cost(
        &case.candidate,
        case.input_tokens_per_attempt,
        case.output_tokens_per_attempt,
    );
    let accepted = Decimal::from(case.accepted);
    let baseline_total = base * Decimal::from(case.baseline_attempts);
    let break_even = (cand > Decimal::ZERO && cand <= base)
        .then(|| baseline_total / cand)
        .and_then(whole);
    let extra = break_even.map(|b| (Decimal::from(b) - accepted) / accepted);
    let last = break_even
        .unwrap_or(case.baseline_attempts)
        .max(case.baseline_attempts)
        + 5;
    let curve = curve_points(case.accepted, last, &[case.baseline_attempts])
        .into_iter()
        .chain(break_even.into_iter().flat_map(|b| [b, b + 1]))
        .collect::<std::collections::BTreeSet<u64>>()
        .into_iter()
        .filter(|n| (case.accepted..=last).contains(n))
        .map(|n| {
            let a = Decimal::from(n);
            RetryPoint {
                attempts: n,
                baseline_total: base * a,
                baseline_per_accepted: base * a / accepted,
                candidate_total: cand * a,
                candidate_per_accepted: cand * a / accepted,
            }
        })
        .collect();
    RetryBreakEven {
        baseline_model: case.baseline.model.clone(),
        candidate_model: case.candidate.model.clone(),
        baseline_cost_per_attempt: base,
        candidate_cost_per_attempt: cand,
        baseline_attempts: case.baseline_attempts,
        accepted: case.accepted,
        baseline_total,
        baseline_cost_per_accepted: baseline_total / accepted,
        break_even_attempts: break_even,
        extra_attempts_per_success: extra,
        successes_per_extra_attempt: extra.filter(|e| !e.is_zero()).map(|e| Decimal::ONE / e),
        curve,
    }
}

fn run_break_even(sim: &Simulation) -> Option<RunBreakEven> {
    if sim.variants.len() < 2 {
        return None;
    }
    let (lo, hi) = sim.cheapest_and_dearest();
    let cheap = lower_total(sim, lo);
    if cheap <= Decimal::ZERO {
        return None;
    }
    let runs = whole(lower_total(sim, hi) / cheap).unwrap_or(u64::MAX);
    Some(RunBreakEven {
        cheapest: sim.variants[lo].variant.variant.name.clone(),
        dearest: sim.variants[hi].variant.variant.name.clone(),
        runs,
        retries: runs.saturating_sub(1),
    })
}

/// The scenario's variants replaced by raw/trimmed × the given cache tiers, sync.
fn with_tiers(s: &Scenario, tiers: &[Cache]) -> Option<Scenario> {
    let variants = [Content::Raw, Content::Trimmed]
        .into_iter()
        .flat_map(|results| {
            tiers.iter().map(move |&cache| Variant {
                name: Variant::default_name(results, cache, Mode::Sync),
                results,
                cache,
                mode: Mode::Sync,
                service: None,
                region: None,
            })
        });
    s.with_variants(variants).ok()
}

fn tier_comparison(sim: &Simulation) -> Vec<TierComparison> {
    [Content::Raw, Content::Trimmed]
        .into_iter()
        .map(|results| {
            let find = |cache| {
                sim.variants
                    .iter()
                    .find(|v| {
                        v.variant.variant.results == results && v.variant.variant.cache == cache
                    })
                    .expect("built with both tiers")
            };
            let (five, hour) = (find(Cache::FiveMinutes), find(Cache::OneHour));
            TierComparison {
                results,
                expiries_5m: five.expiries,
                expiries_1h: hour.expiries,
                input_5m: five.cost.input,
                input_1h: hour.cost.input,
                cheaper: if hour.cost.input.lower < five.cost.input.lower {
                    Cache::OneHour
                } else {
                    Cache::FiveMinutes
                },
            }
        })
        .collect()
}

fn timed(s: &Scenario, model_ms: u64, pauses: Vec<Pause>) -> Option<Scenario> {
    s.with_timing(Timing {
        model_ms_per_step: model_ms,
        pauses,
    })
    .ok()
}

fn lifetime(s: &Scenario, case: &crate::scenario::LifetimeCase) -> Option<Lifetime> {
    let tiers = with_tiers(s, &[Cache::FiveMinutes, Cache::OneHour])?;
    let opts = SimulateOptions::TOTALS;
    let base = simulate(&timed(&tiers, case.model_ms_per_step, Vec::new())?, opts);
    // One expiry before the final request: a pause just past the 5-minute lifetime.
    let last = base.context[0].requests;
    let pause = Pause {
        before_request: last,
        ms: Cache::FiveMinutes.lifetime_ms().unwrap_or(0) + 1,
    };
    // Only the 5-minute variants' input is read from this replay.
    let five_only = with_tiers(s, &[Cache::FiveMinutes])?;
    let expired = simulate(
        &timed(&five_only, case.model_ms_per_step, vec![pause])?,
        opts,
    );
    let final_expiry = [Content::Raw, Content::Trimmed]
        .into_iter()
        .map(|results| {
            let idx = |cache| {
                base.variants
                    .iter()
                    .position(|v| {
                        v.variant.variant.results == results && v.variant.variant.cache == cache
                    })
                    .expect("built with both tiers")
            };
            let (five, hour) = (idx(Cache::FiveMinutes), idx(Cache::OneHour));
            let expired_five = expired
                .variants
                .iter()
                .find(|v| v.variant.variant.results == results)
                .expect("built with the 5-minute tier");
            let rewrite_tokens = base.profile(results).final_request_input;
            let write = base.variants[five]
                .variant
                .rates
                .cache_write
                .unwrap_or_default();
            FinalExpiry {
                results,
                rewrite_tokens,
                rewrite_cost: rewrite_tokens.map(|t| t * write / PER_MILLION),
                extra_cost: expired_five.cost.input - base.variants[five].cost.input,
                one_hour_premium: base.variants[hour].cost.input - base.variants[five].cost.input,
            }
        })
        .collect();
    let (from, to, step) = case.sweep_seconds;
    let seconds: Vec<u64> = (from..=to).step_by(step as usize).collect();
    // Points whose requests expire alike compare the tiers alike: each is
    // replayed once, and not at all where the scenario's own model time
    // (the replay above) expires them so.
    let model_ms: Vec<u64> = seconds.iter().map(|s| s.saturating_mul(1000)).collect();
    // The patterns of the sweep's model times, then of the scenario's own.
    let mut expiring = expiring(&tiers, &[&model_ms[..], &[case.model_ms_per_step]].concat());
    let own = expiring.pop();
    let mut distinct: Vec<(&Vec<usize>, u64)> = Vec::new();
    for (e, ms) in expiring.iter().zip(&model_ms) {
        if !distinct.iter().any(|(d, _)| *d == e) {
            distinct.push((e, *ms));
        }
    }
    let compared: Vec<Vec<TierComparison>> = crate::par::map(distinct.clone(), |(e, ms)| {
        if own.as_ref() == Some(e) {
            return Some(tier_comparison(&base));
        }
        Some(tier_comparison(&simulate(
            &timed(&tiers, ms, Vec::new())?,
            opts,
        )))
    })
    .into_iter()
    .collect::<Option<_>>()?;
    let sweep: Vec<LifetimePoint> = seconds
        .iter()
        .zip(&expiring)
        .map(|(secs, e)| {
            let i = distinct.iter().position(|(d, _)| *d == e)?;
            Some(LifetimePoint {
                model_seconds: *secs,
                tiers: compared[i].clone(),
            })
        })
        .collect::<Option<_>>()?;
    let flips = [0usize, 1]
        .into_iter()
        .map(|i| {
            let results = if i == 0 {
                Content::Raw
            } else {
                Content::Trimmed
            };
            let first = sweep.first().map(|p| p.tiers[i].cheaper);
            let flip = sweep
                .iter()
                .find(|p| Some(p.tiers[i].cheaper) != first)
                .map(|p| p.model_seconds);
            (results, flip)
        })
        .collect();
    Some(Lifetime {
        model_ms_per_step: case.model_ms_per_step,
        tiers: tier_comparison(&base),
        final_expiry,
        sweep,
        flips,
    })
}

/// For each model time per step in `model_ms` (milliseconds, no pause),
/// how many requests of `s` come more than each cache lifetime of its
/// variants after the one before (the gaps the engine replays, recorded or
/// timed). A longer model time adds the same to every timed gap, so the
/// requests that expire only grow with it: two model times with as many
/// expiring requests on every lifetime expire the same requests, and their
/// replays differ in nothing but the cache's storage (which [`TierComparison`] does not compare).
fn expiring(s: &Scenario, model_ms: &[u64]) -> Vec<Vec<usize>> {
    let mut lifetimes: Vec<u64> = s
        .variants()
        .iter()
        .flat_map(|pv| {
            std::iter::once(&pv.rates)
                .chain(pv.by_model.iter().map(|m| &m.rates))
                .filter_map(|r| r.lifetime_ms(pv.variant.cache))
        })
        .collect();
    lifetimes.sort_unstable();
    lifetimes.dedup();
    let sizes = &s.trace_facts().sizes;
    // The gaps before the requests after the first (the first has none):
    // as recorded, else each step's gap at the model time, without pauses
    // (`Timing::step_gap`, as the engine's gaps). A gap grows with the value
    // it comes from (the recorded gap, or the step's tool time), so it is
    // past a lifetime exactly when that value is at least the first value
    // whose gap is: one such cut per model time and lifetime, and one pass
    // over the steps counts the values at or above every cut (counting
    // each model time's gaps against each lifetime was most of this
    // what-if's time).
    let values: &[u64] = match &sizes.gaps {
        Some(recorded) => recorded.get(1..).unwrap_or_default(),
        None => sizes.tool_ms(s.trace()),
    };
    let cuts: Vec<Vec<Option<u64>>> = model_ms
        .iter()
        .map(|&ms| {
            let timing = Timing {
                model_ms_per_step: ms,
                pauses: Vec::new(),
            };
            let gap = |v: u64| match sizes.gaps {
                Some(_) => v,
                None => timing.step_gap(v),
            };
            lifetimes
                .iter()
                .map(|&life| first_past(|v| gap(v) > life))
                .collect()
        })
        .collect();
    let all: Vec<u64> = cuts.iter().flatten().flatten().copied().collect();
    let counted = at_least(values, &all);
    cuts.iter()
        .map(|row| row.iter().map(|cut| cut.map_or(0, &counted)).collect())
        .collect()
}

/// The least value `v` with `past(v)`, where `past` is false and then true
/// as `v` grows; `None` when it is never true.
fn first_past(past: impl Fn(u64) -> bool) -> Option<u64> {
    // (Past at the last value: the search of the values below it finds
    // the first, or ends at the last.)
    past(u64::MAX).then(|| crate::search::partition_point(0, u64::MAX, past))
}

/// How many of `values` are at least a cut, for any of `cuts`: one pass
/// over the values, each placed among the cuts by a search.
fn at_least(values: &[u64], cuts: &[u64]) -> impl Fn(u64) -> usize {
    let mut sorted = cuts.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    // The values with exactly i cuts at or below them, for each i.
    let mut placed = vec![0usize; sorted.len() + 1];
    for v in values {
        placed[sorted.partition_point(|c| c <= v)] += 1;
    }
    // Those with more than i cuts at or below them: at or above cut i.
    let mut above = vec![0usize; sorted.len() + 1];
    for i in (0..sorted.len()).rev() {
        above[i] = above[i + 1] + placed[i + 1];
    }
    move |cut| sorted.binary_search(&cut).map_or(0, |i| above[i])
}

fn effort(s: &Scenario, presets: &[(String, u64)]) -> Vec<EffortRow> {
    presets
        .iter()
        // Every preset was in the scenario's replay-size check, so none is
        // refused here.
        .filter_map(|(name, tokens)| {
            let changed = s
                .with(
                    Param::OutputTokensPerStep,
                    Value::Number(Decimal::from(*tokens)),
                )
                .ok()?;
            let sim = simulate(&changed, SimulateOptions::TOTALS);
            Some(EffortRow {
                preset: name.clone(),
                output_tokens_per_step: *tokens,
                output_tokens: sim.context[0].output_tokens,
                output_cost: sim.variants.iter().map(|v| v.cost.output.lower).collect(),
                total: sim.variants.iter().map(|v| v.cost.total.lower).collect(),
            })
        })
        .collect()
}

/// The restart table lists every step up to this many; a longer run lists
/// [`crate::engine::OUTLINE_POINTS`] evenly spaced steps (the averages still
/// cover every step).
pub const MAX_RESTART_ROWS: u64 = crate::engine::ALL_ROWS_UP_TO as u64;

/// The data fee paid before each request k (index k, 0 ..= `requests`):
/// charged, non-replayed rows up to the last result of step k − 1 (a result
/// of its own in a hand-written trace; the results of one recorded request
/// in an imported one, which has fewer steps than results: by result,
/// request k overran them).
fn fees_before(s: &Scenario, requests: u64) -> Vec<Decimal> {
    let mut fee_before = vec![Decimal::ZERO; requests as usize + 1];
    let step_of = &s.trace_facts().sizes.step_of;
    let mut fee = Decimal::ZERO;
    let mut seen = 0usize;
    for c in s.trace() {
        if !c.replayed {
            fee += c.charged_usd;
        }
        if c.enters_context() {
            let before = step_of
                .get(seen)
                .and_then(|step| fee_before.get_mut(step + 2));
            if let Some(slot) = before {
                *slot = fee;
            }
            seen += 1;
        }
    }
    fee_before
}

fn restart(s: &Scenario, sim: &Simulation, keys: bool) -> Option<Restart> {
    let requests = sim.context[0].requests;
    if requests < 2 || sim.variants.len() < 2 {
        return None;
    }
    let steps = requests - 1;
    let points: Vec<u64> = if steps <= MAX_RESTART_ROWS {
        (2..=requests).collect()
    } else {
        let shown = crate::engine::OUTLINE_POINTS as u64;
        (0..shown)
            .map(|i| 2 + i * (requests - 2) / (shown - 1))
            .collect()
    };
    // With idempotency keys, starting over pays no data fee again; without,
    // the fees before each request are added up beside the replays.
    let (fee_before, costs) = crate::par::join(
        || (!keys).then(|| fees_before(s, requests)),
        || crate::engine::restarts(s, &points),
    );
    let fee_at = |k: u64| fee_before.as_ref().map_or(Decimal::ZERO, |f| f[k as usize]);
    let rows: Vec<RestartRow> = costs
        .points
        .iter()
        .map(|p| RestartRow {
            before_request: p.before_request,
            resume: p.resume.iter().map(|c| c.lower).collect(),
            start_over: p
                .start_over
                .iter()
                .map(|c| c.lower + fee_at(p.before_request))
                .collect(),
        })
        .collect();
    let mut order: Vec<usize> = (0..sim.variants.len()).collect();
    order.sort_by_key(|&i| lower_total(sim, i));
    let (first, second) = (order[0], order[1]);
    let lead = lower_total(sim, second) - lower_total(sim, first);
    // Averages over every step (2 … N+1), not only the rows shown.
    let all_fees: Decimal = fee_before
        .as_ref()
        .map_or(Decimal::ZERO, |f| f[2..].iter().sum());
    let per_step = Decimal::from(steps);
    let mean_start_over = (costs.start_over_sum[first].lower + all_fees) / per_step;
    let mean_resume = costs.resume_sum[first].lower / per_step;
    let absorbed = |m: Decimal| (m > Decimal::ZERO).then(|| whole(lead / m).unwrap_or(u64::MAX));
    Some(Restart {
        idempotency_keys: keys,
        absorbed_resuming: absorbed(mean_resume),
        absorbed_starting_over: absorbed(mean_start_over),
        rows,
        cheapest: sim.variants[first].variant.variant.name.clone(),
        lead,
    })
}

/// Runs every what-if the scenario asks for, from the engine's results.
pub fn what_if(s: &Scenario, sim: &Simulation) -> WhatIf {
    let w = s.what_if();
    // The sections are independent: they run side by side, each on the
    // trace's facts computed once.
    let ((cache_lifetime, effort), (restart, context)) = crate::par::join(
        || {
            crate::par::join(
                || w.cache_lifetime.as_ref().and_then(|c| lifetime(s, c)),
                || effort(s, &w.effort),
            )
        },
        || {
            crate::par::join(
                || w.restart.and_then(|keys| restart(s, sim, keys)),
                || {
                    w.context
                        .as_ref()
                        .map(|c| context::context_management(s, c))
                },
            )
        },
    );
    WhatIf {
        retry: w.retry.as_ref().map(retry),
        run_break_even: run_break_even(sim),
        cache_lifetime,
        effort,
        restart,
        context,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restart_of_an_imported_trace_pays_the_fees_of_the_requests_before_it() {
        // Six results in three recorded requests (two each), a data fee of
        // 0.001 a result: before request k (k = 2, 3, 4) the fees of the
        // 2(k − 1) results of the requests before it.
        let s = crate::engine::tests::grouped(
            crate::engine::tests::scenario(&[(4000, 2000); 6], vec![]),
            2,
        );
        let sim = simulate(&s, SimulateOptions::TOTALS);
        assert_eq!(
            sim.context[0].requests, 4,
            "three steps and the first request"
        );
        let paid = restart(&s, &sim, false).expect("two variants, three steps");
        let keyed = restart(&s, &sim, true).expect("the same with keys");
        let fees: Vec<Vec<Decimal>> = paid
            .rows
            .iter()
            .zip(&keyed.rows)
            .map(|(p, k)| {
                p.start_over
                    .iter()
                    .zip(&k.start_over)
                    .map(|(a, b)| a - b)
                    .collect()
            })
            .collect();
        let fee = |results: u32| Decimal::new(i64::from(results), 3);
        assert_eq!(
            paid.rows
                .iter()
                .map(|r| r.before_request)
                .collect::<Vec<_>>(),
            [2, 3, 4]
        );
        assert_eq!(fees, [[fee(2), fee(2)], [fee(4), fee(4)], [fee(6), fee(6)]]);
    }

    #[test]
    fn values_at_or_above_each_cut_are_counted_in_one_pass() {
        let values = [5, 1, 9, 5, 0, 12];
        let cuts = [5, 0, 13, 9, 6];
        let counted = at_least(&values, &cuts);
        // 5, 9, 5, 12 are at least 5; all six at least 0; none 13; 9 and
        // 12 at least 9 and at least 6.
        assert_eq!(cuts.map(&counted), [4, 6, 0, 2, 2]);
        // A value that is not a cut counts nothing.
        assert_eq!(counted(7), 0);
        assert_eq!(first_past(|v| v > 299_999), Some(300_000));
        assert_eq!(first_past(|v| v.saturating_add(400_000) > 300_000), Some(0));
        assert_eq!(first_past(|v| v > u64::MAX - 1), Some(u64::MAX));
        assert_eq!(first_past(|_| false), None);
    }

    #[test]
    fn a_lifetime_sweep_replays_each_expiry_pattern_once_and_matches_every_point() {
        // Six results after tool times of 1, 40, 200, 250, 290 and 3,000 s.
        // With a model time of m seconds per step, request k's gap is its
        // tool time + m: past the 5-minute lifetime (300 s) for 1 request
        // at m = 0 (the 3,000 s), 2 at 30 (290 + 30), 3 at 60 and 90, 4
        // from 120 to 240 (200 + 120), 5 at 270 (40 + 270), 6 from 300 (1 +
        // 300); past the hour for none up to m = 600 (3,000 + 600 = 3,600
        // is not past it). 21 points, 6 patterns.
        let mut s = crate::engine::tests::scenario(&[(4000, 2000); 6], vec![]);
        for (c, secs) in s.trace_mut().iter_mut().zip([1, 40, 200, 250, 290, 3000]) {
            c.latency_ms = secs * 1000;
        }
        let tiers = with_tiers(&s, &[Cache::FiveMinutes, Cache::OneHour]).unwrap();
        let model_ms: Vec<u64> = (0..=600_000).step_by(30_000).collect();
        let counts: Vec<usize> = expiring(&tiers, &model_ms)
            .iter()
            .map(|e| {
                assert_eq!(e.len(), 2, "two lifetimes: 300 s and 3,600 s");
                assert_eq!(e[1], 0);
                e[0]
            })
            .collect();
        assert_eq!(
            counts,
            [1, 2, 3, 3, 4, 4, 4, 4, 4, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6]
        );
        // Each point as the sweep gives it is the point replayed on its own.
        let case = crate::scenario::LifetimeCase {
            model_ms_per_step: 20_000,
            sweep_seconds: (0, 600, 30),
        };
        let l = lifetime(&s, &case).unwrap();
        assert_eq!(l.sweep.len(), 21);
        for p in &l.sweep {
            let own = simulate(
                &timed(&tiers, p.model_seconds * 1000, Vec::new()).unwrap(),
                SimulateOptions::TOTALS,
            );
            assert_eq!(p.tiers, tier_comparison(&own), "{} s", p.model_seconds);
        }
        // The answer changes with the pattern: more expiries, dearer 5 minutes.
        assert_eq!(l.sweep[0].tiers[0].expiries_5m, 1);
        assert_eq!(l.sweep[20].tiers[0].expiries_5m, 6);
        // A trace that records each request's gap (here the same tool
        // times as gaps) expires by its record, whatever the model time.
        let mut recorded = crate::engine::tests::grouped(s.clone(), 1);
        for (c, secs) in recorded
            .trace_mut()
            .iter_mut()
            .zip([1, 40, 200, 250, 290, 3000])
        {
            if let Some(i) = c.imported.as_mut() {
                i.gap_ms = Some(secs * 1000);
            }
        }
        let tiers = with_tiers(&recorded, &[Cache::FiveMinutes, Cache::OneHour]).unwrap();
        assert_eq!(expiring(&tiers, &model_ms), vec![vec![1, 0]; 21]);
    }
}
