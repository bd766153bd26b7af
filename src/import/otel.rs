//! OpenTelemetry span exports (OTLP/JSON: `{"resourceSpans": [...]}`, one
//! export per line as the collector's file exporter writes them, or one
//! document per file) following the GenAI semantic conventions.
//!
//! - A model request is a span with `gen_ai.usage.*` attributes; its model is
//!   `gen_ai.response.model` (else `gen_ai.request.model`).
//! - A tool call is a span with `gen_ai.operation.name = execute_tool`; its
//!   name is `gen_ai.tool.name`, its size the UTF-8 bytes of
//!   `gen_ai.tool.call.result` when the instrumentation records it (an
//!   opt-in attribute; without it the result counts 0 bytes), its latency
//!   the span's duration. It is carried by the next request of the session
//!   that starts after it ends.
//! - Sessions are `gen_ai.conversation.id`, else the trace id.
//!
//! The conventions' `gen_ai.usage.input_tokens` "SHOULD include all types of
//! input tokens, including cached tokens", and `cache_read.input_tokens` and
//! `cache_creation.input_tokens` "SHOULD be included in" it; reasoning
//! tokens are part of `output_tokens`. Converted once, here: uncached =
//! input − cache reads − cache writes (writes as 5-minute writes).

use super::lines::{each_line, not_json};
use super::{Filter, Import, Problem, Request, Session, Thread, ToolResult, Usage};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Export {
    #[serde(default)]
    resource_spans: Vec<ResourceSpans>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResourceSpans {
    #[serde(default)]
    resource: Option<Resource>,
    #[serde(default)]
    scope_spans: Vec<ScopeSpans>,
}

#[derive(Deserialize)]
struct Resource {
    #[serde(default)]
    attributes: Vec<KeyValue>,
}

#[derive(Deserialize)]
struct ScopeSpans {
    #[serde(default)]
    spans: Vec<Span>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Span {
    #[serde(default)]
    trace_id: String,
    #[serde(default)]
    span_id: String,
    #[serde(default)]
    start_time_unix_nano: Option<Nanos>,
    #[serde(default)]
    end_time_unix_nano: Option<Nanos>,
    #[serde(default)]
    attributes: Vec<KeyValue>,
}

/// OTLP/JSON writes 64-bit integers as strings; some exporters as numbers.
#[derive(Deserialize, Clone, Copy)]
#[serde(untagged)]
enum Nanos {
    Text(#[serde(deserialize_with = "u64_text")] u64),
    Number(u64),
}

fn u64_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let s = String::deserialize(d)?;
    s.parse().map_err(serde::de::Error::custom)
}

impl Nanos {
    fn get(self) -> u64 {
        match self {
            Nanos::Text(n) | Nanos::Number(n) => n,
        }
    }
}

#[derive(Deserialize)]
struct KeyValue {
    key: String,
    #[serde(default)]
    value: AnyValue,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct AnyValue {
    #[serde(default)]
    string_value: Option<String>,
    #[serde(default)]
    int_value: Option<Nanos>,
}

impl Span {
    fn text(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|a| a.key == key)
            .and_then(|a| a.value.string_value.as_deref())
    }

    fn int(&self, key: &str) -> Option<u64> {
        let a = self.attributes.iter().find(|a| a.key == key)?;
        a.value
            .int_value
            .map(Nanos::get)
            .or_else(|| a.value.string_value.as_deref()?.parse().ok())
    }
}

/// A request or a tool call, placed in time.
enum Event {
    Request(Request),
    Tool { end_ns: u64, result: ToolResult },
}

/// An event with its start (nanoseconds) and span id, for ordering.
type Timed = (u64, String, Event);

/// GenAI usage in tokencast's classes; `None` when cached tokens exceed input.
pub fn usage(input: u64, cache_read: u64, cache_creation: u64, output: u64) -> Option<Usage> {
    Some(Usage {
        input: input.checked_sub(cache_read)?.checked_sub(cache_creation)?,
        cache_write_5m: cache_creation,
        cache_write_1h: 0,
        cache_read,
        output,
    })
}

fn rfc3339(ns: u64) -> String {
    // u64 nanoseconds end in the year 2554: always a valid time.
    let t = jiff::Timestamp::from_nanosecond(i128::from(ns)).unwrap_or(jiff::Timestamp::MAX);
    millis(t)
}

/// `2026-11-30T10:00:00.250Z`: UTC, always three decimals.
pub(crate) fn millis(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// The exports of one file: one per line, or the whole file as one.
fn exports(path: &Path, name: &str, stats: &mut Import) -> Vec<Export> {
    let mut out = Vec::new();
    let mut bad: Vec<(u64, String)> = Vec::new();
    let before = stats.bytes;
    each_line(path, name, stats, |n, t, _| {
        match serde_json::from_slice::<Export>(t) {
            Ok(e) => out.push(e),
            Err(e) => bad.push((n, not_json(t, &e, "an OTLP/JSON export"))),
        }
    });
    if out.is_empty() && !bad.is_empty() && stats.bytes - before <= crate::input::MAX_INPUT_BYTES {
        // Not one export per line: perhaps one pretty-printed document.
        let whole = std::fs::read(path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Export>(&b).ok());
        if let Some(e) = whole {
            return vec![e];
        }
    }
    for (n, what) in bad {
        stats.problem(name, n, what);
    }
    out
}

/// Reads every `.json` and `.jsonl` file under `paths`, groups the spans into
/// sessions and hands those that pass `filter` to `each`.
pub fn read<E>(
    paths: &[PathBuf],
    filter: &Filter,
    mut each: impl FnMut(Vec<Session>) -> Result<(), E>,
) -> Result<Import, E> {
    let (files, listing_problems) =
        super::claude_code::files_under_with(paths, &["jsonl", "json"], filter.follow_links);
    let mut import = Import {
        source: "otel".into(),
        problems: listing_problems,
        ..Import::default()
    };
    // session → (project, file, events by start time)
    let mut sessions: BTreeMap<String, (String, Vec<Timed>)> = BTreeMap::new();
    let mut seen_spans = std::collections::HashSet::new();
    for (root, path) in &files {
        let name = path
            .strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned();
        import.files += 1;
        for export in exports(path, &name, &mut import) {
            for r in export.resource_spans {
                let service = r
                    .resource
                    .as_ref()
                    .and_then(|res| res.attributes.iter().find(|a| a.key == "service.name"))
                    .and_then(|a| a.value.string_value.clone())
                    .unwrap_or_default();
                for span in r.scope_spans.into_iter().flat_map(|s| s.spans) {
                    if !seen_spans.insert((span.trace_id.clone(), span.span_id.clone())) {
                        import.skipped.duplicate_messages += 1;
                        continue;
                    }
                    let start = span.start_time_unix_nano.map_or(0, Nanos::get);
                    let end = span.end_time_unix_nano.map_or(start, Nanos::get);
                    let session = span
                        .text("gen_ai.conversation.id")
                        .map_or_else(|| span.trace_id.clone(), str::to_string);
                    let tool = span.text("gen_ai.operation.name") == Some("execute_tool");
                    let has_usage = span
                        .attributes
                        .iter()
                        .any(|a| a.key.starts_with("gen_ai.usage."));
                    let event = if tool {
                        Event::Tool {
                            end_ns: end,
                            result: ToolResult {
                                kind: super::ContextKind::Tool,
                                tool: span
                                    .text("gen_ai.tool.name")
                                    .unwrap_or("unknown")
                                    .to_string(),
                                bytes: span
                                    .text("gen_ai.tool.call.result")
                                    .map_or(0, |r| r.len() as u64),
                                images: 0,
                                documents: 0,
                                is_error: span.text("error.type").is_some(),
                                latency_ms: end.saturating_sub(start) / 1_000_000,
                                carried_by: None,
                                at_ms: i64::try_from(end / 1_000_000).ok(),
                            },
                        }
                    } else if has_usage {
                        let i = |k: &str| span.int(k).unwrap_or(0);
                        let Some(u) = usage(
                            i("gen_ai.usage.input_tokens"),
                            i("gen_ai.usage.cache_read.input_tokens"),
                            i("gen_ai.usage.cache_creation.input_tokens"),
                            i("gen_ai.usage.output_tokens"),
                        ) else {
                            import.problems.push(Problem {
                                file: name.clone(),
                                line: 0,
                                what: format!(
                                    "span {}: cached tokens above input tokens",
                                    span.span_id
                                ),
                            });
                            continue;
                        };
                        let (u, over) = u.capped(crate::limits::MAX_TOKENS);
                        if over {
                            import.problems.push(Problem {
                                file: name.clone(),
                                line: 0,
                                what: format!(
                                    "span {}: a usage count above {} tokens; capped there for this span",
                                    span.span_id,
                                    crate::limits::MAX_TOKENS
                                ),
                            });
                        }
                        let model = span
                            .text("gen_ai.response.model")
                            .or_else(|| span.text("gen_ai.request.model"))
                            .unwrap_or("unknown")
                            .to_string();
                        Event::Request(Request {
                            hidden_output: 0,
                            output_bytes: 0,
                            thinking_bytes: 0,
                            compacted_before: false,
                            message_id: format!("{}/{}", span.trace_id, span.span_id),
                            timestamp: Some(rfc3339(start)),
                            at_ms: i64::try_from(start / 1_000_000).ok(),
                            model,
                            usage: u,
                        })
                    } else {
                        import.skipped.other_lines += 1;
                        continue;
                    };
                    let entry = sessions
                        .entry(session)
                        .or_insert_with(|| (service.clone(), Vec::new()));
                    entry.1.push((start, span.span_id.clone(), event));
                }
            }
        }
    }
    let mut ready = Vec::new();
    for (id, (project, mut events)) in sessions {
        events.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut thread = Thread {
            agent: None,
            compaction: false,
            requests: Vec::new(),
            results: Vec::new(),
        };
        let mut pending: Vec<(u64, usize)> = Vec::new();
        for (start, _, e) in events {
            match e {
                Event::Request(r) => {
                    let k = thread.requests.len();
                    pending.retain(|(end, j)| {
                        if *end <= start {
                            thread.results[*j].carried_by = Some(k);
                            false
                        } else {
                            true
                        }
                    });
                    thread.requests.push(r);
                }
                Event::Tool { end_ns, result } => {
                    pending.push((end_ns, thread.results.len()));
                    thread.results.push(result);
                }
            }
        }
        if thread.requests.is_empty() {
            continue;
        }
        let s = Session {
            id,
            project,
            files: Vec::new(),
            threads: vec![thread],
            compactions: 0,
            origin: None,
        };
        if filter.keeps(&s) {
            ready.push(s);
        }
        if ready.len() >= 32 {
            each(std::mem::take(&mut ready))?;
        }
    }
    each(ready)?;
    Ok(import)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_tokens_come_out_of_the_input_count() {
        // 4,020 input of which 4,012 written to the cache and none read.
        let u = usage(4020, 0, 4012, 4).unwrap();
        assert_eq!(
            (u.input, u.cache_write_5m, u.cache_read, u.output),
            (8, 4012, 0, 4)
        );
        let u = usage(2006, 1920, 0, 300).unwrap();
        assert_eq!((u.input, u.cache_read), (86, 1920));
        assert_eq!(usage(10, 8, 3, 0), None);
    }
}
