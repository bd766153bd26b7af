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
mod entry;
use entry::convert_one;

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

/// The regions LiteLLM's `provider_specific_entry` prices, by the value of
/// Anthropic's `usage.inference_geo` they stand for (`global` and
/// `not_available` carry no uplift).
const GEOS: [&str; 2] = ["eu", "us"];

/// Fast mode, as `provider_specific_entry.fast` gives it: a multiplier on
/// every price, and its tokencast service name.
const FAST: &str = "fast";

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
