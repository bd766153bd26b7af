//! Charts (a)–(f) of a simulation: context growth, bytes per call, cost per
//! variant, cost per result, composition per capability, latency.

use super::*;
use crate::engine::Simulation;
use crate::scenario::{Cache, Content};

/// (a) Input tokens per request, raw vs trimmed, lower–upper band shaded.
pub fn context_growth(sim: &Simulation) -> Chart {
    let title = "(a) Input tokens per request, raw vs trimmed";
    let svg = draw(|root| {
        let raw = &sim.profile(Content::Raw).per_request;
        let trimmed = &sim.profile(Content::Trimmed).per_request;
        let n = raw.len();
        let ymax = nice_max(
            raw.iter()
                .chain(trimmed.iter())
                .map(|r| f(r.input.upper) / 1000.0)
                .fold(0.0, f64::max),
        );
        let mut chart = ChartBuilder::on(root)
            .caption(title, (FONT, TITLE_SIZE).into_font().color(&INK))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(0.5..(n as f64 + 0.5), 0.0..ymax)?;
        let xfmt = |v: &f64| format!("{v:.0}");
        chart
            .configure_mesh()
            .x_labels(n.min(25))
            .x_label_formatter(&xfmt)
            .y_label_formatter(&|v| format_axis(*v))
            .x_desc("request in the run")
            .y_desc("input tokens (thousands)")
            .label_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .axis_desc_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .draw()?;
        for (rows, color, name) in [(raw, RAW, "raw"), (trimmed, TRIMMED, "trimmed")] {
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
            if name == "raw" {
                chart
                    .draw_series(LineSeries::new(lower.clone(), style))?
                    .label("raw results (lower bound; band up to upper)")
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], style));
                chart.draw_series(lower.iter().map(|p| Circle::new(*p, 3, color.filled())))?;
            } else {
                chart
                    .draw_series(DashedLineSeries::new(lower.clone(), 6, 4, style))?
                    .label("trimmed results (lower bound; band up to upper)")
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], style));
                chart.draw_series(
                    lower
                        .iter()
                        .map(|p| TriangleMarker::new(*p, 4, color.filled())),
                )?;
            }
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        Ok(())
    });
    Chart {
        id: "chart-context".into(),
        title: title.into(),
        caption: "Every tool result stays in the conversation, so each request carries all earlier results. The shaded band runs from bytes ÷ b (lower) to the tokenizer uplift (upper).".into(),
        svg,
    }
}

fn call_labels(sim: &Simulation) -> Vec<String> {
    sim.attribution
        .iter()
        .map(|a| a.call.map_or(format!("r{}", a.row), |c| c.to_string()))
        .collect()
}

/// (b) Bytes per tool call, raw vs trimmed.
pub fn bytes_per_call(sim: &Simulation) -> Chart {
    let title = "(b) Bytes per tool call, raw vs trimmed";
    let kb = |b: u64| b as f64 / 1000.0;
    let svg = bars(Bars {
        title,
        value_desc: "response size (KB, 1 KB = 1,000 bytes)",
        category_desc: "tool call",
        categories: call_labels(sim),
        series: vec![
            Series {
                label: "raw".into(),
                color: RAW,
                values: sim.attribution.iter().map(|a| kb(a.raw_bytes)).collect(),
            },
            Series {
                label: "trimmed".into(),
                color: TRIMMED,
                values: sim
                    .attribution
                    .iter()
                    .map(|a| kb(a.trimmed_bytes))
                    .collect(),
            },
        ],
        stacked: false,
        horizontal: false,
    });
    Chart {
        id: "chart-bytes".into(),
        title: title.into(),
        caption: "Size of each tool result as returned (dark) and after trimming (teal).".into(),
        svg,
    }
}

/// (c) Cost of one run per variant, stacked by bill line.
pub fn cost_per_variant(sim: &Simulation) -> Chart {
    let title = "(c) Cost of one run per variant, lower bound";
    type Part = fn(&crate::engine::CostBreakdown) -> Decimal;
    let parts: [(&str, Part); 5] = [
        ("uncached input", |c| c.uncached_input.lower),
        ("cache writes", |c| c.cache_write.lower),
        ("cache reads", |c| c.cache_read.lower),
        ("output", |c| c.output.lower),
        ("data fee", |c| c.data_fee.lower),
    ];
    let svg = bars(Bars {
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
    });
    Chart {
        id: "chart-variants".into(),
        title: title.into(),
        caption: "What one run costs under each variant, split into the lines of the bill.".into(),
        svg,
    }
}

/// (d) Input cost attributed to each tool result, no cache vs cached.
pub fn cost_per_result(sim: &Simulation) -> Chart {
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
                bars(Bars {
                    title,
                    value_desc: "USD per run",
                    category_desc: "tool call",
                    categories: call_labels(sim),
                    series,
                    stacked: false,
                    horizontal: false,
                }),
                format!(
                    "Without a cache a result costs its tokens × its resends × the input price; with one it is written once and read on later requests. Compared: {} vs {}.",
                    sim.variants[a].variant.variant.name, sim.variants[b].variant.variant.name
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

/// (e) What a response of each capability is made of: kept vs cut.
pub fn composition(sim: &Simulation) -> Chart {
    let title = "(e) Mean response per capability: kept vs cut by trimming";
    let kb = |d: Decimal| f(d) / 1000.0;
    let svg = bars(Bars {
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
    });
    Chart {
        id: "chart-composition".into(),
        title: title.into(),
        caption: "The whole bar is the mean raw response; the teal part is what the field whitelist and text cut keep.".into(),
        svg,
    }
}

/// (f) Median latency per capability.
pub fn latency(sim: &Simulation) -> Chart {
    let title = "(f) Median latency per capability";
    let svg = bars(Bars {
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
    });
    Chart {
        id: "chart-latency".into(),
        title: title.into(),
        caption: "Slow tools stretch the gap between requests; a gap longer than the cache lifetime means the cache expires.".into(),
        svg,
    }
}

/// Charts (a)–(f), in report order.
pub fn all(sim: &Simulation) -> Vec<Chart> {
    vec![
        context_growth(sim),
        bytes_per_call(sim),
        cost_per_variant(sim),
        cost_per_result(sim),
        composition(sim),
        latency(sim),
    ]
}
