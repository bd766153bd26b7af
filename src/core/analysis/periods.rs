//! From one run to a year: per run, day, week, month and year, with the
//! plan's working days and monthly growth, and the cumulative spend month
//! by month against the plan's budget.
//!
//! Conventions: a day is `runs_per_day` runs; a week is the plan's working
//! days; a month is a twelfth of 52 weeks; month m's runs are the first
//! month's × (1 + growth)^(m−1); a year is twelve such months.

use crate::engine::{Bounds, Simulation};
use crate::scenario::Plan;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Months in the plan's year.
pub const MONTHS: usize = 12;

/// Every variant over every period.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Periods {
    /// The plan used.
    pub plan: Plan,
    /// Runs a day.
    pub runs_per_day: u64,
    /// One row per variant, in the scenario's order.
    pub variants: Vec<VariantPeriods>,
    /// The plan's budget summed by the end of each month, months 1–12
    /// (empty without a budget).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub budget_cumulative: Vec<Decimal>,
}

/// One variant's cost over each period (lower and upper bounds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantPeriods {
    /// Variant name.
    pub name: String,
    /// One run.
    pub run: Bounds,
    /// One working day.
    pub day: Bounds,
    /// One week.
    pub week: Bounds,
    /// The first month.
    pub month: Bounds,
    /// Twelve months, with growth.
    pub year: Bounds,
    /// Spend by the end of each month, months 1–12.
    pub cumulative: Vec<Bounds>,
    /// The first month whose cumulative spend (upper bound) is above the
    /// cumulative budget, when the plan has one.
    pub over_budget_from_month: Option<u64>,
}

/// The one month every table, gate and chart uses: a twelfth of 52 weeks of
/// the plan's working days (so with 7, 30⅓ days; with 5, 21⅔). `per_day` is
/// one working day's cost.
pub fn month_of(per_day: Decimal, working_days_per_week: u64) -> Decimal {
    (per_day * Decimal::from(working_days_per_week) * Decimal::from(52) / Decimal::from(12))
        .normalize()
}

/// The periods of a simulation under `plan`.
pub fn periods(sim: &Simulation, plan: &Plan) -> Periods {
    let runs = Decimal::from(sim.assumptions.runs_a_day());
    let growth = Decimal::ONE + plan.monthly_growth;
    let variants = sim
        .variants
        .iter()
        .map(|v| {
            let run = v.cost.total;
            let day = run * runs;
            let week = day * Decimal::from(plan.working_days_per_week);
            let month = day.map(|d| month_of(d, plan.working_days_per_week));
            let mut factor = Decimal::ONE;
            let mut total = Bounds::default();
            let mut cumulative = Vec::with_capacity(MONTHS);
            for _ in 0..MONTHS {
                total = total + month * factor;
                cumulative.push(total.map(|d| d.normalize()));
                factor *= growth;
            }
            let over_budget_from_month = plan.budget_per_month.and_then(|b| {
                (1..=MONTHS as u64)
                    .zip(&cumulative)
                    .find(|(m, c)| c.upper > b * Decimal::from(*m))
                    .map(|(m, _)| m)
            });
            VariantPeriods {
                name: v.variant.variant.name.clone(),
                run,
                day: day.map(|d| d.normalize()),
                week: week.map(|d| d.normalize()),
                month,
                year: total.map(|d| d.normalize()),
                cumulative,
                over_budget_from_month,
            }
        })
        .collect();
    let budget_cumulative = plan
        .budget_per_month
        .map(|b| (1..=12u32).map(|m| b * Decimal::from(m)).collect())
        .unwrap_or_default();
    Periods {
        plan: plan.clone(),
        runs_per_day: sim.assumptions.runs_a_day(),
        variants,
        budget_cumulative,
    }
}
