//! The engine: replays a checked scenario through every variant.
//!
//! Pure arithmetic, no I/O and no clock. Request k of a run with N tool
//! results carries `P + (k−1)·o + Σ_{j<k} T_j` input tokens (seed 003). The
//! totals come from running integer sums over the result sizes, so a trace is
//! replayed in one linear pass; token counts become exact decimals only at
//! the end (bytes ÷ b, never rounded per result). Money is `Decimal` from
//! price to total.

// Sizes, token counts and money are converted only where the conversion is
// checked (`try_from`, `to_u64`) or proven in range; CI denies silent casts.
#![deny(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss
)]

pub mod bounds;
pub mod context;
pub(crate) mod replay;
mod restart;
mod result;
mod sizes;
pub mod stats;

use crate::pricing::{Currency, PER_MILLION};
use crate::scenario::{
    Assumptions, Cache, Content, PriceDate, PricedVariant, Scenario, Timing, TraceCall,
};
pub use bounds::Bounds;
use replay::{Compactions, Gaps, Run, Scale, StepOutputs};
pub use restart::{restarts, RestartCost, Restarts};
pub use result::*;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
pub(crate) use sizes::Sizes;
pub use stats::{CapabilityStats, Ledger};

/// Runs of at most this many tool results keep every per-row result by default.
pub const ALL_ROWS_UP_TO: usize = 10_000;

/// Requests an outline of a longer run keeps (charts draw at most this many).
pub const OUTLINE_POINTS: usize = 2_000;

/// Which per-row results (per request, per tool result) a simulation keeps
/// besides the totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rows {
    /// None: totals only (what-if replays, sweeps, diffs).
    None,
    /// Every request and result (memory linear in the trace, times the variants).
    All,
    /// At most about this many requests, chosen so that charts keep their
    /// shape: the first and last request of each stretch of the run and the
    /// requests after its largest raw and trimmed results (spikes are never
    /// dropped), plus each variant's costliest result.
    Outline(usize),
}

/// How much detail to keep besides the totals.
#[derive(Debug, Clone, Copy)]
pub struct SimulateOptions {
    /// The per-row results to keep.
    pub rows: Rows,
}

impl SimulateOptions {
    /// Totals only.
    pub const TOTALS: SimulateOptions = SimulateOptions { rows: Rows::None };
    /// Every row.
    pub const ALL_ROWS: SimulateOptions = SimulateOptions { rows: Rows::All };
}

impl Default for SimulateOptions {
    fn default() -> Self {
        SimulateOptions::ALL_ROWS
    }
}

/// The requests a replay keeps per-row results for (index 0 is request 1).
#[derive(Debug, Clone)]
pub(crate) enum RowSet {
    /// None.
    Nothing,
    /// Every request.
    Everything,
    /// These requests.
    Selected(Vec<bool>),
}

impl RowSet {
    /// True when request index `k` (0-based) is kept.
    pub(crate) fn has(&self, k: usize) -> bool {
        match self {
            RowSet::Nothing => false,
            RowSet::Everything => true,
            RowSet::Selected(keep) => keep.get(k).copied().unwrap_or(false),
        }
    }

    fn any(&self) -> bool {
        !matches!(self, RowSet::Nothing)
    }
}

/// An outline of a run of `raw.len()` results in about `points` requests:
/// per stretch of the run its first and last request and the requests right
/// after its largest raw and trimmed result.
fn outline(raw: &[u64], trimmed: &[u64], points: usize) -> Vec<bool> {
    let n = raw.len() + 1;
    let mut keep = vec![false; n];
    let width = n.div_ceil((points / 4).max(1)).max(1);
    for start in (0..n).step_by(width) {
        let end = (start + width).min(n);
        keep[start] = true;
        keep[end - 1] = true;
        for bytes in [raw, trimmed] {
            if let Some(k) = (start.max(1)..end).max_by_key(|&k| bytes[k - 1]) {
                keep[k] = true;
            }
        }
    }
    keep
}

