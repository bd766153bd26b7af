//! What-ifs that combine (`import --variant`): a variant written as the
//! scenario file writes one, as a TOML inline table, so "trimmed, on Haiku,
//! 5-minute cache" is one figure:
//!
//! ```text
//! --variant '{ name = "trimmed on haiku", results = "trimmed", model = "claude-haiku-4-5", cache = "5m" }'
//! ```
//!
//! Each becomes a variant of every written scenario and a replay of every
//! thread; the summary totals each over the same threads.

use crate::error::InputError;
use crate::limits::MAX_VARIANT_NAME_CHARS;
use crate::pricing::{Cache, Mode, PriceBook};
use crate::scenario::Content;
use serde::{Deserialize, Serialize};

/// Names the import gives its own variants: a variant of the user's may not
/// take one.
const OWN_NAMES: [&str; 4] = ["as recorded", "trimmed", "other cache tier", "batch"];

/// The keys an import writes on every variant of a thread's own models
/// (each request on its own model, the recorded cache shares), which a
/// what-if that stays on those models keeps: the command line's
/// `--variant` and a live import page's alike.
pub const OWN_MODEL_KEYS: [&str; 6] = [
    "recorded_models",
    "cache_hit_share",
    "cache_hit_share_p10",
    "turn_break_share",
    "warm_prefix_share",
    "survived_expiry_share",
];

/// Whether a what-if that names `model` stays on a thread recorded on
/// `thread_model` and `others` more models: it names the one model the
/// thread ran on. It then replays as one that names no model, keeping what
/// the import fitted for that model ([`OWN_MODEL_KEYS`]); moving a thread
/// to the model it already ran on changes nothing.
pub fn stays_on(model: &str, thread_model: &str, others: usize) -> bool {
    others == 0 && model == thread_model
}

/// One `--variant`, checked against the price book.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WhatIfVariant {
    /// Its name in the scenarios and the summary.
    pub name: String,
    /// Raw results, or trimmed by the import's `--trim` rule.
    pub results: Content,
    /// The cache tier; none given: the tier each thread recorded (as the
    /// thread's model offers it).
    #[serde(default)]
    pub cache: Option<Cache>,
    /// Ordinary requests or the batch API.
    #[serde(default)]
    pub mode: Mode,
    /// A model of the price book; none given: each request on its own model.
    #[serde(default)]
    pub model: Option<String>,
    /// A service tier the model's entry prices (flex, priority).
    #[serde(default)]
    pub service: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct One {
    v: WhatIfVariant,
}

impl WhatIfVariant {
    /// The variant for a scenario that has no recorded tier (a forecast's):
    /// without `cache`, uncached.
    pub fn for_scenario(&self) -> crate::scenario::Variant {
        crate::scenario::Variant {
            name: self.name.clone(),
            results: self.results,
            cache: self.cache.unwrap_or(Cache::None),
            mode: self.mode,
            service: self.service.clone(),
            region: None,
        }
    }

