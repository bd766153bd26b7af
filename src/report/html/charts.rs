//! Charts as inline SVG, drawn with plotters.
//!
//! Size, font and palette are module constants so every chart looks the same.
//! Series differ in lightness and in line dash or outline, not only in hue,
//! so the charts stay readable in greyscale. Text labels are escaped by
//! plotters' SVG backend. `f64` appears here only because charts need it.

use crate::engine::Simulation;
use crate::scenario::{Cache, Content};
use plotters::coord::Shift;
use plotters::prelude::*;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

/// Chart width in pixels (the SVG scales down on narrow screens and in print).
pub const WIDTH: u32 = 880;
/// Chart height in pixels.
pub const HEIGHT: u32 = 380;
/// Font family: a generic family, so no font file is referenced.
pub const FONT: &str = "sans-serif";
/// Title size.
const TITLE_SIZE: u32 = 18;
/// Axis label size.
const LABEL_SIZE: u32 = 13;
/// Text colour.
const INK: RGBColor = RGBColor(33, 37, 41);
/// Raw results: dark grey.
pub const RAW: RGBColor = RGBColor(90, 90, 90);
/// Trimmed results: teal, lighter than RAW in greyscale.
pub const TRIMMED: RGBColor = RGBColor(0, 140, 140);
/// Stack colours, dark to light: uncached input, cache writes, cache reads, output, data fee.
pub const STACK: [RGBColor; 5] = [
    RGBColor(55, 55, 55),
    RGBColor(0, 110, 110),
    RGBColor(110, 190, 190),
    RGBColor(165, 165, 165),
    RGBColor(230, 200, 120),
];

/// A drawn chart: its id, title, and SVG (or why it could not be drawn).
#[derive(Debug, Clone)]
pub struct Chart {
    /// Stable id (the HTML anchor).
    pub id: String,
    /// Title, also drawn in the SVG.
    pub title: String,
    /// One sentence telling the reader what to look at.
    pub caption: String,
    /// The SVG, or the error that stopped it.
    pub svg: Result<String, String>,
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn f(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

fn draw(render: impl FnOnce(&Area) -> DrawResult) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        render(&root).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

fn nice_max(v: f64) -> f64 {
    if v <= 0.0 {
        1.0
    } else {
        v * 1.08
    }
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max - 1).collect();
        out.push('…');
        out
    }
}

/// A category label for a numeric axis position (only at whole numbers).
fn category(labels: &[String], v: f64) -> String {
    let i = v.round();
    if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
        labels[i as usize].clone()
    } else {
        String::new()
    }
}

/// One bar series: legend label, fill colour, one value per category.
struct Series {
    label: String,
    color: RGBColor,
    values: Vec<f64>,
}

/// Bars per category: grouped side by side or stacked; vertical or horizontal.
struct Bars<'a> {
    title: &'a str,
    value_desc: &'a str,
    category_desc: &'a str,
    categories: Vec<String>,
    series: Vec<Series>,
    stacked: bool,
    horizontal: bool,
}

