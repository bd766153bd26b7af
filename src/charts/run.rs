//! Charts (a)–(f) of a simulation: context growth, bytes per call, cost per
//! variant, cost per result, composition per capability, latency.

use super::*;
use tokencast_core::engine::Simulation;
use tokencast_core::scenario::{Cache, Content};
use tokencast_core::view::format;
use tokencast_core::view::Fmt;

/// The kinds of results the scenario's variants use, raw first.
fn contents(sim: &Simulation) -> Vec<Content> {
    [Content::Raw, Content::Trimmed]
        .into_iter()
        .filter(|c| sim.variants.iter().any(|v| v.variant.variant.results == *c))
        .collect()
}

/// "raw vs trimmed", or just "raw" when only one kind is used.
fn versus(sim: &Simulation) -> String {
    contents(sim)
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" vs ")
}

/// (a) Input tokens per request, raw vs trimmed, lower–upper band shaded.
pub fn context_growth(fmt: &Fmt, sim: &Simulation) -> Chart {
    let title = format!("(a) Input tokens per request, {}", versus(sim));
    let shown = contents(sim);
    let svg = draw(fmt, |root| {
        let root = &legend_below(root, &growth_keys(&shown))?;
        let last = shown
            .iter()
            .filter_map(|c| sim.profile(*c).per_request.last())
            .map(|r| r.request)
            .max()
            .unwrap_or(1);
        let rows_drawn = shown
            .first()
            .map_or(0, |c| sim.profile(*c).per_request.len());
        let ymax = nice_max(
            shown
                .iter()
                .flat_map(|c| sim.profile(*c).per_request.iter())
                .map(|r| f(r.input.upper) / 1000.0)
                .fold(0.0, f64::max),
        );
        let mut chart = titled(&mut ChartBuilder::on(root), fmt, &title)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(0.5..(last as f64 + 0.5), 0.0..ymax)?;
        let xfmt = |v: &f64| format_axis(v.round());
        let mut mesh = chart.configure_mesh();
        mesh.x_labels((last as usize).min(if fmt.canvas.is_narrow() { 8 } else { 25 }))
            .x_label_formatter(&xfmt)
            .y_label_formatter(&|v| format_axis(*v))
            .x_desc("request in the run")
            .y_desc("input tokens (thousands)");
        quiet_mesh(&mut mesh);
        mesh.draw()?;
        // Markers only while they can be told apart.
        let markers = rows_drawn <= MANY_BARS;
        for &c in &shown {
            draw_growth(&mut chart, &sim.profile(c).per_request, c, markers)?;
        }
        Ok(())
    });
    let mut caption = "Every tool result stays in the conversation, so each request carries all earlier results. The shaded band runs from bytes ÷ b (lower) to the tokenizer uplift (upper).".to_string();
    if sim.rows == tokencast_core::engine::RowsKept::Outline {
        caption.push_str(&format!(
            " Drawn from an outline of {} of {} requests (each stretch's first and last request and its largest results).",
            format::int(sim.context[0].per_request.len() as u64),
            format::int(sim.context[0].requests)
        ));
    }
    Chart {
        id: "chart-context".into(),
        title,
        caption,
        svg,
    }
}

/// How a kind of result is drawn: its colour, and dashed for trimmed.
fn style_of(c: Content) -> (RGBColor, bool) {
    match c {
        Content::Raw => (RAW, false),
        Content::Trimmed => (TRIMMED, true),
    }
}

/// The legend of chart (a): each kind's lower bound and its band.
fn growth_keys(shown: &[Content]) -> Vec<Key> {
    let mut keys = Vec::new();
    for &c in shown {
        let (color, dashed) = style_of(c);
        keys.push(Key {
            label: format!("{c} results, lower bound"),
            swatch: Swatch::Line(color, dashed),
        });
        keys.push(Key {
            label: format!("{c}: band up to the upper bound"),
            swatch: Swatch::Fill(tint(color, 0.18)),
        });
    }
    keys
}

