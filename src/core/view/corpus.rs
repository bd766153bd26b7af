//! A corpus forecast's page as plain data: its tables, answer, statements
//! and blocks (with a [`ChartSlot`] where the sessions' distribution goes),
//! shared by the command line's outputs and the engine built for a web page.

use super::format::{self, Scale};
use super::page::{view, Block, ChartSlot};
use super::table::{col, Cell, DataTable};
use super::Fmt;
use crate::analysis::corpus::{CorpusVariant, Estimate, PeriodCost};
use crate::document::answer::MonthBudget;
use crate::document::CorpusForecast;

fn interval(fmt: &Fmt, e: &Estimate) -> Cell {
    match (e.low, e.high) {
        (Some(l), Some(h)) => Cell::Text(format!(
            "{} – {}",
            fmt.money(l, Scale::Run),
            fmt.money(h, Scale::Run)
        )),
        (Some(l), None) => Cell::Text(format!("≥ {}, no upper end", fmt.money(l, Scale::Run))),
        (None, Some(h)) => Cell::Text(format!("≤ {}", fmt.money(h, Scale::Run))),
        (None, None) => Cell::Text("too few sessions".into()),
    }
}

/// Cost per period: one row per variant and period; percentiles of the
/// upper-bound cost with their intervals, the lower bound's beside them.
pub fn costs(fmt: &Fmt, f: &CorpusForecast) -> DataTable {
    let mut columns = vec![
        col("variant", "variant"),
        col("period", "period"),
        col("runs", "runs"),
        col("mean_usd_lower", "mean, lower"),
        col("mean_usd_upper", "mean, upper"),
    ];
    for p in ["p50", "p90", "p99"] {
        columns.push(col(format!("{p}_usd_lower"), format!("{p}, lower")));
        columns.push(col(format!("{p}_usd_upper"), format!("{p}, upper")));
        columns.push(col(
            format!("{p}_usd_upper_interval_95"),
            format!("{p} upper, 95 % interval"),
        ));
    }
    let row = |v: &CorpusVariant, period: &str, c: &PeriodCost| {
        let mut r = vec![
            Cell::Text(v.name.clone()),
            Cell::Text(period.into()),
            Cell::Int(c.runs),
            Cell::Usd(c.mean.lower, Scale::Run),
            Cell::Usd(c.mean.upper, Scale::Run),
        ];
        for p in &c.percentiles {
            r.push(Cell::Usd(p.lower.value, Scale::Run));
            r.push(Cell::Usd(p.upper.value, Scale::Run));
            r.push(interval(fmt, &p.upper));
        }
        r
    };
    DataTable {
        id: "corpus_costs",
        title: format!(
            "Cost per run, day and month from {} recorded sessions (USD)",
            format::int(f.sessions)
        ),
        columns,
        rows: f
            .variants
            .iter()
            .flat_map(|v| {
                [
                    row(v, "run", &v.run),
                    row(v, "day", &v.day),
                    row(v, "month", &v.month),
                ]
            })
            .collect(),
    }
}

/// The mix: kinds, recorded and drawn shares.
pub fn mix(f: &CorpusForecast) -> DataTable {
    DataTable {
        id: "corpus_mix",
        title: "The mix: recorded sessions per kind and the share of runs drawn".into(),
        columns: vec![
            col("kind", "kind"),
            col("sessions", "sessions"),
            col("recorded_share", "recorded share"),
            col("drawn_share", "drawn share"),
        ],
        rows: f
            .kinds
            .iter()
            .map(|k| {
                vec![
                    Cell::Text(k.kind.clone()),
                    Cell::Int(k.sessions),
                    Cell::Share(k.recorded_share),
                    Cell::Share(k.share),
                ]
            })
            .collect(),
    }
}

/// Every recorded session's cost per variant.
pub fn sessions(f: &CorpusForecast) -> DataTable {
    let mut columns = vec![col("session", "session"), col("kind", "kind")];
    for (i, v) in f.variants.iter().enumerate() {
        columns.push(col(
            format!("variant_{}_usd_lower", i + 1),
            format!("{}, lower", v.name),
        ));
        columns.push(col(
            format!("variant_{}_usd_upper", i + 1),
            format!("{}, upper", v.name),
        ));
    }
    DataTable {
        id: "corpus_sessions",
        title: "Recorded sessions: cost of one run per variant (USD)".into(),
        columns,
        rows: f
            .recorded
            .iter()
            .map(|s| {
                let mut r = vec![
                    Cell::Text(s.name.clone()),
                    Cell::Text(f.kinds[s.kind].kind.clone()),
                ];
                for c in &s.cost {
                    r.push(Cell::Usd(c.lower, Scale::Request));
                    r.push(Cell::Usd(c.upper, Scale::Request));
                }
                r
            })
            .collect(),
    }
}

