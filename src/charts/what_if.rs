//! Charts (g)–(i): the retry break-even, the cache tier against model time,
//! and the cost of a restart by step.

use super::*;
use tokencast_core::document::SimulationDoc;
use tokencast_core::scenario::{Cache, Content};
use tokencast_core::view::Fmt;

/// (g) Retry break-even: cost per accepted answer as attempts grow.
pub fn retry(fmt: &Fmt, doc: &SimulationDoc) -> Option<Chart> {
    let r = doc.what_if.as_ref()?.retry.as_ref()?;
    let title = "(g) Retry break-even: cost per accepted answer";
    let pts = |get: fn(&tokencast_core::analysis::RetryPoint) -> Decimal| {
        r.curve
            .iter()
            .map(|p| (p.attempts as f64, f(get(p))))
            .collect::<Vec<_>>()
    };
    let today = f(r.baseline_cost_per_accepted);
    let first = r.curve.first().map_or(0.0, |p| p.attempts as f64);
    let last = r.curve.last().map_or(1.0, |p| p.attempts as f64);
    let svg = lines(
        fmt,
        Lines {
            title,
            x_desc: &format!("attempts for {} accepted answers", r.accepted),
            y_desc: "USD per accepted answer",
            lines: vec![
                Line {
                    label: r.baseline_model.clone(),
                    color: LINES[0],
                    dashed: false,
                    points: pts(|p| p.baseline_per_accepted),
                },
                Line {
                    label: r.candidate_model.clone(),
                    color: LINES[1],
                    dashed: false,
                    points: pts(|p| p.candidate_per_accepted),
                },
                Line {
                    label: format!(
                        "{} today ({} attempts)",
                        r.baseline_model, r.baseline_attempts
                    ),
                    color: LINES[2],
                    dashed: true,
                    points: vec![(first, today), (last, today)],
                },
            ],
            mark: r.break_even_attempts.and_then(|b| {
                let p = r.curve.iter().find(|p| p.attempts == b)?;
                Some((
                    (b as f64, f(p.candidate_per_accepted)),
                    format!("  break-even: {b} attempts"),
                ))
            }),
        },
    );
    Some(Chart {
        id: "chart-retry".into(),
        title: title.into(),
        caption: "Failed attempts count: cost per accepted answer = cost of all attempts ÷ accepted answers. Past the marked point the cheaper model costs more than the baseline does today.".into(),
        svg,
    })
}

/// (h) Cache tier against the model's time per step.
pub fn lifetime(fmt: &Fmt, doc: &SimulationDoc) -> Option<Chart> {
    let l = doc.what_if.as_ref()?.cache_lifetime.as_ref()?;
    let title = "(h) Cache tier vs model time per step";
    let mut series = Vec::new();
    for (i, c) in [Content::Raw, Content::Trimmed].into_iter().enumerate() {
        for (j, tier) in [Cache::FiveMinutes, Cache::OneHour].into_iter().enumerate() {
            series.push(Line {
                label: format!("{c}, {} tier", tier.key()),
                color: LINES[i * 2 + j],
                dashed: j == 1,
                points: l
                    .sweep
                    .iter()
                    .map(|p| {
                        let t = &p.tiers[i];
                        (
                            p.model_seconds as f64,
                            f(if j == 0 {
                                t.input_5m.lower
                            } else {
                                t.input_1h.lower
                            }),
                        )
                    })
                    .collect(),
            });
        }
    }
    let mark = l.flips.iter().rev().find_map(|(c, flip)| {
        flip.map(|s| {
            let i = usize::from(*c == Content::Trimmed);
            let y = l
                .sweep
                .iter()
                .find(|p| p.model_seconds == s)
                .map_or(0.0, |p| f(p.tiers[i].input_1h.lower));
            ((s as f64, y), format!("  {c}: 1h cheaper from {s} s"))
        })
    });
    Some(Chart {
        id: "chart-lifetime".into(),
        title: title.into(),
        caption: "Model input cost of one run when each request waits for the tool calls before it plus the model's time per step. A gap longer than the tier's lifetime expires the cache: the cost jumps, drawn as a step at the first time swept past it.".into(),
        svg: lines_shaped(
            fmt,
            Lines {
                title,
                x_desc: "model time per step (seconds)",
                y_desc: "model input, USD per run",
                lines: series,
                mark,
            },
            Shape {
                log_y: false,
                steps: true,
            },
        ),
    })
}

/// (i) Cost of one restart before each request.
pub fn restart(fmt: &Fmt, doc: &SimulationDoc) -> Option<Chart> {
    let sim = &doc.simulation;
    let r = doc.what_if.as_ref()?.restart.as_ref()?;
    let title = "(i) Extra cost of one restart, by step";
    let mut series: Vec<Line> = sim
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| Line {
            label: format!("{}: start over", shorten(&v.variant.variant.name, 30)),
            color: LINES[i % LINES.len()],
            dashed: i >= LINES.len(),
            points: r
                .rows
                .iter()
                .map(|row| (row.before_request as f64, f(row.start_over[i])))
                .collect(),
        })
        .collect();
    if let Some(i) = sim
        .variants
        .iter()
        .position(|v| v.variant.variant.name == r.cheapest)
    {
        series.push(Line {
            label: format!("{}: resume", shorten(&r.cheapest, 30)),
            color: LINES[i % LINES.len()],
            dashed: true,
            points: r
                .rows
                .iter()
                .map(|row| (row.before_request as f64, f(row.resume[i])))
                .collect(),
        });
    }
    Some(Chart {
        id: "chart-restart".into(),
        title: title.into(),
        caption: "Starting over pays every request before the restart again; resuming from an intact session rewrites the cache once.".into(),
        svg: lines(fmt, Lines {
            title,
            x_desc: "restart before request",
            y_desc: "extra USD per run",
            lines: series,
            mark: None,
        }),
    })
}

