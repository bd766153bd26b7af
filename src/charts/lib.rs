//! Charts as inline SVG, drawn with plotters: the shared drawing code.
//!
//! Size, font and palette are module constants so every chart looks the same.
//! Series differ in lightness and in line dash or outline, not only in hue,
//! so the charts stay readable in greyscale. Text labels are escaped by
//! plotters' SVG backend. `f64` appears here only because charts need it.
//! Each command's charts sit in their own file: [`run`] (a–f), [`what_if`]
//! (g–i), [`sweep`], [`forecast`] and [`corpus`].

pub mod corpus;
pub mod forecast;
pub mod run;
pub mod sweep;
pub mod what_if;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use tokencast_core::view::format::Canvas;
use tokencast_core::view::page::ChartView;
use tokencast_core::view::Fmt;
mod bars;
pub use bars::{bars, Bars, MANY_BARS};

/// Font family: a generic family, so no font file is referenced.
pub const FONT: &str = "sans-serif";

/// Title size.
pub const TITLE_SIZE: u32 = 18;

/// Axis label size.
pub const LABEL_SIZE: u32 = 13;

/// Text colour.
pub const INK: RGBColor = RGBColor(33, 37, 41);

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

pub type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

pub type DrawResult = Result<(), Box<dyn std::error::Error>>;

pub fn f(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

/// One drawing on `fmt`'s canvas.
pub fn draw(fmt: &Fmt, render: impl FnOnce(&Area) -> DrawResult) -> Result<String, String> {
    let mut svg = String::new();
    {
        let size = (fmt.canvas.width, fmt.canvas.height);
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        render(&root).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// The chart's title drawn above it on the wide canvas; the narrow drawing
/// leaves it to the caption beside it, which wraps.
pub fn titled<'a, 'b, 'c>(
    b: &'c mut ChartBuilder<'a, 'b, SVGBackend<'b>>,
    fmt: &Fmt,
    title: &str,
) -> &'c mut ChartBuilder<'a, 'b, SVGBackend<'b>> {
    if fmt.canvas.is_narrow() {
        b
    } else {
        b.caption(title, (FONT, TITLE_SIZE).into_font().color(&INK))
    }
}

/// The charts `draw` makes as a page shows them, each drawn on both
/// canvases (the narrow drawing is left out where it could not be drawn).
pub fn views(fmt: &Fmt, draw: impl Fn(&Fmt) -> Vec<Chart>) -> Vec<ChartView> {
    let narrow = draw(&fmt.on(Canvas::NARROW));
    draw(&fmt.on(Canvas::WIDE))
        .into_iter()
        .map(|wide| {
            let small = narrow
                .iter()
                .find(|n| n.id == wide.id)
                .and_then(|n| n.svg.clone().ok());
            let mut view = wide.view();
            if view.svg.is_some() {
                view.narrow = small;
            }
            view
        })
        .collect()
}

pub fn nice_max(v: f64) -> f64 {
    if v <= 0.0 {
        1.0
    } else {
        v * 1.08
    }
}

pub fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max - 1).collect();
        out.push('…');
        out
    }
}

/// A category label for a numeric axis position (only at whole numbers).
pub fn category(labels: &[String], v: f64) -> String {
    let i = v.round();
    if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
        labels[i as usize].clone()
    } else {
        String::new()
    }
}

/// One bar series: legend label, fill colour, one value per category.
pub struct Series {
    pub label: String,
    pub color: RGBColor,
    pub values: Vec<f64>,
}

/// How a legend entry draws its series: as the series is drawn.
#[derive(Debug, Clone, Copy)]
pub enum Swatch {
    /// A filled box (bars, bands, heat-map cells).
    Fill(RGBColor),
    /// A line, solid or dashed.
    Line(RGBColor, bool),
}

/// One legend entry.
#[derive(Debug, Clone)]
pub struct Key {
    pub label: String,
    pub swatch: Swatch,
}

