//! A simulation's page as plain data: its facts, its answer and its blocks
//! (tables and lists in page order, with a [`ChartSlot`] where the charts go).

pub mod backtest;
pub mod tables;
pub mod what_if;

use super::format;
use super::page::{transposed, view, Block, ChartSlot, Fact, Headline};
use super::Fmt;
use crate::document::SimulationDoc;
use crate::engine::Simulation;
use crate::view::format::Scale;

/// Where each variant's cumulative spend crosses the plan's budget.
pub fn budget_lines(fmt: &Fmt, doc: &SimulationDoc) -> Vec<String> {
    let Some(p) = &doc.periods else {
        return Vec::new();
    };
    let Some(budget) = p.plan.budget_per_month else {
        return Vec::new();
    };
    p.variants
        .iter()
        .map(|v| match v.over_budget_from_month {
            Some(m) => format!(
                "{}: over the budget of {} a month from month {m} (cumulative, upper bound).",
                v.name,
                fmt.money(budget, Scale::Cents)
            ),
            None => format!(
                "{}: within the budget of {} a month for the year (upper bound {} against {}).",
                v.name,
                fmt.money(budget, Scale::Cents),
                fmt.money(v.year.upper, Scale::Cents),
                fmt.money(
                    p.budget_cumulative.last().copied().unwrap_or_default(),
                    Scale::Cents
                )
            ),
        })
        .collect()
}

/// The ranking's answer: the cheapest and dearest compared model against
/// the scenario's own (`simulate --models`).
pub fn models_line(fmt: &Fmt, doc: &SimulationDoc) -> Option<String> {
    let r = doc.models.as_ref()?;
    let priced: Vec<_> = r.models.iter().filter(|m| m.total.is_some()).collect();
    let (first, last) = (priced.first()?, priced.last()?);
    let versus = |m: &crate::analysis::models::ModelRow| {
        m.versus_scenario.map_or(String::new(), |v| {
            format!(", {} against {}", format::change(v), r.scenario_model)
        })
    };
    let total = |m: &crate::analysis::models::ModelRow| {
        m.total
            .map_or(String::new(), |t| fmt.money(t.lower, Scale::Run))
    };
    let mut s = format!(
        "Of {} compared model(s), {} runs cheapest: {} a run ({}){}",
        r.models.len(),
        first.model,
        total(first),
        first.cheapest.clone().unwrap_or_default(),
        versus(first)
    );
    if priced.len() > 1 {
        s.push_str(&format!(
            "; the dearest, {}, {} a run{}",
            last.model,
            total(last),
            versus(last)
        ));
    }
    let unpriced = r.models.len() - priced.len();
    if unpriced > 0 {
        s.push_str(&format!(
            "; {unpriced} cannot price any variant (see the table)"
        ));
    }
    s.push_str(". Lower bounds.");
    Some(s)
}

/// The Answer box: cheapest and dearest variant, and the saving.
pub fn headline(fmt: &Fmt, doc: &SimulationDoc) -> Option<Headline> {
    let c = doc.comparison.as_ref()?;
    Some(Headline {
        cheapest: c.cheapest.clone(),
        cheapest_total: fmt.money(c.cheapest_total, Scale::Run),
        dearest: c.dearest.clone(),
        dearest_total: fmt.money(c.dearest_total, Scale::Run),
        saving: fmt.money(c.saving, Scale::Run),
        saving_percent: format::percent(c.saving_share),
        runs_per_day: format::int(doc.simulation.assumptions.runs_a_day()),
        saving_per_day: fmt.money(c.saving_per_day, Scale::Cents),
    })
}

