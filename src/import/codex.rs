//! Codex CLI's session logs: `${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/rollout-*.jsonl`
//! and `archived_sessions/`. Each line is `{timestamp, type, payload}`:
//!
//! - `session_meta`: the session id and working directory;
//! - `turn_context`: the model of the turns that follow;
//! - `event_msg` of type `token_count`: usage. `info` may be null (a
//!   heartbeat). `last_token_usage` is the request, `total_token_usage` the
//!   running sum; consecutive events with an identical total are one request
//!   (some versions emit each twice);
//! - `response_item`: `function_call` / `custom_tool_call` (a tool asked for,
//!   by `call_id`) and `function_call_output` / `custom_tool_call_output`
//!   (its result, measured in bytes);
//! - `compacted`: an automatic compaction.
//!
//! OpenAI's convention: `input_tokens` includes `cached_input_tokens`, and
//! `output_tokens` includes `reasoning_output_tokens`. Converted once, here:
//! uncached input = input − cached, cache reads = cached, output = output
//! (reasoning already in it), no cache writes (Codex logs report none).

use super::lines::{each_line, not_json};
use super::{epoch_ms, Filter, Import, Request, Session, Thread, ToolResult, Usage};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `${CODEX_HOME:-~/.codex}/sessions` and `archived_sessions`, those that exist.
pub fn default_paths() -> Vec<PathBuf> {
    candidate_paths()
        .into_iter()
        .filter(|p| p.is_dir())
        .collect()
}

/// Every place [`default_paths`] looks, whether it exists or not (what an
/// error names): `$CODEX_HOME`'s, else `~/.codex`'s.
pub fn candidate_paths() -> Vec<PathBuf> {
    let home = match std::env::var("CODEX_HOME") {
        Ok(v) if !v.trim().is_empty() => Some(PathBuf::from(v)),
        _ => dirs::home_dir().map(|h| h.join(".codex")),
    };
    home.map(|h| vec![h.join("sessions"), h.join("archived_sessions")])
        .unwrap_or_default()
}

#[derive(Deserialize)]
struct LineRec<'a> {
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default, borrow)]
    payload: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Meta {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
}

#[derive(Deserialize)]
struct TurnContext {
    #[serde(default)]
    model: Option<String>,
}

#[derive(Deserialize)]
struct EventMsg {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    info: Option<Info>,
}

#[derive(Deserialize)]
struct Info {
    #[serde(default)]
    total_token_usage: Option<TokenUsage>,
    #[serde(default)]
    last_token_usage: Option<TokenUsage>,
}

/// Codex's usage, OpenAI's convention.
#[derive(Deserialize, Default, Clone, Copy, PartialEq, Eq, Debug)]
pub struct TokenUsage {
    /// Input, cached tokens included.
    #[serde(default)]
    pub input_tokens: u64,
    /// Input tokens read from the cache.
    #[serde(default)]
    pub cached_input_tokens: u64,
    /// Output, reasoning included.
    #[serde(default)]
    pub output_tokens: u64,
    /// Reasoning tokens (already in `output_tokens`).
    #[serde(default)]
    pub reasoning_output_tokens: u64,
    /// All of it.
    #[serde(default)]
    pub total_tokens: u64,
}

impl TokenUsage {
    /// In tokencast's classes; `None` when more tokens are cached than input.
    pub fn usage(&self) -> Option<Usage> {
        Some(Usage {
            input: self.input_tokens.checked_sub(self.cached_input_tokens)?,
            cache_write_5m: 0,
            cache_write_1h: 0,
            cache_read: self.cached_input_tokens,
            output: self.output_tokens,
        })
    }

