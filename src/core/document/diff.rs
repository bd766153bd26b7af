//! The `diff` document: two results compared figure by figure, like
//! `infracost diff`.
//!
//! Each side is a [`SimulationDoc`], read back typed from a saved file or
//! built by simulating a scenario, so both compare the same way and a field
//! that is missing is an error when the file is read, not a blank here.

use super::SimulationDoc;
use crate::pricing::Currency;
use crate::scenario::InputFile;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// One compared figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiffLine {
    /// What the figure is: `variant · line · bound`.
    pub key: String,
    /// Value on the left, if present.
    pub a: Option<Decimal>,
    /// Value on the right, if present.
    pub b: Option<Decimal>,
    /// b − a, when both are present.
    pub delta: Option<Decimal>,
    /// (b − a) ÷ a, when both are present and a ≠ 0.
    pub delta_share: Option<Decimal>,
}

/// One input that differs between the two sides: an assumption, a price,
/// the model, or the trace's digest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputChange {
    /// What changed, e.g. `assumptions.output_tokens_per_step`.
    pub what: String,
    /// The left value, as written (none when absent).
    pub a: Option<String>,
    /// The right value.
    pub b: Option<String>,
}

/// How the headline figure moved: the cheapest variant's total for one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeadlineChange {
    /// The cheapest variant on the left, and its total (lower bound).
    pub a_variant: String,
    /// Its total.
    pub a_total: Decimal,
    /// The cheapest variant on the right.
    pub b_variant: String,
    /// Its total.
    pub b_total: Decimal,
    /// b − a.
    pub delta: Decimal,
    /// (b − a) ÷ a, when a ≠ 0.
    pub delta_share: Option<Decimal>,
}

/// A whole comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiffDoc {
    /// Left name (its file).
    pub a: String,
    /// Right name.
    pub b: String,
    /// Both sides' input files, left then right.
    #[serde(default)]
    pub inputs: Vec<InputFile>,
    /// What differs in the inputs, before any figure.
    #[serde(default)]
    pub input_changes: Vec<InputChange>,
    /// The headline total, left against right.
    #[serde(default)]
    pub headline: Option<HeadlineChange>,
    /// True when no input and no figure differs.
    #[serde(default)]
    pub identical: bool,
    /// Every figure, in a stable order.
    pub lines: Vec<DiffLine>,
    /// The currency of both sides' amounts.
    #[serde(default, skip_serializing_if = "Currency::is_usd")]
    pub currency: Currency,
}

/// The inputs of one side as (what, value) pairs, in a stable order.
fn input_values(doc: &SimulationDoc) -> Vec<(String, String)> {
    let sim = &doc.simulation;
    let a = &sim.assumptions;
    let p = &sim.prices;
    let mut out = vec![
        ("model".to_string(), p.model.clone()),
        (
            "currency".to_string(),
            if sim.currency.is_usd() {
                "USD".to_string()
            } else {
                format!(
                    "{} at {} per USD ({})",
                    sim.currency.code, sim.currency.per_usd, sim.currency.rate_date
                )
            },
        ),
        (
            "price date".to_string(),
            sim.price_date
                .as_ref()
                .map_or("not used".into(), |d| format!("{} ({})", d.date, d.from)),
        ),
        (
            "assumptions.prefix_tokens".into(),
            a.prefix_tokens.to_string(),
        ),
        (
            "assumptions.output_tokens_per_step".into(),
            a.output_tokens_per_step.to_string(),
        ),
        (
            "assumptions.final_output_tokens".into(),
            a.final_output_tokens.to_string(),
        ),
        (
            "assumptions.bytes_per_token".into(),
            a.bytes_per_token.to_string(),
        ),
        (
            "assumptions.tokenizer_uplift".into(),
            a.tokenizer_uplift.to_string(),
        ),
        (
            "assumptions.content_weights".into(),
            a.weights().map_or("none".into(), |w| {
                format!("code {} / output {} / text {}", w.code, w.output, w.text)
            }),
        ),
        (
            "assumptions.runs_per_day".into(),
            a.runs_per_day.to_string(),
        ),
        ("tool results".into(), sim.tool_results.to_string()),
    ];
    for (name, v) in p.listed() {
        if let Some(v) = v {
            out.push((format!("prices.{name}"), v.normalize().to_string()));
        }
    }
    // The scenario, price book and trace files by digest (an inline trace is
    // part of the scenario file).
    for (i, f) in sim.inputs.iter().enumerate() {
        let role = ["scenario file", "price book", "trace file"]
            .get(i)
            .copied()
            .unwrap_or("input file");
        out.push((
            format!("{role} sha256"),
            f.sha256.chars().take(16).collect(),
        ));
    }
    out
}