/// `c` at opacity `a` over white, as one solid colour (a legend swatch for a band).
pub fn tint(c: RGBColor, a: f64) -> RGBColor {
    let mix = |v: u8| (255.0 - a * (255.0 - f64::from(v))).round() as u8;
    RGBColor(mix(c.0), mix(c.1), mix(c.2))
}

/// Height of one legend row, pixels.
const LEGEND_ROW: u32 = 20;

/// Draws the legend as a strip under the plot, outside the data, and
/// returns the area left for the plot.
pub fn legend_below<'a>(
    root: &Area<'a>,
    keys: &[Key],
) -> Result<Area<'a>, Box<dyn std::error::Error>> {
    if keys.is_empty() {
        return Ok(root.clone());
    }
    let width = |k: &Key| 48 + k.label.chars().count() as i32 * 7;
    let mut rows: Vec<Vec<&Key>> = vec![Vec::new()];
    let mut used = 0;
    for k in keys {
        let w = width(k);
        if used + w > root.dim_in_pixel().0 as i32 - 60
            && rows.last().is_some_and(|r| !r.is_empty())
        {
            rows.push(Vec::new());
            used = 0;
        }
        if let Some(row) = rows.last_mut() {
            row.push(k);
        }
        used += w;
    }
    let height = rows.len() as u32 * LEGEND_ROW + 10;
    let (_, total) = root.dim_in_pixel();
    let (plot, strip) = root.split_vertically(total.saturating_sub(height));
    for (r, row) in rows.iter().enumerate() {
        let y = 4 + r as i32 * LEGEND_ROW as i32 + LEGEND_ROW as i32 / 2;
        let mut x = 60;
        for k in row {
            match k.swatch {
                Swatch::Fill(c) => {
                    strip.draw(&Rectangle::new([(x, y - 6), (x + 24, y + 6)], c.filled()))?;
                    strip.draw(&Rectangle::new(
                        [(x, y - 6), (x + 24, y + 6)],
                        INK.stroke_width(1),
                    ))?;
                }
                Swatch::Line(c, false) => {
                    strip.draw(&PathElement::new([(x, y), (x + 26, y)], c.stroke_width(2)))?;
                }
                Swatch::Line(c, true) => {
                    for d in [0, 10, 20] {
                        strip.draw(&PathElement::new(
                            [(x + d, y), (x + d + 6, y)],
                            c.stroke_width(2),
                        ))?;
                    }
                }
            }
            strip.draw(&Text::new(
                k.label.clone(),
                (x + 32, y - 7),
                (FONT, LABEL_SIZE).into_font().color(&INK),
            ))?;
            x += width(k);
        }
    }
    Ok(plot)
}

/// Grid lines: major lines only, light, so they do not crowd the data.
pub fn quiet_mesh<X, Y>(mesh: &mut plotters::chart::MeshStyle<'_, '_, X, Y, SVGBackend<'_>>)
where
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
{
    mesh.light_line_style(WHITE.mix(0.0))
        .bold_line_style(INK.mix(0.12))
        .label_style((FONT, LABEL_SIZE).into_font().color(&INK))
        .axis_desc_style((FONT, LABEL_SIZE).into_font().color(&INK));
}

/// Axis numbers: no trailing zeros, thousands grouped.
pub fn format_axis(v: f64) -> String {
    let d = Decimal::from_f64_retain(v)
        .unwrap_or_default()
        .round_dp(3)
        .normalize();
    if d.abs() >= Decimal::from(1000) {
        tokencast_core::view::format::count(d)
    } else {
        d.to_string()
    }
}

/// Okabe and Ito's palette (2008), told apart with the common colour-vision
/// deficiencies: blue, bluish green, orange, vermillion, reddish purple, sky
/// blue. With [`INK`] first, for series that must differ in colour alone
/// (grouped bars).
pub const DISTINCT: [RGBColor; 6] = [
    RGBColor(0, 114, 178),
    RGBColor(0, 158, 115),
    RGBColor(230, 159, 0),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
];

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
pub struct Line {
    pub label: String,
    pub color: RGBColor,
    pub dashed: bool,
    pub points: Vec<(f64, f64)>,
}

/// A line chart with an optional marked point.
pub struct Lines<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub lines: Vec<Line>,
    pub mark: Option<((f64, f64), String)>,
}

