//! The `sweep` document as a table: one row per point.

use super::html::{chart_block, charts, render_template, simple_page, view, Block};
use super::table::{col, variant_key, Cell, Column, DataTable};
use super::terminal::plain_table;
use super::{HtmlOptions, Render, RenderError, TerminalOptions};
use crate::document::Sweep;
use crate::report::Fmt;

/// A sweep: one row per point, the axes then each variant's total.
pub fn table(s: &Sweep) -> DataTable {
    let mut columns: Vec<Column> = s
        .axes
        .iter()
        .map(|a| col(a.param.name(), a.param.name()))
        .collect();
    for (i, v) in s.variants.iter().enumerate() {
        columns.push(col(
            format!("{}_total_usd_lower", variant_key(i)),
            format!("{v}, lower"),
        ));
        columns.push(col(
            format!("{}_total_usd_upper", variant_key(i)),
            format!("{v}, upper"),
        ));
    }
    DataTable {
        id: "sweep",
        title: format!(
            "Sweep of {}: total cost of {} (USD)",
            s.axes
                .iter()
                .map(|a| a.param.name())
                .collect::<Vec<_>>()
                .join(" × "),
            s.figure.period()
        ),
        columns,
        rows: s
            .points
            .iter()
            .map(|p| {
                let mut row: Vec<Cell> =
                    p.values.iter().map(|v| Cell::Text(v.to_string())).collect();
                for t in &p.totals {
                    row.push(Cell::Usd(t.lower, 3));
                    row.push(Cell::Usd(t.upper, 3));
                }
                row
            })
            .collect(),
    }
}

impl Render for Sweep {
    fn currency(&self) -> crate::pricing::Currency {
        self.currency.clone()
    }

    fn price_date(&self) -> Option<crate::scenario::PriceDate> {
        self.price_date.clone()
    }

    fn draw_terminal(&self, fmt: &Fmt, opts: &TerminalOptions) -> String {
        let mut s = String::new();
        if let Some(note) = fmt.basis_note() {
            s.push_str(&note);
            s.push_str("\n\n");
        }
        s.push_str(&plain_table(fmt, &table(self), opts.width));
        s
    }

    fn draw_csv_table(&self, _: &Fmt) -> DataTable {
        table(self)
    }

    fn draw_html(&self, fmt: &Fmt, opts: &HtmlOptions) -> Result<Vec<u8>, RenderError> {
        Ok(html(fmt, self, opts)?)
    }
}

fn html(fmt: &Fmt, s: &Sweep, opts: &HtmlOptions) -> Result<Vec<u8>, tera::Error> {
    let blocks = vec![
        chart_block(charts::sweep::sweep(fmt, s)),
        Block::table(view(fmt, &table(s))),
    ];
    let page = simple_page(
        fmt,
        format!("tokencast sweep: {}", s.scenario),
        format!(
            "How the cost of {} changes with {}.",
            s.figure.period(),
            s.axes
                .iter()
                .map(|a| a.param.name())
                .collect::<Vec<_>>()
                .join(" and ")
        ),
        blocks,
        &s.inputs,
        opts.timestamp.clone(),
    );
    render_template("base.html", &page)
}
