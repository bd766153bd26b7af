//! The tables of a simulation: variants, attribution, capabilities, per
//! day, per request, ledger, assumptions and prices.

use crate::document::SimulationDoc;
use crate::view::format;
use crate::view::format::Scale;
use crate::view::table::{col, variant_key, Cell, DataTable};
use crate::view::Fmt;
use rust_decimal::Decimal;
mod detail;
pub use detail::{assumptions, ledger, models, prices, requests};

/// " — an outline: 1,998 of 1,000,000 results; …" for a document that holds an outline.
fn outline_note(doc: &SimulationDoc, kept: usize, total: u64, what: &str) -> String {
    if doc.simulation.rows != crate::engine::RowsKept::Outline {
        return String::new();
    }
    format!(
        " — an outline: {} of {} {what} (each stretch's ends and largest results); every row: --all-rows or --csv DIR",
        format::int(kept as u64),
        format::int(total)
    )
}

/// Identity columns of [`variants`] a sideways layout leaves out: the model
/// too when every variant runs on the scenario's model.
pub fn variant_identity_columns(doc: &SimulationDoc) -> usize {
    let sim = &doc.simulation;
    if sim
        .variants
        .iter()
        .all(|v| v.variant.model == sim.prices.model || v.variant.model.is_empty())
    {
        5
    } else {
        4
    }
}

/// Variants summary: one row per variant (the terminal shows it transposed, like the seed).
pub fn variants(doc: &SimulationDoc) -> DataTable {
    let sim = &doc.simulation;
    let columns = vec![
        col("variant", "variant"),
        col("results", "results"),
        col("cache", "cache"),
        col("mode", "mode"),
        col("model", "model"),
        col(
            "final_request_input_tokens_lower",
            "final request input, lower (tokens)",
        ),
        col(
            "final_request_input_tokens_upper",
            "final request input, upper (tokens)",
        ),
        col("uncached_input_usd_lower", "uncached input, lower"),
        col("cache_write_usd_lower", "cache writes, lower"),
        col("cache_read_usd_lower", "cache reads, lower"),
        col("model_input_usd_lower", "model input, lower"),
        col("model_input_usd_upper", "model input, upper"),
        col("model_output_usd", "model output"),
        col("data_fee_usd", "data fee (charged)"),
    ];
    let tail = Tail::of(sim);
    let mut columns = columns;
    columns.extend(tail.columns());
    for c in &mut columns {
        c.figure = variant_figure(&c.key);
    }
    let rows = sim
        .variants
        .iter()
        .map(|v| {
            let p = sim.profile(v.variant.variant.results);
            let c = &v.cost;
            let mut row = vec![
                Cell::Text(v.variant.variant.name.clone()),
                Cell::Text(v.variant.variant.results.to_string()),
                Cell::Text(v.variant.variant.cache.key().into()),
                Cell::Text(v.variant.variant.mode.key().into()),
                Cell::Text(v.variant.model.clone()),
                Cell::Tokens(v.final_request_input.unwrap_or(p.final_request_input).lower),
                Cell::Tokens(v.final_request_input.unwrap_or(p.final_request_input).upper),
                Cell::Usd(c.uncached_input.lower, Scale::Run),
                Cell::Usd(c.cache_write.lower, Scale::Run),
                Cell::Usd(c.cache_read.lower, Scale::Run),
                Cell::Usd(c.input.lower, Scale::Run),
                Cell::Usd(c.input.upper, Scale::Run),
                Cell::Usd(c.output.lower, Scale::Run),
                Cell::Usd(c.data_fee.lower, Scale::Request),
            ];
            row.extend(tail.cells(c, Scale::Request, Scale::Run));
            row
        })
        .collect();
    DataTable {
        id: "variants",
        title: "Cost of one run, per variant (USD)".into(),
        columns,
        rows,
    }
}

/// Where a column of the variants table is in the JSON document.
fn variant_figure(key: &str) -> Option<&'static str> {
    Some(match key {
        "variant" => "/variants/{row}/name",
        "results" => "/variants/{row}/results",
        "cache" => "/variants/{row}/cache",
        "mode" => "/variants/{row}/mode",
        "model" => "/variants/{row}/model",
        "uncached_input_usd_lower" => "/variants/{row}/cost/uncached_input/lower",
        "cache_write_usd_lower" => "/variants/{row}/cost/cache_write/lower",
        "cache_read_usd_lower" => "/variants/{row}/cost/cache_read/lower",
        "model_input_usd_lower" => "/variants/{row}/cost/input/lower",
        "model_input_usd_upper" => "/variants/{row}/cost/input/upper",
        "model_output_usd" => "/variants/{row}/cost/output/lower",
        "data_fee_usd" => "/variants/{row}/cost/data_fee/lower",
        "total_usd_lower" => "/variants/{row}/cost/total/lower",
        "total_usd_upper" => "/variants/{row}/cost/total/upper",
        // Cache storage and tool fees are left out of the document when zero.
        _ => return None,
    })
}

