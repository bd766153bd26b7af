//! What a replay returns: the simulation document the engine builds, its
//! context profiles, cost breakdowns and per-result attribution.

use super::*;

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
    /// Where the variant's model counts with another tokenizer than the
    /// scenario's: the band it was replayed at instead of the scenario's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<crate::scenario::OtherBand>,
    /// With [`VariantResult::tokens`]: the last request's input at that
    /// band (the context profiles are at the scenario's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_request_input: Option<Bounds>,
}

/// What one tool result costs because it stays in the context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultAttribution {
    /// The run's call number, if the trace gives one.
    pub call: Option<u32>,
    /// Trace row.
    pub row: u32,
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
    /// Of them, the results whose tokens the trace counts with
    /// `o200k_base` (`o200k_tokens`): on a model of that tokenizer they
    /// replay as those counts, not as bytes.
    #[serde(default, skip_serializing_if = "crate::input::is_zero")]
    pub counted_results: u64,
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

pub(super) fn rows_all() -> RowsKept {
    RowsKept::All
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
