//! Display formatting: the one place where exact figures are rounded.
//!
//! Rounding is half away from zero, once, at display. Helpers with `plain`
//! in their name write spreadsheet-friendly numbers (no separators, no `$`).

use crate::pricing::Currency;
use crate::scenario::PriceDate;
use crate::text::group_thousands as group;
use rust_decimal::{Decimal, RoundingStrategy};

/// The formatting context of one render: the currency amounts are drawn in
/// and the date that chose the prices. Every renderer is given one (as
/// criterion's reports are given a `ValueFormatter`); nothing is read from
/// ambient state, so a chart drawn on its own says the same as in its page.
#[derive(Debug, Clone, Default)]
pub struct Fmt {
    /// The currency of every amount (its sign and code).
    pub currency: Currency,
    /// The date that chose the prices, when it mattered.
    pub price_date: Option<PriceDate>,
    /// The size charts are drawn at.
    pub canvas: Canvas,
}

/// The size of a chart's drawing, in SVG units.
///
/// A page holds each chart twice: [`Canvas::WIDE`] for screens and paper,
/// [`Canvas::NARROW`] for phones, where the wide drawing would have to
/// shrink its labels below 11 px. Labels keep their size in units on both,
/// so on a narrow screen they stay as large as on a wide one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Canvas {
    /// Width in units.
    pub width: u32,
    /// Height in units.
    pub height: u32,
}

impl Canvas {
    /// The drawing for screens 986 px wide or more, and for print.
    pub const WIDE: Canvas = Canvas {
        width: 880,
        height: 380,
    };
    /// The drawing for narrower screens: 340 units shown 340 to 520 px
    /// wide, so a 10.5-unit label is 11 px or more.
    pub const NARROW: Canvas = Canvas {
        width: 340,
        height: 340,
    };

    /// Whether this is the narrow drawing (which leaves out what the page
    /// says beside it, such as the title).
    pub fn is_narrow(self) -> bool {
        self.width < Canvas::WIDE.width
    }
}

impl Default for Canvas {
    fn default() -> Canvas {
        Canvas::WIDE
    }
}

impl Fmt {
    /// Amounts in `currency`, prices chosen on `price_date`.
    pub fn new(currency: Currency, price_date: Option<PriceDate>) -> Fmt {
        Fmt {
            currency,
            price_date,
            canvas: Canvas::WIDE,
        }
    }

    /// The same context, drawing charts on `canvas`.
    pub fn on(&self, canvas: Canvas) -> Fmt {
        Fmt {
            canvas,
            ..self.clone()
        }
    }

    /// US dollars, no price date: what a test or a document without a
    /// currency is drawn in.
    pub fn usd() -> Fmt {
        Fmt::new(Currency::usd(), None)
    }

    /// The code of the currency: `USD`, `EUR`, …
    pub fn code(&self) -> &str {
        &self.currency.code
    }

    /// `text` with each `USD` naming the currency.
    pub fn in_code(&self, text: &str) -> String {
        if self.currency.is_usd() {
            text.to_string()
        } else {
            text.replace("USD", &self.currency.code)
        }
    }

    /// What every output says about its figures, when there is something to
    /// say: the currency conversion (code, rate, rate date) and the date that
    /// chose the prices.
    pub fn basis_note(&self) -> Option<String> {
        let currency = self.currency.note();
        let date = self.price_date.as_ref().map(|d| {
            let from = if d.from == "today" {
                "today, the default; set `date` in the scenario to fix it"
            } else {
                "the scenario's date"
            };
            format!("Prices in force on {} ({from}).", d.date)
        });
        match (currency, date) {
            (None, None) => None,
            (a, b) => Some([a, b].into_iter().flatten().collect::<Vec<_>>().join(" ")),
        }
    }

    /// `$1,038.25`-style money rounded by [`Scale`]'s rule (`EUR 955.19`
    /// in another currency).
    pub fn money(&self, d: Decimal, scale: Scale) -> String {
        let sign = self.currency.sign();
        let s = fixed(d, scale.decimals(d));
        match s.strip_prefix('-') {
            Some(rest) => format!("-{sign}{}", group(rest)),
            None => format!("{sign}{}", group(&s)),
        }
    }
}

/// What an amount of money is, which decides its decimals: the one rounding
/// rule for money shown to people, in every output ([`ROUNDING_RULE`]
/// states it). CSV and JSON hold exact figures and round nothing.
///
/// The scales follow the published figures: a run's model input
/// ($10.383), a data fee ($0.0169), a day ($1,038.25).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// A request, a session, a data fee or a sum of sessions: 4 decimals.
    Request,
    /// One run (a replay, a sweep point, a forecast run): 3 decimals.
    Run,
    /// A day or longer, a budget, and a figure quoted to the cent (the cost
    /// of an attempt, a cache rewrite): 2 decimals.
    Cents,
    /// A charge as the provider's billing block records it: 6 decimals.
    Charge,
    /// A price as the book gives it: every decimal, at least 2.
    Price,
}

