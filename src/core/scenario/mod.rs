//! The scenario format: a recorded run plus the assumptions around it.
//!
//! Loading happens in two stages, as in ripgrep's low/high arguments: the TOML
//! is deserialized into raw structs (`deny_unknown_fields`, exact decimals),
//! then checked once into a [`Scenario`] whose fields the engine trusts.

pub mod change;
pub mod trace;
pub mod variant;

use crate::error::{closest, did_you_mean, InputError};
use crate::input::{positive_decimal, SourceText};
use crate::limits;
use crate::pricing::book::{is_date, NotPriced};
use crate::pricing::{Currency, Fee, MissingPrices, ModelPrices, PriceBook, Rates};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;
use toml::Spanned;
pub use trace::TraceCall;
pub use variant::{Cache, Content, Mode, Variant};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    name: String,
    question: String,
    model: Spanned<String>,
    prices: Spanned<String>,
    trace: Spanned<RawTrace>,
    assumptions: RawAssumptions,
    #[serde(default)]
    timing: Option<RawTiming>,
    variants: Spanned<Vec<Spanned<RawVariant>>>,
    #[serde(default)]
    retry: Option<Spanned<RawRetry>>,
    #[serde(default)]
    cache_lifetime: Option<RawLifetime>,
    #[serde(default)]
    effort: Option<RawEffort>,
    #[serde(default)]
    restart: Option<RawRestart>,
    #[serde(default)]
    date: Option<Spanned<String>>,
    #[serde(default)]
    currency: Option<Spanned<RawCurrency>>,
    #[serde(default)]
    tool_fees: std::collections::BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    plan: Option<Spanned<RawPlan>>,
    #[serde(default)]
    context_management: Option<Spanned<RawContext>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawContext {
    #[serde(default)]
    variant: Option<String>,
    summary_tokens: u64,
    #[serde(default)]
    thresholds: Option<Vec<u64>>,
    #[serde(default)]
    keep_steps: Option<Vec<u64>>,
}

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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlan {
    #[serde(default)]
    working_days_per_week: Option<u64>,
    #[serde(
        default,
        deserialize_with = "crate::input::optional_non_negative_decimal"
    )]
    monthly_growth: Option<Decimal>,
    #[serde(
        default,
        deserialize_with = "crate::input::optional_non_negative_decimal"
    )]
    budget_per_month: Option<Decimal>,
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCurrency {
    code: String,
    #[serde(deserialize_with = "positive_decimal")]
    per_usd: Decimal,
    rate_date: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRetry {
    input_tokens_per_attempt: u64,
    output_tokens_per_attempt: u64,
    baseline: RawRetryModel,
    candidate: RawRetryModel,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRetryModel {
    model: Spanned<String>,
    #[serde(default)]
    attempts: Option<u64>,
    #[serde(default)]
    accepted: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLifetime {
    #[serde(deserialize_with = "crate::input::non_negative_decimal")]
    model_seconds_per_step: Decimal,
    sweep_model_seconds: Spanned<RawRange>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRange {
    from: u64,
    to: u64,
    step: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEffort {
    presets: std::collections::BTreeMap<String, u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRestart {
    idempotency_keys: bool,
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTiming {
    #[serde(deserialize_with = "crate::input::non_negative_decimal")]
    model_seconds_per_step: Decimal,
    #[serde(default)]
    pauses: Vec<RawPause>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPause {
    before_request: u64,
    #[serde(deserialize_with = "crate::input::non_negative_decimal")]
    seconds: Decimal,
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
    /// The gap before each request in milliseconds into `out` (index 0 is
    /// request 1): `tool_ms` gives the tool time before each later request,
    /// to which the model's time per step and any pause are added.
    pub fn gaps_into(&self, tool_ms: impl IntoIterator<Item = u64>, out: &mut Vec<u64>) {
        out.clear();
        out.push(0);
        out.extend(
            tool_ms
                .into_iter()
                .map(|t| t.saturating_add(self.model_ms_per_step)),
        );
        for p in &self.pauses {
            if let Some(g) = out.get_mut((p.before_request as usize).wrapping_sub(1)) {
                *g = g.saturating_add(p.ms);
            }
        }
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTrace {
    #[serde(default)]
    file: Option<Spanned<String>>,
    #[serde(default)]
    calls: Option<Vec<Spanned<trace::RawCall>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAssumptions {
    prefix_tokens: u64,
    output_tokens_per_step: u64,
    final_output_tokens: u64,
    #[serde(deserialize_with = "positive_decimal")]
    bytes_per_token: Decimal,
    #[serde(deserialize_with = "positive_decimal")]
    tokenizer_uplift: Decimal,
    runs_per_day: u64,
    #[serde(default)]
    prefix_measured: bool,
    #[serde(default)]
    prefix_cached_tokens: u64,
    #[serde(default)]
    step_overhead_tokens: u64,
    #[serde(default, deserialize_with = "optional_positive_decimal")]
    estimate_bytes_per_token: Option<Decimal>,
}

fn optional_positive_decimal<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Decimal>, D::Error> {
    positive_decimal(d).map(Some)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVariant {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    model: Option<Spanned<String>>,
    results: Content,
    cache: Cache,
    #[serde(default)]
    mode: Mode,
    #[serde(default)]
    service: Option<Spanned<String>>,
    #[serde(default)]
    region: Option<Spanned<String>>,
    /// Price each request on the model the trace records for it.
    #[serde(default)]
    recorded_models: bool,
    /// Share of the previous prompt a request reads from the cache.
    #[serde(default, deserialize_with = "optional_positive_decimal")]
    cache_hit_share: Option<Decimal>,
}

/// What the run assumes beyond the trace (seed 003's symbols in brackets).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assumptions {
    /// System prompt + tool definitions + user question, in tokens [P].
    pub prefix_tokens: u64,
    /// Model output per step: tool_use block and thinking [o].
    pub output_tokens_per_step: u64,
    /// The final answer's output tokens [F].
    pub final_output_tokens: u64,
    /// Bytes per token for the lower bound [b].
    pub bytes_per_token: Decimal,
    /// Tokenizer uplift for the upper bound [u]; applies to the prefix and tool results.
    pub tokenizer_uplift: Decimal,
    /// Runs per day for the projection.
    pub runs_per_day: u64,
    /// The prefix was measured in the model's own tokens (an imported
    /// session's first prompt): the upper bound does not uplift it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prefix_measured: bool,
    /// Tokens of the prefix already cached when the run starts (a recorded
    /// session's first request read them, written by an earlier session).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub prefix_cached_tokens: u64,
    /// Tokens every step adds besides its bytes and the output sent back
    /// (message framing), fitted from a recorded session's prompt growth.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub step_overhead_tokens: u64,
    /// The central bytes per token of a calibration (imported sessions: the
    /// pooled fit of recorded prompt growth), between the two bounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate_bytes_per_token: Option<Decimal>,
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
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
    /// Share (0–1) of the previous prompt a request reads from the cache
    /// (fitted from a recorded session: providers miss part of a cached
    /// prefix); all of it when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_hit_share: Option<Decimal>,
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
        })
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
    /// The recorded requests, in order.
    trace: Vec<TraceCall>,
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
}

impl Scenario {
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
        &self.trace
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
            trace,
            tool_fees: Vec::new(),
            currency: Default::default(),
            price_date: None,
            recorded_prices: Default::default(),
            inputs: Vec::new(),
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
        &mut self.trace
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
    /// YYYY-MM-DD.
    pub date: String,
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

impl Scenario {
    /// Checks the scenario `src`, reading the files it names through
    /// `files`. `today` (YYYY-MM-DD) is the price date when the scenario
    /// sets none; without it, a book with dated entries needs the
    /// scenario's `date`.
    pub fn check(
        src: &SourceText,
        files: &dyn Files,
        today: Option<&str>,
    ) -> Result<Scenario, InputError> {
        Scenario::check_with(src, files, today, Given::default())
    }

    /// [`Scenario::check`] with some of the files already in memory (an
    /// import checks the scenarios it is about to write).
    pub fn check_with(
        src: &SourceText,
        files: &dyn Files,
        today: Option<&str>,
        given: Given,
    ) -> Result<Scenario, InputError> {
        let trace_text = given.trace;
        let raw: RawScenario = src.parse_toml("scenario")?;
        let mut inputs = vec![input_file(src)];
        let currency = raw
            .currency
            .map(|c| check_currency(src, c))
            .transpose()?
            .unwrap_or_default();
        let date = check_date(src, raw.date.as_ref())?;
        let mut book = Book::load(src, files, &raw.prices, given.book)?;
        book.date = date.clone().or_else(|| today.map(str::to_string));
        book.rate = currency.per_usd;
        inputs.push(
            given
                .book_file
                .cloned()
                .unwrap_or_else(|| input_file(&book.src)),
        );
        let prices = book.model(src, &raw.model, "model")?;
        let mut trace = load_trace(src, files, raw.trace, &mut inputs, trace_text)?;
        if !currency.is_usd() {
            for c in &mut trace {
                c.charged_usd = (c.charged_usd * currency.per_usd).normalize();
            }
        }
        let tool_fees = check_tool_fees(src, &book, &trace, raw.tool_fees)?;
        let recorded_prices = trace
            .iter()
            .filter_map(|c| c.recorded.as_ref()?.model.clone())
            .collect::<std::collections::BTreeSet<String>>()
            .into_iter()
            .filter_map(|m| Some((m.clone(), book.price_of(&m)?)))
            .collect();
        let variants = check_variants(src, &book, &prices, raw.variants, &trace)?;
        let timing = raw.timing.map(|t| check_timing(src, t)).transpose()?;
        let mut what_if = WhatIfs {
            retry: raw.retry.map(|r| check_retry(src, &book, r)).transpose()?,
            cache_lifetime: raw
                .cache_lifetime
                .map(|l| check_lifetime(src, l))
                .transpose()?,
            effort: effort_presets(raw.effort),
            restart: raw.restart.map(|r| r.idempotency_keys),
            plan: raw
                .plan
                .map(|p| check_plan(src, p))
                .transpose()?
                .unwrap_or_default(),
            context: None,
        };
        let assumptions = check_assumptions(src, raw.assumptions)?;
        if let Some(c) = raw.context_management {
            what_if.context = Some(check_context(src, c, &variants, &assumptions)?);
        }
        if raw.name.trim().is_empty() {
            return Err(InputError::new(format!("{}: `name` is empty", src.name))
                .with_help("give the scenario a short name, e.g. name = \"research\""));
        }
        let price_date = match (date, book.used_default.get()) {
            (Some(d), _) => Some(PriceDate {
                date: d,
                from: "scenario".into(),
            }),
            (None, true) => book.date.clone().map(|d| PriceDate {
                date: d,
                from: "today".into(),
            }),
            (None, false) => None,
        };
        let scenario = Scenario {
            name: raw.name,
            question: raw.question,
            prices,
            assumptions,
            timing,
            what_if,
            variants,
            trace,
            tool_fees,
            currency,
            price_date,
            recorded_prices,
            inputs,
        };
        limits::replay_fits(&scenario.replay_size()).map_err(|p| {
            InputError::new(format!("{}: {p}", src.name)).with_help(
                "lower the prefix, the output per step, the prices or the trace's sizes; realistic runs are many orders of magnitude below this",
            )
        })?;
        Ok(scenario)
    }

    /// One SHA-256 over every input file, for the report's footer.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.inputs)
    }

    /// The largest replay this scenario asks for (its what-ifs included),
    /// for [`limits::replay_fits`].
    pub fn replay_size(&self) -> limits::ReplaySize {
        let a = &self.assumptions;
        let max_rate = self
            .variants
            .iter()
            .flat_map(|v| v.rates.all())
            .max()
            .unwrap_or_default();
        let results: Vec<&TraceCall> = self.trace.iter().filter(|c| c.enters_context()).collect();
        limits::ReplaySize {
            prefix: a.prefix_tokens,
            per_step: self
                .what_if
                .effort
                .iter()
                .map(|(_, t)| *t)
                .chain(self.trace.iter().map(|c| {
                    c.resent_output
                        .unwrap_or(0)
                        .saturating_add(c.hidden_output.unwrap_or(0))
                }))
                .fold(a.output_tokens_per_step, u64::max)
                .saturating_add(a.step_overhead_tokens),
            final_output: a.final_output_tokens,
            bytes_per_token: a.bytes_per_token,
            uplift: a.tokenizer_uplift,
            results: results.len() as u64,
            bytes: results
                .iter()
                .map(|c| u128::from(c.raw_bytes.unwrap_or(0).max(c.trimmed_bytes.unwrap_or(0))))
                .sum(),
            max_rate,
        }
    }
}

/// The scenario's price book, read and parsed, with its text for messages,
/// the date that chooses dated entries, and the currency rate.
struct Book<'g> {
    /// Borrowed when the caller gives the book in memory (an import loads
    /// one scenario per thread against the same book).
    src: std::borrow::Cow<'g, SourceText>,
    book: std::borrow::Cow<'g, PriceBook>,
    date: Option<String>,
    rate: Decimal,
    /// Whether a dated entry was chosen by the date.
    used_default: std::cell::Cell<bool>,
}

impl<'g> Book<'g> {
    fn load(
        src: &SourceText,
        files: &dyn Files,
        path: &Spanned<String>,
        given: Option<(&'g SourceText, &'g PriceBook)>,
    ) -> Result<Book<'g>, InputError> {
        if let Some((text, book)) = given {
            return Ok(Book {
                src: std::borrow::Cow::Borrowed(text),
                book: std::borrow::Cow::Borrowed(book),
                date: None,
                rate: Decimal::ONE,
                used_default: std::cell::Cell::new(false),
            });
        }
        let book_src = files.read(path.get_ref(), "price book").map_err(|e| {
            src.error_at(e.message().to_string(), path.span(), "price book path")
                .with_help(e.help_text().unwrap_or("check the path"))
        })?;
        let book = PriceBook::parse(&book_src)?;
        Ok(Book {
            src: std::borrow::Cow::Owned(book_src),
            book: std::borrow::Cow::Owned(book),
            date: None,
            rate: Decimal::ONE,
            used_default: std::cell::Cell::new(false),
        })
    }

    /// The prices of the model named at `id` in force on the date,
    /// converted to the scenario's currency, or an error pointing at it.
    fn model(
        &self,
        src: &SourceText,
        id: &Spanned<String>,
        what: &str,
    ) -> Result<ModelPrices, InputError> {
        let model_id = id.get_ref();
        let dated = self.book.is_dated(model_id);
        let date = match (&self.date, dated) {
            (Some(d), _) => d.as_str(),
            (None, false) => "9999-12-31",
            (None, true) => {
                return Err(src
                    .error_at(
                        format!("{what} `{model_id}` has dated prices in `{}`, and the scenario sets no date", self.src.name),
                        id.span(),
                        "which prices?",
                    )
                    .with_help("add date = \"YYYY-MM-DD\" to the scenario: the entry in force that day is used"));
            }
        };
        if dated {
            self.used_default.set(true);
        }
        match self.book.get_on(model_id, date) {
            Ok(m) => Ok(if self.rate == Decimal::ONE {
                m.clone()
            } else {
                m.converted(self.rate)
            }),
            Err(NotPriced::NotYet(first)) => Err(src
                .error_at(
                    format!("{what} `{model_id}` has no price in force on {date}: its first entry starts on {first}"),
                    id.span(),
                    "not priced yet",
                )
                .with_help(format!("set the scenario's date to {first} or later, or add an earlier entry to `{}`", self.src.name))),
            Err(NotPriced::Unknown) => {
                let mut help = did_you_mean(model_id, self.book.model_ids(), "The price book has");
                if closest(model_id, self.book.model_ids()).is_none() {
                    help.push_str(&format!("; add a [models.{model_id}] table to it"));
                }
                Err(src
                    .error_at(
                        format!(
                            "{what} `{model_id}` is not in the price book `{}`",
                            self.src.name
                        ),
                        id.span(),
                        "unknown model",
                    )
                    .with_help(help))
            }
        }
    }
}

/// A variant's `service` or `region`: a name the model's entry defines.
fn check_option<'a>(
    src: &SourceText,
    given: Option<&Spanned<String>>,
    model: &ModelPrices,
    what: &str,
    known: impl Iterator<Item = &'a String> + Clone,
) -> Result<Option<String>, InputError> {
    let Some(g) = given else { return Ok(None) };
    let name = g.get_ref();
    if known.clone().any(|k| k == name) {
        return Ok(Some(name.clone()));
    }
    let list: Vec<&str> = known.map(String::as_str).collect();
    let help = if list.is_empty() {
        format!(
            "`{}` defines no {what}; add one to its price book entry, or remove this line",
            model.model
        )
    } else {
        did_you_mean(name, list, &format!("`{}` has", model.model))
    };
    Err(src
        .error_at(
            format!("{what} `{name}` is not defined for `{}`", model.model),
            g.span(),
            format!("unknown {what}"),
        )
        .with_help(help))
}

impl Book<'_> {
    /// A model's prices in force, converted, if the book has them.
    fn price_of(&self, id: &str) -> Option<ModelPrices> {
        let date = self.date.as_deref().unwrap_or("9999-12-31");
        let m = self.book.get_on(id, date).ok()?;
        Some(if self.rate == Decimal::ONE {
            m.clone()
        } else {
            m.converted(self.rate)
        })
    }
}

/// `[plan]`: 1–7 working days a week, growth up to 100 % a month.
fn check_plan(src: &SourceText, p: Spanned<RawPlan>) -> Result<Plan, InputError> {
    let span = p.span();
    let p = p.into_inner();
    let days = p.working_days_per_week.unwrap_or(7);
    if !(1..=7).contains(&days) {
        return Err(src
            .error_at(
                format!("plan: working_days_per_week = {days}"),
                span,
                "plan",
            )
            .with_help("give the days a week the agent runs, 1 to 7"));
    }
    let growth = p.monthly_growth.unwrap_or_default();
    if growth > Decimal::ONE || growth.scale() > 6 {
        return Err(src
            .error_at(format!("plan: monthly_growth = {growth}"), span, "plan")
            .with_help("give the monthly growth as a share with at most 6 decimals, e.g. \"0.05\" for 5 %, at most 1"));
    }
    if p.budget_per_month
        .is_some_and(|b| b > Decimal::from(1_000_000_000_000u64))
    {
        return Err(src
            .error_at("plan: budget_per_month is above a trillion", span, "plan")
            .with_help("give the monthly budget in the scenario's currency"));
    }
    Ok(Plan {
        working_days_per_week: days,
        monthly_growth: growth,
        budget_per_month: p.budget_per_month,
    })
}

/// Most thresholds or keep steps a scenario may list.
pub const MAX_CONTEXT_POINTS: usize = 64;

/// `[context_management]`: a known variant (default: the first that
/// caches, else the first), a summary that fits well below every
/// threshold, and at most [`MAX_CONTEXT_POINTS`] settings of each kind.
fn check_context(
    src: &SourceText,
    c: Spanned<RawContext>,
    variants: &[PricedVariant],
    a: &Assumptions,
) -> Result<ContextCase, InputError> {
    let span = c.span();
    let c = c.into_inner();
    let here = |msg: String, help: String| {
        src.error_at(msg, span.clone(), "context_management")
            .with_help(help)
    };
    let names = || {
        variants
            .iter()
            .map(|v| format!("`{}`", v.variant.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let variant = match &c.variant {
        Some(name) => variants
            .iter()
            .position(|v| &v.variant.name == name)
            .ok_or_else(|| {
                here(
                    format!("context_management: no variant is named `{name}`"),
                    format!("name one of {}", names()),
                )
            })?,
        None => variants
            .iter()
            .position(|v| v.variant.cache != Cache::None)
            .unwrap_or(0),
    };
    if c.summary_tokens == 0 || c.summary_tokens > 10_000_000 {
        return Err(here(
            format!("context_management: summary_tokens = {}", c.summary_tokens),
            "give the tokens a compaction's summary takes, from 1 to 10,000,000 (Claude Code's summaries are a few thousand)".into(),
        ));
    }
    // The compacted prompt, upper bound: u·P + S, in whole tokens rounded up.
    let floor = (Decimal::from(a.prefix_tokens) * a.tokenizer_uplift).ceil()
        + Decimal::from(c.summary_tokens);
    let thresholds = c.thresholds.unwrap_or_default();
    if let Some(t) = thresholds.iter().find(|t| Decimal::from(**t) <= floor) {
        return Err(here(
            format!(
                "context_management: threshold {t} is not above the compacted prompt, {floor} tokens (prefix × uplift + summary_tokens)"
            ),
            "give thresholds above the prefix and the summary, or a smaller summary_tokens".into(),
        ));
    }
    let keep_steps = c.keep_steps.unwrap_or_default();
    if let Some(k) = keep_steps.iter().find(|k| **k > 10_000_000) {
        return Err(here(
            format!("context_management: keep_steps {k}"),
            "give the requests a result stays, from 0 to 10,000,000".into(),
        ));
    }
    for (what, n) in [
        ("thresholds", thresholds.len()),
        ("keep_steps", keep_steps.len()),
    ] {
        if n > MAX_CONTEXT_POINTS {
            return Err(here(
                format!("context_management: {n} {what}"),
                format!("list at most {MAX_CONTEXT_POINTS}"),
            ));
        }
    }
    let sorted = |mut v: Vec<u64>| {
        v.sort_unstable();
        v.dedup();
        v
    };
    Ok(ContextCase {
        variant,
        summary_tokens: c.summary_tokens,
        thresholds: sorted(thresholds),
        keep_steps: sorted(keep_steps),
    })
}

/// `date = "YYYY-MM-DD"`: the day whose prices apply.
fn check_date(src: &SourceText, d: Option<&Spanned<String>>) -> Result<Option<String>, InputError> {
    let Some(d) = d else { return Ok(None) };
    if is_date(d.get_ref()) {
        Ok(Some(d.get_ref().clone()))
    } else {
        Err(src
            .error_at(
                format!("date \"{}\" is not a date", d.get_ref()),
                d.span(),
                "not YYYY-MM-DD",
            )
            .with_help(
                "write the day whose prices apply as YYYY-MM-DD, e.g. date = \"2026-11-30\"",
            ))
    }
}

/// `[currency]`: an ISO 4217 code, a positive rate per USD and its date.
fn check_currency(src: &SourceText, c: Spanned<RawCurrency>) -> Result<Currency, InputError> {
    let span = c.span();
    let c = c.into_inner();
    let bad = |msg: String, help: &str| {
        Err(src
            .error_at(msg, span.clone(), "currency")
            .with_help(help.to_string()))
    };
    if c.code.len() != 3 || !c.code.bytes().all(|b| b.is_ascii_uppercase()) {
        return bad(
            format!("currency code \"{}\" is not three capital letters", c.code),
            "write an ISO 4217 code such as \"EUR\", \"GBP\" or \"JPY\"",
        );
    }
    let rate = c.per_usd.normalize();
    if rate > Decimal::from(1_000_000) || rate.scale() > 6 {
        return bad(
            format!("per_usd = {rate} is outside what tokencast accepts"),
            "give units of the currency per US dollar, above 0, at most 1,000,000, with at most 6 decimals (e.g. \"0.92\")",
        );
    }
    if !is_date(&c.rate_date) {
        return bad(
            format!("rate_date \"{}\" is not a date", c.rate_date),
            "write the day the rate was read as YYYY-MM-DD; tokencast never fetches live rates",
        );
    }
    if c.code == "USD" && rate != Decimal::ONE {
        return bad(
            format!("USD at {rate} per USD"),
            "US dollars convert at 1; leave [currency] out to report in USD",
        );
    }
    Ok(Currency {
        code: c.code,
        per_usd: rate,
        rate_date: c.rate_date,
    })
}

/// `[tool_fees]`: each capability of the trace named, each fee in the book.
fn check_tool_fees(
    src: &SourceText,
    book: &Book<'_>,
    trace: &[TraceCall],
    raw: std::collections::BTreeMap<String, Spanned<String>>,
) -> Result<Vec<ToolFee>, InputError> {
    let mut out: Vec<ToolFee> = Vec::new();
    for (capability, fee) in raw {
        let span = fee.span();
        let name = fee.into_inner();
        if !trace.iter().any(|c| c.capability == capability) {
            let mut caps: Vec<&str> = trace.iter().map(|c| c.capability.as_str()).collect();
            caps.sort_unstable();
            caps.dedup();
            return Err(src
                .error_at(
                    format!("tool_fees: capability `{capability}` is not in the trace"),
                    span,
                    "unknown capability",
                )
                .with_help(did_you_mean(&capability, caps, "The trace has")));
        }
        let Some(f) = book.book.fee(&name) else {
            return Err(src
                .error_at(
                    format!(
                        "tool_fees: fee `{name}` is not in the price book `{}`",
                        book.src.name
                    ),
                    span,
                    "unknown fee",
                )
                .with_help(format!(
                    "{}; a fee is a [fees.<name>] table with unit, price, source and read_on",
                    did_you_mean(&name, book.book.fee_names(), "The price book has")
                )));
        };
        match out.iter_mut().find(|t| t.fee.name == name) {
            Some(t) => t.capabilities.push(capability),
            None => out.push(ToolFee {
                fee: f.converted(book.rate),
                capabilities: vec![capability],
            }),
        }
    }
    Ok(out)
}

/// Reads the trace from its CSV file or the inline rows; it must have a result.
fn load_trace(
    src: &SourceText,
    files: &dyn Files,
    raw: Spanned<RawTrace>,
    inputs: &mut Vec<InputFile>,
    given: Option<&SourceText>,
) -> Result<Vec<TraceCall>, InputError> {
    let span = raw.span();
    let raw = raw.into_inner();
    let trace = match (raw.file, raw.calls) {
        (Some(_), None) if given.is_some() => {
            let trace_src = given.expect("checked");
            inputs.push(input_file(trace_src));
            trace::parse_csv(trace_src)?
        }
        (Some(file), None) => {
            let trace_src = files.read(file.get_ref(), "trace file").map_err(|e| {
                src.error_at(e.message().to_string(), file.span(), "trace file path")
                    .with_help(e.help_text().unwrap_or("check the path"))
            })?;
            inputs.push(input_file(&trace_src));
            trace::parse_csv(&trace_src)?
        }
        (None, Some(calls)) => trace::check_inline(src, calls)?,
        (Some(file), Some(_)) => {
            return Err(src
                .error_at(
                    "the trace has both `file` and inline `calls`",
                    file.span(),
                    "one of these",
                )
                .with_help("keep either `file = \"…csv\"` or the [[trace.calls]] rows, not both"))
        }
        (None, None) => {
            return Err(src
                .error_at("the trace has no calls", span, "empty trace")
                .with_help("set `file = \"traces/run.csv\"` or add [[trace.calls]] rows"))
        }
    };
    if !trace.iter().any(TraceCall::enters_context) {
        let what = if trace.is_empty() {
            "the trace is empty".to_string()
        } else {
            "no call in the trace returned a successful, non-replayed result".to_string()
        };
        return Err(src
            .error_at(what, span, "trace")
            .with_help("a trace needs at least one row with a 2xx status and replayed = false"));
    }
    Ok(trace)
}

/// Names each variant, refuses duplicates, and resolves its rates.
fn check_variants(
    src: &SourceText,
    book: &Book<'_>,
    prices: &ModelPrices,
    raw: Spanned<Vec<Spanned<RawVariant>>>,
    trace: &[TraceCall],
) -> Result<Vec<PricedVariant>, InputError> {
    let span = raw.span();
    let raw = raw.into_inner();
    if raw.is_empty() {
        return Err(src
            .error_at("no variants to compare", span, "empty list")
            .with_help("add [[variants]] tables with results, cache and mode"));
    }
    let mut variants: Vec<PricedVariant> = Vec::with_capacity(raw.len());
    for spanned in raw {
        let span = spanned.span();
        let rv = spanned.into_inner();
        let own = match &rv.model {
            Some(m) if m.get_ref() != &prices.model => Some(book.model(src, m, "variant model")?),
            _ => None,
        };
        let model = own.as_ref().unwrap_or(prices);
        let model_id = &model.model;
        let service = check_option(
            src,
            rv.service.as_ref(),
            model,
            "service tier",
            model.services.keys(),
        )?;
        let region = check_option(
            src,
            rv.region.as_ref(),
            model,
            "region",
            model.regions.keys(),
        )?;
        let name = rv.name.unwrap_or_else(|| {
            let mut n = Variant::default_name(rv.results, rv.cache, rv.mode);
            for extra in [&service, &region].into_iter().flatten() {
                n.push_str(&format!(", {extra}"));
            }
            if own.is_some() {
                n.push_str(&format!(", {model_id}"));
            }
            n
        });
        if variants.iter().any(|v| v.variant.name == name) {
            return Err(src
                .error_at(
                    format!("two variants are named `{name}`"),
                    span,
                    "duplicate",
                )
                .with_help("give each variant a different `name`"));
        }
        let variant = Variant {
            name: name.clone(),
            results: rv.results,
            cache: rv.cache,
            mode: rv.mode,
            service,
            region,
        };
        let recorded_models = rv.recorded_models;
        if let Some(h) = rv.cache_hit_share {
            if h > Decimal::ONE || h.normalize().scale() > 4 {
                return Err(src
                    .error_at(
                        format!("variant `{name}`: cache_hit_share = {h} is not a share of at most 1 with at most 4 decimals"),
                        span,
                        "cache_hit_share",
                    )
                    .with_help("write the share of the previous prompt read from the cache, e.g. 0.9"));
            }
        }
        let hit_share = rv.cache_hit_share;
        let mut priced = PricedVariant::new(variant, model).map_err(|MissingPrices(missing)| {
            src.error_at(
                format!(
                    "variant `{name}` needs {} for `{model_id}`, which the price book does not give",
                    missing.join(" and ")
                ),
                span.clone(),
                "needs unknown prices",
            )
            .with_help(format!(
                "add {} to [models.{model_id}] in `{}` (with its source), or choose another cache tier or mode",
                missing.join(", "),
                book.src.name
            ))
        })?;
        if recorded_models {
            priced.by_model = recorded_model_rates(src, book, &priced, trace, span.clone())?;
        }
        priced.cache_hit_share = hit_share.map(|h| h.normalize());
        variants.push(priced);
    }
    Ok(variants)
}

/// The rates of every model other than the variant's that the trace
/// records a request on, under the variant's cache tier and mode.
fn recorded_model_rates(
    src: &SourceText,
    book: &Book<'_>,
    pv: &PricedVariant,
    trace: &[TraceCall],
    span: std::ops::Range<usize>,
) -> Result<Vec<ModelRates>, InputError> {
    let models: std::collections::BTreeSet<&str> = trace
        .iter()
        .filter_map(|c| c.recorded.as_ref()?.model.as_deref())
        .filter(|m| *m != pv.model)
        .collect();
    let mut out = Vec::new();
    for m in models {
        let shown = crate::text::display(m);
        let prices = book.price_of(m).ok_or_else(|| {
            src.error_at(
                format!(
                    "variant `{}` prices each request on its recorded model, and the price book has no `{shown}`",
                    pv.variant.name
                ),
                span.clone(),
                "recorded_models = true",
            )
            .with_help(format!("add [models.\"{shown}\"] to the price book, or drop `recorded_models`"))
        })?;
        let rates = prices
            .rates_with(pv.variant.cache, pv.variant.mode, pv.variant.options())
            .map_err(|MissingPrices(missing)| {
                src.error_at(
                    format!(
                        "variant `{}` needs {} for the recorded model `{shown}`, which the price book does not give",
                        pv.variant.name,
                        missing.join(" and ")
                    ),
                    span.clone(),
                    "recorded_models = true",
                )
                .with_help("give those prices in the book, or choose another cache tier or mode")
            })?;
        out.push(ModelRates {
            model: m.to_string(),
            prices,
            rates,
        });
    }
    Ok(out)
}

fn check_timing(src: &SourceText, t: RawTiming) -> Result<Timing, InputError> {
    Ok(Timing {
        model_ms_per_step: to_ms(
            t.model_seconds_per_step,
            src,
            "timing.model_seconds_per_step",
        )?,
        pauses: t
            .pauses
            .into_iter()
            .map(|p| {
                Ok(Pause {
                    before_request: p.before_request,
                    ms: to_ms(p.seconds, src, "timing.pauses.seconds")?,
                })
            })
            .collect::<Result<_, InputError>>()?,
    })
}

fn check_retry(
    src: &SourceText,
    book: &Book<'_>,
    r: Spanned<RawRetry>,
) -> Result<RetryCase, InputError> {
    let span = r.span();
    let r = r.into_inner();
    let baseline = book.model(src, &r.baseline.model, "retry model")?;
    let candidate = book.model(src, &r.candidate.model, "retry model")?;
    let (Some(attempts), Some(accepted)) = (r.baseline.attempts, r.baseline.accepted) else {
        return Err(src
            .error_at(
                "the retry baseline needs `attempts` and `accepted`",
                span,
                "retry",
            )
            .with_help(
                "e.g. baseline = { model = \"claude-fable-5-1\", attempts = 20, accepted = 20 }",
            ));
    };
    if attempts > MAX_ATTEMPTS
        || r.input_tokens_per_attempt > limits::MAX_TOKENS
        || r.output_tokens_per_attempt > limits::MAX_TOKENS
    {
        return Err(src
            .error_at(
                format!(
                    "retry: {attempts} attempts of {} input and {} output tokens is beyond what tokencast accepts",
                    r.input_tokens_per_attempt, r.output_tokens_per_attempt
                ),
                span,
                "retry",
            )
            .with_help(format!(
                "at most {MAX_ATTEMPTS} attempts and {} tokens per attempt",
                limits::MAX_TOKENS
            )));
    }
    if accepted == 0 || attempts < accepted {
        return Err(src
            .error_at(
                format!("retry baseline: {accepted} accepted answers from {attempts} attempts"),
                span,
                "retry",
            )
            .with_help("accepted must be at least 1 and at most attempts"));
    }
    Ok(RetryCase {
        input_tokens_per_attempt: r.input_tokens_per_attempt,
        output_tokens_per_attempt: r.output_tokens_per_attempt,
        baseline,
        baseline_attempts: attempts,
        accepted,
        candidate,
    })
}

fn check_lifetime(src: &SourceText, l: RawLifetime) -> Result<LifetimeCase, InputError> {
    let span = l.sweep_model_seconds.span();
    let r = l.sweep_model_seconds.into_inner();
    check_range(src, span, r.from, r.to, r.step)?;
    Ok(LifetimeCase {
        model_ms_per_step: to_ms(
            l.model_seconds_per_step,
            src,
            "cache_lifetime.model_seconds_per_step",
        )?,
        sweep_seconds: (r.from, r.to, r.step),
    })
}

/// Effort presets sorted by tokens, then name.
fn effort_presets(raw: Option<RawEffort>) -> Vec<(String, u64)> {
    let mut presets: Vec<(String, u64)> = raw
        .map(|e| e.presets.into_iter().collect())
        .unwrap_or_default();
    presets.sort_by_key(|(name, tokens)| (*tokens, name.clone()));
    presets
}

/// Keeps every exact sum of the replay within `rust_decimal`'s 96 bits.
fn check_assumptions(src: &SourceText, a: RawAssumptions) -> Result<Assumptions, InputError> {
    // Located at the key's line when it can be found.
    let problem = |p: String, help: &str| {
        let key = p.split([' ', '=']).next().unwrap_or("").to_string();
        match src.key_span(&key) {
            Some(span) => src
                .error_at(
                    format!("{}: assumptions.{p}", src.name),
                    span,
                    "out of range",
                )
                .with_help(help),
            None => InputError::new(format!("{}: assumptions.{p}", src.name)).with_help(help),
        }
    };
    for (field, v) in [
        ("prefix_tokens", a.prefix_tokens),
        ("output_tokens_per_step", a.output_tokens_per_step),
        ("final_output_tokens", a.final_output_tokens),
        ("step_overhead_tokens", a.step_overhead_tokens),
    ] {
        limits::tokens(field, v)
            .map_err(|p| problem(p, "token counts per request are at most in the millions"))?;
    }
    limits::runs_per_day(a.runs_per_day)
        .map_err(|p| problem(p, "a projection needs at most a billion runs a day"))?;
    for (field, v) in [
        ("bytes_per_token", a.bytes_per_token),
        ("tokenizer_uplift", a.tokenizer_uplift),
        (
            "estimate_bytes_per_token",
            a.estimate_bytes_per_token.unwrap_or(Decimal::ONE),
        ),
    ] {
        limits::factor(field, v).map_err(|p| {
            problem(
                p,
                "use at most six decimals and a value of at most 1000, e.g. 4 or 1.3",
            )
        })?;
    }
    Ok(Assumptions {
        prefix_tokens: a.prefix_tokens,
        output_tokens_per_step: a.output_tokens_per_step,
        final_output_tokens: a.final_output_tokens,
        bytes_per_token: a.bytes_per_token,
        tokenizer_uplift: a.tokenizer_uplift,
        runs_per_day: a.runs_per_day,
        prefix_measured: a.prefix_measured,
        prefix_cached_tokens: a.prefix_cached_tokens.min(a.prefix_tokens),
        step_overhead_tokens: a.step_overhead_tokens,
        estimate_bytes_per_token: a.estimate_bytes_per_token,
    })
}

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

pub use limits::MAX_TOKENS;

/// Most attempts the retry what-if accepts.
pub const MAX_ATTEMPTS: u64 = 1_000_000_000;

/// Most points a sweep range may have.
pub const MAX_RANGE_POINTS: u64 = 10_000;

fn check_range(
    src: &SourceText,
    span: std::ops::Range<usize>,
    from: u64,
    to: u64,
    step: u64,
) -> Result<(), InputError> {
    let problem = if step == 0 {
        Some("the step is zero".to_string())
    } else if to < from {
        Some(format!("the range is reversed: from {from} to {to}"))
    } else if (to - from) / step + 1 > MAX_RANGE_POINTS {
        Some(format!(
            "the range has {} points, more than {MAX_RANGE_POINTS}",
            (to - from) / step + 1
        ))
    } else {
        None
    };
    match problem {
        Some(p) => Err(src
            .error_at(format!("invalid sweep range: {p}"), span, "range")
            .with_help(
                "write { from = 0, to = 300, step = 20 } with from ≤ to and a step above zero",
            )),
        None => Ok(()),
    }
}

/// Seconds as whole milliseconds; finer precision is an error, not a silent rounding.
fn to_ms(seconds: Decimal, src: &SourceText, field: &str) -> Result<u64, InputError> {
    let ms = seconds
        .checked_mul(Decimal::from(1000))
        .filter(|ms| ms.fract().is_zero() && *ms <= Decimal::from(u32::MAX));
    ms.and_then(crate::input::whole).ok_or_else(|| {
        InputError::new(format!(
            "{}: `{field}` = {seconds} is not a whole number of milliseconds up to {} s",
            src.name,
            u32::MAX / 1000
        ))
        .with_help("give seconds with at most three decimals, e.g. 2.5")
    })
}

/// A file's name (without folders) and its SHA-256.
pub fn input_file(src: &SourceText) -> InputFile {
    let name = Path::new(&src.name)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| src.name.clone());
    InputFile {
        name,
        sha256: hex(&Sha256::digest(src.text.as_bytes())),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
