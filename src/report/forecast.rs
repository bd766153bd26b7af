//! The `forecast` document as tables: cost and context percentiles, the fan, the fits.

use super::html::{chart_block, charts, render_template, simple_page, view, Block};
use super::table::{col, Cell, DataTable};
use super::terminal::{plain_table, wrap_prose};
use super::{format, HtmlOptions, Render, RenderError, TerminalOptions};
use crate::document::Forecast;
use crate::report::format::Scale;
use crate::report::Fmt;

/// Forecast: cost percentiles per variant.
pub fn forecast_variants(f: &Forecast) -> DataTable {
    let usd = |v: rust_decimal::Decimal| Cell::Usd(v, Scale::Run);
    let mut columns = vec![col("variant", "variant")];
    for p in ["p50", "p90", "p99"] {
        columns.push(col(format!("{p}_usd_lower"), format!("{p}, lower")));
        columns.push(col(format!("{p}_usd_upper"), format!("{p}, upper")));
    }
    columns.push(col("mean_usd_lower", "mean, lower"));
    if f.budget.is_some() {
        columns.push(col(
            "share_over_budget_upper",
            "runs over budget (upper bound)",
        ));
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

/// Forecast: final context size.
pub fn forecast_context(f: &Forecast) -> DataTable {
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

/// Forecast: context size against the number of calls.
pub fn forecast_fan(f: &Forecast) -> DataTable {
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

/// Forecast: the capability mix and the log-normal fits.
pub fn forecast_capabilities(f: &Forecast) -> DataTable {
    let fit = |x: Option<crate::analysis::forecast::Fit>| {
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
                        rust_decimal::Decimal::from_f64_retain(c.share)
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
/// and the dearest variant, from the document's [`ForecastAnswer`].
///
/// [`ForecastAnswer`]: crate::document::answer::ForecastAnswer
pub fn answer(fmt: &Fmt, f: &Forecast) -> Vec<String> {
    let Some(a) = &f.answer else {
        return Vec::new();
    };
    let median = |b: &crate::document::answer::RunBudget| {
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
fn pilot_note(f: &Forecast) -> String {
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

impl Render for Forecast {
    fn currency(&self) -> crate::pricing::Currency {
        self.currency.clone()
    }

    fn price_date(&self) -> Option<crate::scenario::PriceDate> {
        self.price_date.clone()
    }

    fn draw_terminal(&self, fmt: &Fmt, opts: &TerminalOptions) -> String {
        let f = self;
        let mut s = format!(
            "tokencast {} · forecast {} · {} runs of {} tool results · method {:?} · seed {}\n{}\n\n",
            env!("CARGO_PKG_VERSION"),
            f.scenario,
            f.runs,
            f.calls,
            f.method,
            f.seed,
            f.percentile_method
        );
        if let Some(note) = fmt.basis_note() {
            s.push_str(&note);
            s.push_str("\n\n");
        }
        for line in answer(fmt, f) {
            s.push_str(&line);
            s.push('\n');
        }
        s.push('\n');
        if opts.brief {
            return wrap_prose(&s, opts.width);
        }
        s.push_str(&pilot_note(f));
        s.push_str("\n\n");
        for t in [forecast_variants(f), forecast_context(f), forecast_fan(f)] {
            s.push_str(&plain_table(fmt, &t, opts.width));
            s.push('\n');
        }
        s.push_str("Read it as: half the runs cost less than p50, one in a hundred costs more than p99. Set the task budget at the p99 of the upper bound:\n");
        for v in &f.variants {
            s.push_str(&format!(
                "- {}: {} per run\n",
                v.name,
                fmt.money(v.recommended_budget, Scale::Run)
            ));
        }
        if let Some(b) = f.budget {
            s.push_str(&format!(
                "Runs over the {} budget compare the {} bound of each run's cost.\n",
                fmt.money(b, Scale::Cents),
                match f.over_budget_bound {
                    crate::analysis::forecast::Bound::Lower => "lower",
                    crate::analysis::forecast::Bound::Upper => "upper",
                }
            ));
        }
        wrap_prose(&s, opts.width)
    }

    fn draw_tables(&self, _: &Fmt) -> Vec<DataTable> {
        vec![
            forecast_variants(self),
            forecast_context(self),
            forecast_fan(self),
            forecast_capabilities(self),
        ]
    }

    fn draw_csv_table(&self, _: &Fmt) -> DataTable {
        forecast_variants(self)
    }

    fn draw_html(&self, fmt: &Fmt, opts: &HtmlOptions) -> Result<Vec<u8>, RenderError> {
        Ok(html(fmt, self, opts)?)
    }
}

fn html(fmt: &Fmt, f: &Forecast, opts: &HtmlOptions) -> Result<Vec<u8>, tera::Error> {
    let mut blocks = vec![
        Block::list("answer", answer(fmt, f)),
        Block::table(view(fmt, &forecast_variants(f))).heading(
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
        Block::table(view(fmt, &forecast_context(f))),
        chart_block(fmt, |fmt| charts::forecast::forecast_fan(fmt, f)).heading("Context size", None),
        Block::table(view(fmt, &forecast_fan(f))),
    ];
    for (i, v) in f.variants.iter().enumerate() {
        let b = chart_block(fmt, |fmt| {
            let mut chart = charts::forecast::forecast_histogram(fmt, v, f.runs);
            chart.id = format!("chart-forecast-histogram-{}", i + 1);
            chart
        });
        blocks.push(if i == 0 {
            b.heading("Cost distribution per variant", None)
        } else {
            b
        });
    }
    blocks.push(
        Block::table(view(fmt, &forecast_capabilities(f))).heading("Recorded distributions", None),
    );
    let page = simple_page(
        fmt,
        format!("tokencast forecast: {}", f.scenario),
        format!(
            "What does a run of {} tool calls cost, and what budget covers 99 % of runs?",
            format::int(f.calls)
        ),
        blocks,
        &f.inputs,
        opts.timestamp.clone(),
    );
    render_template("base.html", &page)
}
