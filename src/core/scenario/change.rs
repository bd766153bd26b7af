//! Changing a checked scenario: every change goes through a method that
//! checks again, so a sweep's or a forecast's scenario is as sound as one
//! read from a file.
//!
//! [`Scenario::with`] sets one [`Param`] to one [`Value`]: the value is
//! checked against the parameter's bounds, the variants' rates are resolved
//! again (a cache tier the model lacks is an error), and the replay must
//! stay within exact decimals ([`crate::limits::replay_fits`]).

use super::{Assumptions, Content, Mode, PricedVariant, Scenario, Timing, Variant};
use crate::input::whole;
use crate::limits::{self, MAX_CALLS};
use crate::pricing::{Cache, MissingPrices, ModelPrices};
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// What can be varied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Param {
    /// P, tokens.
    PrefixTokens,
    /// o, tokens per step.
    OutputTokensPerStep,
    /// F, tokens.
    FinalOutputTokens,
    /// Runs per day.
    RunsPerDay,
    /// Tool calls entering the context: the trace's results, cut or repeated.
    Calls,
    /// Share of raw bytes kept by trimming (0–1): trimmed = raw × ratio.
    TrimRatio,
    /// b.
    BytesPerToken,
    /// u.
    TokenizerUplift,
    /// Model time per step, seconds (sets the scenario's timing).
    ModelSecondsPerStep,
    /// Cache tier of every variant: none, 5m, 1h.
    Cache,
}

impl Param {
    /// Every parameter, in the order they are listed to users.
    pub const ALL: [Param; 10] = [
        Param::PrefixTokens,
        Param::OutputTokensPerStep,
        Param::FinalOutputTokens,
        Param::RunsPerDay,
        Param::Calls,
        Param::TrimRatio,
        Param::BytesPerToken,
        Param::TokenizerUplift,
        Param::ModelSecondsPerStep,
        Param::Cache,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Param::PrefixTokens => "prefix_tokens",
            Param::OutputTokensPerStep => "output_tokens_per_step",
            Param::FinalOutputTokens => "final_output_tokens",
            Param::RunsPerDay => "runs_per_day",
            Param::Calls => "calls",
            Param::TrimRatio => "trim_ratio",
            Param::BytesPerToken => "bytes_per_token",
            Param::TokenizerUplift => "tokenizer_uplift",
            Param::ModelSecondsPerStep => "model_seconds_per_step",
            Param::Cache => "cache",
        }
    }

    /// The parameter named `name`, if any.
    pub fn from_name(name: &str) -> Option<Param> {
        Param::ALL.into_iter().find(|p| p.name() == name)
    }

    /// True for parameters that take whole numbers.
    pub fn integer(self) -> bool {
        matches!(
            self,
            Param::PrefixTokens
                | Param::OutputTokensPerStep
                | Param::FinalOutputTokens
                | Param::RunsPerDay
                | Param::Calls
        )
    }

    /// Whether `v` is a value this parameter may take; the problem if not.
    pub fn check(self, v: Decimal) -> Result<(), String> {
        let name = self.name();
        match self {
            Param::BytesPerToken | Param::TokenizerUplift => limits::factor(name, v),
            Param::TrimRatio if v < Decimal::ZERO || v > Decimal::ONE => {
                Err(format!("trim_ratio is a share between 0 and 1, not {v}"))
            }
            Param::Calls if v.is_zero() => Err("calls must be at least 1".into()),
            Param::Calls if v > Decimal::from(MAX_CALLS) => {
                Err(format!("calls is at most {MAX_CALLS}"))
            }
            Param::PrefixTokens | Param::OutputTokensPerStep | Param::FinalOutputTokens => {
                limits::tokens(name, whole(v).unwrap_or(u64::MAX))
            }
            Param::RunsPerDay => limits::runs_per_day(whole(v).unwrap_or(u64::MAX)),
            Param::ModelSecondsPerStep if v > Decimal::from(u32::MAX / 1000) => Err(format!(
                "model_seconds_per_step is at most {} s",
                u32::MAX / 1000
            )),
            _ => Ok(()),
        }
    }
}

