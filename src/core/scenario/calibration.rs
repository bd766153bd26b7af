//! A calibration saved from one set of sessions (`tokencast import
//! --save-calibration`): bytes per token fitted per model family from
//! recorded prompt growth. An import applies one with `--calibration`; a
//! scenario names one (`[assumptions] calibration = "FILE"`) to take its
//! band and estimate for its model's family, so a forecast of work that
//! has not happened yet uses what the team's own logs measured.

use crate::error::InputError;
use crate::input::SourceText;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// One thread's fit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fit {
    /// Steps measured.
    pub steps: u64,
    /// Tokens every step adds besides its bytes (median of the near-empty steps).
    pub overhead: u64,
    /// Σ bytes ÷ Σ tokens over them.
    pub pooled: Decimal,
    /// 10th percentile of the per-step ratios (fewest bytes per token: most tokens).
    pub p10: Decimal,
    /// Median.
    pub p50: Decimal,
    /// 90th percentile.
    pub p90: Decimal,
}

impl Fit {
    /// The band a scenario writes: `bytes_per_token` (lower bound of tokens:
    /// the p90 ratio, or the pooled one if larger), `tokenizer_uplift` (so
    /// that the upper bound is bytes ÷ p10, or ÷ pooled if smaller) and the
    /// estimate (pooled).
    pub fn band(&self) -> (Decimal, Decimal, Decimal) {
        let hi = self.p90.max(self.pooled);
        let lo = self.p10.min(self.pooled);
        let uplift = hi
            .checked_div(lo)
            .unwrap_or(Decimal::ONE)
            .round_dp_with_strategy(4, rust_decimal::RoundingStrategy::AwayFromZero)
            .max(Decimal::ONE)
            .normalize();
        (hi, uplift, self.pooled)
    }
}

/// The first line of a saved calibration (its marker).
pub const CALIBRATION_HEADER: &str = "# tokencast calibration";

/// The tokenizer family of a model: its id without a trailing date
/// (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`).
pub fn family(model: &str) -> String {
    let bytes = model.as_bytes();
    let n = bytes.len();
    if n > 9 && bytes[n - 9] == b'-' && bytes[n - 8..].iter().all(u8::is_ascii_digit) {
        model[..n - 9].to_string()
    } else {
        model.to_string()
    }
}

/// One family's fit with the sums that let fits of several sets be merged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilyFit {
    /// Steps measured.
    pub steps: u64,
    /// Σ bytes over them.
    pub bytes: u64,
    /// Σ tokens over them (framing taken off).
    pub tokens: u64,
    /// Tokens of framing a step.
    pub overhead: u64,
    /// Per-step ratios.
    pub p10: Decimal,
    /// Median.
    pub p50: Decimal,
    /// 90th percentile.
    pub p90: Decimal,
    /// New turns that dropped earlier reasoning, and how many of them broke
    /// the cache (the import's `TurnBreaks`); absent in files written before.
    #[serde(default)]
    pub turns: u64,
    /// Of them, those after which the cache held only about the first prompt.
    #[serde(default)]
    pub turn_breaks: u64,
}

/// Fits per model family, as saved by `import --save-calibration`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// Per family.
    pub families: std::collections::BTreeMap<String, FamilyFit>,
}

impl Calibration {
    /// Several calibrations as one: sums added; the overhead and the
    /// percentiles averaged, weighted by steps (an approximation: the
    /// ratios themselves are not kept).
    pub fn merge(all: &[Calibration]) -> Calibration {
        let mut out: std::collections::BTreeMap<String, Vec<&FamilyFit>> = Default::default();
        for c in all {
            for (f, fit) in &c.families {
                out.entry(f.clone()).or_default().push(fit);
            }
        }
        let families = out
            .into_iter()
            .map(|(f, fits)| {
                let steps: u64 = fits.iter().map(|x| x.steps).sum();
                let w = |get: fn(&FamilyFit) -> Decimal| {
                    let total: Decimal = fits.iter().map(|x| get(x) * Decimal::from(x.steps)).sum();
                    (total / Decimal::from(steps.max(1)))
                        .round_dp(4)
                        .normalize()
                };
                let overhead = fits
                    .iter()
                    .map(|x| u128::from(x.overhead) * u128::from(x.steps))
                    .sum::<u128>()
                    / u128::from(steps.max(1));
                (
                    f,
                    FamilyFit {
                        steps,
                        bytes: fits.iter().map(|x| x.bytes).sum(),
                        tokens: fits.iter().map(|x| x.tokens).sum(),
                        overhead: u64::try_from(overhead).unwrap_or(u64::MAX),
                        p10: w(|x| x.p10),
                        p50: w(|x| x.p50),
                        p90: w(|x| x.p90),
                        turns: fits.iter().map(|x| x.turns).sum(),
                        turn_breaks: fits.iter().map(|x| x.turn_breaks).sum(),
                    },
                )
            })
            .collect();
        Calibration { families }
    }

    /// The fit for `model`'s family, as a thread's own fit would be.
    pub fn fit_for(&self, model: &str) -> Option<Fit> {
        let f = self.families.get(&family(model))?;
        let pooled = Decimal::from(f.bytes)
            .checked_div(Decimal::from(f.tokens))?
            .round_dp(4)
            .normalize();
        Some(Fit {
            steps: f.steps,
            overhead: f.overhead,
            pooled,
            p10: f.p10,
            p50: f.p50,
            p90: f.p90,
        })
    }

    /// The file: its marker line, then TOML.
    pub fn to_toml(&self) -> String {
        format!(
            "{CALIBRATION_HEADER}: bytes per token fitted per model family from recorded prompt growth\n# (`tokencast import --save-calibration`); apply with `import --calibration FILE`, or name it\n# in a scenario: calibration = \"FILE\" under [assumptions].\n{}",
            toml::to_string(self).expect("a calibration always serializes")
        )
    }

    /// Reads a saved calibration, with a located error.
    pub fn parse(src: &SourceText) -> Result<Calibration, InputError> {
        let c: Calibration = toml::from_str(&src.text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            src.error_at(
                format!("{}: not a tokencast calibration: {}", src.name, e.message()),
                span,
                "here",
            )
            .with_help("write one with `tokencast import … --save-calibration FILE`")
        })?;
        for (f, fit) in &c.families {
            if !crate::limits::text_fits(f, crate::limits::MAX_NAME_CHARS) {
                return Err(InputError::new(format!(
                    "{}: family `{}`: its name is longer than {} characters",
                    src.name,
                    crate::text::display(f),
                    crate::limits::MAX_NAME_CHARS
                ))
                .with_help(
                    "a family is a model id without its date; write the file again with `tokencast import … --save-calibration FILE`",
                ));
            }
            if fit.tokens == 0
                || fit.steps == 0
                || fit.p10 <= Decimal::ZERO
                || fit.p10 > fit.p90
                || fit.turn_breaks > fit.turns
            {
                return Err(InputError::new(format!(
                    "{}: family `{}`: needs steps and tokens above 0, 0 < p10 ≤ p90 and turn_breaks ≤ turns",
                    src.name,
                    crate::text::display(f)
                ))
                .with_help(
                    "write the file again with `tokencast import … --save-calibration FILE`",
                ));
            }
        }
        Ok(c)
    }
}
