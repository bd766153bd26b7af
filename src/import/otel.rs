//! OpenTelemetry exports (OTLP/JSON: `{"resourceSpans": [...]}` or
//! `{"resourceLogs": [...]}`, one export per line as the collector's file
//! exporter writes them, or one document per file): spans following the
//! GenAI semantic conventions, and Claude Code's own events (logs; see
//! `claude_code_event`).
//!
//! - A model request is a span with `gen_ai.usage.*` attributes; its model is
//!   `gen_ai.response.model` (else `gen_ai.request.model`).
//! - A tool call is a span with `gen_ai.operation.name = execute_tool`; its
//!   name is `gen_ai.tool.name`, its size the UTF-8 bytes of
//!   `gen_ai.tool.call.result` when the instrumentation records it (an
//!   opt-in attribute; without it the result counts 0 bytes), its latency
//!   the span's duration. It is carried by the next request of the session
//!   that starts after it ends. Its text is also counted with `o200k_base`
//!   (the count, never the text, is kept); the count stays only where the
//!   request that carries the result runs on a model of that tokenizer
//!   ([`crate::pricing::tokenizer::counts_o200k`]), since a tool span does
//!   not say which model will read it.
//! - Sessions are `gen_ai.conversation.id`, else the trace id.
//!
//! The conventions' `gen_ai.usage.input_tokens` "SHOULD include all types of
//! input tokens, including cached tokens", and `cache_read.input_tokens` and
//! `cache_creation.input_tokens` "SHOULD be included in" it; reasoning
//! tokens are part of `output_tokens`. Converted once, here: uncached =
//! input − cache reads − cache writes (writes as 5-minute writes).

use super::lines::not_json;
use super::{Filter, Import, Request, Session, Thread, ToolResult, Usage};
use serde::de::DeserializeSeed;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
mod export;
use export::Export;

#[derive(Deserialize)]
struct Resource {
    #[serde(default)]
    attributes: Vec<KeyValue>,
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

/// What one span became, before it is placed in its session.
enum Conv {
    /// A request or a tool call.
    Event(Event),
    /// A request with a usage count past the limit: capped, kept, and said.
    Capped(Event, String),
    /// A span that cannot be read, and why.
    Problem(String),
    /// Neither a request nor a tool call.
    Other,
}

/// One span read: its ids, session and start, and what it became.
struct Seen {
    trace_id: String,
    span_id: String,
    session: String,
    start: u64,
    conv: Conv,
}

/// The items of one resource entry, with its `service.name`.
type Batch = (String, Vec<Seen>);

/// One OTLP log record (an event).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LogRecord {
    #[serde(default)]
    time_unix_nano: Option<Nanos>,
    #[serde(default)]
    observed_time_unix_nano: Option<Nanos>,
    #[serde(default)]
    body: AnyValue,
    #[serde(default)]
    attributes: Vec<KeyValue>,
}

