//! The `simulate` document: the engine's replay, the what-ifs the scenario
//! asks for, and the comparison of the variants.

use crate::analysis::{what_if, WhatIf};
use crate::engine::{simulate, Rows, SimulateOptions, Simulation};
use crate::scenario::Scenario;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Cheapest against dearest variant, by the lower-bound total of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The cheapest variant.
    pub cheapest: String,
    /// Its total for one run, lower bound.
    pub cheapest_total: Decimal,
    /// The most expensive variant.
    pub dearest: String,
    /// Its total for one run, lower bound.
    pub dearest_total: Decimal,
    /// Dearest minus cheapest, one run.
    pub saving: Decimal,
    /// The saving as a share (0–1) of the dearest total.
    pub saving_share: Decimal,
    /// The saving over `runs_per_day` runs.
    pub saving_per_day: Decimal,
}

impl Comparison {
    /// The comparison of a simulation's variants; none with fewer than two.
    pub fn of(sim: &Simulation) -> Option<Comparison> {
        if sim.variants.len() < 2 {
            return None;
        }
        let (lo, hi) = sim.cheapest_and_dearest();
        let (c, d) = (&sim.variants[lo], &sim.variants[hi]);
        let saving = d.cost.total.lower - c.cost.total.lower;
        Some(Comparison {
            cheapest: c.variant.variant.name.clone(),
            cheapest_total: c.cost.total.lower,
            dearest: d.variant.variant.name.clone(),
            dearest_total: d.cost.total.lower,
            saving,
            saving_share: if d.cost.total.lower.is_zero() {
                Decimal::ZERO
            } else {
                saving / d.cost.total.lower
            },
            saving_per_day: d.per_day.total.lower - c.per_day.total.lower,
        })
    }
}

/// What `simulate` produced: the single source of its table, CSV, JSON and HTML.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SimulationDoc {
    /// Cheapest against dearest variant: the answer, first in the JSON.
    #[serde(default)]
    pub comparison: Option<Comparison>,
    /// The replay.
    #[serde(flatten)]
    pub simulation: Simulation,
    /// The same run on other models (`simulate --models`), cheapest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models: Option<crate::analysis::models::ModelRanking>,
    /// The what-if analyses, when they were run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub what_if: Option<WhatIf>,
    /// Per run, day, week, month and year, with the plan's growth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub periods: Option<crate::analysis::periods::Periods>,
    /// Recorded against simulated, when the trace records usage (imported sessions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backtest: Option<crate::analysis::backtest::Backtest>,
    /// Each variant at the calibration's central bytes per token, when the
    /// scenario has one (imported sessions): the estimate inside the band.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
}

pub use crate::engine::{ALL_ROWS_UP_TO, OUTLINE_POINTS};

/// How much a simulation document holds.
#[derive(Debug, Clone, Copy)]
pub struct Contents {
    /// Per-request rows, attribution and the trace.
    pub rows: Rows,
    /// The scenario's what-if analyses.
    pub what_ifs: bool,
}

impl Contents {
    /// Everything, as `simulate` shows it.
    pub const FULL: Contents = Contents {
        rows: Rows::All,
        what_ifs: true,
    };
    /// The totals only, as `diff` compares them.
    pub const FIGURES: Contents = Contents {
        rows: Rows::None,
        what_ifs: false,
    };

    /// What `simulate` holds: every row for runs of up to [`ALL_ROWS_UP_TO`]
    /// results or when `all_rows` is asked for (a CSV export, `--all-rows`),
    /// else an outline of [`OUTLINE_POINTS`] requests, so a long run's
    /// document stays proportional to the trace and its page small.
    pub fn simulate(scenario: &Scenario, all_rows: bool) -> Contents {
        let results = scenario.results();
        Contents {
            rows: if all_rows || results <= ALL_ROWS_UP_TO as u64 {
                Rows::All
            } else {
                Rows::Outline(OUTLINE_POINTS)
            },
            what_ifs: true,
        }
    }
}

/// The replay at a calibration's central bytes per token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The central bytes per token (`estimate_bytes_per_token`).
    pub bytes_per_token: Decimal,
    /// Per variant, in the document's order: its name and total of one run.
    pub variants: Vec<EstimatedVariant>,
}

/// One variant's central estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EstimatedVariant {
    /// The variant.
    pub name: String,
    /// Cost of one run at the central bytes per token.
    pub total: Decimal,
}

impl Estimate {
    /// The scenario replayed at its central bytes per token (no uplift),
    /// when it has one.
    pub fn of(scenario: &Scenario) -> Option<Estimate> {
        let central = scenario.central()?;
        let b = central.assumptions().bytes_per_token;
        let sim = simulate(&central, SimulateOptions::TOTALS);
        Some(Estimate {
            bytes_per_token: b,
            variants: sim
                .variants
                .iter()
                .map(|v| EstimatedVariant {
                    name: v.variant.variant.name.clone(),
                    total: v.cost.total.upper,
                })
                .collect(),
        })
    }
}

impl SimulationDoc {
    /// Warnings for stderr: a final request (upper bound) larger than the
    /// model's context window, naming the requests that exceed it.
    pub fn context_warnings(&self) -> Vec<String> {
        let sim = &self.simulation;
        let Some(window) = sim.prices.context_window_tokens else {
            return Vec::new();
        };
        let window_d = Decimal::from(window);
        sim.context
            .iter()
            .filter(|p| sim.variants.iter().any(|v| v.variant.variant.results == p.results))
            .filter(|p| p.final_request_input.upper > window_d)
            .map(|p| {
                let first = p
                    .first_over_window
                    .map_or(String::new(), |k| format!("; requests {k} to {} exceed it", p.requests));
                format!(
                    "warning: with {} results the final request needs {} tokens (upper bound), more than {}'s context window of {window}{first}",
                    p.results,
                    p.final_request_input.upper.round(),
                    sim.prices.model
                )
            })
            .collect()
    }

    /// Replays `scenario` and runs what `contents` asks for.
    pub fn build(scenario: &Scenario, contents: Contents) -> SimulationDoc {
        let simulation = simulate(
            scenario,
            SimulateOptions {
                rows: contents.rows,
            },
        );
        let what_if = contents.what_ifs.then(|| what_if(scenario, &simulation));
        let backtest = crate::analysis::backtest::backtest(scenario, &simulation, &|m| {
            scenario.recorded_prices().get(m).cloned()
        });
        let periods = Some(crate::analysis::periods::periods(
            &simulation,
            &scenario.what_if().plan,
        ));
        SimulationDoc {
            models: None,
            estimate: Estimate::of(scenario),
            comparison: Comparison::of(&simulation),
            periods,
            simulation,
            what_if,
            backtest,
        }
    }
}
