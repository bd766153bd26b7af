//! Display formatting: the one place where exact figures are rounded.
//!
//! Rounding is half away from zero, once, at display. Helpers with `plain`
//! in their name write spreadsheet-friendly numbers (no separators, no `$`).

use crate::pricing::Currency;
use crate::scenario::PriceDate;
use rust_decimal::{Decimal, RoundingStrategy};
use std::cell::RefCell;
use tokencast_core::text::group_thousands as group;

thread_local! {
    /// The currency amounts are drawn in, for the render under way.
    static CURRENCY: RefCell<Currency> = RefCell::new(Currency::usd());
    /// The date that chose the prices, for the render under way.
    static PRICE_DATE: RefCell<Option<PriceDate>> = const { RefCell::new(None) };
}

/// Runs `f` with amounts drawn in `c` (its sign and code), then restores
/// the previous currency, also if `f` panics. Renderers are entered through
/// [`super::Render`], which sets the document's currency this way.
pub fn in_currency<R>(c: &Currency, date: Option<&PriceDate>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<(Currency, Option<PriceDate>)>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some((c, d)) = self.0.take() {
                CURRENCY.with(|cur| *cur.borrow_mut() = c);
                PRICE_DATE.with(|cur| *cur.borrow_mut() = d);
            }
        }
    }
    let _restore = Restore(Some((
        CURRENCY.with(|cur| cur.replace(c.clone())),
        PRICE_DATE.with(|cur| cur.replace(date.cloned())),
    )));
    f()
}

/// The code of the currency being drawn: `USD`, `EUR`, …
pub fn code() -> String {
    CURRENCY.with(|c| c.borrow().code.clone())
}

/// `text` with each `USD` naming the currency being drawn.
pub fn in_code(text: &str) -> String {
    let code = code();
    if code == "USD" {
        text.to_string()
    } else {
        text.replace("USD", &code)
    }
}

/// What every output says about its figures, when there is something to
/// say: the currency conversion (code, rate, rate date) and the date that
/// chose the prices.
pub fn basis_note() -> Option<String> {
    let currency = CURRENCY.with(|c| c.borrow().note());
    let date = PRICE_DATE.with(|d| {
        d.borrow().as_ref().map(|d| {
            let from = if d.from == "today" {
                "today, the default; set `date` in the scenario to fix it"
            } else {
                "the scenario's date"
            };
            format!("Prices in force on {} ({from}).", d.date)
        })
    });
    match (currency, date) {
        (None, None) => None,
        (a, b) => Some([a, b].into_iter().flatten().collect::<Vec<_>>().join(" ")),
    }
}

/// Rounds half away from zero to `dp` decimal places.
pub fn round(d: Decimal, dp: u32) -> Decimal {
    d.round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero)
}

/// `$1,038.25`-style money with `dp` decimals (`EUR 955.19` in another currency).
pub fn usd(d: Decimal, dp: u32) -> String {
    let sign = CURRENCY.with(|c| c.borrow().sign());
    let s = fixed(d, dp);
    match s.strip_prefix('-') {
        Some(rest) => format!("-{sign}{}", group(rest)),
        None => format!("{sign}{}", group(&s)),
    }
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
        assert_eq!(usd(d("1038.254"), 2), "$1,038.25");
        assert_eq!(count(d("206114.6")), "206,115");
        assert_eq!(int(999), "999");
    }

    #[test]
    fn the_largest_decimals_format_without_overflow() {
        assert_eq!(fixed(Decimal::MAX, 4), "79228162514264337593543950335.0000");
        assert_eq!(
            usd(Decimal::MIN, 2),
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