    /// The cache tier this variant takes on a thread whose "as recorded"
    /// variant caches at `recorded` (`none`, `5m`, `1h`): its own, else, on
    /// the model `on`, the recorded tier as that model offers it, else the
    /// recorded tier.
    pub fn cache_on(
        &self,
        recorded: &str,
        on: Option<&crate::pricing::ModelPrices>,
    ) -> &'static str {
        let tier = Cache::from_key(recorded).unwrap_or(Cache::None);
        match (self.cache, on) {
            (Some(c), _) => c.key(),
            (None, Some(m)) => m.tier_like(tier).0.key(),
            (None, None) => tier.key(),
        }
    }

    /// The model a `--variant` names, if it reads as one (to choose the
    /// price book before checking it).
    pub fn model_of(text: &str) -> Option<String> {
        toml::from_str::<One>(&format!("v = {text}")).ok()?.v.model
    }

    /// Reads each `--variant` (the `i`-th counted from 1 in messages) and
    /// checks it against `book` on `today`: its model priced, with the tier,
    /// mode and service it asks for; names unique and not the import's own.
    pub fn check_all(
        given: &[String],
        book: &PriceBook,
        today: jiff::civil::Date,
    ) -> Result<Vec<WhatIfVariant>, InputError> {
        let mut out: Vec<WhatIfVariant> = Vec::new();
        for (i, text) in given.iter().enumerate() {
            let at = format!("--variant {} (`{}`)", i + 1, crate::text::display(text));
            let v = toml::from_str::<One>(&format!("v = {text}"))
                .map_err(|e| {
                    InputError::new(format!("{at}: {}", e.message())).with_help(
                        "write it as the scenario file writes a variant, as an inline table: '{ name = \"trimmed on haiku\", results = \"trimmed\", model = \"claude-haiku-4-5\", cache = \"5m\" }' (keys: name, results, cache, mode, model, service)",
                    )
                })?
                .v;
            let name = v.name.trim();
            if name.is_empty() || name.chars().count() > crate::limits::MAX_VARIANT_NAME_CHARS {
                return Err(InputError::new(format!(
                    "{at}: a name of 1 to {MAX_VARIANT_NAME_CHARS} characters is needed"
                )));
            }
            if OWN_NAMES.contains(&name) || name.starts_with("on ") {
                return Err(InputError::new(format!(
                    "{at}: `{name}` is the name of one of the import's own variants"
                ))
                .with_help("name it by what it combines, e.g. \"trimmed on haiku, 5m\""));
            }
            if out.iter().any(|o| o.name == name) {
                return Err(InputError::new(format!(
                    "{at}: a variant is already named `{name}`"
                )));
            }
            if let Some(m) = &v.model {
                let prices = book.get_on(m, today).map_err(|_| {
                    InputError::new(format!("{at}: `{m}` is not in the price book")).with_help(
                        crate::error::did_you_mean(m, book.model_ids(), "The price book has"),
                    )
                })?;
                let opts = crate::pricing::Options {
                    service: v.service.as_deref(),
                    region: None,
                };
                prices
                    .rates_with(v.cache.unwrap_or(Cache::None), v.mode, opts)
                    .map_err(|e| {
                        InputError::new(format!("{at}: `{m}` has no {} prices", e.0.join(", ")))
                            .with_help(
                                "choose a cache tier, mode and service its price book entry has",
                            )
                    })?;
            }
            out.push(WhatIfVariant {
                name: name.to_string(),
                ..v
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::SourceText;

    fn book() -> PriceBook {
        PriceBook::parse(&SourceText {
            name: "b.toml".into(),
            text: r#"
[models.small]
source = "test"
read_on = "2026-11-30"
input = "1"
output = "5"
cache_write_5m = "1.25"
cache_read = "0.1"
"#
            .into(),
        })
        .unwrap()
    }

    fn check(given: &[&str]) -> Result<Vec<WhatIfVariant>, String> {
        let given: Vec<String> = given.iter().map(|s| s.to_string()).collect();
        WhatIfVariant::check_all(&given, &book(), jiff::civil::date(2026, 12, 1))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_variant_is_read_as_the_scenario_file_writes_one() {
        let v = check(&[r#"{ name = "small, trimmed, 5m", results = "trimmed", model = "small", cache = "5m" }"#])
            .unwrap();
        assert_eq!(v[0].name, "small, trimmed, 5m");
        assert_eq!(
            (v[0].results, v[0].cache, v[0].mode),
            (Content::Trimmed, Some(Cache::FiveMinutes), Mode::Sync)
        );
        assert_eq!(v[0].model.as_deref(), Some("small"));
    }

    #[test]
    fn a_variant_the_book_cannot_price_or_name_is_refused_where_it_is() {
        for (given, says) in [
            (
                r#"{ name = "x", results = "raw", model = "small", cache = "1h" }"#,
                "`small` has no",
            ),
            (
                r#"{ name = "x", results = "raw", model = "smal" }"#,
                "`smal` is not in the price book",
            ),
            (
                r#"{ name = "x", results = "raw", colour = "red" }"#,
                "unknown field `colour`",
            ),
            (
                r#"{ name = "batch", results = "raw" }"#,
                "one of the import's own variants",
            ),
            (
                r#"{ name = "", results = "raw" }"#,
                "a name of 1 to 100 characters",
            ),
            (
                r#"{ name = "x", results = "half" }"#,
                "unknown variant `half`",
            ),
            (r#"name = "x""#, "--variant 1"),
        ] {
            let err = check(&[given]).unwrap_err();
            assert!(
                err.contains("--variant 1") && err.contains(says),
                "{given}: {err}"
            );
        }
        let err = check(&[
            r#"{ name = "x", results = "raw" }"#,
            r#"{ name = "x", results = "trimmed" }"#,
        ])
        .unwrap_err();
        assert!(
            err.contains("--variant 2") && err.contains("already named `x`"),
            "{err}"
        );
    }
}
