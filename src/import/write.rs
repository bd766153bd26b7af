//! A thread as files `tokencast simulate` accepts as they are: a trace CSV
//! with one row per tool result (tool name, sizes, timings and the recorded
//! usage of the request that carried it) and a scenario TOML around it.
//!
//! Nothing of the logs' text is written: only sizes, counts, names of tools
//! and models, and timestamps.

use super::{Session, Thread};
use crate::pricing::{Cache, Mode, ModelPrices};
use crate::scenario::trace::TraceRow;
use rust_decimal::Decimal;

/// The trace header every imported trace starts with (its marker).
pub use crate::scenario::trace::TRACE_HEADER;
mod scenario;
pub use scenario::{fitted_hit_share, scenario_doc, with_trace_file};

/// The capability of a row for a request that nothing measurable preceded
/// (the previous request's output is all that entered).
pub const NOTHING_NEW: &str = crate::scenario::trim::NOT_TOOL_RESULTS[3];

pub use crate::scenario::trim::Trim;

/// The results of a thread that reached the model (carried by a request), in order.
pub fn sent_results(t: &Thread) -> impl Iterator<Item = &super::ToolResult> {
    t.results.iter().filter(|r| r.carried_by.is_some())
}

/// The capability of the row that carries an earlier request's output
/// back, when the log's output count cannot be trusted (see [`sent_back`]).
pub const ASSISTANT_OUTPUT: &str = crate::scenario::trim::NOT_TOOL_RESULTS[2];

/// Most bytes a token of output can stand for; a logged output count below
/// its own content's bytes ÷ this is a streaming snapshot (Claude Code logs
/// the usage of a message's first block), not the final count.
pub const MAX_OUTPUT_BYTES_PER_TOKEN: u64 = 6;

/// How an earlier request's output enters a later prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SentBack {
    /// The previous request's output sent back, in tokens as billed.
    pub tokens: u64,
    /// Of the previous request's output, tokens billed but not sent back
    /// as tokens (its reasoning, or all of it when it goes back as bytes).
    pub hidden: u64,
    /// Or, when the logged count is a streaming snapshot, the bytes of its
    /// logged content (text, thinking, tool calls), measured like any other
    /// context.
    pub bytes: u64,
    /// Reasoning sent back earlier in the turn this request closes, taken
    /// out of the context before it.
    pub dropped: u64,
    /// A user message starts a new turn here, on a model whose API takes
    /// earlier turns' thinking out ([`super::strips_earlier_thinking`]),
    /// whether or not the log kept any thinking to drop.
    pub new_turn: bool,
}

/// For each request of `t` (index 0: nothing before it), how the output
/// of the requests before it is carried.
///
/// Output is sent back as billed, or, when the logged count is a snapshot
/// (below its own content's bytes ÷ [`MAX_OUTPUT_BYTES_PER_TOKEN`]), as
/// the bytes of its content. Reasoning ([`Request::reasoning_tokens`]:
/// OpenAI's reasoning tokens where the log splits them, the thinking of a
/// Claude model that strips earlier turns' thinking) follows the Responses
/// API and the Messages API alike: the reasoning of a turn is sent back
/// with each tool result of that turn, and dropped from the context once a
/// user message starts the next one.
///
/// [`Request::reasoning_tokens`]: super::Request::reasoning_tokens
pub fn sent_back(t: &Thread) -> Vec<SentBack> {
    let mut user = vec![false; t.requests.len()];
    for r in sent_results(t) {
        if r.kind == super::ContextKind::User {
            if let Some(u) = r.carried_by.and_then(|k| user.get_mut(k)) {
                *u = true;
            }
        }
    }
    let mut out = vec![SentBack::default(); t.requests.len()];
    let mut turn = 0u64;
    for (k, pair) in t.requests.windows(2).enumerate().map(|(i, w)| (i + 1, w)) {
        let (prev, now) = (&pair[0], &pair[1]);
        let billed = prev.usage.output;
        let hidden = prev.reasoning_tokens();
        let new_turn =
            user[k] && !now.compacted_before && super::strips_earlier_thinking(&now.model);
        out[k] = if prev.output_bytes > billed.saturating_mul(MAX_OUTPUT_BYTES_PER_TOKEN) {
            // Billed as logged, carried as the bytes of its content.
            SentBack {
                bytes: prev.output_bytes,
                hidden: billed,
                new_turn,
                ..SentBack::default()
            }
        } else if user[k] || now.compacted_before {
            // A compaction removes the whole turn anyway (see `Compactions`).
            let dropped = std::mem::take(&mut turn);
            SentBack {
                tokens: billed - hidden,
                hidden,
                dropped: if now.compacted_before { 0 } else { dropped },
                bytes: 0,
                new_turn,
            }
        } else {
            turn = turn.saturating_add(hidden);
            SentBack {
                tokens: billed,
                ..SentBack::default()
            }
        };
    }
    out
}

