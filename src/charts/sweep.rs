//! The sweep chart: lines per variant for one axis, a heat map for two.

use super::*;
use tokencast_core::document::Sweep;
use tokencast_core::view::format::Scale;
use tokencast_core::view::Fmt;

/// A sweep: lines per variant for one axis, a heat map of the cheapest variant for two.
pub fn sweep(fmt: &Fmt, s: &Sweep) -> Chart {
    let title = format!(
        "Total cost of {} by {}",
        s.figure.period(),
        s.axes
            .iter()
            .map(|a| a.param.name())
            .collect::<Vec<_>>()
            .join(" and ")
    );
    let svg = if s.axes.len() == 1 && s.axes[0].values.iter().all(|v| v.as_f64().is_some()) {
        lines(
            fmt,
            Lines {
                title: &title,
                x_desc: s.axes[0].param.name(),
                y_desc: &format!("{}, lower bound", s.figure.unit()),
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
                            .map(|p| (p.values[0].as_f64().unwrap_or(0.0), f(p.totals[i].lower)))
                            .collect(),
                    })
                    .collect(),
                mark: None,
            },
        )
    } else if s.axes.len() == 1 {
        bars(
            fmt,
            Bars {
                title: &title,
                value_desc: &format!("{}, lower bound", s.figure.unit()),
                category_desc: s.axes[0].param.name(),
                categories: s.points.iter().map(|p| p.values[0].to_string()).collect(),
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
            },
        )
    } else {
        heat_map(fmt, s, &title)
    };
    let mut caption =
        "Every point is a full replay of the scenario with the varied assumption.".to_string();
    if s.axes.len() == 2 {
        caption.push_str(&format!(
            " Each cell shows the cheapest variant's total ({}) and which variant that is: {}.",
            s.figure.unit(),
            s.variants
                .iter()
                .enumerate()
                .map(|(i, v)| format!("v{} = {v}", i + 1))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    Chart {
        id: "chart-sweep".into(),
        title,
        caption,
        svg,
    }
}

/// Two axes: cells shaded by the cheapest variant's total, labelled with it.
/// The fill of a heat-map cell at `t` (0 cheapest … 1 dearest): light to
/// dark, so it reads in greyscale.
fn shade(t: f64) -> RGBColor {
    let v = (235.0 - 180.0 * t.clamp(0.0, 1.0)) as u8;
    RGBColor(v, v.saturating_add(10), v.saturating_add(10))
}

/// Two axes: each cell shaded by the cheapest variant's total and labelled
/// with it and that variant (`v1`, `v2`, … as in the caption); a colour
/// scale with its $ values under the plot.
fn heat_map(fmt: &Fmt, s: &Sweep, title: &str) -> Result<String, String> {
    let (xs, ys) = (&s.axes[0].values, &s.axes[1].values);
    let cheapest: Vec<(usize, f64)> = s
        .points
        .iter()
        .map(|p| {
            p.totals
                .iter()
                .enumerate()
                .map(|(i, t)| (i, f(t.lower)))
                .fold((0, f64::MAX), |a, b| if b.1 < a.1 { b } else { a })
        })
        .collect();
    let (lo, hi) = cheapest
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), (_, v)| {
            (a.min(*v), b.max(*v))
        });
    let at = |t: f64| lo + (hi - lo) * t;
    let (unit, scale) = if s.figure == tokencast_core::analysis::sweep::Figure::PerDay {
        ("/day", Scale::Cents)
    } else {
        ("/run", Scale::Run)
    };
    let keys: Vec<Key> = [0.0, 0.25, 0.5, 0.75, 1.0]
        .into_iter()
        .map(|t| Key {
            label: format!(
                "{}{unit}",
                fmt.money(
                    rust_decimal::Decimal::from_f64_retain(at(t)).unwrap_or_default(),
                    scale
                )
            ),
            swatch: Swatch::Fill(shade(t)),
        })
        .collect();
    draw(fmt, |root| {
        let root = &legend_below(root, &keys)?;
        let mut chart = titled(
            &mut ChartBuilder::on(root),
            fmt,
            &format!("{title}: the cheapest variant"),
        )
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(-0.5..(xs.len() as f64 - 0.5), -0.5..(ys.len() as f64 - 0.5))?;
        let xl: Vec<String> = xs.iter().map(ToString::to_string).collect();
        let yl: Vec<String> = ys.iter().map(ToString::to_string).collect();
        let xf = move |v: &f64| category(&xl, *v);
        let yf = move |v: &f64| category(&yl, *v);
        let mut mesh = chart.configure_mesh();
        mesh.disable_mesh()
            .x_labels(xs.len())
            .y_labels(ys.len())
            .x_label_formatter(&xf)
            .y_label_formatter(&yf)
            .x_desc(s.axes[0].param.name())
            .y_desc(s.axes[1].param.name());
        quiet_mesh(&mut mesh);
        mesh.draw()?;
        // Each cell names its cost and variant at the axis labels' size
        // (11 px or more on screen) where the cells have room for it.
        let labelled = xs.len() <= 12 && ys.len() <= 10 && !fmt.canvas.is_narrow();
        for (i, (variant, v)) in cheapest.iter().enumerate() {
            let (x, y) = ((i / ys.len()) as f64, (i % ys.len()) as f64);
            let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.0 };
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                shade(t).filled(),
            )))?;
            if labelled {
                let ink = if t > 0.5 { WHITE } else { INK };
                let style = (FONT, LABEL_SIZE).into_font().color(&ink);
                chart.draw_series(std::iter::once(
                    EmptyElement::at((x, y))
                        + Text::new(
                            fmt.money(
                                rust_decimal::Decimal::from_f64_retain(*v).unwrap_or_default(),
                                scale,
                            ),
                            (-26, -13),
                            style.clone(),
                        )
                        + Text::new(format!("v{}", variant + 1), (-9, 2), style),
                ))?;
            }
        }
        Ok(())
    })
}