/// Claude Code's own events (`CLAUDE_CODE_ENABLE_TELEMETRY=1`, logs over
/// OTLP): `claude_code.api_request` is a request, with Anthropic's token
/// classes (`input_tokens` is the uncached input; `cache_creation_tokens`
/// are taken as 5-minute writes, the only split the event gives), its end
/// at `event.timestamp` and its start `duration_ms` earlier;
/// `claude_code.tool_result` is a tool call ending at its timestamp, of
/// `tool_result_size_bytes` where the event carries it (0 where not). Both
/// belong to `session.id`. Other events, and records without a session,
/// are not kept (and counted as other lines).
fn claude_code_event(record: LogRecord) -> Option<Seen> {
    // Its attributes, read as a span's are.
    let attrs = Span {
        trace_id: String::new(),
        span_id: String::new(),
        start_time_unix_nano: None,
        end_time_unix_nano: None,
        attributes: record.attributes,
    };
    let name = attrs
        .text("event.name")
        .map(str::to_string)
        .or_else(|| {
            record
                .body
                .string_value
                .as_deref()
                .and_then(|b| b.strip_prefix("claude_code."))
                .map(str::to_string)
        })
        .unwrap_or_default();
    let session = attrs.text("session.id")?.to_string();
    let at = attrs
        .text("event.timestamp")
        .and_then(|t| t.parse::<jiff::Timestamp>().ok())
        .and_then(|t| u64::try_from(t.as_nanosecond()).ok())
        .or(record.time_unix_nano.map(Nanos::get))
        .or(record.observed_time_unix_nano.map(Nanos::get))
        .unwrap_or(0);
    let duration_ms = attrs.int("duration_ms").unwrap_or(0);
    let size = attrs.int("tool_result_size_bytes").unwrap_or(0);
    // Values past a limit are capped for this event and said.
    let over = duration_ms > crate::limits::MAX_GAP_MS || size > crate::limits::MAX_RESULT_BYTES;
    let duration_ns = duration_ms.min(crate::limits::MAX_GAP_MS) * 1_000_000;
    let start = at.saturating_sub(duration_ns);
    // The event's place in its session, as its own id.
    let id = attrs
        .int("event.sequence")
        .map_or_else(|| format!("{name}@{at}"), |n| format!("{name}#{n}"));
    let conv = match name.as_str() {
        "api_request" => api_request(&attrs, &session, &id, start, duration_ms),
        "tool_result" => tool_result(&attrs, &id, (at, duration_ns), size, over),
        _ => Conv::Other,
    };
    Some(Seen {
        trace_id: session.clone(),
        span_id: id,
        session,
        start: match &conv {
            Conv::Event(Event::Tool { .. }) | Conv::Capped(Event::Tool { .. }, _) => at,
            _ => start,
        },
        conv,
    })
}

/// Claude Code's `api_request` event as a request: its usage checked and
/// capped, its model, and when it started.
fn api_request(attrs: &Span, session: &str, id: &str, start: u64, duration_ms: u64) -> Conv {
    let i = |k: &str| attrs.int(k).unwrap_or(0);
    let u = Usage {
        input: i("input_tokens"),
        cache_write_5m: i("cache_creation_tokens"),
        cache_write_1h: 0,
        cache_read: i("cache_read_tokens"),
        output: i("output_tokens"),
    };
    let (u, capped) = u.capped(crate::limits::MAX_TOKENS);
    let over = capped || duration_ms > crate::limits::MAX_GAP_MS;
    let event = Event::Request(Request {
        hidden_output: 0,
        output_bytes: 0,
        thinking_bytes: 0,
        compacted_before: false,
        lost_lines_before: 0,
        message_id: format!("{session}/{id}"),
        timestamp: Some(rfc3339(start)),
        at_ms: i64::try_from(start / 1_000_000).ok(),
        model: attrs
            .text("model")
            .unwrap_or(super::UNNAMED_MODEL)
            .to_string(),
        usage: u,
    });
    if over {
        Conv::Capped(
            event,
            format!(
                "event {id}: a usage count above {} tokens or a duration above {} ms; capped there for this event",
                crate::limits::MAX_TOKENS,
                crate::limits::MAX_GAP_MS
            ),
        )
    } else {
        Conv::Event(event)
    }
}

/// Claude Code's `tool_result` event as a tool result that ended at `at`
/// (nanoseconds) after `duration_ns`: its tool, size (capped) and outcome.
fn tool_result(
    attrs: &Span,
    id: &str,
    (at, duration_ns): (u64, u64),
    size: u64,
    over: bool,
) -> Conv {
    let event = Event::Tool {
        end_ns: at,
        result: ToolResult {
            kind: super::ContextKind::Tool,
            tool: attrs.text("tool_name").unwrap_or("unknown").to_string(),
            bytes: size.min(crate::limits::MAX_RESULT_BYTES),
            images: 0,
            documents: 0,
            o200k_tokens: None,
            is_error: attrs.text("success") == Some("false"),
            latency_ms: duration_ns / 1_000_000,
            carried_by: None,
            cleared_by: None,
            at_ms: i64::try_from(at / 1_000_000).ok(),
        },
    };
    if over {
        Conv::Capped(
            event,
            format!(
                "event {id}: a result size above {} bytes or a duration above {} ms; capped there for this event",
                crate::limits::MAX_RESULT_BYTES,
                crate::limits::MAX_GAP_MS
            ),
        )
    } else {
        Conv::Event(event)
    }
}