/// The last columns of the cost tables: cache storage and the price book's
/// tool fees when any variant pays them, then the totals.
struct Tail {
    storage: bool,
    fees: bool,
}

impl Tail {
    fn of(sim: &crate::engine::Simulation) -> Tail {
        Tail {
            storage: sim.variants.iter().any(|v| !v.cost.cache_storage.is_zero()),
            fees: !sim.tool_fees.is_empty(),
        }
    }

    fn columns(&self) -> Vec<crate::view::table::Column> {
        let mut out = Vec::new();
        if self.storage {
            out.push(col("cache_storage_usd_lower", "cache storage, lower"));
            out.push(col("cache_storage_usd_upper", "cache storage, upper"));
        }
        if self.fees {
            out.push(col("tool_fees_usd", "tool fees (price book)"));
        }
        out.push(col("total_usd_lower", "total, lower"));
        out.push(col("total_usd_upper", "total, upper"));
        out
    }

    /// Storage and fees at `dp`'s scale, the totals at `total_dp`'s.
    fn cells(&self, c: &crate::engine::CostBreakdown, dp: Scale, total_dp: Scale) -> Vec<Cell> {
        let mut out = Vec::new();
        if self.storage {
            out.push(Cell::Usd(c.cache_storage.lower, dp));
            out.push(Cell::Usd(c.cache_storage.upper, dp));
        }
        if self.fees {
            out.push(Cell::Usd(c.tool_fee.lower, dp));
        }
        out.push(Cell::Usd(c.total.lower, total_dp));
        out.push(Cell::Usd(c.total.upper, total_dp));
        out
    }
}

/// The price book's tool fees charged to one run.
pub fn tool_fees(doc: &SimulationDoc) -> DataTable {
    let sim = &doc.simulation;
    let rows = sim
        .tool_fees
        .iter()
        .map(|f| {
            vec![
                Cell::Text(f.fee.name.clone()),
                Cell::Text(f.fee.unit.key().into()),
                Cell::Usd(f.fee.price, Scale::Price),
                Cell::Text(
                    f.fee
                        .minimum_minutes
                        .map_or(String::new(), |m| format!("{m} min")),
                ),
                Cell::Text(f.capabilities.join(", ")),
                Cell::Int(f.calls),
                Cell::Millis(f.busy_ms as f64),
                Cell::Usd(f.charge, Scale::Request),
                Cell::Text(f.fee.source.clone()),
                Cell::Text(f.fee.read_on.clone()),
            ]
        })
        .collect();
    DataTable {
        id: "tool_fees",
        title: "Tool fees from the price book, per run (USD; calls that reached the tool: 2xx, not replays)".into(),
        columns: vec![
            col("fee", "fee"),
            col("unit", "unit"),
            col("price_usd", "price per unit"),
            col("minimum", "minimum"),
            col("capabilities", "capabilities"),
            col("calls", "calls"),
            col("busy_seconds", "tool time"),
            col("charge_usd", "charge per run"),
            col("source", "source"),
            col("read_on", "read on"),
        ],
        rows,
    }
}

/// Per tool result: what each one costs because it stays in the context.
pub fn attribution(doc: &SimulationDoc) -> DataTable {
    let sim = &doc.simulation;
    let mut columns = vec![
        col("call", "call"),
        col("capability", "capability"),
        col("raw_bytes", "raw bytes"),
        col("trimmed_bytes", "trimmed bytes"),
        col("raw_tokens_lower", "raw tokens"),
        col("resends", "resent"),
    ];
    for (i, v) in sim.variants.iter().enumerate() {
        columns.push(col(
            format!("{}_usd_lower", variant_key(i)),
            v.variant.variant.name.clone(),
        ));
    }
    let rows = sim
        .attribution
        .iter()
        .map(|a| {
            let mut row = vec![
                a.call.map_or(Cell::Empty, |c| Cell::Int(c.into())),
                Cell::Text(a.capability.clone()),
                Cell::Bytes(a.raw_bytes.into()),
                Cell::Bytes(a.trimmed_bytes.into()),
                Cell::Tokens(a.raw_tokens.lower),
                Cell::Int(a.resends),
            ];
            row.extend(a.cost.iter().map(|c| Cell::Usd(c.lower, Scale::Run)));
            row
        })
        .collect();
    DataTable {
        id: "attribution",
        title: format!(
            "Input cost attributed to each tool result (lower bound, USD){}",
            outline_note(
                doc,
                doc.simulation.attribution.len(),
                doc.simulation.tool_results,
                "results"
            )
        ),
        columns,
        rows,
    }
}

