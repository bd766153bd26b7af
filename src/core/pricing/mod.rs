//! The price book: what each model charges, kept as data with its source.
//!
//! A price book is a TOML file of `[models.<id>]` tables (see [`book`] for
//! the format and its checks). Every price is an exact decimal in USD per
//! million tokens, written as a string. A price the source does not give is
//! left out and stays unknown; asking for a variant that needs it is an
//! error, never a silent zero.
//!
//! This module resolves one model's prices into the [`Rates`] a variant pays:
//! the cache tier, batch or sync, a service tier (flex, priority, fast mode),
//! a regional uplift, and the long-context tiers, each of which reprices
//! every token class of a request.

// Sizes, token counts and money are converted only where the conversion is
// checked (`try_from`, `to_u64`) or proven in range; CI denies silent casts.
#![deny(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss
)]

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub mod book;
pub mod cloud;
pub mod currency;
pub mod fees;
pub mod litellm;
pub mod tier;
pub mod tokenizer;
pub use book::PriceBook;
pub use currency::Currency;
pub use fees::{Fee, FeeUnit};
pub use tier::{Cache, Mode};
mod model;

/// The service tier of a request the provider ran in batch (Anthropic's
/// `usage.service_tier: "batch"`, a line of a Batches API's results): it
/// pays the model's batch prices ([`ModelPrices::under`]).
pub const BATCH_SERVICE: &str = "batch";

/// One million: prices are quoted per million tokens.
pub const PER_MILLION: Decimal = Decimal::from_parts(1_000_000, 0, 0, false, 0);

pub use crate::limits::MAX_LONG_TIERS;

/// A long-context tier: a request whose whole prompt (uncached input, cache
/// reads and cache writes) is above `threshold_tokens` is billed entirely at
/// these rates, output included. A cache price the tier does not give keeps
/// the model's ratio to the input price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LongContext {
    /// Prompt tokens above which the tier applies (strictly above).
    pub threshold_tokens: u64,
    /// Uncached input price in the tier.
    pub input: Decimal,
    /// Output price in the tier.
    pub output: Decimal,
    /// Cache write, 5-minute lifetime, in the tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_5m: Option<Decimal>,
    /// Cache write, 1-hour lifetime, in the tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_1h: Option<Decimal>,
    /// Cache read in the tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<Decimal>,
}

/// A service tier: its own prices (flex, priority) or a multiplier on every
/// price (fast mode).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Service {
    /// Every token price times this.
    Multiplier(Decimal),
    /// The tier's own prices; cache prices it does not give keep the model's
    /// ratio to the input price.
    Prices(ServicePrices),
}

/// A service tier's own prices, USD per million tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServicePrices {
    /// Uncached input.
    pub input: Decimal,
    /// Output.
    pub output: Decimal,
    /// Cache write, 5-minute lifetime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_5m: Option<Decimal>,
    /// Cache write, 1-hour lifetime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_1h: Option<Decimal>,
    /// Cache read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<Decimal>,
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
    /// The first day these prices apply (YYYY-MM-DD); `None`: since ever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_from: Option<jiff::civil::Date>,
    /// Uncached input.
    pub input: Decimal,
    /// Output (thinking included).
    pub output: Decimal,
    /// Cache write, 5-minute lifetime (equal to `input` where the provider
    /// charges no write premium).
    pub cache_write_5m: Option<Decimal>,
    /// Cache write, 1-hour lifetime.
    pub cache_write_1h: Option<Decimal>,
    /// Cache read.
    pub cache_read: Option<Decimal>,
    /// Batch input.
    pub batch_input: Option<Decimal>,
    /// Batch output.
    pub batch_output: Option<Decimal>,
    /// Batch cache write, 5-minute lifetime, where the source gives it
    /// (otherwise the standard ratio to input applies to `batch_input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_cache_write_5m: Option<Decimal>,
    /// Batch cache write, 1-hour lifetime, where the source gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_cache_write_1h: Option<Decimal>,
    /// Batch cache read, where the source gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_cache_read: Option<Decimal>,
    /// Prompts shorter than this are not cached at all.
    pub min_cacheable_tokens: Option<u64>,
    /// How long the provider's automatic cache keeps a prefix nobody reads,
    /// where that is not the 5-minute tier's five minutes (OpenAI documents
    /// 5 to 10 minutes of inactivity); the 1-hour tier is never changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_lifetime_minutes: Option<u64>,
    /// Long-context tiers, by rising threshold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub long_context: Vec<LongContext>,
    /// The context window, tokens, if the source gives it.
    pub context_window_tokens: Option<u64>,
    /// Whether the provider's reported input count includes cached tokens
    /// (OpenAI and Google do, Anthropic does not); used when reading logs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub input_includes_cache: bool,
    /// Explicit caches: storage, USD per million tokens per hour, billed on
    /// top of reads for as long as the cache is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_storage_per_hour: Option<Decimal>,
    /// Service tiers by name (`flex`, `priority`, `fast`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, Service>,
    /// Regional processing uplifts by name: a multiplier on every price.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub regions: BTreeMap<String, Decimal>,
}