/// The key assumptions beside the answer.
pub fn facts(fmt: &Fmt, sim: &Simulation) -> Vec<Fact> {
    let a = &sim.assumptions;
    let fact = |label: &str, value: String| Fact {
        label: label.into(),
        value,
    };
    let raw = sim.profile(crate::scenario::Content::Raw);
    let trimmed = sim.profile(crate::scenario::Content::Trimmed);
    vec![
        fact("model", sim.prices.model.clone()),
        fact(
            "tool results in the context",
            format!(
                "{} of {} recorded requests",
                sim.tool_results, sim.ledger.requests
            ),
        ),
        fact(
            "tool results, raw → trimmed",
            format!(
                "{} → {} (−{})",
                format::kb(raw.result_bytes),
                format::kb(trimmed.result_bytes),
                format::percent(sim.trim_saving_share)
            ),
        ),
        fact(
            "prefix (system prompt, tools, question)",
            format!("{} tokens", format::int(a.prefix_tokens)),
        ),
        fact(
            "output per step",
            format!("{} tokens", format::int(a.output_tokens_per_step)),
        ),
        fact(
            "final answer",
            format!("{} tokens", format::int(a.final_output_tokens)),
        ),
        fact(
            "token estimate",
            format!(
                "{}{}{}",
                tokens_rule(a),
                counted_note(sim),
                other_bands_note(sim)
            ),
        ),
        fact(
            "trimmed results",
            a.trim
                .sentence()
                .unwrap_or_else(|| "as the trace gives them (`trimmed_bytes`)".to_string()),
        ),
        fact("runs per day", runs_a_day(a)),
        fact(
            "data fee per run (charged)",
            fmt.money(sim.ledger.total_usd, Scale::Request),
        ),
    ]
}

/// The results whose tokens the trace counts, when there are any: "; 42 of
/// the 42 results counted exactly with o200k_base …".
pub fn counted_note(sim: &Simulation) -> String {
    if sim.counted_results == 0 {
        return String::new();
    }
    format!(
        "; {} of the {} results counted exactly with o200k_base, replayed as counted on a model of that tokenizer (GPT-4o, GPT-4.1, GPT-5, the o-series)",
        format::int(sim.counted_results),
        format::int(sim.tool_results)
    )
}

/// The variants on models of another tokenizer than the scenario's and
/// the band each replays at, when there are any: "; on gpt-5 (another
/// tokenizer, o200k): bytes ÷ 4 (lower), × 1.3 (upper), the seed's band".
pub fn other_bands_note(sim: &Simulation) -> String {
    let mut groups: Vec<(&crate::scenario::OtherBand, Vec<&str>)> = Vec::new();
    for v in &sim.variants {
        let Some(b) = &v.tokens else { continue };
        match groups.iter_mut().find(|(g, _)| *g == b) {
            Some((_, names)) => names.push(&v.variant.variant.name),
            None => groups.push((b, vec![&v.variant.variant.name])),
        }
    }
    groups
        .iter()
        .map(|(b, names)| {
            let mut s = format!(
                "; {} (another tokenizer, {}): bytes ÷ {} (lower), × {} (upper)",
                names.join(", "),
                crate::text::display(&b.tokenizer),
                b.bytes_per_token,
                b.tokenizer_uplift
            );
            if let Some(e) = b.estimate_bytes_per_token {
                s.push_str(&format!(", estimate bytes ÷ {e}"));
            }
            if let Some(w) = &b.content_weights {
                s.push_str(&format!(", {}", weights_rule(w)));
            }
            match &b.calibration {
                Some(c) => s.push_str(&format!(
                    ", from the calibration `{}` (family {}, {} measured steps)",
                    crate::text::display(&c.file),
                    crate::text::display(&c.family),
                    format::int(c.steps)
                )),
                None => s.push_str(", the seed's band (no calibration of its family)"),
            }
            s
        })
        .collect()
}

