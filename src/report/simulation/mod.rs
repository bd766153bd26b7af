//! How a simulation is shown: the terminal report and the HTML page.

pub mod backtest;
pub mod tables;
pub mod what_if;

use super::html::{
    chart_block, charts, input_facts, render_template, transposed, view, Block, Fact, Headline,
    Page,
};
use super::table::DataTable;
use super::terminal::{plain_table, transposed as sideways, wrap_prose};
use super::{format, HtmlOptions, Render, RenderError, TerminalOptions};
use crate::document::SimulationDoc;
use crate::engine::Simulation;
use crate::output::HTML_GENERATOR;
use crate::report::Fmt;

impl Render for SimulationDoc {
    fn currency(&self) -> crate::pricing::Currency {
        self.simulation.currency.clone()
    }

    fn price_date(&self) -> Option<crate::scenario::PriceDate> {
        self.simulation.price_date.clone()
    }

    fn draw_terminal(&self, fmt: &Fmt, opts: &TerminalOptions) -> String {
        terminal(fmt, self, opts)
    }

    fn draw_tables(&self, fmt: &Fmt) -> Vec<DataTable> {
        tables::all(fmt, self)
    }

    fn draw_csv_table(&self, _: &Fmt) -> DataTable {
        tables::variants(self)
    }

    fn draw_html(&self, fmt: &Fmt, opts: &HtmlOptions) -> Result<Vec<u8>, RenderError> {
        Ok(html(fmt, self, opts)?)
    }
}

/// The whole terminal report.
fn terminal(fmt: &Fmt, doc: &SimulationDoc, opts: &TerminalOptions) -> String {
    let sim = &doc.simulation;
    let mut s = String::new();
    s.push_str(&format!(
        "tokencast {} · scenario {} · model {}\n{}\n\n",
        sim.tokencast_version, sim.scenario, sim.prices.model, sim.question
    ));
    if let Some(note) = fmt.basis_note() {
        s.push_str(&wrap_prose(&note, opts.width));
        s.push_str("\n\n");
    }
    let a = &sim.assumptions;
    s.push_str(&format!(
        "{} tool results enter the context; prefix {} tokens, {} output tokens per step, final answer {}; tokens = bytes ÷ {} (lower), × {} (upper).\n\n",
        sim.tool_results,
        format::int(a.prefix_tokens),
        format::int(a.output_tokens_per_step),
        format::int(a.final_output_tokens),
        a.bytes_per_token,
        a.tokenizer_uplift
    ));
    s.push_str(&sideways(
        fmt,
        &tables::variants(doc),
        tables::variant_identity_columns(doc),
        opts.width,
    ));
    if let Some(c) = &doc.comparison {
        s.push_str(&format!(
            "Cheapest: {} at {} a run; dearest: {} at {}; saving {} ({}) a run, lower bound.\n",
            c.cheapest,
            fmt.money(c.cheapest_total, 3),
            c.dearest,
            fmt.money(c.dearest_total, 3),
            fmt.money(c.saving, 3),
            format::percent(c.saving_share)
        ));
    }
    s.push('\n');
    s.push_str(&plain_table(fmt, &tables::attribution(doc), opts.width));
    if let Some(top) = most_expensive_result(fmt, sim) {
        s.push_str(&top);
    }
    s.push('\n');
    s.push_str(&plain_table(fmt, &tables::capabilities(doc), opts.width));
    s.push_str(&format!(
        "Data fee: {} over {} charged responses; {} replay(s) skipped, {} uncharged; median latency of calls with data {}.\n\n",
        fmt.money(sim.ledger.total_usd, 4),
        sim.ledger.charged,
        sim.ledger.replays_skipped,
        sim.ledger.uncharged,
        format::seconds(sim.ledger.median_latency_with_data_ms)
    ));
    if !sim.tool_fees.is_empty() {
        s.push_str(&plain_table(fmt, &tables::tool_fees(doc), opts.width));
        s.push('\n');
    }
    s.push_str(&sideways(fmt, &tables::per_day(doc), 2, opts.width));
    if let Some(t) = tables::periods(doc) {
        s.push('\n');
        s.push_str(&sideways(fmt, &t, 1, opts.width));
        for line in budget_lines(fmt, doc) {
            s.push_str(&format!("{line}\n"));
        }
    }
    let recorded = backtest::summary(fmt, doc);
    if !recorded.is_empty() {
        s.push_str("\nBacktest\n");
        for line in recorded {
            s.push_str(&format!("- {line}\n"));
        }
        for t in [backtest::compaction(doc), backtest::breaks(doc)]
            .into_iter()
            .flatten()
        {
            s.push('\n');
            s.push_str(&plain_table(fmt, &t, opts.width));
        }
    }
    let summary = what_if::summary(fmt, doc);
    if !summary.is_empty() {
        s.push_str("\nWhat if\n");
        for line in summary {
            s.push_str(&format!("- {line}\n"));
        }
        // The long tables (sweep, restarts) are in the HTML report and the CSV exports.
        for t in [
            what_if::retry(doc),
            what_if::cache_lifetime(fmt, doc),
            what_if::effort(doc),
            what_if::context(doc),
        ]
        .into_iter()
        .flatten()
        {
            s.push('\n');
            s.push_str(&plain_table(fmt, &t, opts.width));
        }
    }
    if opts.requests {
        s.push('\n');
        s.push_str(&plain_table(fmt, &tables::requests(doc), opts.width));
    }
    wrap_prose(&s, opts.width)
}

