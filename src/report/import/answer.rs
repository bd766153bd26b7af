//! The import summary's answer and notes: the headline, what the what-ifs
//! and the ranking of models say, the counts read, and how far the recorded
//! cost per session can be trusted.

use crate::document::import::ImportDoc;
use crate::report::format;
use crate::report::format::Scale;
use crate::report::Fmt;
use crate::text::display;

pub(super) fn counts_line(doc: &ImportDoc) -> String {
    let k = &doc.skipped;
    format!(
        "Read {} files, {} lines ({}). Counted each response once: {} further line(s) of a counted message, {} message(s) logged again, {} tool result(s) logged again, {} zero-usage <synthetic> line(s) and {} line(s) without usage left out; {} problem(s).",
        format::int(doc.files),
        format::int(doc.lines),
        format::bytes_human(doc.bytes),
        format::int(k.repeated_lines),
        format::int(k.duplicate_messages),
        format::int(k.duplicate_results),
        format::int(k.synthetic),
        format::int(k.other_lines),
        format::int(doc.problems.len() as u64),
    )
}

/// The percentiles of the recorded cost per session, with what the number
/// of sessions can support.
pub(super) fn confidence_note(fmt: &Fmt, doc: &ImportDoc) -> String {
    let c = &doc.confidence;
    let parts: Vec<String> = c
        .percentiles
        .iter()
        .map(|s| {
            let interval = match (s.lower, s.upper) {
                (Some(l), Some(u)) => {
                    format!(
                        "95% interval {} – {}",
                        fmt.money(l, Scale::Request),
                        fmt.money(u, Scale::Request)
                    )
                }
                (Some(l), None) => format!(
                    "at least {}; no upper bound yet",
                    fmt.money(l, Scale::Request)
                ),
                (None, Some(u)) => format!("at most {}", fmt.money(u, Scale::Request)),
                (None, None) => "no interval yet".into(),
            };
            format!(
                "p{} {} ({interval})",
                s.percentile,
                fmt.money(
                    rust_decimal::Decimal::from_f64_retain(s.estimate).unwrap_or_default(),
                    Scale::Request
                )
            )
        })
        .collect();
    format!(
        "Recorded cost per session over the {} fully priced session(s): {}. Intervals are distribution-free (order statistics), percentiles statrs R-8. A p99 budget at 95% confidence needs {} independent sessions; this import has {}.",
        c.sessions,
        parts.join(", "),
        c.needed_for_p99,
        c.sessions
    )
}

/// The combined what-ifs' answer: each one's estimate against the same
/// threads as recorded.
pub(super) fn combined_line(fmt: &Fmt, doc: &ImportDoc) -> Option<String> {
    if doc.variants.is_empty() {
        return None;
    }
    let parts: Vec<String> = doc
        .variants
        .iter()
        .map(|v| {
            let dp = Scale::Request;
            match (v.sessions, v.versus_as_recorded) {
                (0, _) => format!(
                    "{} could not be replayed on any thread",
                    display(&v.variant.name)
                ),
                (_, Some(x)) => format!(
                    "{} {} ({} against {} as recorded)",
                    display(&v.variant.name),
                    fmt.money(v.cost.estimate, dp),
                    format::change(x),
                    fmt.money(v.as_recorded.estimate, dp)
                ),
                (_, None) => format!(
                    "{} {}",
                    display(&v.variant.name),
                    fmt.money(v.cost.estimate, dp)
                ),
            }
        })
        .collect();
    Some(format!("Your variants, estimate: {}.", parts.join("; ")))
}

/// The ranking's answer: the cheapest and dearest compared model against
/// the same threads as recorded.
pub(super) fn ranking_line(fmt: &Fmt, doc: &ImportDoc) -> Option<String> {
    let (first, last) = (doc.ranking.first()?, doc.ranking.last()?);
    let dp = Scale::Request;
    let versus = |m: &crate::document::import::ModelRank| {
        m.versus_as_recorded.map_or(String::new(), |v| {
            format!(
                ", {} against {} as recorded",
                format::change(v),
                fmt.money(m.as_recorded.estimate, dp)
            )
        })
    };
    let mut s = if doc.ranking.len() == 1 {
        format!(
            "On {} these threads come to {}{}",
            display(&first.model),
            fmt.money(first.cost.estimate, dp),
            versus(first)
        )
    } else {
        format!(
            "Of {} compared models, the cheapest for these threads is {} at {}{}; the dearest {} at {}",
            doc.ranking.len(),
            display(&first.model),
            fmt.money(first.cost.estimate, dp),
            versus(first),
            display(&last.model),
            fmt.money(last.cost.estimate, dp)
        )
    };
    s.push_str(". Estimates, each under its provider's cache rules.");
    Some(s)
}

/// The answer first: what every session cost as recorded, and what the
/// replay of their threads gives, summed (the "all" row of the days table).
pub(super) fn headline(fmt: &Fmt, doc: &ImportDoc) -> String {
    let t = &doc.totals;
    // A sum of sessions, at the sessions' own decimals.
    let dp = Scale::Request;
    let mut s = format!(
        "In all: {} session(s), {} request(s), ",
        format::int(t.sessions),
        format::int(t.requests),
    );
    if t.requests > 0 && t.unpriced_requests == t.requests {
        // Never a bare $0 for what could not be priced.
        s.push_str("none priced (every request is on a model the price book does not price).");
        return s;
    }
    s.push_str(&format!(
        "recorded {}",
        fmt.money(t.recorded_cost.unwrap_or_default(), dp)
    ));
    if t.unpriced_requests > 0 {
        s.push_str(&format!(
            " ({} request(s) on unpriced models not in it)",
            format::int(t.unpriced_requests)
        ));
    }
    if let Some(w) = &t.what_if {
        let a = &w.as_recorded;
        s.push_str(&format!(
            "; replayed as recorded, the threads billed {} come to {} – {}, estimate {}",
            fmt.money(t.replayed_recorded_cost, dp),
            fmt.money(a.lower, dp),
            fmt.money(a.upper, dp),
            fmt.money(a.estimate, dp)
        ));
    }
    s.push('.');
    s
}

