//! Terminal tables (comfy-table): a table as written, or turned sideways.

use super::table::{Cell, DataTable};
use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, ContentArrangement, Table};

fn new_table() -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    t
}

fn cell(c: &Cell) -> comfy_table::Cell {
    let mut out = comfy_table::Cell::new(c.display());
    if c.is_numeric() {
        out = out.set_alignment(CellAlignment::Right);
    }
    out
}

/// A table as written: header row, then rows.
pub fn plain_table(t: &DataTable) -> String {
    let mut out = new_table();
    out.set_header(t.columns.iter().map(|c| c.label.clone()));
    for row in &t.rows {
        out.add_row(row.iter().map(cell));
    }
    format!("{}\n{out}\n", t.title)
}

/// A one-row-per-variant table turned sideways: variants become columns.
/// `skip` leading columns are identity columns (the first is the header).
pub fn transposed(t: &DataTable, skip: usize) -> String {
    let mut out = new_table();
    let mut header = vec![String::new()];
    header.extend(t.rows.iter().map(|r| r[0].display()));
    out.set_header(header);
    for (i, c) in t.columns.iter().enumerate().skip(skip) {
        let mut row = vec![comfy_table::Cell::new(&c.label)];
        row.extend(t.rows.iter().map(|r| cell(&r[i])));
        out.add_row(row);
    }
    format!("{}\n{out}\n", t.title)
}
