//! The `forecast` document over many recorded sessions: per-run
//! percentiles with intervals, period costs and the mix (built by
//! [`crate::analysis::corpus::forecast`]).

use crate::engine::Bounds;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// One recorded session: its kind and its cost per variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionCost {
    /// Where it came from (a scenario file or a session directory).
    pub name: String,
    /// Index into [`crate::analysis::corpus::Recorded::kinds`].
    pub kind: usize,
    /// Cost of one run per variant (scenario threads summed), lower and upper.
    pub cost: Vec<Bounds>,
}

/// One kind's place in the mix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindShare {
    /// Kind name.
    pub kind: String,
    /// Sessions recorded.
    pub sessions: u64,
    /// Share of the recorded sessions.
    pub recorded_share: Decimal,
    /// Share of the runs drawn.
    pub share: Decimal,
}

/// A percentile with its interval, on one bound of the cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The estimate.
    pub value: Decimal,
    /// Lower end of the 95 % interval, when the sessions allow one.
    pub low: Option<Decimal>,
    /// Upper end of the 95 % interval, when the sessions allow one.
    pub high: Option<Decimal>,
}

/// One percentile of a period's cost, both bounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Percentile {
    /// 50, 90 or 99.
    pub percentile: u8,
    /// On the lower-bound cost.
    pub lower: Estimate,
    /// On the upper-bound cost.
    pub upper: Estimate,
}

/// A period's cost: mean and percentiles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeriodCost {
    /// Runs in the period.
    pub runs: u64,
    /// Exact mean (the mix's mean × runs).
    pub mean: Bounds,
    /// p50, p90, p99.
    pub percentiles: Vec<Percentile>,
}

/// The forecast of one variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorpusVariant {
    /// Variant name.
    pub name: String,
    /// One run.
    pub run: PeriodCost,
    /// A p99 budget per run that holds with 95 % confidence (one-sided, on
    /// the upper-bound cost): with the recorded mix the r-th smallest
    /// session, r the smallest rank with P(Binomial(n, 0.99) ≤ r − 1) ≥
    /// 0.95 (299 sessions at least); with weights the largest of the drawn
    /// kinds' bounds at 1 − 5 % ÷ K. `None`: too few sessions.
    pub p99_budget: Option<Decimal>,
    /// The dearest session.
    pub max: Bounds,
    /// One day.
    pub day: PeriodCost,
    /// One month.
    pub month: PeriodCost,
}

/// The whole corpus forecast.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorpusForecast {
    /// The budget a month of the cheapest and dearest variant (first, so
    /// the JSON opens with it).
    #[serde(default)]
    pub answer: Option<super::answer::CorpusAnswer>,
    /// What was read.
    pub title: String,
    /// The currency of every cost.
    #[serde(default, skip_serializing_if = "crate::pricing::Currency::is_usd")]
    pub currency: crate::pricing::Currency,
    /// The date that chose the prices, when it mattered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_date: Option<crate::scenario::PriceDate>,
    /// How runs are drawn.
    pub sampling: String,
    /// How percentiles and intervals are computed.
    pub method: String,
    /// Recorded sessions.
    pub sessions: u64,
    /// The mix.
    pub kinds: Vec<KindShare>,
    /// Whether `--weights` changed the mix.
    pub weighted: bool,
    /// Confidence level of every interval.
    pub level: f64,
    /// Independent runs a distribution-free p99 bound at that level needs.
    pub needed_for_p99: u64,
    /// With weights: runs each drawn kind needs (its bound at 1 − 5 % ÷ K).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needed_per_kind_for_p99: Option<u64>,
    /// Variants in some sessions but not all, left out.
    pub variants_left_out: Vec<String>,
    /// Sessions left out, with why (a thread on an unpriced model).
    #[serde(default)]
    pub sessions_left_out: Vec<String>,
    /// Runs a day.
    pub runs_per_day: u64,
    /// Working days a week.
    pub working_days_per_week: u64,
    /// Simulated days.
    pub days: u64,
    /// Simulated months.
    pub months: u64,
    /// Seed.
    pub seed: u64,
    /// Per variant.
    pub variants: Vec<CorpusVariant>,
    /// Every session's cost (for the distribution chart and the CSV).
    pub recorded: Vec<SessionCost>,
    /// The input files read.
    #[serde(default)]
    pub inputs: Vec<crate::scenario::InputFile>,
}
