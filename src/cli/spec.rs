//! Checked arguments (ripgrep's "high-level arguments"): every flag is
//! validated here, once, into a typed spec. The analysis code receives these
//! specs and never names a flag.

use super::args::{ForecastArgs, MethodArg};
use crate::analysis::forecast::{ForecastSpec, Method, Sampler};
use crate::analysis::sweep::{self, Axis, Param, Value, MAX_CALLS};
use crate::error::{did_you_mean, InputError};
use crate::pricing::Cache;
use crate::scenario::Scenario;
use rust_decimal::Decimal;
use std::str::FromStr;

fn vary_error(spec: &str, problem: impl Into<String>, help: impl std::fmt::Display) -> InputError {
    InputError::new(format!("--vary {spec}: {}", problem.into())).with_help(help)
}

/// Parses one `--vary NAME=FROM..TO:STEP` (or `cache=none,5m,1h`) into a typed axis.
pub fn parse_axis(spec: &str, max_points: usize) -> Result<Axis, InputError> {
    let Some((name, range)) = spec.split_once('=') else {
        return Err(vary_error(
            spec,
            "expected NAME=FROM..TO:STEP",
            "for example --vary output_tokens_per_step=500..4000:500",
        ));
    };
    let name = name.trim();
    let param = Param::from_name(name).ok_or_else(|| {
        vary_error(
            spec,
            format!("unknown parameter `{name}`"),
            did_you_mean(name, Param::ALL.map(Param::name), "Parameters"),
        )
    })?;
    let range = range.trim();
    if range.is_empty() {
        return Err(vary_error(
            spec,
            "the range is empty",
            "give FROM..TO:STEP, e.g. 0..600:30",
        ));
    }
    if param == Param::Cache {
        return range
            .split(',')
            .map(|v| {
                Cache::from_key(v.trim()).map(Value::Cache).ok_or_else(|| {
                    vary_error(
                        spec,
                        format!("`{}` is not a cache tier", v.trim()),
                        "cache tiers: none, 5m, 1h (comma-separated)",
                    )
                })
            })
            .collect::<Result<_, _>>()
            .map(|values| Axis { param, values });
    }
    let values = numeric_range(spec, param, range, max_points)?;
    Ok(Axis { param, values })
}

/// `FROM..TO:STEP` as checked values of `param`.
fn numeric_range(
    spec: &str,
    param: Param,
    range: &str,
    max_points: usize,
) -> Result<Vec<Value>, InputError> {
    let bad = || {
        vary_error(
            spec,
            "expected FROM..TO:STEP",
            "for example 500..4000:500 (the step is required)",
        )
    };
    let (bounds, step) = range.split_once(':').ok_or_else(bad)?;
    let (from, to) = bounds.split_once("..").ok_or_else(bad)?;
    let num = |s: &str| {
        Decimal::from_str(s.trim()).map_err(|_| {
            vary_error(
                spec,
                format!("`{}` is not a number", s.trim()),
                "write plain numbers such as 500 or 0.25",
            )
        })
    };
    let (from, to, step) = (num(from)?, num(to)?, num(step)?);
    if step <= Decimal::ZERO {
        return Err(vary_error(
            spec,
            "the step must be greater than zero",
            "for example 0..600:30",
        ));
    }
    if to < from {
        return Err(vary_error(
            spec,
            format!("the range is reversed ({from} > {to})"),
            format!("write {to}..{from}:{step}"),
        ));
    }
    if param.integer()
        && (from.fract() != Decimal::ZERO || step.fract() != Decimal::ZERO || from < Decimal::ZERO)
    {
        return Err(vary_error(
            spec,
            format!("`{}` takes whole numbers", param.name()),
            "for example 0..4000:500",
        ));
    }
    let span = to.checked_sub(from).and_then(|d| d.checked_div(step));
    let count = span
        .and_then(|c| c.floor().checked_add(Decimal::ONE))
        .and_then(crate::input::whole)
        .filter(|c| *c <= max_points as u64);
    let Some(count) = count else {
        let shown = span
            .and_then(|c| c.floor().checked_add(Decimal::ONE))
            .map_or("too many".to_string(), |c| c.to_string());
        return Err(vary_error(
            spec,
            format!("{shown} points is more than the limit of {max_points}"),
            "use a larger step, or raise the limit with --max-points",
        ));
    };
    let mut values = Vec::with_capacity(count as usize);
    let mut v = from;
    for _ in 0..count {
        param
            .check(v)
            .map_err(|p| vary_error(spec, p, "choose a range of valid values"))?;
        values.push(Value::Number(v.normalize()));
        match v.checked_add(step) {
            Some(next) => v = next,
            None => break,
        }
    }
    Ok(values)
}

/// The checked axes of a sweep.
#[derive(Debug, Clone)]
pub struct SweepSpec {
    /// One or two axes.
    pub axes: Vec<Axis>,
}

