//! The scenario file as written: raw TOML tables, deserialized with
//! `deny_unknown_fields` and exact decimals, before any check. Only
//! [`super::check`] reads them.

use super::*;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScenario {
    pub(super) name: String,
    pub(super) question: String,
    pub(super) model: Spanned<String>,
    pub(super) prices: Spanned<String>,
    pub(super) trace: Spanned<RawTrace>,
    pub(super) assumptions: RawAssumptions,
    #[serde(default)]
    pub(super) timing: Option<RawTiming>,
    pub(super) variants: Spanned<Vec<Spanned<RawVariant>>>,
    #[serde(default)]
    pub(super) retry: Option<Spanned<RawRetry>>,
    #[serde(default)]
    pub(super) cache_lifetime: Option<RawLifetime>,
    #[serde(default)]
    pub(super) effort: Option<RawEffort>,
    #[serde(default)]
    pub(super) restart: Option<RawRestart>,
    #[serde(default)]
    pub(super) date: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) currency: Option<Spanned<RawCurrency>>,
    #[serde(default)]
    pub(super) tool_fees: std::collections::BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    pub(super) plan: Option<Spanned<RawPlan>>,
    #[serde(default)]
    pub(super) context_management: Option<Spanned<RawContext>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawContext {
    #[serde(default)]
    pub(super) variant: Option<String>,
    pub(super) summary_tokens: u64,
    #[serde(default)]
    pub(super) thresholds: Option<Vec<u64>>,
    #[serde(default)]
    pub(super) keep_steps: Option<Vec<u64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPlan {
    #[serde(default)]
    pub(super) working_days_per_week: Option<u64>,
    #[serde(
        default,
        deserialize_with = "crate::input::optional_non_negative_decimal"
    )]
    pub(super) monthly_growth: Option<Decimal>,
    #[serde(
        default,
        deserialize_with = "crate::input::optional_non_negative_decimal"
    )]
    pub(super) budget_per_month: Option<Decimal>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCurrency {
    pub(super) code: String,
    #[serde(deserialize_with = "positive_decimal")]
    pub(super) per_usd: Decimal,
    pub(super) rate_date: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRetry {
    pub(super) input_tokens_per_attempt: u64,
    pub(super) output_tokens_per_attempt: u64,
    pub(super) baseline: RawRetryModel,
    pub(super) candidate: RawRetryModel,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRetryModel {
    pub(super) model: Spanned<String>,
    #[serde(default)]
    pub(super) attempts: Option<u64>,
    #[serde(default)]
    pub(super) accepted: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLifetime {
    #[serde(deserialize_with = "crate::input::non_negative_decimal")]
    pub(super) model_seconds_per_step: Decimal,
    pub(super) sweep_model_seconds: Spanned<RawRange>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRange {
    pub(super) from: u64,
    pub(super) to: u64,
    pub(super) step: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEffort {
    pub(super) presets: std::collections::BTreeMap<String, u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRestart {
    pub(super) idempotency_keys: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTiming {
    #[serde(deserialize_with = "crate::input::non_negative_decimal")]
    pub(super) model_seconds_per_step: Decimal,
    #[serde(default)]
    pub(super) pauses: Vec<RawPause>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPause {
    pub(super) before_request: u64,
    #[serde(deserialize_with = "crate::input::non_negative_decimal")]
    pub(super) seconds: Decimal,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTrace {
    #[serde(default)]
    pub(super) file: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) calls: Option<Vec<Spanned<trace::RawCall>>>,
    /// A run described by distributions instead of rows.
    #[serde(default)]
    pub(super) generate: Option<Spanned<super::generate::Plan>>,
}

/// A trim rule as a scenario writes it: a number of bytes, or text.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum RawTrim {
    Bytes(i64),
    Fraction(f64),
    Text(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAssumptions {
    pub(super) prefix_tokens: u64,
    pub(super) output_tokens_per_step: u64,
    pub(super) final_output_tokens: u64,
    /// Required unless `calibration` gives it.
    #[serde(default, deserialize_with = "optional_positive_decimal")]
    pub(super) bytes_per_token: Option<Decimal>,
    /// Required unless `calibration` gives it.
    #[serde(default, deserialize_with = "optional_positive_decimal")]
    pub(super) tokenizer_uplift: Option<Decimal>,
    /// A saved calibration whose fit for the scenario's model family sets
    /// the band, the estimate and the framing a step.
    #[serde(default)]
    pub(super) calibration: Option<Spanned<String>>,
    /// A trim rule for the trimmed variants (`4096` bytes kept per result,
    /// `"25%"` kept), in place of the trace's `trimmed_bytes`.
    #[serde(default)]
    pub(super) trim: Option<Spanned<RawTrim>>,
    pub(super) runs_per_day: u64,
    /// People who each start `runs_per_day` runs a day (default 1).
    #[serde(default)]
    pub(super) team_size: Option<u64>,
    #[serde(default)]
    pub(super) prefix_measured: bool,
    #[serde(default)]
    pub(super) prefix_cached_tokens: u64,
    #[serde(default)]
    pub(super) step_overhead_tokens: Option<u64>,
    #[serde(default, deserialize_with = "optional_positive_decimal")]
    pub(super) estimate_bytes_per_token: Option<Decimal>,
    /// Bytes of the band a byte of each content kind counts as.
    #[serde(default)]
    pub(super) content_weights: Option<Spanned<super::content::ContentWeights>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawVariant {
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) model: Option<Spanned<String>>,
    pub(super) results: Content,
    pub(super) cache: Cache,
    #[serde(default)]
    pub(super) mode: Mode,
    #[serde(default)]
    pub(super) service: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) region: Option<Spanned<String>>,
    /// Price each request on the model the trace records for it.
    #[serde(default)]
    pub(super) recorded_models: bool,
    /// Share of the previous prompt a request reads from the cache.
    #[serde(default, deserialize_with = "optional_positive_decimal")]
    pub(super) cache_hit_share: Option<Decimal>,
    /// The share the upper bound reads (the fitted share's p10).
    #[serde(
        default,
        deserialize_with = "crate::input::optional_non_negative_decimal"
    )]
    pub(super) cache_hit_share_p10: Option<Decimal>,
    /// Share of new turns after dropped reasoning that rewrite the cache
    /// from the prefix.
    #[serde(default, deserialize_with = "optional_positive_decimal")]
    pub(super) turn_break_share: Option<Decimal>,
    /// Share of cache expiries after which the warm prefix is still read.
    #[serde(
        default,
        deserialize_with = "crate::input::optional_non_negative_decimal"
    )]
    pub(super) warm_prefix_share: Option<Decimal>,
    /// Share of cache expiries after which the whole previous prompt is
    /// still read.
    #[serde(
        default,
        deserialize_with = "crate::input::optional_non_negative_decimal"
    )]
    pub(super) survived_expiry_share: Option<Decimal>,
}

pub(super) fn optional_positive_decimal<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Decimal>, D::Error> {
    positive_decimal(d).map(Some)
}
