//! A forecast's page as plain data: its tables, its answer and its blocks
//! (with a [`ChartSlot`] where the fan and the histograms go), shared by
//! the command line's outputs and the engine built for a web page.

use super::format::{self, Scale};
use super::page::{view, Block, ChartSlot};
use super::table::{col, Cell, DataTable};
use super::Fmt;
use crate::analysis::forecast::Fit;
use crate::document::answer::RunBudget;
use crate::document::Forecast;
use rust_decimal::Decimal;

/// Where each percentile column's values are in the JSON document.
const COST_COLUMNS: [(&str, &str, &str); 6] = [
    (
        "p50_usd_lower",
        "p50, lower",
        "/variants/{row}/cost_lower/p50",
    ),
    (
        "p50_usd_upper",
        "p50, upper",
        "/variants/{row}/cost_upper/p50",
    ),
    (
        "p90_usd_lower",
        "p90, lower",
        "/variants/{row}/cost_lower/p90",
    ),
    (
        "p90_usd_upper",
        "p90, upper",
        "/variants/{row}/cost_upper/p90",
    ),
    (
        "p99_usd_lower",
        "p99, lower",
        "/variants/{row}/cost_lower/p99",
    ),
    (
        "p99_usd_upper",
        "p99, upper",
        "/variants/{row}/cost_upper/p99",
    ),
];

/// Cost percentiles per variant.
pub fn variants(f: &Forecast) -> DataTable {
    let usd = |v: Decimal| Cell::Usd(v, Scale::Run);
    let mut columns = vec![col("variant", "variant").at("/variants/{row}/name")];
    for (key, label, at) in COST_COLUMNS {
        columns.push(col(key, label).at(at));
    }
    columns.push(col("mean_usd_lower", "mean, lower").at("/variants/{row}/cost_lower/mean"));
    if f.budget.is_some() {
        columns.push(
            col("share_over_budget_upper", "runs over budget (upper bound)")
                .at("/variants/{row}/over_budget"),
        );
    }
    DataTable {
        id: "forecast_variants",
        title: format!(
            "Cost per run of {} tool results, {} runs (USD)",
            format::int(f.calls),
            format::int(f.runs)
        ),
        columns,
        rows: f
            .variants
            .iter()
            .map(|v| {
                let mut row = vec![Cell::Text(v.name.clone())];
                for (lo, hi) in v
                    .cost_lower
                    .percentiles()
                    .into_iter()
                    .zip(v.cost_upper.percentiles())
                {
                    row.push(usd(lo));
                    row.push(usd(hi));
                }
                row.push(usd(v.cost_lower.mean));
                if let Some(share) = v.over_budget {
                    row.push(Cell::Share(share));
                }
                row
            })
            .collect(),
    }
}

/// Final context size.
pub fn context(f: &Forecast) -> DataTable {
    let tok = Cell::Tokens;
    let mut columns = vec![col("results", "results")];
    for p in ["p50", "p90", "p99"] {
        columns.push(col(format!("{p}_tokens_lower"), format!("{p}, lower")));
        columns.push(col(format!("{p}_tokens_upper"), format!("{p}, upper")));
    }
    if f.context_window.is_some() {
        columns.push(col("share_over_context_window", "runs over the window"));
    }
    DataTable {
        id: "forecast_context",
        title: match f.context_window {
            Some(w) => format!(
                "Final request input tokens (context window {})",
                format::int(w)
            ),
            None => "Final request input tokens".into(),
        },
        columns,
        rows: f
            .context
            .iter()
            .map(|c| {
                let mut row = vec![Cell::Text(c.results.to_string())];
                for (lo, hi) in c.lower.percentiles().into_iter().zip(c.upper.percentiles()) {
                    row.push(tok(lo));
                    row.push(tok(hi));
                }
                if let Some(share) = c.over_context_window {
                    row.push(Cell::Share(share));
                }
                row
            })
            .collect(),
    }
}

/// Context size against the number of calls.
pub fn fan(f: &Forecast) -> DataTable {
    let tok = Cell::Tokens;
    let mut columns = vec![col("calls", "calls")];
    for c in ["raw", "trimmed"] {
        for p in ["p10", "p50", "p90", "p99"] {
            columns.push(col(format!("{c}_{p}_tokens_lower"), format!("{c} {p}")));
        }
    }
    DataTable {
        id: "forecast_fan",
        title: "Context after n calls (lower bound, tokens)".into(),
        columns,
        rows: f
            .fan
            .iter()
            .map(|p| {
                let mut row = vec![Cell::Int(p.calls)];
                row.extend(p.raw.all().into_iter().chain(p.trimmed.all()).map(tok));
                row
            })
            .collect(),
    }
}

