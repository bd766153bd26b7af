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
pub mod stats;

use crate::pricing::{Currency, PER_MILLION};
use crate::scenario::{
    Assumptions, Cache, Content, PriceDate, PricedVariant, Scenario, Timing, TraceCall,
};
pub use bounds::Bounds;
use replay::{Compactions, Run, Scale, StepOutputs};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
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

/// Which per-row results a simulation document holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowsKept {
    /// Totals only.
    None,
    /// Every request and result.
    All,
    /// An outline of the run (see [`Rows::Outline`]).
    Outline,
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

/// Tokens of one request of the run, for one content choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestTokens {
    /// 1-based request number; request N+1 writes the final answer.
    pub request: u64,
    /// The call whose result was appended just before this request (none for the first).
    pub after_call: Option<u32>,
    /// Input tokens sent.
    pub input: Bounds,
    /// Tokens written to the cache when caching (input minus the previous request's input).
    pub cache_write: Bounds,
    /// Tokens read from the cache when caching (the previous request's input).
    pub cache_read: Bounds,
    /// Output tokens of this request (a step's output, or the final answer).
    pub output: u64,
}

/// How the context grows over the run when results enter raw or trimmed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextProfile {
    /// Raw or trimmed.
    pub results: Content,
    /// Bytes of all tool results that entered the context.
    pub result_bytes: u64,
    /// Those bytes as tokens.
    pub result_tokens: Bounds,
    /// Model requests in the run (tool results + 1).
    pub requests: u64,
    /// Input tokens of the last request.
    pub final_request_input: Bounds,
    /// Input tokens summed over all requests.
    pub input_tokens: Bounds,
    /// Tokens written to the cache over the run, when caching.
    pub cache_write_tokens: Bounds,
    /// Tokens read from the cache over the run, when caching.
    pub cache_read_tokens: Bounds,
    /// Output tokens of the run: N·o + F.
    pub output_tokens: u64,
    /// Per-request rows (all, an outline, or none: see [`Simulation::rows`]).
    pub per_request: Vec<RequestTokens>,
    /// The first request whose input (upper bound) exceeds the model's
    /// context window, when the price book gives one and a request does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_over_window: Option<u64>,
}

/// A cost split into the parts a bill shows, in USD.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct CostBreakdown {
    /// Input billed at the uncached rate.
    pub uncached_input: Bounds,
    /// Cache writes.
    pub cache_write: Bounds,
    /// Cache reads.
    pub cache_read: Bounds,
    /// All model input: uncached + writes + reads.
    pub input: Bounds,
    /// Model output.
    pub output: Bounds,
    /// Explicit-cache storage (models that bill it).
    #[serde(default, skip_serializing_if = "Bounds::is_zero")]
    pub cache_storage: Bounds,
    /// Data tools' fees (charged responses only).
    pub data_fee: Bounds,
    /// The price book's tool fees (web search, code execution, …).
    #[serde(default, skip_serializing_if = "Bounds::is_zero")]
    pub tool_fee: Bounds,
    /// Everything.
    pub total: Bounds,
}

impl CostBreakdown {
    /// The same breakdown multiplied by a count (runs per day).
    pub fn times(&self, n: Decimal) -> CostBreakdown {
        CostBreakdown {
            uncached_input: self.uncached_input * n,
            cache_write: self.cache_write * n,
            cache_read: self.cache_read * n,
            input: self.input * n,
            output: self.output * n,
            cache_storage: self.cache_storage * n,
            data_fee: self.data_fee * n,
            tool_fee: self.tool_fee * n,
            total: self.total * n,
        }
    }
}

/// One variant's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantResult {
    /// The variant and its rates.
    #[serde(flatten)]
    pub variant: PricedVariant,
    /// Cost of one run.
    pub cost: CostBreakdown,
    /// Cost of `runs_per_day` runs.
    pub per_day: CostBreakdown,
    /// Requests whose cache had expired and was written again (lower bound).
    pub expiries: u64,
    /// Requests below the model's minimum cacheable length (lower bound).
    pub uncacheable_requests: u64,
    /// Requests billed at the long-context tier (lower bound).
    pub long_context_requests: u64,
    /// Model cost of each request, in request order (only with `detail`; data fees excluded).
    pub request_costs: Vec<Bounds>,
}