/// The trace rows of one thread: for every recorded request after the
/// first, one row per thing that entered the context before it (tool
/// results, user messages, attachments), or one empty row when nothing
/// measurable did. A request's first row carries its recorded usage, the
/// previous request's output sent back with it and the gap since that
/// request; further rows of the same request leave them empty.
///
/// `unmeasured` gives, per request, the tokens that entered before it that
/// the log does not let anyone measure
/// ([`unmeasured_tokens`](super::calibrate::unmeasured_tokens)); missing
/// entries count as none.
pub fn trace_rows<'t>(
    t: &'t Thread,
    trim: Trim,
    unmeasured: &[u64],
) -> Vec<TraceRow<std::borrow::Cow<'t, str>>> {
    let mut by_request: Vec<Vec<&super::ToolResult>> = vec![Vec::new(); t.requests.len()];
    for r in sent_results(t) {
        if let Some(list) = r.carried_by.and_then(|k| by_request.get_mut(k)) {
            list.push(r);
        }
    }
    let mut rows = Vec::new();
    let mut call = 0u64;
    let sent = sent_back(t);
    for (k, carried) in by_request.iter().enumerate().skip(1) {
        let (prev, q) = (&t.requests[k - 1], &t.requests[k]);
        let gap = match (prev.at_ms, q.at_ms) {
            // A gap past the limit (a year) is capped: any such gap expires
            // every cache tier the same.
            (Some(a), Some(b)) => Some(
                u64::try_from(b.saturating_sub(a))
                    .unwrap_or(0)
                    .min(crate::limits::MAX_GAP_MS),
            ),
            _ => None,
        };
        let SentBack {
            tokens: resent,
            hidden,
            bytes: output_bytes,
            dropped,
            new_turn,
        } = sent[k];
        let output_row = (output_bytes > 0).then(|| super::ToolResult {
            kind: super::ContextKind::User,
            tool: ASSISTANT_OUTPUT.into(),
            bytes: output_bytes,
            images: 0,
            documents: 0,
            o200k_tokens: None,
            is_error: false,
            latency_ms: 0,
            carried_by: Some(k),
            cleared_by: None,
            at_ms: None,
        });
        let entries: Vec<&super::ToolResult> =
            output_row.iter().chain(carried.iter().copied()).collect();
        for i in 0..entries.len().max(1) {
            let first = i == 0;
            let on_first = |v: u64| first.then_some(v);
            let r = entries.get(i).copied();
            call += 1;
            let bytes = r.map_or(0, |r| r.bytes);
            let tool = r.is_some_and(|r| r.kind == super::ContextKind::Tool);
            // A tool never reads as one of the rows that are not tool
            // results. Names borrow from the thread (the output row's is
            // the constant it was made with).
            let of_thread = i
                .checked_sub(usize::from(output_row.is_some()))
                .and_then(|j| carried.get(j).copied());
            let capability = match (r, of_thread) {
                (None, _) => std::borrow::Cow::Borrowed(NOTHING_NEW),
                (Some(_), None) => std::borrow::Cow::Borrowed(ASSISTANT_OUTPUT),
                (Some(_), Some(c)) if tool => crate::scenario::trim::tool_capability(&c.tool),
                (Some(_), Some(c)) => std::borrow::Cow::Borrowed(c.tool.as_str()),
            };
            rows.push(TraceRow {
                // A thread has far fewer rows than a trace may (MAX_TRACE_ROWS).
                call: Some(u32::try_from(call).unwrap_or(u32::MAX)),
                round: None,
                capability,
                params: "".into(),
                status: 200,
                items: u64::from(r.is_some()),
                raw_bytes: Some(bytes),
                trimmed_bytes: Some(if tool { trim.apply(bytes) } else { bytes }),
                latency_ms: r.map_or(0, |r| r.latency_ms),
                charged_usd: Decimal::ZERO,
                replayed: false,
                images: Some(r.map_or(0, |r| r.images)),
                documents: Some(r.map_or(0, |r| r.documents)),
                content: r.map(super::ToolResult::content_kind),
                o200k_tokens: r.and_then(|r| r.o200k_tokens),
                request: Some((k + 1) as u64),
                timestamp: Some(q.timestamp.as_deref().unwrap_or_default().into()),
                model: Some(q.model.as_str().into()),
                recorded_input: on_first(q.usage.input),
                recorded_cache_write_5m: on_first(q.usage.cache_write_5m),
                recorded_cache_write_1h: on_first(q.usage.cache_write_1h),
                recorded_cache_read: on_first(q.usage.cache_read),
                recorded_output: on_first(q.usage.output),
                resent_output: on_first(resent),
                hidden_output: on_first(hidden),
                dropped_output: (first && (dropped > 0 || new_turn)).then_some(dropped),
                unmeasured_tokens: unmeasured.get(k).copied().filter(|u| first && *u > 0),
                gap_ms: gap.filter(|_| first),
                // Only where the log marks one: a recorded prompt is what
                // the replay is checked against, never what drives it.
                compacted: (first && q.compacted_before).then_some(true),
                cleared_before: r.and_then(|r| r.cleared_by).map(|c| (c + 1) as u64),
                note: if r.is_some_and(|r| r.is_error) {
                    "tool error"
                } else {
                    ""
                }
                .into(),
            });
        }
    }
    rows
}

