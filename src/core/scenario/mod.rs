//! The scenario format: a recorded run plus the assumptions around it.
//!
//! Loading happens in two stages, as in ripgrep's low/high arguments: the TOML
//! is deserialized into raw structs (`deny_unknown_fields`, exact decimals),
//! then checked once into a [`Scenario`] whose fields the engine trusts.

pub mod calibration;
pub mod change;
mod check;
mod check_what_if;
pub mod combined;
pub mod content;
pub mod generate;
mod raw;
pub mod trace;
mod trace_columns;
pub mod trim;
pub mod variant;

#[cfg(test)]
mod tests;

use crate::error::{closest, did_you_mean, InputError};
use crate::input::{positive_decimal, SourceText};
use crate::limits;
use crate::pricing::book::{is_date, NotPriced};
use crate::pricing::{Currency, Fee, MissingPrices, ModelPrices, PriceBook, Rates};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;
pub use trace::TraceCall;
pub use variant::{Cache, Content, Mode, Variant};

/// `[context_management]`: compaction and clearing tried on one variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextCase {
    /// The variant replayed (index into the scenario's variants).
    pub variant: usize,
    /// S: the tokens a compaction's summary takes.
    pub summary_tokens: u64,
    /// Compaction thresholds to try (empty: a grid from the run).
    pub thresholds: Vec<u64>,
    /// Steps a result stays before it is cleared (empty: a grid from the run).
    pub keep_steps: Vec<u64>,
}

/// How a plan turns runs into periods: days of work a week, growth of the
/// runs a day from month to month, and a monthly budget to draw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Days a week the agent runs (1–7).
    pub working_days_per_week: u64,
    /// Monthly growth of the runs a day, as a share (0.05 = 5 %), compounded.
    pub monthly_growth: Decimal,
    /// A monthly budget, drawn against the cumulative spend.
    pub budget_per_month: Option<Decimal>,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            working_days_per_week: 7,
            monthly_growth: Decimal::ZERO,
            budget_per_month: None,
        }
    }
}

/// Retry break-even between two models (seeds 000–002).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetryCase {
    /// Uncached input tokens per attempt.
    pub input_tokens_per_attempt: u64,
    /// Output tokens per attempt.
    pub output_tokens_per_attempt: u64,
    /// The model in use today.
    pub baseline: ModelPrices,
    /// Attempts the baseline needs.
    pub baseline_attempts: u64,
    /// Independently accepted answers those attempts give.
    pub accepted: u64,
    /// The cheaper model considered.
    pub candidate: ModelPrices,
}

/// Cache-lifetime what-if: model time per step and the sweep over it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LifetimeCase {
    /// Model time per step, milliseconds.
    pub model_ms_per_step: u64,
    /// Sweep of the model time per step, seconds: from, to, step.
    pub sweep_seconds: (u64, u64, u64),
}

/// The what-if analyses a scenario asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct WhatIfs {
    /// Retry break-even between two models.
    pub retry: Option<RetryCase>,
    /// Cache lifetime from timing.
    pub cache_lifetime: Option<LifetimeCase>,
    /// Effort presets: name → output tokens per step (sorted by tokens).
    pub effort: Vec<(String, u64)>,
    /// Restart analysis; `Some(keys)` says whether idempotency keys are used.
    pub restart: Option<bool>,
    /// Periods and growth (defaults when the scenario has no `[plan]`).
    #[serde(default)]
    pub plan: Plan,
    /// Context management: compaction and clearing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextCase>,
}

/// When requests happen: the gap before request k is the tool time since the
/// previous request, plus the model's time per step, plus any pause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// The model's time per step, in milliseconds.
    pub model_ms_per_step: u64,
    /// Extra waits (human review, queues) before given requests.
    pub pauses: Vec<Pause>,
}

impl Timing {
    /// The gap before a request after a step whose tools took `tool_ms`,
    /// before any pause: the tool time and the model's time per step.
    pub fn step_gap(&self, tool_ms: u64) -> u64 {
        tool_ms.saturating_add(self.model_ms_per_step)
    }

