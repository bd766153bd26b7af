//! The same run on other models (`simulate --models`): every variant moved
//! onto each model under its provider's cache rules
//! ([`Scenario::on_model`]), replayed by the same engine, and the models
//! ranked by their cheapest variant.

use crate::engine::{simulate, Bounds, SimulateOptions};
use crate::pricing::ModelPrices;
use crate::scenario::Scenario;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// One variant of the run on one model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OnModel {
    /// The variant's name, as the scenario gives it.
    pub variant: String,
    /// Its total for one run; none when the model cannot price it.
    pub total: Option<Bounds>,
    /// What changed about its cache on this model, or why it is not priced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One model's place in the ranking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRow {
    /// The model id.
    pub model: String,
    /// How it caches ([`ModelPrices::cache_rule`]).
    pub cache: String,
    /// Each variant, in scenario order.
    pub variants: Vec<OnModel>,
    /// The variant it runs cheapest (by the lower bound; the first of equals).
    pub cheapest: Option<String>,
    /// That variant's total for one run.
    pub total: Option<Bounds>,
    /// `total.lower ÷ the scenario's own cheapest total − 1`, rounded to 4 places.
    pub versus_scenario: Option<Decimal>,
}

/// Every model asked for, cheapest first; models that can price no variant last.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRanking {
    /// The scenario's own model.
    pub scenario_model: String,
    /// Its cheapest variant's total for one run (lower and upper bound).
    pub scenario_total: Bounds,
    /// The models.
    pub models: Vec<ModelRow>,
}

/// The cheapest variant of a replay: its name and total (lower bound first,
/// the first of equals).
fn cheapest(sim: &crate::engine::Simulation) -> Option<(String, Bounds)> {
    sim.variants
        .iter()
        .reduce(|a, b| {
            if b.cost.total.lower < a.cost.total.lower {
                b
            } else {
                a
            }
        })
        .map(|v| (v.variant.variant.name.clone(), v.cost.total))
}

/// Ranks `models` by the cost of `scenario`'s run on each, against `own`,
/// the scenario's replay as it is (not replayed again).
pub fn rank(
    scenario: &Scenario,
    own: &crate::engine::Simulation,
    models: &[ModelPrices],
) -> ModelRanking {
    let scenario_total = cheapest(own).map_or(Bounds::default(), |(_, t)| t);
    let mut rows: Vec<ModelRow> = models
        .iter()
        .map(|m| {
            let (moved, notes) = scenario.on_model(m);
            let sim = moved.as_ref().map(|s| simulate(s, SimulateOptions::TOTALS));
            let mut priced = sim.iter().flat_map(|s| s.variants.iter());
            let variants: Vec<OnModel> = scenario
                .variants()
                .iter()
                .zip(notes)
                .map(|(v, note)| match note {
                    Ok(note) => OnModel {
                        variant: v.variant.name.clone(),
                        total: priced.next().map(|p| p.cost.total),
                        note,
                    },
                    Err(why) => OnModel {
                        variant: v.variant.name.clone(),
                        total: None,
                        note: Some(why),
                    },
                })
                .collect();
            let best = sim.as_ref().and_then(cheapest);
            ModelRow {
                model: m.model.clone(),
                cache: m.cache_rule().to_string(),
                variants,
                versus_scenario: best
                    .as_ref()
                    .and_then(|(_, t)| super::relative_change(t.lower, scenario_total.lower)),
                cheapest: best.as_ref().map(|(n, _)| n.clone()),
                total: best.map(|(_, t)| t),
            }
        })
        .collect();
    rows.sort_by(|a, b| match (a.total, b.total) {
        (Some(x), Some(y)) => x.lower.cmp(&y.lower).then_with(|| a.model.cmp(&b.model)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.model.cmp(&b.model),
    });
    ModelRanking {
        scenario_model: scenario.prices().model.clone(),
        scenario_total,
        models: rows,
    }
}

#[cfg(test)]
mod tests {
    use super::super::relative_change;
    use rust_decimal::Decimal;

    #[test]
    fn a_change_is_a_share_and_never_a_panic() {
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        assert_eq!(relative_change(d("0.65"), d("1")), Some(d("-0.35")));
        assert_eq!(relative_change(d("3"), d("1")), Some(d("2")));
        assert_eq!(relative_change(d("1"), Decimal::ZERO), None);
        // A quotient beyond exact decimals is none, not an overflow.
        assert_eq!(
            relative_change(Decimal::MAX, d("0.0000000000000000000000000001")),
            None
        );
    }
}
