//! The `forecast` document as terminal text, CSV and a page; its tables,
//! answer and page blocks are worded in the engine crate
//! ([`tokencast_core::view::forecast`]), so a live page's engine shows the
//! same characters.

use super::html::{charts, live_parts, render_template, simple_page, with_slots};
use super::table::DataTable;
use super::terminal::{plain_table, wrap_prose};
use super::{format, HtmlOptions, Render, RenderError, TerminalOptions};
use crate::document::Forecast;
use crate::report::format::Scale;
use crate::report::Fmt;
pub use tokencast_core::view::forecast::{
    answer, capabilities as forecast_capabilities, context as forecast_context,
    fan as forecast_fan, pilot_note, variants as forecast_variants,
};

impl Render for Forecast {
    fn currency(&self) -> crate::pricing::Currency {
        self.currency.clone()
    }

    fn price_date(&self) -> Option<crate::scenario::PriceDate> {
        self.price_date.clone()
    }

    fn draw_terminal(&self, fmt: &Fmt, opts: &TerminalOptions) -> String {
        let f = self;
        let mut s = format!(
            "tokencast {} · forecast {} · {} runs of {} tool results · method {:?} · seed {}\n{}\n\n",
            env!("CARGO_PKG_VERSION"),
            f.scenario,
            f.runs,
            f.calls,
            f.method,
            f.seed,
            f.percentile_method
        );
        if let Some(note) = fmt.basis_note() {
            s.push_str(&note);
            s.push_str("\n\n");
        }
        for line in answer(fmt, f) {
            s.push_str(&line);
            s.push('\n');
        }
        s.push('\n');
        if opts.brief {
            return wrap_prose(&s, opts.width);
        }
        s.push_str(&pilot_note(f));
        s.push_str("\n\n");
        for t in [forecast_variants(f), forecast_context(f), forecast_fan(f)] {
            s.push_str(&plain_table(fmt, &t, opts.width));
            s.push('\n');
        }
        s.push_str("Read it as: half the runs cost less than p50, one in a hundred costs more than p99. Set the task budget at the p99 of the upper bound:\n");
        for v in &f.variants {
            s.push_str(&format!(
                "- {}: {} per run\n",
                v.name,
                fmt.money(v.recommended_budget, Scale::Run)
            ));
        }
        if let Some(b) = f.budget {
            s.push_str(&format!(
                "Runs over the {} budget compare the {} bound of each run's cost.\n",
                fmt.money(b, Scale::Cents),
                match f.over_budget_bound {
                    crate::analysis::forecast::Bound::Lower => "lower",
                    crate::analysis::forecast::Bound::Upper => "upper",
                }
            ));
        }
        wrap_prose(&s, opts.width)
    }

    fn draw_tables(&self, _: &Fmt) -> Vec<DataTable> {
        vec![
            forecast_variants(self),
            forecast_context(self),
            forecast_fan(self),
            forecast_capabilities(self),
        ]
    }

    fn draw_csv_table(&self, _: &Fmt) -> DataTable {
        forecast_variants(self)
    }

    fn draw_html(&self, fmt: &Fmt, opts: &HtmlOptions) -> Result<Vec<u8>, RenderError> {
        Ok(html(fmt, self, opts)?)
    }
}

fn html(fmt: &Fmt, f: &Forecast, opts: &HtmlOptions) -> Result<Vec<u8>, tera::Error> {
    let blocks = with_slots(
        fmt,
        tokencast_core::view::forecast::blocks(fmt, f),
        |fmt, slot| charts::forecast_slot(fmt, f, slot),
    );
    let mut page = simple_page(
        fmt,
        format!("tokencast forecast: {}", f.scenario),
        format!(
            "What does a run of {} tool calls cost, and what budget covers 99 % of runs?",
            format::int(f.calls)
        ),
        blocks,
        &f.inputs,
        opts.timestamp.clone(),
    );
    (page.live, page.live_missing) = live_parts(opts);
    render_template("base.html", &page)
}
