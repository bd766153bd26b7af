//! Budget gates: `simulate --fail-over PERIOD=AMOUNT`, `forecast --fail-over
//! STAT=AMOUNT` and `diff --fail-over-change PERCENT`. A crossed gate still
//! prints and writes everything, then ends the command with
//! [`GATE_EXIT_CODE`], so a pipeline can stop a change that makes runs dearer.

use crate::document::{DiffDoc, Forecast, SimulationDoc};
use crate::error::InputError;
use rust_decimal::Decimal;

/// The exit code of a crossed gate (0 success, 1 failure, 2 bad input, 130 Ctrl-C).
pub const GATE_EXIT_CODE: u8 = 3;

/// What a `simulate` gate limits: a variant's total (upper bound) per period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// One run.
    Run,
    /// `runs_per_day` runs.
    Day,
    /// 365 ÷ 12 days.
    Month,
}

/// What a `forecast` gate limits: a statistic of the cost per run, day or
/// month (upper bound). Days and months need a forecast over many sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatOf {
    /// Run, day or month.
    pub period: Period,
    /// Which statistic.
    pub stat: Stat,
}

/// A statistic of a forecast's cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    /// Median.
    P50,
    /// 90th percentile.
    P90,
    /// 99th percentile.
    P99,
    /// Mean.
    Mean,
    /// Largest run.
    Max,
}

/// One gate: what, its name as given, and the limit.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate<K> {
    /// What is limited.
    pub what: K,
    /// As written (`day`, `p99`).
    pub name: String,
    /// The limit, in the scenario's currency.
    pub limit: Decimal,
}

fn amount(flag: &str, given: &str, value: &str) -> Result<Decimal, InputError> {
    value
        .trim()
        .parse::<Decimal>()
        .ok()
        .filter(|d| *d >= Decimal::ZERO)
        .ok_or_else(|| {
            InputError::new(format!("{flag} {given}: `{value}` is not an amount"))
                .with_help(format!("write {flag} NAME=AMOUNT, e.g. {flag} day=50"))
        })
}

fn split<'a>(flag: &str, given: &'a str, names: &str) -> Result<(&'a str, &'a str), InputError> {
    given.split_once('=').ok_or_else(|| {
        InputError::new(format!("{flag} {given}: no `=`"))
            .with_help(format!("write {flag} NAME=AMOUNT with NAME one of {names}"))
    })
}

/// Parses `simulate --fail-over` values.
pub fn periods(given: &[String]) -> Result<Vec<Gate<Period>>, InputError> {
    let names = "run, day, month";
    given
        .iter()
        .map(|g| {
            let (name, value) = split("--fail-over", g, names)?;
            let what = match name.trim() {
                "run" => Period::Run,
                "day" => Period::Day,
                "month" => Period::Month,
                other => {
                    return Err(InputError::new(format!(
                        "--fail-over {g}: `{other}` is not a period"
                    ))
                    .with_help(crate::error::did_you_mean(
                        other,
                        ["run", "day", "month"],
                        "Periods",
                    )))
                }
            };
            Ok(Gate {
                what,
                name: name.trim().to_string(),
                limit: amount("--fail-over", g, value)?,
            })
        })
        .collect()
}

/// Parses `forecast --fail-over` values: `p99=AMOUNT` (per run), or
/// `day.p99=AMOUNT` and `month.p99=AMOUNT` (p50, p90, p99 or mean).
pub fn stats(given: &[String]) -> Result<Vec<Gate<StatOf>>, InputError> {
    let all = ["p50", "p90", "p99", "mean", "max"];
    given
        .iter()
        .map(|g| {
            let (name, value) = split(
                "--fail-over",
                g,
                "p50, p90, p99, mean, max, or day.STAT and month.STAT",
            )?;
            let (period, stat_name) = match name.trim().split_once('.') {
                Some(("day", s)) => (Period::Day, s),
                Some(("month", s)) => (Period::Month, s),
                Some(("run", s)) => (Period::Run, s),
                Some((other, _)) => {
                    return Err(InputError::new(format!(
                        "--fail-over {g}: `{other}` is not a period"
                    ))
                    .with_help(crate::error::did_you_mean(
                        other,
                        ["run", "day", "month"],
                        "Periods",
                    )))
                }
                None => (Period::Run, name.trim()),
            };
            let stat =
                match stat_name {
                    "p50" => Stat::P50,
                    "p90" => Stat::P90,
                    "p99" => Stat::P99,
                    "mean" => Stat::Mean,
                    "max" if period == Period::Run => Stat::Max,
                    "max" => {
                        return Err(InputError::new(format!(
                            "--fail-over {g}: the forecast has no largest day or month"
                        ))
                        .with_help("gate a day or a month on p50, p90, p99 or mean"))
                    }
                    other => {
                        return Err(InputError::new(format!(
                            "--fail-over {g}: `{other}` is not a statistic of the forecast"
                        ))
                        .with_help(crate::error::did_you_mean(other, all, "Statistics")))
                    }
                };
            Ok(Gate {
                what: StatOf { period, stat },
                name: name.trim().to_string(),
                limit: amount("--fail-over", g, value)?,
            })
        })
        .collect()
}

/// Refuses day and month gates on a forecast of one scenario.
pub fn per_run_only(gates: &[Gate<StatOf>]) -> Result<(), InputError> {
    match gates.iter().find(|g| g.what.period != Period::Run) {
        Some(g) => Err(InputError::new(format!(
            "--fail-over {}: days and months need a forecast over many sessions",
            g.name
        ))
        .with_help("gate the cost per run (p99=AMOUNT), or forecast several scenarios or a directory of sessions")),
        None => Ok(()),
    }
}

