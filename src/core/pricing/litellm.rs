//! `tokencast prices import litellm`: LiteLLM's
//! `model_prices_and_context_window.json` as a tokencast price book.
//!
//! LiteLLM keeps prices per token as JSON floats (`3e-06`). Each goes through
//! its shortest decimal string (Rust's `f64` formatting, which round-trips),
//! then is multiplied by a million as an exact decimal: no arithmetic on
//! `f64`. Every price-like field the book cannot hold yet is listed, per
//! model, so nothing is dropped silently.

use crate::error::{did_you_mean, InputError};
use crate::input::{SourceText, MAX_PRICE, MAX_PRICE_DECIMALS};
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::str::FromStr;

/// How LiteLLM's fields map onto a tokencast model table.
const PRICES: [(&str, &str); 10] = [
    ("input_cost_per_token", "input"),
    ("output_cost_per_token", "output"),
    ("cache_creation_input_token_cost", "cache_write_5m"),
    (
        "cache_creation_input_token_cost_above_1hr",
        "cache_write_1h",
    ),
    ("cache_read_input_token_cost", "cache_read"),
    ("input_cost_per_token_batches", "batch_input"),
    ("output_cost_per_token_batches", "batch_output"),
    (
        "cache_creation_input_token_cost_batches",
        "batch_cache_write_5m",
    ),
    ("cache_read_input_token_cost_batches", "batch_cache_read"),
    (
        "cache_storage_cost_per_token_per_hour",
        "cache_storage_per_hour",
    ),
];

/// LiteLLM's uplift multipliers, as tokencast region names.
const REGIONS: [(&str, &str); 4] = [
    ("fedramp_uplift_multiplier", "fedramp"),
    ("regional_endpoint_uplift_multiplier", "regional-endpoint"),
    ("regional_processing_uplift_multiplier_eu", "eu"),
    ("regional_processing_uplift_multiplier_us", "us"),
];

/// LiteLLM's service-tier suffixes, as tokencast service names.
const SERVICES: [(&str, &str); 2] = [("flex", "flex"), ("priority", "priority")];

/// One model of the converted book.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelOut {
    /// Where the prices come from.
    pub source: String,
    /// When they were read.
    pub read_on: String,
    /// USD per million tokens, as exact decimal strings, by tokencast's names.
    #[serde(flatten)]
    pub prices: BTreeMap<&'static str, String>,
    /// `prompt_cache_min_tokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_cacheable_tokens: Option<u64>,
    /// OpenAI's automatic cache lifetime ([`OPENAI_CACHE_LIFETIME_MINUTES`]);
    /// LiteLLM does not give one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_lifetime_minutes: Option<u64>,
    /// `max_input_tokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window_tokens: Option<u64>,
    /// From `litellm_provider`: OpenAI and Google count cached tokens as input, Anthropic does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_includes_cache: Option<bool>,
    /// Every `_above_<N>k_tokens` tier with an input and an output price (at most three).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub long_context: Vec<LongContextOut>,
    /// `_flex` and `_priority` prices.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<&'static str, BTreeMap<&'static str, String>>,
    /// FedRAMP and regional uplift multipliers.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub regions: BTreeMap<&'static str, String>,
}

/// A long-context tier as written in the book.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LongContextOut {
    /// Tokens above which the tier applies.
    pub threshold_tokens: u64,
    /// Input, USD per million tokens.
    pub input: String,
    /// Output, USD per million tokens.
    pub output: String,
    /// Cache read in the tier, when LiteLLM gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<String>,
    /// Cache write in the tier, when LiteLLM gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_write_5m: Option<String>,
}

/// A tool fee converted from a per-query cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeeOut {
    /// Where it comes from.
    pub source: String,
    /// When it was read.
    pub read_on: String,
    /// Always `per_1000_calls` (LiteLLM's per-query costs × 1,000).
    pub unit: &'static str,
    /// USD per 1,000 calls.
    pub price: String,
}

/// One converted model and the LiteLLM fields left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The model id, as LiteLLM names it.
    pub id: String,
    /// Its table.
    pub model: ModelOut,
    /// Its web-search fee (`search_context_cost_per_query`, medium context), if any.
    pub web_search: Option<FeeOut>,
    /// Price-like fields the book cannot hold, sorted, each with why.
    pub skipped: Vec<String>,
}

