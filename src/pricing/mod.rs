//! The price book: what each model charges, kept as data with its source.
//!
//! A price book is a TOML file of `[models.<id>]` tables. Every price is an
//! exact decimal in USD per million tokens, written as a string. A price the
//! source does not give is left out and stays unknown; asking for a variant
//! that needs it is an error, never a silent zero.

use crate::input::{optional_price, price, SourceText};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub mod litellm;
pub mod tier;
pub use tier::{Cache, Mode};

/// One million: prices are quoted per million tokens.
pub const PER_MILLION: Decimal = Decimal::from_parts(1_000_000, 0, 0, false, 0);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPriceBook {
    models: BTreeMap<String, toml::Spanned<RawModelPrices>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModelPrices {
    source: String,
    read_on: String,
    #[serde(deserialize_with = "price")]
    input: Decimal,
    #[serde(deserialize_with = "price")]
    output: Decimal,
    #[serde(default, deserialize_with = "optional_price")]
    cache_write_5m: Option<Decimal>,
    #[serde(default, deserialize_with = "optional_price")]
    cache_write_1h: Option<Decimal>,
    #[serde(default, deserialize_with = "optional_price")]
    cache_read: Option<Decimal>,
    #[serde(default, deserialize_with = "optional_price")]
    batch_input: Option<Decimal>,
    #[serde(default, deserialize_with = "optional_price")]
    batch_output: Option<Decimal>,
    #[serde(default)]
    min_cacheable_tokens: Option<u64>,
    #[serde(default)]
    long_context: Option<RawLongContext>,
    #[serde(default)]
    context_window_tokens: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLongContext {
    threshold_tokens: u64,
    #[serde(deserialize_with = "price")]
    input: Decimal,
    #[serde(deserialize_with = "price")]
    output: Decimal,
}

/// A long-context tier: a request whose input is above `threshold_tokens` is
/// billed entirely at these rates (cache prices keep the model's multipliers).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LongContext {
    /// Input tokens above which the tier applies (strictly above).
    pub threshold_tokens: u64,
    /// Uncached input price in the tier.
    pub input: Decimal,
    /// Output price in the tier.
    pub output: Decimal,
}

/// A model's prices in USD per million tokens; `None` where the source gives none.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ModelPrices {
    /// The model id, e.g. `claude-fable-5-2`.
    pub model: String,
    /// Where the prices were read.
    pub source: String,
    /// When they were read (as written in the book).
    pub read_on: String,
    /// Uncached input.
    pub input: Decimal,
    /// Output (thinking included).
    pub output: Decimal,
    /// Cache write, 5-minute lifetime.
    pub cache_write_5m: Option<Decimal>,
    /// Cache write, 1-hour lifetime.
    pub cache_write_1h: Option<Decimal>,
    /// Cache read.
    pub cache_read: Option<Decimal>,
    /// Batch input.
    pub batch_input: Option<Decimal>,
    /// Batch output.
    pub batch_output: Option<Decimal>,
    /// Prompts shorter than this are not cached at all.
    pub min_cacheable_tokens: Option<u64>,
    /// The long-context tier, if the model has one.
    pub long_context: Option<LongContext>,
    /// The context window, tokens, if the source gives it.
    pub context_window_tokens: Option<u64>,
}

/// The rates one variant pays, resolved from a model's prices (USD per million tokens).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    /// Uncached input.
    pub input: Decimal,
    /// Output.
    pub output: Decimal,
    /// Cache write, when the variant caches.
    pub cache_write: Option<Decimal>,
    /// Cache read, when the variant caches.
    pub cache_read: Option<Decimal>,
    /// Prompts shorter than this are not cached.
    pub min_cacheable_tokens: Option<u64>,
    /// Rates above the long-context threshold.
    pub long_context: Option<LongContextRates>,
}

/// A variant's rates above the long-context threshold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LongContextRates {
    /// Input tokens above which these rates apply.
    pub threshold_tokens: u64,
    /// Uncached input.
    pub input: Decimal,
    /// Output.
    pub output: Decimal,
    /// Cache write, when the variant caches.
    pub cache_write: Option<Decimal>,
    /// Cache read, when the variant caches.
    pub cache_read: Option<Decimal>,
}

/// A variant asked for prices its model's source does not give.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingPrices(pub Vec<&'static str>);

