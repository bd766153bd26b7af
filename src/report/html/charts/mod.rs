//! Charts as inline SVG, drawn with plotters: the shared drawing code.
//!
//! Size, font and palette are module constants so every chart looks the same.
//! Series differ in lightness and in line dash or outline, not only in hue,
//! so the charts stay readable in greyscale. Text labels are escaped by
//! plotters' SVG backend. `f64` appears here only because charts need it.
//! Each command's charts sit in their own file: [`run`] (a–f), [`what_if`]
//! (g–i), [`sweep`] and [`forecast`].

pub mod forecast;
pub mod run;
pub mod sweep;
pub mod what_if;

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
pub(super) const TITLE_SIZE: u32 = 18;

/// Axis label size.
pub(super) const LABEL_SIZE: u32 = 13;

/// Text colour.
pub(super) const INK: RGBColor = RGBColor(33, 37, 41);

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

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

pub(super) type DrawResult = Result<(), Box<dyn std::error::Error>>;

pub(super) fn f(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

pub(super) fn draw(render: impl FnOnce(&Area) -> DrawResult) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        render(&root).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

pub(super) fn nice_max(v: f64) -> f64 {
    if v <= 0.0 {
        1.0
    } else {
        v * 1.08
    }
}

pub(super) fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max - 1).collect();
        out.push('…');
        out
    }
}

/// A category label for a numeric axis position (only at whole numbers).
pub(super) fn category(labels: &[String], v: f64) -> String {
    let i = v.round();
    if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
        labels[i as usize].clone()
    } else {
        String::new()
    }
}

/// One bar series: legend label, fill colour, one value per category.
pub(super) struct Series {
    pub(super) label: String,
    pub(super) color: RGBColor,
    pub(super) values: Vec<f64>,
}

/// Bars per category: grouped side by side or stacked; vertical or horizontal.
pub(super) struct Bars<'a> {
    pub(super) title: &'a str,
    pub(super) value_desc: &'a str,
    pub(super) category_desc: &'a str,
    pub(super) categories: Vec<String>,
    pub(super) series: Vec<Series>,
    pub(super) stacked: bool,
    pub(super) horizontal: bool,
}

pub(super) fn bars(spec: Bars) -> Result<String, String> {
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
pub(super) fn legend<'a, X, Y>(
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
pub(super) fn format_axis(v: f64) -> String {
    let d = Decimal::from_f64_retain(v)
        .unwrap_or_default()
        .round_dp(3)
        .normalize();
    if d.abs() >= Decimal::from(1000) {
        crate::report::format::count(d)
    } else {
        d.to_string()
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
pub(super) struct Line {
    pub(super) label: String,
    pub(super) color: RGBColor,
    pub(super) dashed: bool,
    pub(super) points: Vec<(f64, f64)>,
}

/// A line chart with an optional marked point.
pub(super) struct Lines<'a> {
    pub(super) title: &'a str,
    pub(super) x_desc: &'a str,
    pub(super) y_desc: &'a str,
    pub(super) lines: Vec<Line>,
    pub(super) mark: Option<((f64, f64), String)>,
}

pub(super) fn lines(spec: Lines) -> Result<String, String> {
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
