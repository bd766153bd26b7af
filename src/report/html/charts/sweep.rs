//! The sweep chart: lines per variant for one axis, a heat map for two.

use super::*;
use crate::document::Sweep;

/// A sweep: lines per variant for one axis, a heat map of the cheapest variant for two.
pub fn sweep(s: &Sweep) -> Chart {
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
        lines(Lines {
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
        })
    } else if s.axes.len() == 1 {
        bars(Bars {
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
fn heat_map(s: &Sweep, title: &str) -> Result<String, String> {
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
        let xl: Vec<String> = xs.iter().map(ToString::to_string).collect();
        let yl: Vec<String> = ys.iter().map(ToString::to_string).collect();
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