/// One kind's input tokens per request: the band from lower to upper
/// bound shaded, the lower bound drawn, with markers when asked.
fn draw_growth<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    rows: &[tokencast_core::engine::RequestTokens],
    c: Content,
    markers: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (color, dashed) = style_of(c);
    let mut band: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| (r.request as f64, f(r.input.upper) / 1000.0))
        .collect();
    band.extend(
        rows.iter()
            .rev()
            .map(|r| (r.request as f64, f(r.input.lower) / 1000.0)),
    );
    chart.draw_series(std::iter::once(Polygon::new(
        band,
        color.mix(0.18).filled(),
    )))?;
    let lower: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| (r.request as f64, f(r.input.lower) / 1000.0))
        .collect();
    let style = color.stroke_width(2);
    if dashed {
        chart.draw_series(DashedLineSeries::new(lower.clone(), 6, 4, style))?;
    } else {
        chart.draw_series(LineSeries::new(lower.clone(), style))?;
    }
    if markers {
        if dashed {
            chart.draw_series(
                lower
                    .iter()
                    .map(|p| TriangleMarker::new(*p, 4, color.filled())),
            )?;
        } else {
            chart.draw_series(lower.iter().map(|p| Circle::new(*p, 3, color.filled())))?;
        }
    }
    Ok(())
}

fn call_labels(sim: &Simulation) -> Vec<String> {
    sim.attribution
        .iter()
        .map(|a| a.call.map_or(format!("r{}", a.row), |c| c.to_string()))
        .collect()
}

/// What the tool-call axis labels mean.
fn call_axis_note(sim: &Simulation) -> String {
    let mut note = String::new();
    if sim.attribution.iter().any(|a| a.call.is_none()) {
        note.push_str(
            " Axis labels are call numbers; rN is trace row N, which has no call number.",
        );
    }
    if sim.rows == tokencast_core::engine::RowsKept::Outline {
        note.push_str(&format!(
            " Showing {} of {} tool results: an outline keeping each stretch's largest results.",
            format::int(sim.attribution.len() as u64),
            format::int(sim.tool_results)
        ));
    }
    note
}

/// (b) Bytes per tool call, raw vs trimmed.
pub fn bytes_per_call(fmt: &Fmt, sim: &Simulation) -> Chart {
    let title = format!("(b) Bytes per tool call, {}", versus(sim));
    let kb = |b: u64| b as f64 / 1000.0;
    let series = contents(sim)
        .into_iter()
        .map(|c| Series {
            label: c.to_string(),
            color: if c == Content::Raw { RAW } else { TRIMMED },
            values: sim
                .attribution
                .iter()
                .map(|a| {
                    kb(if c == Content::Raw {
                        a.raw_bytes
                    } else {
                        a.trimmed_bytes
                    })
                })
                .collect(),
        })
        .collect();
    let svg = bars(
        fmt,
        Bars {
            title: &title,
            value_desc: "response size (KB, 1 KB = 1,000 bytes)",
            category_desc: "tool call",
            categories: call_labels(sim),
            series,
            stacked: false,
            horizontal: false,
        },
    );
    Chart {
        id: "chart-bytes".into(),
        title,
        caption: format!(
            "Size of each tool result as returned (dark) and after trimming (teal).{}",
            call_axis_note(sim)
        ),
        svg,
    }
}

