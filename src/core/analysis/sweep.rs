//! `tokencast sweep`: vary one assumption, or two as a grid, and replay the
//! scenario at every point with the engine.
//!
//! The axes arrive checked and typed ([`Axis`]); this module only applies
//! each value to a copy of the scenario and replays it.

use crate::engine::{simulate, Bounds, SimulateOptions};
use crate::input::whole;
use crate::limits;
use crate::pricing::{Cache, Mode};
use crate::scenario::{InputFile, Scenario, Timing};
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Most tool calls a swept or forecast run may have.
pub const MAX_CALLS: u64 = 10_000_000;

/// Default limit on the number of points (the user can raise it with `--max-points`).
pub const DEFAULT_MAX_POINTS: usize = 1_000;

/// What can be varied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Param {
    /// P, tokens.
    PrefixTokens,
    /// o, tokens per step.
    OutputTokensPerStep,
    /// F, tokens.
    FinalOutputTokens,
    /// Runs per day.
    RunsPerDay,
    /// Tool calls entering the context: the trace's results, cut or repeated.
    Calls,
    /// Share of raw bytes kept by trimming (0–1): trimmed = raw × ratio.
    TrimRatio,
    /// b.
    BytesPerToken,
    /// u.
    TokenizerUplift,
    /// Model time per step, seconds (sets the scenario's timing).
    ModelSecondsPerStep,
    /// Cache tier of every variant: none, 5m, 1h.
    Cache,
}

impl Param {
    /// Every parameter, in the order they are listed to users.
    pub const ALL: [Param; 10] = [
        Param::PrefixTokens,
        Param::OutputTokensPerStep,
        Param::FinalOutputTokens,
        Param::RunsPerDay,
        Param::Calls,
        Param::TrimRatio,
        Param::BytesPerToken,
        Param::TokenizerUplift,
        Param::ModelSecondsPerStep,
        Param::Cache,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Param::PrefixTokens => "prefix_tokens",
            Param::OutputTokensPerStep => "output_tokens_per_step",
            Param::FinalOutputTokens => "final_output_tokens",
            Param::RunsPerDay => "runs_per_day",
            Param::Calls => "calls",
            Param::TrimRatio => "trim_ratio",
            Param::BytesPerToken => "bytes_per_token",
            Param::TokenizerUplift => "tokenizer_uplift",
            Param::ModelSecondsPerStep => "model_seconds_per_step",
            Param::Cache => "cache",
        }
    }

    /// The parameter named `name`, if any.
    pub fn from_name(name: &str) -> Option<Param> {
        Param::ALL.into_iter().find(|p| p.name() == name)
    }

    /// True for parameters that take whole numbers.
    pub fn integer(self) -> bool {
        matches!(
            self,
            Param::PrefixTokens
                | Param::OutputTokensPerStep
                | Param::FinalOutputTokens
                | Param::RunsPerDay
                | Param::Calls
        )
    }

    /// Whether `v` is a value this parameter may take; the problem if not.
    pub fn check(self, v: Decimal) -> Result<(), String> {
        let name = self.name();
        match self {
            Param::BytesPerToken | Param::TokenizerUplift => limits::factor(name, v),
            Param::TrimRatio if v < Decimal::ZERO || v > Decimal::ONE => {
                Err(format!("trim_ratio is a share between 0 and 1, not {v}"))
            }
            Param::Calls if v.is_zero() => Err("calls must be at least 1".into()),
            Param::Calls if v > Decimal::from(MAX_CALLS) => {
                Err(format!("calls is at most {MAX_CALLS}"))
            }
            Param::PrefixTokens | Param::OutputTokensPerStep | Param::FinalOutputTokens => {
                limits::tokens(name, whole(v).unwrap_or(u64::MAX))
            }
            Param::RunsPerDay => limits::runs_per_day(whole(v).unwrap_or(u64::MAX)),
            Param::ModelSecondsPerStep if v > Decimal::from(u32::MAX / 1000) => Err(format!(
                "model_seconds_per_step is at most {} s",
                u32::MAX / 1000
            )),
            _ => Ok(()),
        }
    }
}

/// One value of an axis: a number, or a cache tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// A number (whole for integer parameters, checked when parsed).
    Number(Decimal),
    /// A cache tier.
    Cache(Cache),
}

impl Value {
    /// The number as a float, for charts (none for a cache tier).
    pub fn as_f64(self) -> Option<f64> {
        use rust_decimal::prelude::ToPrimitive;
        match self {
            Value::Number(d) => d.to_f64(),
            Value::Cache(_) => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Value::Number(d) => write!(f, "{}", d.normalize()),
            Value::Cache(c) => f.write_str(c.key()),
        }
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        let s = String::deserialize(d)?;
        match Cache::from_key(&s) {
            Some(c) => Ok(Value::Cache(c)),
            None => Decimal::from_str(&s)
                .map(Value::Number)
                .map_err(|_| serde::de::Error::custom(format!("`{s}` is not a sweep value"))),
        }
    }
}

/// One varied axis: the parameter and its checked values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    /// The parameter.
    pub param: Param,
    /// Its values, in order.
    pub values: Vec<Value>,
}

/// The first variant whose model lacks a cache tier's prices (its model id,
/// the tier and the mode), if a cache sweep cannot run on this scenario.
pub fn missing_cache_prices(s: &Scenario) -> Option<(String, Cache, Mode)> {
    s.variants.iter().find_map(|pv| {
        [Cache::FiveMinutes, Cache::OneHour]
            .into_iter()
            .find(|tier| {
                pv.prices
                    .rates_with(*tier, pv.variant.mode, pv.variant.options())
                    .is_err()
            })
            .map(|tier| (pv.model.clone(), tier, pv.variant.mode))
    })
}