/// One value of an axis: a number, or a cache tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value {
    /// A number (whole for integer parameters, checked when parsed).
    Number(Decimal),
    /// A cache tier.
    Cache(Cache),
}

impl Value {
    /// The number as a float, for charts (none for a cache tier).
    pub fn as_f64(self) -> Option<f64> {
        use rust_decimal::prelude::ToPrimitive;
        match self {
            Value::Number(d) => d.to_f64(),
            Value::Cache(_) => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Value::Number(d) => write!(f, "{}", d.normalize()),
            Value::Cache(c) => f.write_str(c.key()),
        }
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        let s = String::deserialize(d)?;
        match Cache::from_key(&s) {
            Some(c) => Ok(Value::Cache(c)),
            None => Decimal::from_str(&s)
                .map(Value::Number)
                .map_err(|_| serde::de::Error::custom(format!("`{s}` is not a sweep value"))),
        }
    }
}

/// Why a change to a scenario was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChangeError {
    /// The value is outside what the parameter may take.
    #[error("{0}")]
    OutOfRange(String),
    /// A variant's model has no prices for the tier or mode asked for.
    #[error("`{model}` has no {} prices", .missing.join(", "))]
    MissingPrices {
        /// The model.
        model: String,
        /// The prices it lacks.
        missing: Vec<String>,
    },
    /// The changed run would be beyond exact decimals.
    #[error("{0}")]
    TooLarge(String),
}

impl Scenario {
    /// This scenario with `param` set to `value`, checked again.
    pub fn with(&self, param: Param, value: Value) -> Result<Scenario, ChangeError> {
        match (param, value) {
            (Param::Cache, Value::Number(_)) => {
                return Err(ChangeError::OutOfRange(
                    "cache takes a tier: none, 5m or 1h".into(),
                ))
            }
            (Param::Cache, Value::Cache(_)) => {}
            (_, Value::Cache(c)) => {
                return Err(ChangeError::OutOfRange(format!(
                    "{} takes a number, not the cache tier {}",
                    param.name(),
                    c.key()
                )))
            }
            (_, Value::Number(v)) => param.check(v).map_err(ChangeError::OutOfRange)?,
        }
        let mut out = self.clone();
        set(&mut out, param, value);
        out.repriced()?.fitting()
    }

    /// This scenario with request timing `timing` (the cache-lifetime
    /// what-if pauses runs), checked again.
    pub fn with_timing(&self, timing: Timing) -> Result<Scenario, ChangeError> {
        if timing.model_ms_per_step > u64::from(u32::MAX) {
            return Err(ChangeError::OutOfRange(format!(
                "model time per step is at most {} ms",
                u32::MAX
            )));
        }
        let mut out = self.clone();
        out.timing = Some(timing);
        out.fitting()
    }

    /// This scenario with its variants replaced by `variants`, each priced
    /// on the scenario's model.
    pub fn with_variants(
        &self,
        variants: impl IntoIterator<Item = super::Variant>,
    ) -> Result<Scenario, ChangeError> {
        let mut out = self.clone();
        out.variants = variants
            .into_iter()
            .map(|v| {
                PricedVariant::new(v, &self.prices).map_err(|e| missing(&self.prices.model, e))
            })
            .collect::<Result<_, _>>()?;
        out.fitting()
    }

    /// This scenario on `model`: every request of every variant moved onto
    /// it, each variant's cache tier as `model`'s provider offers it
    /// ([`ModelPrices::tier_like`]), checked again. Per variant (scenario
    /// order): what changed about its cache, or why `model` cannot price it
    /// (a batch variant on a model without batch prices). The scenario holds
    /// the variants it can price; none when it can price none.
    pub fn on_model(
        &self,
        model: &ModelPrices,
    ) -> (Option<Scenario>, Vec<Result<Option<String>, String>>) {
        let mut kept = Vec::new();
        let notes = self
            .variants
            .iter()
            .map(|pv| {
                let mut v = pv.variant.clone();
                let (tier, why) = model.tier_like(v.cache);
                v.cache = tier;
                match PricedVariant::new(v, model) {
                    Ok(p) => {
                        kept.push(p);
                        Ok(why)
                    }
                    Err(e) => Err(missing(&model.model, e).to_string()),
                }
            })
            .collect();
        if kept.is_empty() {
            return (None, notes);
        }
        let mut out = self.clone();
        out.prices = model.clone();
        out.variants = kept;
        match out.fitting() {
            Ok(s) => (Some(s), notes),
            Err(e) => {
                let why = e.to_string();
                (None, notes.into_iter().map(|_| Err(why.clone())).collect())
            }
        }
    }

