//! The `forecast` document as tables: cost and context percentiles, the fan, the fits.

use super::html::{chart_block, charts, render_template, simple_page, view, Block};
use super::table::{col, Cell, DataTable};
use super::terminal::{plain_table, wrap_prose};
use super::{format, HtmlOptions, Render, RenderError, TerminalOptions};
use crate::analysis::forecast::to_decimal;
use crate::document::Forecast;

/// Forecast: cost percentiles per variant.
pub fn forecast_variants(f: &Forecast) -> DataTable {
    let usd = |v: f64| Cell::Usd(to_decimal(v), 3);
    let mut columns = vec![col("variant", "variant")];
    for p in ["p50", "p90", "p99"] {
        columns.push(col(format!("{p}_usd_lower"), format!("{p}, lower")));
        columns.push(col(format!("{p}_usd_upper"), format!("{p}, upper")));
    }
    columns.push(col("mean_usd_lower", "mean, lower"));
    columns.push(col("recommended_budget_usd", "budget (p99 upper)"));
    if f.budget.is_some() {
        columns.push(col("share_over_budget", "runs over budget"));
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
                for i in 0..3 {
                    row.push(usd(v.cost_lower.p[i]));
                    row.push(usd(v.cost_upper.p[i]));
                }
                row.push(usd(v.cost_lower.mean));
                row.push(usd(v.recommended_budget));
                if let Some(share) = v.over_budget {
                    row.push(Cell::Share(to_decimal(share)));
                }
                row
            })
            .collect(),
    }
}

/// Forecast: final context size.
pub fn forecast_context(f: &Forecast) -> DataTable {
    let tok = |v: f64| Cell::Tokens(to_decimal(v));
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
                for i in 0..3 {
                    row.push(tok(c.lower.p[i]));
                    row.push(tok(c.upper.p[i]));
                }
                if let Some(share) = c.over_context_window {
                    row.push(Cell::Share(to_decimal(share)));
                }
                row
            })
            .collect(),
    }
}

/// Forecast: context size against the number of calls.
pub fn forecast_fan(f: &Forecast) -> DataTable {
    let tok = |v: f64| Cell::Tokens(to_decimal(v));
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
                row.extend(p.raw.iter().chain(&p.trimmed).map(|v| tok(*v)));
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
                    Cell::Share(to_decimal(c.share)),
                    Cell::Int(c.calls),
                    fit(c.items),
                    fit(c.raw_bytes_per_item),
                    fit(c.trimmed_bytes_per_item),
                ]
            })
            .collect(),
    }
}

impl Render for Forecast {
    fn terminal(&self, opts: &TerminalOptions) -> String {
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
        for t in [forecast_variants(f), forecast_context(f), forecast_fan(f)] {
            s.push_str(&plain_table(&t, opts.width));
            s.push('\n');
        }
        s.push_str("Read it as: half the runs cost less than p50, one in a hundred costs more than p99. Set the task budget at the p99 of the upper bound.\n");
        wrap_prose(&s, opts.width)
    }

    fn tables(&self) -> Vec<DataTable> {
        vec![
            forecast_variants(self),
            forecast_context(self),
            forecast_fan(self),
            forecast_capabilities(self),
        ]
    }

    fn csv_table(&self) -> DataTable {
        forecast_variants(self)
    }

    fn html(&self, opts: &HtmlOptions) -> Result<Vec<u8>, RenderError> {
        Ok(html(self, opts)?)
    }
}

fn html(f: &Forecast, opts: &HtmlOptions) -> Result<Vec<u8>, tera::Error> {
    let mut blocks = vec![
        Block::table(view(&forecast_variants(f))).heading(
            "Cost per run",
            Some(format!(
                "{} runs of {} tool results, method {:?}, seed {}. Percentiles: {}. The recommended task budget is the p99 of the upper-bound cost.",
                format::int(f.runs),
                format::int(f.calls),
                f.method,
                f.seed,
                f.percentile_method
            )),
        ),
        Block::table(view(&forecast_context(f))),
        chart_block(charts::forecast::forecast_fan(f)).heading("Context size", None),
        Block::table(view(&forecast_fan(f))),
    ];
    for (i, v) in f.variants.iter().enumerate() {
        let mut chart = charts::forecast::forecast_histogram(v, f.runs);
        chart.id = format!("chart-forecast-histogram-{}", i + 1);
        let b = chart_block(chart);
        blocks.push(if i == 0 {
            b.heading("Cost distribution per variant", None)
        } else {
            b
        });
    }
    blocks.push(
        Block::table(view(&forecast_capabilities(f))).heading("Recorded distributions", None),
    );
    let page = simple_page(
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