/// The whole conversion.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// Models converted, by id.
    pub models: Vec<Converted>,
    /// Models that matched but have no input or output price (never priced at $0).
    pub unpriced: Vec<String>,
    /// Models whose prices a price book refuses (a long-context tier below
    /// its base, a price past the limits), each with the book's reason:
    /// left out, so that the book written always loads.
    pub refused: Vec<(String, String)>,
}

/// A per-token JSON number as USD per million tokens: through its shortest
/// decimal string, then an exact multiplication.
pub fn per_million(v: &Value) -> Option<Decimal> {
    scaled(v, 1_000_000)
}

/// A JSON number times `k`, through its shortest decimal string.
fn scaled(v: &Value, k: i64) -> Option<Decimal> {
    let f = v.as_f64()?;
    if !f.is_finite() || f < 0.0 {
        return None;
    }
    let exact = Decimal::from_str(&format!("{f}")).ok()?;
    let d = exact.checked_mul(Decimal::from(k))?.normalize();
    (d <= Decimal::from(MAX_PRICE) && d.scale() <= MAX_PRICE_DECIMALS).then_some(d)
}

fn price_like(key: &str) -> bool {
    ["cost", "multiplier", "pricing", "free_requests", "billing"]
        .iter()
        .any(|w| key.contains(w))
}

/// The `_above_<N>k_tokens` thresholds with both an input and an output
/// price, in tokens. A threshold past [`crate::limits::MAX_TOKENS`] (no
/// request reaches it; `N × 1,000` might not even fit in 64 bits) is no tier.
fn tiers(entry: &serde_json::Map<String, Value>) -> Vec<u64> {
    let mut out: Vec<u64> = entry
        .keys()
        .filter_map(|k| {
            k.strip_prefix("input_cost_per_token_above_")?
                .strip_suffix("k_tokens")?
                .parse::<u64>()
                .ok()
        })
        .filter(|n| entry.contains_key(&format!("output_cost_per_token_above_{n}k_tokens")))
        .filter(|n| {
            n.checked_mul(1000)
                .is_some_and(|t| t <= crate::limits::MAX_TOKENS)
        })
        .collect();
    out.sort_unstable();
    out
}

/// Whether the provider's input count includes cached tokens, by provider.
/// How long OpenAI's automatic prompt cache keeps a prefix nobody reads:
/// "cached prefixes generally remain active for 5 to 10 minutes of
/// inactivity, up to a maximum of one hour during off-peak periods"
/// (platform.openai.com/docs/guides/prompt-caching). The upper end of the
/// usual range is written into converted OpenAI books; the shared corpus's
/// Codex rollouts read their cache after gaps of up to 13 minutes and
/// missed it after 15 and more.
pub const OPENAI_CACHE_LIFETIME_MINUTES: u64 = 10;

/// Whether `provider`'s automatic cache lifetime is OpenAI's.
fn openai_cache(provider: &str) -> bool {
    provider == "openai" || provider.starts_with("azure")
}

fn includes_cache(provider: &str) -> Option<bool> {
    if provider == "anthropic" || provider.starts_with("bedrock") {
        Some(false)
    } else if ["openai", "azure", "gemini", "vertex_ai", "xai", "deepseek"]
        .iter()
        .any(|p| provider.starts_with(p))
    {
        Some(true)
    } else {
        None
    }
}

/// One LiteLLM entry being read: the keys it has, and those used so far
/// (a price-like key never used is reported as skipped).
struct Entry<'e> {
    entry: &'e serde_json::Map<String, Value>,
    used: Vec<String>,
}