    /// The gap before each request in milliseconds into `out` (index 0 is
    /// request 1): `tool_ms` gives the tool time before each later request,
    /// its [`Timing::step_gap`], to which any pause is added.
    pub fn gaps_into(&self, tool_ms: impl IntoIterator<Item = u64>, out: &mut Vec<u64>) {
        out.clear();
        out.push(self.gap_before(0, None));
        out.extend(
            tool_ms
                .into_iter()
                .enumerate()
                .map(|(step, t)| self.gap_before(step + 1, Some(t))),
        );
    }

    /// The gap before request `k` (0-based): its step's [`Timing::step_gap`]
    /// (`tool_ms`, the tool time before it; none before the first request,
    /// whose gap is 0) with every pause before it added, saturating.
    #[inline(always)]
    pub fn gap_before(&self, k: usize, tool_ms: Option<u64>) -> u64 {
        let gap = tool_ms.map_or(0, |t| self.step_gap(t));
        self.pauses
            .iter()
            .filter(|p| p.before_request.wrapping_sub(1) == k as u64)
            .fold(gap, |g, p| g.saturating_add(p.ms))
    }
}

/// A wait before one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pause {
    /// 1-based request number.
    pub before_request: u64,
    /// Milliseconds.
    pub ms: u64,
}

/// What the run assumes beyond the trace (seed 003's symbols in brackets).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assumptions {
    /// System prompt + tool definitions + user question, in tokens (P).
    pub prefix_tokens: u64,
    /// Model output per step: tool_use block and thinking (o).
    pub output_tokens_per_step: u64,
    /// The final answer's output tokens (F).
    pub final_output_tokens: u64,
    /// Bytes per token for the lower bound (b).
    pub bytes_per_token: Decimal,
    /// Tokenizer uplift for the upper bound (u); applies to the prefix and tool results.
    pub tokenizer_uplift: Decimal,
    /// Runs per day for the projection: the team's, or each person's when
    /// `team_size` is more than one.
    pub runs_per_day: u64,
    /// People who each start `runs_per_day` runs a day: the day's figures
    /// are the team's, [`Assumptions::runs_a_day`] runs.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub team_size: u64,
    /// The prefix was measured in the model's own tokens (an imported
    /// session's first prompt): the upper bound does not uplift it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prefix_measured: bool,
    /// Tokens of the prefix already cached when the run starts (a recorded
    /// session's first request read them, written by an earlier session).
    #[serde(default, skip_serializing_if = "crate::input::is_zero")]
    pub prefix_cached_tokens: u64,
    /// Tokens every step adds besides its bytes and the output sent back
    /// (message framing), fitted from a recorded session's prompt growth.
    #[serde(default, skip_serializing_if = "crate::input::is_zero")]
    pub step_overhead_tokens: u64,
    /// The central bytes per token of a calibration (imported sessions: the
    /// pooled fit of recorded prompt growth), between the two bounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate_bytes_per_token: Option<Decimal>,
    /// The trim rule the trimmed variants follow instead of the trace's
    /// `trimmed_bytes`, when the scenario gives one.
    #[serde(default, skip_serializing_if = "trim::Trim::is_none")]
    pub trim: trim::Trim,
    /// The saved calibration that set the band, the estimate and the
    /// framing a step, when the scenario names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<CalibrationUse>,
    /// Per content kind, how many bytes of the band one byte of it counts
    /// as (a calibration's fit per kind); absent: every byte alike.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_weights: Option<content::ContentWeights>,
}

fn one() -> u64 {
    1
}

fn is_one(v: &u64) -> bool {
    *v == 1
}

impl Assumptions {
    /// The content weights a replay applies: none when every weight is 1.
    pub fn weights(&self) -> Option<&content::ContentWeights> {
        self.content_weights.as_ref().filter(|w| !w.is_neutral())
    }

    /// What a replay divides its byte units by to count tokens: bytes per
    /// token, or a hundred times it where the content is weighed (a unit is
    /// then a hundredth of a weighted byte, [`content::WEIGHT_UNITS`]).
    pub fn unit_bytes_per_token(&self) -> Decimal {
        match self.weights() {
            Some(_) => self.bytes_per_token * Decimal::from(content::WEIGHT_UNITS),
            None => self.bytes_per_token,
        }
    }

