//! One LiteLLM entry read into tokencast's prices: the keys it has and
//! those used, the base, long-context, service and regional prices, its
//! combined prices checked against what tokencast derives, and what is left
//! over.

use super::{
    includes_cache, openai_cache, per_million, price_like, scaled, tiers, Converted, FeeOut,
    LongContextOut, ModelOut, FAST, GEOS, OPENAI_CACHE_LIFETIME_MINUTES, PRICES, REGIONS, SERVICES,
};
use rust_decimal::Decimal;
use serde_json::Value;
use std::collections::BTreeMap;

/// One LiteLLM entry being read: the keys it has, and those used so far
/// (a price-like key never used is reported as skipped).
pub(super) struct Entry<'e> {
    pub(super) entry: &'e serde_json::Map<String, Value>,
    pub(super) used: Vec<String>,
}

impl Entry<'_> {
    /// A per-token price as a price per million tokens, marked used.
    pub(super) fn get(&mut self, key: &str) -> Option<Decimal> {
        let d = self.entry.get(key).and_then(per_million)?;
        self.used.push(key.to_string());
        Some(d)
    }

    /// The base prices, by tokencast's class names. OpenAI and Google cache
    /// automatically and charge no write premium: a write costs the input
    /// price (LiteLLM gives no creation cost for them).
    pub(super) fn base_prices(
        &mut self,
        provider: &str,
    ) -> Option<BTreeMap<&'static str, Decimal>> {
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
    pub(super) fn long_context(&mut self) -> Vec<crate::pricing::LongContext> {
        let mut out = Vec::new();
        for n in tiers(self.entry)
            .into_iter()
            .take(crate::pricing::MAX_LONG_TIERS)
        {
            let (Some(i), Some(o)) = (
                self.get(&format!("input_cost_per_token_above_{n}k_tokens")),
                self.get(&format!("output_cost_per_token_above_{n}k_tokens")),
            ) else {
                continue;
            };
            out.push(crate::pricing::LongContext {
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

    /// The service tiers: flex and priority where both an input and an
    /// output price are listed, and fast mode's multiplier.
    pub(super) fn services(&mut self) -> BTreeMap<String, crate::pricing::Service> {
        let mut services = BTreeMap::new();
        for (suffix, name) in SERVICES {
            if let (Some(i), Some(o)) = (
                self.get(&format!("input_cost_per_token_{suffix}")),
                self.get(&format!("output_cost_per_token_{suffix}")),
            ) {
                services.insert(
                    name.to_string(),
                    crate::pricing::Service::Prices(crate::pricing::ServicePrices {
                        input: i,
                        output: o,
                        cache_read: self.get(&format!("cache_read_input_token_cost_{suffix}")),
                        cache_write_5m: None,
                        cache_write_1h: None,
                    }),
                );
            }
        }
        if let Some(m) = self.provider_specific("fast") {
            services
                .entry(FAST.to_string())
                .or_insert(crate::pricing::Service::Multiplier(m));
        }
        services
    }

    /// A multiplier in `provider_specific_entry` (`fast` for fast mode, a
    /// region name such as `us` for Anthropic's `inference_geo`): a number
    /// in (0, the book's largest], with at most 6 decimals.
    fn provider_specific(&self, key: &str) -> Option<Decimal> {
        multiplier(self.entry.get("provider_specific_entry")?.get(key)?)
    }

    /// LiteLLM's combined prices (a long-context tier under flex, priority
    /// or batch): tokencast derives them; each is checked against what
    /// LiteLLM lists, and listed in `skipped` only if it differs.
    pub(super) fn check_combined(
        &mut self,
        model: &crate::pricing::ModelPrices,
        skipped: &mut Vec<String>,
    ) {
        let cache = if model.cache_read.is_some() && model.cache_write_5m.is_some() {
            crate::pricing::Cache::FiveMinutes
        } else {
            crate::pricing::Cache::None
        };
        for (t, lc) in model.long_context.iter().enumerate() {
            let n = lc.threshold_tokens / 1000;
            for (suffix, service, mode) in [
                ("flex", Some("flex"), crate::pricing::Mode::Sync),
                ("priority", Some("priority"), crate::pricing::Mode::Sync),
                ("batches", None, crate::pricing::Mode::Batch),
            ] {
                let options = crate::pricing::Options {
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

    /// Regional multipliers LiteLLM lists (its uplift keys, and the regions
    /// of `provider_specific_entry`), each in (0, the book's largest].
    pub(super) fn regions(&mut self) -> BTreeMap<&'static str, String> {
        let mut regions = BTreeMap::new();
        for (key, name) in REGIONS {
            if let Some(m) = self.entry.get(key).and_then(multiplier) {
                self.used.push(key.to_string());
                regions.insert(name, m.to_string());
            }
        }
        for name in GEOS {
            if let Some(m) = self.provider_specific(name) {
                regions.entry(name).or_insert_with(|| m.to_string());
            }
        }
        regions
    }

    /// The web search fee per 1,000 calls (medium context), when listed.
    pub(super) fn web_search(&mut self, id: &str, file: &str, read_on: &str) -> Option<FeeOut> {
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
    pub(super) fn unused(&self, mut skipped: Vec<String>) -> Vec<String> {
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

/// A multiplier as the book accepts it: in (0, the book's largest], with at
/// most 6 decimals.
fn multiplier(v: &Value) -> Option<Decimal> {
    scaled(v, 1).filter(|m| {
        *m > Decimal::ZERO
            && *m <= Decimal::from(crate::pricing::book::MAX_MULTIPLIER)
            && m.scale() <= 6
    })
}

/// The prices of one model as tokencast reads them, to derive and check
/// LiteLLM's combined prices.
pub(super) fn model_prices(
    id: &str,
    prices: &BTreeMap<&'static str, Decimal>,
    long_context: Vec<crate::pricing::LongContext>,
    services: BTreeMap<String, crate::pricing::Service>,
    provider: &str,
) -> crate::pricing::ModelPrices {
    let price = |k: &str| prices.get(k).copied();
    crate::pricing::ModelPrices {
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
        ..crate::pricing::ModelPrices::default()
    }
}

/// The service tiers as the converted book writes them.
pub(super) fn services_out(
    model: &crate::pricing::ModelPrices,
) -> BTreeMap<&'static str, BTreeMap<&'static str, String>> {
    model
        .services
        .iter()
        .filter_map(|(name, s)| {
            let p = match s {
                crate::pricing::Service::Prices(p) => p,
                crate::pricing::Service::Multiplier(m) if name == FAST => {
                    return Some((FAST, BTreeMap::from([("multiplier", m.to_string())])));
                }
                crate::pricing::Service::Multiplier(_) => return None,
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

pub(super) fn convert_one(
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