    fn minus(&self, o: &TokenUsage) -> TokenUsage {
        TokenUsage {
            input_tokens: self.input_tokens.saturating_sub(o.input_tokens),
            cached_input_tokens: self
                .cached_input_tokens
                .saturating_sub(o.cached_input_tokens),
            output_tokens: self.output_tokens.saturating_sub(o.output_tokens),
            reasoning_output_tokens: self
                .reasoning_output_tokens
                .saturating_sub(o.reasoning_output_tokens),
            total_tokens: self.total_tokens.saturating_sub(o.total_tokens),
        }
    }
}

#[derive(Deserialize)]
struct Item<'a> {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default, borrow)]
    output: Option<&'a RawValue>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
}

/// A tool output as sent: a string's decoded text; for an object, its
/// `content` or `output` string when it has one, else the JSON.
fn output_text(raw: &RawValue) -> Cow<'_, str> {
    let text = raw.get();
    let string = |s: &RawValue| -> Option<Cow<'_, str>> {
        s.get()
            .starts_with('"')
            .then(|| serde_json::from_str::<Cow<'_, str>>(s.get()).ok())
            .flatten()
    };
    match text.as_bytes().first() {
        Some(b'"') => string(raw).unwrap_or(Cow::Borrowed(text)),
        Some(b'{') => {
            #[derive(Deserialize)]
            struct Wrapped<'a> {
                #[serde(default, borrow)]
                content: Option<&'a RawValue>,
                #[serde(default, borrow)]
                output: Option<&'a RawValue>,
            }
            serde_json::from_str::<Wrapped>(text)
                .ok()
                .and_then(|w| w.content.or(w.output))
                .and_then(string)
                .unwrap_or(Cow::Borrowed(text))
        }
        _ => Cow::Borrowed(text),
    }
}

/// A tool output's bytes as sent and its tokens under `o200k_base`, the
/// tokenizer of every model Codex runs on (GPT-5 and the o-series): only
/// the count is kept, never the text.
///
/// The third figure is, for a shell output recorded wrapped in JSON
/// ([`exec_output`]), the tokens of the text as recorded: whether the model
/// was sent that text or what it wraps depends on the Codex version, and
/// [`Rollout::finish`] lets the thread's own prompt growth tell.
fn output_size(raw: &RawValue) -> (u64, u64, Option<u64>) {
    let text = output_text(raw);
    match exec_output(&text) {
        Some(inner) => (
            text.len() as u64,
            super::o200k::count(&for_model(&inner)),
            Some(super::o200k::count(&text)),
        ),
        None => (text.len() as u64, super::o200k::count(&text), None),
    }
}

/// The command output of a shell call as Codex 0.3x–0.5x recorded it, a
/// JSON text `{"output": "…", "metadata": {"exit_code": …}}`. Some of these
/// versions sent the model this JSON as it is (0.3x–0.4x, measured: their
/// prompts grow by its tokens, escapes and all), others the output itself
/// cut to [`for_model`] (0.5x: their prompts grow by about that). Later
/// versions record the text the model was sent (`Exit code: 0\nWall time:
/// …\nOutput:\n…`), already cut.
fn exec_output(text: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Exec {
        output: String,
        #[allow(dead_code)]
        metadata: serde::de::IgnoredAny,
    }
    if !text.starts_with("{\"output\"") {
        return None;
    }
    serde_json::from_str::<Exec>(text).ok().map(|e| e.output)
}

/// Most bytes of a tool output Codex puts in the model's context
/// (`MODEL_FORMAT_MAX_BYTES` in codex-rs), half of them for the head.
const MODEL_MAX_BYTES: usize = 10 * 1024;
/// Most lines, half of them from the head and half from the tail.
const MODEL_MAX_LINES: usize = 256;