impl Entry<'_> {
    /// A per-token price as a price per million tokens, marked used.
    fn get(&mut self, key: &str) -> Option<Decimal> {
        let d = self.entry.get(key).and_then(per_million)?;
        self.used.push(key.to_string());
        Some(d)
    }

    /// The base prices, by tokencast's class names. OpenAI and Google cache
    /// automatically and charge no write premium: a write costs the input
    /// price (LiteLLM gives no creation cost for them).
    fn base_prices(&mut self, provider: &str) -> Option<BTreeMap<&'static str, Decimal>> {
        let mut prices = BTreeMap::new();
        for (from, to) in PRICES {
            if let Some(d) = self.get(from) {
                prices.insert(to, d);
            }
        }
        let input = *prices.get("input")?;
        prices.get("output")?;
        if includes_cache(provider) == Some(true)
            && prices.contains_key("cache_read")
            && !prices.contains_key("cache_write_5m")
        {
            prices.insert("cache_write_5m", input);
        }
        Some(prices)
    }

    /// The long-context tiers with both an input and an output price.
    fn long_context(&mut self) -> Vec<super::LongContext> {
        let mut out = Vec::new();
        for n in tiers(self.entry).into_iter().take(super::MAX_LONG_TIERS) {
            let (Some(i), Some(o)) = (
                self.get(&format!("input_cost_per_token_above_{n}k_tokens")),
                self.get(&format!("output_cost_per_token_above_{n}k_tokens")),
            ) else {
                continue;
            };
            out.push(super::LongContext {
                // `tiers` keeps only thresholds whose tokens fit.
                threshold_tokens: n.saturating_mul(1000),
                input: i,
                output: o,
                cache_read: self.get(&format!("cache_read_input_token_cost_above_{n}k_tokens")),
                cache_write_5m: self.get(&format!(
                    "cache_creation_input_token_cost_above_{n}k_tokens"
                )),
                cache_write_1h: None,
            });
        }
        out
    }

    /// The service tiers (flex, priority) with both an input and an output price.
    fn services(&mut self) -> BTreeMap<String, super::Service> {
        let mut services = BTreeMap::new();
        for (suffix, name) in SERVICES {
            if let (Some(i), Some(o)) = (
                self.get(&format!("input_cost_per_token_{suffix}")),
                self.get(&format!("output_cost_per_token_{suffix}")),
            ) {
                services.insert(
                    name.to_string(),
                    super::Service::Prices(super::ServicePrices {
                        input: i,
                        output: o,
                        cache_read: self.get(&format!("cache_read_input_token_cost_{suffix}")),
                        cache_write_5m: None,
                        cache_write_1h: None,
                    }),
                );
            }
        }
        services
    }

    /// LiteLLM's combined prices (a long-context tier under flex, priority
    /// or batch): tokencast derives them; each is checked against what
    /// LiteLLM lists, and listed in `skipped` only if it differs.
    fn check_combined(&mut self, model: &super::ModelPrices, skipped: &mut Vec<String>) {
        let cache = if model.cache_read.is_some() && model.cache_write_5m.is_some() {
            super::Cache::FiveMinutes
        } else {
            super::Cache::None
        };
        for (t, lc) in model.long_context.iter().enumerate() {
            let n = lc.threshold_tokens / 1000;
            for (suffix, service, mode) in [
                ("flex", Some("flex"), super::Mode::Sync),
                ("priority", Some("priority"), super::Mode::Sync),
                ("batches", None, super::Mode::Batch),
            ] {
                let options = super::Options {
                    service,
                    region: None,
                };
                let derived = model
                    .rates_with(cache, mode, options)
                    .ok()
                    .map(|r| r.at(t + 1));
                for (class, key) in [
                    (
                        "input",
                        format!("input_cost_per_token_above_{n}k_tokens_{suffix}"),
                    ),
                    (
                        "output",
                        format!("output_cost_per_token_above_{n}k_tokens_{suffix}"),
                    ),
                    (
                        "cache_read",
                        format!("cache_read_input_token_cost_above_{n}k_tokens_{suffix}"),
                    ),
                ] {
                    let Some(listed) = self.entry.get(&key).and_then(per_million) else {
                        continue;
                    };
                    let ours = derived.map(|c| match class {
                        "input" => c.input,
                        "output" => c.output,
                        _ => c.cache_read,
                    });
                    if ours.is_none_or(|o| o.normalize() != listed) {
                        skipped.push(format!(
                            "{key} (LiteLLM {listed}, tokencast derives {})",
                            ours.map_or("nothing".into(), |o| o.normalize().to_string())
                        ));
                    }
                    self.used.push(key);
                }
            }
        }
    }

    /// Regional multipliers LiteLLM lists, each in (0, the book's largest].
    fn regions(&mut self) -> BTreeMap<&'static str, String> {
        let mut regions = BTreeMap::new();
        for (key, name) in REGIONS {
            let m = self.entry.get(key).and_then(|v| scaled(v, 1)).filter(|m| {
                *m > Decimal::ZERO
                    && *m <= Decimal::from(super::book::MAX_MULTIPLIER)
                    && m.scale() <= 6
            });
            if let Some(m) = m {
                self.used.push(key.to_string());
                regions.insert(name, m.to_string());
            }
        }
        regions
    }

    /// The web search fee per 1,000 calls (medium context), when listed.
    fn web_search(&mut self, id: &str, file: &str, read_on: &str) -> Option<FeeOut> {
        let price = self
            .entry
            .get("search_context_cost_per_query")
            .and_then(|v| v.get("search_context_size_medium"))
            .and_then(|v| scaled(v, 1000))?;
        self.used.push("search_context_cost_per_query".into());
        Some(FeeOut {
            source: format!("LiteLLM {file}: search_context_cost_per_query (medium) of {id}"),
            read_on: read_on.to_string(),
            unit: "per_1000_calls",
            price: price.to_string(),
        })
    }

    /// Price-like keys never used, sorted, after `skipped`.
    fn unused(&self, mut skipped: Vec<String>) -> Vec<String> {
        skipped.extend(
            self.entry
                .keys()
                .filter(|k| price_like(k) && !self.used.contains(k))
                .cloned(),
        );
        skipped.sort();
        skipped
    }
}