    /// A row's bytes in the units a replay counts (see
    /// [`Assumptions::unit_bytes_per_token`]).
    pub fn units(&self, bytes: u64, kind: content::ContentKind) -> u64 {
        content::units(self.weights().map(|w| w.per_byte()).as_ref(), bytes, || {
            kind
        })
    }

    /// The runs a day the projection counts: each person's runs times the
    /// team's size (checked within the limit when the scenario is read).
    pub fn runs_a_day(&self) -> u64 {
        self.runs_per_day.saturating_mul(self.team_size)
    }
}

/// A saved calibration a scenario applies (`[assumptions] calibration`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CalibrationUse {
    /// The file, as the scenario names it.
    pub file: String,
    /// The model family whose fit was taken.
    pub family: String,
    /// The measured steps behind that fit.
    pub steps: u64,
    /// The keys the scenario writes beside it, which keep their written
    /// values (`bytes_per_token`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub written: Vec<String>,
}

/// A variant with the rates it pays, resolved from the price book.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PricedVariant {
    /// What the variant is.
    #[serde(flatten)]
    pub variant: Variant,
    /// The model it runs on (the scenario's, unless the variant names its own).
    #[serde(default)]
    pub model: String,
    /// That model's price book entry (the document keeps only its id; the
    /// prices of every model used are in the price table).
    #[serde(skip)]
    pub prices: ModelPrices,
    /// The rates it pays, USD per million tokens.
    pub rates: Rates,
    /// With `recorded_models`: the rates of every other model the trace
    /// records a request on (each request pays its own model's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_model: Vec<ModelRates>,
    /// Share (0–1) of what the previous request left in the cache, its
    /// prompt and the response sent back, that a request reads from it
    /// (fitted from a recorded session: a provider that caches every prefix
    /// on its own keeps the response it generated too, and misses part of
    /// it at random). Absent: the previous prompt is read whole, and no
    /// response. The upper bound reads this share; the lower bound reads
    /// all of it, the least a provider can bill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_hit_share: Option<Decimal>,
    /// With a `cache_hit_share`: the share the upper bound reads instead
    /// (at most the share). Misses of a cache that keeps every prefix on
    /// its own come in lumps (a whole prefix written again), so a session's
    /// share is known only within its sampling error; an import writes the
    /// share less 1.2816 standard errors, its p10. The central estimate
    /// reads `cache_hit_share`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_hit_share_p10: Option<Decimal>,
    /// Share (0–1) of the new turns that drop earlier reasoning after which
    /// the cache holds only the prefix (fitted from a recorded session: an
    /// explicit cache does not find a prefix that changed far back); none
    /// when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_break_share: Option<Decimal>,
    /// Share (0–1) of cache expiries after which the prefix other runs
    /// keep warm ([`Assumptions::prefix_cached_tokens`]) is still read
    /// (fitted from a recorded session's reads after its long gaps); all
    /// of them when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_prefix_share: Option<Decimal>,
    /// Share (0–1) of cache expiries after which the whole previous prompt
    /// is still read: the provider kept the cache beyond its stated
    /// lifetime (fitted from a recorded session: OpenAI's automatic cache
    /// lasts "5 to 10 minutes, up to an hour", and a Codex rollout read its
    /// whole prompt after 3.3 hours). The other expiries read what
    /// [`PricedVariant::warm_prefix_share`] says; none survive when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survived_expiry_share: Option<Decimal>,
}

/// Another model's rates for a variant that prices each request on its own model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRates {
    /// The model.
    pub model: String,
    /// Its price book entry.
    #[serde(skip)]
    pub prices: ModelPrices,
    /// Its rates under the variant's cache tier and mode.
    pub rates: Rates,
}

impl PricedVariant {
    /// A variant of `prices`' model with its rates resolved.
    pub fn new(variant: Variant, prices: &ModelPrices) -> Result<PricedVariant, MissingPrices> {
        Ok(PricedVariant {
            rates: prices.rates_with(variant.cache, variant.mode, variant.options())?,
            variant,
            model: prices.model.clone(),
            prices: prices.clone(),
            by_model: Vec::new(),
            cache_hit_share: None,
            cache_hit_share_p10: None,
            turn_break_share: None,
            warm_prefix_share: None,
            survived_expiry_share: None,
        })
    }