    /// This scenario with `extra` variants after its own, each priced on its
    /// model (the scenario's when `None`); a name already taken, or a tier,
    /// mode or service the model does not price, is an error.
    pub fn with_added_variants(
        &self,
        extra: impl IntoIterator<Item = (super::Variant, Option<ModelPrices>)>,
    ) -> Result<Scenario, ChangeError> {
        let mut out = self.clone();
        for (v, model) in extra {
            if out.variants.iter().any(|p| p.variant.name == v.name) {
                return Err(ChangeError::OutOfRange(format!(
                    "a variant is already named `{}`",
                    v.name
                )));
            }
            let prices = model.as_ref().unwrap_or(&self.prices);
            out.variants
                .push(PricedVariant::new(v, prices).map_err(|e| missing(&prices.model, e))?);
        }
        out.fitting()
    }

    /// This scenario with only the variants `keep` accepts, in their order;
    /// at least one must remain.
    pub fn with_only(
        &self,
        keep: impl Fn(&PricedVariant) -> bool,
    ) -> Result<Scenario, ChangeError> {
        let mut out = self.clone();
        out.variants.retain(|v| keep(v));
        if out.variants.is_empty() {
            return Err(ChangeError::OutOfRange("no variant would remain".into()));
        }
        Ok(out)
    }

    /// The scenario at its central estimate: the calibration's bytes per
    /// token with no uplift, reading the cache at the fitted share (not its
    /// p10), when it has one (an imported session).
    pub fn central(&self) -> Option<Scenario> {
        let b = self.assumptions.estimate_bytes_per_token?;
        let mut out = self.clone();
        out.assumptions.bytes_per_token = b;
        out.assumptions.tokenizer_uplift = Decimal::ONE;
        out.band_view = super::BandView::Central;
        out.read_cache_as_recorded();
        // Fewer bytes per token means more tokens than the lower bound's.
        out.fitting().ok()
    }

    /// The scenario with no uplift: both bounds take the lower bound's
    /// tokens, and its upper bound reads the fitted `cache_hit_share` (not
    /// its p10), so its upper cost is the lower tokens at the recorded
    /// cache reads.
    pub fn without_uplift(&self) -> Option<Scenario> {
        let mut out = self.clone();
        out.assumptions.tokenizer_uplift = Decimal::ONE;
        out.band_view = super::BandView::NoUplift;
        out.read_cache_as_recorded();
        out.fitting().ok()
    }

    /// One request of `input_tokens` in and `output_tokens` out, with no
    /// tool results, on `model` without a cache (a retried attempt).
    pub fn single_request(
        model: &ModelPrices,
        input_tokens: u64,
        output_tokens: u64,
    ) -> Result<Scenario, ChangeError> {
        let variant = Variant {
            name: model.model.clone(),
            results: Content::Raw,
            cache: Cache::None,
            mode: Mode::Sync,
            service: None,
            region: None,
        };
        Scenario {
            name: "attempt".into(),
            question: String::new(),
            prices: model.clone(),
            assumptions: Assumptions {
                prefix_tokens: input_tokens,
                output_tokens_per_step: 0,
                final_output_tokens: output_tokens,
                bytes_per_token: Decimal::ONE,
                tokenizer_uplift: Decimal::ONE,
                runs_per_day: 1,
                team_size: 1,
                prefix_measured: false,
                prefix_cached_tokens: 0,
                step_overhead_tokens: 0,
                estimate_bytes_per_token: None,
                trim: Default::default(),
                calibration: None,
                content_weights: None,
            },
            timing: None,
            what_if: Default::default(),
            variants: vec![
                PricedVariant::new(variant, model).map_err(|e| missing(&model.model, e))?
            ],
            trace: Default::default(),
            plan: None,
            tool_fees: Vec::new(),
            currency: Default::default(),
            price_date: None,
            recorded_prices: Default::default(),
            inputs: Vec::new(),
            family_fits: Vec::new(),
            band_view: super::BandView::Bounds,
        }
        .fitting()
    }