/// What Codex puts in the model's context of a longer output: its first
/// 128 lines within 5 KiB, a line saying how many were left out, and its
/// last 128 lines within what is left of 10 KiB. The rollout keeps the
/// whole output; the prompt grows by this.
fn for_model(text: &str) -> Cow<'_, str> {
    let total = text.lines().count();
    if text.len() <= MODEL_MAX_BYTES && total <= MODEL_MAX_LINES {
        return Cow::Borrowed(text);
    }
    let half = MODEL_MAX_LINES / 2;
    let head_end = text
        .match_indices('\n')
        .nth(half - 1)
        .map_or(text.len(), |(i, _)| i + 1);
    let head = floor_char(text, head_end.min(MODEL_MAX_BYTES / 2));
    let tail_start = text
        .rmatch_indices('\n')
        .nth(half)
        .map_or(0, |(i, _)| i + 1)
        .max(head.len());
    let room = MODEL_MAX_BYTES - head.len();
    let tail = ceil_char(text, tail_start.max(text.len().saturating_sub(room)));
    let kept = head.lines().count() + text[tail..].lines().count();
    let sep = if head.ends_with('\n') { "" } else { "\n" };
    Cow::Owned(format!(
        "{head}{sep}[... omitted {} of {total} lines ...]\n\n{}",
        total.saturating_sub(kept),
        &text[tail..]
    ))
}

/// `text[..i]` cut back to a character boundary.
fn floor_char(text: &str, mut i: usize) -> &str {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    &text[..i]
}

/// `i` moved forward to a character boundary.
fn ceil_char(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// One rollout file as a session.
fn read_file(root: &Path, path: &Path) -> (Option<Session>, Import) {
    let name = super::name_under(root, path);
    let mut stats = Import::default();
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let mut rollout = Rollout::new(&name, stem);
    let opened = each_line(path, &name, &mut stats, |number, text, stats| {
        rollout.line(number, text, stats)
    });
    stats.files = 1;
    if !opened {
        return (None, stats);
    }
    (rollout.finish(), stats)
}

/// What a rollout file has said so far, line by line.
struct Rollout<'n> {
    /// The file, as problems name it.
    name: &'n str,
    /// Its stem: the session id when the file names none.
    stem: String,
    id: Option<String>,
    project: String,
    /// The model of the turn under way.
    model: String,
    thread: Thread,
    compactions: u64,
    /// The next request follows a compaction (its context starts again).
    compacted: bool,
    /// The last cumulative usage, to tell a repeated event and to take
    /// differences when only totals are logged.
    last_total: Option<TokenUsage>,
    /// Tool calls by id: their tool and when they were asked for.
    calls: HashMap<String, (String, Option<i64>)>,
    /// Results and messages waiting for the request that carries them.
    pending: Vec<usize>,
    /// Shell outputs recorded wrapped in JSON: the result's index and the
    /// tokens of the JSON as recorded (see [`exec_output`]).
    as_recorded: Vec<(usize, u64)>,
    /// Lines of the file whose content was lost ([`Import::lost_lines`])
    /// before the one being read, and as of the last request: their
    /// difference is what the next request's [`Request::lost_lines_before`]
    /// counts.
    lost_before_line: u64,
    lost_at_request: u64,
}

impl<'n> Rollout<'n> {
    fn new(name: &'n str, stem: String) -> Self {
        Rollout {
            name,
            stem,
            id: None,
            project: String::new(),
            model: String::from(super::UNNAMED_MODEL),
            thread: Thread {
                agent: None,
                compaction: false,
                requests: Vec::new(),
                results: Vec::new(),
            },
            compactions: 0,
            compacted: false,
            last_total: None,
            calls: HashMap::new(),
            pending: Vec::new(),
            as_recorded: Vec::new(),
            lost_before_line: 0,
            lost_at_request: 0,
        }
    }

    /// One line of the file: a record, or a problem named by its number.
    fn line(&mut self, number: u64, text: &[u8], stats: &mut Import) {
        self.lost_before_line = stats.lost_lines;
        let rec: LineRec = match super::lines::from_json_line(text) {
            Ok(r) => r,
            Err(e) => {
                stats.lost(self.name, number, not_json(text, &e, "a JSON log line"));
                return;
            }
        };
        if let Err(e) = self.record(&rec, number, stats) {
            stats.lost(
                self.name,
                number,
                format!(
                    "a `{}` line of an unexpected shape at column {}",
                    rec.kind.chars().take(40).collect::<String>(),
                    e.column()
                ),
            );
        }
    }