/// Per-capability statistics.
pub fn capabilities(doc: &SimulationDoc) -> DataTable {
    let sim = &doc.simulation;
    let columns = vec![
        col("capability", "capability"),
        col("calls", "calls"),
        col("items", "items"),
        col("mean_raw_bytes", "raw B/call"),
        col("mean_trimmed_bytes", "trimmed B/call"),
        col("raw_bytes_per_item", "raw B/item"),
        col("trimmed_bytes_per_item", "trimmed B/item"),
        col("cut_share", "cut"),
        col("median_latency_s", "median latency"),
    ];
    let opt = |d: Option<Decimal>| d.map_or(Cell::Empty, Cell::Bytes);
    let rows = sim
        .capabilities
        .iter()
        .map(|c| {
            vec![
                Cell::Text(c.capability.clone()),
                Cell::Int(c.calls),
                Cell::Int(c.items),
                Cell::Bytes(c.mean_raw_bytes),
                Cell::Bytes(c.mean_trimmed_bytes),
                opt(c.raw_bytes_per_item),
                opt(c.trimmed_bytes_per_item),
                Cell::Share(c.cut_share),
                Cell::Millis(c.median_latency_ms),
            ]
        })
        .collect();
    DataTable {
        id: "capabilities",
        title: "Per capability (successful, non-replayed calls)".into(),
        columns,
        rows,
    }
}

/// The runs-per-day projection.
pub fn per_day(doc: &SimulationDoc) -> DataTable {
    let sim = &doc.simulation;
    let columns = vec![
        col("variant", "variant"),
        col("runs_per_day", "runs per day"),
        col("model_input_usd_lower", "model input, lower"),
        col("model_input_usd_upper", "model input, upper"),
        col("model_output_usd", "model output"),
        col("data_fee_usd", "data fee"),
    ];
    let tail = Tail::of(sim);
    let mut columns = columns;
    columns.extend(tail.columns());
    for c in &mut columns {
        c.figure = variant_figure(&c.key);
    }
    let rows = sim
        .variants
        .iter()
        .map(|v| {
            let d = &v.per_day;
            let mut row = vec![
                Cell::Text(v.variant.variant.name.clone()),
                Cell::Int(sim.assumptions.runs_a_day()),
                Cell::Usd(d.input.lower, Scale::Cents),
                Cell::Usd(d.input.upper, Scale::Cents),
                Cell::Usd(d.output.lower, Scale::Cents),
                Cell::Usd(d.data_fee.lower, Scale::Cents),
            ];
            row.extend(tail.cells(d, Scale::Cents, Scale::Cents));
            row
        })
        .collect();
    DataTable {
        id: "per_day",
        title: format!(
            "{} runs a day (USD)",
            format::int(sim.assumptions.runs_a_day())
        ),
        columns,
        rows,
    }
}

/// Per run, day, week, month and year, with the plan's growth.
pub fn periods(doc: &SimulationDoc) -> Option<DataTable> {
    let p = doc.periods.as_ref()?;
    let mut columns = vec![col("variant", "variant")];
    for (key, label) in [
        ("run", "run"),
        ("day", "day"),
        ("week", "week"),
        ("month", "month 1"),
        ("year", "year"),
    ] {
        columns.push(col(format!("{key}_usd_lower"), format!("{label}, lower")));
        columns.push(col(format!("{key}_usd_upper"), format!("{label}, upper")));
    }
    let rows = p
        .variants
        .iter()
        .map(|v| {
            let mut row = vec![Cell::Text(v.name.clone())];
            for (b, dp) in [
                (v.run, Scale::Run),
                (v.day, Scale::Cents),
                (v.week, Scale::Cents),
                (v.month, Scale::Cents),
                (v.year, Scale::Cents),
            ] {
                row.push(Cell::Usd(b.lower, dp));
                row.push(Cell::Usd(b.upper, dp));
            }
            row
        })
        .collect();
    let plan = &p.plan;
    Some(DataTable {
        id: "periods",
        title: format!(
            "Per period (USD): {} runs a working day, {} working days a week, a month of 52/12 weeks{}",
            format::int(p.runs_per_day),
            plan.working_days_per_week,
            if plan.monthly_growth.is_zero() {
                String::new()
            } else {
                format!(
                    ", runs growing {} a month",
                    format::percent(plan.monthly_growth)
                )
            }
        ),
        columns,
        rows,
    })
}

/// Every table, in report order.
pub fn all(fmt: &Fmt, doc: &SimulationDoc) -> Vec<DataTable> {
    let mut out = vec![
        variants(doc),
        attribution(doc),
        capabilities(doc),
        per_day(doc),
        requests(doc),
        ledger(doc),
    ];
    if !doc.simulation.tool_fees.is_empty() {
        out.push(tool_fees(doc));
    }
    out.extend(periods(doc));
    out.extend(models(doc, true));
    out.extend([assumptions(doc), prices(doc)]);
    out.extend(
        [
            super::backtest::requests(doc),
            super::backtest::compaction(doc),
            super::backtest::breaks(doc),
        ]
        .into_iter()
        .flatten(),
    );
    out.extend(super::what_if::tables(fmt, doc));
    out
}