    /// The scenario whose upper bound reads the cache at the fitted
    /// `cache_hit_share` rather than its p10: the upper tokens at the
    /// recorded cache reads. `None` when no variant has a p10.
    pub fn reading_cache_as_recorded(&self) -> Option<Scenario> {
        if self
            .variants
            .iter()
            .all(|v| v.cache_hit_share_p10.is_none())
        {
            return None;
        }
        let mut out = self.clone();
        out.read_cache_as_recorded();
        Some(out)
    }

    /// Every variant reads the cache at its fitted share: the central views
    /// take the recorded reads, not the upper bound's p10.
    fn read_cache_as_recorded(&mut self) {
        for pv in &mut self.variants {
            pv.cache_hit_share_p10 = None;
        }
    }

    /// Every variant's rates resolved again for its (changed) tier and mode.
    fn repriced(mut self) -> Result<Scenario, ChangeError> {
        for pv in &mut self.variants {
            pv.reprice().map_err(|e| missing(&pv.model, e))?;
        }
        Ok(self)
    }

    /// The scenario, if its replay stays within exact decimals.
    fn fitting(self) -> Result<Scenario, ChangeError> {
        limits::replay_fits(&self.replay_size()).map_err(ChangeError::TooLarge)?;
        Ok(self)
    }
}

fn missing(model: &str, e: MissingPrices) -> ChangeError {
    ChangeError::MissingPrices {
        model: model.to_string(),
        missing: e.0,
    }
}

fn set(s: &mut Scenario, param: Param, value: Value) {
    let d = match value {
        Value::Number(d) => d,
        Value::Cache(cache) => {
            for v in &mut s.variants {
                v.variant.cache = cache;
            }
            return;
        }
    };
    let int = || whole(d).unwrap_or(0);
    match param {
        Param::PrefixTokens => s.assumptions.prefix_tokens = int(),
        Param::OutputTokensPerStep => s.assumptions.output_tokens_per_step = int(),
        Param::FinalOutputTokens => s.assumptions.final_output_tokens = int(),
        Param::RunsPerDay => s.assumptions.runs_per_day = int(),
        Param::BytesPerToken => s.assumptions.bytes_per_token = d,
        Param::TokenizerUplift => s.assumptions.tokenizer_uplift = d,
        Param::TrimRatio => {
            for c in std::sync::Arc::make_mut(&mut s.trace).calls_mut() {
                if let Some(raw) = c.raw_bytes {
                    c.trimmed_bytes = whole((Decimal::from(raw) * d).round());
                }
            }
        }
        Param::Calls => {
            let results: Vec<_> = s
                .trace()
                .iter()
                .filter(|c| c.enters_context())
                .cloned()
                .collect();
            s.trace = std::sync::Arc::new(super::trace::Trace::new(
                (0..crate::engine::ix(int()))
                    .map(|i| {
                        let mut c = results[i % results.len()].clone();
                        c.row = u32::try_from(i + 1).unwrap_or(u32::MAX);
                        c.call = Some(u32::try_from(i + 1).unwrap_or(u32::MAX));
                        c
                    })
                    .collect(),
            ));
        }
        Param::ModelSecondsPerStep => {
            let pauses = s
                .timing
                .as_ref()
                .map(|t| t.pauses.clone())
                .unwrap_or_default();
            s.timing = Some(Timing {
                model_ms_per_step: whole((d * Decimal::from(1000)).round()).unwrap_or(0),
                pauses,
            });
        }
        Param::Cache => {}
    }
}
