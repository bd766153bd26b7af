//! What a row of context holds, for bytes per token by content: source
//! code a tool read or wrote back, other tool output, or text (a message
//! the user typed, context the client injected, earlier output sent back).
//!
//! A tokenizer packs each kind differently: on the recorded sessions of one
//! user, code and other tool output can differ by a fifth in bytes per
//! token. A calibration fitted from a user's logs gives each kind a weight
//! ([`ContentWeights`]): a byte of that kind counts as that many bytes of
//! the band's bytes per token. Weights of 1 (or none) are the seed's model.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// The kind of a row's content.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum ContentKind {
    /// Source code or another file's content, as a tool read it or showed
    /// it after an edit.
    Code,
    /// Any other tool output (a shell's, a search's, a web page's).
    #[default]
    Output,
    /// A message the user typed, context the client injected (reminders,
    /// hook output) and earlier output sent back as its text.
    Text,
}

impl ContentKind {
    /// Every kind, in the order of [`ContentWeights`]' fields.
    pub const ALL: [ContentKind; 3] = [ContentKind::Code, ContentKind::Output, ContentKind::Text];

    /// Its name in a trace and a scenario.
    pub fn name(self) -> &'static str {
        match self {
            ContentKind::Code => "code",
            ContentKind::Output => "output",
            ContentKind::Text => "text",
        }
    }

    /// Its index in [`ContentKind::ALL`].
    pub fn index(self) -> usize {
        match self {
            ContentKind::Code => 0,
            ContentKind::Output => 1,
            ContentKind::Text => 2,
        }
    }

    /// The kind of a row that does not say: text for the rows that are not
    /// tool results ([`super::trim::NOT_TOOL_RESULTS`]), else tool output.
    pub fn of_capability(capability: &str) -> ContentKind {
        if super::trim::NOT_TOOL_RESULTS.contains(&capability) {
            ContentKind::Text
        } else {
            ContentKind::Output
        }
    }
}

/// Decimals a weight may have: the replay counts a byte of each kind in
/// hundredths, exactly.
pub const WEIGHT_DECIMALS: u32 = 2;

/// The hundredths a replay counts a byte in, when a scenario weighs its content.
pub const WEIGHT_UNITS: u64 = 100;

/// Smallest weight.
pub const MIN_WEIGHT: Decimal = Decimal::from_parts(1, 0, 0, false, 2);

/// Largest weight.
pub const MAX_WEIGHT: u64 = 10;

/// Per kind, how many bytes of the band's bytes per token one byte of it
/// counts as (`[assumptions] content_weights`): above 1, the kind takes
/// more tokens per byte than the band says; below 1, fewer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentWeights {
    /// Code and file contents.
    #[serde(default = "one", deserialize_with = "crate::input::positive_decimal")]
    pub code: Decimal,
    /// Other tool output.
    #[serde(default = "one", deserialize_with = "crate::input::positive_decimal")]
    pub output: Decimal,
    /// Text.
    #[serde(default = "one", deserialize_with = "crate::input::positive_decimal")]
    pub text: Decimal,
}

fn one() -> Decimal {
    Decimal::ONE
}

impl ContentWeights {
    /// The weight of `kind`.
    pub fn of(&self, kind: ContentKind) -> Decimal {
        match kind {
            ContentKind::Code => self.code,
            ContentKind::Output => self.output,
            ContentKind::Text => self.text,
        }
    }

    /// Weights from one value per kind in the order of [`ContentKind::ALL`].
    pub fn from_array([code, output, text]: [Decimal; 3]) -> ContentWeights {
        ContentWeights { code, output, text }
    }

    /// True when every weight is 1 (the band alone).
    pub fn is_neutral(&self) -> bool {
        ContentKind::ALL.iter().all(|&k| self.of(k) == Decimal::ONE)
    }

    /// The weight of `kind` in hundredths: a byte of it is this many units
    /// of a replay that weighs its content. Checked weights have at most
    /// [`WEIGHT_DECIMALS`] decimals and are at most [`MAX_WEIGHT`].
    pub fn hundredths(&self, kind: ContentKind) -> u64 {
        use rust_decimal::prelude::ToPrimitive;
        (self.of(kind) * Decimal::from(WEIGHT_UNITS))
            .round()
            .to_u64()
            .unwrap_or(0)
    }

    /// Every kind's weight in hundredths, in [`ContentKind::ALL`] order:
    /// computed once, then [`units`] per row.
    pub fn per_byte(&self) -> [u64; 3] {
        ContentKind::ALL.map(|k| self.hundredths(k))
    }

    /// The largest weight in hundredths.
    pub fn max_hundredths(&self) -> u64 {
        ContentKind::ALL
            .iter()
            .map(|&k| self.hundredths(k))
            .max()
            .unwrap_or(WEIGHT_UNITS)
    }

    /// The first weight outside what a scenario accepts, as a message:
    /// from [`MIN_WEIGHT`] to [`MAX_WEIGHT`], at most [`WEIGHT_DECIMALS`] decimals.
    pub fn check(&self) -> Result<(), String> {
        for k in ContentKind::ALL {
            let w = self.of(k);
            if w < MIN_WEIGHT
                || w > Decimal::from(MAX_WEIGHT)
                || w.normalize().scale() > WEIGHT_DECIMALS
            {
                return Err(format!(
                    "content_weights.{} = {w} is outside what tokencast accepts: from {MIN_WEIGHT} to {MAX_WEIGHT}, at most {WEIGHT_DECIMALS} decimals",
                    k.name()
                ));
            }
        }
        Ok(())
    }
}

/// `bytes` of `kind` in the units of the weights `per_byte`
/// ([`ContentWeights::per_byte`]); without weights, bytes. The kind is
/// asked for only with weights (finding it may compare names).
#[inline]
pub fn units(per_byte: Option<&[u64; 3]>, bytes: u64, kind: impl FnOnce() -> ContentKind) -> u64 {
    match per_byte {
        Some(p) => bytes.saturating_mul(p[kind().index()]),
        None => bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_are_counted_in_hundredths_and_checked() {
        let w =
            ContentWeights::from_array([Decimal::new(95, 2), Decimal::new(112, 2), Decimal::ONE]);
        assert_eq!(w.hundredths(ContentKind::Code), 95);
        assert_eq!(w.hundredths(ContentKind::Output), 112);
        assert_eq!(w.hundredths(ContentKind::Text), 100);
        assert_eq!(w.max_hundredths(), 112);
        assert!(w.check().is_ok());
        assert!(!w.is_neutral());
        for bad in [Decimal::new(5, 3), Decimal::ZERO, Decimal::new(1001, 2)] {
            let w = ContentWeights { code: bad, ..w };
            assert!(w.check().is_err(), "{bad}");
        }
        let three_decimals = ContentWeights {
            text: Decimal::new(1005, 3),
            ..w
        };
        assert!(three_decimals
            .check()
            .unwrap_err()
            .contains("content_weights.text"));
    }

    #[test]
    fn a_row_that_does_not_say_is_text_or_output_by_its_capability() {
        assert_eq!(
            ContentKind::of_capability("(user message)"),
            ContentKind::Text
        );
        assert_eq!(
            ContentKind::of_capability("(assistant output)"),
            ContentKind::Text
        );
        assert_eq!(ContentKind::of_capability("Bash"), ContentKind::Output);
    }
}