/// Replays `scenario` through every variant.
pub fn simulate(scenario: &Scenario, opts: SimulateOptions) -> Simulation {
    let a = &scenario.assumptions();
    // The trace's steps, ledger and statistics are computed once for every
    // copy of the scenario that shares its rows; the two context profiles
    // are replayed beside the variants.
    let facts = scenario.trace_facts();
    let sizes = &facts.sizes;
    let ledger = facts.ledger.clone();
    let (raw, trimmed) = (&sizes.raw, &sizes.trimmed);
    let rows = row_set(opts.rows, raw, trimmed, scenario.variants());
    let scale = Scale::new(a);
    let window = scenario.prices().context_window_tokens;
    let gaps = sizes.gaps_ms(scenario.trace(), scenario.timing().as_ref());
    let run_of = |results, model: &str| run_on(sizes.view(results, model), scale, sizes, gaps, a);
    let model = &scenario.prices().model;
    let data_fee = Bounds::exact(ledger.total_usd);
    let tool_fees = fee_lines(scenario);
    let tool_fee = Bounds::exact(tool_fees.iter().map(|f| f.charge).sum());
    let runs = Decimal::from(a.runs_a_day());
    let (context, variants) = crate::par::join(
        || {
            crate::par::map(
                [
                    (Content::Raw, raw, sizes.bytes[0]),
                    (Content::Trimmed, trimmed, sizes.bytes[1]),
                ],
                |(c, all, b)| {
                    profile(
                        (c, all, b),
                        &run_of(c, model),
                        &|k| sizes.call(scenario.trace(), k),
                        a,
                        &rows,
                        window,
                    )
                },
            )
        },
        || {
            crate::par::map(scenario.variants(), |pv| {
                // A variant on a model of another tokenizer replays at its own band.
                match scenario.assumptions_of(pv) {
                    std::borrow::Cow::Borrowed(_) => {
                        let run = run_of(pv.variant.results, &pv.model);
                        variant_result(pv, run, sizes, &rows, (data_fee, tool_fee), runs)
                    }
                    std::borrow::Cow::Owned(own) => {
                        let facts = scenario.trace_facts_at(&own);
                        let view = facts.sizes.view(pv.variant.results, &pv.model);
                        let scale = Scale::new(&own);
                        let run = run_on(view, scale, &facts.sizes, gaps, &own);
                        let last = scale.tokens_of(run.totals().1);
                        let mut r = variant_result(
                            pv,
                            run,
                            &facts.sizes,
                            &rows,
                            (data_fee, tool_fee),
                            runs,
                        );
                        r.tokens = scenario.band_of(pv);
                        r.final_request_input = Some(last);
                        r
                    }
                }
            })
        },
    );
    let counts = crate::pricing::tokenizer::counts_o200k(model);
    let attribution = attribute(scenario, sizes, counts, &rows);
    let trace = kept_trace(scenario, &rows, sizes);

    Simulation {
        tokencast_version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: scenario.name().clone(),
        question: scenario.question().clone(),
        fingerprint: scenario.fingerprint(),
        inputs: scenario.inputs().clone(),
        prices: scenario.prices().clone(),
        other_prices: other_prices(scenario),
        assumptions: (*a).clone(),
        timing: scenario.timing().clone(),
        tool_results: sizes.results() as u64,
        counted_results: sizes.counted_results,
        rows: match rows {
            RowSet::Nothing => RowsKept::None,
            RowSet::Everything => RowsKept::All,
            RowSet::Selected(_) => RowsKept::Outline,
        },
        trim_saving_share: trim_saving_share(&context),
        context,
        variants,
        attribution,
        capabilities: facts.capabilities.clone(),
        ledger,
        tool_fees,
        currency: scenario.currency().clone(),
        price_date: scenario.price_date().clone(),
        trace,
    }
}

/// The plain replay of one view of the sizes (no fitted shares).
fn run_on<'s>(
    view: sizes::View<'s>,
    scale: Scale,
    sizes: &'s Sizes,
    gaps: Option<Gaps<'s>>,
    a: &Assumptions,
) -> Run<'s> {
    Run {
        gaps_ms: gaps,
        outputs: sizes.outputs.as_ref(),
        compactions: view.compactions,
        exact: view.exact,
        ..Run::new(scale, view.bytes, a.final_output_tokens)
    }
}

/// One variant replayed and priced: on its own model, or each request on
/// the model that served it.
fn variant_result(
    pv: &crate::scenario::PricedVariant,
    base: Run,
    sizes: &Sizes,
    rows: &RowSet,
    (data_fee, tool_fee): (Bounds, Bounds),
    runs: Decimal,
) -> VariantResult {
    let run = Run {
        hit_share: Run::share(pv.upper_hit_share()),
        turn_break: Run::share(pv.turn_break_share),
        warm_share: Run::share(pv.warm_prefix_share),
        survival: Run::share(pv.survived_expiry_share),
        ..base
    };
    let mut request_costs = Vec::new();
    let keep = rows.any().then_some((rows, &mut request_costs));
    let priced = match sizes.model_index(pv) {
        Some(index) => {
            let rates: Vec<&crate::pricing::Rates> = std::iter::once(&pv.rates)
                .chain(pv.by_model.iter().map(|m| &m.rates))
                .collect();
            run.price_by_model(pv.variant.cache, &rates, &index, keep)
        }
        None => run.price(pv.variant.cache, &pv.rates, keep),
    };
    let cost = breakdown(&priced, data_fee, tool_fee);
    VariantResult {
        variant: pv.clone(),
        cost,
        per_day: cost.times(runs),
        expiries: priced.counts.expiries,
        uncacheable_requests: priced.counts.uncacheable,
        long_context_requests: priced.counts.long_context,
        request_costs,
        tokens: None,
        final_request_input: None,
    }
}

