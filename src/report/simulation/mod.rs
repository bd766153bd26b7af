//! How a simulation is shown: the terminal report and the HTML page.

pub use tokencast_core::view::simulation::{backtest, tables, what_if};

use super::html::{charts, input_facts, live_parts, render_template, with_slots, Page};
use super::table::DataTable;
use super::terminal::{plain_table, transposed as sideways, wrap_prose};
use super::{format, HtmlOptions, Render, RenderError, TerminalOptions};
use crate::document::SimulationDoc;
use crate::engine::Simulation;
use crate::output::HTML_GENERATOR;
use crate::report::format::Scale;
use crate::report::Fmt;
use tokencast_core::view::simulation::{
    blocks, budget_lines, counted_note, facts, headline, models_line, other_bands_note, tokens_rule,
};

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
    if let Some(answer) = answer(fmt, doc) {
        s.push_str(&answer);
        s.push_str("\n\n");
    }
    if let Some(line) = models_line(fmt, doc) {
        s.push_str(&line);
        s.push_str("\n\n");
    }
    if opts.brief {
        return wrap_prose(&s, opts.width);
    }
    // The ranking the answer names, before the details.
    let s = wrap_prose(&s, opts.width);
    let mut s = match tables::models(doc, false) {
        Some(t) => format!("{s}{}\n", plain_table(fmt, &t, opts.width)),
        None => s,
    };
    s.push_str(&run_section(fmt, doc, opts.width));
    s.push_str(&backtest_section(fmt, doc, opts.width));
    s.push_str(&what_if_section(fmt, doc, opts.width));
    if opts.requests {
        s.push('\n');
        s.push_str(&plain_table(fmt, &tables::requests(doc), opts.width));
    }
    wrap_prose(&s, opts.width)
}

/// The run's tables: the variants, what each result costs, the
/// capabilities, the data fee, tool fees, and per day and period.
fn run_section(fmt: &Fmt, doc: &SimulationDoc, width: usize) -> String {
    let sim = &doc.simulation;
    let a = &sim.assumptions;
    let mut s = format!(
        "{} tool results enter the context; prefix {} tokens, {} output tokens per step, final answer {}; tokens = {}{}{}.\n\n",
        sim.tool_results,
        format::int(a.prefix_tokens),
        format::int(a.output_tokens_per_step),
        format::int(a.final_output_tokens),
        tokens_rule(a),
        counted_note(sim),
        other_bands_note(sim)
    );
    s.push_str(&sideways(
        fmt,
        &tables::variants(doc),
        tables::variant_identity_columns(doc),
        width,
    ));
    s.push('\n');
    s.push_str(&plain_table(fmt, &tables::attribution(doc), width));
    if let Some(top) = most_expensive_result(fmt, sim) {
        s.push_str(&top);
    }
    s.push('\n');
    s.push_str(&plain_table(fmt, &tables::capabilities(doc), width));
    s.push_str(&format!(
        "Data fee: {} over {} charged responses; {} replay(s) skipped, {} uncharged; median latency of calls with data {}.\n\n",
        fmt.money(sim.ledger.total_usd, Scale::Request),
        sim.ledger.charged,
        sim.ledger.replays_skipped,
        sim.ledger.uncharged,
        format::seconds(sim.ledger.median_latency_with_data_ms)
    ));
    if !sim.tool_fees.is_empty() {
        s.push_str(&plain_table(fmt, &tables::tool_fees(doc), width));
        s.push('\n');
    }
    s.push_str(&sideways(fmt, &tables::per_day(doc), 2, width));
    if let Some(t) = tables::periods(doc) {
        s.push('\n');
        s.push_str(&sideways(fmt, &t, 1, width));
        for line in budget_lines(fmt, doc) {
            s.push_str(&format!("{line}\n"));
        }
    }
    s
}

/// The backtest of a recorded trace: its summary lines, compactions and
/// cache breaks (empty for a hand-written trace).
fn backtest_section(fmt: &Fmt, doc: &SimulationDoc, width: usize) -> String {
    let recorded = backtest::summary(fmt, doc);
    let mut s = String::new();
    if recorded.is_empty() {
        return s;
    }
    s.push_str("\nBacktest\n");
    for line in recorded {
        s.push_str(&format!("- {line}\n"));
    }
    for t in [backtest::compaction(doc), backtest::breaks(doc)]
        .into_iter()
        .flatten()
    {
        s.push('\n');
        s.push_str(&plain_table(fmt, &t, width));
    }
    s
}

/// The what-ifs' summary lines and their short tables (the long ones,
/// sweep and restarts, are in the HTML report and the CSV exports).
fn what_if_section(fmt: &Fmt, doc: &SimulationDoc, width: usize) -> String {
    let summary = what_if::summary(fmt, doc);
    let mut s = String::new();
    if summary.is_empty() {
        return s;
    }
    s.push_str("\nWhat if\n");
    for line in summary {
        s.push_str(&format!("- {line}\n"));
    }
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
        s.push_str(&plain_table(fmt, &t, width));
    }
    s
}

/// The answer, first: the cheapest and dearest variant and the saving a run
/// and a day (lower bounds), the same figures as the page's Answer box.
fn answer(fmt: &Fmt, doc: &SimulationDoc) -> Option<String> {
    let h = headline(fmt, doc)?;
    Some(format!(
        "Answer: cheapest {} at {} a run; dearest {} at {}. Saving {} a run ({}), {} a day at {} runs a day. Lower bounds; upper bounds are in the tables.",
        h.cheapest,
        h.cheapest_total,
        h.dearest,
        h.dearest_total,
        h.saving,
        h.saving_percent,
        h.saving_per_day,
        h.runs_per_day
    ))
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
            fmt.money(top.cost[i].lower, Scale::Run)
        ));
    }
    Some(lines)
}

fn html(fmt: &Fmt, doc: &SimulationDoc, opts: &HtmlOptions) -> Result<Vec<u8>, tera::Error> {
    let sim = &doc.simulation;
    let (live, live_missing) = live_parts(opts);
    let page = Page {
        live,
        live_missing,
        generator: HTML_GENERATOR,
        title: format!("tokencast report: {}", sim.scenario),
        question: super::html::with_basis(fmt, sim.question.clone()),
        model: sim.prices.model.clone(),
        facts: facts(fmt, sim),
        headline: headline(fmt, doc),
        blocks: with_slots(fmt, blocks(fmt, doc), |f, slot| {
            charts::simulation_slot(f, doc, slot)
        }),
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
