//! Every table the product shows, built once from a [`Simulation`].
//!
//! Cells keep exact values and say how to display them; the terminal, CSV and
//! HTML renderers only choose between [`Cell::display`] (rounded, grouped,
//! with units) and [`Cell::plain`] (exact, spreadsheet-friendly). So every
//! table in the report is also a CSV file with the same rows.

use crate::engine::{Bounds, Simulation};
use crate::format;
use crate::scenario::{Cache, Content};
use rust_decimal::Decimal;

/// One value of a table.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Free text.
    Text(String),
    /// A whole number.
    Int(u64),
    /// A token estimate, shown rounded to a whole token.
    Tokens(Decimal),
    /// USD, shown with this many decimals.
    Usd(Decimal, u32),
    /// Bytes, shown grouped.
    Bytes(Decimal),
    /// Milliseconds, shown as seconds with one decimal.
    Millis(f64),
    /// A 0–1 share, shown as a percent.
    Share(Decimal),
    /// Nothing to show.
    Empty,
}

impl Cell {
    /// For people: rounded half away from zero, grouped, with units.
    pub fn display(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Int(n) => format::int(*n),
            Cell::Tokens(d) | Cell::Bytes(d) => format::count(*d),
            Cell::Usd(d, dp) => format::usd(*d, *dp),
            Cell::Millis(ms) => format::seconds(*ms),
            Cell::Share(s) => format::percent(*s),
            Cell::Empty => String::new(),
        }
    }

    /// For spreadsheets: exact, no separators, no currency sign.
    pub fn plain(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Int(n) => n.to_string(),
            Cell::Tokens(d) | Cell::Bytes(d) | Cell::Usd(d, _) | Cell::Share(d) => {
                d.normalize().to_string()
            }
            Cell::Millis(ms) => format!("{}", ms / 1000.0),
            Cell::Empty => String::new(),
        }
    }

    /// True for numbers (right-aligned in tables).
    pub fn is_numeric(&self) -> bool {
        !matches!(self, Cell::Text(_) | Cell::Empty)
    }
}

/// A column: its CSV name and its display label.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// snake_case name with unit, used as the CSV header.
    pub key: String,
    /// Label for people.
    pub label: String,
}

fn col(key: impl Into<String>, label: impl Into<String>) -> Column {
    Column {
        key: key.into(),
        label: label.into(),
    }
}

/// A titled table with one header row.
#[derive(Debug, Clone, PartialEq)]
pub struct DataTable {
    /// Stable id, also the CSV file's stem.
    pub id: &'static str,
    /// Title for people.
    pub title: String,
    /// Columns in order.
    pub columns: Vec<Column>,
    /// Rows of cells, one per column.
    pub rows: Vec<Vec<Cell>>,
}

fn variant_key(i: usize) -> String {
    format!("v{}", i + 1)
}

/// Variants summary: one row per variant (the terminal shows it transposed, like the seed).
pub fn variants(sim: &Simulation) -> DataTable {
    let columns = vec![
        col("variant", "variant"),
        col("results", "results"),
        col("cache", "cache"),
        col("mode", "mode"),
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
        col("total_usd_lower", "total, lower"),
        col("total_usd_upper", "total, upper"),
    ];
    let rows = sim
        .variants
        .iter()
        .map(|v| {
            let p = sim.profile(v.variant.variant.results);
            let c = &v.cost;
            vec![
                Cell::Text(v.variant.variant.name.clone()),
                Cell::Text(v.variant.variant.results.to_string()),
                Cell::Text(cache_key(v.variant.variant.cache).into()),
                Cell::Text(format!("{:?}", v.variant.variant.mode).to_lowercase()),
                Cell::Tokens(p.final_request_input.lower),
                Cell::Tokens(p.final_request_input.upper),
                Cell::Usd(c.uncached_input.lower, 3),
                Cell::Usd(c.cache_write.lower, 3),
                Cell::Usd(c.cache_read.lower, 3),
                Cell::Usd(c.input.lower, 3),
                Cell::Usd(c.input.upper, 3),
                Cell::Usd(c.output.lower, 3),
                Cell::Usd(c.data_fee.lower, 4),
                Cell::Usd(c.total.lower, 3),
                Cell::Usd(c.total.upper, 3),
            ]
        })
        .collect();
    DataTable {
        id: "variants",
        title: "Cost of one run, per variant (USD)".into(),
        columns,
        rows,
    }
}

