//! Reading a price book file into checked [`ModelPrices`] and [`Fee`]s.
//!
//! ```toml
//! [models.gpt-x]                 # one entry, in force since ever
//! source = "…"; read_on = "2026-11-14"
//! input = "1.25"; output = "10"; cache_read = "0.125"
//! cache_write_5m = "1.25"        # no write premium: equal to input
//! input_includes_cache = true    # the provider counts cached tokens as input
//!
//! [[models.gpt-x.long_context]]  # one or more tiers, by rising threshold
//! threshold_tokens = 272000
//! input = "2.5"; output = "15"
//!
//! [models.gpt-x.services.flex]   # a service tier with its own prices …
//! input = "0.625"; output = "5"
//! [models.gpt-x.services.fast]   # … or a multiplier on every price
//! multiplier = "6"
//! [models.gpt-x.regions]
//! us-only = "1.1"                # regional processing uplift
//!
//! [[models.gpt-y]]               # several entries: each says when it starts
//! effective_from = "2026-01-01"
//! …
//!
//! [fees.web_search]              # a tool fee, attached to capabilities by scenarios
//! unit = "per_1000_calls"; price = "10"; source = "…"; read_on = "…"
//! ```

use super::fees::{Fee, FeeUnit};
use super::{LongContext, ModelPrices, Service, ServicePrices, MAX_LONG_TIERS};
use crate::error::InputError;
use crate::input::{optional_price, positive_decimal, price, SourceText};
use jiff::civil::Date;
use rust_decimal::Decimal;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

pub use crate::limits::MAX_MULTIPLIER;

