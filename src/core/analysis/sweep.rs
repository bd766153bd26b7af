//! `tokencast sweep`: vary one assumption, or two as a grid, and replay the
//! scenario at every point with the engine.
//!
//! The axes arrive checked and typed ([`Axis`]); this module only applies
//! each value to a copy of the scenario and replays it.

pub use crate::document::sweep::{Axis, Figure, Point, Sweep};
use crate::engine::{simulate, SimulateOptions};

pub use crate::limits::MAX_CALLS;
use crate::pricing::{Cache, Mode};
pub use crate::scenario::change::{Param, Value};
use crate::scenario::Scenario;

/// Default limit on the number of points (the user can raise it with `--max-points`).
pub const DEFAULT_MAX_POINTS: usize = 1_000;

/// The first variant whose model lacks a cache tier's prices (its model id,
/// the tier and the mode), if a cache sweep cannot run on this scenario.
pub fn missing_cache_prices(s: &Scenario) -> Option<(String, Cache, Mode)> {
    s.variants().iter().find_map(|pv| {
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

/// What each variant's column shows: its name, or, when the cache tier is
/// swept, its results and mode with the cache left to the axis (the
/// variant's own tier is not what was computed).
fn labels(s: &Scenario, axes: &[Axis]) -> Vec<String> {
    let cache_swept = axes.iter().any(|a| a.param == Param::Cache);
    s.variants()
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

/// Replays `s` at every point of the grid. A cache axis needs
/// [`missing_cache_prices`] to be none. A point whose run would be beyond
/// exact decimals ([`crate::limits::replay_fits`]) is an error naming it.
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
                changed = changed.with(a.param, *v).map_err(|p| {
                    let at: Vec<String> = axes
                        .iter()
                        .zip(&values)
                        .map(|(a, v)| format!("{} = {v}", a.param.name()))
                        .collect();
                    format!("at {}: {p}", at.join(", "))
                })?;
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
    let mut doc = Sweep {
        answer: None,
        scenario: s.name().clone(),
        inputs: s.inputs().clone(),
        axes: axes.to_vec(),
        figure,
        variants: labels(s, axes),
        currency: s.currency().clone(),
        price_date: s.price_date().clone(),
        points,
    };
    doc.answer = crate::document::answer::SweepAnswer::of(&doc);
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits;
    use rust_decimal::Decimal;

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
