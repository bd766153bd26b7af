//! Import summary charts: recorded cost against the engine's replay and
//! its what-ifs, per day; and the dearest sessions.

use crate::import::summary::ImportDoc;
use crate::report::Fmt;
use plotters::prelude::*;
use tokencast_charts::*;

/// Reads one what-if of a day.
type WhatIfGet = fn(&crate::import::summary::WhatIfs) -> Option<crate::import::summary::Band>;

/// Most sessions drawn in the per-session chart (the dearest).
pub const TOP_SESSIONS: usize = 30;

/// Per day: recorded cost of the replayed threads, the replay as recorded,
/// and each what-if, as grouped bars.
pub fn per_day(fmt: &Fmt, doc: &ImportDoc) -> Chart {
    let title = "Per day: recorded cost against the replay and its what-ifs";
    let categories: Vec<String> = doc.days.iter().map(|d| d.day.clone()).collect();
    let mut series = vec![
        Series {
            label: "recorded".into(),
            color: INK,
            values: doc
                .days
                .iter()
                .map(|d| f(d.replayed_recorded_cost))
                .collect(),
        },
        Series {
            label: "replayed as recorded".into(),
            color: RAW,
            values: doc
                .days
                .iter()
                .map(|d| d.what_if.map_or(0.0, |w| f(w.as_recorded.lower)))
                .collect(),
        },
        Series {
            label: "trimmed".into(),
            color: TRIMMED,
            values: doc
                .days
                .iter()
                .map(|d| d.what_if.map_or(0.0, |w| f(w.trimmed.lower)))
                .collect(),
        },
    ];
    let optional: [(&str, WhatIfGet, RGBColor); 3] = [
        ("other cache tier", |w| w.other_tier, LINES[2]),
        ("batch", |w| w.batch, LINES[4]),
        ("other model", |w| w.other_model, LINES[5]),
    ];
    for (label, get, color) in optional {
        if doc
            .days
            .iter()
            .any(|d| d.what_if.as_ref().and_then(get).is_some())
        {
            series.push(Series {
                label: label.into(),
                color,
                values: doc
                    .days
                    .iter()
                    .map(|d| d.what_if.as_ref().and_then(get).map_or(0.0, |b| f(b.lower)))
                    .collect(),
            });
        }
    }
    Chart {
        id: "chart-import-per-day".into(),
        title: title.into(),
        caption: "Each day's sessions that carry tool results: what they cost as recorded, what the engine's replay of the same threads gives (lower bound), and the same replay with results trimmed, on the other cache tier, in batch and on the other model.".into(),
        svg: bars(fmt, Bars {
            title,
            value_desc: "USD (lower bound for replays)",
            category_desc: "day",
            categories,
            series,
            stacked: false,
            horizontal: false,
        }),
    }
}

/// The dearest sessions by recorded cost, horizontal bars.
pub fn top_sessions(fmt: &Fmt, doc: &ImportDoc) -> Chart {
    let title = "Dearest sessions, recorded cost";
    let mut rows: Vec<&crate::import::summary::SessionRow> = doc.sessions.iter().collect();
    rows.sort_by(|a, b| {
        b.recorded_cost
            .cmp(&a.recorded_cost)
            .then(a.session.cmp(&b.session))
    });
    rows.truncate(TOP_SESSIONS);
    Chart {
        id: "chart-import-sessions".into(),
        title: title.into(),
        caption: format!(
            "The {} dearest of {} sessions by recorded cost at the price book (unpriced requests excluded).",
            rows.len(),
            doc.sessions.len()
        ),
        svg: bars(fmt, Bars {
            title,
            value_desc: "USD, recorded",
            category_desc: "session",
            categories: rows
                .iter()
                .map(|r| crate::import::write::short(&r.session).to_string())
                .collect(),
            series: vec![Series {
                label: "recorded cost".into(),
                color: RAW,
                values: rows.iter().map(|r| f(r.recorded_cost)).collect(),
            }],
            stacked: false,
            horizontal: true,
        }),
    }
}