/// A TOML table or an array of such tables, read without buffering (so the
/// TOML deserializer keeps its locations and `deny_unknown_fields` holds).
#[derive(Debug)]
pub(crate) struct OneOrMany<T>(pub Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = OneOrMany<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table or an array of tables")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|t| OneOrMany(vec![t]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(t) = seq.next_element()? {
                    out.push(t);
                }
                Ok(OneOrMany(out))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPriceBook {
    models: BTreeMap<String, toml::Spanned<OneOrMany<RawModelPrices>>>,
    #[serde(default)]
    fees: BTreeMap<String, toml::Spanned<RawFee>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModelPrices {
    source: String,
    read_on: String,
    #[serde(default)]
    effective_from: Option<String>,
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
    #[serde(default, deserialize_with = "optional_price")]
    batch_cache_write_5m: Option<Decimal>,
    #[serde(default, deserialize_with = "optional_price")]
    batch_cache_write_1h: Option<Decimal>,
    #[serde(default, deserialize_with = "optional_price")]
    batch_cache_read: Option<Decimal>,
    #[serde(default, deserialize_with = "optional_price")]
    cache_storage_per_hour: Option<Decimal>,
    #[serde(default)]
    min_cacheable_tokens: Option<u64>,
    #[serde(default)]
    cache_lifetime_minutes: Option<u64>,
    #[serde(default)]
    long_context: Option<OneOrMany<RawLongContext>>,
    #[serde(default)]
    context_window_tokens: Option<u64>,
    #[serde(default)]
    input_includes_cache: bool,
    #[serde(default)]
    services: BTreeMap<String, RawService>,
    #[serde(default)]
    regions: BTreeMap<String, Multiplier>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLongContext {
    threshold_tokens: u64,
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
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawService {
    #[serde(default)]
    multiplier: Option<Multiplier>,
    #[serde(default, deserialize_with = "optional_price")]
    input: Option<Decimal>,
    #[serde(default, deserialize_with = "optional_price")]
    output: Option<Decimal>,
    #[serde(default, deserialize_with = "optional_price")]
    cache_write_5m: Option<Decimal>,
    #[serde(default, deserialize_with = "optional_price")]
    cache_write_1h: Option<Decimal>,
    #[serde(default, deserialize_with = "optional_price")]
    cache_read: Option<Decimal>,
}

/// A positive multiplier, at most [`MAX_MULTIPLIER`], with at most 6 decimals.
#[derive(Debug, Clone, Copy)]
struct Multiplier(Decimal);

impl<'de> Deserialize<'de> for Multiplier {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = positive_decimal(d)?.normalize();
        if m > Decimal::from(MAX_MULTIPLIER) || m.scale() > 6 {
            return Err(de::Error::custom(format!(
                "multiplier {m} is outside what tokencast accepts: above 0, at most {MAX_MULTIPLIER}, with at most 6 decimals (e.g. \"1.1\")"
            )));
        }
        Ok(Multiplier(m))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFee {
    source: String,
    read_on: String,
    unit: FeeUnit,
    #[serde(deserialize_with = "fee_price")]
    price: Decimal,
    #[serde(default)]
    minimum_minutes: Option<u64>,
}

/// A fee in USD per unit: zero or more, at most a million, exact.
fn fee_price<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    let p = crate::input::non_negative_decimal(d)?;
    if p > Decimal::from(crate::input::MAX_PRICE) || p.scale() > crate::input::MAX_PRICE_DECIMALS {
        return Err(de::Error::custom(format!(
            "fee {p} is outside what tokencast accepts: at most {} USD per unit, with at most {} decimals",
            crate::input::MAX_PRICE,
            crate::input::MAX_PRICE_DECIMALS
        )));
    }
    Ok(p)
}

/// All models of one price book, by id (each with its entries by date), and its tool fees.
#[derive(Debug, Clone)]
pub struct PriceBook {
    models: BTreeMap<String, Vec<ModelPrices>>,
    fees: BTreeMap<String, Fee>,
}

/// Why a model has no price on a date.
#[derive(Debug, Clone, PartialEq)]
pub enum NotPriced {
    /// The book does not have the model.
    Unknown,
    /// Every entry starts after the date; the earliest start is given.
    NotYet(Date),
    /// The entry lacks the service tier or region a request ran under (see
    /// [`super::PricedModel`]): what it lacks.
    Lacks(String),
}

/// Checks a `YYYY-MM-DD` date.
pub fn is_date(d: &str) -> bool {
    crate::input::date(d).is_some()
}

impl PriceBook {
    /// Parses a price book file.
    pub fn parse(src: &SourceText) -> Result<PriceBook, InputError> {
        let raw: RawPriceBook = src.parse_toml("price book")?;
        let mut models = BTreeMap::new();
        for (id, spanned) in raw.models {
            let span = spanned.span();
            let entries = spanned.into_inner().0;
            let err = |msg: String, help: &str| {
                let shown = crate::text::display(&id);
                src.error_at(
                    format!("model `{shown}`: {msg}"),
                    span.clone(),
                    "this model",
                )
                .with_help(help.to_string())
            };
            if !crate::limits::text_fits(&id, crate::limits::MAX_NAME_CHARS) {
                return Err(err(
                    format!(
                        "its id is longer than {} characters",
                        crate::limits::MAX_NAME_CHARS
                    ),
                    "give the model a shorter id (a scenario names it with at most as many)",
                ));
            }
            if entries.is_empty() {
                return Err(err(
                    "has no price entry".into(),
                    "give at least one [[models.<id>]] table with input and output prices",
                ));
            }
            let mut out: Vec<ModelPrices> = Vec::with_capacity(entries.len());
            for r in entries {
                let m = check_entry(&id, r).map_err(|(msg, help)| err(msg, help))?;
                out.push(m);
            }
            out.sort_by_key(|m| m.effective_from);
            if out.len() > 1 {
                for w in out.windows(2) {
                    if w[0].effective_from == w[1].effective_from {
                        return Err(err(
                            match &w[0].effective_from {
                                Some(d) => format!("two price entries start on {d}"),
                                None => "two price entries have no effective_from".into(),
                            },
                            "give each entry its own effective_from = \"YYYY-MM-DD\" (one entry may leave it out: in force since ever)",
                        ));
                    }
                }
            }
            models.insert(id, out);
        }
        let mut fees = BTreeMap::new();
        for (name, spanned) in raw.fees {
            let span = spanned.span();
            let r = spanned.into_inner();
            let container = matches!(
                r.unit,
                FeeUnit::PerContainerMinute | FeeUnit::PerContainerHour
            );
            if r.minimum_minutes.is_some() && !container {
                return Err(src
                    .error_at(
                        format!("fee `{name}`: minimum_minutes applies only to container time"),
                        span,
                        "this fee",
                    )
                    .with_help("remove minimum_minutes, or use unit = \"per_container_minute\" or \"per_container_hour\""));
            }
            if r.minimum_minutes.is_some_and(|m| m > 24 * 60) {
                return Err(src
                    .error_at(
                        format!("fee `{name}`: minimum_minutes is above one day"),
                        span,
                        "this fee",
                    )
                    .with_help(
                        "give the provider's minimum billed time, e.g. minimum_minutes = 5",
                    ));
            }
            fees.insert(
                name.clone(),
                Fee {
                    name,
                    unit: r.unit,
                    price: r.price,
                    minimum_minutes: r.minimum_minutes,
                    source: r.source,
                    read_on: r.read_on,
                },
            );
        }
        Ok(PriceBook { models, fees })
    }

    /// The entry of `model` in force on `date`: the latest whose
    /// `effective_from` is on or before it.
    pub fn get_on(&self, model: &str, date: Date) -> Result<&ModelPrices, NotPriced> {
        let entries = self.models.get(model).ok_or(NotPriced::Unknown)?;
        entries
            .iter()
            .rev()
            .find(|e| e.effective_from.is_none_or(|f| f <= date))
            .ok_or_else(|| NotPriced::NotYet(entries[0].effective_from.unwrap_or(Date::MIN)))
    }

    /// The prices of a request's model as a trace names it (a
    /// [`super::PricedModel`]) in force on `date`: the entry of its id, under
    /// the service tier and region it names. An id the book does not list
    /// takes the entry of another id of the same model (a snapshot of another date, a cloud's id),
    /// and its source says so.
    pub fn priced_on(&self, name: &str, date: Date) -> Result<ModelPrices, NotPriced> {
        let p = super::PricedModel::parse(name);
        let base = match self.get_on(p.id, date) {
            Ok(b) => std::borrow::Cow::Borrowed(b),
            Err(NotPriced::Unknown) => std::borrow::Cow::Owned(self.alias_of(p.id, date)?),
            Err(e) => return Err(e),
        };
        if p.options == super::Options::default() {
            return Ok(base.into_owned());
        }
        base.under(name, p.options)
            .map_err(|super::MissingPrices(m)| NotPriced::Lacks(m.join(" and ")))
    }

    /// For an id the book does not list, the entry of another id of the
    /// same model, renamed `id`, with a source that says whose it is:
    ///
    /// - a dated snapshot (`claude-opus-4-8-20261001`) takes the id without
    ///   its date: a provider prices a model's snapshots alike;
    /// - a Claude model as Amazon Bedrock or Google Vertex AI name it
    ///   (`us.anthropic.claude-opus-4-8`, `claude-sonnet-4-5@20250929`;
    ///   [`super::cloud`]) takes the id Anthropic's API gives it (or that id
    ///   without its date): the clouds charge Anthropic's list prices,
    ///   Bedrock's regional profiles 10 % more for recent models, which only
    ///   an entry of the cloud's own id (the shipped `bedrock.toml`) gives.
    fn alias_of(&self, id: &str, date: Date) -> Result<ModelPrices, NotPriced> {
        let shown = crate::text::display(id);
        let renamed = |entry: &ModelPrices, why: String| ModelPrices {
            model: id.to_string(),
            source: format!("{} ({why})", entry.source),
            ..entry.clone()
        };
        // The entry of `alias` (and of `alias` without its date), if any.
        let entry_of = |alias: &str| -> Result<Option<(String, &ModelPrices)>, NotPriced> {
            for a in [alias, super::undated(alias)] {
                match self.get_on(a, date) {
                    Ok(e) => return Ok(Some((a.to_string(), e))),
                    Err(NotPriced::Unknown) => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(None)
        };
        let undated = super::undated(id);
        if undated != id {
            if let Some((alias, e)) = entry_of(undated)? {
                return Ok(renamed(
                    e,
                    format!("the entry of `{alias}`: `{shown}` is that model's snapshot of a date the book does not list"),
                ));
            }
        }
        if let Some(c) = super::cloud::on_cloud(id) {
            // The same model and profile under another of Bedrock's version
            // suffixes (`…-v1` for `…-v1:0`): the cloud's own price.
            let same = |other: &str| super::cloud::on_cloud(other).as_ref() == Some(&c);
            if let Some(other) = self.models.keys().find(|k| same(k)) {
                let e = self.get_on(other, date)?;
                return Ok(renamed(
                    e,
                    format!(
                        "the entry of `{other}`: `{shown}` names the same model and profile on {}",
                        c.cloud.title()
                    ),
                ));
            }
            if let Some((alias, e)) = entry_of(&c.anthropic)? {
                return Ok(renamed(
                    e,
                    format!(
                        "the entry of `{alias}`: `{shown}` is that model on {}, priced as on Anthropic's API{}",
                        c.cloud.title(),
                        if c.regional() {
                            "; a regional profile may cost 10 % more, which the book does not list for it"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
        Err(NotPriced::Unknown)
    }

    /// A day on which every model of the book has the prices in force on
    /// `today`, and the same day for every `today` between two price
    /// changes: the latest `effective_from` on or before `today` or, when
    /// every change is still to come, the day before the first. `None` when
    /// no entry is dated, so no day changes a price. A page carries this day
    /// rather than the day it was made, so that it is the same file, with
    /// the same figures, from one day to the next.
    pub fn settled_day(&self, today: Date) -> Option<Date> {
        let (mut past, mut first): (Option<Date>, Option<Date>) = (None, None);
        for d in self
            .models
            .values()
            .flatten()
            .filter_map(|m| m.effective_from)
        {
            if d <= today {
                past = past.max(Some(d));
            } else {
                first = Some(first.map_or(d, |f| f.min(d)));
            }
        }
        past.or_else(|| first.and_then(|f| f.yesterday().ok()))
    }

    /// Whether `model` has entries that depend on the date.
    pub fn is_dated(&self, model: &str) -> bool {
        self.models
            .get(model)
            .is_some_and(|e| e.iter().any(|m| m.effective_from.is_some()))
    }

    /// The model ids in the book, sorted.
    pub fn model_ids(&self) -> impl Iterator<Item = &str> {
        self.models.keys().map(String::as_str)
    }

    /// A tool fee by name.
    pub fn fee(&self, name: &str) -> Option<&Fee> {
        self.fees.get(name)
    }

    /// The fee names, sorted.
    pub fn fee_names(&self) -> impl Iterator<Item = &str> {
        self.fees.keys().map(String::as_str)
    }
}

type Problem = (String, &'static str);

fn check_entry(id: &str, r: RawModelPrices) -> Result<ModelPrices, Problem> {
    let effective_from = match &r.effective_from {
        None => None,
        Some(d) => Some(crate::input::date(d).ok_or_else(|| {
            (
                format!("effective_from \"{d}\" is not a date"),
                "write the first day the prices apply as YYYY-MM-DD, e.g. \"2026-12-01\"",
            )
        })?),
    };
    let long_context = check_long_context(&r)?;
    if let Some(m) = r.cache_lifetime_minutes {
        if !(1..=crate::limits::MAX_CACHE_LIFETIME_MINUTES).contains(&m) {
            return Err((
                format!("cache_lifetime_minutes = {m} is outside 1 to {} (a day)", crate::limits::MAX_CACHE_LIFETIME_MINUTES),
                "write how many minutes the provider keeps an unread prefix in its automatic cache, e.g. 10",
            ));
        }
    }
    let mut services = BTreeMap::new();
    for (name, s) in r.services {
        let service = match (s.multiplier, s.input, s.output) {
            (Some(m), None, None)
                if s.cache_read.is_none()
                    && s.cache_write_5m.is_none()
                    && s.cache_write_1h.is_none() =>
            {
                Service::Multiplier(m.0)
            }
            (None, Some(input), Some(output)) => Service::Prices(ServicePrices {
                input,
                output,
                cache_write_5m: s.cache_write_5m,
                cache_write_1h: s.cache_write_1h,
                cache_read: s.cache_read,
            }),
            _ => {
                return Err((
                    format!("service tier `{name}` must give either a multiplier or input and output prices"),
                    "write multiplier = \"6\" (every price times 6), or input = \"…\" and output = \"…\" with optional cache prices",
                ))
            }
        };
        if name == "standard" || name == "batch" {
            return Err((
                format!("service tier `{name}` is a reserved name"),
                "the base prices are the standard tier and batch_* prices the batch tier; name the tier e.g. flex, priority or fast",
            ));
        }
        services.insert(name, service);
    }
    Ok(ModelPrices {
        model: id.to_string(),
        source: r.source,
        read_on: r.read_on,
        effective_from,
        input: r.input,
        output: r.output,
        cache_write_5m: r.cache_write_5m,
        cache_write_1h: r.cache_write_1h,
        cache_read: r.cache_read,
        batch_input: r.batch_input,
        batch_output: r.batch_output,
        batch_cache_write_5m: r.batch_cache_write_5m,
        batch_cache_write_1h: r.batch_cache_write_1h,
        batch_cache_read: r.batch_cache_read,
        min_cacheable_tokens: r.min_cacheable_tokens,
        cache_lifetime_minutes: r.cache_lifetime_minutes,
        long_context,
        context_window_tokens: r.context_window_tokens,
        input_includes_cache: r.input_includes_cache,
        cache_storage_per_hour: r.cache_storage_per_hour,
        services,
        regions: r.regions.into_iter().map(|(k, m)| (k, m.0)).collect(),
    })
}

/// Tiers by rising threshold, each dearer than the base and the tier below.
fn check_long_context(r: &RawModelPrices) -> Result<Vec<LongContext>, Problem> {
    let tiers = r.long_context.as_ref().map_or(&[][..], |t| &t.0[..]);
    if tiers.len() > MAX_LONG_TIERS {
        return Err((
            format!(
                "{} long-context tiers; tokencast takes at most {MAX_LONG_TIERS}",
                tiers.len()
            ),
            "keep the thresholds the provider publishes (LiteLLM's largest family has three)",
        ));
    }
    let mut out: Vec<LongContext> = Vec::new();
    for t in tiers {
        if t.threshold_tokens == 0 {
            return Err((
                "a long-context threshold of 0 tokens".into(),
                "give the prompt size above which the tier applies, e.g. threshold_tokens = 200000",
            ));
        }
        let (below_input, below_output, what) = match out.last() {
            Some(prev) => (prev.input, prev.output, "the tier below"),
            None => (r.input, r.output, "the base"),
        };
        if out
            .last()
            .is_some_and(|p| p.threshold_tokens >= t.threshold_tokens)
        {
            return Err((
                format!(
                    "long-context thresholds must rise: {} after {}",
                    t.threshold_tokens,
                    out.last().map_or(0, |p| p.threshold_tokens)
                ),
                "list the tiers from the lowest threshold to the highest, each threshold once",
            ));
        }
        for (class, tier, base) in [
            ("input", t.input, below_input),
            ("output", t.output, below_output),
        ] {
            if tier < base {
                return Err((
                    format!("the long-context {class} price {tier} above {} tokens is below {what}'s {base}", t.threshold_tokens),
                    "a long-context tier charges more than the rate below it; check the source",
                ));
            }
        }
        out.push(LongContext {
            threshold_tokens: t.threshold_tokens,
            input: t.input,
            output: t.output,
            cache_write_5m: t.cache_write_5m,
            cache_write_1h: t.cache_write_1h,
            cache_read: t.cache_read,
        });
    }
    Ok(out)
}