/// The trace rows the result keeps: none, all, or the results of the kept
/// requests.
fn kept_trace(scenario: &Scenario, rows: &RowSet, sizes: &Sizes) -> Vec<TraceCall> {
    match rows {
        RowSet::Nothing => Vec::new(),
        RowSet::Everything => scenario.trace().clone(),
        RowSet::Selected(_) => sizes
            .result_rows()
            .filter(|(j, _)| rows.has(sizes.step_of.of(*j) + 1))
            .map(|(_, i)| scenario.trace()[i].clone())
            .collect(),
    }
}

/// The prices of every model a variant runs on besides the scenario's, once each.
fn other_prices(scenario: &Scenario) -> Vec<crate::pricing::ModelPrices> {
    scenario.variants().iter().fold(Vec::new(), |mut out, v| {
        let models = std::iter::once((&v.model, &v.prices))
            .chain(v.by_model.iter().map(|m| (&m.model, &m.prices)));
        for (model, prices) in models {
            if *model != scenario.prices().model
                && !out
                    .iter()
                    .any(|p: &crate::pricing::ModelPrices| &p.model == model)
            {
                out.push(prices.clone());
            }
        }
        out
    })
}

/// The share of the raw result bytes the trimmed profile does without.
fn trim_saving_share(context: &[ContextProfile]) -> Decimal {
    let bytes = |c: Content| {
        context
            .iter()
            .find(|p| p.results == c)
            .map_or(0, |p| p.result_bytes)
    };
    let (raw, trimmed) = (bytes(Content::Raw), bytes(Content::Trimmed));
    if raw == 0 {
        return Decimal::ZERO;
    }
    Decimal::ONE - Decimal::from(trimmed) / Decimal::from(raw)
}

/// The requests to keep rows for. An outline also keeps each variant's
/// costliest result (found in `f64`, then reported exactly), so the
/// "costliest result" line holds for the whole run.
fn row_set(rows: Rows, raw: &[u64], trimmed: &[u64], variants: &[PricedVariant]) -> RowSet {
    use rust_decimal::prelude::ToPrimitive;
    let points = match rows {
        Rows::None => return RowSet::Nothing,
        Rows::All => return RowSet::Everything,
        Rows::Outline(points) if raw.len() < points => return RowSet::Everything,
        Rows::Outline(points) => points,
    };
    let n = raw.len();
    // The costliest result of each variant, the variants side by side.
    let costliest = |pv: &PricedVariant| {
        let bytes = match pv.variant.results {
            Content::Raw => raw,
            Content::Trimmed => trimmed,
        };
        let rate = |d: Option<Decimal>| d.and_then(|d| d.to_f64()).unwrap_or(0.0);
        let (input, write, read) = (
            rate(Some(pv.rates.input)),
            rate(pv.rates.cache_write),
            rate(pv.rates.cache_read),
        );
        let cached = pv.rates.caches(pv.variant.cache);
        // Only ranks the results by rough cost, so f64 is precise enough.
        #[allow(clippy::cast_precision_loss)]
        let cost = |j: usize| {
            let resends = (n - j) as f64;
            let per_token = if cached {
                write + (resends - 1.0) * read
            } else {
                resends * input
            };
            bytes[j] as f64 * per_token
        };
        // Each result's cost once (the last of equal ones, as `max_by`).
        (0..n)
            .map(|j| (cost(j), j))
            .max_by(|x, y| x.0.total_cmp(&y.0))
            .map(|(_, j)| j)
    };
    let (mut keep, costliest) = crate::par::join(
        || outline(raw, trimmed, points),
        || crate::par::map(variants, costliest),
    );
    for j in costliest.into_iter().flatten() {
        keep[j + 1] = true;
    }
    RowSet::Selected(keep)
}