    /// The cache hit share the upper bound reads: the p10 where there is
    /// one, else the share (none: the previous prompt is read whole).
    pub fn upper_hit_share(&self) -> Option<Decimal> {
        self.cache_hit_share_p10.or(self.cache_hit_share)
    }

    /// Resolves the rates again (after a what-if changed the cache tier or mode).
    pub fn reprice(&mut self) -> Result<(), MissingPrices> {
        self.rates = self.prices.rates_with(
            self.variant.cache,
            self.variant.mode,
            self.variant.options(),
        )?;
        for m in &mut self.by_model {
            m.rates = m.prices.rates_with(
                self.variant.cache,
                self.variant.mode,
                self.variant.options(),
            )?;
        }
        Ok(())
    }
}

/// One input file and its SHA-256, for the report's fingerprint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputFile {
    /// File name as referenced (no directories, so output does not depend on the working directory).
    pub name: String,
    /// Hex SHA-256 of the file's bytes.
    pub sha256: String,
}

/// A checked scenario: everything the engine needs, already validated.
///
/// Its fields are private: a `Scenario` is made only by [`Scenario::check`]
/// and changed only through [`Scenario::with`] and its siblings
/// ([`change`]), each of which checks again. Each field is read through
/// the method of its name.
#[derive(Debug, Clone, Serialize)]
pub struct Scenario {
    /// Short name, used for default report file names.
    name: String,
    /// The question the scenario answers.
    question: String,
    /// The model and its prices.
    prices: ModelPrices,
    /// The run's assumptions.
    assumptions: Assumptions,
    /// Request timing, when the scenario gives it (enables cache expiry).
    timing: Option<Timing>,
    /// What-if analyses to run.
    what_if: WhatIfs,
    /// Variants to compare, in the order written.
    variants: Vec<PricedVariant>,
    /// The recorded requests, in order: shared by every changed copy of the
    /// scenario (a sweep point, a what-if) until a change rewrites it.
    trace: std::sync::Arc<trace::Trace>,
    /// The description the trace was generated from (`[trace.generate]`).
    #[serde(skip)]
    plan: Option<generate::Plan>,
    /// The price book's tool fees, attached to capabilities of the trace.
    tool_fees: Vec<ToolFee>,
    /// The currency every figure is in (prices and fees already converted).
    currency: Currency,
    /// The date that chose dated price entries, when it mattered or was set.
    price_date: Option<PriceDate>,
    /// Prices of the models the trace's recorded usage names (those the book has).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    recorded_prices: std::collections::BTreeMap<String, ModelPrices>,
    /// The files this scenario was read from.
    inputs: Vec<InputFile>,
    /// Every family's fit in the calibration the scenario names, for its
    /// variants on models of another tokenizer ([`Scenario::band_of`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    family_fits: Vec<(String, calibration::Fit)>,
    /// Which bounds this copy replays, for those variants too.
    #[serde(default)]
    band_view: BandView,
}

/// How a variant on a model known to count with another tokenizer than the
/// scenario's ([`crate::pricing::tokenizer::differ`]) turns bytes into tokens: the
/// scenario's band was measured on its own model's tokenizer, so such a
/// variant takes its family's fit from the calibration the scenario names,
/// or else the seed's band (÷4 … ×1.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OtherBand {
    /// Its tokenizer.
    pub tokenizer: String,
    /// Bytes per token for the lower bound.
    pub bytes_per_token: Decimal,
    /// The uplift for the upper bound.
    pub tokenizer_uplift: Decimal,
    /// The central bytes per token, when a calibration gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate_bytes_per_token: Option<Decimal>,
    /// The calibration's content weights for the family.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_weights: Option<content::ContentWeights>,
    /// The calibration's framing a step for the family (absent: the
    /// scenario's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_overhead_tokens: Option<u64>,
    /// The calibration whose fit for the model's family set it; absent:
    /// the seed's band.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<CalibrationUse>,
}

/// Which bounds a copy of a scenario replays: both, the central estimate
/// ([`Scenario::central`]) or both without uplift
/// ([`Scenario::without_uplift`]). A variant of another band follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BandView {
    /// The lower and upper bound.
    #[default]
    Bounds,
    /// The estimate (no uplift).
    Central,
    /// The lower bound's bytes per token, no uplift.
    NoUplift,
}

