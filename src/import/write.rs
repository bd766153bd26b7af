//! A thread as files `tokencast simulate` accepts as they are: a trace CSV
//! with one row per tool result (tool name, sizes, timings and the recorded
//! usage of the request that carried it) and a scenario TOML around it.
//!
//! Nothing of the logs' text is written: only sizes, counts, names of tools
//! and models, and timestamps.

use super::{Session, Thread};
use crate::output::name::display;
use crate::pricing::ModelPrices;
use std::fmt::Write as _;

/// The trace header every imported trace starts with (its marker).
pub const TRACE_HEADER: &str = "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed,images,documents,request,timestamp,model,recorded_input,recorded_cache_write_5m,recorded_cache_write_1h,recorded_cache_read,recorded_output,note";

/// How results are trimmed for the "trimmed" variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trim {
    /// Trimmed is raw (the default: nothing known about trimming).
    None,
    /// Keep at most this many bytes of each result.
    KeepBytes(u64),
    /// Keep this percentage of each result (0–100).
    KeepPercent(u64),
}

impl Trim {
    /// Parses `4096` (bytes kept per result) or `25%` (share kept).
    pub fn parse(s: &str) -> Option<Trim> {
        let s = s.trim();
        match s.strip_suffix('%') {
            Some(p) => p
                .trim()
                .parse()
                .ok()
                .filter(|p| *p <= 100)
                .map(Trim::KeepPercent),
            None => s.parse().ok().map(Trim::KeepBytes),
        }
    }

    /// The trimmed size of a result of `raw` bytes.
    pub fn apply(self, raw: u64) -> u64 {
        match self {
            Trim::None => raw,
            Trim::KeepBytes(n) => raw.min(n),
            Trim::KeepPercent(p) => raw * p / 100,
        }
    }

    /// How the rule reads in a scenario's comment.
    pub fn describe(self) -> String {
        match self {
            Trim::None => "trimmed = raw (no --trim rule given)".into(),
            Trim::KeepBytes(n) => format!("trimmed = at most {n} bytes per result (--trim {n})"),
            Trim::KeepPercent(p) => format!("trimmed = {p}% of each result (--trim {p}%)"),
        }
    }
}

/// The results of a thread that reached the model (carried by a request), in order.
pub fn sent_results(t: &Thread) -> impl Iterator<Item = &super::ToolResult> {
    t.results.iter().filter(|r| r.carried_by.is_some())
}

/// The trace CSV of one thread. Recorded usage is on the first row of each
/// carrying request; further results of the same request leave it empty.
pub fn trace_csv(t: &Thread, trim: Trim) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(TRACE_HEADER.split(','))
        .expect("writing to memory cannot fail");
    let mut last_request: Option<usize> = None;
    for (i, r) in sent_results(t).enumerate() {
        let k = r.carried_by.expect("sent results are carried");
        let q = &t.requests[k];
        let first = last_request != Some(k);
        last_request = Some(k);
        let usage = |v: u64| if first { v.to_string() } else { String::new() };
        let row = [
            (i + 1).to_string(),
            r.tool.clone(),
            "200".into(),
            "1".into(),
            r.bytes.to_string(),
            trim.apply(r.bytes).to_string(),
            r.latency_ms.to_string(),
            "0".into(),
            "false".into(),
            r.images.to_string(),
            r.documents.to_string(),
            (k + 1).to_string(),
            q.timestamp.clone().unwrap_or_default(),
            q.model.clone(),
            usage(q.usage.input),
            usage(q.usage.cache_write_5m),
            usage(q.usage.cache_write_1h),
            usage(q.usage.cache_read),
            usage(q.usage.output),
            if r.is_error {
                "tool error".into()
            } else {
                String::new()
            },
        ];
        w.write_record(&row).expect("writing to memory cannot fail");
    }
    w.into_inner().expect("writing to memory cannot fail")
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
    /// Another model of the book to compare with, when priced.
    pub compare: Option<&'a ModelPrices>,
}

/// The numbers the scenario's assumptions are read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fitted {
    /// The first request's whole prompt.
    pub prefix_tokens: u64,
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
        output_tokens_per_step: per_step,
        final_output_tokens: last.output,
        model_ms_per_step: model_ms.get(model_ms.len() / 2).copied().unwrap_or(0),
        one_hour: w1 > w5,
    }
}

