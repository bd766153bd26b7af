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
/// exact decimals ([`crate::limits::replay_fits`]) is an error naming it
/// (the first such point of the grid).
///
/// Points that differ only in runs per day share one replay (a day costs
/// the run's total times the runs, as `simulate` computes it), and the
/// replays run in parallel; every changed copy of the scenario shares its
/// trace.
pub fn run(s: &Scenario, axes: &[Axis]) -> Result<Sweep, String> {
    let figure = if axes.iter().any(|a| a.param == Param::RunsPerDay) {
        Figure::PerDay
    } else {
        Figure::PerRun
    };
    let grid = grid_of(axes);
    let groups = same_replay(axes, &grid);
    let done: Vec<GroupResult> = crate::par::map(groups, |indices| {
        let mut sim: Option<crate::engine::Simulation> = None;
        let mut out = Vec::with_capacity(indices.len());
        for i in indices {
            let values = grid[i].clone();
            let changed = changed(s, axes, &values).map_err(|e| (i, e))?;
            let sim = sim.get_or_insert_with(|| simulate(&changed, SimulateOptions::TOTALS));
            let runs = rust_decimal::Decimal::from(changed.assumptions().runs_a_day());
            let totals = sim
                .variants
                .iter()
                .map(|v| match figure {
                    Figure::PerRun => v.cost.total,
                    Figure::PerDay => v.cost.total * runs,
                })
                .collect();
            out.push((i, Point { values, totals }));
        }
        Ok(out)
    });
    let mut points: Vec<Option<Point>> = vec![None; grid.len()];
    let mut first_error: Option<(usize, String)> = None;
    for d in done {
        match d {
            Ok(ps) => {
                for (i, p) in ps {
                    points[i] = Some(p);
                }
            }
            Err((i, e)) => {
                if first_error.as_ref().is_none_or(|(j, _)| i < *j) {
                    first_error = Some((i, e));
                }
            }
        }
    }
    if let Some((_, e)) = first_error {
        return Err(e);
    }
    let points: Vec<Point> = points.into_iter().flatten().collect();
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

/// A group's points by their place in the grid, or the first error and its place.
type GroupResult = Result<Vec<(usize, Point)>, (usize, String)>;

/// Every point of the grid: the first axis outermost.
fn grid_of(axes: &[Axis]) -> Vec<Vec<Value>> {
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
    grid
}

/// The grid's points grouped by what their replay depends on (every value
/// but runs per day), each group in grid order, groups in order of their
/// first point.
fn same_replay(axes: &[Axis], grid: &[Vec<Value>]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_key: std::collections::HashMap<Vec<Value>, usize> = std::collections::HashMap::new();
    for (i, values) in grid.iter().enumerate() {
        let key: Vec<Value> = axes
            .iter()
            .zip(values)
            .filter(|(a, _)| a.param != Param::RunsPerDay)
            .map(|(_, v)| *v)
            .collect();
        let g = *by_key.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    groups
}

/// `s` with each axis at its value, checked again; an error names the point.
fn changed(s: &Scenario, axes: &[Axis], values: &[Value]) -> Result<Scenario, String> {
    let at = || {
        let at: Vec<String> = axes
            .iter()
            .zip(values)
            .map(|(a, v)| format!("{} = {v}", a.param.name()))
            .collect();
        at.join(", ")
    };
    let mut out: Option<Scenario> = None;
    for (a, v) in axes.iter().zip(values) {
        let next = out.as_ref().unwrap_or(s).with(a.param, *v);
        out = Some(next.map_err(|p| format!("at {}: {p}", at()))?);
    }
    Ok(out.unwrap_or_else(|| s.clone()))
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

    fn number(v: i64) -> Value {
        Value::Number(Decimal::from(v))
    }

    #[test]
    fn points_that_differ_in_runs_per_day_share_a_replay_and_equal_simulate() {
        let s = crate::engine::tests::scenario(&[(40, 4), (80, 8)], vec![]);
        let axes = [
            Axis {
                param: Param::OutputTokensPerStep,
                values: vec![number(10), number(20)],
            },
            Axis {
                param: Param::RunsPerDay,
                values: vec![number(1), number(7)],
            },
        ];
        assert_eq!(
            same_replay(&axes, &grid_of(&axes)),
            [vec![0, 1], vec![2, 3]]
        );
        let sweep = run(&s, &axes).unwrap();
        assert_eq!(sweep.figure, Figure::PerDay);
        assert_eq!(sweep.points.len(), 4);
        for p in &sweep.points {
            // Each point as `simulate` computes it on its own copy.
            let one = s
                .with(Param::OutputTokensPerStep, p.values[0])
                .and_then(|x| x.with(Param::RunsPerDay, p.values[1]))
                .unwrap();
            let sim = simulate(&one, SimulateOptions::TOTALS);
            let expected: Vec<_> = sim.variants.iter().map(|v| v.per_day.total).collect();
            assert_eq!(p.totals, expected, "at {:?}", p.values);
        }
        // A day of 7 runs costs 7 runs.
        assert_eq!(
            sweep.points[1].totals[0].lower,
            sweep.points[0].totals[0].lower * Decimal::from(7)
        );
    }

    #[test]
    fn the_first_bad_point_of_the_grid_is_named() {
        let s = crate::engine::tests::scenario(&[(40, 4)], vec![]);
        let axes = [
            Axis {
                param: Param::OutputTokensPerStep,
                values: vec![number(10), number(-1), number(-2)],
            },
            Axis {
                param: Param::RunsPerDay,
                values: vec![number(1), number(2)],
            },
        ];
        let e = run(&s, &axes).unwrap_err();
        assert!(
            e.starts_with("at output_tokens_per_step = -1, runs_per_day = 1:"),
            "{e}"
        );
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