/// The prices of one model as tokencast reads them, to derive and check
/// LiteLLM's combined prices.
fn model_prices(
    id: &str,
    prices: &BTreeMap<&'static str, Decimal>,
    long_context: Vec<super::LongContext>,
    services: BTreeMap<String, super::Service>,
    provider: &str,
) -> super::ModelPrices {
    let price = |k: &str| prices.get(k).copied();
    super::ModelPrices {
        model: id.to_string(),
        input: price("input").unwrap_or_default(),
        output: price("output").unwrap_or_default(),
        cache_write_5m: price("cache_write_5m"),
        cache_write_1h: price("cache_write_1h"),
        cache_read: price("cache_read"),
        batch_input: price("batch_input"),
        batch_output: price("batch_output"),
        batch_cache_write_5m: price("batch_cache_write_5m"),
        batch_cache_read: price("batch_cache_read"),
        cache_storage_per_hour: price("cache_storage_per_hour"),
        long_context,
        services,
        input_includes_cache: includes_cache(provider).unwrap_or(false),
        ..super::ModelPrices::default()
    }
}

/// The service tiers as the converted book writes them.
fn services_out(
    model: &super::ModelPrices,
) -> BTreeMap<&'static str, BTreeMap<&'static str, String>> {
    model
        .services
        .iter()
        .filter_map(|(name, s)| {
            let super::Service::Prices(p) = s else {
                return None;
            };
            let name = SERVICES.iter().find(|(_, n)| n == name)?.1;
            let mut m = BTreeMap::from([
                ("input", p.input.to_string()),
                ("output", p.output.to_string()),
            ]);
            if let Some(r) = p.cache_read {
                m.insert("cache_read", r.to_string());
            }
            Some((name, m))
        })
        .collect()
}

fn convert_one(
    id: &str,
    entry: &serde_json::Map<String, Value>,
    file: &str,
    read_on: &str,
) -> Option<Converted> {
    let provider = entry
        .get("litellm_provider")
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut e = Entry {
        entry,
        used: Vec::new(),
    };
    let prices = e.base_prices(provider)?;
    let long_context = e.long_context();
    let services = e.services();
    let model = model_prices(id, &prices, long_context, services, provider);
    let mut skipped = Vec::new();
    e.check_combined(&model, &mut skipped);
    let regions = e.regions();
    let web_search = e.web_search(id, file, read_on);
    let skipped = e.unused(skipped);
    let source = match entry.get("source").and_then(Value::as_str) {
        Some(s) => format!("{s} (via LiteLLM, {file})"),
        None => format!("LiteLLM {file}"),
    };
    Some(Converted {
        id: id.to_string(),
        model: ModelOut {
            source,
            read_on: read_on.to_string(),
            prices: prices.iter().map(|(k, v)| (*k, v.to_string())).collect(),
            min_cacheable_tokens: entry.get("prompt_cache_min_tokens").and_then(Value::as_u64),
            cache_lifetime_minutes: (openai_cache(provider) && prices.contains_key("cache_read"))
                .then_some(OPENAI_CACHE_LIFETIME_MINUTES),
            context_window_tokens: entry.get("max_input_tokens").and_then(Value::as_u64),
            input_includes_cache: includes_cache(provider),
            long_context: model
                .long_context
                .iter()
                .map(|l| LongContextOut {
                    threshold_tokens: l.threshold_tokens,
                    input: l.input.to_string(),
                    output: l.output.to_string(),
                    cache_read: l.cache_read.map(|d| d.to_string()),
                    cache_write_5m: l.cache_write_5m.map(|d| d.to_string()),
                })
                .collect(),
            services: services_out(&model),
            regions,
        },
        web_search,
        skipped,
    })
}