/// What a variant buys besides the cache tier and the mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options<'a> {
    /// A service tier of the model, by name.
    pub service: Option<&'a str>,
    /// A regional uplift of the model, by name.
    pub region: Option<&'a str>,
}

/// A model id without a trailing snapshot date (`-YYYYMMDD`):
/// `claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`; any other id as it is.
pub fn undated(id: &str) -> &str {
    let b = id.as_bytes();
    let n = b.len();
    if n > 9 && b[n - 9] == b'-' && b[n - 8..].iter().all(u8::is_ascii_digit) {
        &id[..n - 9]
    } else {
        id
    }
}

/// A request's model as a trace or a log names it: the book's id, and the
/// service tier and region the request ran under, written
/// `<id> (service <tier>, region <region>)` (either part alone when the other
/// is the standard one, e.g. `claude-opus-4-8 (service fast)`). A change of
/// either is a change of model for the cache, as at the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PricedModel<'a> {
    /// The book's id.
    pub id: &'a str,
    /// The tier and region, both `None` for a plain id.
    pub options: Options<'a>,
}

impl<'a> PricedModel<'a> {
    /// Reads `name`; a name without a well-formed suffix is a plain id.
    pub fn parse(name: &'a str) -> PricedModel<'a> {
        let plain = PricedModel {
            id: name,
            options: Options::default(),
        };
        let Some((id, rest)) = name.strip_suffix(')').and_then(|n| n.rsplit_once(" (")) else {
            return plain;
        };
        let mut options = Options::default();
        for part in rest.split(", ") {
            match part.split_once(' ') {
                Some(("service", t)) if options.service.is_none() && Self::is_option(t) => {
                    options.service = Some(t);
                }
                Some(("region", r)) if options.region.is_none() && Self::is_option(r) => {
                    options.region = Some(r);
                }
                _ => return plain,
            }
        }
        PricedModel { id, options }
    }

    /// Whether `name` can name a tier or region: 1 to 32 ASCII letters,
    /// digits, `-` and `_`.
    pub fn is_option(name: &str) -> bool {
        (1..=32).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    }

    /// The name of `id` under `service` and `region`.
    pub fn name(id: &str, service: Option<&str>, region: Option<&str>) -> String {
        let parts: Vec<String> = [("service", service), ("region", region)]
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| format!("{k} {v}")))
            .collect();
        if parts.is_empty() {
            id.to_string()
        } else {
            format!("{id} ({})", parts.join(", "))
        }
    }
}

/// The rates one variant pays, resolved from a model's prices (USD per million tokens).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// How long a cache entry lives unread, in milliseconds, when the model's
    /// provider keeps it longer than the tier says (see
    /// [`ModelPrices::cache_lifetime_minutes`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_lifetime_ms: Option<u64>,
    /// Rates above each long-context threshold, by rising threshold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub long_context: Vec<LongContextRates>,
    /// Explicit-cache storage, USD per million tokens per hour, when the
    /// variant caches and the model bills storage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_storage_per_hour: Option<Decimal>,
}

/// A variant's rates above one long-context threshold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LongContextRates {
    /// Prompt tokens above which these rates apply.
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

/// One price class of a request, at one tier: what [`Rates::at`] returns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassRates {
    /// Uncached input.
    pub input: Decimal,
    /// Cache write.
    pub cache_write: Decimal,
    /// Cache read.
    pub cache_read: Decimal,
    /// Output.
    pub output: Decimal,
}