/// Lines with the same points drawn once, their labels joined: series
/// that would look identical are not listed separately.
fn merged(lines: Vec<Line>) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    for l in lines {
        match out.iter_mut().find(|o| o.points == l.points) {
            Some(o) => o.label = format!("{} = {}", o.label, l.label),
            None => out.push(l),
        }
    }
    out
}

/// How a line chart draws its values.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shape {
    /// A logarithmic value axis, in whole decades (for series that differ by
    /// orders of magnitude); the axis description says so.
    pub log_y: bool,
    /// Each value holds until the next point and changes there (a quantity
    /// that jumps, such as a cache that expires), never a ramp between them.
    pub steps: bool,
}

/// `points` as steps: each value held until the next point's x.
fn as_steps(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for (i, p) in points.iter().enumerate() {
        if i > 0 {
            out.push((p.0, points[i - 1].1));
        }
        out.push(*p);
    }
    out
}

/// The whole decades around the positive values: (floor, ceil) of log10.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| *v > 0.0)
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if lo > hi {
        return (0.0, 1.0);
    }
    let (a, b) = (lo.log10().floor(), hi.log10().ceil());
    (a, if b > a { b } else { a + 1.0 })
}

pub fn lines(fmt: &Fmt, spec: Lines) -> Result<String, String> {
    lines_shaped(fmt, spec, Shape::default())
}

/// [`lines`] drawn as `shape` says.
pub fn lines_shaped(fmt: &Fmt, spec: Lines, shape: Shape) -> Result<String, String> {
    let (spec, floor) = shaped(spec, shape);
    draw(fmt, |root| {
        let all = merged(spec.lines);
        let keys: Vec<Key> = all
            .iter()
            .map(|l| Key {
                label: l.label.clone(),
                swatch: Swatch::Line(l.color, l.dashed),
            })
            .collect();
        let root = &legend_below(root, &keys)?;
        let ((x0, x1), (y0, ymax)) = line_ranges(&all, floor);
        let y_desc = match floor {
            Some(_) => format!("{} (log scale)", spec.y_desc),
            None => spec.y_desc.to_string(),
        };
        let mut chart = titled(&mut ChartBuilder::on(root), fmt, &fmt.in_code(spec.title))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, y0..ymax)?;
        let mut mesh = chart.configure_mesh();
        // Only whole decades are labelled.
        let log_label = |v: &f64| {
            if (v - v.round()).abs() < 1e-9 {
                format_axis(10f64.powf(v.round()))
            } else {
                String::new()
            }
        };
        let linear_label = |v: &f64| format_axis(*v);
        mesh.x_label_formatter(&|v| format_axis(*v))
            .x_desc(spec.x_desc)
            .y_desc(fmt.in_code(&y_desc));
        match floor {
            // One label a decade.
            Some(_) => mesh
                .y_labels((ymax - y0) as usize + 1)
                .y_label_formatter(&log_label),
            None => mesh.y_label_formatter(&linear_label),
        };
        quiet_mesh(&mut mesh);
        mesh.draw()?;
        for l in &all {
            let style = l.color.stroke_width(2);
            if l.dashed {
                chart.draw_series(DashedLineSeries::new(l.points.clone(), 7, 5, style))?;
            } else {
                chart.draw_series(LineSeries::new(l.points.clone(), style))?;
            }
        }
        if let Some((p, label)) = &spec.mark {
            draw_mark(&mut chart, *p, label, (x0 + x1) / 2.0)?;
        }
        Ok(())
    })
}

/// The lines as drawn: as steps if asked, and on a log axis each value at
/// its log10 (a value of 0 or less at the axis's floor, returned).
fn shaped(mut spec: Lines, shape: Shape) -> (Lines, Option<f64>) {
    if shape.steps {
        for l in &mut spec.lines {
            l.points = as_steps(&l.points);
        }
    }
    if !shape.log_y {
        return (spec, None);
    }
    let (a, _) = decades(spec.lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)));
    for l in &mut spec.lines {
        for p in &mut l.points {
            p.1 = if p.1 > 0.0 { p.1.log10().max(a) } else { a };
        }
    }
    if let Some((p, _)) = &mut spec.mark {
        p.1 = if p.1 > 0.0 { p.1.log10() } else { a };
    }
    (spec, Some(a))
}