    /// A record by its type.
    fn record(
        &mut self,
        rec: &LineRec,
        number: u64,
        stats: &mut Import,
    ) -> Result<(), serde_json::Error> {
        let payload = rec.payload.map_or("null", RawValue::get);
        let at_ms = rec.timestamp.as_deref().and_then(epoch_ms);
        match rec.kind.as_str() {
            "session_meta" => {
                let m: Meta = serde_json::from_str(payload)?;
                self.id = self.id.take().or(m.id);
                if let Some(cwd) = m.cwd {
                    self.project = Path::new(&cwd)
                        .file_name()
                        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
                }
            }
            "turn_context" => {
                let t: TurnContext = serde_json::from_str(payload)?;
                if let Some(m) = t.model {
                    self.model = m;
                }
            }
            "event_msg" => {
                let ev: EventMsg = serde_json::from_str(payload)?;
                self.event(ev, rec, at_ms, number, stats);
            }
            "response_item" => {
                let item: Item = serde_json::from_str(payload)?;
                self.item(item, at_ms, stats)?;
            }
            "compacted" => {
                self.compactions += 1;
                self.compacted = true;
                // What was waiting is inside the summary now.
                self.pending.clear();
            }
            "" => stats.problem(self.name, number, "a line without a `type`"),
            other => stats.problem(
                self.name,
                number,
                format!(
                    "unknown line type `{}`",
                    other.chars().take(40).collect::<String>()
                ),
            ),
        }
        Ok(())
    }

    /// An event: a `token_count` is a request, with its usage.
    fn event(
        &mut self,
        ev: EventMsg,
        rec: &LineRec,
        at_ms: Option<i64>,
        number: u64,
        stats: &mut Import,
    ) {
        if ev.kind != "token_count" {
            stats.skipped.other_lines += 1;
            return;
        }
        let Some(info) = ev.info else {
            stats.skipped.other_lines += 1;
            return;
        };
        if info.total_token_usage.is_some() && info.total_token_usage == self.last_total {
            // The same event emitted twice.
            stats.skipped.repeated_lines += 1;
            return;
        }
        let usage = match (
            info.last_token_usage,
            info.total_token_usage,
            self.last_total,
        ) {
            (Some(last), _, _) => last,
            (None, Some(total), Some(prev)) => total.minus(&prev),
            (None, Some(total), None) => total,
            (None, None, _) => {
                stats.skipped.other_lines += 1;
                return;
            }
        };
        if info.total_token_usage.is_some() {
            self.last_total = info.total_token_usage;
        }
        // Reasoning is billed as output and never sent back.
        let hidden_output = usage.reasoning_output_tokens.min(usage.output_tokens);
        let Some(usage) = usage.usage() else {
            stats.lost(self.name, number, "cached_input_tokens above input_tokens");
            return;
        };
        let usage = stats.capped(self.name, number, usage);
        let k = self.thread.requests.len();
        let lost = self.lost_before_line.saturating_sub(self.lost_at_request);
        self.lost_at_request = self.lost_before_line;
        for j in self.pending.drain(..) {
            self.thread.results[j].carried_by = Some(k);
        }
        self.thread.requests.push(Request {
            hidden_output,
            output_bytes: 0,
            thinking_bytes: 0,
            compacted_before: std::mem::take(&mut self.compacted),
            lost_lines_before: lost,
            message_id: format!("{}#{k}", self.stem),
            timestamp: rec.timestamp.clone(),
            at_ms,
            model: self.model.clone(),
            usage,
        });
    }