/// Cache tier as written in a scenario.
pub fn cache_key(c: Cache) -> &'static str {
    match c {
        Cache::None => "none",
        Cache::FiveMinutes => "5m",
        Cache::OneHour => "1h",
    }
}

/// Per tool result: what each one costs because it stays in the context.
pub fn attribution(sim: &Simulation) -> DataTable {
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
            row.extend(a.cost.iter().map(|c| Cell::Usd(c.lower, 3)));
            row
        })
        .collect();
    DataTable {
        id: "attribution",
        title: "Input cost attributed to each tool result (lower bound, USD)".into(),
        columns,
        rows,
    }
}

/// Per-capability statistics.
pub fn capabilities(sim: &Simulation) -> DataTable {
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
pub fn per_day(sim: &Simulation) -> DataTable {
    let columns = vec![
        col("variant", "variant"),
        col("runs_per_day", "runs per day"),
        col("model_input_usd_lower", "model input, lower"),
        col("model_input_usd_upper", "model input, upper"),
        col("model_output_usd", "model output"),
        col("data_fee_usd", "data fee"),
        col("total_usd_lower", "total, lower"),
        col("total_usd_upper", "total, upper"),
    ];
    let rows = sim
        .variants
        .iter()
        .map(|v| {
            let d = &v.per_day;
            vec![
                Cell::Text(v.variant.variant.name.clone()),
                Cell::Int(sim.assumptions.runs_per_day),
                Cell::Usd(d.input.lower, 2),
                Cell::Usd(d.input.upper, 2),
                Cell::Usd(d.output.lower, 2),
                Cell::Usd(d.data_fee.lower, 2),
                Cell::Usd(d.total.lower, 2),
                Cell::Usd(d.total.upper, 2),
            ]
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

/// Per request: tokens for raw and trimmed results, and each variant's model cost.
pub fn requests(sim: &Simulation) -> DataTable {
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
                    .map(|v| Cell::Usd(v.request_costs[k].lower, 4)),
            );
            row
        })
        .collect();
    DataTable {
        id: "requests",
        title: "Per request: input tokens and model cost (lower bound)".into(),
        columns,
        rows,
    }
}

/// The trace as a data-fee ledger: which rows were charged, which skipped.
pub fn ledger(sim: &Simulation) -> DataTable {
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
                Cell::Usd(c.charged_usd, 6),
                Cell::Text(billed.into()),
            ]
        })
        .collect();
    DataTable {
        id: "ledger",
        title: "Trace and data-fee ledger".into(),
        columns,
        rows,
    }
}

/// The price book entry used.
pub fn prices(sim: &Simulation) -> DataTable {
    let p = &sim.prices;
    let price = |v: Option<Decimal>| v.map_or(Cell::Text("not given".into()), |d| Cell::Usd(d, 2));
    let entries = [
        ("input", Some(p.input)),
        ("output", Some(p.output)),
        ("cache_write_5m", p.cache_write_5m),
        ("cache_write_1h", p.cache_write_1h),
        ("cache_read", p.cache_read),
        ("batch_input", p.batch_input),
        ("batch_output", p.batch_output),
    ];
    DataTable {
        id: "prices",
        title: format!("Prices of {} (USD per million tokens)", p.model),
        columns: vec![
            col("price", "price"),
            col("usd_per_million_tokens", "USD / M tokens"),
            col("source", "source"),
            col("read_on", "read on"),
        ],
        rows: entries
            .into_iter()
            .map(|(name, v)| {
                vec![
                    Cell::Text(name.into()),
                    price(v),
                    Cell::Text(p.source.clone()),
                    Cell::Text(p.read_on.clone()),
                ]
            })
            .collect(),
    }
}