/// Tokens of `units` of tool result (bytes, or where the content is weighed
/// hundredths of a weighted byte: [`Assumptions::units`]): units ÷ b, and
/// that × u.
pub fn result_tokens(units: u64, a: &Assumptions) -> Bounds {
    let lower = Decimal::from(units) / a.unit_bytes_per_token();
    Bounds {
        lower,
        upper: lower * a.tokenizer_uplift,
    }
}

/// The context of one content's replay; `all` is every step's units
/// (`run.bytes` leaves out results the run takes as counted tokens) and
/// `bytes` their bytes.
fn profile(
    (results, all, bytes_in): (Content, &[u64], u64),
    run: &Run,
    call: &(dyn Fn(usize) -> Option<u32> + Sync),
    a: &Assumptions,
    rows: &RowSet,
    window: Option<u64>,
) -> ContextProfile {
    let (bytes, scale) = (run.bytes, run.scale);
    let n = bytes.len() as u64;
    let window_num = window.map(|w| scale.tokens(w)[1]);
    let summary = |(sum, last): ([i128; 2], [i128; 2]), per_request, first_over_window| {
        let input_tokens = scale.tokens_of(sum);
        let final_request_input = scale.tokens_of(last);
        ContextProfile {
            results,
            result_bytes: bytes_in,
            result_tokens: result_tokens(all.iter().fold(0u64, |t, b| t.saturating_add(*b)), a),
            requests: n + 1,
            final_request_input,
            input_tokens,
            cache_write_tokens: final_request_input,
            cache_read_tokens: input_tokens - final_request_input,
            output_tokens: u64::try_from(run.total_output()).unwrap_or(u64::MAX),
            per_request,
            first_over_window,
        }
    };
    let kept = |k: u64, num: [i128; 2], previous: Option<[i128; 2]>| {
        let input = scale.tokens_of(num);
        let before = previous.map_or(Bounds::default(), |p| scale.tokens_of(p));
        RequestTokens {
            request: k + 1,
            after_call: if k == 0 { None } else { call(ix(k - 1)) },
            input,
            cache_write: input - before,
            cache_read: before,
            output: run.billed(k),
        }
    };
    // The sums a closed form and not every request kept (the what-ifs'
    // replays keep none, an outline a few thousand): the requests are
    // walked only up to the first past the window, and only the kept ones
    // are counted.
    if run.is_uniform() && !matches!(rows, RowSet::Everything) {
        let first_over_window = window_num.and_then(|w| run.first_past(w));
        let mut per_request = Vec::new();
        if rows.any() {
            let mut cum: u128 = 0;
            for k in 0..=n {
                let before = cum;
                if k > 0 {
                    cum += u128::from(bytes[ix(k - 1)]);
                }
                if rows.has(ix(k)) {
                    let previous = k.checked_sub(1).map(|j| run.numerators(j, before));
                    per_request.push(kept(k, run.numerators(k, cum), previous));
                }
            }
        }
        return summary(run.totals(), per_request, first_over_window);
    }
    let mut first_over_window = None;
    let mut cum: u128 = 0;
    let mut sum = [0i128; 2];
    let mut last = [0i128; 2];
    let mut per_request = Vec::with_capacity(match rows {
        RowSet::Everything => bytes.len() + 1,
        _ => 0,
    });
    let mut previous: Option<[i128; 2]> = None;
    for k in 0..=n {
        if k > 0 {
            cum += u128::from(bytes[ix(k - 1)]);
        }
        let num = run.numerators(k, cum);
        sum = [sum[0] + num[0], sum[1] + num[1]];
        last = num;
        if first_over_window.is_none() && window_num.is_some_and(|w| num[1] > w) {
            first_over_window = Some(k + 1);
        }
        if rows.has(ix(k)) {
            per_request.push(kept(k, num, previous));
        }
        previous = Some(num);
    }
    summary((sum, last), per_request, first_over_window)
}

fn usd(tokens: Bounds, rate: Decimal) -> Bounds {
    tokens.map(|t| (t * rate / PER_MILLION).normalize())
}

fn breakdown(p: &replay::Priced, data_fee: Bounds, tool_fee: Bounds) -> CostBreakdown {
    let input = p.uncached_input + p.cache_write + p.cache_read;
    CostBreakdown {
        uncached_input: p.uncached_input,
        cache_write: p.cache_write,
        cache_read: p.cache_read,
        input,
        output: p.output,
        cache_storage: p.storage,
        data_fee,
        tool_fee,
        total: input + p.output + p.storage + data_fee + tool_fee,
    }
}

