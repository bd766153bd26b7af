//! The what-if tables and the sentences that answer each what-if question.

use crate::document::SimulationDoc;
use crate::engine::context::StrategyRun;
use crate::pricing::Cache;
use crate::scenario::Content;
use crate::view::format;
use crate::view::format::Scale;
use crate::view::table::{col, variant_key, Cell, DataTable};
use crate::view::Fmt;
use rust_decimal::Decimal;

/// The what-if tables the scenario asked for, in report order.
pub fn tables(fmt: &Fmt, doc: &SimulationDoc) -> Vec<DataTable> {
    [
        retry(doc),
        cache_lifetime(fmt, doc),
        lifetime_sweep(doc),
        effort(doc),
        restart(doc),
        context(doc),
        context_grid(doc),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn strategy_row(plain: &StrategyRun, r: &StrategyRun) -> Vec<Cell> {
    let saving = crate::analysis::context::saving(plain, r);
    vec![
        Cell::Text(crate::analysis::context::describe(&r.strategy)),
        Cell::Int(r.requests[0]),
        Cell::Int(r.events[0]),
        Cell::Tokens(r.peak_prompt.lower),
        Cell::Tokens(r.cache_write_tokens.lower),
        Cell::Usd(r.cache_write_cost.lower, Scale::Run),
        Cell::Usd(r.cost.lower, Scale::Run),
        Cell::Usd(r.cost.upper, Scale::Run),
        Cell::Usd(saving.lower, Scale::Run),
    ]
}

fn strategy_columns() -> Vec<crate::view::table::Column> {
    vec![
        col("strategy", "strategy"),
        col("requests", "requests"),
        col("events", "compactions / breaks"),
        col("peak_prompt_tokens_lower", "largest prompt"),
        col("cache_write_tokens_lower", "cache writes, tokens"),
        col("cache_write_usd_lower", "cache writes"),
        col("model_usd_lower", "model cost, lower"),
        col("model_usd_upper", "model cost, upper"),
        col("saving_usd_lower", "saving vs plain"),
    ]
}

/// Context management: the plain run and each strategy's cheapest setting.
pub fn context(doc: &SimulationDoc) -> Option<DataTable> {
    let c = doc.what_if.as_ref()?.context.as_ref()?;
    Some(DataTable {
        id: "context_management",
        title: format!(
            "Context management on `{}`: the cheapest setting of each strategy (summary {} tokens; counts and tokens at the lower bound)",
            c.variant,
            format::int(c.summary_tokens)
        ),
        columns: strategy_columns(),
        rows: c.best().into_iter().map(|r| strategy_row(&c.plain, r)).collect(),
    })
}

/// Context management: every setting tried.
pub fn context_grid(doc: &SimulationDoc) -> Option<DataTable> {
    let c = doc.what_if.as_ref()?.context.as_ref()?;
    Some(DataTable {
        id: "context_settings",
        title: format!(
            "Context management on `{}`: every setting tried (lower bound unless marked)",
            c.variant
        ),
        columns: strategy_columns(),
        rows: c
            .compaction
            .iter()
            .chain(&c.clearing)
            .map(|r| strategy_row(&c.plain, r))
            .collect(),
    })
}

/// Retry break-even curve: cost as the candidate's attempts grow.
pub fn retry(doc: &SimulationDoc) -> Option<DataTable> {
    let r = doc.what_if.as_ref()?.retry.as_ref()?;
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
                    Cell::Usd(p.baseline_total, Scale::Cents),
                    Cell::Usd(p.baseline_per_accepted, Scale::Run),
                    Cell::Usd(p.candidate_total, Scale::Cents),
                    Cell::Usd(p.candidate_per_accepted, Scale::Run),
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
pub fn cache_lifetime(fmt: &Fmt, doc: &SimulationDoc) -> Option<DataTable> {
    let l = doc.what_if.as_ref()?.cache_lifetime.as_ref()?;
    let mut rows = Vec::new();
    for t in &l.tiers {
        for (tier, expiries, cost) in [
            (Cache::FiveMinutes, t.expiries_5m, t.input_5m),
            (Cache::OneHour, t.expiries_1h, t.input_1h),
        ] {
            rows.push(vec![
                Cell::Text(t.results.to_string()),
                Cell::Text(tier.key().into()),
                Cell::Int(expiries),
                Cell::Usd(cost.lower, Scale::Run),
                Cell::Usd(cost.upper, Scale::Run),
                Cell::Text(if t.cheaper == tier { "cheaper" } else { "" }.into()),
            ]);
        }
    }
    for e in &l.final_expiry {
        rows.push(vec![
            Cell::Text(e.results.to_string()),
            Cell::Text("5m, one expiry before the final request".into()),
            Cell::Int(1),
            Cell::Usd(e.extra_cost.lower, Scale::Run),
            Cell::Usd(e.extra_cost.upper, Scale::Run),
            Cell::Text(format!(
                "extra; rewrite of {} tokens = {}; the 1-hour tier costs {} more",
                format::count(e.rewrite_tokens.lower),
                fmt.money(e.rewrite_cost.lower, Scale::Run),
                fmt.money(e.one_hour_premium.lower, Scale::Run)
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
pub fn lifetime_sweep(doc: &SimulationDoc) -> Option<DataTable> {
    let l = doc.what_if.as_ref()?.cache_lifetime.as_ref()?;
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
                    row.push(Cell::Usd(t.input_5m.lower, Scale::Run));
                    row.push(Cell::Usd(t.input_1h.lower, Scale::Run));
                    row.push(Cell::Text(t.cheaper.key().into()));
                }
                row
            })
            .collect(),
    })
}

/// Effort presets.
pub fn effort(doc: &SimulationDoc) -> Option<DataTable> {
    let sim = &doc.simulation;
    let rows = &doc.what_if.as_ref()?.effort;
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
                    Cell::Usd(r.output_cost[sync], Scale::Run),
                ];
                row.extend(r.total.iter().map(|t| Cell::Usd(*t, Scale::Run)));
                row
            })
            .collect(),
    })
}

