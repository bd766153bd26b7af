//! The HTML report: one self-contained page rendered with tera.
//!
//! The page is built from private view structs whose numbers are already
//! formatted in Rust, so the template holds only loops and ifs. The template
//! is compiled into the binary; its name ends in `.html`, so tera escapes
//! every value (user labels included) except the SVG charts, which plotters
//! has already escaped.

pub mod charts;

use super::table::DataTable;
use crate::output::HTML_GENERATOR;
use crate::report::Fmt;
use crate::scenario::InputFile;
use serde::Serialize;

const BASE: &str = include_str!("../../../templates/base.html");
const REPORT: &str = include_str!("../../../templates/report.html");

#[derive(Serialize)]
pub(crate) struct Page {
    pub(crate) generator: &'static str,
    pub(crate) title: String,
    pub(crate) question: String,
    pub(crate) model: String,
    pub(crate) facts: Vec<Fact>,
    pub(crate) headline: Option<Headline>,
    pub(crate) blocks: Vec<Block>,
    pub(crate) price_source: String,
    pub(crate) price_read_on: String,
    pub(crate) version: String,
    pub(crate) fingerprint: String,
    pub(crate) fingerprint_short: String,
    pub(crate) inputs: Vec<Fact>,
    pub(crate) timestamp: Option<String>,
}

#[derive(Serialize)]
pub(crate) struct Fact {
    pub(crate) label: String,
    pub(crate) value: String,
}

#[derive(Serialize)]
pub(crate) struct Headline {
    pub(crate) cheapest: String,
    pub(crate) cheapest_total: String,
    pub(crate) dearest: String,
    pub(crate) dearest_total: String,
    pub(crate) saving: String,
    pub(crate) saving_percent: String,
    pub(crate) runs_per_day: String,
    pub(crate) saving_per_day: String,
}

/// One block of the page: an optional section heading, then a chart or a table.
#[derive(Serialize, Default)]
pub(crate) struct Block {
    pub(crate) heading: Option<String>,
    pub(crate) note: Option<String>,
    pub(crate) list: Vec<String>,
    pub(crate) chart: Option<ChartView>,
    pub(crate) table: Option<TableView>,
    pub(crate) collapsible: bool,
}

impl Block {
    pub(crate) fn table(t: TableView) -> Block {
        Block {
            table: Some(t),
            ..Block::default()
        }
    }

    pub(crate) fn heading(mut self, h: &str, note: Option<String>) -> Block {
        self.heading = Some(h.to_string());
        self.note = note;
        self
    }
}

#[derive(Serialize)]
pub(crate) struct ChartView {
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) caption: String,
    pub(crate) svg: Option<String>,
    pub(crate) error: Option<String>,
}

#[derive(Serialize)]
pub(crate) struct TableView {
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) header: Vec<CellView>,
    pub(crate) rows: Vec<Vec<CellView>>,
}

#[derive(Serialize)]
pub(crate) struct CellView {
    pub(crate) text: String,
    pub(crate) num: bool,
    /// A row header (the label column of a transposed table).
    pub(crate) head: bool,
}

/// Tables longer than this show their first and last [`PAGE_EDGE_ROWS`] rows on a page.
pub(crate) const PAGE_MAX_ROWS: usize = 100;

/// Rows shown at each end of a long table on a page.
pub(crate) const PAGE_EDGE_ROWS: usize = 50;

pub(crate) fn view(fmt: &Fmt, t: &DataTable) -> TableView {
    let cells = |r: &Vec<crate::report::table::Cell>| -> Vec<CellView> {
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
pub(crate) fn transposed(fmt: &Fmt, t: &DataTable, skip: usize) -> TableView {
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

pub(crate) fn chart_block(c: charts::Chart) -> Block {
    let (svg, error) = match c.svg {
        Ok(s) => (Some(s), None),
        Err(e) => (None, Some(e)),
    };
    Block {
        chart: Some(ChartView {
            id: c.id,
            title: c.title,
            caption: c.caption,
            svg,
            error,
        }),
        ..Block::default()
    }
}

/// Renders one of the compiled-in templates (names end in `.html`, so values are escaped).
pub(crate) fn render_template(name: &str, page: &impl Serialize) -> Result<Vec<u8>, tera::Error> {
    let mut tera = tera::Tera::new();
    tera.add_raw_templates([("base.html", BASE), ("report.html", REPORT)])?;
    let context = tera::Context::from_serialize(page)?;
    tera.render(name, &context).map(String::into_bytes)
}

/// The footer's facts: each input file and its SHA-256.
pub(crate) fn input_facts(inputs: &[InputFile]) -> Vec<Fact> {
    inputs
        .iter()
        .map(|i| Fact {
            label: i.name.clone(),
            value: i.sha256.clone(),
        })
        .collect()
}

#[derive(Serialize)]
pub(crate) struct SimplePage {
    pub(crate) generator: &'static str,
    pub(crate) title: String,
    pub(crate) question: String,
    pub(crate) blocks: Vec<Block>,
    pub(crate) version: String,
    pub(crate) fingerprint: String,
    pub(crate) fingerprint_short: String,
    pub(crate) inputs: Vec<Fact>,
    pub(crate) timestamp: Option<String>,
}

/// A page's subtitle with the currency and price-date note, if any.
pub(crate) fn with_basis(fmt: &Fmt, question: String) -> String {
    match fmt.basis_note() {
        Some(note) => format!("{question} {note}"),
        None => question,
    }
}

pub(crate) fn simple_page(
    fmt: &Fmt,
    title: String,
    question: String,
    blocks: Vec<Block>,
    inputs: &[InputFile],
    timestamp: Option<String>,
) -> SimplePage {
    let fingerprint = crate::scenario::fingerprint(inputs);
    SimplePage {
        generator: HTML_GENERATOR,
        title,
        question: with_basis(fmt, question),
        blocks,
        version: env!("CARGO_PKG_VERSION").to_string(),
        fingerprint_short: fingerprint.chars().take(16).collect(),
        fingerprint,
        inputs: input_facts(inputs),
        timestamp,
    }
}
