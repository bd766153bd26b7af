//! The live page's controls, each beside the figure it moves and named by
//! its scenario key (`data-param`): a simulation's run and variants, a
//! forecast's scenario, a corpus forecast's runs a day, and the currency rate.

use super::{Control, ControlGroup};
use crate::document::SimulationDoc;
use crate::engine::context::Strategy;

fn number(param: &str, label: &str, value: String, step: &'static str) -> Control {
    Control {
        param: param.into(),
        label: label.into(),
        value,
        options: Vec::new(),
        step,
    }
}

fn text(param: &str, label: &str, value: String) -> Control {
    Control {
        param: param.into(),
        label: label.into(),
        value,
        options: Vec::new(),
        step: "text",
    }
}

fn choice(param: String, label: &str, value: &str, options: &[&str]) -> Control {
    Control {
        param,
        label: label.into(),
        value: value.into(),
        options: options.iter().map(|o| o.to_string()).collect(),
        step: "",
    }
}

/// The run's group: the model (any of `models`, the scenario's first) and
/// the assumptions; the runs a day only where the page shows days.
fn run_group(
    model: &str,
    models: &[String],
    a: &crate::scenario::Assumptions,
    runs_per_day: bool,
) -> ControlGroup {
    let mut model_options: Vec<String> = models.to_vec();
    if !model_options.iter().any(|m| m == model) {
        model_options.insert(0, model.to_string());
    }
    let mut controls = vec![Control {
        param: "model".into(),
        label: "model".into(),
        value: model.to_string(),
        options: model_options,
        step: "",
    }];
    if runs_per_day {
        controls.push(number(
            "assumptions.runs_per_day",
            if a.team_size > 1 {
                "runs per day, each"
            } else {
                "runs per day"
            },
            a.runs_per_day.to_string(),
            "1",
        ));
        controls.push(number(
            "assumptions.team_size",
            "team size (people)",
            a.team_size.to_string(),
            "1",
        ));
    }
    controls.extend([
        number(
            "assumptions.prefix_tokens",
            "prefix (tokens)",
            a.prefix_tokens.to_string(),
            "1",
        ),
        number(
            "assumptions.output_tokens_per_step",
            "output per step (tokens)",
            a.output_tokens_per_step.to_string(),
            "1",
        ),
        number(
            "assumptions.final_output_tokens",
            "final answer (tokens)",
            a.final_output_tokens.to_string(),
            "1",
        ),
        text(
            "assumptions.trim",
            "trim rule (bytes or %; empty: the trace's)",
            a.trim.to_string(),
        ),
        number(
            "assumptions.bytes_per_token",
            "bytes per token",
            a.bytes_per_token.to_string(),
            "any",
        ),
        number(
            "assumptions.tokenizer_uplift",
            "tokenizer uplift",
            a.tokenizer_uplift.to_string(),
            "any",
        ),
    ]);
    ControlGroup {
        title: "The run".into(),
        controls,
    }
}

/// One group per variant: its results, cache tier and mode.
fn variant_groups<'a>(
    variants: impl Iterator<Item = &'a crate::scenario::Variant>,
) -> Vec<ControlGroup> {
    variants
        .enumerate()
        .map(|(i, variant)| ControlGroup {
            title: format!("Variant {}: {}", i + 1, variant.name),
            controls: vec![
                choice(
                    format!("variants.{i}.results"),
                    "results",
                    &variant.results.to_string(),
                    &["raw", "trimmed"],
                ),
                choice(
                    format!("variants.{i}.cache"),
                    "cache",
                    variant.cache.key(),
                    &["none", "5m", "1h"],
                ),
                choice(
                    format!("variants.{i}.mode"),
                    "mode",
                    variant.mode.key(),
                    &["sync", "batch"],
                ),
            ],
        })
        .collect()
}

/// The currency rate, for amounts not in USD.
fn currency_control(c: &crate::pricing::Currency) -> Option<Control> {
    (!c.is_usd()).then(|| {
        number(
            "currency.per_usd",
            &format!("{} per USD", c.code),
            c.per_usd.normalize().to_string(),
            "any",
        )
    })
}