/// What one tool result costs because it stays in the context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultAttribution {
    /// The run's call number, if the trace gives one.
    pub call: Option<u32>,
    /// Trace row.
    pub row: usize,
    /// Capability.
    pub capability: String,
    /// Raw size in bytes.
    pub raw_bytes: u64,
    /// Trimmed size in bytes.
    pub trimmed_bytes: u64,
    /// Requests that carry this result: N + 1 − j.
    pub resends: u64,
    /// Its tokens, raw.
    pub raw_tokens: Bounds,
    /// Its tokens, trimmed.
    pub trimmed_tokens: Bounds,
    /// Its input cost under each variant, in the scenario's variant order:
    /// no cache, tokens × resends × input rate; cached, one write plus resends − 1 reads.
    pub cost: Vec<Bounds>,
}

/// Everything one simulation produced: the single source for every renderer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Simulation {
    /// tokencast's version.
    pub tokencast_version: String,
    /// Scenario name.
    pub scenario: String,
    /// The question it answers.
    pub question: String,
    /// SHA-256 over the scenario, price book and trace.
    pub fingerprint: String,
    /// The input files.
    pub inputs: Vec<crate::scenario::InputFile>,
    /// The model's price book entry.
    pub prices: crate::pricing::ModelPrices,
    /// The entries of other models that variants name, in first-use order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_prices: Vec<crate::pricing::ModelPrices>,
    /// The assumptions used.
    pub assumptions: Assumptions,
    /// Request timing, if given.
    pub timing: Option<Timing>,
    /// Tool results that entered the context (N).
    pub tool_results: u64,
    /// Which per-row results (`per_request`, `request_costs`, `attribution`,
    /// `trace`) this document holds.
    #[serde(default = "rows_all")]
    pub rows: RowsKept,
    /// Context growth, raw then trimmed.
    pub context: Vec<ContextProfile>,
    /// Share (0–1) of the raw result bytes trimming removes.
    #[serde(default)]
    pub trim_saving_share: Decimal,
    /// Each variant's cost, in the scenario's order.
    pub variants: Vec<VariantResult>,
    /// Per tool result attribution (only with `detail`).
    pub attribution: Vec<ResultAttribution>,
    /// Per capability statistics.
    pub capabilities: Vec<CapabilityStats>,
    /// The data-fee ledger.
    pub ledger: Ledger,
    /// The price book's tool fees attached to capabilities, per run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_fees: Vec<FeeLine>,
    /// The currency of every figure (prices converted when the scenario was read).
    #[serde(default, skip_serializing_if = "Currency::is_usd")]
    pub currency: Currency,
    /// The date that chose dated price entries, when one did or the scenario set it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_date: Option<PriceDate>,
    /// The trace as recorded (only with `detail`).
    pub trace: Vec<TraceCall>,
}

impl Simulation {
    /// The context profile for raw or trimmed results.
    pub fn profile(&self, results: Content) -> &ContextProfile {
        self.context
            .iter()
            .find(|p| p.results == results)
            .expect("both profiles are always computed")
    }

    /// Index of the cheapest and the most expensive variant by lower-bound total.
    pub fn cheapest_and_dearest(&self) -> (usize, usize) {
        let by_total = |i: &usize| self.variants[*i].cost.total.lower;
        let idx = 0..self.variants.len();
        let cheapest = idx.clone().min_by_key(by_total).unwrap_or(0);
        let dearest = idx.max_by_key(by_total).unwrap_or(0);
        (cheapest, dearest)
    }
}

fn rows_all() -> RowsKept {
    RowsKept::All
}

/// The tool results that enter the context, and the steps they form: the
/// context that enters before each request after the first, raw and
/// trimmed. A hand-written trace has one step per result; an imported one
/// (every row names its `request`) has one step per recorded request, which
/// may follow several results, or only a user message or attachment.
pub(crate) struct Sizes<'a> {
    pub(crate) results: Vec<&'a TraceCall>,
    /// Per step, bytes raw and trimmed.
    pub(crate) raw: Vec<u64>,
    pub(crate) trimmed: Vec<u64>,
    /// The step each result belongs to (0-based).
    pub(crate) step_of: Vec<usize>,
    /// The call number of each step's last result.
    pub(crate) calls: Vec<Option<u32>>,
    /// Each request's output, when the trace records it.
    pub(crate) outputs: Option<StepOutputs>,
    /// The recorded gap before each request (index 0: the first), when the
    /// trace records it.
    pub(crate) gaps: Option<Vec<u64>>,
    /// Per step, the tool latency since the previous request (every row's,
    /// errors and replays included).
    pub(crate) tool_ms: Vec<u64>,
    /// Recorded compactions, when the trace marks any: for raw and for
    /// trimmed results.
    pub(crate) compactions: Option<[Compactions; 2]>,
    /// The recorded model of each request 0..=N (imported traces; the
    /// first request's is not in the trace).
    pub(crate) models: Vec<Option<&'a str>>,
}

