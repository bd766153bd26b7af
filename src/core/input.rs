//! Reading what the user wrote: TOML documents, exact decimals and timestamps.
//!
//! Everything here turns text into raw, deserialized values and reports
//! failures as located [`InputError`]s. Checking what the values mean happens
//! one layer up, in [`crate::scenario`] and [`crate::pricing`].

use crate::error::{suggest_from_serde_message, InputError};
use rust_decimal::Decimal;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use std::fmt;
use std::str::FromStr;

/// A file the user gave us: its display name and its text.
#[derive(Debug, Clone)]
pub struct SourceText {
    /// The path as it should appear in messages.
    pub name: String,
    /// The whole file.
    pub text: String,
}

impl SourceText {
    /// The span of `key` where it starts a line (`key = …`), if it does.
    pub fn key_span(&self, key: &str) -> Option<std::ops::Range<usize>> {
        if key.is_empty() {
            return None;
        }
        let mut offset = 0;
        for line in self.text.split_inclusive('\n') {
            let trimmed = line.trim_start();
            if let Some(rest) = trimmed.strip_prefix(key) {
                if rest.trim_start().starts_with('=') {
                    let start = offset + (line.len() - trimmed.len());
                    return Some(start..start + key.len());
                }
            }
            offset += line.len();
        }
        None
    }

    /// An error pointing at `span` in this file.
    pub fn error_at(
        &self,
        message: impl Into<String>,
        span: std::ops::Range<usize>,
        label: impl Into<String>,
    ) -> InputError {
        InputError::at(message, &self.name, &self.text, span, label)
    }

    /// An error at `key`'s line (`key = …`), or unlocated when no line starts with it.
    pub fn error_at_key(
        &self,
        key: &str,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> InputError {
        match self.key_span(key) {
            Some(span) => self.error_at(message, span, label),
            None => InputError::new(message),
        }
    }

    /// Deserializes this file as TOML into `T`, with a located error on failure.
    pub fn parse_toml<T: DeserializeOwned>(&self, what: &str) -> Result<T, InputError> {
        toml::from_str(&self.text).map_err(|e| {
            // serde calls an enum's choices "variants"; here that word names
            // something else (a scenario's variants), so say "value".
            let message = e
                .message()
                .trim()
                .replace("unknown variant", "unknown value");
            let span = e.span().unwrap_or(0..0);
            let help = suggest_from_serde_message(&message).unwrap_or_else(|| {
                if message.starts_with("missing field") {
                    format!("add the field; the {what} format is described in the README")
                } else {
                    format!("see the {what} format in the README")
                }
            });
            self.error_at(format!("invalid {what}: {message}"), span, message.clone())
                .with_help(help)
        })
    }
}

pub use crate::limits::MAX_INPUT_BYTES;

pub use crate::limits::MAX_PRICE;

pub use crate::limits::MAX_PRICE_DECIMALS;

/// Deserializes a price: a non-negative decimal written as a TOML string.
///
/// Floats are rejected: a TOML float goes through binary `f64` before it could
/// become a decimal, so `0.2` might not stay exactly 0.20. Integers are
/// rejected too, so every price in a book is written the same way.
pub fn price<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    struct PriceVisitor;
    impl Visitor<'_> for PriceVisitor {
        type Value = Decimal;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a price in USD per million tokens written as a string, e.g. \"0.20\"")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Decimal, E> {
            let d = Decimal::from_str_exact(s.trim()).map_err(|_| {
                E::custom(format!(
                    "price \"{s}\" is not a decimal number; write USD per million tokens like \"8\" or \"0.20\""
                ))
            })?;
            if d.is_sign_negative() && !d.is_zero() {
                return Err(E::custom(format!(
                    "price \"{s}\" is negative; a price is zero or more USD per million tokens"
                )));
            }
            let d = d.normalize();
            if d > Decimal::from(MAX_PRICE) || d.scale() > MAX_PRICE_DECIMALS {
                return Err(E::custom(format!(
                    "price \"{s}\" is outside what tokencast accepts: at most {MAX_PRICE} USD per million tokens, with at most {MAX_PRICE_DECIMALS} decimals"
                )));
            }
            Ok(d)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Decimal, E> {
            Err(E::custom(format!(
                "price {v} is a TOML float; write it as a string, \"{v}\": floats are binary and cannot hold every decimal price exactly"
            )))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Decimal, E> {
            Err(E::custom(format!(
                "price {v} is a bare number; write it as a string, \"{v}\", so every price is an exact decimal"
            )))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Decimal, E> {
            self.visit_i64(v as i64)
        }
    }
    d.deserialize_any(PriceVisitor)
}

/// Like [`non_negative_decimal`] for an optional field.
pub fn optional_non_negative_decimal<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Decimal>, D::Error> {
    non_negative_decimal(d).map(Some)
}

/// Like [`price`] for an optional field: absent means the source does not give it.
pub fn optional_price<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
    price(d).map(Some)
}

/// Deserializes a positive exact decimal from a string, an integer or a float.
///
/// A float is read back through its shortest decimal representation, which is
/// exactly what the user typed (`1.3` stays 1.3), so assumptions may be written
/// as plain TOML numbers.
pub fn positive_decimal<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    struct DecVisitor;
    impl Visitor<'_> for DecVisitor {
        type Value = Decimal;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a positive number, e.g. 4 or 1.3")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Decimal, E> {
            let d = Decimal::from_str(s.trim()).map_err(|_| {
                E::custom(format!(
                    "\"{s}\" is not a number; write a positive number such as 4 or 1.3"
                ))
            })?;
            if d <= Decimal::ZERO {
                return Err(E::custom(format!("{s} must be greater than zero")));
            }
            Ok(d.normalize())
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Decimal, E> {
            if !v.is_finite() {
                return Err(E::custom("expected a finite positive number"));
            }
            self.visit_str(&format!("{v}"))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Decimal, E> {
            self.visit_str(&v.to_string())
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Decimal, E> {
            self.visit_str(&v.to_string())
        }
    }
    d.deserialize_any(DecVisitor)
}