    /// A response item: a tool call, its output, or a message that enters
    /// the context.
    fn item(
        &mut self,
        item: Item,
        at_ms: Option<i64>,
        stats: &mut Import,
    ) -> Result<(), serde_json::Error> {
        match item.kind.as_str() {
            "function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call" => {
                if let Some(c) = item.call_id {
                    let name = item.name.unwrap_or_else(|| item.kind.clone());
                    self.calls.insert(c, (name, at_ms));
                }
            }
            "function_call_output" | "custom_tool_call_output" => {
                let (tool, asked) = item
                    .call_id
                    .as_ref()
                    .and_then(|c| self.calls.get(c).cloned())
                    .unwrap_or_else(|| ("unknown".into(), None));
                let latency_ms = match (asked, at_ms) {
                    (Some(a), Some(b)) if b >= a => (b - a) as u64,
                    _ => 0,
                };
                let (bytes, tokens, as_recorded) = item.output.map_or((0, 0, None), output_size);
                if let Some(n) = as_recorded {
                    self.as_recorded.push((self.thread.results.len(), n));
                }
                self.pending.push(self.thread.results.len());
                self.thread.results.push(ToolResult {
                    kind: super::ContextKind::Tool,
                    tool,
                    bytes,
                    images: 0,
                    documents: 0,
                    o200k_tokens: Some(tokens),
                    is_error: false,
                    latency_ms,
                    carried_by: None,
                    cleared_by: None,
                    at_ms,
                });
            }
            // What the user typed, and what Codex sends on their behalf
            // (instructions, environment context).
            "message" if matches!(item.role.as_deref(), Some("user" | "developer")) => {
                let c = item
                    .content
                    .map(super::content::ResultContent::measure)
                    .transpose()?
                    .unwrap_or_default();
                self.pending.push(self.thread.results.len());
                self.thread
                    .results
                    .push(ToolResult::context(super::ContextKind::User, c, at_ms));
            }
            _ => stats.skipped.other_lines += 1,
        }
        Ok(())
    }

    /// The session, if the file recorded any request.
    ///
    /// Where shell outputs were recorded wrapped in JSON, the thread's own
    /// prompt growth tells whether the model was sent the JSON or what it
    /// wraps ([`super::calibrate::sent_as_recorded`]); their counts follow.
    fn finish(mut self) -> Option<Session> {
        if self.thread.requests.is_empty() {
            return None;
        }
        if super::calibrate::sent_as_recorded(&self.thread, &self.as_recorded) {
            for &(i, n) in &self.as_recorded {
                if let Some(r) = self.thread.results.get_mut(i) {
                    r.o200k_tokens = Some(n);
                }
            }
        }
        Some(Session {
            id: self.id.unwrap_or(self.stem),
            project: self.project,
            files: vec![self.name.to_string()],
            threads: vec![self.thread],
            compactions: self.compactions,
            origin: None,
        })
    }
}