/// The scenario TOML of one thread.
pub fn scenario_toml(t: &Thread, spec: &ScenarioSpec) -> String {
    let s = spec.session;
    let f = fitted(t);
    let model = t.main_model().unwrap_or("unknown");
    let (tier, other) = if f.one_hour {
        ("1h", "5m")
    } else {
        ("5m", "1h")
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# tokencast scenario, imported by `tokencast import {}` from session {} ({}).",
        spec.source,
        display(&s.id),
        display(&t.name())
    );
    let _ = writeln!(
        out,
        "# Sizes, counts, tool and model names and timestamps only; no text of the logs."
    );
    let _ = writeln!(out, "# {}.", spec.trim.describe());
    if spec.prices.is_none() {
        let _ = writeln!(
            out,
            "# unpriced: `{}` is not in the price book; give its prices there to simulate.",
            display(model)
        );
    }
    let _ = writeln!(
        out,
        "name = {}",
        quoted(&format!("{}-{}", short(&s.id), short_name(&t.name())))
    );
    let _ = writeln!(
        out,
        "question = {}",
        quoted(&format!(
            "What did {} of session {} cost as recorded, and raw or trimmed, on either cache tier, in batch?",
            short_name(&t.name()),
            short(&s.id)
        ))
    );
    let _ = writeln!(out, "model = {}", quoted(model));
    let _ = writeln!(out, "prices = {}", quoted(spec.prices_path));
    let _ = writeln!(out, "\n[trace]\nfile = {}", quoted(spec.trace_file));
    let _ = writeln!(
        out,
        "\n[assumptions]\nprefix_tokens = {}           # the first request's recorded prompt\noutput_tokens_per_step = {}   # recorded output, spread over the steps\nfinal_output_tokens = {}      # the last request's output\nbytes_per_token = 4\ntokenizer_uplift = 1.3\nruns_per_day = 1",
        f.prefix_tokens, f.output_tokens_per_step, f.final_output_tokens
    );
    let _ = writeln!(
        out,
        "\n[timing]\nmodel_seconds_per_step = {}   # median time from a result to the request carrying it",
        fmt_seconds(f.model_ms_per_step)
    );
    let p = spec.prices;
    let has = |get: fn(&ModelPrices) -> bool| p.is_some_and(get);
    let mut variant = |name: &str, results: &str, cache: &str, extra: &str| {
        let _ = writeln!(
            out,
            "\n[[variants]]\nname = {}\nresults = \"{results}\"\ncache = \"{cache}\"{extra}",
            quoted(name)
        );
    };
    let tier_priced = |c: &str| {
        has(|m| m.cache_read.is_some())
            && match c {
                "1h" => has(|m| m.cache_write_1h.is_some()),
                _ => has(|m| m.cache_write_5m.is_some()),
            }
    };
    let main_cache = if tier_priced(tier) { tier } else { "none" };
    // Names stay the same whatever the tier, so that `forecast` can match
    // the variants of many imported sessions; each variant's `cache` says it.
    variant("as recorded", "raw", main_cache, "");
    variant("trimmed", "trimmed", main_cache, "");
    if tier_priced(other) {
        variant("other cache tier", "raw", other, "");
    }
    if has(|m| m.batch_input.is_some() && m.batch_output.is_some()) {
        variant("batch", "raw", main_cache, "\nmode = \"batch\"");
    }
    if let Some(c) = spec.compare.filter(|c| c.model != model) {
        let cache = if c.cache_read.is_some()
            && match main_cache {
                "1h" => c.cache_write_1h.is_some(),
                "5m" => c.cache_write_5m.is_some(),
                _ => true,
            } {
            main_cache
        } else {
            "none"
        };
        variant(
            &format!("on {}", c.model),
            "raw",
            cache,
            &format!("\nmodel = {}", quoted(&c.model)),
        );
    }
    out
}

fn fmt_seconds(ms: u64) -> String {
    let d = rust_decimal::Decimal::from(ms) / rust_decimal::Decimal::from(1000);
    d.normalize().to_string()
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
}