impl Scale {
    /// The decimals `d` is shown with on this scale.
    pub fn decimals(self, d: Decimal) -> u32 {
        match self {
            Scale::Request => 4,
            Scale::Run => 3,
            Scale::Cents => 2,
            Scale::Charge => 6,
            Scale::Price => d.normalize().scale().max(2),
        }
    }
}

/// The rounding rule, as every full terminal report and page states it
/// once, at its end.
pub const ROUNDING_RULE: &str = "Money is rounded half away from zero: a request, a session, a data fee or a sum of sessions to 4 decimals, a run to 3, a day or longer and a figure quoted to the cent to 2; prices as the price book gives them. CSV and JSON hold exact figures.";

/// Rounds half away from zero to `dp` decimal places.
pub fn round(d: Decimal, dp: u32) -> Decimal {
    d.round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero)
}

/// A plain number with exactly `dp` decimals, rounded half away from zero.
///
/// The padding is written by hand: formatting a decimal near the top of its
/// range with more decimals than it holds would overflow.
pub fn fixed(d: Decimal, dp: u32) -> String {
    let r = round(d, dp);
    let text = r.to_string();
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let mut s = int.to_string();
    if dp > 0 {
        s.push('.');
        s.push_str(frac);
        for _ in frac.len()..dp as usize {
            s.push('0');
        }
    }
    if s.starts_with('-') && s.trim_start_matches(['-', '0', '.']).is_empty() {
        s[1..].to_string()
    } else {
        s
    }
}

/// A whole count with thousands separators: `160,627`.
pub fn count(d: Decimal) -> String {
    group(&fixed(d, 0))
}

/// A whole count from an integer, with thousands separators.
pub fn int(n: u64) -> String {
    group(&n.to_string())
}

/// Bytes as kilobytes with one decimal (1 KB = 1,000 B, as the seed writes 35.2 KB).
pub fn kb(bytes: u64) -> String {
    format!(
        "{} KB",
        fixed(Decimal::from(bytes) / Decimal::from(1000), 1)
    )
}

/// Bytes in the largest decimal unit that keeps them above 1: `6.8 MB`.
pub fn bytes_human(bytes: u64) -> String {
    let units = [
        (1_000_000_000_000u64, "TB"),
        (1_000_000_000, "GB"),
        (1_000_000, "MB"),
        (1_000, "KB"),
    ];
    for (size, unit) in units {
        if bytes >= size {
            return format!(
                "{} {unit}",
                fixed(Decimal::from(bytes) / Decimal::from(size), 1)
            );
        }
    }
    format!("{bytes} B")
}

/// A share (0–1) as a whole percent: `78%` (a share too large to scale is
/// shown as `>` the largest percent).
pub fn percent(share: Decimal) -> String {
    match share.checked_mul(Decimal::ONE_HUNDRED) {
        Some(p) => format!("{}%", fixed(p, 0)),
        None if share.is_sign_negative() => format!("<{}%", fixed(Decimal::MIN, 0)),
        None => format!(">{}%", fixed(Decimal::MAX, 0)),
    }
}

/// A change as a signed whole percent: `+12%`, `-35%`, `0%`.
pub fn change(share: Decimal) -> String {
    let sign = if share > Decimal::ZERO { "+" } else { "" };
    format!("{sign}{}", percent(share))
}

/// Seconds with one decimal from milliseconds: `5.6 s`.
pub fn seconds(ms: f64) -> String {
    format!("{:.1} s", round_f64(ms / 1000.0, 1))
}

/// Rounds an `f64` half away from zero (statistics only).
pub fn round_f64(v: f64, dp: i32) -> f64 {
    let k = 10f64.powi(dp);
    (v * k).round() / k
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn rounds_half_away_from_zero() {
        assert_eq!(fixed(d("0.0005"), 3), "0.001");
        assert_eq!(fixed(d("2.5"), 0), "3");
        assert_eq!(fixed(d("-2.5"), 0), "-3");
    }

    #[test]
    fn does_not_truncate() {
        assert_eq!(fixed(d("10.38299"), 3), "10.383");
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(Fmt::usd().money(d("1038.254"), Scale::Cents), "$1,038.25");
        assert_eq!(count(d("206114.6")), "206,115");
        assert_eq!(int(999), "999");
    }

    #[test]
    fn the_largest_decimals_format_without_overflow() {
        assert_eq!(fixed(Decimal::MAX, 4), "79228162514264337593543950335.0000");
        assert_eq!(
            Fmt::usd().money(Decimal::MIN, Scale::Cents),
            "-$79,228,162,514,264,337,593,543,950,335.00"
        );
        assert_eq!(fixed(d("1.5"), 3), "1.500");
        assert_eq!(fixed(d("2"), 0), "2");
    }

    #[test]
    fn negative_zero_prints_as_zero() {
        assert_eq!(fixed(d("-0.0001"), 2), "0.00");
    }
}
