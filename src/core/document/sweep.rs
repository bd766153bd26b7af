//! The `sweep` document: one assumption varied, or two as a grid, and the
//! total of every variant at each point (built by
//! [`crate::analysis::sweep::run`]).

use crate::engine::Bounds;
use crate::scenario::change::{Param, Value};
use crate::scenario::InputFile;
use serde::{Deserialize, Serialize};

/// One varied axis: the parameter and its checked values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    /// The parameter.
    pub param: Param,
    /// Its values, in order.
    pub values: Vec<Value>,
}

/// Which total a sweep shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// The total cost of one run.
    PerRun,
    /// The total cost of `runs_per_day` runs (when runs per day is swept:
    /// the cost of one run does not depend on it).
    PerDay,
}

impl Figure {
    /// "one run" or "one day".
    pub fn period(self) -> &'static str {
        match self {
            Figure::PerRun => "one run",
            Figure::PerDay => "one day",
        }
    }

    /// "USD per run" or "USD per day".
    pub fn unit(self) -> &'static str {
        match self {
            Figure::PerRun => "USD per run",
            Figure::PerDay => "USD per day",
        }
    }
}

/// One point of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// One value per axis.
    pub values: Vec<Value>,
    /// Total cost per variant (scenario order): of one run, or of one day
    /// (see [`Sweep::figure`]).
    pub totals: Vec<Bounds>,
}

/// A whole sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// The cheapest and dearest point (first, so the JSON opens with it).
    #[serde(default)]
    pub answer: Option<super::answer::SweepAnswer>,
    /// Scenario name.
    pub scenario: String,
    /// The scenario's input files.
    #[serde(default)]
    pub inputs: Vec<InputFile>,
    /// The axes (one or two).
    pub axes: Vec<Axis>,
    /// Which total the points hold.
    #[serde(default = "per_run")]
    pub figure: Figure,
    /// Variant names, in the order of `totals`.
    pub variants: Vec<String>,
    /// The currency of every total.
    #[serde(default, skip_serializing_if = "crate::pricing::Currency::is_usd")]
    pub currency: crate::pricing::Currency,
    /// The date that chose the prices, when it mattered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_date: Option<crate::scenario::PriceDate>,
    /// Every point, the first axis varying slowest.
    pub points: Vec<Point>,
}

fn per_run() -> Figure {
    Figure::PerRun
}
