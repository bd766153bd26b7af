//! Bar charts: stacked or grouped, vertical or horizontal, their value axis
//! rounded up and each bar's rectangle.

use super::{
    category, draw, format_axis, legend_below, nice_max, quiet_mesh, shorten, titled, Key, Series,
    Swatch, INK,
};
use plotters::prelude::*;
use tokencast_core::view::Fmt;

/// Bars per category: grouped side by side or stacked; vertical or horizontal.
pub struct Bars<'a> {
    pub title: &'a str,
    pub value_desc: &'a str,
    pub category_desc: &'a str,
    pub categories: Vec<String>,
    pub series: Vec<Series>,
    pub stacked: bool,
    pub horizontal: bool,
}

/// Above this many categories, vertical bars lose their outline and only
/// some categories are labelled.
pub const MANY_BARS: usize = 60;

pub fn bars(fmt: &Fmt, spec: Bars) -> Result<String, String> {
    draw(fmt, |root| {
        let keys: Vec<Key> = spec
            .series
            .iter()
            .map(|s| Key {
                label: s.label.clone(),
                swatch: Swatch::Fill(s.color),
            })
            .collect();
        let root = &legend_below(root, &keys)?;
        let n = spec.categories.len();
        let vmax = bar_top(&spec);
        let cats = (-0.5)..(n as f64 - 0.5);
        let label_len = spec
            .categories
            .iter()
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(1);
        let mut b = ChartBuilder::on(root);
        titled(&mut b, fmt, &fmt.in_code(spec.title)).margin(12);
        let shapes = bar_shapes(&spec);
        // A horizontal chart's labels get at most 260 units and 40 % of its
        // width (7 units a character); a longer label is shortened with an
        // ellipsis.
        let label_area = (label_len as u32 * 7 + 24).clamp(60, (fmt.canvas.width * 2 / 5).min(260));
        let fits = ((label_area - 24) / 7) as usize;
        let cat_labels: Vec<String> = if spec.horizontal {
            spec.categories
                .iter()
                .rev()
                .map(|c| shorten(c, fits))
                .collect()
        } else {
            spec.categories.clone()
        };
        let cat_fmt = move |v: &f64| category(&cat_labels, *v);
        let val_fmt = |v: &f64| format_axis(*v);
        // One drawing for both orientations: `pt` puts (category, value) on the right axes.
        let horizontal = spec.horizontal;
        let pt = move |c: f64, v: f64| if horizontal { (v, c) } else { (c, v) };
        let (x_range, y_range) = if horizontal {
            b.x_label_area_size(44).y_label_area_size(label_area);
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
                .x_desc(fmt.in_code(spec.value_desc))
                .y_desc(spec.category_desc);
        } else {
            mesh.disable_x_mesh()
                .x_labels(n.clamp(1, if fmt.canvas.is_narrow() { 8 } else { 25 }))
                .x_label_formatter(&cat_fmt)
                .y_label_formatter(&val_fmt)
                .x_desc(spec.category_desc)
                .y_desc(fmt.in_code(spec.value_desc));
        }
        quiet_mesh(&mut mesh);
        mesh.draw()?;
        let outlined = horizontal || n <= MANY_BARS;
        for (s, series) in spec.series.iter().enumerate() {
            let color = series.color;
            let rect = |r: &(f64, f64, f64, f64, usize)| [pt(r.0, r.2), pt(r.1, r.3)];
            chart.draw_series(
                shapes
                    .iter()
                    .filter(|r| r.4 == s)
                    .map(|r| Rectangle::new(rect(r), color.filled())),
            )?;
            if outlined {
                chart.draw_series(
                    shapes
                        .iter()
                        .filter(|r| r.4 == s && r.3 > r.2)
                        .map(|r| Rectangle::new(rect(r), INK.stroke_width(1))),
                )?;
            }
        }
        Ok(())
    })
}

/// The value axis's top: the tallest bar (a stack's sum), rounded up.
pub(super) fn bar_top(spec: &Bars) -> f64 {
    let n = spec.categories.len();
    let totals = (0..n).map(|i| {
        let vals = spec.series.iter().map(|s| s.values[i]);
        if spec.stacked {
            vals.sum()
        } else {
            vals.fold(0.0, f64::max)
        }
    });
    nice_max(totals.fold(0.0, f64::max))
}

/// Every bar as (category from, to, value from, to, series): stacked bars
/// share a slot, grouped ones split it; horizontal charts read top-down,
/// so the first category gets the top slot.
pub(super) fn bar_shapes(spec: &Bars) -> Vec<(f64, f64, f64, f64, usize)> {
    let n = spec.categories.len();
    let k = spec.series.len() as f64;
    let slot = |i: usize| if spec.horizontal { n - 1 - i } else { i };
    let mut shapes = Vec::with_capacity(n * spec.series.len());
    for i in 0..n {
        let c = slot(i) as f64;
        let mut base = 0.0;
        for (s, series) in spec.series.iter().enumerate() {
            let v = series.values[i];
            let (lo, hi) = if spec.stacked {
                (base, base + v)
            } else {
                (0.0, v)
            };
            base += v;
            let (c0, c1) = if spec.stacked {
                (c - 0.35, c + 0.35)
            } else {
                let w = 0.8 / k;
                let c0 = c - 0.4 + s as f64 * w;
                (c0, c0 + w * 0.92)
            };
            shapes.push((c0, c1, lo, hi, s));
        }
    }
    shapes
}