fn bars(spec: Bars) -> Result<String, String> {
    draw(|root| {
        let n = spec.categories.len();
        let totals: Vec<f64> = (0..n)
            .map(|i| {
                let vals = spec.series.iter().map(|s| s.values[i]);
                if spec.stacked {
                    vals.sum()
                } else {
                    vals.fold(0.0, f64::max)
                }
            })
            .collect();
        let vmax = nice_max(totals.iter().copied().fold(0.0, f64::max));
        let cats = (-0.5)..(n as f64 - 0.5);
        let label_len = spec
            .categories
            .iter()
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(1);
        let mut b = ChartBuilder::on(root);
        b.caption(spec.title, (FONT, TITLE_SIZE).into_font().color(&INK))
            .margin(12);
        let rects = |i: usize, s: usize, v_lo: f64, v_hi: f64| {
            let k = spec.series.len() as f64;
            let (c0, c1) = if spec.stacked {
                (i as f64 - 0.35, i as f64 + 0.35)
            } else {
                let w = 0.8 / k;
                let c0 = i as f64 - 0.4 + s as f64 * w;
                (c0, c0 + w * 0.92)
            };
            (c0, c1, v_lo, v_hi)
        };
        let mut shapes: Vec<(f64, f64, f64, f64, usize)> = Vec::new();
        // Horizontal charts read top-down: the first category gets the top slot.
        let slot = |i: usize| if spec.horizontal { n - 1 - i } else { i };
        for i in 0..n {
            let mut base = 0.0;
            for (s, series) in spec.series.iter().enumerate() {
                let v = series.values[i];
                let (lo, hi) = if spec.stacked {
                    (base, base + v)
                } else {
                    (0.0, v)
                };
                base += v;
                let (c0, c1, v0, v1) = rects(slot(i), s, lo, hi);
                shapes.push((c0, c1, v0, v1, s));
            }
        }
        let cat_labels: Vec<String> = if spec.horizontal {
            spec.categories.iter().rev().cloned().collect()
        } else {
            spec.categories.clone()
        };
        let cat_fmt = move |v: &f64| category(&cat_labels, *v);
        let val_fmt = |v: &f64| format_axis(*v);
        // One drawing for both orientations: `pt` puts (category, value) on the right axes.
        let horizontal = spec.horizontal;
        let pt = move |c: f64, v: f64| if horizontal { (v, c) } else { (c, v) };
        let (x_range, y_range) = if horizontal {
            b.x_label_area_size(44)
                .y_label_area_size((label_len as u32 * 7 + 24).clamp(60, 260));
            (0.0..vmax, cats)
        } else {
            b.x_label_area_size(52).y_label_area_size(64);
            (cats, 0.0..vmax)
        };
        let mut chart = b.build_cartesian_2d(x_range, y_range)?;
        let mut mesh = chart.configure_mesh();
        if horizontal {
            mesh.disable_y_mesh()
                .y_labels(n.max(1))
                .y_label_formatter(&cat_fmt)
                .x_label_formatter(&val_fmt)
                .x_desc(spec.value_desc)
                .y_desc(spec.category_desc);
        } else {
            mesh.disable_x_mesh()
                .x_labels(n.max(1))
                .x_label_formatter(&cat_fmt)
                .y_label_formatter(&val_fmt)
                .x_desc(spec.category_desc)
                .y_desc(spec.value_desc);
        }
        mesh.label_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .axis_desc_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .draw()?;
        for (s, series) in spec.series.iter().enumerate() {
            let color = series.color;
            let rect = |r: &(f64, f64, f64, f64, usize)| [pt(r.0, r.2), pt(r.1, r.3)];
            chart
                .draw_series(
                    shapes
                        .iter()
                        .filter(|r| r.4 == s)
                        .map(|r| Rectangle::new(rect(r), color.filled())),
                )?
                .label(series.label.clone())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
            chart.draw_series(
                shapes
                    .iter()
                    .filter(|r| r.4 == s && r.3 > r.2)
                    .map(|r| Rectangle::new(rect(r), INK.stroke_width(1))),
            )?;
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        Ok(())
    })
}

/// The legend box every chart uses, at `position`.
fn legend<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    position: SeriesLabelPosition,
) -> DrawResult
where
    X: plotters::coord::ranged1d::Ranged<ValueType = f64>,
    Y: plotters::coord::ranged1d::Ranged<ValueType = f64>,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.9))
        .border_style(INK)
        .label_font((FONT, LABEL_SIZE).into_font().color(&INK))
        .draw()?;
    Ok(())
}

/// Axis numbers: no trailing zeros, thousands grouped.
fn format_axis(v: f64) -> String {
    let d = Decimal::from_f64_retain(v)
        .unwrap_or_default()
        .round_dp(3)
        .normalize();
    if d.abs() >= Decimal::from(1000) {
        crate::format::count(d)
    } else {
        d.to_string()
    }
}

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

/// Line colours for many series, dark to light (dash patterns alternate too).
pub const LINES: [RGBColor; 6] = [
    RGBColor(40, 40, 40),
    RGBColor(0, 120, 120),
    RGBColor(120, 120, 120),
    RGBColor(0, 170, 170),
    RGBColor(170, 120, 40),
    RGBColor(90, 60, 140),
];

/// One line of a line chart.
struct Line {
    label: String,
    color: RGBColor,
    dashed: bool,
    points: Vec<(f64, f64)>,
}

