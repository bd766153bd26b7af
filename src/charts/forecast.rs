//! Forecast charts: the cost histogram per variant and the context fan.

use super::*;
use tokencast_core::analysis::forecast::VariantForecast;
use tokencast_core::document::Forecast;
use tokencast_core::view::Fmt;

/// Forecast: histogram of one variant's cost per run.
pub fn forecast_histogram(fmt: &Fmt, v: &VariantForecast, runs: u64) -> Chart {
    let title = format!("Cost per run: {}", shorten(&v.name, 40));
    let edges = &v.histogram_edges;
    let bins = edges.len().saturating_sub(1);
    let svg = draw(fmt, |root| {
        let ymax = nice_max(
            v.histogram_counts.iter().copied().max().unwrap_or(0) as f64 / runs as f64 * 100.0,
        );
        let (x0, x1) = (edges[0], edges[bins]);
        let mut chart = titled(&mut ChartBuilder::on(root), fmt, &title)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, 0.0..ymax)?;
        let mut mesh = chart.configure_mesh();
        mesh.disable_x_mesh()
            .x_label_formatter(&|v| format_axis(*v))
            .y_label_formatter(&|v| format_axis(*v))
            .x_desc(fmt.in_code("USD per run, lower bound"))
            .y_desc("share of runs (%)");
        quiet_mesh(&mut mesh);
        mesh.draw()?;
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
        for (label, x) in [("p50", f(v.cost_lower.p50)), ("p99", f(v.cost_lower.p99))] {
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
pub fn forecast_fan(fmt: &Fmt, f: &Forecast) -> Chart {
    let title = "Context size against the number of calls (p10–p99)";
    let mut series = Vec::new();
    for (c, name) in [(0, "raw"), (1, "trimmed")] {
        // The median solid; the outer percentiles dashed and lighter the
        // further out they are, so each reads apart in the legend too.
        for (q, label, dashed, light) in [
            (1, "p50", false, 1.0),
            (0, "p10", true, 0.45),
            (2, "p90", true, 0.75),
            (3, "p99", true, 0.45),
        ] {
            let base = if c == 0 { RAW } else { TRIMMED };
            series.push(Line {
                label: format!("{name} {label}"),
                color: tint(base, light),
                dashed,
                points: f
                    .fan
                    .iter()
                    .map(|p| {
                        let v = super::f(if c == 0 {
                            p.raw.all()[q]
                        } else {
                            p.trimmed.all()[q]
                        });
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
        svg: lines(fmt, Lines {
            title,
            x_desc: "tool calls in the run",
            y_desc: "input tokens (thousands)",
            lines: series,
            mark: None,
        }),
    }
}
