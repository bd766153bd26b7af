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
}

/// Tables longer than this show their first and last [`PAGE_EDGE_ROWS`] rows on a page.
pub const PAGE_MAX_ROWS: usize = 100;

/// Rows shown at each end of a long table on a page.
pub const PAGE_EDGE_ROWS: usize = 50;

/// A table as it is shown on a page (a long one by its two ends).
pub fn view(fmt: &Fmt, t: &DataTable) -> TableView {
    let cells = |r: &Vec<super::table::Cell>| -> Vec<CellView> {
        r.iter()
            .map(|c| CellView {
                text: c.display(fmt),
                num: c.is_numeric(),
                head: false,
            })
            .collect()
    };
    let (rows, title) = if t.rows.len() <= PAGE_MAX_ROWS {
        (t.rows.iter().map(cells).collect(), fmt.in_code(&t.title))
    } else {
        let hidden = t.rows.len() - 2 * PAGE_EDGE_ROWS;
        let mut gap = vec![CellView {
            text: "⋮".into(),
            num: false,
            head: false,
        }];
        gap[0].text = format!("⋮ {hidden} rows");
        gap.extend((1..t.columns.len()).map(|_| CellView {
            text: "⋮".into(),
            num: false,
            head: false,
        }));
        let mut rows: Vec<Vec<CellView>> = t.rows[..PAGE_EDGE_ROWS].iter().map(cells).collect();
        rows.push(gap);
        rows.extend(t.rows[t.rows.len() - PAGE_EDGE_ROWS..].iter().map(cells));
        (
            rows,
            format!(
                "{} — first and last {PAGE_EDGE_ROWS} of {} rows; the CSV export (--csv DIR) has every row",
                fmt.in_code(&t.title),
                t.rows.len()
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
            .map(|(i, c)| CellView {
                text: c.label_in(fmt),
                num: t.rows.first().is_some_and(|r| r[i].is_numeric()),
                head: false,
            })
            .collect(),
        rows,
    }
}

/// A one-row-per-variant table turned sideways, as the seed lays it out.
pub fn transposed(fmt: &Fmt, t: &DataTable, skip: usize) -> TableView {
    let mut header = vec![CellView {
        text: String::new(),
        num: false,
        head: false,
    }];
    header.extend(t.rows.iter().map(|r| CellView {
        text: r[0].display(fmt),
        num: true,
        head: false,
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
            .map(|(i, c)| {
                let mut row = vec![CellView {
                    text: c.label_in(fmt),
                    num: false,
                    head: true,
                }];
                row.extend(t.rows.iter().map(|r| CellView {
                    text: r[i].display(fmt),
                    num: true,
                    head: false,
                }));
                row
            })
            .collect(),
    }
}