impl Rates {
    /// Whether a variant of cache tier `cache` at these rates caches: it
    /// asks for a tier and its model has a cache write price.
    pub fn caches(&self, cache: Cache) -> bool {
        cache != Cache::None && self.cache_write.is_some()
    }

    /// How long a cache entry written at tier `cache` lives unread, in
    /// milliseconds: the model's own lifetime where its book gives one,
    /// otherwise the tier's.
    pub fn lifetime_ms(&self, cache: Cache) -> Option<u64> {
        match cache {
            Cache::FiveMinutes => self.cache_lifetime_ms.or(cache.lifetime_ms()),
            Cache::None | Cache::OneHour => cache.lifetime_ms(),
        }
    }

    /// The rates of tier `t`: 0 is the base, `t` the t-th long-context tier.
    pub fn at(&self, t: usize) -> ClassRates {
        match t.checked_sub(1).and_then(|i| self.long_context.get(i)) {
            Some(l) => ClassRates {
                input: l.input,
                cache_write: l.cache_write.unwrap_or_default(),
                cache_read: l.cache_read.unwrap_or_default(),
                output: l.output,
            },
            None => ClassRates {
                input: self.input,
                cache_write: self.cache_write.unwrap_or_default(),
                cache_read: self.cache_read.unwrap_or_default(),
                output: self.output,
            },
        }
    }

    /// The tier a prompt of `tokens` falls in: how many thresholds it is above.
    pub fn tier_of(&self, tokens: Decimal) -> usize {
        self.long_context
            .iter()
            .filter(|l| tokens > Decimal::from(l.threshold_tokens))
            .count()
    }

    /// Every rate, for bounds checks.
    pub fn all(&self) -> impl Iterator<Item = Decimal> + '_ {
        (0..=self.long_context.len())
            .flat_map(|t| {
                let c = self.at(t);
                [c.input, c.cache_write, c.cache_read, c.output]
            })
            .chain(self.cache_storage_per_hour)
    }
}

/// Prices of the four token classes of a request.
#[derive(Debug, Clone, Copy)]
struct Classes {
    input: Decimal,
    write: Decimal,
    read: Decimal,
    output: Decimal,
}

/// Token usage of one request, in tokencast's classes (uncached input
/// excludes cached tokens; output includes thinking).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Uncached input tokens.
    pub input: u64,
    /// Tokens written to the 5-minute cache.
    pub cache_write_5m: u64,
    /// Tokens written to the 1-hour cache.
    pub cache_write_1h: u64,
    /// Tokens read from the cache.
    pub cache_read: u64,
    /// Output tokens.
    pub output: u64,
}

impl Usage {
    /// The whole prompt: uncached input, cache writes and reads.
    pub fn prompt(&self) -> u64 {
        self.input
            .saturating_add(self.cache_write_5m)
            .saturating_add(self.cache_write_1h)
            .saturating_add(self.cache_read)
    }

    /// Every class, summed.
    pub fn total(&self) -> u64 {
        self.prompt().saturating_add(self.output)
    }

    /// Every class capped at `max` tokens, and whether any was above it
    /// (a log's count past any real request, capped for that line only).
    pub fn capped(&self, max: u64) -> (Usage, bool) {
        let c = Usage {
            input: self.input.min(max),
            cache_write_5m: self.cache_write_5m.min(max),
            cache_write_1h: self.cache_write_1h.min(max),
            cache_read: self.cache_read.min(max),
            output: self.output.min(max),
        };
        let over = c != *self;
        (c, over)
    }

    /// Class-wise sum (saturating: counts come from logs, which may be wrong).
    pub fn plus(&self, o: &Usage) -> Usage {
        Usage {
            input: self.input.saturating_add(o.input),
            cache_write_5m: self.cache_write_5m.saturating_add(o.cache_write_5m),
            cache_write_1h: self.cache_write_1h.saturating_add(o.cache_write_1h),
            cache_read: self.cache_read.saturating_add(o.cache_read),
            output: self.output.saturating_add(o.output),
        }
    }
}

/// A variant asked for prices its model's source does not give.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingPrices(pub Vec<String>);

#[cfg(test)]
mod tests;