impl<'a> Sizes<'a> {
    pub(crate) fn of(trace: &'a [TraceCall]) -> Sizes<'a> {
        let results: Vec<&TraceCall> = trace.iter().filter(|c| c.enters_context()).collect();
        let grouped = !results.is_empty() && results.iter().all(|c| c.request.is_some());
        let mut sizes = Sizes {
            raw: Vec::with_capacity(results.len()),
            trimmed: Vec::with_capacity(results.len()),
            step_of: Vec::with_capacity(results.len()),
            calls: Vec::with_capacity(results.len()),
            outputs: None,
            gaps: None,
            tool_ms: Vec::with_capacity(results.len()),
            compactions: None,
            models: Vec::new(),
            results: Vec::new(),
        };
        // Latency of every row since the last result, per result.
        let mut latency = Vec::with_capacity(results.len());
        let mut pending = 0u64;
        for c in trace {
            pending = pending.saturating_add(c.latency_ms);
            if c.enters_context() {
                latency.push(pending);
                pending = 0;
            }
        }
        // The first row of each step, for its output and gap.
        let mut firsts: Vec<&TraceCall> = Vec::new();
        let mut last_request = None;
        for (c, ms) in results.iter().zip(latency) {
            let new_step = !grouped || c.request != last_request;
            last_request = c.request;
            if new_step {
                sizes.raw.push(0);
                sizes.trimmed.push(0);
                sizes.calls.push(None);
                sizes.tool_ms.push(0);
                firsts.push(c);
            }
            let k = sizes.raw.len() - 1;
            sizes.tool_ms[k] = sizes.tool_ms[k].saturating_add(ms);
            sizes.raw[k] = sizes.raw[k].saturating_add(c.raw_bytes.unwrap_or(0));
            sizes.trimmed[k] = sizes.trimmed[k].saturating_add(c.trimmed_bytes.unwrap_or(0));
            sizes.calls[k] = c.call.or(sizes.calls[k]);
            sizes.step_of.push(k);
        }
        if grouped && firsts.iter().all(|c| c.resent_output.is_some()) {
            let mut resent = Vec::with_capacity(firsts.len() + 1);
            resent.push(0u128);
            let mut total = 0u128;
            let mut billed = Vec::with_capacity(firsts.len());
            for c in &firsts {
                let r = c.resent_output.unwrap_or(0);
                total += u128::from(r);
                resent.push(total);
                billed.push(r.saturating_add(c.hidden_output.unwrap_or(0)));
            }
            sizes.outputs = Some(StepOutputs { billed, resent });
        }
        if grouped && firsts.iter().all(|c| c.gap_ms.is_some()) {
            let mut gaps = Vec::with_capacity(firsts.len() + 1);
            gaps.push(0);
            gaps.extend(firsts.iter().map(|c| c.gap_ms.unwrap_or(0)));
            sizes.gaps = Some(gaps);
        }
        if grouped {
            sizes.models.push(None);
            sizes.models.extend(
                firsts
                    .iter()
                    .map(|c| c.recorded.as_ref().and_then(|r| r.model.as_deref())),
            );
        }
        if grouped && firsts.iter().any(|c| c.compacted) {
            let of = |bytes: &[u64]| {
                let n = firsts.len();
                let mut c = Compactions {
                    bytes: vec![0; n + 1],
                    since: vec![0; n + 1],
                    at: vec![false; n + 1],
                };
                let (mut cum, mut base, mut since) = (0u128, 0u128, 0u64);
                for (k, first) in firsts.iter().enumerate() {
                    // Step k precedes request k+1: everything before it is gone.
                    if first.compacted {
                        base = cum;
                        since = k as u64 + 1;
                        c.at[k + 1] = true;
                    }
                    cum += u128::from(bytes[k]);
                    c.bytes[k + 1] = base;
                    c.since[k + 1] = since;
                }
                c
            };
            sizes.compactions = Some([of(&sizes.raw), of(&sizes.trimmed)]);
        }
        sizes.results = results;
        sizes
    }

    pub(crate) fn of_results(&self, results: Content) -> &[u64] {
        match results {
            Content::Raw => &self.raw,
            Content::Trimmed => &self.trimmed,
        }
    }

    /// For a variant that prices each request on its recorded model: the
    /// index of each request's rates (0: the variant's own; i: `by_model[i−1]`).
    pub(crate) fn model_index(&self, pv: &PricedVariant) -> Option<Vec<u16>> {
        if pv.by_model.is_empty() || self.models.is_empty() {
            return None;
        }
        Some(
            self.models
                .iter()
                .map(|m| {
                    m.and_then(|m| pv.by_model.iter().position(|b| b.model == m))
                        .map_or(0, |i| u16::try_from(i + 1).unwrap_or(u16::MAX))
                })
                .collect(),
        )
    }

    /// The recorded compactions for `results`.
    pub(crate) fn compactions_of(&self, results: Content) -> Option<&Compactions> {
        self.compactions.as_ref().map(|c| match results {
            Content::Raw => &c[0],
            Content::Trimmed => &c[1],
        })
    }

    /// The gap before each request: as recorded, else from the scenario's timing.
    pub(crate) fn gaps_ms(&self, timing: Option<&Timing>) -> Option<Vec<u64>> {
        self.gaps.clone().or_else(|| timing.map(|t| self.timed(t)))
    }

    /// The gap before each request from `timing`: each step's tool
    /// latency, the model's time per step and the pauses.
    pub(crate) fn timed(&self, timing: &Timing) -> Vec<u64> {
        let mut gaps = Vec::with_capacity(self.tool_ms.len() + 1);
        timing.gaps_into(self.tool_ms.iter().copied(), &mut gaps);
        gaps
    }
}

/// Replays `scenario` through every variant.
pub fn simulate(scenario: &Scenario, opts: SimulateOptions) -> Simulation {
    let a = &scenario.assumptions();
    let sizes = Sizes::of(scenario.trace());
    let (results, raw, trimmed) = (&sizes.results, &sizes.raw, &sizes.trimmed);
    let rows = row_set(opts.rows, raw, trimmed, scenario.variants());
    let scale = Scale::new(a);
    let window = scenario.prices().context_window_tokens;
    let gaps = sizes.gaps_ms(scenario.timing().as_ref());
    let run_of = |results| Run {
        scale,
        bytes: sizes.of_results(results),
        final_output: a.final_output_tokens,
        gaps_ms: gaps.as_deref(),
        outputs: sizes.outputs.as_ref(),
        compactions: sizes.compactions_of(results),
        hit_share: None,
    };
    let context = vec![
        profile(
            Content::Raw,
            &run_of(Content::Raw),
            &sizes.calls,
            a,
            &rows,
            window,
        ),
        profile(
            Content::Trimmed,
            &run_of(Content::Trimmed),
            &sizes.calls,
            a,
            &rows,
            window,
        ),
    ];
    let ledger = Ledger::of(scenario.trace());
    let data_fee = Bounds::exact(ledger.total_usd);
    let tool_fees = fee_lines(scenario);
    let tool_fee = Bounds::exact(tool_fees.iter().map(|f| f.charge).sum());
    let runs = Decimal::from(a.runs_per_day);

    let variants: Vec<VariantResult> = scenario
        .variants()
        .iter()
        .map(|pv| {
            let run = Run {
                hit_share: Run::share(pv.cache_hit_share),
                ..run_of(pv.variant.results)
            };
            let mut request_costs = Vec::new();
            let keep = rows.any().then_some((&rows, &mut request_costs));
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
            }
        })
        .collect();

