//! The answer each document opens with (its JSON's first field after the
//! marker, the terminal's first paragraph, the page's Answer box): chosen
//! from the document's own figures, never computed by a renderer.
//!
//! - a forecast of one scenario: the budget per run that 99 % of drawn runs
//!   stay under, for the cheapest and the dearest variant;
//! - a forecast over many sessions: the budget a month that 99 % of
//!   simulated months stay under, with its 95 % interval and the calendar
//!   that makes a month;
//! - a sweep: where the cheapest and the dearest point of the grid are.

use super::corpus::{CorpusForecast, CorpusVariant};
use super::forecast::Forecast;
use super::sweep::Sweep;
use crate::engine::Bounds;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// One variant's budget per run in a forecast of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunBudget {
    /// The variant.
    pub variant: String,
    /// The p99 of the upper-bound cost of a run: 99 % of the drawn runs cost less.
    pub per_run: Decimal,
    /// The median run, lower and upper bound.
    pub median: Bounds,
    /// The share of runs (0–1) over `--budget`, when one was given.
    pub over_budget: Option<Decimal>,
}

/// The answer of a forecast of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForecastAnswer {
    /// The variant with the smallest budget per run.
    pub cheapest: RunBudget,
    /// The variant with the largest (the cheapest, with one variant).
    pub dearest: RunBudget,
    /// Runs drawn.
    pub runs: u64,
    /// Tool results per run.
    pub calls: u64,
}

impl ForecastAnswer {
    /// The answer of `f`; none without variants.
    pub fn of(f: &Forecast) -> Option<ForecastAnswer> {
        let budget = |v: &super::forecast::VariantForecast| RunBudget {
            variant: v.name.clone(),
            per_run: v.recommended_budget,
            median: Bounds {
                lower: v.cost_lower.p50,
                upper: v.cost_upper.p50,
            },
            over_budget: v.over_budget,
        };
        // The first of equals, in scenario order.
        let cheapest = f.variants.iter().reduce(|a, b| {
            if b.recommended_budget < a.recommended_budget {
                b
            } else {
                a
            }
        })?;
        let dearest = f.variants.iter().reduce(|a, b| {
            if b.recommended_budget > a.recommended_budget {
                b
            } else {
                a
            }
        })?;
        Some(ForecastAnswer {
            cheapest: budget(cheapest),
            dearest: budget(dearest),
            runs: f.runs,
            calls: f.calls,
        })
    }
}

/// One variant's budget a month in a forecast over many sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonthBudget {
    /// The variant.
    pub variant: String,
    /// The p99 of the upper-bound cost of a month: 99 % of simulated months cost less.
    pub per_month: Decimal,
    /// Its 95 % interval from resampling the sessions, when they allow one.
    pub low: Option<Decimal>,
    /// The interval's upper end.
    pub high: Option<Decimal>,
    /// The mean month, lower and upper bound.
    pub mean_month: Bounds,
    /// A p99 budget per run that holds with 95 % confidence; none with too few sessions.
    pub per_run: Option<Decimal>,
}

/// The answer of a forecast over many sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorpusAnswer {
    /// The variant with the smallest budget a month.
    pub cheapest: MonthBudget,
    /// The variant with the largest (the cheapest, with one variant).
    pub dearest: MonthBudget,
    /// Recorded sessions the forecast draws from.
    pub sessions: u64,
    /// Sessions a p99 budget per run needs at 95 % confidence.
    pub sessions_needed_for_p99_run: u64,
    /// Runs a working day.
    pub runs_per_day: u64,
    /// Working days a week.
    pub working_days_per_week: u64,
    /// Runs in a month: runs a day × working days a week × 52 ÷ 12, rounded.
    pub runs_per_month: u64,
}

impl CorpusAnswer {
    /// The answer of `f`; none without variants or without a month's p99.
    pub fn of(f: &CorpusForecast) -> Option<CorpusAnswer> {
        let p99 = |v: &CorpusVariant| {
            v.month
                .percentiles
                .iter()
                .find(|p| p.percentile == 99)
                .map(|p| p.upper.clone())
        };
        let budgets: Vec<MonthBudget> = f
            .variants
            .iter()
            .map(|v| {
                p99(v).map(|e| MonthBudget {
                    variant: v.name.clone(),
                    per_month: e.value,
                    low: e.low,
                    high: e.high,
                    mean_month: v.month.mean,
                    per_run: v.p99_budget,
                })
            })
            .collect::<Option<_>>()?;
        let cheapest = budgets
            .iter()
            .reduce(|a, b| if b.per_month < a.per_month { b } else { a })?;
        let dearest = budgets
            .iter()
            .reduce(|a, b| if b.per_month > a.per_month { b } else { a })?;
        Some(CorpusAnswer {
            cheapest: cheapest.clone(),
            dearest: dearest.clone(),
            sessions: f.sessions,
            sessions_needed_for_p99_run: f.needed_for_p99,
            runs_per_day: f.runs_per_day,
            working_days_per_week: f.working_days_per_week,
            runs_per_month: f.variants.first().map_or(0, |v| v.month.runs),
        })
    }
}

/// One point of a sweep and one variant's total there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPick {
    /// The axes' values at the point, in axis order, as the scenario writes them.
    pub at: Vec<String>,
    /// The variant.
    pub variant: String,
    /// Its total there (of one run or one day, as the sweep's figure says).
    pub total: Bounds,
}

/// The answer of a sweep: the cheapest and dearest point and variant, by
/// the lower bound (ties: the first in grid and scenario order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepAnswer {
    /// The cheapest point and variant.
    pub cheapest: SweepPick,
    /// The dearest point and variant.
    pub dearest: SweepPick,
    /// Points in the grid.
    pub points: u64,
}

impl SweepAnswer {
    /// The answer of `s`; none for an empty grid.
    pub fn of(s: &Sweep) -> Option<SweepAnswer> {
        let all = || {
            s.points
                .iter()
                .flat_map(|p| p.totals.iter().enumerate().map(move |(v, t)| (p, v, t)))
        };
        let pick = |(p, v, t): (&super::sweep::Point, usize, &Bounds)| SweepPick {
            at: p.values.iter().map(ToString::to_string).collect(),
            variant: s.variants.get(v).cloned().unwrap_or_default(),
            total: *t,
        };
        let cheapest = all().reduce(|a, b| if b.2.lower < a.2.lower { b } else { a })?;
        let dearest = all().reduce(|a, b| if b.2.lower > a.2.lower { b } else { a })?;
        Some(SweepAnswer {
            cheapest: pick(cheapest),
            dearest: pick(dearest),
            points: s.points.len() as u64,
        })
    }
}