impl SweepSpec {
    /// Parses every `--vary` and checks the grid's size.
    pub fn check(vary: &[String], max_points: usize) -> Result<SweepSpec, InputError> {
        use crate::limits::MAX_SWEEP_POINTS;
        if max_points > MAX_SWEEP_POINTS {
            return Err(InputError::new(format!(
                "--max-points {max_points} is more than tokencast sweeps: at most {MAX_SWEEP_POINTS} points"
            ))
            .with_help(format!(
                "give --max-points {MAX_SWEEP_POINTS} or less, and larger steps"
            )));
        }
        if vary.len() > 2 {
            return Err(InputError::new("--vary is given more than twice")
                .with_help("vary one assumption, or two as a grid"));
        }
        let axes = vary
            .iter()
            .map(|v| parse_axis(v, max_points))
            .collect::<Result<Vec<_>, _>>()?;
        let total = axes
            .iter()
            .try_fold(1usize, |n, a| n.checked_mul(a.values.len()));
        if total.is_none_or(|t| t > max_points) {
            return Err(InputError::new(format!(
                "the grid has {} points, more than the limit of {max_points}",
                total.map_or("too many".to_string(), |t| t.to_string())
            ))
            .with_help("use larger steps, or raise the limit with --max-points"));
        }
        Ok(SweepSpec { axes })
    }

    /// Checks the axes against the scenario: the work the grid asks for
    /// ([`crate::limits::MAX_SWEEP_STEPS`]), and a cache axis needs every
    /// cache price.
    pub fn check_against(&self, s: &Scenario) -> Result<(), InputError> {
        use crate::limits::MAX_SWEEP_STEPS;
        use rust_decimal::prelude::ToPrimitive;
        // Points that differ only in runs per day share one replay.
        let replays = self
            .axes
            .iter()
            .filter(|a| a.param != Param::RunsPerDay)
            .fold(1u64, |n, a| n.saturating_mul(a.values.len() as u64));
        // A calls axis sets a point's results; else the trace's.
        let calls = self
            .axes
            .iter()
            .filter(|a| a.param == Param::Calls)
            .flat_map(|a| &a.values)
            .filter_map(|v| match v {
                Value::Number(n) => n.to_u64(),
                Value::Cache(_) => None,
            })
            .max()
            .unwrap_or(s.trace().len() as u64);
        let steps = replays
            .saturating_mul(s.variants().len() as u64)
            .saturating_mul(calls.saturating_add(1));
        if steps > MAX_SWEEP_STEPS {
            return Err(InputError::new(format!(
                "the sweep would replay {steps} steps ({replays} replays × {} variants × {} steps a run), more than the limit of {MAX_SWEEP_STEPS}",
                s.variants().len(),
                calls.saturating_add(1)
            ))
            .with_help("use fewer points (larger steps), or fewer calls"));
        }
        if !self.axes.iter().any(|a| a.param == Param::Cache) {
            return Ok(());
        }
        match sweep::missing_cache_prices(s) {
            None => Ok(()),
            Some((model, tier, mode)) => Err(InputError::new(format!(
                "--vary cache: `{model}` has no {tier} prices for mode {}",
                mode.key()
            ))
            .with_help("add the cache prices to the price book")),
        }
    }
}

pub use crate::limits::MAX_RUNS;

pub use crate::limits::MAX_DRAWS;

/// The forecast's runs, calls, seed, method and budget, checked.
pub fn forecast_spec(args: &ForecastArgs) -> Result<ForecastSpec, InputError> {
    if args.runs == 0 {
        return Err(InputError::new("--runs is 0")
            .with_help("simulate at least one run, e.g. --runs 10000"));
    }
    let calls = args.calls.ok_or_else(|| {
        InputError::new("--calls is missing").with_help(
            "give the tool results per run to forecast one scenario, e.g. --calls 20 (several scenarios or a directory forecast whole sessions instead)",
        )
    })?;
    if calls == 0 {
        return Err(InputError::new("--calls is 0")
            .with_help("a run needs at least one tool call, e.g. --calls 20"));
    }
    if calls > MAX_CALLS {
        return Err(
            InputError::new(format!("--calls {calls} is more than {MAX_CALLS}"))
                .with_help("forecast runs of at most ten million tool calls"),
        );
    }
    if args.runs > MAX_RUNS {
        return Err(
            InputError::new(format!("--runs {} is more than {MAX_RUNS}", args.runs)).with_help(
                "percentiles settle long before that: 100,000 runs give a p99 within a fraction of a percent",
            ),
        );
    }
    if args.runs.saturating_mul(calls) > MAX_DRAWS {
        return Err(InputError::new(format!(
            "--runs {} × --calls {calls} is {} tool results to draw, more than {MAX_DRAWS}",
            args.runs,
            args.runs.saturating_mul(calls)
        ))
        .with_help("use fewer runs for long runs (about 15 s on two cores at the limit)"));
    }
    if args.threads == Some(0) {
        return Err(InputError::new("--threads is 0").with_help("use at least one thread"));
    }
    let budget = args.budget.as_deref().map(budget).transpose()?;
    Ok(ForecastSpec {
        calls,
        runs: args.runs,
        seed: args.seed,
        method: match args.method {
            None | Some(MethodArg::Bootstrap) => Method::Bootstrap,
            Some(MethodArg::Lognormal) => Method::Lognormal,
        },
        budget,
    })
}

