//! The backtest section: what was recorded next to what the engine replays.

use super::super::table::{col, Cell, DataTable};
use super::format;
use crate::document::SimulationDoc;

/// Sentences for the terminal and the page.
pub fn summary(doc: &SimulationDoc) -> Vec<String> {
    let Some(b) = &doc.backtest else {
        return Vec::new();
    };
    let mut out = vec![format!(
        "Recorded against simulated ({}), over the {} requests that carried tool results: prompt tokens {} recorded, {} – {} simulated; cost {} recorded, {} – {} simulated.",
        b.variant,
        format::int(b.requests.len() as u64),
        format::int(b.recorded_prompt),
        format::count(b.simulated_prompt.lower),
        format::count(b.simulated_prompt.upper),
        format::usd(b.recorded_cost, 4),
        format::usd(b.simulated_cost.lower, 4),
        format::usd(b.simulated_cost.upper, 4),
    )];
    out.push(format!(
        "{} of requests have their recorded prompt inside the ÷{} … ×{} band.",
        format::percent(b.in_band),
        doc.simulation.assumptions.bytes_per_token,
        doc.simulation.assumptions.tokenizer_uplift
    ));
    if let Some(f) = &b.fit {
        out.push(format!(
            "Fitted from the recorded prompt growth: {} bytes per token (per step: p10 {:.2}, median {:.2}, p90 {:.2}; statrs R-8) over {} steps; {} steps left out (the prompt shrank or no bytes were added).",
            f.bytes_per_token, f.p10, f.p50, f.p90, f.steps, f.skipped_steps
        ));
    }
    if b.unpriced_requests > 0 {
        out.push(format!(
            "{} request(s) ran on models the price book does not price: unpriced, left out of both costs.",
            b.unpriced_requests
        ));
    }
    if !b.breaks.is_empty() {
        let extra: rust_decimal::Decimal = b.breaks.iter().filter_map(|x| x.extra_cost).sum();
        out.push(format!(
            "{} cache break(s): requests that read less than the previous one had cached; writing again cost {} more than reading.",
            b.breaks.len(),
            format::usd(extra, 4)
        ));
    }
    out
}

/// Per request: recorded and simulated prompt and cost.
pub fn requests(doc: &SimulationDoc) -> Option<DataTable> {
    let b = doc.backtest.as_ref()?;
    Some(DataTable {
        id: "backtest",
        title: format!(
            "Recorded against simulated, per request ({}; USD)",
            b.variant
        ),
        columns: vec![
            col("request", "request"),
            col("results", "results carried"),
            col("recorded_prompt_tokens", "recorded prompt"),
            col("simulated_prompt_tokens_lower", "simulated, lower"),
            col("simulated_prompt_tokens_upper", "simulated, upper"),
            col("recorded_usd", "recorded cost"),
            col("simulated_usd_lower", "simulated cost, lower"),
            col("simulated_usd_upper", "simulated cost, upper"),
        ],
        rows: b
            .requests
            .iter()
            .map(|r| {
                vec![
                    Cell::Int(r.request),
                    Cell::Int(r.results),
                    Cell::Int(r.recorded_prompt),
                    Cell::Tokens(r.simulated_prompt.lower),
                    Cell::Tokens(r.simulated_prompt.upper),
                    r.recorded_cost
                        .map_or(Cell::Text("unpriced".into()), |c| Cell::Usd(c, 4)),
                    r.simulated_cost
                        .map_or(Cell::Empty, |c| Cell::Usd(c.lower, 4)),
                    r.simulated_cost
                        .map_or(Cell::Empty, |c| Cell::Usd(c.upper, 4)),
                ]
            })
            .collect(),
    })
}

/// Where the recorded cache broke.
pub fn breaks(doc: &SimulationDoc) -> Option<DataTable> {
    let b = doc.backtest.as_ref()?;
    if b.breaks.is_empty() {
        return None;
    }
    Some(DataTable {
        id: "cache_breaks",
        title: "Cache breaks in the recorded session (USD)".into(),
        columns: vec![
            col("request", "request"),
            col("gap_seconds", "gap (s)"),
            col("cause", "cause"),
            col("tokens_not_read", "tokens not read"),
            col("extra_usd", "cost against a read"),
        ],
        rows: b
            .breaks
            .iter()
            .map(|x| {
                vec![
                    Cell::Int(x.request),
                    x.gap_seconds.map_or(Cell::Empty, Cell::Int),
                    Cell::Text(x.cause.clone()),
                    Cell::Int(x.tokens),
                    x.extra_cost
                        .map_or(Cell::Text("unpriced".into()), |c| Cell::Usd(c, 4)),
                ]
            })
            .collect(),
    })
}