    let attribution = attribute(&sizes, a, scenario.variants(), &rows);
    let trace = match &rows {
        RowSet::Nothing => Vec::new(),
        RowSet::Everything => scenario.trace().clone(),
        RowSet::Selected(_) => results
            .iter()
            .enumerate()
            .filter(|(j, _)| rows.has(sizes.step_of[*j] + 1))
            .map(|(_, c)| (*c).clone())
            .collect(),
    };

    Simulation {
        tokencast_version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: scenario.name().clone(),
        question: scenario.question().clone(),
        fingerprint: scenario.fingerprint(),
        inputs: scenario.inputs().clone(),
        prices: scenario.prices().clone(),
        other_prices: scenario.variants().iter().fold(Vec::new(), |mut out, v| {
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
        }),
        assumptions: (*a).clone(),
        timing: scenario.timing().clone(),
        tool_results: results.len() as u64,
        rows: match rows {
            RowSet::Nothing => RowsKept::None,
            RowSet::Everything => RowsKept::All,
            RowSet::Selected(_) => RowsKept::Outline,
        },
        trim_saving_share: trim_saving_share(&context),
        context,
        variants,
        attribution,
        capabilities: CapabilityStats::of(scenario.trace()),
        ledger,
        tool_fees,
        currency: scenario.currency().clone(),
        price_date: scenario.price_date().clone(),
        trace,
    }
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
    let mut keep = outline(raw, trimmed, points);
    let n = raw.len();
    for pv in variants {
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
        let cached = pv.variant.cache != Cache::None && pv.rates.cache_write.is_some();
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
        if let Some(j) = (0..n).max_by(|x, y| cost(*x).total_cmp(&cost(*y))) {
            keep[j + 1] = true;
        }
    }
    RowSet::Selected(keep)
}

