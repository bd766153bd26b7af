//! `tokencast sweep`: vary one assumption, or two as a grid, and replay the
//! scenario at every point with the engine.

use crate::engine::{simulate, Bounds, SimulateOptions};
use crate::error::{closest, InputError};
use crate::scenario::{Cache, Scenario, Timing};
use rust_decimal::Decimal;
use serde::Serialize;
use std::str::FromStr;

/// Most tool calls a swept or forecast run may have.
pub const MAX_CALLS: u64 = 10_000_000;

/// Default limit on the number of points (the user can raise it with `--max-points`).
pub const DEFAULT_MAX_POINTS: usize = 1_000;

/// What can be varied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

const PARAMS: [(&str, Param); 10] = [
    ("prefix_tokens", Param::PrefixTokens),
    ("output_tokens_per_step", Param::OutputTokensPerStep),
    ("final_output_tokens", Param::FinalOutputTokens),
    ("runs_per_day", Param::RunsPerDay),
    ("calls", Param::Calls),
    ("trim_ratio", Param::TrimRatio),
    ("bytes_per_token", Param::BytesPerToken),
    ("tokenizer_uplift", Param::TokenizerUplift),
    ("model_seconds_per_step", Param::ModelSecondsPerStep),
    ("cache", Param::Cache),
];

impl Param {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        PARAMS
            .iter()
            .find(|(_, p)| *p == self)
            .map_or("?", |(n, _)| n)
    }

    fn integer(self) -> bool {
        matches!(
            self,
            Param::PrefixTokens
                | Param::OutputTokensPerStep
                | Param::FinalOutputTokens
                | Param::RunsPerDay
                | Param::Calls
        )
    }
}

/// One varied axis: the parameter and its values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Axis {
    /// The parameter.
    pub param: Param,
    /// Its values, as written (`5m`) or as exact decimals.
    pub values: Vec<String>,
}

fn arg_error(spec: &str, problem: impl Into<String>, help: impl std::fmt::Display) -> InputError {
    InputError::new(format!("--vary {spec}: {}", problem.into())).with_help(help)
}

/// Parses `NAME=FROM..TO:STEP` or `cache=none,5m,1h`.
pub fn parse_axis(spec: &str, max_points: usize) -> Result<Axis, InputError> {
    let Some((name, range)) = spec.split_once('=') else {
        return Err(arg_error(
            spec,
            "expected NAME=FROM..TO:STEP",
            "for example --vary output_tokens_per_step=500..4000:500",
        ));
    };
    let name = name.trim();
    let param = PARAMS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| *p)
        .ok_or_else(|| {
            let names: Vec<&str> = PARAMS.iter().map(|(n, _)| *n).collect();
            let help = match closest(name, names.iter().copied()) {
                Some(best) => format!("did you mean `{best}`? Parameters: {}", names.join(", ")),
                None => format!("parameters: {}", names.join(", ")),
            };
            arg_error(spec, format!("unknown parameter `{name}`"), help)
        })?;
    let range = range.trim();
    if range.is_empty() {
        return Err(arg_error(
            spec,
            "the range is empty",
            "give FROM..TO:STEP, e.g. 0..600:30",
        ));
    }
    if param == Param::Cache {
        let values: Vec<String> = range.split(',').map(|v| v.trim().to_string()).collect();
        for v in &values {
            if !["none", "5m", "1h"].contains(&v.as_str()) {
                return Err(arg_error(
                    spec,
                    format!("unknown cache tier `{v}`"),
                    "cache tiers: none, 5m, 1h (comma-separated)",
                ));
            }
        }
        return Ok(Axis { param, values });
    }
    let bad = || {
        arg_error(
            spec,
            "expected FROM..TO:STEP",
            "for example 500..4000:500 (the step is required)",
        )
    };
    let (bounds, step) = range.split_once(':').ok_or_else(bad)?;
    let (from, to) = bounds.split_once("..").ok_or_else(bad)?;
    let num = |s: &str| {
        Decimal::from_str(s.trim()).map_err(|_| {
            arg_error(
                spec,
                format!("`{}` is not a number", s.trim()),
                "write plain numbers such as 500 or 0.25",
            )
        })
    };
    let (from, to, step) = (num(from)?, num(to)?, num(step)?);
    if step <= Decimal::ZERO {
        return Err(arg_error(
            spec,
            "the step must be greater than zero",
            "for example 0..600:30",
        ));
    }
    if to < from {
        return Err(arg_error(
            spec,
            format!("the range is reversed ({from} > {to})"),
            format!("write {to}..{from}:{step}"),
        ));
    }
    if param.integer()
        && (from.fract() != Decimal::ZERO || step.fract() != Decimal::ZERO || from < Decimal::ZERO)
    {
        return Err(arg_error(
            spec,
            format!("`{}` takes whole numbers", param.name()),
            "for example 0..4000:500",
        ));
    }
    let count = ((to - from) / step).floor() + Decimal::ONE;
    if count > Decimal::from(max_points) {
        return Err(arg_error(
            spec,
            format!("{count} points is more than the limit of {max_points}"),
            "use a larger step, or raise the limit with --max-points",
        ));
    }
    let mut values = Vec::new();
    let mut v = from;
    while v <= to {
        check_value(param, v).map_err(|p| arg_error(spec, p, "choose a range of valid values"))?;
        values.push(v.normalize().to_string());
        v += step;
    }
    Ok(Axis { param, values })
}

