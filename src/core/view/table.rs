//! The table model every renderer shares.
//!
//! Cells keep exact values and say how to display them; the terminal, CSV and
//! HTML renderers only choose between [`Cell::display`] (rounded, grouped,
//! with units) and [`Cell::plain`] (exact, spreadsheet-friendly). So every
//! table in a report is also a CSV file with the same rows.

use super::format;
use super::Fmt;
use crate::view::format::Scale;
use rust_decimal::Decimal;

/// One value of a table.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Free text.
    Text(String),
    /// A whole number.
    Int(u64),
    /// A token estimate, shown rounded to a whole token.
    Tokens(Decimal),
    /// USD, shown rounded by its scale's rule.
    Usd(Decimal, Scale),
    /// Bytes, shown grouped.
    Bytes(Decimal),
    /// Milliseconds, shown as seconds with one decimal.
    Millis(f64),
    /// A 0–1 share, shown as a percent.
    Share(Decimal),
    /// Nothing to show.
    Empty,
    /// A number that cannot be given (for example `unpriced`): this word
    /// for people, an empty field in a numeric CSV column.
    Missing(&'static str),
}

impl Cell {
    /// For people: rounded half away from zero, grouped, with units.
    pub fn display(&self, fmt: &Fmt) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Int(n) => format::int(*n),
            Cell::Tokens(d) | Cell::Bytes(d) => format::count(*d),
            Cell::Usd(d, dp) => fmt.money(*d, *dp),
            Cell::Millis(ms) => format::seconds(*ms),
            Cell::Share(s) => format::percent(*s),
            Cell::Empty => String::new(),
            Cell::Missing(word) => (*word).to_string(),
        }
    }

    /// For spreadsheets: exact, no separators, no currency sign.
    pub fn plain(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Int(n) => n.to_string(),
            Cell::Tokens(d) | Cell::Bytes(d) | Cell::Usd(d, _) | Cell::Share(d) => {
                d.normalize().to_string()
            }
            Cell::Millis(ms) => format!("{}", ms / 1000.0),
            Cell::Empty | Cell::Missing(_) => String::new(),
        }
    }

    /// True for numbers (right-aligned in tables).
    pub fn is_numeric(&self) -> bool {
        !matches!(self, Cell::Text(_) | Cell::Empty)
    }
}

/// A column: its CSV name and its display label.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// snake_case name with unit, used as the CSV header.
    pub key: String,
    /// Label for people.
    pub label: String,
    /// Where each row's value is in the command's JSON document: a JSON
    /// Pointer (RFC 6901) with `{row}` for the row's index. A page marks the
    /// cell with it (`data-figure`).
    pub figure: Option<&'static str>,
}

/// A column with its CSV key and its label, both worded in USD (see
/// [`Column::key_in`] and [`Column::label_in`]).
pub fn col(key: impl Into<String>, label: impl Into<String>) -> Column {
    Column {
        key: key.into(),
        label: label.into(),
        figure: None,
    }
}

impl Column {
    /// The column with its values at `pointer` (`/variants/{row}/name`) in
    /// the command's JSON document.
    pub fn at(mut self, pointer: &'static str) -> Column {
        self.figure = Some(pointer);
        self
    }

    /// Where row `row`'s value is in the JSON document, if it is there.
    pub fn figure_of(&self, row: usize) -> Option<String> {
        self.figure.map(|p| p.replace("{row}", &row.to_string()))
    }

    /// The CSV key in `fmt`'s currency: a `usd` word of the key becomes its
    /// code (`total_usd` → `total_eur`).
    pub fn key_in(&self, fmt: &Fmt) -> String {
        if fmt.currency.is_usd() {
            return self.key.clone();
        }
        let lower = fmt.code().to_lowercase();
        self.key
            .split('_')
            .map(|w| if w == "usd" { lower.as_str() } else { w })
            .collect::<Vec<_>>()
            .join("_")
    }

    /// The label in `fmt`'s currency (`USD / M tokens` → `EUR / M tokens`).
    pub fn label_in(&self, fmt: &Fmt) -> String {
        fmt.in_code(&self.label)
    }
}

/// A titled table with one header row.
#[derive(Debug, Clone, PartialEq)]
pub struct DataTable {
    /// Stable id, also the CSV file's stem.
    pub id: &'static str,
    /// Title for people.
    pub title: String,
    /// Columns in order.
    pub columns: Vec<Column>,
    /// Rows of cells, one per column.
    pub rows: Vec<Vec<Cell>>,
}

/// The CSV key prefix of the i-th variant: `v1`, `v2`, …
pub fn variant_key(i: usize) -> String {
    format!("v{}", i + 1)
}

impl DataTable {
    /// The CSV header row in `fmt`'s currency: the column keys,
    /// comma-separated (also the CSV file's marker).
    pub fn header(&self, fmt: &Fmt) -> String {
        self.columns
            .iter()
            .map(|c| c.key_in(fmt))
            .collect::<Vec<_>>()
            .join(",")
    }
}
