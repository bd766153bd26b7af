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
const PRICES: [(&str, &str); 7] = [
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
];

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
    /// `max_input_tokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window_tokens: Option<u64>,
    /// The lowest `_above_<N>k_tokens` tier with both an input and an output price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub long_context: Option<LongContextOut>,
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
}

/// One converted model and the LiteLLM fields left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The model id, as LiteLLM names it.
    pub id: String,
    /// Its table.
    pub model: ModelOut,
    /// Price-like fields the book cannot hold yet, sorted.
    pub skipped: Vec<String>,
}

/// The whole conversion.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// Models converted, by id.
    pub models: Vec<Converted>,
    /// Models that matched but have no input or output price (never priced at $0).
    pub unpriced: Vec<String>,
}

/// A per-token JSON number as USD per million tokens: through its shortest
/// decimal string, then an exact multiplication.
pub fn per_million(v: &Value) -> Option<Decimal> {
    let f = v.as_f64()?;
    if !f.is_finite() || f < 0.0 {
        return None;
    }
    let exact = Decimal::from_str(&format!("{f}")).ok()?;
    let d = exact.checked_mul(Decimal::from(1_000_000))?.normalize();
    (d <= Decimal::from(MAX_PRICE) && d.scale() <= MAX_PRICE_DECIMALS).then_some(d)
}

fn price_like(key: &str) -> bool {
    ["cost", "multiplier", "pricing", "free_requests", "billing"]
        .iter()
        .any(|w| key.contains(w))
}

/// The `_above_<N>k_tokens` thresholds with both an input and an output price.
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
        .collect();
    out.sort_unstable();
    out
}

fn convert_one(
    id: &str,
    entry: &serde_json::Map<String, Value>,
    file: &str,
    read_on: &str,
) -> Option<Converted> {
    let mut prices = BTreeMap::new();
    let mut used: Vec<String> = Vec::new();
    for (from, to) in PRICES {
        if let Some(d) = entry.get(from).and_then(per_million) {
            prices.insert(to, d.to_string());
            used.push(from.to_string());
        }
    }
    if !prices.contains_key("input") || !prices.contains_key("output") {
        return None;
    }
    let long_context = tiers(entry).into_iter().find_map(|n| {
        let input = entry
            .get(&format!("input_cost_per_token_above_{n}k_tokens"))
            .and_then(per_million)?;
        let output = entry
            .get(&format!("output_cost_per_token_above_{n}k_tokens"))
            .and_then(per_million)?;
        used.push(format!("input_cost_per_token_above_{n}k_tokens"));
        used.push(format!("output_cost_per_token_above_{n}k_tokens"));
        Some(LongContextOut {
            threshold_tokens: n * 1000,
            input: input.to_string(),
            output: output.to_string(),
        })
    });
    let mut skipped: Vec<String> = entry
        .keys()
        .filter(|k| price_like(k) && !used.contains(k))
        .cloned()
        .collect();
    skipped.sort();
    let source = match entry.get("source").and_then(Value::as_str) {
        Some(s) => format!("{s} (via LiteLLM, {file})"),
        None => format!("LiteLLM {file}"),
    };
    Some(Converted {
        id: id.to_string(),
        model: ModelOut {
            source,
            read_on: read_on.to_string(),
            prices,
            min_cacheable_tokens: entry.get("prompt_cache_min_tokens").and_then(Value::as_u64),
            context_window_tokens: entry.get("max_input_tokens").and_then(Value::as_u64),
            long_context,
        },
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
    for (id, entry) in all {
        let Some(entry) = entry.as_object() else {
            continue;
        };
        if id == "sample_spec" || !(matchers.is_empty() || matchers.iter().any(|m| m.matches(id))) {
            continue;
        }
        match convert_one(id, entry, &file, read_on) {
            Some(c) => models.push(c),
            None => unpriced.push(id.clone()),
        }
    }
    Ok(Conversion { models, unpriced })
}

impl Conversion {
    /// The price book as TOML, starting with tokencast's marker line and,
    /// per model, the fields left out.
    pub fn to_toml(&self, file: &str) -> String {
        #[derive(Serialize)]
        struct Book<'a> {
            models: BTreeMap<&'a str, &'a ModelOut>,
        }
        let mut out = format!(
            "# tokencast price book, converted from LiteLLM's {file} by `tokencast prices import litellm`.\n# Prices are USD per million tokens, exact decimals.\n"
        );
        for m in &self.models {
            if !m.skipped.is_empty() {
                out.push_str(&format!(
                    "# {}: not converted (the book has no field for them yet): {}\n",
                    m.id,
                    m.skipped.join(", ")
                ));
            }
        }
        for id in &self.unpriced {
            out.push_str(&format!(
                "# {id}: unpriced (no input or output price per token); left out\n"
            ));
        }
        out.push('\n');
        let book = Book {
            models: self
                .models
                .iter()
                .map(|m| (m.id.as_str(), &m.model))
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