/// A line chart with an optional marked point.
struct Lines<'a> {
    title: &'a str,
    x_desc: &'a str,
    y_desc: &'a str,
    lines: Vec<Line>,
    mark: Option<((f64, f64), String)>,
}

fn lines(spec: Lines) -> Result<String, String> {
    draw(|root| {
        let xs = spec.lines.iter().flat_map(|l| l.points.iter().map(|p| p.0));
        let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
        let (x0, x1) = if x0 < x1 { (x0, x1) } else { (0.0, 1.0) };
        let ymax = nice_max(
            spec.lines
                .iter()
                .flat_map(|l| l.points.iter().map(|p| p.1))
                .fold(0.0, f64::max),
        );
        let mut chart = ChartBuilder::on(root)
            .caption(spec.title, (FONT, TITLE_SIZE).into_font().color(&INK))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, 0.0..ymax)?;
        chart
            .configure_mesh()
            .x_label_formatter(&|v| format_axis(*v))
            .y_label_formatter(&|v| format_axis(*v))
            .x_desc(spec.x_desc)
            .y_desc(spec.y_desc)
            .label_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .axis_desc_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .draw()?;
        for l in &spec.lines {
            let style = l.color.stroke_width(2);
            let series = if l.dashed {
                chart.draw_series(DashedLineSeries::new(l.points.clone(), 7, 5, style))?
            } else {
                chart.draw_series(LineSeries::new(l.points.clone(), style))?
            };
            series
                .label(l.label.clone())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], style));
        }
        if let Some((p, label)) = &spec.mark {
            chart.draw_series(std::iter::once(Circle::new(*p, 6, INK.stroke_width(2))))?;
            chart.draw_series(std::iter::once(Text::new(
                label.clone(),
                *p,
                (FONT, LABEL_SIZE).into_font().color(&INK),
            )))?;
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        Ok(())
    })
}

/// (g) Retry break-even: cost per accepted answer as attempts grow.
pub fn retry(sim: &Simulation) -> Option<Chart> {
    let r = sim.what_if.as_ref()?.retry.as_ref()?;
    let title = "(g) Retry break-even: cost per accepted answer";
    let pts = |get: fn(&crate::analysis::RetryPoint) -> Decimal| {
        r.curve
            .iter()
            .map(|p| (p.attempts as f64, f(get(p))))
            .collect::<Vec<_>>()
    };
    let today = f(r.baseline_cost_per_accepted);
    let first = r.curve.first().map_or(0.0, |p| p.attempts as f64);
    let last = r.curve.last().map_or(1.0, |p| p.attempts as f64);
    let svg = lines(Lines {
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
        mark: r.break_even_attempts.map(|b| {
            (
                (
                    b as f64,
                    f(r.candidate_cost_per_attempt) * b as f64 / r.accepted as f64,
                ),
                format!("  break-even: {b} attempts"),
            )
        }),
    });
    Some(Chart {
        id: "chart-retry".into(),
        title: title.into(),
        caption: "Failed attempts count: cost per accepted answer = cost of all attempts ÷ accepted answers. Past the marked point the cheaper model costs more than the baseline does today.".into(),
        svg,
    })
}

/// (h) Cache tier against the model's time per step.
pub fn lifetime(sim: &Simulation) -> Option<Chart> {
    let l = sim.what_if.as_ref()?.cache_lifetime.as_ref()?;
    let title = "(h) Cache tier vs model time per step";
    let mut series = Vec::new();
    for (i, c) in [Content::Raw, Content::Trimmed].into_iter().enumerate() {
        for (j, tier) in ["5m", "1h"].into_iter().enumerate() {
            series.push(Line {
                label: format!("{c}, {tier} tier"),
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
        caption: "Model input cost of one run when each request waits for the tool calls before it plus the model's time per step. A gap longer than the tier's lifetime expires the cache.".into(),
        svg: lines(Lines {
            title,
            x_desc: "model time per step (seconds)",
            y_desc: "model input, USD per run",
            lines: series,
            mark,
        }),
    })
}

/// (i) Cost of one restart before each request.
pub fn restart(sim: &Simulation) -> Option<Chart> {
    let r = sim.what_if.as_ref()?.restart.as_ref()?;
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
        svg: lines(Lines {
            title,
            x_desc: "restart before request",
            y_desc: "extra USD per run",
            lines: series,
            mark: None,
        }),
    })
}

