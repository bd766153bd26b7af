//! The HTML report: one self-contained page rendered with tera.
//!
//! The page is built from private view structs whose numbers are already
//! formatted in Rust, so the template holds only loops and ifs. The template
//! is compiled into the binary; its name ends in `.html`, so tera escapes
//! every value (user labels included) except the SVG charts, which plotters
//! has already escaped.

pub mod charts;

use super::tables::{self, DataTable};
use crate::engine::Simulation;
use crate::format;
use crate::output::HTML_GENERATOR;
use rust_decimal::Decimal;
use serde::Serialize;

const BASE: &str = include_str!("../../../templates/base.html");
const REPORT: &str = include_str!("../../../templates/report.html");

/// Options that change the page.
#[derive(Debug, Clone, Default)]
pub struct HtmlOptions {
    /// A generation time to print in the footer (the renderer never reads the clock).
    pub timestamp: Option<String>,
}

#[derive(Serialize)]
struct Page {
    generator: &'static str,
    title: String,
    question: String,
    model: String,
    facts: Vec<Fact>,
    headline: Option<Headline>,
    blocks: Vec<Block>,
    price_source: String,
    price_read_on: String,
    version: String,
    fingerprint: String,
    fingerprint_short: String,
    inputs: Vec<Fact>,
    timestamp: Option<String>,
}

#[derive(Serialize)]
struct Fact {
    label: String,
    value: String,
}

#[derive(Serialize)]
struct Headline {
    cheapest: String,
    cheapest_total: String,
    dearest: String,
    dearest_total: String,
    saving: String,
    saving_percent: String,
    runs_per_day: String,
    saving_per_day: String,
}

/// One block of the page: an optional section heading, then a chart or a table.
#[derive(Serialize, Default)]
struct Block {
    heading: Option<String>,
    note: Option<String>,
    list: Vec<String>,
    chart: Option<ChartView>,
    table: Option<TableView>,
    collapsible: bool,
}

impl Block {
    fn table(t: TableView) -> Block {
        Block {
            table: Some(t),
            ..Block::default()
        }
    }

    fn heading(mut self, h: &str, note: Option<String>) -> Block {
        self.heading = Some(h.to_string());
        self.note = note;
        self
    }
}

#[derive(Serialize)]
struct ChartView {
    id: String,
    title: String,
    caption: String,
    svg: Option<String>,
    error: Option<String>,
}

#[derive(Serialize)]
struct TableView {
    id: String,
    title: String,
    header: Vec<CellView>,
    rows: Vec<Vec<CellView>>,
}

#[derive(Serialize)]
struct CellView {
    text: String,
    num: bool,
    /// A row header (the label column of a transposed table).
    head: bool,
}

fn view(t: &DataTable) -> TableView {
    TableView {
        id: t.id.to_string(),
        title: t.title.clone(),
        header: t
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| CellView {
                text: c.label.clone(),
                num: t.rows.first().is_some_and(|r| r[i].is_numeric()),
                head: false,
            })
            .collect(),
        rows: t
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| CellView {
                        text: c.display(),
                        num: c.is_numeric(),
                        head: false,
                    })
                    .collect()
            })
            .collect(),
    }
}

/// A one-row-per-variant table turned sideways, as the seed lays it out.
fn transposed(t: &DataTable, skip: usize) -> TableView {
    let mut header = vec![CellView {
        text: String::new(),
        num: false,
        head: false,
    }];
    header.extend(t.rows.iter().map(|r| CellView {
        text: r[0].display(),
        num: true,
        head: false,
    }));
    TableView {
        id: t.id.to_string(),
        title: t.title.clone(),
        header,
        rows: t
            .columns
            .iter()
            .enumerate()
            .skip(skip)
            .map(|(i, c)| {
                let mut row = vec![CellView {
                    text: c.label.clone(),
                    num: false,
                    head: true,
                }];
                row.extend(t.rows.iter().map(|r| CellView {
                    text: r[i].display(),
                    num: true,
                    head: false,
                }));
                row
            })
            .collect(),
    }
}

