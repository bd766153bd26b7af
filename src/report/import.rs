//! The import summary: terminal tables, CSV, JSON and a page with charts.
//! Only sizes, counts, names of tools and models, and timestamps appear.

use super::html::{chart_block, charts, live_parts, render_template, simple_page, view, Block};
use super::table::{col, Cell, DataTable};
use super::terminal::{plain_table, wrap_prose};
use super::{HtmlOptions, Render, RenderError, TerminalOptions};
use crate::document::import::{ImportDoc, WhatIfs};
use crate::import::Usage;
use crate::report::format::Scale;
use crate::report::Fmt;
use crate::text::display;
mod answer;
use answer::{
    answer_details, combined_line, confidence_note, counts_line, headline, ranking_line,
    unnamed_line, what_if_note,
};

/// Problems listed in the terminal (all are in the JSON, CSV and page).
const SHOWN_PROBLEMS: usize = 20;

fn usage_cells(u: &Usage) -> Vec<Cell> {
    vec![
        Cell::Int(u.input),
        Cell::Int(u.cache_write_5m),
        Cell::Int(u.cache_write_1h),
        Cell::Int(u.cache_read),
        Cell::Int(u.output),
    ]
}

fn usage_columns() -> Vec<super::table::Column> {
    vec![
        col("input_tokens", "input"),
        col("cache_write_5m_tokens", "5-min writes"),
        col("cache_write_1h_tokens", "1-hour writes"),
        col("cache_read_tokens", "cache reads"),
        col("output_tokens", "output"),
    ]
}

fn what_if_columns() -> Vec<super::table::Column> {
    vec![
        col("replayed_recorded_usd", "recorded (replayed threads)"),
        col("simulated_usd_lower", "replay, lower"),
        col("simulated_usd_estimate", "replay, estimate"),
        col("simulated_usd_upper", "replay, upper"),
        col("trimmed_usd_lower", "trimmed, lower"),
        col("other_tier_usd_lower", "other cache tier, lower"),
        col("batch_usd_lower", "batch, lower"),
        col("other_model_usd_lower", "other model, lower"),
    ]
}

fn what_if_cells(recorded: rust_decimal::Decimal, w: Option<&WhatIfs>) -> Vec<Cell> {
    let opt = |b: Option<crate::document::import::Band>| {
        b.map_or(Cell::Empty, |b| Cell::Usd(b.lower, Scale::Request))
    };
    match w {
        None => vec![Cell::Empty; 8],
        Some(w) => vec![
            Cell::Usd(recorded, Scale::Request),
            Cell::Usd(w.as_recorded.lower, Scale::Request),
            Cell::Usd(w.as_recorded.estimate, Scale::Request),
            Cell::Usd(w.as_recorded.upper, Scale::Request),
            Cell::Usd(w.trimmed.lower, Scale::Request),
            opt(w.other_tier),
            opt(w.batch),
            opt(w.other_model),
        ],
    }
}

/// The recorded cost, never a bare $0 for unpriced requests: "unpriced"
/// when none is priced (exported as empty), the priced part otherwise.
fn recorded_cell(cost: Option<rust_decimal::Decimal>) -> Cell {
    cost.map_or(Cell::Missing("unpriced"), |c| Cell::Usd(c, Scale::Request))
}

/// Whether the recorded cost covers every request: `priced`, `partly
/// unpriced` or `unpriced` (the CSV's status beside the number).
fn recorded_status(unpriced: u64, requests: u64) -> &'static str {
    match unpriced {
        0 => "priced",
        n if n == requests => "unpriced",
        _ => "partly unpriced",
    }
}

/// The usage, recorded cost and replays of a session or a day.
struct Costs<'a> {
    usage: &'a Usage,
    recorded: Option<rust_decimal::Decimal>,
    unpriced: u64,
    requests: u64,
    replayed: rust_decimal::Decimal,
    what_if: Option<&'a WhatIfs>,
}

fn cost_columns() -> Vec<super::table::Column> {
    let mut out = usage_columns();
    out.push(col("recorded_usd", "recorded cost"));
    out.push(col("recorded_status", "priced"));
    out.push(col("unpriced_requests", "unpriced requests"));
    out.extend(what_if_columns());
    out
}

fn cost_cells(c: &Costs) -> Vec<Cell> {
    let mut out = usage_cells(c.usage);
    out.push(recorded_cell(c.recorded));
    out.push(Cell::Text(recorded_status(c.unpriced, c.requests).into()));
    out.push(Cell::Int(c.unpriced));
    out.extend(what_if_cells(c.replayed, c.what_if));
    out
}