/// One tool fee of the price book as charged to one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeeLine {
    /// The fee.
    pub fee: crate::pricing::Fee,
    /// The trace capabilities it is attached to.
    pub capabilities: Vec<String>,
    /// Calls of those capabilities that reached the tool (2xx, not replays).
    pub calls: u64,
    /// Their wall-clock time, milliseconds (container fees bill it).
    pub busy_ms: u64,
    /// The fee for one run.
    pub charge: Decimal,
}

/// Each attached fee of the scenario, charged from the trace.
pub fn fee_lines(scenario: &Scenario) -> Vec<FeeLine> {
    scenario
        .tool_fees()
        .iter()
        .map(|tf| {
            let billed = scenario.trace().iter().filter(|c| {
                c.enters_context() && tf.capabilities.iter().any(|t| **t == *c.capability)
            });
            let (calls, busy_ms) = billed.fold((0u64, 0u64), |(n, ms), c| {
                (n + 1, ms.saturating_add(c.latency_ms))
            });
            FeeLine {
                fee: tf.fee.clone(),
                capabilities: tf.capabilities.clone(),
                calls,
                busy_ms,
                charge: tf.fee.charge(calls, busy_ms),
            }
        })
        .collect()
}

/// Each kept result's tokens (its o200k count where the trace has one and
/// `counts`: the scenario's model tokenizes so; else its bytes' lower
/// bound) and what its re-sends cost per variant.
fn attribute(
    scenario: &Scenario,
    sizes: &Sizes,
    counts: bool,
    rows: &RowSet,
) -> Vec<ResultAttribution> {
    let (trace, a, variants) = (
        scenario.trace(),
        scenario.assumptions(),
        scenario.variants(),
    );
    // A variant on a model of another tokenizer counts its own tokens.
    let own: Vec<Option<Assumptions>> = variants
        .iter()
        .map(|pv| match scenario.assumptions_of(pv) {
            std::borrow::Cow::Borrowed(_) => None,
            std::borrow::Cow::Owned(own) => Some(own),
        })
        .collect();
    let n = sizes.raw.len() as u64;
    sizes
        .result_rows()
        .filter(|(j, _)| rows.has(sizes.step_of.of(*j) + 1))
        .map(|(j, i)| {
            let c = &trace[i];
            // Its step enters before request step+1 and every later one.
            let j = sizes.step_of.of(j);
            let raw_bytes = c.raw_bytes.unwrap_or(0);
            let trimmed_bytes = c.trimmed_bytes.unwrap_or(0);
            let kind = c.content_kind();
            let tokens = |a: &Assumptions, counts: bool| {
                let counted = c
                    .o200k_tokens()
                    .filter(|_| counts)
                    .map(|t| Bounds::exact(Decimal::from(t)));
                let raw = counted.unwrap_or_else(|| result_tokens(a.units(raw_bytes, kind), a));
                let trimmed = counted
                    .filter(|_| trimmed_bytes == raw_bytes)
                    .unwrap_or_else(|| result_tokens(a.units(trimmed_bytes, kind), a));
                (raw, trimmed)
            };
            let (raw_tokens, trimmed_tokens) = tokens(a, counts);
            let resends = n - j as u64;
            let cost = variants
                .iter()
                .zip(&own)
                .map(|(pv, own)| {
                    let (raw, trimmed) = match own {
                        Some(own) => {
                            tokens(own, crate::pricing::tokenizer::counts_o200k(&pv.model))
                        }
                        None => (raw_tokens, trimmed_tokens),
                    };
                    let tokens = match pv.variant.results {
                        Content::Raw => raw,
                        Content::Trimmed => trimmed,
                    };
                    let rate = match (pv.variant.cache, pv.rates.cache_write, pv.rates.cache_read) {
                        (Cache::None, _, _) | (_, None, _) | (_, _, None) => {
                            Decimal::from(resends) * pv.rates.input
                        }
                        (_, Some(w), Some(r)) => w + Decimal::from(resends - 1) * r,
                    };
                    usd(tokens, rate)
                })
                .collect();
            ResultAttribution {
                call: c.call,
                row: c.row,
                capability: c.capability.to_string(),
                raw_bytes,
                trimmed_bytes,
                resends,
                raw_tokens,
                trimmed_tokens,
                cost,
            }
        })
        .collect()
}

/// A step or row number as an index. Each is below the length of the
/// vector it indexes, so it fits a `usize`; one that did not would index
/// past the end (a panic), never a wrong element as a truncating cast would.
pub(crate) fn ix(k: u64) -> usize {
    usize::try_from(k).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod recorded_tests;

#[cfg(test)]
pub(crate) mod tests;
