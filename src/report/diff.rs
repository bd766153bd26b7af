//! The `diff` document as a table: one row per compared figure.

use super::html::{render_template, simple_page, view, Block};
use super::table::{col, Cell, DataTable};
use super::terminal::plain_table;
use super::{HtmlOptions, Render, RenderError, TerminalOptions};
use crate::document::DiffDoc;
use rust_decimal::Decimal;

/// A diff: one row per compared figure.
pub fn table(d: &DiffDoc) -> DataTable {
    let opt =
        |v: Option<Decimal>, dp: u32| v.map_or(Cell::Text("—".into()), |x| Cell::Usd(x, dp));
    DataTable {
        id: "diff",
        title: format!("{} → {}", d.a, d.b),
        columns: vec![
            col("figure", "figure"),
            col("a", d.a.clone()),
            col("b", d.b.clone()),
            col("delta", "Δ"),
            col("delta_share", "Δ %"),
        ],
        rows: d
            .lines
            .iter()
            .map(|l| {
                let tokens = l.key.contains("tokens");
                let value = |v: Option<Decimal>| match (v, tokens) {
                    (Some(x), true) => Cell::Tokens(x),
                    _ => opt(v, 4),
                };
                vec![
                    Cell::Text(l.key.clone()),
                    value(l.a),
                    value(l.b),
                    value(l.delta),
                    l.delta_share.map_or(Cell::Text("—".into()), Cell::Share),
                ]
            })
            .collect(),
    }
}

impl Render for DiffDoc {
    fn terminal(&self, _: &TerminalOptions) -> String {
        format!(
            "tokencast {} · diff\n{}",
            env!("CARGO_PKG_VERSION"),
            plain_table(&table(self))
        )
    }

    fn csv_table(&self) -> DataTable {
        table(self)
    }

    fn html(&self, opts: &HtmlOptions) -> Result<Vec<u8>, RenderError> {
        Ok(html(self, opts)?)
    }
}

fn html(d: &DiffDoc, opts: &HtmlOptions) -> Result<Vec<u8>, tera::Error> {
    let page = simple_page(
        format!("tokencast diff: {} → {}", d.a, d.b),
        "Every figure of two results side by side, with absolute and relative change.".into(),
        vec![Block::table(view(&table(d)))],
        &d.inputs,
        opts.timestamp.clone(),
    );
    render_template("base.html", &page)
}