/// The money of a compact row: recorded, then each replay's estimate.
fn compact_money_columns(doc: &ImportDoc) -> Vec<super::table::Column> {
    let other = doc
        .compare_model
        .as_ref()
        .map_or("other model".to_string(), |m| format!("on {}", display(m)));
    vec![
        col("recorded_usd", "recorded"),
        col("simulated_usd_estimate", "replayed"),
        col("trimmed_usd_estimate", "trimmed"),
        col("other_tier_usd_estimate", "other tier"),
        col("batch_usd_estimate", "batch"),
        col("other_model_usd_estimate", other),
    ]
}

fn compact_money_cells(recorded: Option<rust_decimal::Decimal>, w: Option<&WhatIfs>) -> Vec<Cell> {
    let est = |b: Option<crate::document::import::Band>| {
        b.map_or(Cell::Empty, |b| Cell::Usd(b.estimate, Scale::Request))
    };
    let mut out = vec![recorded_cell(recorded)];
    match w {
        None => out.extend(vec![Cell::Empty; 5]),
        Some(w) => out.extend([
            Cell::Usd(w.as_recorded.estimate, Scale::Request),
            Cell::Usd(w.trimmed.estimate, Scale::Request),
            est(w.other_tier),
            est(w.batch),
            est(w.other_model),
        ]),
    }
    out
}

/// One row per session, as a terminal or a page shows it by default: the
/// first 8 characters of its id, the money first (recorded and each
/// replay's estimate), then its size; every column is in [`sessions`]
/// (`--wide`, `--csv DIR`).
pub fn sessions_compact(doc: &ImportDoc) -> DataTable {
    let mut columns = vec![col("session", "session")];
    columns.extend(compact_money_columns(doc));
    columns.extend([
        col("requests", "requests"),
        col("tool_results", "results"),
        col("started", "started (UTC)"),
    ]);
    DataTable {
        id: "sessions",
        title: format!(
            "Sessions ({}; USD, replays at their estimate; every column: --wide or --csv DIR)",
            doc.sessions.len()
        ),
        columns,
        rows: doc
            .sessions
            .iter()
            .map(|s| {
                let mut row = vec![Cell::Text(display(&crate::import::write::short(
                    &s.session,
                )))];
                row.extend(compact_money_cells(s.recorded_cost, s.what_if.as_ref()));
                row.extend([
                    Cell::Int(s.requests),
                    Cell::Int(s.tool_results),
                    // 2026-03-01T10:00:02.000Z → 2026-03-01 10:00
                    Cell::Text(
                        s.started
                            .as_deref()
                            .map(|t| t.chars().take(16).collect::<String>().replace('T', " "))
                            .unwrap_or_default(),
                    ),
                ]);
                row
            })
            .collect(),
    }
}

/// One row per day and one for all sessions, compact as [`sessions_compact`].
pub fn days_compact(doc: &ImportDoc) -> DataTable {
    let mut columns = vec![col("day", "day")];
    columns.extend(compact_money_columns(doc));
    columns.extend([col("sessions", "sessions"), col("requests", "requests")]);
    DataTable {
        id: "days",
        title: "Per day (UTC, by session start; USD, replays at their estimate), and all sessions"
            .into(),
        columns,
        rows: doc
            .days
            .iter()
            .chain(std::iter::once(&doc.totals))
            .map(|d| {
                let mut row = vec![Cell::Text(d.day.clone())];
                row.extend(compact_money_cells(d.recorded_cost, d.what_if.as_ref()));
                row.extend([Cell::Int(d.sessions), Cell::Int(d.requests)]);
                row
            })
            .collect(),
    }
}

/// One row per session.
pub fn sessions(doc: &ImportDoc) -> DataTable {
    let mut columns = vec![
        col("session", "session"),
        col("project", "project"),
        col("started", "started"),
        col("threads", "threads"),
        col("requests", "requests"),
        col("tool_results", "tool results"),
        col("result_bytes", "result bytes"),
        col("images", "images"),
        col("compactions", "compactions"),
    ];
    columns.extend(cost_columns());
    let rows = doc
        .sessions
        .iter()
        .map(|s| {
            let mut row = vec![
                Cell::Text(s.session.clone()),
                Cell::Text(s.project.clone()),
                Cell::Text(s.started.clone().unwrap_or_default()),
                Cell::Int(s.threads),
                Cell::Int(s.requests),
                Cell::Int(s.tool_results),
                Cell::Int(s.result_bytes),
                Cell::Int(s.images),
                Cell::Int(s.compactions),
            ];
            row.extend(cost_cells(&Costs {
                usage: &s.usage,
                recorded: s.recorded_cost,
                unpriced: s.unpriced_requests,
                requests: s.requests,
                replayed: s.replayed_recorded_cost,
                what_if: s.what_if.as_ref(),
            }));
            row
        })
        .collect();
    DataTable {
        id: "sessions",
        title: format!(
            "Sessions ({} at {}; USD)",
            doc.sessions.len(),
            doc.price_book
        ),
        columns,
        rows,
    }
}