/// What `--unnamed-model` assumed, when it gave any request a model.
pub(super) fn unnamed_line(doc: &ImportDoc) -> Option<String> {
    doc.unnamed_model.as_ref().map(|u| {
        format!(
            "{} request(s) whose log names no model are priced as {} (--unnamed-model).",
            format::int(u.requests),
            display(&u.model)
        )
    })
}

/// The rest of the answer: each what-if's estimate over the same threads,
/// and the dearest sessions as recorded (figures of the document, in its
/// order of size). Empty when nothing was priced.
pub(super) fn answer_details(fmt: &Fmt, doc: &ImportDoc) -> Vec<String> {
    let t = &doc.totals;
    let dp = Scale::Request;
    let mut out = Vec::new();
    if let Some(w) = t
        .what_if
        .as_ref()
        .filter(|_| t.unpriced_requests < t.requests)
    {
        let mut parts = vec![format!(
            "as recorded {}",
            fmt.money(w.as_recorded.estimate, dp)
        )];
        // The document words the rule "trimmed = …"; without one it is raw.
        if let Some(rule) = doc
            .trim
            .strip_prefix("trimmed = ")
            .filter(|r| !r.starts_with("raw"))
        {
            let rule = rule.split(" (--trim").next().unwrap_or(rule);
            parts.push(format!(
                "trimmed to {rule} {}",
                fmt.money(w.trimmed.estimate, dp)
            ));
        }
        if let Some(b) = &w.other_tier {
            parts.push(format!(
                "on the other cache tier {}",
                fmt.money(b.estimate, dp)
            ));
        }
        if let Some(b) = &w.batch {
            parts.push(format!("in batch {}", fmt.money(b.estimate, dp)));
        }
        if let (Some(b), Some(m)) = (&w.other_model, &doc.compare_model) {
            parts.push(format!("on {} {}", display(m), fmt.money(b.estimate, dp)));
        }
        out.push(format!("The same threads, estimate: {}.", parts.join("; ")));
    }
    let mut priced: Vec<_> = doc
        .sessions
        .iter()
        .filter(|r| {
            r.recorded_cost
                .is_some_and(|c| c > rust_decimal::Decimal::ZERO)
        })
        .collect();
    priced.sort_by(|a, b| {
        b.recorded_cost
            .cmp(&a.recorded_cost)
            .then(a.session.cmp(&b.session))
    });
    if !priced.is_empty() {
        let top: Vec<String> = priced
            .iter()
            .take(3)
            .map(|r| {
                let id: String = r.session.chars().take(8).collect();
                format!(
                    "{} {}",
                    display(&id),
                    fmt.money(r.recorded_cost.unwrap_or_default(), dp)
                )
            })
            .collect();
        out.push(format!("Dearest sessions as recorded: {}.", top.join(", ")));
    }
    out
}

pub(super) fn what_if_note(doc: &ImportDoc) -> String {
    let mut s = format!(
        "Replays cover the threads of two or more requests, each replayed by the engine request by request from its trace (what entered before each request, its own output, model and gap, recorded compactions): as recorded (raw results, the recorded cache tier), {}, on the other cache tier, in batch{}. Each gives lower, estimate and upper: bytes per token fitted from the thread's recorded prompt growth, each content kind (code, other tool output, text) weighed by its own fit where it has one (or the seed's ÷4 … ×1.3 when too few steps were measured).",
        doc.trim,
        doc.compare_model
            .as_ref()
            .map_or(String::new(), |m| format!(" and on {m}"))
    );
    if !doc.compare_models.is_empty() {
        s.push_str(" A compared model that counts with another tokenizer than a thread's (an OpenAI model for a Claude thread) takes the seed's band for that thread's bytes, not the thread's fit.");
    }
    let with: Vec<_> = doc
        .sessions
        .iter()
        .filter(|r| r.unmeasured.steps > 0)
        .collect();
    if !with.is_empty() {
        let steps: u64 = with.iter().map(|r| r.unmeasured.steps).sum();
        let tokens = with
            .iter()
            .fold(0u64, |t, r| t.saturating_add(r.unmeasured.tokens));
        s.push_str(&format!(
            " In {} session(s), {} step(s) grew by {} tokens more than the log lets anyone measure (an output logged as a streaming snapshot, context a compaction restored, lines the log lost): the replay takes those tokens from the recorded prompt (field unmeasured of each session in --format json).",
            format::int(with.len() as u64),
            format::int(steps),
            format::int(tokens)
        ));
    }
    let shared = doc
        .sessions
        .iter()
        .filter(|r| r.cache_hit_share_threads > 0)
        .count();
    if shared > 0 {
        s.push_str(&format!(
            " In {} session(s) on a provider that caches every prefix on its own (OpenAI, Google), the cache is read as the log shows: each thread's estimate reads the share of the previous prompt and response that its requests read from the cache, its upper bound that share's p10 (misses come in lumps), its lower bound all of it (cache_hit_share and cache_hit_share_p10 in the thread's scenario, cache_hit_share_threads of each session in --format json).",
            format::int(shared as u64)
        ));
    }
    s
}