fn headline(sim: &Simulation) -> Option<Headline> {
    if sim.variants.len() < 2 {
        return None;
    }
    let (lo, hi) = sim.cheapest_and_dearest();
    let (c, d) = (&sim.variants[lo], &sim.variants[hi]);
    let saving = d.cost.total.lower - c.cost.total.lower;
    let share = if d.cost.total.lower.is_zero() {
        Decimal::ZERO
    } else {
        saving / d.cost.total.lower
    };
    Some(Headline {
        cheapest: c.variant.variant.name.clone(),
        cheapest_total: format::usd(c.cost.total.lower, 3),
        dearest: d.variant.variant.name.clone(),
        dearest_total: format::usd(d.cost.total.lower, 3),
        saving: format::usd(saving, 3),
        saving_percent: format::percent(share),
        runs_per_day: format::int(sim.assumptions.runs_per_day),
        saving_per_day: format::usd(d.per_day.total.lower - c.per_day.total.lower, 2),
    })
}

fn facts(sim: &Simulation) -> Vec<Fact> {
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
                format::percent(if raw.result_bytes == 0 {
                    Decimal::ZERO
                } else {
                    Decimal::ONE
                        - Decimal::from(trimmed.result_bytes) / Decimal::from(raw.result_bytes)
                })
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
            format::usd(sim.ledger.total_usd, 4),
        ),
    ]
}

fn chart_block(c: charts::Chart) -> Block {
    let (svg, error) = match c.svg {
        Ok(s) => (Some(s), None),
        Err(e) => (None, Some(e)),
    };
    Block {
        chart: Some(ChartView {
            id: c.id,
            title: c.title,
            caption: c.caption,
            svg,
            error,
        }),
        ..Block::default()
    }
}

fn blocks(sim: &Simulation) -> Vec<Block> {
    let mut out = vec![Block::table(transposed(&tables::variants(sim), 4)).heading(
        "Variants",
        Some("Lower bound: tokens = bytes ÷ b. Upper bound: prefix and tool results × the tokenizer uplift. Figures are rounded half away from zero; the JSON output carries the exact values.".into()),
    )];
    let mut base_charts = charts::all(sim);
    let what_if_charts = base_charts.split_off(base_charts.len().min(6));
    for (i, c) in base_charts.into_iter().enumerate() {
        let b = chart_block(c);
        out.push(if i == 0 { b.heading("Charts", None) } else { b });
    }
    out.push(Block::table(transposed(&tables::per_day(sim), 2)).heading("Tables", None));
    out.push(Block::table(view(&tables::capabilities(sim))));
    out.push(Block::table(view(&tables::attribution(sim))));
    for t in [tables::requests(sim), tables::ledger(sim)] {
        out.push(Block {
            collapsible: true,
            ..Block::table(view(&t))
        });
    }
    let summary = tables::what_if_summary(sim);
    if !summary.is_empty() {
        out.push(
            Block {
                list: summary,
                ..Block::default()
            }
            .heading("What if", None),
        );
        for c in what_if_charts {
            out.push(chart_block(c));
        }
        for t in tables::what_if(sim) {
            let long = t.rows.len() > 12;
            out.push(Block {
                collapsible: long,
                ..Block::table(view(&t))
            });
        }
    }
    out.push(
        Block::table(view(&tables::assumptions(sim))).heading("Assumptions and price book", None),
    );
    out.push(Block::table(view(&tables::prices(sim))));
    out
}

/// Renders the report page.
pub fn render(sim: &Simulation, opts: &HtmlOptions) -> Result<Vec<u8>, tera::Error> {
    let page = Page {
        generator: HTML_GENERATOR,
        title: format!("tokencast report: {}", sim.scenario),
        question: sim.question.clone(),
        model: sim.prices.model.clone(),
        facts: facts(sim),
        headline: headline(sim),
        blocks: blocks(sim),
        price_source: sim.prices.source.clone(),
        price_read_on: sim.prices.read_on.clone(),
        version: sim.tokencast_version.clone(),
        fingerprint: sim.fingerprint.clone(),
        fingerprint_short: sim.fingerprint.chars().take(16).collect(),
        inputs: sim
            .inputs
            .iter()
            .map(|i| Fact {
                label: i.name.clone(),
                value: i.sha256.clone(),
            })
            .collect(),
        timestamp: opts.timestamp.clone(),
    };
    render_template("report.html", &page)
}