/// The capability mix and the log-normal fits.
pub fn capabilities(f: &Forecast) -> DataTable {
    let fit = |x: Option<Fit>| {
        x.map_or(Cell::Empty, |x| {
            Cell::Text(format!("μ {:.3}, σ {:.3}", x.mu, x.sigma))
        })
    };
    DataTable {
        id: "forecast_capabilities",
        title: "Recorded mix and log-normal fits (maximum likelihood on ln x)".into(),
        columns: vec![
            col("capability", "capability"),
            col("share", "share"),
            col("calls", "recorded calls"),
            col("items_fit", "items"),
            col("raw_bytes_per_item_fit", "raw B/item"),
            col("trimmed_bytes_per_item_fit", "trimmed B/item"),
        ],
        rows: f
            .capabilities
            .iter()
            .map(|c| {
                vec![
                    Cell::Text(c.capability.clone()),
                    Cell::Share(
                        Decimal::from_f64_retain(c.share)
                            .unwrap_or_default()
                            .round_dp(4),
                    ),
                    Cell::Int(c.calls),
                    fit(c.items),
                    fit(c.raw_bytes_per_item),
                    fit(c.trimmed_bytes_per_item),
                ]
            })
            .collect(),
    }
}

/// The answer, first in every output: the budget per run of the cheapest
/// and the dearest variant, from the document's
/// [`ForecastAnswer`](crate::document::answer::ForecastAnswer).
pub fn answer(fmt: &Fmt, f: &Forecast) -> Vec<String> {
    let Some(a) = &f.answer else {
        return Vec::new();
    };
    let median = |b: &RunBudget| {
        format!(
            "{} – {}",
            fmt.money(b.median.lower, Scale::Run),
            fmt.money(b.median.upper, Scale::Run)
        )
    };
    let mut out = vec![format!(
        "Answer: budget {} a run for {} (the p99 of the upper bound: 99 % of {} drawn runs of {} tool results cost less; the median run {}).",
        fmt.money(a.cheapest.per_run, Scale::Run),
        a.cheapest.variant,
        format::int(a.runs),
        format::int(a.calls),
        median(&a.cheapest)
    )];
    if a.dearest.variant != a.cheapest.variant {
        out.push(format!(
            "The dearest variant, {}, needs {} a run (the median run {}).",
            a.dearest.variant,
            fmt.money(a.dearest.per_run, Scale::Run),
            median(&a.dearest)
        ));
    }
    if let Some(b) = f.budget {
        let mut over: Vec<String> = Vec::new();
        for v in [&a.cheapest, &a.dearest] {
            if let Some(share) = v.over_budget {
                let line = format!("{} for {}", format::percent(share), v.variant);
                if !over.contains(&line) {
                    over.push(line);
                }
            }
        }
        if !over.is_empty() {
            out.push(format!(
                "Runs over the {} budget a run (upper bound): {}.",
                fmt.money(b, Scale::Cents),
                over.join("; ")
            ));
        }
    }
    out
}

/// What one recorded run can and cannot say.
pub fn pilot_note(f: &Forecast) -> String {
    let calls: u64 = f.capabilities.iter().map(|c| c.calls).sum();
    if f.planned {
        return format!(
            "Drawn from the scenario's [trace.generate] distributions ({} calls drawn to sample from): a run that has not happened, so the percentiles are as good as the description.",
            format::int(calls)
        );
    }
    format!(
        "Drawn from the {} recorded calls of one run: the percentiles describe runs made of calls like those, with no interval for how few were recorded. `tokencast forecast` over many recorded sessions states intervals and how many sessions a p99 budget needs ({}).",
        format::int(calls),
        format::int(f.sessions_for_p99_budget)
    )
}

/// The page's blocks in order, with the places of the fan
/// ([`ChartSlot::ForecastFan`]) and the histograms
/// ([`ChartSlot::ForecastHistograms`]).
pub fn blocks(fmt: &Fmt, f: &Forecast) -> Vec<Block> {
    vec![
        Block::list("answer", answer(fmt, f)),
        Block::table(view(fmt, &variants(f))).heading(
            "Cost per run",
            Some(format!(
                "{} runs of {} tool results, method {:?}, seed {}. Percentiles: {}. The recommended task budget is the p99 of the upper-bound cost. {}",
                format::int(f.runs),
                format::int(f.calls),
                f.method,
                f.seed,
                f.percentile_method,
                pilot_note(f)
            )),
        ),
        Block::table(view(fmt, &context(f))),
        Block::slot(ChartSlot::ForecastFan).heading("Context size", None),
        Block::table(view(fmt, &fan(f))),
        Block::slot(ChartSlot::ForecastHistograms).heading("Cost distribution per variant", None),
        Block::table(view(fmt, &capabilities(f))).heading("Recorded distributions", None),
    ]
}
