//! The table model every renderer shares.
//!
//! Cells keep exact values and say how to display them; the terminal, CSV and
//! HTML renderers only choose between [`Cell::display`] (rounded, grouped,
//! with units) and [`Cell::plain`] (exact, spreadsheet-friendly). So every
//! table in a report is also a CSV file with the same rows.

use super::format;
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
    /// USD, shown with this many decimals.
    Usd(Decimal, u32),
    /// Bytes, shown grouped.
    Bytes(Decimal),
    /// Milliseconds, shown as seconds with one decimal.
    Millis(f64),
    /// A 0–1 share, shown as a percent.
    Share(Decimal),
    /// Nothing to show.
    Empty,
}

impl Cell {
    /// For people: rounded half away from zero, grouped, with units.
    pub fn display(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Int(n) => format::int(*n),
            Cell::Tokens(d) | Cell::Bytes(d) => format::count(*d),
            Cell::Usd(d, dp) => format::usd(*d, *dp),
            Cell::Millis(ms) => format::seconds(*ms),
            Cell::Share(s) => format::percent(*s),
            Cell::Empty => String::new(),
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
            Cell::Empty => String::new(),
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
}

/// A column with its CSV key and its label.
///
/// Amount columns name the currency being drawn: a `usd` word of the key
/// and `USD` in the label become its code (`total_eur`, `EUR / M tokens`).
pub fn col(key: impl Into<String>, label: impl Into<String>) -> Column {
    let (key, label) = (key.into(), label.into());
    let code = format::code();
    if code == "USD" {
        return Column { key, label };
    }
    let lower = code.to_lowercase();
    Column {
        key: key
            .split('_')
            .map(|w| if w == "usd" { lower.as_str() } else { w })
            .collect::<Vec<_>>()
            .join("_"),
        label: format::in_code(&label),
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
    /// The CSV header row: the column keys, comma-separated (also the CSV file's marker).
    pub fn header(&self) -> String {
        self.columns
            .iter()
            .map(|c| c.key.as_str())
            .collect::<Vec<_>>()
            .join(",")
    }
}