/// (j) Context management: each request's prompt, plain and with the
/// cheapest setting of each strategy.
pub fn context(fmt: &Fmt, doc: &SimulationDoc) -> Option<Chart> {
    let c = doc.what_if.as_ref()?.context.as_ref()?;
    let title = "(j) Prompt per request: plain, compacted, cleared";
    let series = c
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| Line {
            label: l.label.clone(),
            color: LINES[i % LINES.len()],
            dashed: i == 0,
            points: l
                .points
                .iter()
                .map(|(k, t)| (*k as f64, *t as f64))
                .collect(),
        })
        .collect();
    Some(Chart {
        id: "chart-context-management".into(),
        title: title.into(),
        caption: format!(
            "Prompt tokens of each request (lower bound) on `{}`. Compaction drops the prompt to the prefix and a {}-token summary; clearing keeps only recent results. Summarisation requests are counted as requests.",
            c.variant,
            tokencast_core::view::format::int(c.summary_tokens)
        ),
        svg: lines(fmt, Lines {
            title,
            x_desc: "request",
            y_desc: "prompt tokens",
            lines: series,
            mark: None,
        }),
    })
}

/// One strategy's cost against its setting, with the plain run.
fn setting_chart(
    fmt: &Fmt,
    c: &tokencast_core::analysis::context::ContextManagement,
    runs: &[tokencast_core::engine::context::StrategyRun],
    best: Option<usize>,
    which: (&str, &str, &str, usize),
    setting: fn(&tokencast_core::engine::context::Strategy) -> f64,
) -> Option<Chart> {
    let (id, title, x_desc, color) = which;
    let pts: Vec<(f64, f64)> = runs
        .iter()
        .map(|r| (setting(&r.strategy), f(r.cost.lower)))
        .collect();
    let (x0, x1) = (pts.first()?.0, pts.last()?.0);
    let plain = f(c.plain.cost.lower);
    let mark = best.map(|i| {
        let x = setting(&runs[i].strategy);
        (
            (x, f(runs[i].cost.lower)),
            format!(
                "  cheapest: {}",
                tokencast_core::view::format::int(x as u64)
            ),
        )
    });
    Some(Chart {
        id: id.into(),
        title: title.into(),
        caption: "The run's model cost at each setting tried, against the plain run (dashed). Cache writes rise when compaction restarts the cache or clearing breaks its prefix; the cheapest setting is marked.".into(),
        svg: lines(fmt, Lines {
            title,
            x_desc,
            y_desc: "model USD per run, lower bound",
            lines: vec![
                Line {
                    label: "plain run".into(),
                    color: LINES[0],
                    dashed: true,
                    points: vec![(x0, plain), (x1.max(x0 + 1.0), plain)],
                },
                Line {
                    label: x_desc.into(),
                    color: LINES[color],
                    dashed: false,
                    points: pts,
                },
            ],
            mark,
        }),
    })
}

/// (k) Compaction: model cost by threshold.
pub fn context_compaction(fmt: &Fmt, doc: &SimulationDoc) -> Option<Chart> {
    use tokencast_core::engine::context::Strategy;
    let c = doc.what_if.as_ref()?.context.as_ref()?;
    setting_chart(
        fmt,
        c,
        &c.compaction,
        c.best_compaction,
        (
            "chart-context-compaction",
            "(k) Compaction: model cost by threshold",
            "compaction threshold (prompt tokens)",
            1,
        ),
        |s| match s {
            Strategy::Compact {
                threshold_tokens, ..
            } => *threshold_tokens as f64,
            _ => 0.0,
        },
    )
}

/// (l) Clearing: model cost by the requests a result stays.
pub fn context_clearing(fmt: &Fmt, doc: &SimulationDoc) -> Option<Chart> {
    use tokencast_core::engine::context::Strategy;
    let c = doc.what_if.as_ref()?.context.as_ref()?;
    setting_chart(
        fmt,
        c,
        &c.clearing,
        c.best_clearing,
        (
            "chart-context-clearing",
            "(l) Clearing: model cost by steps kept",
            "requests a result stays (k)",
            2,
        ),
        |s| match s {
            Strategy::Clear { keep_steps } => *keep_steps as f64,
            _ => 0.0,
        },
    )
}

/// Charts (g)–(l) the scenario's what-ifs call for, in report order.
pub fn all(fmt: &Fmt, doc: &SimulationDoc) -> Vec<Chart> {
    [
        retry(fmt, doc),
        lifetime(fmt, doc),
        restart(fmt, doc),
        context(fmt, doc),
        context_compaction(fmt, doc),
        context_clearing(fmt, doc),
    ]
    .into_iter()
    .flatten()
    .collect()
}
