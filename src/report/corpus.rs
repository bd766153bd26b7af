//! The corpus forecast as terminal text, CSV and a page; its tables,
//! answer and page blocks are worded in the engine crate
//! ([`tokencast_core::view::corpus`]), so a live page's engine shows the
//! same characters.

use super::html::{charts, live_parts, render_template, simple_page, with_slots};
use super::table::DataTable;
use super::terminal::{keyed_table, plain_table, wrap_prose};
use super::{format, HtmlOptions, Render, RenderError, TerminalOptions};
use crate::document::CorpusForecast;
use crate::report::format::Scale;
use crate::report::Fmt;
pub use tokencast_core::view::corpus::{
    answer, costs as corpus_costs, mix as corpus_mix, question, sessions as corpus_sessions,
    statements,
};

impl Render for CorpusForecast {
    fn currency(&self) -> crate::pricing::Currency {
        self.currency.clone()
    }

    fn price_date(&self) -> Option<crate::scenario::PriceDate> {
        self.price_date.clone()
    }

    fn draw_terminal(&self, fmt: &Fmt, opts: &TerminalOptions) -> String {
        let mut s = format!(
            "tokencast {} · forecast {} · {} sessions · {} runs a day, {} days a week · {} days, {} months simulated · seed {}\n",
            env!("CARGO_PKG_VERSION"),
            self.title,
            self.sessions,
            self.runs_per_day,
            self.working_days_per_week,
            self.days,
            self.months,
            self.seed
        );
        if let Some(note) = fmt.basis_note() {
            s.push_str(&note);
            s.push('\n');
        }
        s.push('\n');
        for line in answer(fmt, self) {
            s.push_str(&line);
            s.push('\n');
        }
        s.push('\n');
        if opts.brief {
            return wrap_prose(&s, opts.width);
        }
        for line in statements(self) {
            s.push_str(&line);
            s.push('\n');
        }
        s.push('\n');
        s.push_str(&plain_table(fmt, &corpus_mix(self), opts.width));
        s.push('\n');
        // A row is a variant and a period: each part names both.
        s.push_str(&keyed_table(fmt, &corpus_costs(fmt, self), 2, opts.width));
        s.push('\n');
        s.push_str("A p99 budget per run that holds with 95 % confidence (upper bound):\n");
        for v in &self.variants {
            s.push_str(&format!(
                "- {}: {}\n",
                v.name,
                v.p99_budget.map_or_else(
                    || match self.needed_per_kind_for_p99 {
                        Some(k) => format!("none yet (each kind needs {k} sessions)"),
                        None => format!(
                            "none yet ({} of {} sessions)",
                            format::int(self.sessions),
                            self.needed_for_p99
                        ),
                    },
                    |b| fmt.money(b, Scale::Run)
                )
            ));
        }
        s.push_str(
            "Set a monthly budget at the p99 of the month (upper bound), and check its interval:\n",
        );
        for v in &self.variants {
            if let Some(p) = v.month.percentiles.iter().find(|p| p.percentile == 99) {
                s.push_str(&format!(
                    "- {}: {} a month (95 % interval {} – {})\n",
                    v.name,
                    fmt.money(p.upper.value, Scale::Cents),
                    p.upper
                        .low
                        .map_or("?".into(), |x| fmt.money(x, Scale::Cents)),
                    p.upper
                        .high
                        .map_or("?".into(), |x| fmt.money(x, Scale::Cents)),
                ));
            }
        }
        wrap_prose(&s, opts.width)
    }

    fn draw_tables(&self, fmt: &Fmt) -> Vec<DataTable> {
        vec![
            corpus_costs(fmt, self),
            corpus_mix(self),
            corpus_sessions(self),
        ]
    }

    fn draw_csv_table(&self, fmt: &Fmt) -> DataTable {
        corpus_costs(fmt, self)
    }

    fn draw_html(&self, fmt: &Fmt, opts: &HtmlOptions) -> Result<Vec<u8>, RenderError> {
        let blocks = with_slots(
            fmt,
            tokencast_core::view::corpus::blocks(fmt, self),
            |fmt, slot| charts::corpus_slot(fmt, self, slot),
        );
        let mut page = simple_page(
            fmt,
            format!("tokencast forecast: {}", self.title),
            question(self),
            blocks,
            &self.inputs,
            opts.timestamp.clone(),
        );
        (page.live, page.live_missing) = live_parts(opts);
        Ok(render_template("base.html", &page)?)
    }
}
