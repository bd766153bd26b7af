//! Terminal tables (comfy-table), laid out like the seed's tables.

use super::tables::{self, Cell, DataTable};
use crate::engine::Simulation;
use crate::format;
use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, ContentArrangement, Table};

/// What the terminal output includes.
#[derive(Debug, Clone, Copy, Default)]
pub struct TerminalOptions {
    /// Also print the per-request table.
    pub requests: bool,
}

fn new_table() -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    t
}

fn cell(c: &Cell) -> comfy_table::Cell {
    let mut out = comfy_table::Cell::new(c.display());
    if c.is_numeric() {
        out = out.set_alignment(CellAlignment::Right);
    }
    out
}

/// A table as written: header row, then rows.
pub fn plain_table(t: &DataTable) -> String {
    let mut out = new_table();
    out.set_header(t.columns.iter().map(|c| c.label.clone()));
    for row in &t.rows {
        out.add_row(row.iter().map(cell));
    }
    format!("{}\n{out}\n", t.title)
}

/// A one-row-per-variant table turned sideways: variants become columns.
/// `skip` leading columns are identity columns (the first is the header).
pub fn transposed(t: &DataTable, skip: usize) -> String {
    let mut out = new_table();
    let mut header = vec![String::new()];
    header.extend(t.rows.iter().map(|r| r[0].display()));
    out.set_header(header);
    for (i, c) in t.columns.iter().enumerate().skip(skip) {
        let mut row = vec![comfy_table::Cell::new(&c.label)];
        row.extend(t.rows.iter().map(|r| cell(&r[i])));
        out.add_row(row);
    }
    format!("{}\n{out}\n", t.title)
}

/// The whole terminal report.
pub fn render(sim: &Simulation, opts: TerminalOptions) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "tokencast {} · scenario {} · model {}\n{}\n\n",
        sim.tokencast_version, sim.scenario, sim.prices.model, sim.question
    ));
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
    s.push_str(&transposed(&tables::variants(sim), 4));
    if sim.variants.len() > 1 {
        let (lo, hi) = sim.cheapest_and_dearest();
        let (c, d) = (&sim.variants[lo], &sim.variants[hi]);
        let saving = d.cost.total.lower - c.cost.total.lower;
        let share = if d.cost.total.lower.is_zero() {
            rust_decimal::Decimal::ZERO
        } else {
            saving / d.cost.total.lower
        };
        s.push_str(&format!(
            "Cheapest: {} at {} a run; dearest: {} at {}; saving {} ({}) a run, lower bound.\n",
            c.variant.variant.name,
            format::usd(c.cost.total.lower, 3),
            d.variant.variant.name,
            format::usd(d.cost.total.lower, 3),
            format::usd(saving, 3),
            format::percent(share)
        ));
    }
    s.push('\n');
    s.push_str(&plain_table(&tables::attribution(sim)));
    if let Some(top) = most_expensive_result(sim) {
        s.push_str(&top);
    }
    s.push('\n');
    s.push_str(&plain_table(&tables::capabilities(sim)));
    s.push_str(&format!(
        "Data fee: {} over {} charged responses; {} replay(s) skipped, {} uncharged; median latency of calls with data {}.\n\n",
        format::usd(sim.ledger.total_usd, 4),
        sim.ledger.charged,
        sim.ledger.replays_skipped,
        sim.ledger.uncharged,
        format::seconds(sim.ledger.median_latency_with_data_ms)
    ));
    s.push_str(&transposed(&tables::per_day(sim), 2));
    let summary = tables::what_if_summary(sim);
    if !summary.is_empty() {
        s.push_str("\nWhat if\n");
        for line in summary {
            s.push_str(&format!("- {line}\n"));
        }
        // The long tables (sweep, restarts) are in the HTML report and the CSV exports.
        for t in [
            tables::retry(sim),
            tables::cache_lifetime(sim),
            tables::effort(sim),
        ]
        .into_iter()
        .flatten()
        {
            s.push('\n');
            s.push_str(&plain_table(&t));
        }
    }
    if opts.requests {
        s.push('\n');
        s.push_str(&plain_table(&tables::requests(sim)));
    }
    s
}

/// "Call 9 (reddit/search) costs most under raw, no cache: 18,175 tokens × 10 resends."
fn most_expensive_result(sim: &Simulation) -> Option<String> {
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
            format::usd(top.cost[i].lower, 3)
        ));
    }
    Some(lines)
}