/// What a span is: a tool call, a request (its usage checked and capped),
/// or neither. Its text is dropped here.
fn convert(span: Span) -> Seen {
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
    let conv = if tool {
        Conv::Event(Event::Tool {
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
                o200k_tokens: span
                    .text("gen_ai.tool.call.result")
                    .map(super::o200k::count),
                is_error: span.text("error.type").is_some(),
                latency_ms: end.saturating_sub(start) / 1_000_000,
                carried_by: None,
                cleared_by: None,
                at_ms: i64::try_from(end / 1_000_000).ok(),
            },
        })
    } else if has_usage {
        request(&span, start)
    } else {
        Conv::Other
    };
    Seen {
        trace_id: span.trace_id,
        span_id: span.span_id,
        session,
        start,
        conv,
    }
}

/// A span with `gen_ai.usage.*` as a request, its counts capped.
fn request(span: &Span, start: u64) -> Conv {
    let i = |k: &str| span.int(k).unwrap_or(0);
    let Some(u) = usage(
        i("gen_ai.usage.input_tokens"),
        i("gen_ai.usage.cache_read.input_tokens"),
        i("gen_ai.usage.cache_creation.input_tokens"),
        i("gen_ai.usage.output_tokens"),
    ) else {
        return Conv::Problem(format!(
            "span {}: cached tokens above input tokens",
            span.span_id
        ));
    };
    let (u, over) = u.capped(crate::limits::MAX_TOKENS);
    let model = span
        .text("gen_ai.response.model")
        .or_else(|| span.text("gen_ai.request.model"))
        .unwrap_or("unknown")
        .to_string();
    let event = Event::Request(Request {
        hidden_output: 0,
        output_bytes: 0,
        thinking_bytes: 0,
        compacted_before: false,
        lost_lines_before: 0,
        message_id: format!("{}/{}", span.trace_id, span.span_id),
        timestamp: Some(rfc3339(start)),
        at_ms: i64::try_from(start / 1_000_000).ok(),
        model,
        usage: u,
    });
    if over {
        return Conv::Capped(
            event,
            format!(
                "span {}: a usage count above {} tokens; capped there for this span",
                span.span_id,
                crate::limits::MAX_TOKENS
            ),
        );
    }
    Conv::Event(event)
}

/// The spans of one file's exports, one export per line; or, when its
/// first line is not one, the whole file as one (pretty-printed) document,
/// read as a stream. Each export's spans reach `each` once the export has
/// been read whole (a line cut short adds nothing).
fn exports(path: &Path, name: &str, stats: &mut Import, mut each: impl FnMut(&mut Import, Batch)) {
    if !first_line_is_an_export(path) {
        if let Some((batches, lines, bytes)) = whole(path) {
            stats.lines += lines;
            stats.bytes += bytes;
            batches.into_iter().for_each(|b| each(stats, b));
            return;
        }
    }
    // An export's spans are converted as they are read (a tool result's
    // text counted in o200k_base tokens, most of the time): the lines are
    // read on the pool, their spans taken in order.
    super::lines::each_line_on_pool(
        path,
        name,
        stats,
        |t| {
            let mut batches = Vec::new();
            super::lines::seed_json_line(t, Export(&mut batches))
                .map(|()| batches)
                .map_err(|e| not_json(t, &e, "an OTLP/JSON export"))
        },
        |n, read, stats| match read {
            Ok(batches) => batches.into_iter().for_each(|b| each(stats, b)),
            Err(what) => stats.problem(name, n, what),
        },
    );
}