/// The assumptions used.
pub fn assumptions(sim: &Simulation) -> DataTable {
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

/// The what-if tables the scenario asked for, in report order.
pub fn what_if(sim: &Simulation) -> Vec<DataTable> {
    [
        retry(sim),
        cache_lifetime(sim),
        lifetime_sweep(sim),
        effort(sim),
        restart(sim),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Every table, in report order.
pub fn all(sim: &Simulation) -> Vec<DataTable> {
    let mut out = vec![
        variants(sim),
        attribution(sim),
        capabilities(sim),
        per_day(sim),
        requests(sim),
        ledger(sim),
        assumptions(sim),
        prices(sim),
    ];
    out.extend(what_if(sim));
    out
}

/// Formats a lower/upper pair for people: `160,627 / 206,115`.
pub fn tokens_pair(b: Bounds) -> String {
    format!("{} / {}", format::count(b.lower), format::count(b.upper))
}

/// Retry break-even curve: cost as the candidate's attempts grow.
pub fn retry(sim: &Simulation) -> Option<DataTable> {
    let r = sim.what_if.as_ref()?.retry.as_ref()?;
    Some(DataTable {
        id: "retry",
        title: format!(
            "Retry break-even: {} vs {}, {} accepted answers (USD)",
            r.candidate_model, r.baseline_model, r.accepted
        ),
        columns: vec![
            col("attempts", "attempts"),
            col("baseline_usd", format!("{} total", r.baseline_model)),
            col(
                "baseline_usd_per_accepted",
                format!("{} per accepted", r.baseline_model),
            ),
            col("candidate_usd", format!("{} total", r.candidate_model)),
            col(
                "candidate_usd_per_accepted",
                format!("{} per accepted", r.candidate_model),
            ),
            col(
                "candidate_cheaper_than_baseline_run",
                "candidate ≤ baseline's run",
            ),
        ],
        rows: r
            .curve
            .iter()
            .map(|p| {
                vec![
                    Cell::Int(p.attempts),
                    Cell::Usd(p.baseline_total, 2),
                    Cell::Usd(p.baseline_per_accepted, 3),
                    Cell::Usd(p.candidate_total, 2),
                    Cell::Usd(p.candidate_per_accepted, 3),
                    Cell::Text(
                        if p.candidate_total <= r.baseline_total {
                            "yes"
                        } else {
                            "no"
                        }
                        .into(),
                    ),
                ]
            })
            .collect(),
    })
}

/// Cache tiers at the scenario's timing.
pub fn cache_lifetime(sim: &Simulation) -> Option<DataTable> {
    let l = sim.what_if.as_ref()?.cache_lifetime.as_ref()?;
    let mut rows = Vec::new();
    for t in &l.tiers {
        for (tier, expiries, cost) in [
            ("5m", t.expiries_5m, t.input_5m),
            ("1h", t.expiries_1h, t.input_1h),
        ] {
            rows.push(vec![
                Cell::Text(t.results.to_string()),
                Cell::Text(tier.into()),
                Cell::Int(expiries),
                Cell::Usd(cost.lower, 3),
                Cell::Usd(cost.upper, 3),
                Cell::Text(if t.cheaper == tier { "cheaper" } else { "" }.into()),
            ]);
        }
    }
    for e in &l.final_expiry {
        rows.push(vec![
            Cell::Text(e.results.to_string()),
            Cell::Text("5m, one expiry before the final request".into()),
            Cell::Int(1),
            Cell::Usd(e.extra_cost.lower, 3),
            Cell::Usd(e.extra_cost.upper, 3),
            Cell::Text(format!(
                "extra; rewrite of {} tokens = {}; the 1-hour tier costs {} more",
                format::count(e.rewrite_tokens.lower),
                format::usd(e.rewrite_cost.lower, 3),
                format::usd(e.one_hour_premium.lower, 3)
            )),
        ]);
    }
    Some(DataTable {
        id: "cache_lifetime",
        title: format!(
            "Cache lifetime at {} s model time per step: model input (USD)",
            Decimal::from(l.model_ms_per_step) / Decimal::from(1000)
        ),
        columns: vec![
            col("results", "results"),
            col("tier", "tier"),
            col("expiries", "expiries"),
            col("model_input_usd_lower", "model input, lower"),
            col("model_input_usd_upper", "model input, upper"),
            col("note", "note"),
        ],
        rows,
    })
}

/// The sweep of model time per step.
pub fn lifetime_sweep(sim: &Simulation) -> Option<DataTable> {
    let l = sim.what_if.as_ref()?.cache_lifetime.as_ref()?;
    let mut columns = vec![col("model_seconds_per_step", "model s/step")];
    for c in [Content::Raw, Content::Trimmed] {
        columns.push(col(format!("{c}_expiries_5m"), format!("{c}: 5m expiries")));
        columns.push(col(
            format!("{c}_input_5m_usd_lower"),
            format!("{c}: 5m input"),
        ));
        columns.push(col(
            format!("{c}_input_1h_usd_lower"),
            format!("{c}: 1h input"),
        ));
        columns.push(col(format!("{c}_cheaper"), format!("{c}: cheaper")));
    }
    Some(DataTable {
        id: "lifetime_sweep",
        title: "Model time per step vs cache tier (model input, lower bound, USD)".into(),
        columns,
        rows: l
            .sweep
            .iter()
            .map(|p| {
                let mut row = vec![Cell::Int(p.model_seconds)];
                for t in &p.tiers {
                    row.push(Cell::Int(t.expiries_5m));
                    row.push(Cell::Usd(t.input_5m.lower, 3));
                    row.push(Cell::Usd(t.input_1h.lower, 3));
                    row.push(Cell::Text(t.cheaper.clone()));
                }
                row
            })
            .collect(),
    })
}

/// Effort presets.
pub fn effort(sim: &Simulation) -> Option<DataTable> {
    let rows = &sim.what_if.as_ref()?.effort;
    if rows.is_empty() {
        return None;
    }
    let mut columns = vec![
        col("preset", "preset"),
        col("output_tokens_per_step", "output/step"),
        col("output_tokens", "output/run"),
        col("output_usd_sync", "output (sync)"),
    ];
    for (i, v) in sim.variants.iter().enumerate() {
        columns.push(col(
            format!("{}_total_usd_lower", variant_key(i)),
            v.variant.variant.name.clone(),
        ));
    }
    let sync = sim
        .variants
        .iter()
        .position(|v| v.variant.variant.mode == crate::scenario::Mode::Sync)
        .unwrap_or(0);
    Some(DataTable {
        id: "effort",
        title: "Effort presets: output and total cost of one run (lower bound, USD)".into(),
        columns,
        rows: rows
            .iter()
            .map(|r| {
                let mut row = vec![
                    Cell::Text(r.preset.clone()),
                    Cell::Int(r.output_tokens_per_step),
                    Cell::Int(r.output_tokens),
                    Cell::Usd(r.output_cost[sync], 3),
                ];
                row.extend(r.total.iter().map(|t| Cell::Usd(*t, 3)));
                row
            })
            .collect(),
    })
}

/// Cost of one restart before each request, per variant.
pub fn restart(sim: &Simulation) -> Option<DataTable> {
    let r = sim.what_if.as_ref()?.restart.as_ref()?;
    let mut columns = vec![col("before_request", "restart before request")];
    for mode in ["resume", "start_over"] {
        for (i, v) in sim.variants.iter().enumerate() {
            columns.push(col(
                format!("{}_{mode}_usd_lower", variant_key(i)),
                format!("{}: {}", v.variant.variant.name, mode.replace('_', " ")),
            ));
        }
    }
    Some(DataTable {
        id: "restart",
        title: format!(
            "One restart: extra cost per run (lower bound, USD; idempotency keys: {})",
            if r.idempotency_keys { "yes" } else { "no" }
        ),
        columns,
        rows: r
            .rows
            .iter()
            .map(|row| {
                let mut cells = vec![Cell::Int(row.before_request)];
                cells.extend(row.resume.iter().map(|c| Cell::Usd(*c, 3)));
                cells.extend(row.start_over.iter().map(|c| Cell::Usd(*c, 3)));
                cells
            })
            .collect(),
    })
}

/// Sentences that answer the what-if questions, for the terminal and the report.
pub fn what_if_summary(sim: &Simulation) -> Vec<String> {
    let Some(w) = sim.what_if.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(r) = &w.retry {
        let mut s = format!(
            "Retry break-even: an attempt costs {} on {} and {} on {}. {} attempts on {} cost {} ({} per accepted answer).",
            format::usd(r.baseline_cost_per_attempt, 2),
            r.baseline_model,
            format::usd(r.candidate_cost_per_attempt, 2),
            r.candidate_model,
            r.baseline_attempts,
            r.baseline_model,
            format::usd(r.baseline_total, 2),
            format::usd(r.baseline_cost_per_accepted, 3),
        );
        match r.break_even_attempts {
            Some(b) => {
                let next = r.curve.iter().find(|p| p.attempts == b + 1);
                s.push_str(&format!(
                    " {} breaks even at {b} attempts for the same {} answers",
                    r.candidate_model, r.accepted
                ));
                if let Some(p) = next {
                    s.push_str(&format!(
                        "; attempt {} makes it {}, {} per accepted answer",
                        b + 1,
                        format::usd(p.candidate_total, 2),
                        format::usd(p.candidate_per_accepted, 3)
                    ));
                }
                s.push('.');
                if let Some(k) = r.successes_per_extra_attempt {
                    s.push_str(&format!(
                        " One extra attempt per {} successes uses the saving up.",
                        format::fixed(k, if k.fract().is_zero() { 0 } else { 2 })
                    ));
                }
            }
            None => s.push_str(&format!(
                " {} is not cheaper per attempt.",
                r.candidate_model
            )),
        }
        out.push(s);
    }
    if let Some(b) = &w.run_break_even {
        out.push(format!(
            "Whole-run break-even: the cheapest variant ({}) can be retried {} times ({} runs) before it costs more than one run of the most expensive ({}).",
            b.cheapest, b.retries, b.runs, b.dearest
        ));
    }
    if let Some(l) = &w.cache_lifetime {
        for (t, e) in l.tiers.iter().zip(&l.final_expiry) {
            let flip = l
                .flips
                .iter()
                .find(|(c, _)| *c == t.results)
                .and_then(|(_, f)| *f);
            out.push(format!(
                "Cache lifetime, {} results: {} expiries on the 5-minute tier at {} s per step, so the {} tier is cheaper. One expiry before the final request rewrites {} tokens ({}; the run costs {} more), while the 1-hour tier costs {} more over the whole run.{}",
                t.results,
                t.expiries_5m,
                Decimal::from(l.model_ms_per_step) / Decimal::from(1000),
                if t.cheaper == "1h" { "1-hour" } else { "5-minute" },
                format::count(e.rewrite_tokens.lower),
                format::usd(e.rewrite_cost.lower, 2),
                format::usd(e.extra_cost.lower, 3),
                format::usd(e.one_hour_premium.lower, 2),
                flip.map_or(" The cheaper tier does not change over the sweep.".to_string(), |s| format!(" The cheaper tier flips at {s} s model time per step."))
            ));
        }
    }
    if let Some(r) = &w.restart {
        let n = |v: Option<u64>| v.map_or("any number of".to_string(), |n| n.to_string());
        out.push(format!(
            "Restarts: the cheapest variant ({}) leads by {} a run; it absorbs {} restarts resumed from a stored session, or {} started over, at an average step, before it loses the lead.",
            r.cheapest,
            format::usd(r.lead, 3),
            n(r.absorbed_resuming),
            n(r.absorbed_starting_over)
        ));
    }
    out
}

/// A sweep: one row per point, the axes then each variant's total.
pub fn sweep(s: &crate::analysis::sweep::Sweep) -> DataTable {
    let mut columns: Vec<Column> = s
        .axes
        .iter()
        .map(|a| col(a.param.name(), a.param.name()))
        .collect();
    for (i, v) in s.variants.iter().enumerate() {
        columns.push(col(
            format!("{}_total_usd_lower", variant_key(i)),
            format!("{v}, lower"),
        ));
        columns.push(col(
            format!("{}_total_usd_upper", variant_key(i)),
            format!("{v}, upper"),
        ));
    }
    DataTable {
        id: "sweep",
        title: format!(
            "Sweep of {}: total cost of one run (USD)",
            s.axes
                .iter()
                .map(|a| a.param.name())
                .collect::<Vec<_>>()
                .join(" × ")
        ),
        columns,
        rows: s
            .points
            .iter()
            .map(|p| {
                let mut row: Vec<Cell> = p.values.iter().map(|v| Cell::Text(v.clone())).collect();
                for t in &p.totals {
                    row.push(Cell::Usd(t.lower, 3));
                    row.push(Cell::Usd(t.upper, 3));
                }
                row
            })
            .collect(),
    }
}

/// A diff: one row per compared figure.
pub fn diff(d: &crate::diff::Diff) -> DataTable {
    let opt =
        |v: Option<Decimal>, dp: u32| v.map_or(Cell::Text("—".into()), |x| Cell::Usd(x, dp));
    DataTable {
        id: "diff",
        title: format!("{} → {}", d.a, d.b),
        columns: vec![
            col("figure", "figure"),
            col("a", d.a.clone()),
            col("b", d.b.clone()),
            col("delta", "Δ"),
            col("delta_share", "Δ %"),
        ],
        rows: d
            .lines
            .iter()
            .map(|l| {
                let tokens = l.key.contains("tokens");
                let value = |v: Option<Decimal>| match (v, tokens) {
                    (Some(x), true) => Cell::Tokens(x),
                    _ => opt(v, 4),
                };
                vec![
                    Cell::Text(l.key.clone()),
                    value(l.a),
                    value(l.b),
                    value(l.delta),
                    l.delta_share.map_or(Cell::Text("—".into()), Cell::Share),
                ]
            })
            .collect(),
    }
}

/// Forecast: cost percentiles per variant.
pub fn forecast_variants(f: &crate::analysis::forecast::Forecast) -> DataTable {
    let usd = |v: f64| Cell::Usd(crate::analysis::forecast::to_decimal(v), 3);
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
                    row.push(Cell::Share(crate::analysis::forecast::to_decimal(share)));
                }
                row
            })
            .collect(),
    }
}

/// Forecast: final context size.
pub fn forecast_context(f: &crate::analysis::forecast::Forecast) -> DataTable {
    let tok = |v: f64| Cell::Tokens(crate::analysis::forecast::to_decimal(v));
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
                    row.push(Cell::Share(crate::analysis::forecast::to_decimal(share)));
                }
                row
            })
            .collect(),
    }
}

/// Forecast: context size against the number of calls.
pub fn forecast_fan(f: &crate::analysis::forecast::Forecast) -> DataTable {
    let tok = |v: f64| Cell::Tokens(crate::analysis::forecast::to_decimal(v));
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
pub fn forecast_capabilities(f: &crate::analysis::forecast::Forecast) -> DataTable {
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
                    Cell::Share(crate::analysis::forecast::to_decimal(c.share)),
                    Cell::Int(c.calls),
                    fit(c.items),
                    fit(c.raw_bytes_per_item),
                    fit(c.trimmed_bytes_per_item),
                ]
            })
            .collect(),
    }
}