/// Like [`positive_decimal`] but zero is allowed (durations, waits, fees).
///
/// Asks for a string first, so a CSV field is read from its text exactly
/// (never through `f64`); a TOML number arrives as an integer or a float and
/// is read back through its shortest decimal representation.
pub fn non_negative_decimal<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    struct NonNegative;
    impl Visitor<'_> for NonNegative {
        type Value = Decimal;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("zero or a positive number, e.g. 20 or 2.5")
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Decimal, E> {
            let v = Decimal::from_str(text.trim()).map_err(|_| {
                E::custom(format!(
                    "\"{text}\" is not a number; write zero or more, e.g. 20 or 2.5"
                ))
            })?;
            if v.is_sign_negative() && !v.is_zero() {
                return Err(E::custom(format!("{text} is negative; write zero or more")));
            }
            Ok(v.normalize())
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Decimal, E> {
            if !v.is_finite() {
                return Err(E::custom("expected a finite number"));
            }
            self.visit_str(&format!("{v}"))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Decimal, E> {
            self.visit_str(&v.to_string())
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Decimal, E> {
            self.visit_str(&v.to_string())
        }
    }
    d.deserialize_str(NonNegative)
}

/// The whole part of a non-negative decimal as a `u64`, if it fits (the
/// one conversion from exact decimals to counts).
pub fn whole(d: Decimal) -> Option<u64> {
    use rust_decimal::prelude::ToPrimitive;
    if d.is_sign_negative() && !d.trunc().is_zero() {
        return None;
    }
    d.trunc().to_u64()
}

/// Milliseconds since the epoch of an RFC 3339 timestamp (`Z` or an
/// offset; one without is read as UTC, as logs write them).
pub fn epoch_ms(ts: &str) -> Option<i64> {
    let t = match ts.parse::<jiff::Timestamp>() {
        Ok(t) => t,
        Err(_) => ts
            .parse::<jiff::civil::DateTime>()
            .ok()?
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()?
            .timestamp(),
    };
    Some(t.as_millisecond())
}

/// A calendar date written `YYYY-MM-DD`, if `d` is one.
pub fn date(d: &str) -> Option<jiff::civil::Date> {
    if d.len() != 10 {
        return None;
    }
    d.parse().ok()
}

/// Whether a count is zero: the `skip_serializing_if` of counts a document
/// leaves out when there is nothing to count.
pub(crate) fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_as_logs_write_them() {
        // 2026-11-30T10:00:00Z is 1,796,032,800 s after the epoch:
        // 20,787 days × 86,400 + 10 h.
        let at = (20_787 * 86_400 + 10 * 3_600) * 1000;
        assert_eq!(epoch_ms("2026-11-30T10:00:00Z"), Some(at));
        assert_eq!(epoch_ms("2026-11-30T10:00:00.250Z"), Some(at + 250));
        assert_eq!(epoch_ms("2026-11-30T11:00:00+01:00"), Some(at));
        assert_eq!(epoch_ms("2026-11-30T10:00:00"), Some(at));
        assert_eq!(epoch_ms("yesterday"), None);
    }

    #[test]
    fn dates_are_written_in_full() {
        assert_eq!(date("2026-12-01"), Some(jiff::civil::date(2026, 12, 1)));
        assert_eq!(date("2026-2-30"), None);
        assert_eq!(date("2026-02-30"), None);
        assert_eq!(date("20261201"), None);
    }
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    struct P {
        #[serde(deserialize_with = "price")]
        p: Decimal,
    }

    #[derive(Deserialize, Debug)]
    struct A {
        #[serde(deserialize_with = "positive_decimal")]
        a: Decimal,
    }

    #[test]
    fn reads_string_price_exactly() {
        let p: P = toml::from_str("p = \"0.20\"").unwrap();
        assert_eq!(p.p, Decimal::new(2, 1));
    }

    #[test]
    fn rejects_float_price_with_reason() {
        let e = toml::from_str::<P>("p = 0.2").unwrap_err();
        assert!(e.message().contains("floats are binary"), "{}", e.message());
    }

    #[test]
    fn rejects_negative_price() {
        let e = toml::from_str::<P>("p = \"-1\"").unwrap_err();
        assert!(e.message().contains("negative"), "{}", e.message());
    }

    #[test]
    fn rejects_non_numeric_price() {
        let e = toml::from_str::<P>("p = \"eight\"").unwrap_err();
        assert!(
            e.message().contains("not a decimal number"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn float_assumption_keeps_the_typed_digits() {
        let a: A = toml::from_str("a = 1.3").unwrap();
        assert_eq!(a.a, Decimal::new(13, 1));
    }

    #[test]
    fn whole_truncates_and_refuses_what_does_not_fit() {
        assert_eq!(whole(Decimal::new(259, 1)), Some(25));
        assert_eq!(whole(Decimal::ZERO), Some(0));
        assert_eq!(whole(Decimal::from(-3)), None);
        assert_eq!(whole(Decimal::MAX), None);
    }

    #[test]
    fn rejects_zero_assumption() {
        assert!(toml::from_str::<A>("a = 0").is_err());
    }
}