/// True when the first line that is not blank is one whole JSON value: a
/// file of one export per line (a pretty-printed document's first line is
/// not). Its JSON is checked, not read as an export (which converts its
/// spans, counting each tool result's tokens: a file of one export was
/// read twice): a line that is JSON but not an export routes the file as
/// reading it would, since the file is then no one document either, and
/// is reported as the lines are read.
fn first_line_is_an_export(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return true;
    };
    let mut lines =
        super::lines::Lines::new(std::io::BufReader::new(file), crate::limits::MAX_LINE_BYTES);
    while let Ok(Some((_, line))) = lines.next_line() {
        match line {
            super::lines::Line::Text(t) if t.iter().all(u8::is_ascii_whitespace) => continue,
            super::lines::Line::Text(t) => {
                return super::lines::from_json_line::<serde::de::IgnoredAny>(t).is_ok();
            }
            super::lines::Line::TooLong(_) => return false,
        }
    }
    true
}

/// Counts the bytes and lines read through it.
struct Counted<R> {
    inner: R,
    bytes: u64,
    lines: u64,
    /// The last byte read.
    last: u8,
}

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        self.lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        if n > 0 {
            self.last = buf[n - 1];
        }
        Ok(n)
    }
}

/// A whole-file document up to this size is read into memory and parsed
/// from there (serde_json parses a slice about twice as fast as a reader);
/// a larger one is streamed, so memory stays bounded.
const IN_MEMORY_DOCUMENT: u64 = crate::limits::MAX_LINE_BYTES as u64;

/// The file at `path` as one export; with the lines and bytes it holds.
fn whole(path: &Path) -> Option<(Vec<Batch>, u64, u64)> {
    let file = std::fs::File::open(path).ok()?;
    if file.metadata().ok()?.len() <= IN_MEMORY_DOCUMENT {
        let bytes = std::fs::read(path).ok()?;
        let mut batches = Vec::new();
        super::lines::seed_json_line(&bytes, Export(&mut batches)).ok()?;
        let newlines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
        let lines = newlines + u64::from(bytes.last().is_some_and(|b| *b != b'\n'));
        return Some((batches, lines, bytes.len() as u64));
    }
    streamed(file)
}

/// `file` as one export, read as a stream (memory bounded by a few batches
/// of spans: see `export::State`).
fn streamed(file: std::fs::File) -> Option<(Vec<Batch>, u64, u64)> {
    let mut counted = Counted {
        inner: file,
        bytes: 0,
        lines: 0,
        last: b'\n',
    };
    let mut batches = Vec::new();
    {
        // serde_json reads a reader a byte at a call. The buffer is the
        // outer layer, so the bytes and lines are counted a megabyte at a
        // time (counted a byte at a time, they were a sixth of the
        // document's time), and it is given by value: the standard
        // library takes a byte straight from a `BufReader`'s buffer, and
        // through a reference it copies it out by a `read` call.
        let buffered = std::io::BufReader::with_capacity(1 << 20, &mut counted);
        let mut de = serde_json::Deserializer::from_reader(buffered);
        Export(&mut batches).deserialize(&mut de).ok()?;
        de.end().ok()?;
    }
    // A last line without its newline is a line too.
    let lines = counted.lines + u64::from(counted.last != b'\n');
    Some((batches, lines, counted.bytes))
}

/// Files read on the pool at a time (their spans are held until taken).
const FILES_AT_ONCE: usize = 64;

/// One file read on the pool: its name, what reading it counted and the
/// problems it found, and its resource entries, each with how many of
/// those problems came before it.
type FileRead = (String, Import, Vec<(usize, Batch)>);

/// The spans taken so far, by session: its project and its events by start
/// time; and the spans seen, each counted once.
#[derive(Default)]
struct Spans {
    sessions: BTreeMap<String, (String, Vec<Timed>)>,
    seen: std::collections::HashSet<(String, String)>,
}