/// Where each variant's cumulative spend crosses the plan's budget.
fn budget_lines(fmt: &Fmt, doc: &SimulationDoc) -> Vec<String> {
    let Some(p) = &doc.periods else {
        return Vec::new();
    };
    let Some(budget) = p.plan.budget_per_month else {
        return Vec::new();
    };
    p.variants
        .iter()
        .map(|v| match v.over_budget_from_month {
            Some(m) => format!(
                "{}: over the budget of {} a month from month {m} (cumulative, upper bound).",
                v.name,
                fmt.money(budget, 2)
            ),
            None => format!(
                "{}: within the budget of {} a month for the year (upper bound {} against {}).",
                v.name,
                fmt.money(budget, 2),
                fmt.money(v.year.upper, 2),
                fmt.money(p.budget_cumulative.last().copied().unwrap_or_default(), 2)
            ),
        })
        .collect()
}

/// "Call 9 (reddit/search) costs most under raw, no cache: 18,175 tokens × 10 resends."
fn most_expensive_result(fmt: &Fmt, sim: &Simulation) -> Option<String> {
    let mut lines = String::new();
    for (i, v) in sim.variants.iter().enumerate() {
        let top = sim.attribution.iter().max_by_key(|a| a.cost[i].lower)?;
        let tokens = match v.variant.variant.results {
            crate::scenario::Content::Raw => top.raw_tokens.lower,
            crate::scenario::Content::Trimmed => top.trimmed_tokens.lower,
        };
        let who = top
            .call
            .map_or(format!("row {}", top.row), |c| format!("call {c}"));
        lines.push_str(&format!(
            "Costliest result under {}: {who} ({}), {} tokens × {} resends = {}.\n",
            v.variant.variant.name,
            top.capability,
            format::count(tokens),
            top.resends,
            fmt.money(top.cost[i].lower, 3)
        ));
    }
    Some(lines)
}

fn headline(fmt: &Fmt, doc: &SimulationDoc) -> Option<Headline> {
    let c = doc.comparison.as_ref()?;
    Some(Headline {
        cheapest: c.cheapest.clone(),
        cheapest_total: fmt.money(c.cheapest_total, 3),
        dearest: c.dearest.clone(),
        dearest_total: fmt.money(c.dearest_total, 3),
        saving: fmt.money(c.saving, 3),
        saving_percent: format::percent(c.saving_share),
        runs_per_day: format::int(doc.simulation.assumptions.runs_per_day),
        saving_per_day: fmt.money(c.saving_per_day, 2),
    })
}

fn facts(fmt: &Fmt, sim: &Simulation) -> Vec<Fact> {
    let a = &sim.assumptions;
    let fact = |label: &str, value: String| Fact {
        label: label.into(),
        value,
    };
    let raw = sim.profile(crate::scenario::Content::Raw);
    let trimmed = sim.profile(crate::scenario::Content::Trimmed);
    vec![
        fact("model", sim.prices.model.clone()),
        fact(
            "tool results in the context",
            format!(
                "{} of {} recorded requests",
                sim.tool_results, sim.ledger.requests
            ),
        ),
        fact(
            "tool results, raw → trimmed",
            format!(
                "{} → {} (−{})",
                format::kb(raw.result_bytes),
                format::kb(trimmed.result_bytes),
                format::percent(sim.trim_saving_share)
            ),
        ),
        fact(
            "prefix (system prompt, tools, question)",
            format!("{} tokens", format::int(a.prefix_tokens)),
        ),
        fact(
            "output per step",
            format!("{} tokens", format::int(a.output_tokens_per_step)),
        ),
        fact(
            "final answer",
            format!("{} tokens", format::int(a.final_output_tokens)),
        ),
        fact(
            "token estimate",
            format!(
                "bytes ÷ {} (lower), × {} (upper)",
                a.bytes_per_token, a.tokenizer_uplift
            ),
        ),
        fact("runs per day", format::int(a.runs_per_day)),
        fact(
            "data fee per run (charged)",
            fmt.money(sim.ledger.total_usd, 4),
        ),
    ]
}

