//! Import summary charts: recorded cost against the engine's replay and
//! its what-ifs, per day; and the dearest sessions.

use crate::document::import::ImportDoc;
use crate::report::Fmt;
use plotters::prelude::*;
use tokencast_charts::*;

/// Reads one what-if of a day.
type WhatIfGet = fn(&crate::document::import::WhatIfs) -> Option<crate::document::import::Band>;

/// Most sessions drawn in the per-session chart (the dearest).
pub const TOP_SESSIONS: usize = 30;

/// Per day: recorded cost of the replayed threads, the replay as recorded,
/// and each what-if, as grouped bars.
pub fn per_day(fmt: &Fmt, doc: &ImportDoc) -> Chart {
    let title = "Per day: recorded cost against the replay and its what-ifs";
    // A day with nothing priced has no bars: its label says why, so an
    // empty slot never reads as $0.
    let categories: Vec<String> = doc
        .days
        .iter()
        .map(|d| {
            if d.recorded_cost.is_none() && d.requests > 0 {
                format!("{} (unpriced)", d.day)
            } else if d.what_if.is_none() {
                format!("{} (not replayed)", d.day)
            } else {
                d.day.clone()
            }
        })
        .collect();
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
            color: DISTINCT[0],
            values: doc
                .days
                .iter()
                .map(|d| d.what_if.map_or(0.0, |w| f(w.as_recorded.estimate)))
                .collect(),
        },
        Series {
            label: "trimmed".into(),
            color: DISTINCT[1],
            values: doc
                .days
                .iter()
                .map(|d| d.what_if.map_or(0.0, |w| f(w.trimmed.estimate)))
                .collect(),
        },
    ];
    let optional: [(&str, WhatIfGet, RGBColor); 3] = [
        ("other cache tier", |w| w.other_tier, DISTINCT[2]),
        ("batch", |w| w.batch, DISTINCT[3]),
        ("other model", |w| w.other_model, DISTINCT[4]),
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
                    .map(|d| {
                        d.what_if
                            .as_ref()
                            .and_then(get)
                            .map_or(0.0, |b| f(b.estimate))
                    })
                    .collect(),
            });
        }
    }
    Chart {
        id: "chart-import-per-day".into(),
        title: title.into(),
        caption: "Each day's replayed threads: what they cost as recorded, what the engine's replay of the same threads gives (its estimate; the tables give lower and upper bounds), and the same replay with results trimmed, on the other cache tier, in batch and on the other model. A day with nothing priced or replayed is labelled so, never drawn as $0.".into(),
        svg: bars(fmt, Bars {
            title,
            value_desc: "USD (replays at their estimate)",
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
    // A session with nothing priced is not drawn (a bar of $0 would say
    // it cost nothing); the caption counts it.
    let (mut rows, unpriced): (Vec<&crate::document::import::SessionRow>, Vec<_>) =
        doc.sessions.iter().partition(|r| r.recorded_cost.is_some());
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
            "The {} dearest of {} sessions by recorded cost at the price book (unpriced requests excluded){}.",
            rows.len(),
            doc.sessions.len(),
            match unpriced.len() {
                0 => String::new(),
                n => format!("; {n} session(s) on models the book does not price are not drawn"),
            }
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
                values: rows
                    .iter()
                    .map(|r| f(r.recorded_cost.unwrap_or_default()))
                    .collect(),
            }],
            stacked: false,
            horizontal: true,
        }),
    }
}

/// Most models drawn in the compared-models chart (the cheapest).
pub const TOP_MODELS: usize = 30;

/// The compared models' estimates for the same threads, cheapest first,
/// beside the threads as recorded: horizontal bars.
pub fn models(fmt: &Fmt, doc: &ImportDoc) -> Chart {
    let title = "The same threads on each compared model (estimate)";
    let shown: Vec<&crate::document::import::ModelRank> =
        doc.ranking.iter().take(TOP_MODELS).collect();
    let as_recorded = doc
        .ranking
        .first()
        .map_or(0.0, |m| f(m.as_recorded.estimate));
    let mut categories = vec!["as recorded".to_string()];
    categories.extend(shown.iter().map(|m| crate::text::display(&m.model)));
    let mut values = vec![as_recorded];
    values.extend(shown.iter().map(|m| f(m.cost.estimate)));
    Chart {
        id: "chart-import-models".into(),
        title: title.into(),
        caption: format!(
            "The replayed threads as recorded (each request on its own model), then the {} cheapest of {} compared models, each under its provider's cache rules (the table gives lower and upper bounds).",
            shown.len(),
            doc.ranking.len()
        ),
        svg: bars(fmt, Bars {
            title,
            value_desc: "USD, estimate",
            category_desc: "model",
            categories,
            series: vec![Series {
                label: "estimate".into(),
                color: RAW,
                values,
            }],
            stacked: false,
            horizontal: true,
        }),
    }
}