fn input_changes(a: &SimulationDoc, b: &SimulationDoc) -> Vec<InputChange> {
    let (va, vb) = (input_values(a), input_values(b));
    let mut keys: Vec<&String> = va.iter().map(|(k, _)| k).collect();
    for (k, _) in &vb {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let get =
        |v: &[(String, String)], k: &str| v.iter().find(|(x, _)| x == k).map(|(_, v)| v.clone());
    keys.into_iter()
        .filter_map(|k| {
            let (x, y) = (get(&va, k), get(&vb, k));
            (x != y).then(|| InputChange {
                what: k.clone(),
                a: x,
                b: y,
            })
        })
        .collect()
}

fn headline(a: &SimulationDoc, b: &SimulationDoc) -> Option<HeadlineChange> {
    let cheapest = |d: &SimulationDoc| {
        d.simulation
            .variants
            .iter()
            .min_by_key(|v| v.cost.total.lower)
            .map(|v| (v.variant.variant.name.clone(), v.cost.total.lower))
    };
    let ((a_variant, a_total), (b_variant, b_total)) = (cheapest(a)?, cheapest(b)?);
    let delta = b_total.checked_sub(a_total)?;
    Some(HeadlineChange {
        a_variant,
        a_total,
        b_variant,
        b_total,
        delta,
        delta_share: if a_total.is_zero() {
            None
        } else {
            delta.checked_div(a_total)
        },
    })
}

/// The figures of one result, keyed and ordered.
fn figures(doc: &SimulationDoc) -> Vec<(String, Decimal)> {
    let sim = &doc.simulation;
    let mut out = Vec::new();
    for p in &sim.context {
        for (bound, v) in [
            ("lower", p.final_request_input.lower),
            ("upper", p.final_request_input.upper),
        ] {
            out.push((
                format!(
                    "{} results · final request input tokens · {bound}",
                    p.results
                ),
                v,
            ));
        }
    }
    for v in &sim.variants {
        let name = &v.variant.variant.name;
        let c = &v.cost;
        for (line, b) in [
            ("uncached_input", c.uncached_input),
            ("cache_write", c.cache_write),
            ("cache_read", c.cache_read),
            ("input", c.input),
            ("output", c.output),
            ("data_fee", c.data_fee),
            ("total", c.total),
        ] {
            out.push((format!("{name} · {line} · lower"), b.lower));
            out.push((format!("{name} · {line} · upper"), b.upper));
        }
        out.push((
            format!("{name} · per day total · lower"),
            v.per_day.total.lower,
        ));
        out.push((
            format!("{name} · per day total · upper"),
            v.per_day.total.upper,
        ));
    }
    out.push(("data fee (ledger)".into(), sim.ledger.total_usd));
    out
}

/// Compares two results, labelled `label_a` and `label_b` (file names, say).
pub fn compare(a: &SimulationDoc, b: &SimulationDoc, label_a: &str, label_b: &str) -> DiffDoc {
    let fa = figures(a);
    let fb = figures(b);
    let mut keys: Vec<&str> = fa.iter().map(|(k, _)| k.as_str()).collect();
    for (k, _) in &fb {
        if !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    let get = |f: &[(String, Decimal)], k: &str| f.iter().find(|(x, _)| x == k).map(|(_, v)| *v);
    let lines: Vec<DiffLine> = keys
        .into_iter()
        .map(|key| {
            let (va, vb) = (get(&fa, key), get(&fb, key));
            // Checked: saved documents can hold any decimal; a change too
            // large for exact decimals has no delta rather than a wrong one.
            let delta = va.zip(vb).and_then(|(x, y)| y.checked_sub(x));
            let delta_share =
                va.zip(delta)
                    .and_then(|(x, d)| if x.is_zero() { None } else { d.checked_div(x) });
            DiffLine {
                key: key.to_string(),
                a: va,
                b: vb,
                delta,
                delta_share,
            }
        })
        .collect();
    let input_changes = input_changes(a, b);
    let identical = input_changes.is_empty()
        && lines
            .iter()
            .all(|l: &DiffLine| l.delta.is_some_and(|d| d.is_zero()));
    DiffDoc {
        a: label_a.to_string(),
        b: label_b.to_string(),
        input_changes,
        headline: headline(a, b),
        identical,
        inputs: a
            .simulation
            .inputs
            .iter()
            .chain(&b.simulation.inputs)
            .cloned()
            .collect(),
        lines,
        currency: a.simulation.currency.clone(),
    }
}
