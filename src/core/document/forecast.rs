//! The `forecast` document: cost and context percentiles of runs drawn
//! from one scenario's recorded distributions (built by
//! [`crate::analysis::forecast::run`]).

use crate::scenario::Content;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// How results are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Resample recorded values.
    Bootstrap,
    /// Fitted log-normal per capability (maximum likelihood).
    Lognormal,
}

/// A log-normal fit by maximum likelihood: μ and σ of ln x.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// Mean of the logarithms.
    pub mu: f64,
    /// Population standard deviation of the logarithms.
    pub sigma: f64,
}

/// What the fit found per capability (for the report).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapabilityFit {
    /// Capability.
    pub capability: String,
    /// Share of the recorded results.
    pub share: f64,
    /// Recorded calls.
    pub calls: u64,
    /// Fit of items per call (calls with results).
    pub items: Option<Fit>,
    /// Fit of raw bytes per item.
    pub raw_bytes_per_item: Option<Fit>,
    /// Fit of trimmed bytes per item.
    pub trimmed_bytes_per_item: Option<Fit>,
}

/// Percentiles of one quantity, as decimals. The mean, minimum and maximum
/// are exact (integer sums and extremes of the replays); the percentiles are
/// the sketch's estimates (relative accuracy [`crate::analysis::forecast::SKETCH_ACCURACY`]) to ten
/// significant digits, clamped to the exact minimum and maximum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quantiles {
    /// Median.
    pub p50: Decimal,
    /// 90th percentile.
    pub p90: Decimal,
    /// 99th percentile.
    pub p99: Decimal,
    /// Mean (exact).
    pub mean: Decimal,
    /// Minimum (exact).
    pub min: Decimal,
    /// Maximum (exact).
    pub max: Decimal,
}

impl Quantiles {
    /// p50, p90, p99 in that order.
    pub fn percentiles(&self) -> [Decimal; 3] {
        [self.p50, self.p90, self.p99]
    }
}

/// Which bound a share "over" a limit compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    /// bytes ÷ b.
    Lower,
    /// × the tokenizer uplift.
    Upper,
}

/// The forecast for one variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantForecast {
    /// Variant name.
    pub name: String,
    /// Cost per run, lower bound (USD).
    pub cost_lower: Quantiles,
    /// Cost per run, upper bound (USD).
    pub cost_upper: Quantiles,
    /// Share of runs (0–1) whose cost exceeds the budget, by [`Forecast::over_budget_bound`].
    pub over_budget: Option<Decimal>,
    /// The recommended task budget: p99 of the upper-bound cost.
    pub recommended_budget: Decimal,
    /// Histogram of the lower-bound cost: bin edges (BINS + 1) and counts (last bin: above the range).
    pub histogram_edges: Vec<f64>,
    /// Counts per bin, then the overflow count.
    pub histogram_counts: Vec<u64>,
}

/// Final context size for raw or trimmed results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextForecast {
    /// Raw or trimmed.
    pub results: Content,
    /// Final request input tokens, lower bound.
    pub lower: Quantiles,
    /// Final request input tokens, upper bound.
    pub upper: Quantiles,
    /// Share of runs (0–1) whose final request, upper bound, exceeds the context window.
    pub over_context_window: Option<Decimal>,
}

/// Percentiles of the context after some calls (lower bound, tokens).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FanQuantiles {
    /// 10th percentile.
    pub p10: Decimal,
    /// Median.
    pub p50: Decimal,
    /// 90th percentile.
    pub p90: Decimal,
    /// 99th percentile.
    pub p99: Decimal,
}

impl FanQuantiles {
    /// p10, p50, p90, p99 in that order.
    pub fn all(&self) -> [Decimal; 4] {
        [self.p10, self.p50, self.p90, self.p99]
    }
}

/// One point of the fan: context after n calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FanPoint {
    /// Calls so far.
    pub calls: u64,
    /// Raw results.
    pub raw: FanQuantiles,
    /// Trimmed results.
    pub trimmed: FanQuantiles,
}

/// A whole forecast.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Forecast {
    /// The budget per run of the cheapest and dearest variant (first, so
    /// the JSON opens with it); none without variants.
    #[serde(default)]
    pub answer: Option<super::answer::ForecastAnswer>,
    /// Scenario name.
    pub scenario: String,
    /// Drawn from the scenario's `[trace.generate]` distributions (a run
    /// that has not happened) rather than from a recorded run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub planned: bool,
    /// The currency of every cost.
    #[serde(default, skip_serializing_if = "crate::pricing::Currency::is_usd")]
    pub currency: crate::pricing::Currency,
    /// The date that chose the prices, when it mattered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_date: Option<crate::scenario::PriceDate>,
    /// The scenario's input files.
    #[serde(default)]
    pub inputs: Vec<crate::scenario::InputFile>,
    /// Tool results per run.
    pub calls: u64,
    /// Runs.
    pub runs: u64,
    /// Seed.
    pub seed: u64,
    /// Method.
    pub method: Method,
    /// How percentiles are computed.
    pub percentile_method: String,
    /// Budget per run, USD.
    pub budget: Option<Decimal>,
    /// The bound the share over the budget compares: the upper bound, so a
    /// budget set from this forecast errs on the safe side.
    pub over_budget_bound: Bound,
    /// The model's context window, tokens.
    pub context_window: Option<u64>,
    /// Per capability: share and fits.
    pub capabilities: Vec<CapabilityFit>,
    /// Per variant.
    pub variants: Vec<VariantForecast>,
    /// Final context size.
    pub context: Vec<ContextForecast>,
    /// Context size against the number of calls.
    pub fan: Vec<FanPoint>,
    /// Mean raw bytes per drawn tool result (for checking against the trace).
    pub mean_raw_bytes_per_result: f64,
    /// Recorded sessions a forecast over many of them needs before it can
    /// state a p99 budget at 95 % confidence (one-sided).
    #[serde(default)]
    pub sessions_for_p99_budget: u64,
}