/// The answer, first in every output: the budget a month of the cheapest
/// and the dearest variant, with the calendar that makes a month.
pub fn answer(fmt: &Fmt, f: &CorpusForecast) -> Vec<String> {
    let Some(a) = &f.answer else {
        return Vec::new();
    };
    let interval = |b: &MonthBudget| match (b.low, b.high) {
        (Some(l), Some(h)) => format!(
            "; 95 % interval {} – {}",
            fmt.money(l, Scale::Cents),
            fmt.money(h, Scale::Cents)
        ),
        _ => String::new(),
    };
    let mut out = vec![format!(
        "Answer: budget {} a month for {} (the p99 of the upper bound: 99 % of simulated months cost less{}), based on {} recorded session(s) at {} run(s) a day, {} working day(s) a week: {} runs a month (a month is a twelfth of 52 weeks).",
        fmt.money(a.cheapest.per_month, Scale::Cents),
        a.cheapest.variant,
        interval(&a.cheapest),
        format::int(a.sessions),
        format::int(a.runs_per_day),
        a.working_days_per_week,
        format::int(a.runs_per_month),
    )];
    if a.dearest.variant != a.cheapest.variant {
        out.push(format!(
            "The dearest variant, {}, needs {} a month{}.",
            a.dearest.variant,
            fmt.money(a.dearest.per_month, Scale::Cents),
            interval(&a.dearest)
        ));
    }
    out.push(match a.cheapest.per_run {
        Some(b) => format!(
            "A budget per run for {} that 99 % of runs stay under, with 95 % confidence: {}.",
            a.cheapest.variant,
            fmt.money(b, Scale::Run)
        ),
        None => format!(
            "No budget per run can be signed yet: one that 99 % of runs stay under, with 95 % confidence, needs {}.",
            match f.needed_per_kind_for_p99 {
                Some(k) => format!("{k} sessions of each kind drawn under --weights"),
                None => format!(
                    "{} sessions and these are {}",
                    format::int(a.sessions_needed_for_p99_run),
                    format::int(a.sessions)
                ),
            }
        ),
    });
    out
}

/// The sentences every output starts with: sampling, method, confidence.
pub fn statements(f: &CorpusForecast) -> Vec<String> {
    let mut out = vec![
        format!("Sampling: {}.", f.sampling),
        format!("Method: {}.", f.method),
    ];
    let enough = f.sessions >= f.needed_for_p99;
    out.push(format!(
        "Confidence: a p99 budget per run that holds with {} % confidence needs {} independent recorded runs (distribution-free: the dearest of {} is above the p99 with that chance); this corpus has {}{}.",
        f.level * 100.0,
        f.needed_for_p99,
        f.needed_for_p99,
        format::int(f.sessions),
        match f.needed_per_kind_for_p99 {
            Some(k) => format!(
                ". Under --weights the bound is the largest of each drawn kind's, so each kind needs {k} (a bound at 1 − 5 % ÷ kinds for each)"
            ),
            None if enough => String::new(),
            None => ", so no p99 budget per run can be signed from it yet: record more sessions".into(),
        }
    ));
    out.push("Day and month intervals come from resampling the recorded sessions, so they cannot reach beyond the dearest session recorded.".into());
    if !f.sessions_left_out.is_empty() {
        out.push(format!(
            "Left out: {} session(s) with a thread on an unpriced model: {}.",
            f.sessions_left_out.len(),
            f.sessions_left_out.join("; ")
        ));
    }
    if !f.variants_left_out.is_empty() {
        out.push(format!(
            "Left out (not in every session): {}.",
            f.variants_left_out.join(", ")
        ));
    }
    out
}

/// The page's question: what the runs a day cost, from how many sessions.
pub fn question(f: &CorpusForecast) -> String {
    let runs = match f.runs_per_day {
        1 => "does one run".to_string(),
        n => format!("do {} runs", format::int(n)),
    };
    format!(
        "What {runs} a day cost, per run, day and month, and how sure can a budget from {} recorded sessions be?",
        format::int(f.sessions)
    )
}

/// The page's blocks in order, with the place of the sessions' chart
/// ([`ChartSlot::CorpusSessions`]).
pub fn blocks(fmt: &Fmt, f: &CorpusForecast) -> Vec<Block> {
    vec![
        Block::list("answer", answer(fmt, f)),
        Block::table(view(fmt, &costs(fmt, f)))
            .heading("Cost per run, day and month", Some(statements(f).join(" "))),
        Block::table(view(fmt, &mix(f))).heading("The mix", None),
        Block::slot(ChartSlot::CorpusSessions).heading("Recorded sessions", None),
        Block::table(view(fmt, &sessions(f))),
    ]
}