/// The x range of every point, and the y range: from the log floor to the
/// next whole decade, or from 0 to a round top.
fn line_ranges(all: &[Line], floor: Option<f64>) -> ((f64, f64), (f64, f64)) {
    let xs = all.iter().flat_map(|l| l.points.iter().map(|p| p.0));
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let x = if x0 < x1 { (x0, x1) } else { (0.0, 1.0) };
    let top = all
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold(f64::MIN, f64::max);
    let y = match floor {
        Some(a) => (a, top.ceil().max(a + 1.0)),
        None => (0.0, nice_max(top.max(0.0))),
    };
    (x, y)
}

/// A marked point: a ring, and its label above and to the side, never on
/// it; to the left when the point is right of `middle`.
fn draw_mark<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    p: (f64, f64),
    label: &str,
    middle: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let dx = if p.0 > middle {
        -(label.chars().count() as i32 * 7) - 12
    } else {
        12
    };
    chart.draw_series(std::iter::once(
        EmptyElement::at(p)
            + Circle::new((0, 0), 6, INK.stroke_width(2))
            + Text::new(
                label.trim().to_string(),
                (dx, -24),
                (FONT, LABEL_SIZE).into_font().color(&INK),
            ),
    ))?;
    Ok(())
}

/// The charts a simulation page draws at `slot`, in order.
pub fn simulation_slot(
    fmt: &Fmt,
    doc: &tokencast_core::document::SimulationDoc,
    slot: tokencast_core::view::page::ChartSlot,
) -> Vec<Chart> {
    use tokencast_core::view::page::ChartSlot;
    match slot {
        ChartSlot::Run => run::all(fmt, &doc.simulation),
        ChartSlot::Cumulative => vec![run::cumulative(fmt, doc)],
        ChartSlot::Backtest => vec![run::backtest(fmt, doc)],
        ChartSlot::WhatIf => what_if::all(fmt, doc),
        ChartSlot::Models => run::models(fmt, doc),
        ChartSlot::ForecastFan | ChartSlot::ForecastHistograms | ChartSlot::CorpusSessions => {
            Vec::new()
        }
    }
}

/// The charts a corpus forecast's page draws at `slot`.
pub fn corpus_slot(
    fmt: &Fmt,
    f: &tokencast_core::document::CorpusForecast,
    slot: tokencast_core::view::page::ChartSlot,
) -> Vec<Chart> {
    match slot {
        tokencast_core::view::page::ChartSlot::CorpusSessions => {
            vec![corpus::distribution(fmt, f)]
        }
        _ => Vec::new(),
    }
}

/// The charts a forecast page draws at `slot`, in order.
pub fn forecast_slot(
    fmt: &Fmt,
    f: &tokencast_core::document::Forecast,
    slot: tokencast_core::view::page::ChartSlot,
) -> Vec<Chart> {
    use tokencast_core::view::page::ChartSlot;
    match slot {
        ChartSlot::ForecastFan => vec![forecast::forecast_fan(fmt, f)],
        ChartSlot::ForecastHistograms => f
            .variants
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let mut chart = forecast::forecast_histogram(fmt, v, f.runs);
                chart.id = format!("chart-forecast-histogram-{}", i + 1);
                chart
            })
            .collect(),
        _ => Vec::new(),
    }
}

impl Chart {
    /// The chart as a page shows it: its SVG, or why it was not drawn.
    pub fn view(self) -> tokencast_core::view::page::ChartView {
        let (svg, error) = match self.svg {
            Ok(svg) => (Some(svg), None),
            Err(e) => (None, Some(e)),
        };
        tokencast_core::view::page::ChartView {
            id: self.id,
            title: self.title,
            caption: self.caption,
            svg,
            narrow: None,
            error,
        }
    }
}

#[cfg(test)]
mod tests;