/// Renders one of the compiled-in templates (names end in `.html`, so values are escaped).
fn render_template(name: &str, page: &impl Serialize) -> Result<Vec<u8>, tera::Error> {
    let mut tera = tera::Tera::new();
    tera.add_raw_templates([("base.html", BASE), ("report.html", REPORT)])?;
    let context = tera::Context::from_serialize(page)?;
    tera.render(name, &context).map(String::into_bytes)
}

/// What the footer of a sweep or diff page shows.
#[derive(Debug, Clone, Default)]
pub struct PageMeta {
    /// SHA-256 over the inputs.
    pub fingerprint: String,
    /// Input files and their hashes.
    pub inputs: Vec<crate::scenario::InputFile>,
    /// Generation time, when asked for.
    pub timestamp: Option<String>,
}

#[derive(Serialize)]
struct SimplePage {
    generator: &'static str,
    title: String,
    question: String,
    blocks: Vec<Block>,
    version: String,
    fingerprint: String,
    fingerprint_short: String,
    inputs: Vec<Fact>,
    timestamp: Option<String>,
}

fn simple_page(title: String, question: String, blocks: Vec<Block>, meta: &PageMeta) -> SimplePage {
    SimplePage {
        generator: HTML_GENERATOR,
        title,
        question,
        blocks,
        version: env!("CARGO_PKG_VERSION").to_string(),
        fingerprint: meta.fingerprint.clone(),
        fingerprint_short: meta.fingerprint.chars().take(16).collect(),
        inputs: meta
            .inputs
            .iter()
            .map(|i| Fact {
                label: i.name.clone(),
                value: i.sha256.clone(),
            })
            .collect(),
        timestamp: meta.timestamp.clone(),
    }
}

/// Renders a sweep as a page: its chart and its table.
pub fn render_sweep(
    s: &crate::analysis::sweep::Sweep,
    meta: &PageMeta,
) -> Result<Vec<u8>, tera::Error> {
    let blocks = vec![
        chart_block(charts::sweep(s)),
        Block::table(view(&tables::sweep(s))),
    ];
    let page = simple_page(
        format!("tokencast sweep: {}", s.scenario),
        format!(
            "How the cost of one run changes with {}.",
            s.axes
                .iter()
                .map(|a| a.param.name())
                .collect::<Vec<_>>()
                .join(" and ")
        ),
        blocks,
        meta,
    );
    render_template("base.html", &page)
}

/// Renders a forecast as a page: percentile tables, histograms and the fan.
pub fn render_forecast(
    f: &crate::analysis::forecast::Forecast,
    meta: &PageMeta,
) -> Result<Vec<u8>, tera::Error> {
    let mut blocks = vec![
        Block::table(view(&tables::forecast_variants(f))).heading(
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
        Block::table(view(&tables::forecast_context(f))),
        chart_block(charts::forecast_fan(f)).heading("Context size", None),
        Block::table(view(&tables::forecast_fan(f))),
    ];
    for (i, v) in f.variants.iter().enumerate() {
        let mut chart = charts::forecast_histogram(v, f.runs);
        chart.id = format!("chart-forecast-histogram-{}", i + 1);
        let b = chart_block(chart);
        blocks.push(if i == 0 {
            b.heading("Cost distribution per variant", None)
        } else {
            b
        });
    }
    blocks.push(
        Block::table(view(&tables::forecast_capabilities(f)))
            .heading("Recorded distributions", None),
    );
    let page = simple_page(
        format!("tokencast forecast: {}", f.scenario),
        format!(
            "What does a run of {} tool calls cost, and what budget covers 99 % of runs?",
            format::int(f.calls)
        ),
        blocks,
        meta,
    );
    render_template("base.html", &page)
}

/// Renders a diff as a page.
pub fn render_diff(d: &crate::diff::Diff, meta: &PageMeta) -> Result<Vec<u8>, tera::Error> {
    let page = simple_page(
        format!("tokencast diff: {} → {}", d.a, d.b),
        "Every figure of two results side by side, with absolute and relative change.".into(),
        vec![Block::table(view(&tables::diff(d)))],
        meta,
    );
    render_template("base.html", &page)
}
