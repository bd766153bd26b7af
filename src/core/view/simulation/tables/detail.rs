//! The run's detail tables: every request, the ledger of tool calls, the
//! prices used, the assumptions with their sources, and the models compared.

use super::outline_note;
use crate::document::SimulationDoc;
use crate::scenario::Content;
use crate::view::format::Scale;
use crate::view::table::{col, variant_key, Cell, DataTable};
use rust_decimal::Decimal;

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
                Cell::Text(c.capability.to_string()),
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
    let rows: Vec<AssumptionRow> = vec![
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
    if a.team_size > 1 {
        rows.push((
            "team_size",
            "team size (people, each starting the runs per day)",
            Cell::Int(a.team_size),
        ));
    }
    rows.extend(fitted_rows(a));
    rows.extend(basis_rows(sim));
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

/// An assumption row: its key, its description, its value.
type AssumptionRow = (&'static str, &'static str, Cell);

/// What a calibration or an import fitted, where there is something.
fn fitted_rows(a: &crate::scenario::Assumptions) -> Vec<AssumptionRow> {
    let mut rows = Vec::new();
    if let Some(w) = a.weights() {
        rows.push((
            "content_weights",
            "bytes of the band a byte counts as: code, tool output, text",
            Cell::Text(format!("{} / {} / {}", w.code, w.output, w.text)),
        ));
    }
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
    rows
}

/// The currency (when not US dollars) and the date that chose the prices.
fn basis_rows(sim: &crate::engine::Simulation) -> Vec<AssumptionRow> {
    let mut rows = Vec::new();
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
    rows
}

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