pub use crate::limits::MAX_CORPUS_RUNS_PER_DAY as MAX_RUNS_PER_DAY;

pub use crate::limits::MAX_SESSION_DRAWS;

/// A corpus forecast's days, runs a day, working days and seed, checked; the
/// options that only apply to one scenario are refused.
pub fn corpus_spec(args: &ForecastArgs) -> Result<crate::analysis::corpus::CorpusSpec, InputError> {
    for (given, flag) in [
        (args.calls.is_some(), "--calls"),
        (args.method.is_some(), "--method"),
        (args.budget.is_some(), "--budget"),
        (!args.capabilities.is_empty(), "--capability"),
    ] {
        if given {
            return Err(InputError::new(format!(
                "{flag} applies to one scenario; several scenarios or a directory forecast whole recorded sessions"
            ))
            .with_help(format!("leave out {flag}, or forecast one scenario file")));
        }
    }
    if args.threads == Some(0) {
        return Err(InputError::new("--threads is 0").with_help("use at least one thread"));
    }
    crate::analysis::corpus::CorpusSpec::checked(
        args.runs,
        args.runs_per_day,
        args.working_days,
        args.seed,
    )?
    .with_team(args.team_size)
}

/// Most worker threads per core `--threads` may ask for.
pub const THREADS_PER_CORE: usize = 4;

/// `--threads N`, capped at [`THREADS_PER_CORE`] × the machine's cores (more
/// only slows the forecast down), with a note when capped.
pub fn threads(asked: Option<usize>) -> (Option<usize>, Option<String>) {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let most = cores * THREADS_PER_CORE;
    match asked {
        Some(n) if n > most => (
            Some(most),
            Some(format!(
                "using {most} threads: --threads {n} is more than {THREADS_PER_CORE} per core on this {cores}-core machine"
            )),
        ),
        other => (other, None),
    }
}

/// A date written YYYY-MM-DD, checked.
pub fn date(d: &str) -> Result<String, InputError> {
    if crate::pricing::book::is_date(d) {
        Ok(d.to_string())
    } else {
        Err(InputError::new(format!("--read-on {d}: not a date"))
            .with_help("write the date as YYYY-MM-DD, e.g. 2026-11-30"))
    }
}

/// `--budget USD`: a non-negative amount.
fn budget(b: &str) -> Result<Decimal, InputError> {
    b.trim()
        .parse::<Decimal>()
        .ok()
        .filter(|d| *d >= Decimal::ZERO)
        .ok_or_else(|| {
            InputError::new(format!("--budget {b}: not an amount in USD"))
                .with_help("write a number such as 2.50")
        })
}

/// `--capability NAME`: every name must be recorded in the trace.
pub fn check_capabilities(names: &[String], sampler: &Sampler) -> Result<(), InputError> {
    for n in names {
        if !sampler.capabilities().any(|c| c == n) {
            return Err(InputError::new(format!(
                "--capability {n}: no recorded data for this capability in the trace"
            ))
            .with_help(did_you_mean(n, sampler.capabilities(), "Recorded")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(a: &Axis) -> Vec<String> {
        a.values.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn parses_a_range() {
        let a = parse_axis("output_tokens_per_step=500..2000:500", 100).unwrap();
        assert_eq!(numbers(&a), ["500", "1000", "1500", "2000"]);
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
            numbers(&parse_axis("trim_ratio=0.5..0.5:0.1", 10).unwrap()),
            ["0.5"]
        );
    }

    #[test]
    fn cache_axis_is_typed() {
        let a = parse_axis("cache=none,1h", 10).unwrap();
        assert_eq!(
            a.values,
            [Value::Cache(Cache::None), Value::Cache(Cache::OneHour)]
        );
        let e = parse_axis("cache=10m", 10).unwrap_err();
        assert!(
            e.message().contains("`10m` is not a cache tier"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn huge_ranges_are_errors_not_panics() {
        assert!(parse_axis("trim_ratio=0..79228162514264337593543950335:1", 1000).is_err());
        assert!(parse_axis(
            "tokenizer_uplift=2..18446744073709551615:0.0000000000000000000000000001",
            1000
        )
        .is_err());
    }
}