/// Converts the models of `src` whose ids match one of `patterns` (`*` and
/// `?` wildcards; all models when none is given).
pub fn convert(
    src: &SourceText,
    patterns: &[String],
    read_on: &str,
) -> Result<Conversion, InputError> {
    let json: Value = serde_json::from_str(&src.text).map_err(|e| {
        InputError::new(format!(
            "{}: line {}, column {}: not LiteLLM's price JSON: {e}",
            src.name,
            e.line(),
            e.column()
        ))
        .with_help("give model_prices_and_context_window.json from LiteLLM")
    })?;
    let Some(all) = json.as_object() else {
        return Err(
            InputError::new(format!("{}: not a JSON object of models", src.name))
                .with_help("give model_prices_and_context_window.json from LiteLLM"),
        );
    };
    let file = std::path::Path::new(&src.name)
        .file_name()
        .map_or(src.name.clone(), |n| n.to_string_lossy().into_owned());
    let matchers: Vec<wildmatch::WildMatch> = patterns
        .iter()
        .map(|p| wildmatch::WildMatch::new(p))
        .collect();
    for (p, m) in patterns.iter().zip(&matchers) {
        if !all.keys().any(|k| m.matches(k)) {
            return Err(
                InputError::new(format!("--models {p}: no model in {} matches", src.name))
                    .with_help(did_you_mean(
                        p,
                        all.keys().map(String::as_str),
                        "Models there include",
                    )),
            );
        }
    }
    let mut models = Vec::new();
    let mut unpriced = Vec::new();
    let mut refused = Vec::new();
    for (id, entry) in all {
        let Some(entry) = entry.as_object() else {
            continue;
        };
        if id == "sample_spec" || !(matchers.is_empty() || matchers.iter().any(|m| m.matches(id))) {
            continue;
        }
        match convert_one(id, entry, &file, read_on) {
            Some(c) => match loads(c) {
                Ok(c) => models.push(c),
                Err(why) => refused.push((id.clone(), why)),
            },
            None => unpriced.push(id.clone()),
        }
    }
    Ok(Conversion {
        models,
        unpriced,
        refused,
    })
}

/// `c` when a book of it alone loads, else the book's reason.
fn loads(c: Converted) -> Result<Converted, String> {
    let one = Conversion {
        models: vec![c],
        unpriced: Vec::new(),
        refused: Vec::new(),
    };
    let book = SourceText {
        name: "prices.toml".into(),
        text: one.to_toml(""),
    };
    match super::PriceBook::parse(&book) {
        Ok(_) => Ok(one.models.into_iter().next().expect("one model")),
        Err(e) => Err(e.message().to_string()),
    }
}