/// The seed's bytes per token (lower bound) and uplift.
pub const SEED_BAND: (Decimal, Decimal) = (
    Decimal::from_parts(4, 0, 0, false, 0),
    Decimal::from_parts(13, 0, 0, false, 1),
);

impl Scenario {
    /// The band of `pv` when its model counts with another tokenizer than
    /// the scenario's model: its family's fit in the calibration the
    /// scenario names, else the seed's. `None`: the scenario's own band.
    pub fn band_of(&self, pv: &PricedVariant) -> Option<OtherBand> {
        use crate::pricing::tokenizer::{differ, group};
        if !differ(&pv.model, &self.prices.model) {
            return None;
        }
        let tokenizer = group(&pv.model).unwrap_or_default().to_string();
        let family = calibration::family(&pv.model);
        let file = self
            .assumptions
            .calibration
            .as_ref()
            .map(|c| c.file.clone());
        match self.family_fits.iter().find(|(f, _)| *f == family) {
            Some((_, fit)) => {
                let (b, u, estimate) = fit.band();
                Some(OtherBand {
                    tokenizer,
                    bytes_per_token: b,
                    tokenizer_uplift: u,
                    estimate_bytes_per_token: Some(estimate),
                    content_weights: fit.weights(),
                    step_overhead_tokens: Some(fit.overhead),
                    calibration: Some(CalibrationUse {
                        file: file.unwrap_or_default(),
                        family,
                        steps: fit.steps,
                        written: Vec::new(),
                    }),
                })
            }
            None => Some(OtherBand {
                tokenizer,
                bytes_per_token: SEED_BAND.0,
                tokenizer_uplift: SEED_BAND.1,
                estimate_bytes_per_token: None,
                content_weights: None,
                step_overhead_tokens: None,
                calibration: None,
            }),
        }
    }