fn blocks(fmt: &Fmt, doc: &SimulationDoc) -> Vec<Block> {
    let sim = &doc.simulation;
    let mut out = vec![Block::table(transposed(fmt,
        &tables::variants(doc),
        tables::variant_identity_columns(doc),
    )).heading(
        "Variants",
        Some("Lower bound: tokens = bytes ÷ b. Upper bound: prefix and tool results × the tokenizer uplift. Figures are rounded half away from zero; the JSON output carries the exact values.".into()),
    )];
    for (i, c) in charts::run::all(fmt, sim).into_iter().enumerate() {
        let b = chart_block(c);
        out.push(if i == 0 { b.heading("Charts", None) } else { b });
    }
    out.push(Block::table(transposed(fmt, &tables::per_day(doc), 2)).heading("Tables", None));
    if let Some(t) = tables::periods(doc) {
        out.push(Block {
            list: budget_lines(fmt, doc),
            ..Block::table(transposed(fmt, &t, 1))
        });
        out.push(chart_block(charts::run::cumulative(fmt, doc)));
    }
    out.push(Block::table(view(fmt, &tables::capabilities(doc))));
    out.push(Block::table(view(fmt, &tables::attribution(doc))));
    if !sim.tool_fees.is_empty() {
        out.push(Block::table(view(fmt, &tables::tool_fees(doc))));
    }
    for t in [tables::requests(doc), tables::ledger(doc)] {
        out.push(Block {
            collapsible: true,
            ..Block::table(view(fmt, &t))
        });
    }
    let recorded = backtest::summary(fmt, doc);
    if !recorded.is_empty() {
        out.push(
            Block {
                list: recorded,
                ..Block::default()
            }
            .heading("Backtest", None),
        );
        out.push(chart_block(charts::run::backtest(fmt, doc)));
        for t in [
            backtest::requests(doc),
            backtest::compaction(doc),
            backtest::breaks(doc),
        ]
        .into_iter()
        .flatten()
        {
            out.push(Block {
                collapsible: t.rows.len() > 12,
                ..Block::table(view(fmt, &t))
            });
        }
    }
    let summary = what_if::summary(fmt, doc);
    if !summary.is_empty() {
        out.push(
            Block {
                list: summary,
                ..Block::default()
            }
            .heading("What if", None),
        );
        for c in charts::what_if::all(fmt, doc) {
            out.push(chart_block(c));
        }
        for t in what_if::tables(fmt, doc) {
            let long = t.rows.len() > 12;
            out.push(Block {
                collapsible: long,
                ..Block::table(view(fmt, &t))
            });
        }
    }
    out.push(
        Block::table(view(fmt, &tables::assumptions(doc)))
            .heading("Assumptions and price book", None),
    );
    out.push(Block::table(view(fmt, &tables::prices(doc))));
    out
}

fn html(fmt: &Fmt, doc: &SimulationDoc, opts: &HtmlOptions) -> Result<Vec<u8>, tera::Error> {
    let sim = &doc.simulation;
    let page = Page {
        generator: HTML_GENERATOR,
        title: format!("tokencast report: {}", sim.scenario),
        question: super::html::with_basis(fmt, sim.question.clone()),
        model: sim.prices.model.clone(),
        facts: facts(fmt, sim),
        headline: headline(fmt, doc),
        blocks: blocks(fmt, doc),
        price_source: sim.prices.source.clone(),
        price_read_on: sim.prices.read_on.clone(),
        version: sim.tokencast_version.clone(),
        fingerprint: sim.fingerprint.clone(),
        fingerprint_short: sim.fingerprint.chars().take(16).collect(),
        inputs: input_facts(&sim.inputs),
        timestamp: opts.timestamp.clone(),
    };
    render_template("report.html", &page)
}