/// What one restart before request `before_request` costs each variant
/// (model cost only, lower and upper bound).
#[derive(Debug, Clone, PartialEq)]
pub struct RestartCost {
    /// The 1-based request the worker restarts before.
    pub before_request: u64,
    /// Per variant: the model cost of requests 1 … k−1, paid again when starting over.
    pub start_over: Vec<Bounds>,
    /// Per variant: what resuming adds, the cache having expired: request k
    /// writes its whole prefix instead of reading it. Without timing, the
    /// gaps are the tool latencies alone.
    pub resume: Vec<Bounds>,
}

/// Restart costs at chosen requests, and summed over every request but the first.
#[derive(Debug, Clone, PartialEq)]
pub struct Restarts {
    /// The chosen requests, in order.
    pub points: Vec<RestartCost>,
    /// Per variant: Σ start-over model cost over requests 2 … N+1.
    pub start_over_sum: Vec<Bounds>,
    /// Per variant: Σ resume cost over requests 2 … N+1.
    pub resume_sum: Vec<Bounds>,
}

/// Restart costs before each of `points` (1-based requests, ascending), and
/// summed over every request, for every variant, in two linear replays per
/// variant.
pub fn restarts(scenario: &Scenario, points: &[u64]) -> Restarts {
    let a = &scenario.assumptions();
    let sizes = Sizes::of(scenario.trace());
    let raw = &sizes.raw;
    let mut keep = vec![false; raw.len() + 1];
    for &k in points {
        if let Some(slot) = keep.get_mut(ix(k).wrapping_sub(1)) {
            *slot = true;
        }
    }
    let rows = RowSet::Selected(keep);
    let own_gaps = sizes.gaps_ms(scenario.timing().as_ref());
    let untimed = Timing {
        model_ms_per_step: 0,
        pauses: Vec::new(),
    };
    let resume_gaps = own_gaps
        .clone()
        .unwrap_or_else(|| sizes.timed(scenario.timing().as_ref().unwrap_or(&untimed)));
    let scale = Scale::new(a);
    let mut start_over_sum = Vec::new();
    let mut resume_sum = Vec::new();
    let per_variant: Vec<Vec<(Bounds, Bounds)>> = scenario
        .variants()
        .iter()
        .map(|pv| {
            let bytes = sizes.of_results(pv.variant.results);
            let own = Run {
                scale,
                bytes,
                final_output: a.final_output_tokens,
                gaps_ms: own_gaps.as_deref(),
                outputs: sizes.outputs.as_ref(),
                compactions: sizes.compactions_of(pv.variant.results),
                hit_share: Run::share(pv.cache_hit_share),
            };
            let resumed = Run {
                gaps_ms: Some(&resume_gaps),
                ..own
            };
            let (cache, rates) = (pv.variant.cache, &pv.rates);
            let (before, sums) = own.restarts(cache, rates, &rows);
            let (extra, extra_sums) = resumed.restarts(cache, rates, &rows);
            start_over_sum.push(sums.0);
            resume_sum.push(extra_sums.1);
            before.iter().zip(&extra).map(|(b, e)| (b.0, e.1)).collect()
        })
        .collect();
    let kept: Vec<u64> = (0..=raw.len())
        .filter(|k| rows.has(*k))
        .map(|k| k as u64 + 1)
        .collect();
    Restarts {
        points: kept
            .iter()
            .enumerate()
            .map(|(p, &k)| RestartCost {
                before_request: k,
                start_over: per_variant.iter().map(|v| v[p].0).collect(),
                resume: per_variant.iter().map(|v| v[p].1).collect(),
            })
            .collect(),
        start_over_sum,
        resume_sum,
    }
}

