//! The `sweep` document as a table: one row per point.

use super::html::{chart_block, charts, render_template, simple_page, view, Block};
use super::table::{col, variant_key, Cell, Column, DataTable};
use super::terminal::{keyed_table, wrap_prose};
use super::{format, HtmlOptions, Render, RenderError, TerminalOptions};
use crate::document::Sweep;
use crate::report::format::Scale;
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
                    row.push(Cell::Usd(t.lower, Scale::Run));
                    row.push(Cell::Usd(t.upper, Scale::Run));
                }
                row
            })
            .collect(),
    }
}

/// The answer, first in every output: where on the grid the cheapest and
/// the dearest variant sit, and how far the grid ranges.
pub fn answer(fmt: &Fmt, s: &Sweep) -> Vec<String> {
    let Some(a) = &s.answer else {
        return Vec::new();
    };
    let at = |p: &crate::document::answer::SweepPick| {
        s.axes
            .iter()
            .zip(&p.at)
            .map(|(axis, v)| format!("{} = {v}", axis.param.name()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let total = |p: &crate::document::answer::SweepPick| {
        format!(
            "{} (upper bound {})",
            fmt.money(p.total.lower, Scale::Run),
            fmt.money(p.total.upper, Scale::Run)
        )
    };
    vec![
        format!(
            "Answer: cheapest {} at {}: {} for {}.",
            a.cheapest.variant,
            at(&a.cheapest),
            total(&a.cheapest),
            s.figure.period()
        ),
        format!(
            "Dearest {} at {}: {}. Over the {} point(s) of the grid and {} variant(s), {} ranges from {} to {} (lower bounds).",
            a.dearest.variant,
            at(&a.dearest),
            total(&a.dearest),
            format::int(a.points),
            s.variants.len(),
            s.figure.period(),
            fmt.money(a.cheapest.total.lower, Scale::Run),
            fmt.money(a.dearest.total.lower, Scale::Run)
        ),
    ]
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
        for line in answer(fmt, self) {
            s.push_str(&line);
            s.push('\n');
        }
        s = wrap_prose(&s, opts.width);
        if opts.brief {
            return s;
        }
        s.push('\n');
        s.push_str(&keyed_table(fmt, &table(self), self.axes.len(), opts.width));
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
        Block::list("answer", answer(fmt, s)),
        chart_block(fmt, |fmt| charts::sweep::sweep(fmt, s)),
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