/// What a scenario needs besides the thread.
pub struct ScenarioSpec<'a> {
    /// The source's command-line name (`claude-code`, `codex`).
    pub source: &'a str,
    /// The session.
    pub session: &'a Session,
    /// The price book's path as the scenario writes it (relative to the scenario).
    pub prices_path: &'a str,
    /// The thread's model's entry, when the book has it.
    pub prices: Option<&'a ModelPrices>,
    /// The trace file's name, next to the scenario.
    pub trace_file: &'a str,
    /// The trim rule.
    pub trim: Trim,
    /// Other models of the book to compare with: a variant on each.
    pub compare: &'a [ModelPrices],
    /// The user's combined what-ifs (`--variant`), each with its model's
    /// prices when it names one.
    pub variants: &'a [(super::variant::WhatIfVariant, Option<ModelPrices>)],
    /// Bytes per token fitted from the thread, when it has enough measured
    /// steps, or from a saved calibration; and where it comes from.
    pub calibration: Option<(super::calibrate::Fit, String)>,
    /// The other models the thread's requests ran on, when every one is
    /// priced (the variants then price each request on its own model).
    pub others: Vec<ModelPrices>,
    /// New turns that dropped earlier reasoning and how many broke the
    /// cache, from the thread or a saved calibration; and where from.
    pub turn_breaks: Option<(super::calibrate::TurnBreaks, String)>,
    /// The thread's cache expiries, and after how many of them the prefix
    /// that other runs keep warm was still read.
    pub warm_expiries: super::calibrate::WarmExpiries,
    /// The share of the previous prompt the thread read from an automatic
    /// cache as recorded, with its p10 ([`fitted_hit_share`]); none on an
    /// explicit cache.
    pub hit_share: Option<super::calibrate::HitShare>,
}

/// The lifetime of the cache tier a thread wrote to (`one_hour`), in
/// milliseconds: the model's own where its book gives one (OpenAI's 10
/// minutes), else the tier's.
pub fn cache_lifetime_ms(one_hour: bool, prices: Option<&ModelPrices>) -> i64 {
    let tier = if one_hour {
        Cache::OneHour
    } else {
        Cache::FiveMinutes
    };
    prices
        .and_then(|m| m.rates(tier, Mode::Sync).ok())
        .map_or(tier.lifetime_ms(), |r| r.lifetime_ms(tier))
        .map_or(0, |ms| i64::try_from(ms).unwrap_or(i64::MAX))
}

/// The numbers the scenario's assumptions are read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fitted {
    /// The first request's whole prompt.
    pub prefix_tokens: u64,
    /// Of it, what the first request read from the cache.
    pub prefix_cached_tokens: u64,
    /// Output per step so that N·o + F is the recorded output.
    pub output_tokens_per_step: u64,
    /// The last request's output.
    pub final_output_tokens: u64,
    /// Median model time before a carrying request, milliseconds.
    pub model_ms_per_step: u64,
    /// The cache tier most writes went to: true for 1 hour.
    pub one_hour: bool,
}

