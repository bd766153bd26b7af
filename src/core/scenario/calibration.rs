//! A calibration saved from one set of sessions (`tokencast import
//! --save-calibration`): bytes per token fitted per model family from
//! recorded prompt growth. An import applies one with `--calibration`; a
//! scenario names one (`[assumptions] calibration = "FILE"`) to take its
//! band and estimate for its model's family, so a forecast of work that
//! has not happened yet uses what the team's own logs measured.

use super::content::{ContentKind, ContentWeights, MAX_WEIGHT, MIN_WEIGHT, WEIGHT_DECIMALS};
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
    /// Per content kind ([`ContentKind::ALL`] order): its own fit and its
    /// share of the bytes.
    #[serde(default)]
    pub kinds: [KindFit; 3],
}

/// Fewest steps of one kind for its own bytes per token; below it the
/// kind counts as the thread's pooled fit says.
pub const MIN_KIND_STEPS: u64 = 10;

/// One content kind's fit: on the measured steps whose bytes are at least
/// nine tenths of that kind, and its bytes over every measured step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindFit {
    /// Measured steps whose bytes are at least nine tenths of this kind.
    pub steps: u64,
    /// Σ bytes over them.
    pub bytes: u64,
    /// Σ tokens over them (framing taken off).
    pub tokens: u64,
    /// 10th percentile of their per-step ratios (0 without a step).
    pub p10: Decimal,
    /// Median.
    pub p50: Decimal,
    /// 90th percentile.
    pub p90: Decimal,
    /// Bytes of this kind over every measured step (the mix the weights
    /// keep the pooled fit of).
    pub mix: u64,
}

impl KindFit {
    /// Σ bytes ÷ Σ tokens, 4 decimals, where the kind has
    /// [`MIN_KIND_STEPS`] steps.
    pub fn pooled(&self) -> Option<Decimal> {
        if self.steps < MIN_KIND_STEPS {
            return None;
        }
        Some(
            Decimal::from(self.bytes)
                .checked_div(Decimal::from(self.tokens))?
                .round_dp(4)
                .normalize(),
        )
    }

    /// Both summed; the percentiles averaged, weighted by steps.
    fn plus(&self, o: &KindFit) -> KindFit {
        let steps = self.steps.saturating_add(o.steps);
        let w = |a: Decimal, b: Decimal| {
            ((a * Decimal::from(self.steps) + b * Decimal::from(o.steps))
                / Decimal::from(steps.max(1)))
            .round_dp(4)
            .normalize()
        };
        KindFit {
            steps,
            bytes: self.bytes.saturating_add(o.bytes),
            tokens: self.tokens.saturating_add(o.tokens),
            p10: w(self.p10, o.p10),
            p50: w(self.p50, o.p50),
            p90: w(self.p90, o.p90),
            mix: self.mix.saturating_add(o.mix),
        }
    }
}

/// The content weights of a fit whose pooled bytes per token is `pooled`:
/// per kind with its own fit, `pooled ÷` its bytes per token (how many
/// bytes of the pooled fit one byte of it counts as), others 1; then all
/// scaled so that the fit's own mix of kinds counts the bytes it measured
/// (the pooled fit holds on the steps it came from), rounded to
/// [`WEIGHT_DECIMALS`] decimals. `None` when no kind has its own fit, or
/// every weight rounds to 1.
pub fn weights_of(pooled: Decimal, kinds: &[KindFit; 3]) -> Option<ContentWeights> {
    let raw: Vec<Decimal> = kinds
        .iter()
        .map(|k| {
            k.pooled()
                .and_then(|r| pooled.checked_div(r))
                .unwrap_or(Decimal::ONE)
        })
        .collect();
    if kinds.iter().all(|k| k.pooled().is_none()) {
        return None;
    }
    let mix: Decimal = kinds.iter().map(|k| Decimal::from(k.mix)).sum();
    let weighed = kinds
        .iter()
        .zip(&raw)
        .try_fold(Decimal::ZERO, |t, (k, r)| {
            t.checked_add(Decimal::from(k.mix).checked_mul(*r)?)
        })?;
    let norm = mix.checked_div(weighed).unwrap_or(Decimal::ONE);
    let w: Vec<Decimal> = raw
        .iter()
        .map(|r| {
            r.checked_mul(norm)
                .unwrap_or(Decimal::ONE)
                .round_dp(WEIGHT_DECIMALS)
                .clamp(MIN_WEIGHT, Decimal::from(MAX_WEIGHT))
                .normalize()
        })
        .collect();
    let w = ContentWeights::from_array([w[0], w[1], w[2]]);
    (!w.is_neutral()).then_some(w)
}

impl Fit {
    /// The content weights of this fit ([`weights_of`]).
    pub fn weights(&self) -> Option<ContentWeights> {
        weights_of(self.pooled, &self.kinds)
    }

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
/// (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`), a cloud's name of
/// a Claude model read as Anthropic's (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`
/// → `claude-sonnet-4-5`: the same model, the same tokens).
pub fn family(model: &str) -> String {
    // A service tier or region (fast mode) does not change the tokenizer.
    let id = crate::pricing::cloud::anthropic_id(crate::pricing::PricedModel::parse(model).id);
    crate::pricing::undated(&id).to_string()
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
    /// Per content kind (`code`, `output`, `text`), its own fit; absent in
    /// files written before.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub kinds: std::collections::BTreeMap<String, KindFit>,
}

impl FamilyFit {
    /// Its kinds in [`ContentKind::ALL`] order (a kind not saved: none).
    pub fn kind_fits(&self) -> [KindFit; 3] {
        ContentKind::ALL.map(|k| self.kinds.get(k.name()).copied().unwrap_or_default())
    }

    /// Kinds in [`ContentKind::ALL`] order as saved (those with a step or a byte).
    pub fn kinds_of(fits: &[KindFit; 3]) -> std::collections::BTreeMap<String, KindFit> {
        ContentKind::ALL
            .iter()
            .zip(fits)
            .filter(|(_, f)| f.steps > 0 || f.mix > 0)
            .map(|(k, f)| (k.name().to_string(), *f))
            .collect()
    }
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
                        kinds: FamilyFit::kinds_of(&fits.iter().fold(
                            [KindFit::default(); 3],
                            |sum, x| {
                                let k = x.kind_fits();
                                [sum[0].plus(&k[0]), sum[1].plus(&k[1]), sum[2].plus(&k[2])]
                            },
                        )),
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
            kinds: f.kind_fits(),
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
            if let Some(k) = fit
                .kinds
                .keys()
                .find(|k| !ContentKind::ALL.iter().any(|c| c.name() == k.as_str()))
            {
                return Err(InputError::new(format!(
                    "{}: family `{}`: unknown content kind `{}`",
                    src.name,
                    crate::text::display(f),
                    crate::text::display(k)
                ))
                .with_help("the kinds are code, output and text; write the file again with `tokencast import … --save-calibration FILE`"));
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
