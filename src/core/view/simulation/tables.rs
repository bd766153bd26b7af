//! The tables of a simulation: variants, attribution, capabilities, per
//! day, per request, ledger, assumptions and prices.

use crate::document::SimulationDoc;
use crate::scenario::Content;
use crate::view::format;
use crate::view::format::Scale;
use crate::view::table::{col, variant_key, Cell, DataTable};
use crate::view::Fmt;
use rust_decimal::Decimal;

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
                Cell::Tokens(p.final_request_input.lower),
                Cell::Tokens(p.final_request_input.upper),
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
                Cell::Int(sim.assumptions.runs_per_day),
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
            format::int(sim.assumptions.runs_per_day)
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

/// Per request: tokens for raw and trimmed results, and each variant's model cost.
pub fn requests(doc: &SimulationDoc) -> DataTable {
    let sim = &doc.simulation;
    let mut columns = vec![col("request", "request"), col("after_call", "after call")];
    for content in [Content::Raw, Content::Trimmed] {
        columns.push(col(
            format!("{content}_input_tokens_lower"),
            format!("{content} input, lower"),
        ));
        columns.push(col(
            format!("{content}_input_tokens_upper"),
            format!("{content} input, upper"),
        ));
        columns.push(col(
            format!("{content}_cache_write_tokens_lower"),
            format!("{content} cache write"),
        ));
    }
    columns.push(col("output_tokens", "output"));
    for (i, v) in sim.variants.iter().enumerate() {
        columns.push(col(
            format!("{}_usd_lower", variant_key(i)),
            v.variant.variant.name.clone(),
        ));
    }
    let raw = &sim.profile(Content::Raw).per_request;
    let trimmed = &sim.profile(Content::Trimmed).per_request;
    let rows = raw
        .iter()
        .zip(trimmed)
        .enumerate()
        .map(|(k, (r, t))| {
            let mut row = vec![
                Cell::Int(r.request),
                r.after_call.map_or(Cell::Empty, |c| Cell::Int(c.into())),
            ];
            for p in [r, t] {
                row.push(Cell::Tokens(p.input.lower));
                row.push(Cell::Tokens(p.input.upper));
                row.push(Cell::Tokens(p.cache_write.lower));
            }
            row.push(Cell::Int(r.output));
            row.extend(
                sim.variants
                    .iter()
                    .map(|v| Cell::Usd(v.request_costs[k].lower, Scale::Request)),
            );
            row
        })
        .collect();
    DataTable {
        id: "requests",
        title: format!(
            "Per request: input tokens and model cost (lower bound){}",
            outline_note(
                doc,
                doc.simulation.context[0].per_request.len(),
                doc.simulation.context[0].requests,
                "requests"
            )
        ),
        columns,
        rows,
    }
}

/// The trace as a data-fee ledger: which rows were charged, which skipped.
pub fn ledger(doc: &SimulationDoc) -> DataTable {
    let sim = &doc.simulation;
    let columns = vec![
        col("row", "row"),
        col("call", "call"),
        col("capability", "capability"),
        col("status", "status"),
        col("items", "items"),
        col("raw_bytes", "raw bytes"),
        col("trimmed_bytes", "trimmed bytes"),
        col("latency_s", "latency"),
        col("charged_usd", "charged"),
        col("billed", "billed"),
    ];
    let rows = sim
        .trace
        .iter()
        .map(|c| {
            let billed = if c.replayed {
                "no: idempotent replay"
            } else if c.charged_usd.is_zero() {
                "no: not charged"
            } else {
                "yes"
            };
            vec![
                Cell::Int(c.row as u64),
                c.call.map_or(Cell::Empty, |n| Cell::Int(n.into())),
                Cell::Text(c.capability.clone()),
                Cell::Int(c.status.into()),
                Cell::Int(c.items),
                c.raw_bytes.map_or(Cell::Empty, |b| Cell::Bytes(b.into())),
                c.trimmed_bytes
                    .map_or(Cell::Empty, |b| Cell::Bytes(b.into())),
                Cell::Millis(c.latency_ms as f64),
                Cell::Usd(c.charged_usd, Scale::Charge),
                Cell::Text(billed.into()),
            ]
        })
        .collect();
    DataTable {
        id: "ledger",
        title: format!(
            "Trace and data-fee ledger{}",
            outline_note(
                doc,
                doc.simulation.trace.len(),
                doc.simulation.ledger.requests,
                "rows"
            )
        ),
        columns,
        rows,
    }
}