    /// The assumptions `pv` replays with: the scenario's, with the band of
    /// [`Scenario::band_of`] (as this copy views it: its bounds, its
    /// estimate, or without uplift) where the variant has another.
    pub fn assumptions_of(&self, pv: &PricedVariant) -> std::borrow::Cow<'_, Assumptions> {
        let Some(band) = self.band_of(pv) else {
            return std::borrow::Cow::Borrowed(&self.assumptions);
        };
        let mut a = self.assumptions.clone();
        let (b, u) = (band.bytes_per_token, band.tokenizer_uplift);
        // Without an estimate, the middle of the band in tokens: 2b ÷ (1 + u).
        let middle = || {
            (b * Decimal::TWO / (Decimal::ONE + u))
                .round_dp(4)
                .normalize()
        };
        (a.bytes_per_token, a.tokenizer_uplift) = match self.band_view {
            BandView::Bounds => (b, u),
            BandView::Central => (
                band.estimate_bytes_per_token.unwrap_or_else(middle),
                Decimal::ONE,
            ),
            BandView::NoUplift => (b, Decimal::ONE),
        };
        a.estimate_bytes_per_token = band.estimate_bytes_per_token;
        a.content_weights = band.content_weights;
        a.step_overhead_tokens = band.step_overhead_tokens.unwrap_or(a.step_overhead_tokens);
        a.calibration = band.calibration;
        std::borrow::Cow::Owned(a)
    }

    /// The trace's facts with the sizes in the units of `a` (a variant's
    /// [`Scenario::assumptions_of`]).
    pub(crate) fn trace_facts_at(&self, a: &Assumptions) -> trace::FactsRef<'_> {
        self.trace.facts(a.weights())
    }

    /// Short name, used for default report file names.
    pub fn name(&self) -> &String {
        &self.name
    }

    /// The question the scenario answers.
    pub fn question(&self) -> &String {
        &self.question
    }

    /// The model and its prices.
    pub fn prices(&self) -> &ModelPrices {
        &self.prices
    }

    /// The run's assumptions.
    pub fn assumptions(&self) -> &Assumptions {
        &self.assumptions
    }

    /// Request timing, when the scenario gives it (enables cache expiry).
    pub fn timing(&self) -> &Option<Timing> {
        &self.timing
    }

    /// What-if analyses to run.
    pub fn what_if(&self) -> &WhatIfs {
        &self.what_if
    }

    /// Variants to compare, in the order written.
    pub fn variants(&self) -> &Vec<PricedVariant> {
        &self.variants
    }

    /// The recorded requests, in order.
    pub fn trace(&self) -> &Vec<TraceCall> {
        self.trace.calls()
    }

    /// The rows whose result enters the context (one pass over the rows,
    /// kept with the trace).
    pub fn results(&self) -> u64 {
        self.trace.sums().results
    }

    /// Whether the trace records the usage of a request that a result
    /// entered before (an imported trace's).
    pub fn records_usage(&self) -> bool {
        self.trace.sums().recorded > 0
    }

    /// What the trace's rows decide, with the content weights, computed
    /// once for every copy of the scenario that shares them.
    pub(crate) fn trace_facts(&self) -> trace::FactsRef<'_> {
        self.trace.facts(self.assumptions.weights())
    }

    /// The distributions the trace was drawn from, when the scenario
    /// describes a run that has not happened (`[trace.generate]`).
    pub fn plan(&self) -> Option<&generate::Plan> {
        self.plan.as_ref()
    }

    /// The price book's tool fees, attached to capabilities of the trace.
    pub fn tool_fees(&self) -> &Vec<ToolFee> {
        &self.tool_fees
    }

    /// The currency every figure is in (prices and fees already converted).
    pub fn currency(&self) -> &Currency {
        &self.currency
    }

    /// The date that chose dated price entries, when it mattered or was set.
    pub fn price_date(&self) -> &Option<PriceDate> {
        &self.price_date
    }

    /// Prices of the models the trace's recorded usage names (those the book has).
    pub fn recorded_prices(&self) -> &std::collections::BTreeMap<String, ModelPrices> {
        &self.recorded_prices
    }

    /// The files this scenario was read from.
    pub fn inputs(&self) -> &Vec<InputFile> {
        &self.inputs
    }

    /// A scenario built without checks, for a unit test of this crate.
    #[cfg(test)]
    pub(crate) fn unchecked_for_test(
        prices: ModelPrices,
        assumptions: Assumptions,
        variants: Vec<PricedVariant>,
        trace: Vec<TraceCall>,
    ) -> Scenario {
        Scenario {
            name: "t".into(),
            question: "?".into(),
            prices,
            assumptions,
            timing: None,
            what_if: Default::default(),
            variants,
            trace: std::sync::Arc::new(trace::Trace::new(trace)),
            plan: None,
            tool_fees: Vec::new(),
            currency: Default::default(),
            price_date: None,
            recorded_prices: Default::default(),
            inputs: Vec::new(),
            family_fits: Vec::new(),
            band_view: BandView::Bounds,
        }
    }

    /// The field `assumptions`, to change in a unit test of this crate.
    #[cfg(test)]
    pub(crate) fn assumptions_mut(&mut self) -> &mut Assumptions {
        &mut self.assumptions
    }

    /// The field `variants`, to change in a unit test of this crate.
    #[cfg(test)]
    pub(crate) fn variants_mut(&mut self) -> &mut Vec<PricedVariant> {
        &mut self.variants
    }

    /// The field `trace`, to change in a unit test of this crate.
    #[cfg(test)]
    pub(crate) fn trace_mut(&mut self) -> &mut Vec<TraceCall> {
        std::sync::Arc::make_mut(&mut self.trace).calls_mut()
    }

    /// The field `timing`, to change in a unit test of this crate.
    #[cfg(test)]
    pub(crate) fn timing_mut(&mut self) -> &mut Option<Timing> {
        &mut self.timing
    }

    /// The field `prices`, to change in a unit test of this crate.
    #[cfg(test)]
    pub(crate) fn prices_mut(&mut self) -> &mut ModelPrices {
        &mut self.prices
    }
}

/// Files of a scenario already in memory, used instead of reading them.
#[derive(Default, Clone, Copy)]
pub struct Given<'a> {
    /// The trace CSV the scenario's `[trace] file` names.
    pub trace: Option<&'a SourceText>,
    /// The price book the scenario's `prices` names, parsed.
    pub book: Option<(&'a SourceText, &'a PriceBook)>,
    /// That book's name and digest, when the caller has it already (it is
    /// the same for every scenario of an import).
    pub book_file: Option<&'a InputFile>,
    /// The trace, already read and checked: used when the scenario names
    /// the same file (a live page replays one trace under many changes).
    pub checked_trace: Option<&'a CheckedTrace>,
}