/// How bytes become tokens, as every output words it: the band, the
/// estimate when there is one, and the calibration that set them.
pub fn tokens_rule(a: &crate::scenario::Assumptions) -> String {
    let mut s = format!(
        "bytes ÷ {} (lower), × {} (upper)",
        a.bytes_per_token, a.tokenizer_uplift
    );
    if let Some(e) = a.estimate_bytes_per_token {
        s.push_str(&format!(", estimate bytes ÷ {e}"));
    }
    if let Some(w) = a.weights() {
        s.push_str(&format!(", {}", weights_rule(w)));
    }
    if let Some(c) = &a.calibration {
        s.push_str(&format!(
            ", from the calibration `{}` (family {}, {} measured steps)",
            crate::text::display(&c.file),
            crate::text::display(&c.family),
            format::int(c.steps)
        ));
        if !c.written.is_empty() {
            s.push_str(&format!(
                "; {} as the scenario writes",
                c.written
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    s
}

/// Content weights as every output words them.
pub fn weights_rule(w: &crate::scenario::content::ContentWeights) -> String {
    format!(
        "a byte of code counting as {} bytes, of other tool output as {}, of text as {} (content weights)",
        w.code, w.output, w.text
    )
}

/// The page's blocks in order, with a [`ChartSlot`] where charts go.
pub fn blocks(fmt: &Fmt, doc: &SimulationDoc) -> Vec<Block> {
    let sim = &doc.simulation;
    let mut out = vec![Block::table(transposed(fmt,
        &tables::variants(doc),
        tables::variant_identity_columns(doc),
    )).heading(
        "Variants",
        Some("Lower bound: tokens = bytes ÷ b. Upper bound: prefix and tool results × the tokenizer uplift. Figures are rounded half away from zero; the JSON output carries the exact values.".into()),
    )];
    if let Some(t) = tables::models(doc, false) {
        out.push(Block::slot(ChartSlot::Models).heading(
            "Compared models",
            Some(format!(
                "Every variant moved onto each model, each under its provider's cache rules (the recorded tier where the model prices it, else the tier it has, else uncached). Each variant on each model, and why a model cannot price one, are in the JSON and in models.csv (--csv DIR). {}",
                models_line(fmt, doc).unwrap_or_default()
            )),
        ));
        out.push(Block::table(view(fmt, &t)));
    }
    out.push(Block::slot(ChartSlot::Run).heading("Charts", None));
    out.push(Block::table(transposed(fmt, &tables::per_day(doc), 2)).heading("Tables", None));
    if let Some(t) = tables::periods(doc) {
        out.push(Block {
            list: budget_lines(fmt, doc),
            list_place: true,
            ..Block::table(transposed(fmt, &t, 1))
        });
        out.push(Block::slot(ChartSlot::Cumulative));
    }
    out.push(Block::table(view(fmt, &tables::capabilities(doc))));
    out.push(Block::table(view(fmt, &tables::attribution(doc))));
    if !sim.tool_fees.is_empty() {
        out.push(Block::table(view(fmt, &tables::tool_fees(doc))));
    }
    for t in [tables::requests(doc), tables::ledger(doc)] {
        out.push(Block {
            collapsible: true,
            ..Block::table(view(fmt, &t))
        });
    }
    let recorded = backtest::summary(fmt, doc);
    if !recorded.is_empty() {
        out.push(Block::list("backtest-summary", recorded).heading("Backtest", None));
        out.push(Block::slot(ChartSlot::Backtest));
        for t in [
            backtest::requests(doc),
            backtest::compaction(doc),
            backtest::breaks(doc),
        ]
        .into_iter()
        .flatten()
        {
            out.push(Block {
                collapsible: t.rows.len() > 12,
                ..Block::table(view(fmt, &t))
            });
        }
    }
    let summary = what_if::summary(fmt, doc);
    if !summary.is_empty() {
        out.push(Block::list("what-if-summary", summary).heading("What if", None));
        out.push(Block::slot(ChartSlot::WhatIf));
        for t in what_if::tables(fmt, doc) {
            let long = t.rows.len() > 12;
            out.push(Block {
                collapsible: long,
                ..Block::table(view(fmt, &t))
            });
        }
    }
    out.push(
        Block::table(view(fmt, &tables::assumptions(doc)))
            .heading("Assumptions and price book", None),
    );
    out.push(Block::table(view(fmt, &tables::prices(doc))));
    out
}

/// The run's runs a day in words: the team's, and how they are made when
/// each of several people starts some (`300 (30 each × 10 people)`).
fn runs_a_day(a: &crate::scenario::Assumptions) -> String {
    match a.team_size {
        1 => format::int(a.runs_per_day),
        n => format!(
            "{} ({} each × {} people)",
            format::int(a.runs_a_day()),
            format::int(a.runs_per_day),
            format::int(n)
        ),
    }
}