/// (c) Cost of one run per variant, stacked by bill line.
pub fn cost_per_variant(fmt: &Fmt, sim: &Simulation) -> Chart {
    let title = "(c) Cost of one run per variant, lower bound";
    type Part = fn(&tokencast_core::engine::CostBreakdown) -> Decimal;
    let parts: [(&str, Part); 5] = [
        ("uncached input", |c| c.uncached_input.lower),
        ("cache writes", |c| c.cache_write.lower),
        ("cache reads", |c| c.cache_read.lower),
        ("output", |c| c.output.lower),
        ("data fee", |c| c.data_fee.lower),
    ];
    let svg = bars(
        fmt,
        Bars {
            title,
            value_desc: "USD per run",
            category_desc: "",
            categories: sim
                .variants
                .iter()
                .map(|v| shorten(&v.variant.variant.name, 36))
                .collect(),
            series: parts
                .iter()
                .zip(STACK)
                .map(|((label, get), color)| Series {
                    label: (*label).into(),
                    color,
                    values: sim.variants.iter().map(|v| f(get(&v.cost))).collect(),
                })
                .collect(),
            stacked: true,
            horizontal: true,
        },
    );
    Chart {
        id: "chart-variants".into(),
        title: title.into(),
        caption: "What one run costs under each variant, split into the lines of the bill.".into(),
        svg,
    }
}

/// (d) Input cost attributed to each tool result, no cache vs cached.
pub fn cost_per_result(fmt: &Fmt, sim: &Simulation) -> Chart {
    let title = "(d) Input cost attributed to each tool result";
    // Prefer raw results; compare the first uncached and the first cached variant.
    let pick = |content: Content| {
        let none = sim.variants.iter().position(|v| {
            v.variant.variant.results == content && v.variant.variant.cache == Cache::None
        });
        let cached = sim.variants.iter().position(|v| {
            v.variant.variant.results == content && v.variant.variant.cache != Cache::None
        });
        none.zip(cached)
    };
    let pair = pick(Content::Raw).or_else(|| pick(Content::Trimmed));
    let (svg, caption) = match pair {
        Some((a, b)) => {
            let series = [a, b]
                .into_iter()
                .zip([RAW, TRIMMED])
                .map(|(i, color)| Series {
                    label: sim.variants[i].variant.variant.name.clone(),
                    color,
                    values: sim.attribution.iter().map(|r| f(r.cost[i].lower)).collect(),
                })
                .collect();
            (
                bars(fmt, Bars {
                    title,
                    value_desc: "USD per run",
                    category_desc: "tool call",
                    categories: call_labels(sim),
                    series,
                    stacked: false,
                    horizontal: false,
                }),
                format!(
                    "Without a cache a result costs its tokens × its resends × the input price; with one it is written once and read on later requests. Compared: {} vs {}.{}",
                    sim.variants[a].variant.variant.name,
                    sim.variants[b].variant.variant.name,
                    call_axis_note(sim)
                ),
            )
        }
        None => (
            Err(
                "the scenario has no pair of uncached and cached variants with the same results"
                    .into(),
            ),
            String::new(),
        ),
    };
    Chart {
        id: "chart-attribution".into(),
        title: title.into(),
        caption,
        svg,
    }
}

/// (e) What a response of each capability is made of: kept vs cut (none
/// when no variant uses trimmed results).
pub fn composition(fmt: &Fmt, sim: &Simulation) -> Option<Chart> {
    if !contents(sim).contains(&Content::Trimmed) {
        return None;
    }
    let title = "(e) Mean response per capability: kept vs cut by trimming";
    let kb = |d: Decimal| f(d) / 1000.0;
    let svg = bars(
        fmt,
        Bars {
            title,
            value_desc: "mean bytes per call (KB)",
            category_desc: "",
            categories: sim
                .capabilities
                .iter()
                .map(|c| shorten(&c.capability, 36))
                .collect(),
            series: vec![
                Series {
                    label: "kept (trimmed)".into(),
                    color: TRIMMED,
                    values: sim
                        .capabilities
                        .iter()
                        .map(|c| kb(c.mean_trimmed_bytes))
                        .collect(),
                },
                Series {
                    label: "cut".into(),
                    color: STACK[3],
                    values: sim
                        .capabilities
                        .iter()
                        .map(|c| kb(c.mean_raw_bytes - c.mean_trimmed_bytes))
                        .collect(),
                },
            ],
            stacked: true,
            horizontal: true,
        },
    );
    Some(Chart {
        id: "chart-composition".into(),
        title: title.into(),
        caption: "The whole bar is the mean raw response; the teal part is what the field whitelist and text cut keep.".into(),
        svg,
    })
}