/// Reads every rollout file under `paths` and hands the sessions that pass
/// `filter` to `each`, a few dozen at a time. An archived copy of a session
/// already read counts once.
pub fn read<E: Send>(
    paths: &[PathBuf],
    filter: &Filter,
    each: impl FnMut(Vec<Session>) -> Result<(), E> + Send,
) -> Result<Import, E> {
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    super::read_each_file(
        "codex",
        paths,
        &["jsonl"],
        filter,
        read_file,
        |s, skipped| {
            if seen.insert(s.id.clone()) {
                true
            } else {
                skipped.duplicate_messages += s.requests().count() as u64;
                false
            }
        },
        each,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_counts_become_tokencast_classes() {
        // OpenAI's prompt-caching guide: prompt_tokens 2006 of which
        // cached_tokens 1920; output 300 with 128 reasoning tokens inside.
        let u = TokenUsage {
            input_tokens: 2006,
            cached_input_tokens: 1920,
            output_tokens: 300,
            reasoning_output_tokens: 128,
            total_tokens: 2306,
        };
        let t = u.usage().unwrap();
        assert_eq!((t.input, t.cache_read, t.output), (86, 1920, 300));
        assert_eq!(t.cache_write_5m + t.cache_write_1h, 0);
        let bad = TokenUsage {
            cached_input_tokens: 2007,
            ..u
        };
        assert_eq!(bad.usage(), None);
    }

    fn size(json: &str) -> (u64, u64) {
        let (bytes, tokens, _) = output_size(serde_json::from_str::<&RawValue>(json).unwrap());
        (bytes, tokens)
    }

    #[test]
    fn a_tool_output_is_counted_as_the_model_was_sent_it() {
        // "hello world" is two o200k tokens ("hello", " world").
        assert_eq!(size(r#""hello world""#), (11, 2));
        // Codex 0.3x–0.5x recorded a shell call's output wrapped in JSON;
        // it is counted for the output it wraps, 2 tokens (the thread's
        // prompt growth may then take the JSON's count instead: see
        // `calibrate::sent_as_recorded`), while the bytes are the
        // recorded text's: `{"output":"hello world",` 24, `"metadata":{`
        // 12, `"exit_code":0,` 14, `"duration_seconds":0.1` 22, `}}` 2 = 74.
        let wrapped = r#""{\"output\":\"hello world\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}""#;
        assert_eq!(size(wrapped), (74, 2));
        // An object with a `content` string: that string.
        assert_eq!(
            size(r#"{"content": "hello world", "success": true}"#),
            (11, 2)
        );
    }

    #[test]
    fn a_request_after_lines_that_could_not_be_read_counts_them() {
        // Two requests, then a cut line and a line of an unknown type, then
        // a third: the log lost what the cut line carried before request 2
        // (0-based) and only then; a line of an unknown type is a problem
        // but loses nothing the replay measures.
        let usage = |input: u64| {
            format!(
                r#"{{"type":"event_msg","payload":{{"type":"token_count","info":{{"last_token_usage":{{"input_tokens":{input},"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":{}}}}}}}}}"#,
                input + 1
            )
        };
        let lines = [
            r#"{"type":"turn_context","payload":{"model":"gpt-5-codex"}}"#.to_string(),
            usage(100),
            usage(200),
            r#"{"type":"response_item","payload":{"type":"function_call_output","#.to_string(),
            r#"{"type":"something_new","payload":{}}"#.to_string(),
            usage(300),
        ];
        let mut stats = Import::default();
        let mut r = Rollout::new("f", "s".into());
        for (n, l) in lines.iter().enumerate() {
            r.line(n as u64 + 1, l.as_bytes(), &mut stats);
        }
        assert_eq!(stats.problems.len(), 2);
        let lost: Vec<u64> = r
            .thread
            .requests
            .iter()
            .map(|q| q.lost_lines_before)
            .collect();
        assert_eq!(lost, [0, 0, 1]);
    }

    #[test]
    fn a_long_output_keeps_its_first_and_last_128_lines_for_the_model() {
        let text: String = (0..300).map(|i| format!("line {i}\n")).collect();
        let sent = for_model(&text);
        let lines: Vec<&str> = sent.lines().collect();
        // 128 + the marker and an empty line + 128.
        assert_eq!(lines.len(), 258);
        assert_eq!(lines[127], "line 127");
        assert_eq!(lines[128], "[... omitted 44 of 300 lines ...]");
        assert_eq!(lines[130], "line 172");
        assert_eq!(lines[257], "line 299");
        // Within 256 lines and 10 KiB: as it is.
        let short: String = (0..256).map(|i| format!("line {i}\n")).collect();
        assert_eq!(for_model(&short), short.as_str());
        // One line of 20,000 bytes: 5 KiB of head and the last 5 KiB.
        let long = "é".repeat(10_000);
        let sent = for_model(&long);
        assert!(sent.starts_with(&"é".repeat(2560)));
        assert!(sent.ends_with(&format!("]\n\n{}", "é".repeat(2560))));
    }
}
