//! The backtest section: what was recorded next to what the engine replays.

use crate::document::SimulationDoc;
use crate::view::format;
use crate::view::format::Scale;
use crate::view::table::{col, Cell, DataTable};
use crate::view::Fmt;

/// Sentences for the terminal and the page.
pub fn summary(fmt: &Fmt, doc: &SimulationDoc) -> Vec<String> {
    let Some(b) = &doc.backtest else {
        return Vec::new();
    };
    let mut out = vec![format!(
        "Recorded against simulated ({}), over the {} recorded requests after the first: prompt tokens {} recorded, {} – {} simulated; cost {} recorded, {} – {} simulated.",
        b.variant,
        format::int(b.requests.len() as u64),
        format::int(b.recorded_prompt),
        format::count(b.simulated_prompt.lower),
        format::count(b.simulated_prompt.upper),
        fmt.money(b.recorded_cost, Scale::Request),
        fmt.money(b.simulated_cost.lower, Scale::Request),
        fmt.money(b.simulated_cost.upper, Scale::Request),
    )];
    out.push(format!(
        "{} of requests have their recorded prompt inside the ÷{} … ×{} band.",
        format::percent(b.in_band),
        doc.simulation.assumptions.bytes_per_token,
        doc.simulation.assumptions.tokenizer_uplift
    ));
    if let Some(e) = &doc.estimate {
        let each: Vec<String> = e
            .variants
            .iter()
            .map(|v| format!("{} {}", v.name, fmt.money(v.total, Scale::Request)))
            .collect();
        out.push(format!(
            "Central estimate at the calibration's {} bytes per token (inside the band): {} a run.",
            e.bytes_per_token,
            each.join(", ")
        ));
    }
    if let Some(f) = &b.fit {
        out.push(format!(
            "Fitted from the recorded prompt growth: {} bytes per token (per step: p10 {:.2}, median {:.2}, p90 {:.2}; statrs R-8) over {} steps; {} steps left out (the prompt shrank or no bytes were added).",
            f.bytes_per_token, f.p10, f.p50, f.p90, f.steps, f.skipped_steps
        ));
    }
    if let Some(c) = &b.compaction {
        let pct = |d: rust_decimal::Decimal| {
            let p = (d * rust_decimal::Decimal::from(100))
                .round_dp(1)
                .normalize();
            if p > rust_decimal::Decimal::ZERO {
                format!("+{p} %")
            } else {
                format!("{p} %")
            }
        };
        out.push(format!(
            "{} recorded compaction(s) (a prompt below half the one before), replayed by the engine at the same requests with the recorded summaries: over the {} requests from the first one, prompt tokens {} recorded; the compaction replay gives {} – {} ({} to {}), the plain replay {} – {} ({} to {}).",
            c.points.len(),
            c.after.requests,
            format::int(c.after.recorded),
            format::count(c.after.compacted.lower),
            format::count(c.after.compacted.upper),
            pct(c.after.difference.lower),
            pct(c.after.difference.upper),
            format::count(c.after.plain.lower),
            format::count(c.after.plain.upper),
            pct(c.after.plain_difference.lower),
            pct(c.after.plain_difference.upper),
        ));
    }
    if b.unpriced_requests > 0 {
        out.push(format!(
            "{} request(s) ran on models the price book does not price: unpriced, left out of both costs.",
            b.unpriced_requests
        ));
    }
    if !b.breaks.is_empty() {
        out.push(format!(
            "{} cache break(s): requests that read less than the previous one had cached; writing again cost {} more than reading.",
            b.breaks.len(),
            fmt.money(b.breaks_extra_cost, Scale::Request)
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
                    r.recorded_cost.map_or(Cell::Text("unpriced".into()), |c| {
                        Cell::Usd(c, Scale::Request)
                    }),
                    r.simulated_cost
                        .map_or(Cell::Empty, |c| Cell::Usd(c.lower, Scale::Request)),
                    r.simulated_cost
                        .map_or(Cell::Empty, |c| Cell::Usd(c.upper, Scale::Request)),
                ]
            })
            .collect(),
    })
}

/// The recorded compactions and the replays around them.
pub fn compaction(doc: &SimulationDoc) -> Option<DataTable> {
    let c = doc.backtest.as_ref()?.compaction.as_ref()?;
    let row = |what: &str,
               requests: u64,
               recorded: u64,
               plain: crate::engine::Bounds,
               compacted: crate::engine::Bounds| {
        vec![
            Cell::Text(what.into()),
            Cell::Int(requests),
            Cell::Int(recorded),
            Cell::Tokens(plain.lower),
            Cell::Tokens(plain.upper),
            Cell::Tokens(compacted.lower),
            Cell::Tokens(compacted.upper),
        ]
    };
    let mut rows = vec![
        row(
            "every request",
            doc.backtest.as_ref()?.requests.len() as u64,
            c.recorded_prompt,
            c.plain_prompt,
            c.compacted_prompt,
        ),
        row(
            "from the first compaction",
            c.after.requests,
            c.after.recorded,
            c.after.plain,
            c.after.compacted,
        ),
    ];
    rows.extend(c.points.iter().map(|p| {
        vec![
            Cell::Text(format!(
                "compaction before request {} ({} → {} tokens, summary {})",
                p.request,
                format::int(p.prompt_before),
                format::int(p.prompt_after),
                format::int(p.summary_tokens)
            )),
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
        ]
    }));
    Some(DataTable {
        id: "backtest_compaction",
        title: "Recorded compactions: Σ prompt tokens, recorded against the plain and the compaction replay".into(),
        columns: vec![
            col("requests_summed", "over"),
            col("requests", "requests"),
            col("recorded_prompt_tokens", "recorded"),
            col("plain_prompt_tokens_lower", "plain, lower"),
            col("plain_prompt_tokens_upper", "plain, upper"),
            col("compacted_prompt_tokens_lower", "compacted, lower"),
            col("compacted_prompt_tokens_upper", "compacted, upper"),
        ],
        rows,
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
                    x.extra_cost.map_or(Cell::Text("unpriced".into()), |c| {
                        Cell::Usd(c, Scale::Request)
                    }),
                ]
            })
            .collect(),
    })
}