/// A sweep: lines per variant for one axis, a heat map of the cheapest variant for two.
pub fn sweep(s: &crate::analysis::sweep::Sweep) -> Chart {
    let numeric = |v: &str| v.parse::<f64>().ok();
    let title = format!(
        "Total cost of one run by {}",
        s.axes
            .iter()
            .map(|a| a.param.name())
            .collect::<Vec<_>>()
            .join(" and ")
    );
    let svg = if s.axes.len() == 1 && s.axes[0].values.iter().all(|v| numeric(v).is_some()) {
        lines(Lines {
            title: &title,
            x_desc: s.axes[0].param.name(),
            y_desc: "USD per run, lower bound",
            lines: s
                .variants
                .iter()
                .enumerate()
                .map(|(i, name)| Line {
                    label: shorten(name, 34),
                    color: LINES[i % LINES.len()],
                    dashed: (i / LINES.len()) % 2 == 1,
                    points: s
                        .points
                        .iter()
                        .map(|p| (numeric(&p.values[0]).unwrap_or(0.0), f(p.totals[i].lower)))
                        .collect(),
                })
                .collect(),
            mark: None,
        })
    } else if s.axes.len() == 1 {
        bars(Bars {
            title: &title,
            value_desc: "USD per run, lower bound",
            category_desc: s.axes[0].param.name(),
            categories: s.points.iter().map(|p| p.values[0].clone()).collect(),
            series: s
                .variants
                .iter()
                .enumerate()
                .map(|(i, name)| Series {
                    label: shorten(name, 34),
                    color: LINES[i % LINES.len()],
                    values: s.points.iter().map(|p| f(p.totals[i].lower)).collect(),
                })
                .collect(),
            stacked: false,
            horizontal: false,
        })
    } else {
        heat_map(s, &title)
    };
    Chart {
        id: "chart-sweep".into(),
        title,
        caption: "Every point is a full replay of the scenario with the varied assumption.".into(),
        svg,
    }
}

/// Two axes: cells shaded by the cheapest variant's total, labelled with it.
fn heat_map(s: &crate::analysis::sweep::Sweep, title: &str) -> Result<String, String> {
    let (xs, ys) = (&s.axes[0].values, &s.axes[1].values);
    let cheapest: Vec<f64> = s
        .points
        .iter()
        .map(|p| p.totals.iter().map(|t| f(t.lower)).fold(f64::MAX, f64::min))
        .collect();
    let (lo, hi) = cheapest
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    draw(|root| {
        let mut chart = ChartBuilder::on(root)
            .caption(
                format!("{title} (cheapest variant)"),
                (FONT, TITLE_SIZE).into_font().color(&INK),
            )
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(-0.5..(xs.len() as f64 - 0.5), -0.5..(ys.len() as f64 - 0.5))?;
        let xl = xs.clone();
        let yl = ys.clone();
        let xf = move |v: &f64| category(&xl, *v);
        let yf = move |v: &f64| category(&yl, *v);
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(xs.len())
            .y_labels(ys.len())
            .x_label_formatter(&xf)
            .y_label_formatter(&yf)
            .x_desc(s.axes[0].param.name())
            .y_desc(s.axes[1].param.name())
            .label_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .axis_desc_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .draw()?;
        for (i, v) in cheapest.iter().enumerate() {
            let (x, y) = ((i / ys.len()) as f64, (i % ys.len()) as f64);
            let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.0 };
            // Light (cheap) to dark (dear): readable in greyscale.
            let shade = (235.0 - 180.0 * t) as u8;
            let fill = RGBColor(shade, shade.saturating_add(10), shade.saturating_add(10));
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                fill.filled(),
            )))?;
            if xs.len() * ys.len() <= 150 {
                let ink = if t > 0.5 { WHITE } else { INK };
                chart.draw_series(std::iter::once(Text::new(
                    format!("{v:.2}"),
                    (x - 0.3, y + 0.1),
                    (FONT, 11).into_font().color(&ink),
                )))?;
            }
        }
        Ok(())
    })
}

