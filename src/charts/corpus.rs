//! The corpus forecast's chart: the recorded sessions' costs as a
//! cumulative distribution per variant.

use super::*;
use tokencast_core::document::CorpusForecast;
use tokencast_core::view::Fmt;

/// Share of recorded sessions at or below each cost (upper bound), per variant.
pub fn distribution(fmt: &Fmt, f: &CorpusForecast) -> Chart {
    let title = "Recorded sessions: share at or below each cost (upper bound)";
    let series = f
        .variants
        .iter()
        .enumerate()
        .map(|(v, var)| {
            let mut costs: Vec<f64> = f
                .recorded
                .iter()
                .map(|s| super::f(s.cost[v].upper))
                .collect();
            costs.sort_by(|a, b| a.total_cmp(b));
            let n = costs.len() as f64;
            let mut points = Vec::with_capacity(costs.len() * 2);
            for (i, c) in costs.iter().enumerate() {
                points.push((*c, i as f64 / n * 100.0));
                points.push((*c, (i + 1) as f64 / n * 100.0));
            }
            Line {
                label: shorten(&var.name, 40),
                color: LINES[v % LINES.len()],
                dashed: v >= LINES.len(),
                points,
            }
        })
        .collect();
    Chart {
        id: "chart-corpus-distribution".into(),
        title: title.into(),
        caption: format!(
            "Each step is one of the {} recorded sessions (the recorded mix, before any --weights). Where a line reaches 99 % is the recorded p99; with fewer than {} sessions that p99 cannot be bounded at 95 % confidence.",
            f.sessions, f.needed_for_p99
        ),
        svg: lines(fmt, Lines {
            title,
            x_desc: &fmt.in_code("USD per run, upper bound"),
            y_desc: "sessions at or below (%)",
            lines: series,
            mark: None,
        }),
    }
}