/// Tokens of `bytes` of tool result: bytes ÷ b, and that × u.
pub fn result_tokens(bytes: u64, a: &Assumptions) -> Bounds {
    let lower = Decimal::from(bytes) / a.bytes_per_token;
    Bounds {
        lower,
        upper: lower * a.tokenizer_uplift,
    }
}

fn profile(
    results: Content,
    run: &Run,
    calls: &[Option<u32>],
    a: &Assumptions,
    rows: &RowSet,
    window: Option<u64>,
) -> ContextProfile {
    let (bytes, scale) = (run.bytes, run.scale);
    let n = bytes.len() as u64;
    let window_num = window.map(|w| scale.tokens(w)[1]);
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
            let input = scale.tokens_of(num);
            let before = previous.map_or(Bounds::default(), |p| scale.tokens_of(p));
            per_request.push(RequestTokens {
                request: k + 1,
                after_call: if k == 0 { None } else { calls[ix(k - 1)] },
                input,
                cache_write: input - before,
                cache_read: before,
                output: run.billed(k),
            });
        }
        previous = Some(num);
    }
    let input_tokens = scale.tokens_of(sum);
    let final_request_input = scale.tokens_of(last);
    ContextProfile {
        results,
        result_bytes: u64::try_from(cum).unwrap_or(u64::MAX),
        result_tokens: result_tokens(u64::try_from(cum).unwrap_or(u64::MAX), a),
        requests: n + 1,
        final_request_input,
        input_tokens,
        cache_write_tokens: final_request_input,
        cache_read_tokens: input_tokens - final_request_input,
        output_tokens: u64::try_from(run.total_output()).unwrap_or(u64::MAX),
        per_request,
        first_over_window,
    }
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
            let billed = scenario
                .trace()
                .iter()
                .filter(|c| c.enters_context() && tf.capabilities.contains(&c.capability));
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

fn attribute(
    sizes: &Sizes,
    a: &Assumptions,
    variants: &[PricedVariant],
    rows: &RowSet,
) -> Vec<ResultAttribution> {
    let n = sizes.raw.len() as u64;
    sizes
        .results
        .iter()
        .enumerate()
        .filter(|(j, _)| rows.has(sizes.step_of[*j] + 1))
        .map(|(j, c)| {
            // Its step enters before request step+1 and every later one.
            let j = sizes.step_of[j];
            let raw_bytes = c.raw_bytes.unwrap_or(0);
            let trimmed_bytes = c.trimmed_bytes.unwrap_or(0);
            let raw_tokens = result_tokens(raw_bytes, a);
            let trimmed_tokens = result_tokens(trimmed_bytes, a);
            let resends = n - j as u64;
            let cost = variants
                .iter()
                .map(|pv| {
                    let tokens = match pv.variant.results {
                        Content::Raw => raw_tokens,
                        Content::Trimmed => trimmed_tokens,
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
                capability: c.capability.clone(),
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
pub(crate) mod tests {
    use super::*;
    use crate::pricing::ModelPrices;
    use crate::scenario::{Mode, Variant};
    use proptest::prelude::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    fn prices() -> ModelPrices {
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

    fn call(row: usize, raw: u64, trimmed: u64) -> TraceCall {
        TraceCall {
            row,
            call: Some(u32::try_from(row).unwrap()),
            capability: "t/x".into(),
            params: String::new(),
            status: 200,
            items: 1,
            raw_bytes: Some(raw),
            trimmed_bytes: Some(trimmed),
            latency_ms: 1000,
            charged_usd: d("0.001"),
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
    }

    pub(crate) fn scenario(bytes: &[(u64, u64)], extra: Vec<TraceCall>) -> Scenario {
        let p = prices();
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
                prefix_measured: false,
                prefix_cached_tokens: 0,
                step_overhead_tokens: 0,
                estimate_bytes_per_token: None,
            },
            variants,
            trace,
        )
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

    proptest! {
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
}
