//! The `diff` document as a table: one row per compared figure.

use super::html::{render_template, simple_page, view, Block};
use super::table::{col, Cell, DataTable};
use super::terminal::{plain_table, wrap_prose};
use super::{format, HtmlOptions, Render, RenderError, TerminalOptions};
use crate::document::DiffDoc;
use crate::report::format::Scale;
use crate::report::Fmt;
use rust_decimal::Decimal;

/// A diff: one row per compared figure.
pub fn table(d: &DiffDoc) -> DataTable {
    let opt =
        |v: Option<Decimal>, dp: Scale| v.map_or(Cell::Text("—".into()), |x| Cell::Usd(x, dp));
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
                    _ => opt(v, Scale::Run),
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

/// What differs in the inputs (empty table: "no differences in the inputs").
pub fn inputs_table(d: &DiffDoc) -> DataTable {
    let text = |v: &Option<String>| Cell::Text(v.clone().unwrap_or_else(|| "—".into()));
    DataTable {
        id: "diff_inputs",
        title: if d.input_changes.is_empty() {
            "Inputs: no differences".into()
        } else {
            format!("Inputs that differ: {}", d.input_changes.len())
        },
        columns: vec![
            col("input", "input"),
            col("a", d.a.clone()),
            col("b", d.b.clone()),
        ],
        rows: d
            .input_changes
            .iter()
            .map(|c| vec![Cell::Text(c.what.clone()), text(&c.a), text(&c.b)])
            .collect(),
    }
}

/// "Headline: cheapest variant x at $a → y at $b (+$d, +p %)."
pub fn headline(fmt: &Fmt, d: &DiffDoc) -> Option<String> {
    let h = d.headline.as_ref()?;
    Some(format!(
        "Headline: cheapest variant {} at {} → {} at {} ({}{}, {}).",
        h.a_variant,
        fmt.money(h.a_total, Scale::Run),
        h.b_variant,
        fmt.money(h.b_total, Scale::Run),
        if h.delta.is_sign_positive() && !h.delta.is_zero() {
            "+"
        } else {
            ""
        },
        fmt.money(h.delta, Scale::Run),
        h.delta_share.map_or("—".to_string(), |x| {
            format!(
                "{}{}",
                if x.is_sign_positive() && !x.is_zero() {
                    "+"
                } else {
                    ""
                },
                format::percent(x)
            )
        })
    ))
}

impl Render for DiffDoc {
    fn currency(&self) -> crate::pricing::Currency {
        self.currency.clone()
    }

    fn draw_terminal(&self, fmt: &Fmt, opts: &TerminalOptions) -> String {
        let mut s = format!("tokencast {} · diff\n", env!("CARGO_PKG_VERSION"));
        if let Some(note) = fmt.basis_note() {
            s.push_str(&note);
            s.push('\n');
        }
        if self.identical {
            s.push_str(&format!("{} and {}: no differences.\n", self.a, self.b));
            return s;
        }
        s.push_str(&plain_table(fmt, &inputs_table(self), opts.width));
        s.push('\n');
        s.push_str(&plain_table(fmt, &table(self), opts.width));
        if let Some(line) = headline(fmt, self) {
            s.push_str(&line);
            s.push('\n');
        }
        wrap_prose(&s, opts.width)
    }

    fn draw_csv_table(&self, _: &Fmt) -> DataTable {
        table(self)
    }

    fn draw_html(&self, fmt: &Fmt, opts: &HtmlOptions) -> Result<Vec<u8>, RenderError> {
        Ok(html(fmt, self, opts)?)
    }
}

fn html(fmt: &Fmt, d: &DiffDoc, opts: &HtmlOptions) -> Result<Vec<u8>, tera::Error> {
    let page = simple_page(
        fmt,
        format!("tokencast diff: {} → {}", d.a, d.b),
        "Every figure of two results side by side, with absolute and relative change.".into(),
        vec![
            Block::table(view(fmt, &inputs_table(d))),
            Block::table(view(fmt, &table(d))).heading("Figures", headline(fmt, d)),
        ],
        &d.inputs,
        opts.timestamp.clone(),
    );
    render_template("base.html", &page)
}