/// One row per day.
pub fn days(doc: &ImportDoc) -> DataTable {
    let mut columns = vec![
        col("day", "day"),
        col("sessions", "sessions"),
        col("requests", "requests"),
    ];
    columns.extend(cost_columns());
    // The days, then every session summed.
    let rows = doc
        .days
        .iter()
        .chain(std::iter::once(&doc.totals))
        .map(|d| {
            let mut row = vec![
                Cell::Text(d.day.clone()),
                Cell::Int(d.sessions),
                Cell::Int(d.requests),
            ];
            row.extend(cost_cells(&Costs {
                usage: &d.usage,
                recorded: d.recorded_cost,
                unpriced: d.unpriced_requests,
                requests: d.requests,
                replayed: d.replayed_recorded_cost,
                what_if: d.what_if.as_ref(),
            }));
            row
        })
        .collect();
    DataTable {
        id: "days",
        title: "Per day (UTC, by session start; USD), and all sessions".into(),
        columns,
        rows,
    }
}

/// Unpriced models, with their token counts.
pub fn unpriced(doc: &ImportDoc) -> DataTable {
    let mut columns = vec![
        col("model", "model"),
        col("reason", "why unpriced"),
        col("requests", "requests"),
    ];
    columns.extend(usage_columns());
    DataTable {
        id: "unpriced",
        title: "Unpriced: requests on models the price book does not price (not in any cost)"
            .into(),
        columns,
        rows: doc
            .unpriced
            .iter()
            .map(|u| {
                let mut row = vec![
                    Cell::Text(u.model.clone()),
                    Cell::Text(u.reason.clone()),
                    Cell::Int(u.requests),
                ];
                row.extend(usage_cells(&u.usage));
                row
            })
            .collect(),
    }
}

/// Lines and files that could not be read.
pub fn problems(doc: &ImportDoc) -> DataTable {
    DataTable {
        id: "problems",
        title: format!("Not imported: {} line(s) or file(s)", doc.problems.len()),
        columns: vec![
            col("file", "file"),
            col("line", "line"),
            col("problem", "problem"),
        ],
        rows: doc
            .problems
            .iter()
            .map(|p| {
                vec![
                    Cell::Text(p.file.clone()),
                    Cell::Int(p.line),
                    Cell::Text(p.what.clone()),
                ]
            })
            .collect(),
    }
}

/// The compared models, cheapest first: each one's cost of the same
/// replayed threads under its provider's cache rules.
pub fn ranking(doc: &ImportDoc) -> DataTable {
    DataTable {
        id: "import_models",
        title: "The same replayed threads on each compared model, cheapest first (USD)".into(),
        columns: vec![
            col("rank", "rank"),
            col("model", "model"),
            col("usd_estimate", "estimate"),
            col("usd_lower", "lower"),
            col("usd_upper", "upper"),
            col("versus_as_recorded", "vs as recorded"),
            col("sessions", "sessions"),
            col("cache", "cache"),
        ],
        rows: doc
            .ranking
            .iter()
            .enumerate()
            .map(|(i, m)| {
                vec![
                    Cell::Int(i as u64 + 1),
                    Cell::Text(display(&m.model)),
                    Cell::Usd(m.cost.estimate, Scale::Request),
                    Cell::Usd(m.cost.lower, Scale::Request),
                    Cell::Usd(m.cost.upper, Scale::Request),
                    m.versus_as_recorded
                        .map_or(Cell::Missing("n/a"), Cell::Share),
                    Cell::Int(m.sessions),
                    Cell::Text(m.cache.clone()),
                ]
            })
            .collect(),
    }
}

/// Each `--variant` over the threads that took it, beside the same threads
/// as recorded.
pub fn combined(doc: &ImportDoc) -> DataTable {
    tokencast_core::view::import::variants(
        "import_variants",
        tokencast_core::view::import::GIVEN,
        &doc.variants,
    )
}