/// Parses `diff --fail-over-change PERCENT`.
pub fn percent(given: &str) -> Result<Decimal, InputError> {
    given
        .trim()
        .trim_end_matches('%')
        .parse::<Decimal>()
        .ok()
        .filter(|d| *d >= Decimal::ZERO)
        .ok_or_else(|| {
            InputError::new(format!("--fail-over-change {given}: not a percentage"))
                .with_help("write the largest rise allowed in percent, e.g. --fail-over-change 5")
        })
}

fn money(d: Decimal, code: &str) -> String {
    format!("{} {code}", d.round_dp(6).normalize())
}

/// Every crossing of a `simulate` gate, one line each.
pub fn check_simulation(doc: &SimulationDoc, gates: &[Gate<Period>]) -> Vec<String> {
    let sim = &doc.simulation;
    let code = &sim.currency.code;
    let mut out = Vec::new();
    // The month of the periods table (one calendar: the plan's working days).
    let working_days = doc.periods.as_ref().map_or(
        crate::scenario::Plan::default().working_days_per_week,
        |p| p.plan.working_days_per_week,
    );
    for g in gates {
        for v in &sim.variants {
            let total = match g.what {
                Period::Run => v.cost.total.upper,
                Period::Day => v.per_day.total.upper,
                Period::Month => {
                    crate::analysis::periods::month_of(v.per_day.total.upper, working_days)
                }
            };
            if total > g.limit {
                out.push(format!(
                    "budget gate crossed: {} per {} is {} (upper bound), over --fail-over {}={}",
                    v.variant.variant.name,
                    g.name,
                    money(total, code),
                    g.name,
                    g.limit
                ));
            }
        }
    }
    out
}

/// Every crossing of a `forecast` gate.
pub fn check_forecast(f: &Forecast, gates: &[Gate<StatOf>]) -> Vec<String> {
    let code = &f.currency.code;
    let mut out = Vec::new();
    for g in gates {
        for v in &f.variants {
            let q = &v.cost_upper;
            let value = match g.what.stat {
                Stat::P50 => q.p50,
                Stat::P90 => q.p90,
                Stat::P99 => q.p99,
                Stat::Mean => q.mean,
                Stat::Max => q.max,
            };
            if value > g.limit {
                out.push(format!(
                    "budget gate crossed: {} has a {} cost per run of {} (upper bound), over --fail-over {}={}",
                    v.name,
                    g.name,
                    money(value, code),
                    g.name,
                    g.limit
                ));
            }
        }
    }
    out
}

/// Every crossing of a `forecast` gate over many sessions: the per-run
/// statistic of the upper-bound cost (the estimate, not its interval).
pub fn check_corpus(f: &crate::document::CorpusForecast, gates: &[Gate<StatOf>]) -> Vec<String> {
    let code = &f.currency.code;
    let mut out = Vec::new();
    for g in gates {
        for v in &f.variants {
            let (period, word) = match g.what.period {
                Period::Run => (&v.run, "run"),
                Period::Day => (&v.day, "day"),
                Period::Month => (&v.month, "month"),
            };
            let pct = |n: u8| {
                period
                    .percentiles
                    .iter()
                    .find(|p| p.percentile == n)
                    .map_or(Decimal::ZERO, |p| p.upper.value)
            };
            let value = match g.what.stat {
                Stat::P50 => pct(50),
                Stat::P90 => pct(90),
                Stat::P99 => pct(99),
                Stat::Mean => period.mean.upper,
                Stat::Max => v.max.upper,
            };
            if value > g.limit {
                out.push(format!(
                    "budget gate crossed: {} has a {} cost per {word} of {} (upper bound, {} recorded sessions), over --fail-over {}={}",
                    v.name,
                    g.what_stat_name(),
                    money(value, code),
                    f.sessions,
                    g.name,
                    g.limit
                ));
            }
        }
    }
    out
}

impl Gate<StatOf> {
    fn what_stat_name(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }
}

/// The crossing of a `diff` gate: the cheapest total rose by more than `limit` percent.
pub fn check_diff(d: &DiffDoc, limit: Decimal) -> Vec<String> {
    let Some(h) = &d.headline else {
        return Vec::new();
    };
    let rise = match h.delta_share {
        Some(s) => s * Decimal::ONE_HUNDRED,
        None if h.delta > Decimal::ZERO => Decimal::MAX,
        None => Decimal::ZERO,
    };
    if rise > limit {
        vec![format!(
            "budget gate crossed: the cheapest run went from {} ({}) to {} ({}), +{}%, over --fail-over-change {limit}",
            h.a_total.round_dp(6).normalize(),
            h.a_variant,
            h.b_total.round_dp(6).normalize(),
            h.b_variant,
            if rise == Decimal::MAX { "∞".to_string() } else { rise.round_dp(2).normalize().to_string() }
        )]
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_parse_and_refuse() {
        let g = periods(&["day=50".into(), "run=0.5".into()]).unwrap();
        assert_eq!(g[0].what, Period::Day);
        assert_eq!(g[1].limit, "0.5".parse::<Decimal>().unwrap());
        assert!(periods(&["dya=5".into()]).is_err());
        assert!(periods(&["day".into()]).is_err());
        assert!(periods(&["day=-1".into()]).is_err());
        assert_eq!(
            stats(&["p99=2".into()]).unwrap()[0].what,
            StatOf {
                period: Period::Run,
                stat: Stat::P99
            }
        );
        assert_eq!(
            stats(&["month.mean=2".into()]).unwrap()[0].what,
            StatOf {
                period: Period::Month,
                stat: Stat::Mean
            }
        );
        assert!(stats(&["month.max=2".into()]).is_err());
        assert!(stats(&["p95=2".into()]).is_err());
        assert_eq!(percent("5%").unwrap(), Decimal::from(5));
        assert!(percent("five").is_err());
    }
}