/// Cost of one restart before each request, per variant.
pub fn restart(doc: &SimulationDoc) -> Option<DataTable> {
    let sim = &doc.simulation;
    let r = doc.what_if.as_ref()?.restart.as_ref()?;
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
                cells.extend(row.resume.iter().map(|c| Cell::Usd(*c, Scale::Run)));
                cells.extend(row.start_over.iter().map(|c| Cell::Usd(*c, Scale::Run)));
                cells
            })
            .collect(),
    })
}

/// Sentences that answer the what-if questions, for the terminal and the report.
pub fn summary(fmt: &Fmt, doc: &SimulationDoc) -> Vec<String> {
    let Some(w) = doc.what_if.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(r) = &w.retry {
        let mut s = format!(
            "Retry break-even: an attempt costs {} on {} and {} on {}. {} attempts on {} cost {} ({} per accepted answer).",
            fmt.money(r.baseline_cost_per_attempt, Scale::Cents),
            r.baseline_model,
            fmt.money(r.candidate_cost_per_attempt, Scale::Cents),
            r.candidate_model,
            r.baseline_attempts,
            r.baseline_model,
            fmt.money(r.baseline_total, Scale::Cents),
            fmt.money(r.baseline_cost_per_accepted, Scale::Run),
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
                        fmt.money(p.candidate_total, Scale::Cents),
                        fmt.money(p.candidate_per_accepted, Scale::Run)
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
                t.cheaper.lifetime_name(),
                format::count(e.rewrite_tokens.lower),
                fmt.money(e.rewrite_cost.lower, Scale::Cents),
                fmt.money(e.extra_cost.lower, Scale::Run),
                fmt.money(e.one_hour_premium.lower, Scale::Cents),
                flip.map_or(" The cheaper tier does not change over the sweep.".to_string(), |s| format!(" The cheaper tier flips at {s} s model time per step."))
            ));
        }
    }
    if let Some(c) = &w.context {
        out.push(context_sentence(fmt, c));
    }
    if let Some(r) = &w.restart {
        let n = |v: Option<u64>| v.map_or("any number of".to_string(), |n| n.to_string());
        out.push(format!(
            "Restarts: the cheapest variant ({}) leads by {} a run; it absorbs {} restarts resumed from a stored session, or {} started over, at an average step, before it loses the lead.",
            r.cheapest,
            fmt.money(r.lead, Scale::Run),
            n(r.absorbed_resuming),
            n(r.absorbed_starting_over)
        ));
    }
    out
}

fn context_sentence(fmt: &Fmt, c: &crate::analysis::context::ContextManagement) -> String {
    use crate::analysis::context::describe;
    let mut s = format!(
        "Context management on `{}`: the plain run costs {} (lower bound) and writes {} tokens to the cache.",
        c.variant,
        fmt.money(c.plain.cost.lower, Scale::Run),
        format::count(c.plain.cache_write_tokens.lower)
    );
    let best = |runs: &[StrategyRun], i: Option<usize>, none: &str| match i {
        Some(i) => {
            let r = &runs[i];
            let d = c.plain.cost.lower - r.cost.lower;
            format!(
                " Of {} setting{}, {} costs least: {} ({} {}), with {} event{} and {} tokens of cache writes.",
                runs.len(),
                if runs.len() == 1 { "" } else { "s" },
                describe(&r.strategy),
                fmt.money(r.cost.lower, Scale::Run),
                fmt.money(d.abs(), Scale::Run),
                if d >= Decimal::ZERO { "less" } else { "more" },
                r.events[0],
                if r.events[0] == 1 { "" } else { "s" },
                format::count(r.cache_write_tokens.lower)
            )
        }
        None => format!(" {none}"),
    };
    s.push_str(&best(
        &c.compaction,
        c.best_compaction,
        "No compaction threshold fits between the compacted prompt and the largest prompt.",
    ));
    s.push_str(&best(
        &c.clearing,
        c.best_clearing,
        "The run is too short to clear results.",
    ));
    s
}