/// Forecast: histogram of one variant's cost per run.
pub fn forecast_histogram(v: &crate::analysis::forecast::VariantForecast, runs: u64) -> Chart {
    let title = format!("Cost per run: {}", shorten(&v.name, 40));
    let edges = &v.histogram_edges;
    let bins = edges.len().saturating_sub(1);
    let svg = draw(|root| {
        let ymax = nice_max(
            v.histogram_counts.iter().copied().max().unwrap_or(0) as f64 / runs as f64 * 100.0,
        );
        let (x0, x1) = (edges[0], edges[bins]);
        let mut chart = ChartBuilder::on(root)
            .caption(&title, (FONT, TITLE_SIZE).into_font().color(&INK))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, 0.0..ymax)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_label_formatter(&|v| format_axis(*v))
            .y_label_formatter(&|v| format_axis(*v))
            .x_desc("USD per run, lower bound")
            .y_desc("share of runs (%)")
            .label_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .axis_desc_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .draw()?;
        chart.draw_series((0..bins).map(|i| {
            let share = v.histogram_counts[i] as f64 / runs as f64 * 100.0;
            Rectangle::new([(edges[i], 0.0), (edges[i + 1], share)], TRIMMED.filled())
        }))?;
        chart.draw_series((0..bins).filter(|i| v.histogram_counts[*i] > 0).map(|i| {
            let share = v.histogram_counts[i] as f64 / runs as f64 * 100.0;
            Rectangle::new(
                [(edges[i], 0.0), (edges[i + 1], share)],
                INK.stroke_width(1),
            )
        }))?;
        for (label, x) in [("p50", v.cost_lower.p[0]), ("p99", v.cost_lower.p[2])] {
            let style = INK.stroke_width(2);
            chart.draw_series(std::iter::once(PathElement::new(
                [(x, 0.0), (x, ymax * 0.92)],
                style,
            )))?;
            chart.draw_series(std::iter::once(Text::new(
                format!(" {label}"),
                (x, ymax * 0.97),
                (FONT, LABEL_SIZE).into_font().color(&INK),
            )))?;
        }
        Ok(())
    });
    let over = v.histogram_counts.last().copied().unwrap_or(0);
    Chart {
        id: "chart-forecast-histogram".into(),
        title,
        caption: if over > 0 {
            format!("{over} runs cost more than the chart's range and are not drawn.")
        } else {
            "Vertical lines: p50 and p99 of the lower-bound cost.".into()
        },
        svg,
    }
}

/// Forecast: percentile fan of the context size against the number of calls.
pub fn forecast_fan(f: &crate::analysis::forecast::Forecast) -> Chart {
    let title = "Context size against the number of calls (p10–p99)";
    let mut series = Vec::new();
    for (c, name) in [(0, "raw"), (1, "trimmed")] {
        for (q, label, dashed) in [
            (1, "p50", false),
            (0, "p10", true),
            (2, "p90", true),
            (3, "p99", true),
        ] {
            series.push(Line {
                label: format!("{name} {label}"),
                color: if c == 0 { RAW } else { TRIMMED },
                dashed,
                points: f
                    .fan
                    .iter()
                    .map(|p| {
                        let v = if c == 0 { p.raw[q] } else { p.trimmed[q] };
                        (p.calls as f64, v / 1000.0)
                    })
                    .collect(),
            });
        }
    }
    Chart {
        id: "chart-forecast-fan".into(),
        title: title.into(),
        caption: "Solid: median; dashed: p10, p90 and p99 of the context (lower bound) after n tool calls.".into(),
        svg: lines(Lines {
            title,
            x_desc: "tool calls in the run",
            y_desc: "input tokens (thousands)",
            lines: series,
            mark: None,
        }),
    }
}

/// Every chart, in report order.
pub fn all(sim: &Simulation) -> Vec<Chart> {
    let mut out = vec![
        context_growth(sim),
        bytes_per_call(sim),
        cost_per_variant(sim),
        cost_per_result(sim),
        composition(sim),
        latency(sim),
    ];
    out.extend(
        [retry(sim), lifetime(sim), restart(sim)]
            .into_iter()
            .flatten(),
    );
    out
}