fn apply(s: &mut Scenario, param: Param, value: Value) {
    let d = match value {
        Value::Number(d) => d,
        Value::Cache(cache) => {
            for v in &mut s.variants {
                v.variant.cache = cache;
            }
            return;
        }
    };
    let int = || whole(d).unwrap_or(0);
    match param {
        Param::PrefixTokens => s.assumptions.prefix_tokens = int(),
        Param::OutputTokensPerStep => s.assumptions.output_tokens_per_step = int(),
        Param::FinalOutputTokens => s.assumptions.final_output_tokens = int(),
        Param::RunsPerDay => s.assumptions.runs_per_day = int(),
        Param::BytesPerToken => s.assumptions.bytes_per_token = d,
        Param::TokenizerUplift => s.assumptions.tokenizer_uplift = d,
        Param::TrimRatio => {
            for c in &mut s.trace {
                if let Some(raw) = c.raw_bytes {
                    c.trimmed_bytes = whole((Decimal::from(raw) * d).round());
                }
            }
        }
        Param::Calls => {
            let results: Vec<_> = s
                .trace
                .iter()
                .filter(|c| c.enters_context())
                .cloned()
                .collect();
            s.trace = (0..int() as usize)
                .map(|i| {
                    let mut c = results[i % results.len()].clone();
                    c.row = i + 1;
                    c.call = Some(i as u32 + 1);
                    c
                })
                .collect();
        }
        Param::ModelSecondsPerStep => {
            let pauses = s
                .timing
                .as_ref()
                .map(|t| t.pauses.clone())
                .unwrap_or_default();
            s.timing = Some(Timing {
                model_ms_per_step: whole((d * Decimal::from(1000)).round()).unwrap_or(0),
                pauses,
            });
        }
        Param::Cache => {}
    }
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

/// What each variant's column shows: its name, or, when the cache tier is
/// swept, its results and mode with the cache left to the axis (the
/// variant's own tier is not what was computed).
fn labels(s: &Scenario, axes: &[Axis]) -> Vec<String> {
    let cache_swept = axes.iter().any(|a| a.param == Param::Cache);
    s.variants
        .iter()
        .enumerate()
        .map(|(i, pv)| {
            let v = &pv.variant;
            if !cache_swept {
                return v.name.clone();
            }
            let batch = if v.mode == Mode::Batch { ", batch" } else { "" };
            format!("v{}: {}{batch}, swept cache", i + 1, v.results)
        })
        .collect()
}

fn per_run() -> Figure {
    Figure::PerRun
}

/// Replays `s` at every point of the grid. A cache axis needs
/// [`missing_cache_prices`] to be none. A point whose run would be beyond
/// exact decimals ([`limits::replay_fits`]) is an error naming it.
pub fn run(s: &Scenario, axes: &[Axis]) -> Result<Sweep, String> {
    let figure = if axes.iter().any(|a| a.param == Param::RunsPerDay) {
        Figure::PerDay
    } else {
        Figure::PerRun
    };
    let mut grid: Vec<Vec<Value>> = vec![Vec::new()];
    for a in axes {
        grid = grid
            .into_iter()
            .flat_map(|prefix| {
                a.values.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(*v);
                    p
                })
            })
            .collect();
    }
    let points = grid
        .into_iter()
        .map(|values| {
            let mut changed = s.clone();
            for (a, v) in axes.iter().zip(&values) {
                apply(&mut changed, a.param, *v);
            }
            limits::replay_fits(&changed.replay_size()).map_err(|p| {
                let at: Vec<String> = axes
                    .iter()
                    .zip(&values)
                    .map(|(a, v)| format!("{} = {v}", a.param.name()))
                    .collect();
                format!("at {}: {p}", at.join(", "))
            })?;
            // Re-resolve rates: a cache sweep changes the tier.
            for pv in &mut changed.variants {
                // Checked up front by `missing_cache_prices`; a tier the
                // model lacks keeps the variant's own rates.
                let _ = pv.reprice();
            }
            let sim = simulate(&changed, SimulateOptions::TOTALS);
            Ok(Point {
                values,
                totals: sim
                    .variants
                    .iter()
                    .map(|v| match figure {
                        Figure::PerRun => v.cost.total,
                        Figure::PerDay => v.per_day.total,
                    })
                    .collect(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Sweep {
        scenario: s.name.clone(),
        inputs: s.inputs.clone(),
        axes: axes.to_vec(),
        figure,
        variants: labels(s, axes),
        currency: s.currency.clone(),
        price_date: s.price_date.clone(),
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_as_written_and_read_back() {
        for (v, s) in [
            (Value::Number(Decimal::new(500, 0)), "500"),
            (Value::Number(Decimal::new(10, 2)), "0.1"),
            (Value::Cache(Cache::OneHour), "1h"),
        ] {
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(json, format!("\"{s}\""));
            assert_eq!(serde_json::from_str::<Value>(&json).unwrap(), v);
        }
    }

    #[test]
    fn parameter_checks_share_the_scenario_limits() {
        assert!(Param::BytesPerToken.check(Decimal::ZERO).is_err());
        assert!(Param::TokenizerUplift.check(Decimal::from(1001)).is_err());
        assert!(Param::PrefixTokens
            .check(Decimal::from(limits::MAX_TOKENS + 1))
            .is_err());
        assert!(Param::TrimRatio.check(Decimal::new(11, 1)).is_err());
        assert!(Param::Calls.check(Decimal::ZERO).is_err());
    }
}
