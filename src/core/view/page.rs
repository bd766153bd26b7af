//! What a page shows, as plain data: facts, the answer, tables of display
//! text and lists, in the order the page lays them out. The HTML renderer
//! puts them in its template; a live page gets the same data from the
//! engine built for the web, so both show the same characters.

use super::table::DataTable;
use super::Fmt;
use serde::Serialize;

/// The charts a page draws at a block, by kind (a renderer that draws
/// charts fills them in; the engine draws none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartSlot {
    /// The run's charts, one after another.
    Run,
    /// Cumulative spend against the budget.
    Cumulative,
    /// Recorded against replayed cost.
    Backtest,
    /// The what-if analyses' charts.
    WhatIf,
    /// The same run on each compared model.
    Models,
    /// A forecast's context fan.
    ForecastFan,
    /// A forecast's cost histogram per variant.
    ForecastHistograms,
    /// A corpus forecast's recorded sessions.
    CorpusSessions,
}

/// A page's subtitle with the currency and price-date note, if any.
pub fn with_basis(fmt: &Fmt, question: String) -> String {
    match fmt.basis_note() {
        Some(note) => format!("{question} {note}"),
        None => question,
    }
}

/// A label and its value (a key assumption, an input file).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Fact {
    pub label: String,
    pub value: String,
}

/// The Answer box of a simulation page.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Headline {
    pub cheapest: String,
    pub cheapest_total: String,
    pub dearest: String,
    pub dearest_total: String,
    pub saving: String,
    pub saving_percent: String,
    pub runs_per_day: String,
    pub saving_per_day: String,
}

/// One block of the page: an optional section heading, then a chart or a table.
#[derive(Serialize, Default, Debug, Clone, PartialEq)]
pub struct Block {
    /// What the page calls the block (`data-block`), so a live page can
    /// replace it: a table's id, or the name of a list.
    pub id: Option<String>,
    pub heading: Option<String>,
    pub note: Option<String>,
    pub list: Vec<String>,
    /// The list has its place on the page even when it is empty, for a
    /// live page to fill (the budget lines appear when a budget is set).
    pub list_place: bool,
    pub chart: Option<ChartView>,
    pub table: Option<TableView>,
    pub collapsible: bool,
    /// Where the renderer draws charts instead (the engine draws none).
    #[serde(skip)]
    pub slot: Option<ChartSlot>,
}

impl Block {
    pub fn table(t: TableView) -> Block {
        Block {
            id: Some(t.id.clone()),
            table: Some(t),
            ..Block::default()
        }
    }

    /// A list of sentences, named `id` on the page.
    pub fn list(id: &str, items: Vec<String>) -> Block {
        Block {
            id: Some(id.to_string()),
            list: items,
            ..Block::default()
        }
    }

    /// The place of the charts of `slot`.
    pub fn slot(slot: ChartSlot) -> Block {
        Block {
            slot: Some(slot),
            ..Block::default()
        }
    }

    /// The block under a section heading, with an optional note.
    pub fn heading(mut self, h: &str, note: Option<String>) -> Block {
        self.heading = Some(h.to_string());
        self.note = note;
        self
    }
}

/// A drawn chart: its SVG, or why it could not be drawn.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ChartView {
    pub id: String,
    pub title: String,
    pub caption: String,
    pub svg: Option<String>,
    /// The same chart drawn for narrow screens
    /// ([`crate::view::format::Canvas::NARROW`]), when it could be.
    pub narrow: Option<String>,
    pub error: Option<String>,
}

/// A table as display text.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct TableView {
    pub id: String,
    pub title: String,
    pub header: Vec<CellView>,
    pub rows: Vec<Vec<CellView>>,
}

/// One cell as display text.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct CellView {
    pub text: String,
    pub num: bool,
    /// A row header (the label column of a transposed table).
    pub head: bool,
    /// Where the value is in the command's JSON document (a JSON Pointer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub figure: Option<String>,
}

/// Tables longer than this show their first and last [`PAGE_EDGE_ROWS`] rows on a page.
pub const PAGE_MAX_ROWS: usize = 100;

/// Rows shown at each end of a long table on a page.
pub const PAGE_EDGE_ROWS: usize = 50;

impl CellView {
    fn plain(text: impl Into<String>, num: bool, head: bool) -> CellView {
        CellView {
            text: text.into(),
            num,
            head,
            figure: None,
        }
    }

    /// Row `row`'s cell of column `col`.
    fn of(fmt: &Fmt, t: &DataTable, row: usize, col: usize) -> CellView {
        let c = &t.rows[row][col];
        CellView {
            figure: t.columns[col].figure_of(row),
            ..CellView::plain(c.display(fmt), c.is_numeric(), false)
        }
    }
}

/// A table as it is shown on a page (a long one by its two ends).
pub fn view(fmt: &Fmt, t: &DataTable) -> TableView {
    let cells = |row: usize| -> Vec<CellView> {
        (0..t.columns.len())
            .map(|col| CellView::of(fmt, t, row, col))
            .collect()
    };
    let n = t.rows.len();
    let (rows, title) = if n <= PAGE_MAX_ROWS {
        ((0..n).map(cells).collect(), fmt.in_code(&t.title))
    } else {
        let hidden = n - 2 * PAGE_EDGE_ROWS;
        let mut gap = vec![CellView::plain(format!("⋮ {hidden} rows"), false, false)];
        gap.extend((1..t.columns.len()).map(|_| CellView::plain("⋮", false, false)));
        let mut rows: Vec<Vec<CellView>> = (0..PAGE_EDGE_ROWS).map(cells).collect();
        rows.push(gap);
        rows.extend((n - PAGE_EDGE_ROWS..n).map(cells));
        (
            rows,
            format!(
                "{} — first and last {PAGE_EDGE_ROWS} of {n} rows; the CSV export (--csv DIR) has every row",
                fmt.in_code(&t.title),
            ),
        )
    };
    TableView {
        id: t.id.to_string(),
        title,
        header: t
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let num = t.rows.first().is_some_and(|r| r[i].is_numeric());
                CellView::plain(c.label_in(fmt), num, false)
            })
            .collect(),
        rows,
    }
}

/// A one-row-per-variant table turned sideways, as the seed lays it out.
pub fn transposed(fmt: &Fmt, t: &DataTable, skip: usize) -> TableView {
    let mut header = vec![CellView::plain("", false, false)];
    header.extend((0..t.rows.len()).map(|row| CellView {
        num: true,
        ..CellView::of(fmt, t, row, 0)
    }));
    TableView {
        id: t.id.to_string(),
        title: t.title.clone(),
        header,
        rows: t
            .columns
            .iter()
            .enumerate()
            .skip(skip)
            .map(|(col, c)| {
                let mut cells = vec![CellView::plain(c.label_in(fmt), false, true)];
                cells.extend((0..t.rows.len()).map(|row| CellView {
                    num: true,
                    ..CellView::of(fmt, t, row, col)
                }));
                cells
            })
            .collect(),
    }
}