impl Conversion {
    /// The price book as TOML, starting with tokencast's marker line and,
    /// per model, the fields left out.
    pub fn to_toml(&self, file: &str) -> String {
        use crate::text::display;
        #[derive(Serialize)]
        struct Book<'a> {
            models: BTreeMap<&'a str, &'a ModelOut>,
            #[serde(skip_serializing_if = "BTreeMap::is_empty")]
            fees: BTreeMap<String, &'a FeeOut>,
        }
        let mut out = format!(
            "# tokencast price book, converted from LiteLLM's {} by `tokencast prices import litellm`.\n# Prices are USD per million tokens, exact decimals. Where the provider charges no cache\n# write premium (OpenAI, Google: a cache read price and no creation cost), cache_write_5m\n# is the input price, and OpenAI's automatic cache keeps an unread prefix for\n# cache_lifetime_minutes (10: OpenAI documents 5 to 10 minutes).\n# Web search fees are LiteLLM's per-query cost (medium context) × 1,000.\n",
            display(file)
        );
        for m in &self.models {
            if !m.skipped.is_empty() {
                out.push_str(&format!(
                    "# {}: not converted: {}\n",
                    display(&m.id),
                    display(&m.skipped.join(", "))
                ));
            }
        }
        for id in &self.unpriced {
            out.push_str(&format!(
                "# {}: unpriced (no input or output price per token); left out\n",
                display(id)
            ));
        }
        for (id, why) in &self.refused {
            out.push_str(&format!(
                "# {}: left out: a price book refuses its prices: {}\n",
                display(id),
                display(why)
            ));
        }
        out.push('\n');
        let book = Book {
            models: self
                .models
                .iter()
                .map(|m| (m.id.as_str(), &m.model))
                .collect(),
            fees: self
                .models
                .iter()
                .filter_map(|m| Some((format!("{}/web_search", m.id), m.web_search.as_ref()?)))
                .collect(),
        };
        out.push_str(&toml::to_string(&book).expect("a price book always serializes"));
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_the_book_would_refuse_is_left_out_and_the_book_loads() {
        // Found by the litellm fuzz target: a long-context output price
        // (1.5e-5 a token = $15 a million) below the base's ($20) was
        // written, and the whole book then failed to load.
        let src = SourceText {
            name: "table.json".into(),
            text: r#"{"odd": {"litellm_provider": "gemini", "input_cost_per_token": 1.25e-6,
                       "output_cost_per_token": 2e-5,
                       "input_cost_per_token_above_200k_tokens": 2.5e-6,
                       "output_cost_per_token_above_200k_tokens": 1.5e-5},
                      "fine": {"litellm_provider": "anthropic", "input_cost_per_token": 3e-6,
                       "output_cost_per_token": 1.5e-5}}"#
                .into(),
        };
        let c = convert(&src, &[], "2026-11-30").unwrap();
        assert_eq!(c.models.len(), 1);
        assert_eq!(c.models[0].id, "fine");
        assert_eq!(c.refused.len(), 1);
        assert_eq!(c.refused[0].0, "odd");
        assert!(
            c.refused[0].1.contains("below the base"),
            "{}",
            c.refused[0].1
        );
        let book = SourceText {
            name: "prices.toml".into(),
            text: c.to_toml("table.json"),
        };
        let b = super::super::PriceBook::parse(&book).unwrap();
        assert_eq!(b.model_ids().collect::<Vec<_>>(), ["fine"]);
        assert!(book
            .text
            .contains("# odd: left out: a price book refuses its prices:"));
    }

    #[test]
    fn a_threshold_past_any_request_is_no_tier_and_never_wraps() {
        // Issue 25: `n * 1000` wrapped 18446744073709552k to 384 tokens.
        let entry: serde_json::Map<String, Value> = serde_json::from_str(
            r#"{"input_cost_per_token_above_200k_tokens": 6e-6,
                "output_cost_per_token_above_200k_tokens": 2.25e-5,
                "input_cost_per_token_above_18446744073709552k_tokens": 1e-6,
                "output_cost_per_token_above_18446744073709552k_tokens": 1e-6,
                "input_cost_per_token_above_1000001k_tokens": 1e-6,
                "output_cost_per_token_above_1000001k_tokens": 1e-6,
                "input_cost_per_token_above_1000000k_tokens": 1e-6,
                "output_cost_per_token_above_1000000k_tokens": 1e-6}"#,
        )
        .unwrap();
        // 10⁶ k = 10⁹ tokens is the last threshold a request can reach.
        assert_eq!(tiers(&entry), [200, 1_000_000]);
    }

    #[test]
    fn per_token_floats_become_exact_prices_per_million() {
        for (json, want) in [
            ("3e-06", "3"),
            ("3.75e-06", "3.75"),
            ("1.25e-07", "0.125"),
            ("2.5e-06", "2.5"),
            ("0", "0"),
        ] {
            let v: Value = serde_json::from_str(json).unwrap();
            assert_eq!(per_million(&v).unwrap().to_string(), want, "{json}");
        }
        // 0.1 + 0.2 in f64 arithmetic is 0.30000000000000004; the shortest
        // string of the stored float 3e-07 is exact.
        let v: Value = serde_json::from_str("3e-07").unwrap();
        assert_eq!(per_million(&v).unwrap().to_string(), "0.3");
        assert!(per_million(&serde_json::json!(-1.0)).is_none());
        assert!(per_million(&serde_json::json!("3e-06")).is_none());
    }
}