/// A trace CSV read and checked once, by the name a scenario gives it; made
/// only by [`CheckedTrace::parse`].
#[derive(Debug, Clone)]
pub struct CheckedTrace {
    rel: String,
    file: InputFile,
    calls: Vec<TraceCall>,
}

impl CheckedTrace {
    /// Reads the trace CSV `src`, which scenarios name `rel`.
    pub fn parse(rel: &str, src: &SourceText) -> Result<CheckedTrace, InputError> {
        let (file, calls) = trace::read_csv(src);
        Ok(CheckedTrace {
            rel: rel.to_string(),
            file,
            calls: calls?,
        })
    }

    /// Writes `rows` as the trace CSV `src_name`, which scenarios name
    /// `rel`: its text, and the checked trace that reading the text back
    /// gives. It is built from the rows, each as the reader sees it once
    /// written (texts trimmed, an empty timestamp or model absent, the fee
    /// normalized), not read; a row that does not check makes the text be
    /// read, so an error is the reader's own, with its row, line and column.
    pub fn write<S: AsRef<str> + Serialize>(
        rel: &str,
        src_name: &str,
        rows: &[trace::TraceRow<S>],
    ) -> (String, Result<CheckedTrace, InputError>) {
        let (src, calls) = trace::write_rows(src_name, rows);
        let checked = calls.map(|calls| CheckedTrace {
            rel: rel.to_string(),
            file: input_file(&src),
            calls,
        });
        (src.text, checked)
    }

    /// The rows, as checked.
    pub fn calls(&self) -> &[TraceCall] {
        &self.calls
    }

    /// The name scenarios give the file.
    pub fn rel(&self) -> &str {
        &self.rel
    }
}

/// A tool fee and the capabilities it is charged for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolFee {
    /// The fee (in the scenario's currency).
    pub fee: Fee,
    /// Trace capabilities whose calls it charges.
    pub capabilities: Vec<String>,
}

/// The date prices were chosen for, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriceDate {
    /// The day (written YYYY-MM-DD).
    pub date: jiff::civil::Date,
    /// `scenario` (its `date`) or `today` (the default).
    pub from: String,
}

/// Where the files a scenario names (its price book, its trace CSV) come
/// from. The engine reads nothing itself: the CLI reads them from disk next
/// to the scenario file, a web page from what its reader gave it.
pub trait Files {
    /// The text of the file the scenario names `rel`, or an error saying
    /// why it cannot be had (`what` names it: "price book", "trace file").
    fn read(&self, rel: &str, what: &str) -> Result<SourceText, InputError>;

    /// The file `rel` to be read a block at a time, when this source reads
    /// it so (a large trace on disk, which is then never held whole);
    /// `None`: read it with [`Files::read`], which also says what is wrong
    /// with a file that cannot be had.
    fn blocks(&self, rel: &str, what: &str) -> Option<Box<dyn Blocks + '_>> {
        let _ = (rel, what);
        None
    }
}

/// A file read a block at a time ([`Files::blocks`]).
pub trait Blocks: Send {
    /// The file's name as messages show it.
    fn name(&self) -> &str;
    /// Its size in bytes when it was opened.
    fn size(&self) -> u64;
    /// Appends the file's next bytes to `buf`, at most `max` of them;
    /// how many (0 at its end).
    fn read_into(&mut self, buf: &mut Vec<u8>, max: usize) -> std::io::Result<usize>;
}

/// Files held in memory, by the name the scenario gives them.
#[derive(Debug, Default, Clone)]
pub struct InMemory(pub std::collections::BTreeMap<String, SourceText>);

impl Files for InMemory {
    fn read(&self, rel: &str, what: &str) -> Result<SourceText, InputError> {
        self.0.get(rel).cloned().ok_or_else(|| {
            InputError::new(format!("the {what} `{rel}` was not given")).with_help(format!(
                "give the {what} the scenario names, or change its path"
            ))
        })
    }
}