/// (f) Median latency per capability.
pub fn latency(fmt: &Fmt, sim: &Simulation) -> Chart {
    let title = "(f) Median latency per capability";
    let svg = bars(
        fmt,
        Bars {
            title,
            value_desc: "median latency (seconds)",
            category_desc: "",
            categories: sim
                .capabilities
                .iter()
                .map(|c| shorten(&c.capability, 36))
                .collect(),
            series: vec![Series {
                label: "median latency".into(),
                color: RAW,
                values: sim
                    .capabilities
                    .iter()
                    .map(|c| c.median_latency_ms / 1000.0)
                    .collect(),
            }],
            stacked: false,
            horizontal: true,
        },
    );
    Chart {
        id: "chart-latency".into(),
        title: title.into(),
        caption: "Slow tools stretch the gap between requests; a gap longer than the cache lifetime means the cache expires.".into(),
        svg,
    }
}

/// Charts (a)–(f), in report order.
pub fn all(fmt: &Fmt, sim: &Simulation) -> Vec<Chart> {
    [
        Some(context_growth(fmt, sim)),
        Some(bytes_per_call(fmt, sim)),
        Some(cost_per_variant(fmt, sim)),
        Some(cost_per_result(fmt, sim)),
        composition(fmt, sim),
        Some(latency(fmt, sim)),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Backtest: the recorded prompt of each request that carried tool results
/// against the engine's lower and upper bounds.
pub fn backtest(fmt: &Fmt, doc: &tokencast_core::document::SimulationDoc) -> Chart {
    let title = "Recorded prompt against the simulated band, per request";
    let rows = doc.backtest.as_ref().map_or(&[][..], |b| &b.requests[..]);
    let pts = |get: &dyn Fn(&tokencast_core::analysis::backtest::BacktestRow) -> f64| {
        rows.iter()
            .map(|r| (r.request as f64, get(r) / 1000.0))
            .collect::<Vec<_>>()
    };
    Chart {
        id: "chart-backtest".into(),
        title: title.into(),
        caption: "Each request that carried tool results: its prompt as the provider recorded it (input, cache writes and reads) and the engine's prompt at bytes ÷ b (lower) and × u (upper). A drop in the recorded line is a compaction or a cleared context, which the replay does not model.".into(),
        svg: lines(fmt, Lines {
            title,
            x_desc: "request (as recorded)",
            y_desc: "prompt tokens (thousands)",
            lines: vec![
                Line {
                    label: "recorded".into(),
                    color: INK,
                    dashed: false,
                    points: pts(&|r| r.recorded_prompt as f64),
                },
                Line {
                    label: "simulated, lower".into(),
                    color: RAW,
                    dashed: true,
                    points: pts(&|r| f(r.simulated_prompt.lower)),
                },
                Line {
                    label: "simulated, upper".into(),
                    color: TRIMMED,
                    dashed: true,
                    points: pts(&|r| f(r.simulated_prompt.upper)),
                },
            ],
            mark: None,
        }),
    }
}

/// Cumulative spend month by month per variant (upper bound), against the
/// plan's cumulative budget when it has one.
pub fn cumulative(fmt: &Fmt, doc: &tokencast_core::document::SimulationDoc) -> Chart {
    let title = "Cumulative spend over twelve months (upper bound)";
    let Some(p) = &doc.periods else {
        return Chart {
            id: "chart-cumulative".into(),
            title: title.into(),
            caption: String::new(),
            svg: Err("no periods".into()),
        };
    };
    let mut lines_: Vec<Line> = p
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| Line {
            label: v.name.clone(),
            color: LINES[i % LINES.len()],
            dashed: i % 2 == 1,
            points: v
                .cumulative
                .iter()
                .enumerate()
                .map(|(m, b)| (m as f64 + 1.0, f(b.upper)))
                .collect(),
        })
        .collect();
    if !p.budget_cumulative.is_empty() {
        lines_.push(Line {
            label: "budget".into(),
            color: RGBColor(200, 40, 40),
            dashed: true,
            points: p
                .budget_cumulative
                .iter()
                .enumerate()
                .map(|(m, b)| (m as f64 + 1.0, f(*b)))
                .collect(),
        });
    }
    // Variants an order of magnitude apart share a log axis, so the
    // cheapest are not squeezed against zero under the dearest.
    let ends: Vec<f64> = lines_
        .iter()
        .filter_map(|l| l.points.last().map(|p| p.1))
        .filter(|v| *v > 0.0)
        .collect();
    let (lo, hi) = ends
        .iter()
        .fold((f64::MAX, 0.0f64), |(a, b), v| (a.min(*v), b.max(*v)));
    let log_y = hi > 0.0 && lo < f64::MAX && hi / lo > 10.0;
    Chart {
        id: "chart-cumulative".into(),
        title: title.into(),
        caption: format!(
            "Spend by the end of each month, each variant at its upper bound, with the plan's runs a day, working days and monthly growth; the red dashed line is the cumulative budget when the plan sets one.{}",
            if log_y {
                " The value axis is logarithmic (one label a decade): the variants differ by more than ten times."
            } else {
                ""
            }
        ),
        svg: lines_shaped(
            fmt,
            Lines {
                title,
                x_desc: "month",
                y_desc: "USD, cumulative",
                lines: lines_,
                mark: None,
            },
            Shape { log_y, steps: false },
        ),
    }
}

/// Most models drawn in the compared-models chart (the cheapest).
pub const TOP_MODELS: usize = 30;

/// The same run on each compared model: the scenario's own cheapest
/// variant, then each model's cheapest, horizontal bars (lower bound). A
/// model that can price no variant is not drawn; the caption counts it.
pub fn models(fmt: &Fmt, doc: &tokencast_core::document::SimulationDoc) -> Vec<Chart> {
    let Some(r) = &doc.models else {
        return Vec::new();
    };
    let title = "The same run on each compared model (cheapest variant, lower bound)";
    let priced: Vec<_> = r.models.iter().filter(|m| m.total.is_some()).collect();
    let shown: Vec<_> = priced.iter().take(TOP_MODELS).collect();
    // The scenario's own model leads, unless it is among those compared.
    let own = !r.models.iter().any(|m| m.model == r.scenario_model);
    let mut categories: Vec<String> = own
        .then(|| format!("{} (scenario)", r.scenario_model))
        .into_iter()
        .collect();
    categories.extend(shown.iter().map(|m| m.model.clone()));
    let mut values: Vec<f64> = own.then(|| f(r.scenario_total.lower)).into_iter().collect();
    values.extend(shown.iter().map(|m| m.total.map_or(0.0, |t| f(t.lower))));
    let unpriced = r.models.len() - priced.len();
    vec![Chart {
        id: "chart-models".into(),
        title: title.into(),
        caption: format!(
            "One run on the {} cheapest of {} compared models (led by the scenario's own model when it is not among them), each on its cheapest variant under its provider's cache rules{}.",
            shown.len(),
            r.models.len(),
            match unpriced {
                0 => String::new(),
                n => format!("; {n} model(s) that can price no variant are not drawn"),
            }
        ),
        svg: bars(fmt, Bars {
            title,
            value_desc: "USD per run, lower bound",
            category_desc: "model",
            categories,
            series: vec![Series {
                label: "cheapest variant".into(),
                color: RAW,
                values,
            }],
            stacked: false,
            horizontal: true,
        }),
    }]
}
