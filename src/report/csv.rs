//! CSV: a header row (keys in the formatting context's currency), plain
//! exact numbers, stable column order.

use super::table::DataTable;
use super::Fmt;

/// One table as CSV bytes.
pub fn render(t: &DataTable, fmt: &Fmt) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(t.columns.iter().map(|c| c.key_in(fmt)))
        .expect("writing to memory cannot fail");
    for row in &t.rows {
        w.write_record(row.iter().map(|c| c.plain()))
            .expect("writing to memory cannot fail");
    }
    w.into_inner().expect("writing to memory cannot fail")
}