/// The price book entry used.
pub fn prices(doc: &SimulationDoc) -> DataTable {
    let sim = &doc.simulation;
    // Exact prices: at least cents, and every decimal the book gives.
    let price = |v: Option<Decimal>| {
        v.map_or(Cell::Text("not given".into()), |d| {
            Cell::Usd(d, Scale::Price)
        })
    };
    let models: Vec<&crate::pricing::ModelPrices> = std::iter::once(&sim.prices)
        .chain(&sim.other_prices)
        .collect();
    let rows = models
        .iter()
        .flat_map(|p| {
            p.listed().into_iter().map(move |(name, v)| {
                let multiplier = name.ends_with("_multiplier");
                vec![
                    Cell::Text(p.model.clone()),
                    Cell::Text(name),
                    if multiplier {
                        Cell::Text(format!("× {}", v.unwrap_or_default()))
                    } else {
                        price(v)
                    },
                    Cell::Text(p.source.clone()),
                    Cell::Text(p.read_on.clone()),
                ]
            })
        })
        .collect();
    DataTable {
        id: "prices",
        title: format!(
            "Prices of {} (USD per million tokens)",
            models
                .iter()
                .map(|p| p.model.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        columns: vec![
            col("model", "model"),
            col("price", "price"),
            col("usd_per_million_tokens", "USD / M tokens"),
            col("source", "source"),
            col("read_on", "read on"),
        ],
        rows,
    }
}

/// The assumptions used.
pub fn assumptions(doc: &SimulationDoc) -> DataTable {
    let sim = &doc.simulation;
    let a = &sim.assumptions;
    let rows = vec![
        (
            "prefix_tokens",
            "prefix: system prompt, tools, question (tokens)",
            Cell::Int(a.prefix_tokens),
        ),
        (
            "output_tokens_per_step",
            "output per step (tokens)",
            Cell::Int(a.output_tokens_per_step),
        ),
        (
            "final_output_tokens",
            "final answer (tokens)",
            Cell::Int(a.final_output_tokens),
        ),
        (
            "bytes_per_token",
            "bytes per token (lower bound)",
            Cell::Text(a.bytes_per_token.to_string()),
        ),
        (
            "tokenizer_uplift",
            "tokenizer uplift (upper bound)",
            Cell::Text(a.tokenizer_uplift.to_string()),
        ),
        ("runs_per_day", "runs per day", Cell::Int(a.runs_per_day)),
        (
            "tool_results",
            "tool results entering the context",
            Cell::Int(sim.tool_results),
        ),
    ];
    let mut rows = rows;
    // What a calibration or an import fitted, where there is something.
    if let Some(e) = a.estimate_bytes_per_token {
        rows.push((
            "estimate_bytes_per_token",
            "bytes per token (estimate)",
            Cell::Text(e.to_string()),
        ));
    }
    if !a.trim.is_none() {
        rows.push((
            "trim",
            "trim rule of the trimmed variants",
            Cell::Text(a.trim.to_string()),
        ));
    }
    if a.step_overhead_tokens > 0 {
        rows.push((
            "step_overhead_tokens",
            "framing a step (tokens)",
            Cell::Int(a.step_overhead_tokens),
        ));
    }
    if let Some(c) = &a.calibration {
        rows.push((
            "calibration",
            "calibration (file · family · measured steps)",
            Cell::Text(format!(
                "{} · {} · {}",
                crate::text::display(&c.file),
                crate::text::display(&c.family),
                c.steps
            )),
        ));
    }
    if !sim.currency.is_usd() {
        let c = &sim.currency;
        rows.push((
            "currency",
            "currency of every figure",
            Cell::Text(c.code.clone()),
        ));
        rows.push((
            "per_usd",
            "units per US dollar (prices and fees converted)",
            Cell::Text(c.per_usd.to_string()),
        ));
        rows.push((
            "rate_date",
            "date of the rate",
            Cell::Text(c.rate_date.clone()),
        ));
    }
    if let Some(d) = &sim.price_date {
        rows.push((
            "price_date",
            "date that chose the prices",
            Cell::Text(format!("{} ({})", d.date, d.from)),
        ));
    }
    DataTable {
        id: "assumptions",
        title: "Assumptions".into(),
        columns: vec![
            col("assumption", "assumption"),
            col("description", "description"),
            col("value", "value"),
        ],
        rows: rows
            .into_iter()
            .map(|(k, label, v)| vec![Cell::Text(k.into()), Cell::Text(label.into()), v])
            .collect(),
    }
}

/// Every table, in report order.
/// The same run on each compared model (`simulate --models`), cheapest
/// first: its cheapest variant's total for one run, against the scenario's;
/// `full`: every variant's total and the notes too (the CSV's table).
pub fn models(doc: &SimulationDoc, full: bool) -> Option<DataTable> {
    let r = doc.models.as_ref()?;
    let sim = &doc.simulation;
    let mut columns = vec![
        col("rank", "rank"),
        col("model", "model"),
        col("total_usd_lower", "cheapest, lower"),
        col("total_usd_upper", "cheapest, upper"),
        col("versus_scenario", format!("vs {}", r.scenario_model)),
        col("cheapest_variant", "cheapest variant"),
        col("cache", "cache"),
    ];
    if full {
        for (i, v) in sim.variants.iter().enumerate() {
            columns.push(col(
                format!("{}_total_usd_lower", variant_key(i)),
                format!("{}, lower", v.variant.variant.name),
            ));
        }
        columns.push(col("notes", "notes"));
    }
    Some(DataTable {
        id: "models",
        title: format!(
            "The same run on {} model(s), cheapest first: one run (USD)",
            r.models.len()
        ),
        columns,
        rows: r
            .models
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let mut row = vec![
                    Cell::Int(i as u64 + 1),
                    Cell::Text(m.model.clone()),
                    m.total.map_or(Cell::Missing("unpriced"), |t| {
                        Cell::Usd(t.lower, Scale::Run)
                    }),
                    m.total.map_or(Cell::Missing("unpriced"), |t| {
                        Cell::Usd(t.upper, Scale::Run)
                    }),
                    m.versus_scenario.map_or(Cell::Empty, Cell::Share),
                    m.cheapest.clone().map_or(Cell::Empty, Cell::Text),
                    Cell::Text(m.cache.clone()),
                ];
                if full {
                    row.extend(m.variants.iter().map(|v| {
                        v.total.map_or(Cell::Missing("unpriced"), |t| {
                            Cell::Usd(t.lower, Scale::Run)
                        })
                    }));
                    let notes: Vec<String> = m
                        .variants
                        .iter()
                        .filter_map(|v| v.note.as_ref().map(|n| format!("{}: {n}", v.variant)))
                        .collect();
                    row.push(Cell::Text(notes.join("; ")));
                }
                row
            })
            .collect(),
    })
}

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