fn check_value(param: Param, v: Decimal) -> Result<(), String> {
    match param {
        Param::BytesPerToken | Param::TokenizerUplift if v <= Decimal::ZERO => {
            Err(format!("{} must be above zero, not {v}", param.name()))
        }
        Param::TrimRatio if v < Decimal::ZERO || v > Decimal::ONE => {
            Err(format!("trim_ratio is a share between 0 and 1, not {v}"))
        }
        Param::Calls if v.is_zero() => Err("calls must be at least 1".into()),
        Param::Calls if v > Decimal::from(MAX_CALLS) => {
            Err(format!("calls is at most {MAX_CALLS}"))
        }
        Param::PrefixTokens | Param::OutputTokensPerStep | Param::FinalOutputTokens
            if v > Decimal::from(crate::scenario::MAX_TOKENS) =>
        {
            Err(format!(
                "{} is at most {} tokens",
                param.name(),
                crate::scenario::MAX_TOKENS
            ))
        }
        Param::BytesPerToken | Param::TokenizerUplift
            if v.scale() > 6 || v > Decimal::from(1000) =>
        {
            Err(format!(
                "{} takes at most six decimals and at most 1000",
                param.name()
            ))
        }
        _ => Ok(()),
    }
}

fn apply(s: &mut Scenario, param: Param, value: &str) {
    let d = Decimal::from_str(value).unwrap_or_default();
    let int = || u64::try_from(d.trunc().mantissa()).unwrap_or(0);
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
                    let t = (Decimal::from(raw) * d).round();
                    c.trimmed_bytes = Some(u64::try_from(t.mantissa()).unwrap_or(0));
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
            let n = int() as usize;
            s.trace = (0..n)
                .map(|i| {
                    let mut c = results[i % results.len()].clone();
                    c.row = i + 1;
                    c.call = Some(i as u32 + 1);
                    c
                })
                .collect();
        }
        Param::ModelSecondsPerStep => {
            let ms = u64::try_from((d * Decimal::from(1000)).round().mantissa()).unwrap_or(0);
            let pauses = s
                .timing
                .as_ref()
                .map(|t| t.pauses.clone())
                .unwrap_or_default();
            s.timing = Some(Timing {
                model_ms_per_step: ms,
                pauses,
            });
        }
        Param::Cache => {
            let cache = match value {
                "5m" => Cache::FiveMinutes,
                "1h" => Cache::OneHour,
                _ => Cache::None,
            };
            for v in &mut s.variants {
                v.variant.cache = cache;
            }
        }
    }
}

/// One point of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// One value per axis.
    pub values: Vec<String>,
    /// Total cost of one run per variant (scenario order).
    pub totals: Vec<Bounds>,
}

/// A whole sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sweep {
    /// Scenario name.
    pub scenario: String,
    /// The axes (one or two).
    pub axes: Vec<Axis>,
    /// Variant names, in the order of `totals`.
    pub variants: Vec<String>,
    /// Every point, the first axis varying slowest.
    pub points: Vec<Point>,
}

/// Replays `s` at every point of the grid.
pub fn run(s: &Scenario, axes: &[Axis]) -> Result<Sweep, InputError> {
    if axes.iter().any(|a| a.param == Param::Cache) {
        for pv in &s.variants {
            for tier in [Cache::FiveMinutes, Cache::OneHour] {
                if s.prices.rates(tier, pv.variant.mode).is_err() {
                    return Err(InputError::new(format!(
                        "--vary cache: `{}` has no {tier} prices for mode {:?}",
                        s.prices.model, pv.variant.mode
                    ))
                    .with_help("add the cache prices to the price book"));
                }
            }
        }
    }
    let mut grid: Vec<Vec<String>> = vec![Vec::new()];
    for a in axes {
        grid = grid
            .into_iter()
            .flat_map(|prefix| {
                a.values.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(v.clone());
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
                apply(&mut changed, a.param, v);
            }
            // Re-resolve rates: a cache sweep changes the tier.
            for pv in &mut changed.variants {
                if let Ok(r) = changed.prices.rates(pv.variant.cache, pv.variant.mode) {
                    pv.rates = r;
                }
            }
            let sim = simulate(&changed, SimulateOptions { detail: false });
            Point {
                values,
                totals: sim.variants.iter().map(|v| v.cost.total).collect(),
            }
        })
        .collect();
    Ok(Sweep {
        scenario: s.name.clone(),
        axes: axes.to_vec(),
        variants: s.variants.iter().map(|v| v.variant.name.clone()).collect(),
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_range() {
        let a = parse_axis("output_tokens_per_step=500..2000:500", 100).unwrap();
        assert_eq!(a.values, ["500", "1000", "1500", "2000"]);
    }

    #[test]
    fn suggests_the_nearest_parameter() {
        let e = parse_axis("output_tokens_per_stp=1..2:1", 100).unwrap_err();
        assert!(e
            .help_text()
            .unwrap()
            .contains("did you mean `output_tokens_per_step`?"));
    }

    #[test]
    fn rejects_zero_step_reversed_and_too_many_points() {
        assert!(parse_axis("runs_per_day=1..10:0", 100)
            .unwrap_err()
            .message()
            .contains("step"));
        assert!(parse_axis("runs_per_day=10..1:1", 100)
            .unwrap_err()
            .message()
            .contains("reversed"));
        let e = parse_axis("runs_per_day=1..1000:1", 100).unwrap_err();
        assert!(
            e.message()
                .contains("1000 points is more than the limit of 100"),
            "{}",
            e.message()
        );
        assert!(e.help_text().unwrap().contains("--max-points"));
        assert!(parse_axis("runs_per_day=", 100)
            .unwrap_err()
            .message()
            .contains("empty"));
    }

    #[test]
    fn one_point_when_from_equals_to() {
        assert_eq!(
            parse_axis("trim_ratio=0.5..0.5:0.1", 10).unwrap().values,
            ["0.5"]
        );
    }
}