/// The controls of a corpus forecast's live page: the runs a day and the
/// working days a week (the document's keys).
pub fn corpus_controls(spec: &crate::analysis::corpus::CorpusSpec) -> Vec<ControlGroup> {
    vec![ControlGroup {
        title: "The team's runs".into(),
        controls: vec![
            number(
                "runs_per_day",
                "runs per day",
                spec.runs_per_day.to_string(),
                "1",
            ),
            number(
                "working_days_per_week",
                "working days a week",
                spec.working_days_per_week.to_string(),
                "1",
            ),
            number(
                "team_size",
                "team size (people, each starting the runs a day)",
                spec.team_size.to_string(),
                "1",
            ),
        ],
    }]
}

/// The controls of a forecast's live page: the model, the run's
/// assumptions (no runs a day: a forecast is per run), each variant, and
/// the currency rate, at their values in `scenario`.
pub fn scenario_controls(
    scenario: &crate::scenario::Scenario,
    models: &[String],
) -> Vec<ControlGroup> {
    let mut out = vec![run_group(
        &scenario.prices().model,
        models,
        scenario.assumptions(),
        false,
    )];
    if let Some(c) = currency_control(scenario.currency()) {
        out.push(ControlGroup {
            title: "Currency".into(),
            controls: vec![c],
        });
    }
    out.extend(variant_groups(
        scenario.variants().iter().map(|v| &v.variant),
    ));
    out
}

/// The controls of a simulation's live page: the model, the run's
/// assumptions and each variant's results, cache tier and mode, at their
/// values in the scenario (`models`: every model of its price book).
pub fn controls(doc: &SimulationDoc, models: &[String]) -> Vec<ControlGroup> {
    let sim = &doc.simulation;
    let mut out = vec![run_group(&sim.prices.model, models, &sim.assumptions, true)];
    let seconds = |ms: u64| {
        (rust_decimal::Decimal::from(ms) / rust_decimal::Decimal::ONE_THOUSAND)
            .normalize()
            .to_string()
    };
    let mut plan = Vec::new();
    if let Some(t) = &sim.timing {
        plan.push(number(
            "timing.model_seconds_per_step",
            "model time per step (s)",
            seconds(t.model_ms_per_step),
            "any",
        ));
    } else if let Some(l) = doc.what_if.as_ref().and_then(|w| w.cache_lifetime.as_ref()) {
        plan.push(number(
            "cache_lifetime.model_seconds_per_step",
            "model time per step (s)",
            seconds(l.model_ms_per_step),
            "any",
        ));
    }
    if let Some(c) = doc.what_if.as_ref().and_then(|w| w.context.as_ref()) {
        plan.push(number(
            "context_management.summary_tokens",
            "compaction summary (tokens)",
            c.summary_tokens.to_string(),
            "1",
        ));
        // The settings tried, as TOML lists.
        let listed = |runs: &[crate::engine::context::StrategyRun],
                      of: fn(&Strategy) -> Option<u64>| {
            let values: Vec<String> = runs
                .iter()
                .filter_map(|r| of(&r.strategy))
                .map(|v| v.to_string())
                .collect();
            format!("[{}]", values.join(", "))
        };
        plan.push(text(
            "context_management.thresholds",
            "compaction thresholds (tokens, a list)",
            listed(&c.compaction, |s| match s {
                Strategy::Compact {
                    threshold_tokens, ..
                } => Some(*threshold_tokens),
                _ => None,
            }),
        ));
        plan.push(text(
            "context_management.keep_steps",
            "clearing: steps kept (a list)",
            listed(&c.clearing, |s| match s {
                Strategy::Clear { keep_steps } => Some(*keep_steps),
                _ => None,
            }),
        ));
    }
    if let Some(p) = &doc.periods {
        plan.push(number(
            "plan.working_days_per_week",
            "working days a week",
            p.plan.working_days_per_week.to_string(),
            "1",
        ));
        plan.push(number(
            "plan.monthly_growth",
            "monthly growth (share)",
            p.plan.monthly_growth.normalize().to_string(),
            "any",
        ));
        plan.push(number(
            "plan.budget_per_month",
            "budget a month",
            p.plan
                .budget_per_month
                .map_or(String::new(), |b| b.normalize().to_string()),
            "any",
        ));
    }
    plan.extend(currency_control(&sim.currency));
    if !plan.is_empty() {
        out.push(ControlGroup {
            title: "Time, plan and currency".into(),
            controls: plan,
        });
    }
    out.extend(variant_groups(
        sim.variants.iter().map(|v| &v.variant.variant),
    ));
    out
}