impl Spans {
    /// Takes one resource entry's spans, read from the file `name`.
    fn take(&mut self, import: &mut Import, name: &str, (service, seen): Batch) {
        for span in seen {
            if !self.seen.insert((span.trace_id, span.span_id.clone())) {
                import.skipped.duplicate_messages += 1;
                continue;
            }
            let event = match span.conv {
                Conv::Event(e) => e,
                Conv::Capped(e, what) => {
                    import.problem(name, 0, what);
                    e
                }
                Conv::Problem(what) => {
                    import.problem(name, 0, what);
                    continue;
                }
                Conv::Other => {
                    import.skipped.other_lines += 1;
                    continue;
                }
            };
            self.sessions
                .entry(span.session)
                .or_insert_with(|| (service.clone(), Vec::new()))
                .1
                .push((span.start, span.span_id, event));
        }
    }
}

/// Reads every `.json` and `.jsonl` file under `paths`, groups the spans into
/// sessions and hands those that pass `filter` to `each`.
pub fn read<E: Send>(
    paths: &[PathBuf],
    filter: &Filter,
    mut each: impl FnMut(Vec<Session>) -> Result<(), E> + Send,
) -> Result<Import, E> {
    let (files, listing_problems) =
        super::claude_code::files_under_with(paths, &["jsonl", "json"], filter.follow_links);
    let mut import = Import {
        source: "otel".into(),
        problems: listing_problems,
        ..Import::default()
    };
    let mut spans = Spans::default();
    // Files are read a few at a time on the pool (and each file's lines on
    // it too), and what each made is taken in the files' order: a span
    // exported twice counts where it was first seen, and each file's
    // problems stay in their place among its spans.
    // (The project's overlap of reading and taking: a chunk is read while
    // the one before is taken.)
    let read_chunk = |chunk: &[(std::path::PathBuf, std::path::PathBuf)]| -> Vec<FileRead> {
        use rayon::prelude::*;
        chunk
            .par_iter()
            .map(|(root, path)| {
                let name = super::name_under(root, path);
                let mut stats = Import {
                    files: 1,
                    ..Import::default()
                };
                let mut batches = Vec::new();
                exports(path, &name, &mut stats, |stats, b| {
                    batches.push((stats.problems.len(), b));
                });
                (name, stats, batches)
            })
            .collect()
    };
    let take_chunk = |read: Vec<FileRead>| {
        for (name, stats, batches) in read {
            import.add_counts(&stats);
            let mut problems = stats.problems.into_iter();
            let mut taken = 0;
            for (before, batch) in batches {
                import
                    .problems
                    .extend(problems.by_ref().take(before - taken));
                taken = before;
                spans.take(&mut import, &name, batch);
            }
            import.problems.extend(problems);
        }
    };
    let taken: Result<(), std::convert::Infallible> = super::overlapped(
        files.chunks(FILES_AT_ONCE),
        read_chunk,
        |()| Ok(()),
        take_chunk,
    );
    let Ok(()) = taken;
    let sessions = spans.sessions;
    let mut ready = Vec::new();
    for (id, (project, events)) in sessions {
        let thread = thread_of(events);
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

/// A session's events in time order as one thread: each tool result is
/// carried by the first request that starts after it ended, and keeps its
/// `o200k_base` count only when that request's model counts with it.
fn thread_of(mut events: Vec<Timed>) -> Thread {
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
                let counts = crate::pricing::tokenizer::counts_o200k(&r.model);
                pending.retain(|(end, j)| {
                    if *end <= start {
                        let result = &mut thread.results[*j];
                        result.carried_by = Some(k);
                        if !counts {
                            result.o200k_tokens = None;
                        }
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
    // A result no request carried is counted for no model.
    for (_, j) in pending {
        thread.results[j].o200k_tokens = None;
    }
    thread
}

#[cfg(test)]
mod tests;
