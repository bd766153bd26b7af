//! The `diff` document: two results compared figure by figure, like
//! `infracost diff`.
//!
//! Each side is a [`SimulationDoc`], read back typed from a saved file or
//! built by simulating a scenario, so both compare the same way and a field
//! that is missing is an error when the file is read, not a blank here.

use super::SimulationDoc;
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
    /// Every figure, in a stable order.
    pub lines: Vec<DiffLine>,
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
    let lines = keys
        .into_iter()
        .map(|key| {
            let (va, vb) = (get(&fa, key), get(&fb, key));
            let delta = va.zip(vb).map(|(x, y)| y - x);
            let delta_share = va
                .zip(delta)
                .and_then(|(x, d)| (!x.is_zero()).then(|| d / x));
            DiffLine {
                key: key.to_string(),
                a: va,
                b: vb,
                delta,
                delta_share,
            }
        })
        .collect();
    DiffDoc {
        a: label_a.to_string(),
        b: label_b.to_string(),
        inputs: a
            .simulation
            .inputs
            .iter()
            .chain(&b.simulation.inputs)
            .cloned()
            .collect(),
        lines,
    }
}