/// Assumptions from a thread's recorded usage.
pub fn fitted(t: &Thread) -> Fitted {
    let n = sent_results(t).count() as u64;
    let first = t.requests.first().map(|r| r.usage).unwrap_or_default();
    let last = t.requests.last().map(|r| r.usage).unwrap_or_default();
    let total_out: u64 = t.requests.iter().map(|r| r.usage.output).sum();
    let per_step = total_out
        .saturating_sub(last.output)
        .checked_div(n)
        .unwrap_or(0);
    let mut model_ms: Vec<u64> = sent_results(t)
        .filter_map(|r| {
            let q = &t.requests[r.carried_by?];
            Some((q.at_ms? - r.at_ms?).max(0) as u64)
        })
        .collect();
    model_ms.sort_unstable();
    let (w5, w1) = t.requests.iter().fold((0u64, 0u64), |(a, b), r| {
        (a + r.usage.cache_write_5m, b + r.usage.cache_write_1h)
    });
    Fitted {
        prefix_tokens: first.prompt(),
        prefix_cached_tokens: first.cache_read,
        output_tokens_per_step: per_step,
        final_output_tokens: last.output,
        // Capped at what [timing] accepts (u32 milliseconds).
        model_ms_per_step: model_ms
            .get(model_ms.len() / 2)
            .copied()
            .unwrap_or(0)
            .min(u64::from(u32::MAX)),
        one_hour: w1 > w5,
    }
}

fn fmt_seconds(ms: u64) -> String {
    let d = rust_decimal::Decimal::from(ms) / rust_decimal::Decimal::from(1000);
    d.normalize().to_string()
}

/// The cache tier a thread recorded on `main` (`none`, `5m`, `1h`) takes on
/// another model `c` ([`ModelPrices::tier_like`]), and why when it differs.
pub fn compare_cache(main: &str, c: &ModelPrices) -> (&'static str, Option<String>) {
    let tier = Cache::from_key(main).unwrap_or(Cache::None);
    let (t, why) = c.tier_like(tier);
    (t.key(), why)
}

/// A TOML string (names come from logs: quote them properly).
pub fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The first 8 characters of an id.
pub fn short(id: &str) -> String {
    id.chars().take(8).collect()
}

/// A thread name for a scenario's name and question: as it is up to
/// [`MAX_DISPLAY`](crate::output::name::MAX_DISPLAY) characters, else cut
/// and marked with its digest.
fn short_name(name: &str) -> String {
    use crate::output::name::{short_digest, MAX_DISPLAY};
    if name.chars().count() <= MAX_DISPLAY {
        return name.to_string();
    }
    let cut: String = name.chars().take(MAX_DISPLAY - 12).collect();
    format!("{cut}…~{}", short_digest(name))
}

#[cfg(test)]
mod tests {
    use super::scenario::{comments, noted, number};
    use super::*;

    #[test]
    fn trim_rules() {
        assert_eq!(Trim::parse("4096"), Some(Trim::KeepBytes(4096)));
        assert_eq!(Trim::parse("25%"), Some(Trim::KeepPercent(25)));
        assert_eq!(Trim::parse("101%"), None);
        assert_eq!(Trim::parse("x"), None);
        assert_eq!(Trim::KeepBytes(100).apply(40), 40);
        assert_eq!(Trim::KeepBytes(100).apply(400), 100);
        assert_eq!(Trim::KeepPercent(25).apply(400), 100);
        assert_eq!(Trim::None.apply(400), 400);
    }

    #[test]
    fn a_renamed_trace_keeps_the_scenarios_comments_and_values() {
        let text = "# imported\nname = \"a\"\n\n[trace]\nfile = \"main.csv\"\n\n[assumptions]\nprefix_tokens = 10   # measured\n";
        let out = with_trace_file(text, "f00d-main.csv");
        assert_eq!(
            out,
            "# imported\nname = \"a\"\n\n[trace]\nfile = \"f00d-main.csv\"\n\n[assumptions]\nprefix_tokens = 10   # measured\n"
        );
    }

    #[test]
    fn comments_and_numbers_are_written_as_given() {
        assert_eq!(comments(&["a".into(), "b `c`".into()]), "# a\n# b `c`\n");
        // A line break cannot end a comment and start a key.
        assert_eq!(
            comments(&["a\nmodel = \"x\"".into()]),
            "# a model = \"x\"\n"
        );
        let mut u = toml_edit::Table::new();
        u.insert("y", noted(number(1), "a\r\n[variants]"));
        assert_eq!(u.to_string(), "y = 1   # a  [variants]\n");
        // A decimal keeps its digits (no float round trip).
        assert_eq!(number("0.1000").to_string(), "0.1000");
        assert_eq!(number(4).to_string(), "4");
        let mut t = toml_edit::Table::new();
        t.insert("x", noted(number(7), "why"));
        assert_eq!(t.to_string(), "x = 7   # why\n");
    }
}