/// [`Files`] that keeps the text of each file it gives, by the name the
/// scenario gave it: what a page needs to replay the scenario itself. Past
/// its byte limit it keeps no more text (a long trace is not copied for a
/// page that cannot carry it), only the sizes.
pub struct Recorded<'a> {
    inner: &'a dyn Files,
    limit: usize,
    /// Bytes of every file given, kept or not.
    total: std::cell::Cell<usize>,
    /// (name the scenario gave, what it is, text if kept), in the order read.
    seen: std::cell::RefCell<Vec<(String, String, Option<String>)>>,
}

impl<'a> Recorded<'a> {
    /// Gives `inner`'s files and keeps their text while the texts kept
    /// stay within `limit` bytes.
    pub fn new(inner: &'a dyn Files, limit: usize) -> Recorded<'a> {
        Recorded {
            inner,
            limit,
            total: std::cell::Cell::new(0),
            seen: Default::default(),
        }
    }

    /// The name the scenario gave the first file read as `what`.
    pub fn name_of(&self, what: &str) -> Option<String> {
        self.seen
            .borrow()
            .iter()
            .find(|(_, w, _)| w == what)
            .map(|(rel, _, _)| rel.clone())
    }

    /// The text of the first file read as `what` ("price book", "trace
    /// file"), if it was kept.
    pub fn text_of(&self, what: &str) -> Option<String> {
        self.seen
            .borrow()
            .iter()
            .find(|(_, w, _)| w == what)
            .and_then(|(_, _, text)| text.clone())
    }

    /// Every file given, by the name the scenario gave it; or, when some
    /// text was past the limit, the bytes of all of them.
    pub fn into_texts(self) -> Result<std::collections::BTreeMap<String, String>, usize> {
        let total = self.total.get();
        self.seen
            .into_inner()
            .into_iter()
            .map(|(rel, _, text)| text.map(|t| (rel, t)).ok_or(total))
            .collect()
    }
}

impl Files for Recorded<'_> {
    fn read(&self, rel: &str, what: &str) -> Result<SourceText, InputError> {
        let streamed = self
            .seen
            .borrow()
            .iter()
            .any(|(r, w, text)| r == rel && w == what && text.is_none());
        let src = self.inner.read(rel, what)?;
        // A file given in blocks and then read whole (its rows were not
        // sure to read in blocks) counts once, as it was first given.
        if streamed {
            return Ok(src);
        }
        let total = self.total.get().saturating_add(src.text.len());
        self.total.set(total);
        let kept = (total <= self.limit).then(|| src.text.clone());
        self.seen
            .borrow_mut()
            .push((rel.to_string(), what.to_string(), kept));
        Ok(src)
    }

    /// A file whose text would not be kept is given in blocks, when the
    /// source gives it so; one that would be kept is read whole.
    fn blocks(&self, rel: &str, what: &str) -> Option<Box<dyn Blocks + '_>> {
        let blocks = self.inner.blocks(rel, what)?;
        let size = usize::try_from(blocks.size()).unwrap_or(usize::MAX);
        let total = self.total.get().saturating_add(size);
        if total <= self.limit {
            return None;
        }
        self.total.set(total);
        self.seen
            .borrow_mut()
            .push((rel.to_string(), what.to_string(), None));
        Some(blocks)
    }
}

pub use crate::limits::MAX_CONTEXT_POINTS;

/// One SHA-256 over the names and hashes of input files.
pub fn fingerprint(inputs: &[InputFile]) -> String {
    let mut h = Sha256::new();
    for f in inputs {
        h.update(f.name.as_bytes());
        h.update([0]);
        h.update(f.sha256.as_bytes());
        h.update([0]);
    }
    hex(&h.finalize())
}

pub use limits::{MAX_ATTEMPTS, MAX_RANGE_POINTS, MAX_TOKENS};

/// A file's name (without folders) and its SHA-256.
pub fn input_file(src: &SourceText) -> InputFile {
    input_file_of(&src.name, Sha256::digest(src.text.as_bytes()).as_slice())
}

/// The [`InputFile`] of the file shown as `name` whose SHA-256 is `digest`.
pub(crate) fn input_file_of(name: &str, digest: &[u8]) -> InputFile {
    let file = Path::new(name)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.to_string());
    InputFile {
        name: file,
        sha256: hex(digest),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