impl ModelPrices {
    /// The rates for a cache tier and a sync/batch mode.
    ///
    /// In batch mode the cache multipliers (write ÷ input, read ÷ input) apply
    /// to the batch input price.
    pub fn rates(&self, cache: Cache, mode: Mode) -> Result<Rates, MissingPrices> {
        let mut missing = Vec::new();
        let mut need = |v: Option<Decimal>, name: &'static str| {
            if v.is_none() {
                missing.push(name);
            }
            v.unwrap_or_default()
        };
        let (input, output) = match mode {
            Mode::Sync => (self.input, self.output),
            Mode::Batch => (
                need(self.batch_input, "batch_input"),
                need(self.batch_output, "batch_output"),
            ),
        };
        let cache_prices = match cache {
            Cache::None => None,
            Cache::FiveMinutes => Some((
                need(self.cache_write_5m, "cache_write_5m"),
                need(self.cache_read, "cache_read"),
            )),
            Cache::OneHour => Some((
                need(self.cache_write_1h, "cache_write_1h"),
                need(self.cache_read, "cache_read"),
            )),
        };
        if !missing.is_empty() {
            return Err(MissingPrices(missing));
        }
        // A price relative to the sync input price, applied to another base.
        let relative = |base: Decimal, p: Decimal| {
            if self.input.is_zero() {
                p
            } else {
                base * p / self.input
            }
        };
        let long_context = self.long_context.map(|lc| {
            let (lc_input, lc_output) = match mode {
                Mode::Sync => (lc.input, lc.output),
                Mode::Batch => (
                    relative(lc.input, input),
                    if self.output.is_zero() {
                        lc.output
                    } else {
                        lc.output * output / self.output
                    },
                ),
            };
            LongContextRates {
                threshold_tokens: lc.threshold_tokens,
                input: lc_input,
                output: lc_output,
                cache_write: cache_prices.map(|(w, _)| relative(lc_input, w)),
                cache_read: cache_prices.map(|(_, r)| relative(lc_input, r)),
            }
        });
        Ok(Rates {
            input,
            output,
            cache_write: cache_prices.map(|(w, _)| relative(input, w)),
            cache_read: cache_prices.map(|(_, r)| relative(input, r)),
            min_cacheable_tokens: self.min_cacheable_tokens,
            long_context,
        })
    }
}

/// All models of one price book, by id.
#[derive(Debug, Clone)]
pub struct PriceBook {
    models: BTreeMap<String, ModelPrices>,
}

impl PriceBook {
    /// Parses a price book file.
    pub fn parse(src: &SourceText) -> Result<PriceBook, crate::error::InputError> {
        let raw: RawPriceBook = src.parse_toml("price book")?;
        let mut models = BTreeMap::new();
        for (id, spanned) in raw.models {
            let span = spanned.span();
            let r = spanned.into_inner();
            if let Some(lc) = &r.long_context {
                for (what, tier, base) in [
                    ("input", lc.input, r.input),
                    ("output", lc.output, r.output),
                ] {
                    if tier < base {
                        return Err(src
                            .error_at(
                                format!(
                                    "model `{id}`: the long-context {what} price {tier} is below the base {what} price {base}"
                                ),
                                span,
                                "long-context tier",
                            )
                            .with_help("a long-context tier charges more than the base rate; check the source"));
                    }
                }
            }
            models.insert(
                id.clone(),
                ModelPrices {
                    model: id,
                    source: r.source,
                    read_on: r.read_on,
                    input: r.input,
                    output: r.output,
                    cache_write_5m: r.cache_write_5m,
                    cache_write_1h: r.cache_write_1h,
                    cache_read: r.cache_read,
                    batch_input: r.batch_input,
                    batch_output: r.batch_output,
                    min_cacheable_tokens: r.min_cacheable_tokens,
                    long_context: r.long_context.map(|lc| LongContext {
                        threshold_tokens: lc.threshold_tokens,
                        input: lc.input,
                        output: lc.output,
                    }),
                    context_window_tokens: r.context_window_tokens,
                },
            );
        }
        Ok(PriceBook { models })
    }

    /// The prices of `model`, if the book has it.
    pub fn get(&self, model: &str) -> Option<&ModelPrices> {
        self.models.get(model)
    }

    /// The model ids in the book, sorted.
    pub fn model_ids(&self) -> impl Iterator<Item = &str> {
        self.models.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fable_5_2() -> ModelPrices {
        ModelPrices {
            model: "claude-fable-5-2".into(),
            source: "test".into(),
            read_on: "2026-11-14".into(),
            input: Decimal::from(8),
            output: Decimal::from(40),
            cache_write_5m: Some(Decimal::from(10)),
            cache_write_1h: Some(Decimal::from(16)),
            cache_read: Some(Decimal::new(20, 2)),
            batch_input: Some(Decimal::from(4)),
            batch_output: Some(Decimal::from(20)),
            min_cacheable_tokens: None,
            long_context: None,
            context_window_tokens: None,
        }
    }

    #[test]
    fn batch_applies_cache_multipliers_to_batch_input() {
        let r = fable_5_2().rates(Cache::FiveMinutes, Mode::Batch).unwrap();
        // 1.25 × $4 and 0.025 × $4
        assert_eq!(r.cache_write, Some(Decimal::from(5)));
        assert_eq!(r.cache_read, Some(Decimal::new(10, 2)));
        assert_eq!(r.input, Decimal::from(4));
        assert_eq!(r.output, Decimal::from(20));
    }

    #[test]
    fn one_hour_tier_uses_its_write_price() {
        let r = fable_5_2().rates(Cache::OneHour, Mode::Sync).unwrap();
        assert_eq!(r.cache_write, Some(Decimal::from(16)));
    }

    #[test]
    fn unknown_price_is_reported_not_zeroed() {
        let mut m = fable_5_2();
        m.cache_read = None;
        m.batch_output = None;
        let e = m.rates(Cache::FiveMinutes, Mode::Batch).unwrap_err();
        assert_eq!(e.0, vec!["batch_output", "cache_read"]);
    }
}