impl Render for ImportDoc {
    fn draw_terminal(&self, fmt: &Fmt, opts: &TerminalOptions) -> String {
        let mut s = format!(
            "tokencast {} · import {} · price book {}\n",
            env!("CARGO_PKG_VERSION"),
            self.source,
            self.price_book
        );
        for line in std::iter::once(headline(fmt, self))
            .chain(unnamed_line(self))
            .chain(answer_details(fmt, self))
            .chain(combined_line(fmt, self))
            .chain(ranking_line(fmt, self))
        {
            s.push_str(&wrap_prose(&line, opts.width));
            // A line short enough not to wrap ends without its newline.
            if !s.ends_with('\n') {
                s.push('\n');
            }
        }
        if opts.brief {
            return s;
        }
        s.push_str(&wrap_prose(&counts_line(self), opts.width));
        s.push_str("\n\n");
        if !self.variants.is_empty() {
            s.push_str(&plain_table(fmt, &combined(self), opts.width));
            s.push('\n');
        }
        if !self.ranking.is_empty() {
            s.push_str(&plain_table(fmt, &ranking(self), opts.width));
            s.push('\n');
        }
        let (sessions, days) = if opts.wide {
            (sessions(self), days(self))
        } else {
            (sessions_compact(self), days_compact(self))
        };
        s.push_str(&plain_table(fmt, &sessions, opts.width));
        s.push('\n');
        s.push_str(&plain_table(fmt, &days, opts.width));
        s.push('\n');
        s.push_str(&wrap_prose(&what_if_note(self), opts.width));
        s.push('\n');
        if self.confidence.sessions > 0 {
            s.push_str(&wrap_prose(&confidence_note(fmt, self), opts.width));
            s.push('\n');
        }
        if !self.unpriced.is_empty() {
            s.push('\n');
            s.push_str(&plain_table(fmt, &unpriced(self), opts.width));
        }
        if !self.problems.is_empty() {
            let mut t = problems(self);
            let more = t.rows.len().saturating_sub(SHOWN_PROBLEMS);
            t.rows.truncate(SHOWN_PROBLEMS);
            s.push('\n');
            s.push_str(&plain_table(fmt, &t, opts.width));
            if more > 0 {
                s.push_str(&format!(
                    "… and {more} more (all in --format json and the page).\n"
                ));
            }
        }
        s.push_str(&format!(
            "\n{} scenario(s) written; run `tokencast simulate` on any of them.\n",
            self.scenarios.len()
        ));
        s
    }

    fn draw_tables(&self, _: &Fmt) -> Vec<DataTable> {
        let mut all = vec![sessions(self), days(self), unpriced(self), problems(self)];
        if !self.ranking.is_empty() {
            all.insert(0, ranking(self));
        }
        if !self.variants.is_empty() {
            all.insert(0, combined(self));
        }
        all
    }

    fn draw_csv_table(&self, _: &Fmt) -> DataTable {
        sessions(self)
    }

    fn draw_html(&self, fmt: &Fmt, opts: &HtmlOptions) -> Result<Vec<u8>, RenderError> {
        let mut blocks = vec![Block {
            list: std::iter::once(headline(fmt, self))
                .chain(unnamed_line(self))
                .chain(answer_details(fmt, self))
                .chain(combined_line(fmt, self))
                .chain(ranking_line(fmt, self))
                .chain([counts_line(self), what_if_note(self)])
                .chain((self.confidence.sessions > 0).then(|| confidence_note(fmt, self)))
                .collect(),
            ..Block::default()
        }];
        // A live page's own what-if, as its engine answers it unchanged.
        let what_if = opts.live.as_ref().map_or(&[][..], |l| &l.blocks[..]);
        for (i, b) in what_if.iter().enumerate() {
            let b = b.clone();
            blocks.push(match i {
                0 => b.heading(
                    "What if",
                    Some("The same threads replayed again on the model, results, cache tier and mode set above, as `tokencast import --variant` replays them (the page's download gives that command).".into()),
                ),
                _ => b,
            });
        }
        if !self.variants.is_empty() {
            blocks.push(Block::table(view(fmt, &combined(self))).heading("Your variants", None));
        }
        if !self.ranking.is_empty() {
            blocks.push(
                chart_block(fmt, |fmt| charts::import::models(fmt, self))
                    .heading("Compared models", None),
            );
            blocks.push(Block::table(view(fmt, &ranking(self))));
        }
        blocks.push(
            chart_block(fmt, |fmt| charts::import::per_day(fmt, self)).heading("Charts", None),
        );
        blocks.push(chart_block(fmt, |fmt| {
            charts::import::top_sessions(fmt, self)
        }));
        blocks.push(Block::table(view(fmt, &days_compact(self))).heading(
            "Tables",
            Some("Compact tables: each session's recorded cost and each replay's estimate first. Every column (usage by token class, lower and upper bounds, sizes) is in the CSV files of --csv DIR and in the JSON.".into()),
        ));
        blocks.push(Block::table(view(fmt, &sessions_compact(self))));
        if !self.unpriced.is_empty() {
            blocks.push(Block::table(view(fmt, &unpriced(self))));
        }
        if !self.problems.is_empty() {
            blocks.push(Block {
                collapsible: true,
                ..Block::table(view(fmt, &problems(self)))
            });
        }
        let mut page = simple_page(fmt,
            format!("tokencast import: {}", self.source),
            format!(
                "What did {} session(s) cost as recorded, and what would they cost trimmed, cached for an hour, in batch or on another model?",
                self.sessions.len()
            ),
            blocks,
            &[],
            opts.timestamp.clone(),
        );
        (page.live, page.live_missing) = live_parts(opts);
        Ok(render_template("base.html", &page)?)
    }
}
