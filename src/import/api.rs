//! API usage logs: JSONL files of response bodies, one per line, or of
//! `{"request": …, "response": …}` pairs (an optional `"timestamp"` beside
//! them), from Anthropic's Messages API or OpenAI's Chat Completions and
//! Responses APIs. Each file is one session; its lines are its requests in
//! order.
//!
//! Usage, converted once, here, into tokencast's classes:
//! - Anthropic (`usage.input_tokens`, `cache_creation.ephemeral_5m/1h_input_tokens`,
//!   `cache_read_input_tokens`): input excludes cached tokens; with
//!   `usage.iterations[]` the request is the sum of its iterations (a
//!   server-side compaction's writes are only there);
//! - OpenAI Chat (`prompt_tokens`, `prompt_tokens_details.cached_tokens` and
//!   `cache_write_tokens`, `completion_tokens`) and Responses (`input_tokens`,
//!   `input_tokens_details.…`, `output_tokens`): input includes cached and
//!   written tokens, output includes reasoning. Uncached = input − cached −
//!   written; written tokens are 5-minute writes.
//!
//! A line of a Batches API's results (Anthropic's Message Batches
//! `result.message`, OpenAI's Batch output `response.body`, both beside a
//! `custom_id`) is read as the response it holds, billed at batch prices
//! (`(service batch)`, as is Anthropic's `usage.service_tier: "batch"`);
//! one that errored holds no response and is left out.
//!
//! With requests, tool results are measured from them: Anthropic
//! `tool_result` blocks, OpenAI `role: tool` messages and Responses
//! `function_call_output` items, each counted once (by its id), carried by
//! the first request that sends it.

use super::content::ResultContent;
use super::lines::{each_line, not_json};
use super::{epoch_ms, Filter, Import, Request, Session, Thread, ToolResult, Usage};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct Pair<'a> {
    #[serde(default, borrow)]
    request: Option<&'a RawValue>,
    #[serde(default, borrow)]
    response: Option<&'a RawValue>,
    #[serde(default)]
    timestamp: Option<String>,
    /// A line of a Batches API's results: the request's own id …
    #[serde(default)]
    custom_id: Option<String>,
    /// … and, from Anthropic's Message Batches, its result.
    #[serde(default, borrow)]
    result: Option<BatchResult<'a>>,
}

/// Anthropic's Message Batches result: `{"type": "succeeded", "message": …}`
/// (an errored, canceled or expired request has no message and no charge).
#[derive(Deserialize)]
struct BatchResult<'a> {
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
}

/// OpenAI's Batch API output: `{"status_code": 200, "body": …}`.
#[derive(Deserialize)]
struct BatchResponse<'a> {
    #[serde(default, borrow)]
    body: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    object: Option<String>,
    #[serde(default)]
    usage: Option<UsageAny>,
    #[serde(default)]
    created: Option<i64>,
    #[serde(default)]
    created_at: Option<i64>,
    /// OpenAI: the tier that served it (`default`, `flex`, `priority`, `scale`).
    #[serde(default)]
    service_tier: Option<String>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct Details {
    #[serde(default)]
    cached_tokens: u64,
    #[serde(default)]
    cache_write_tokens: u64,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct CacheCreation {
    #[serde(default)]
    ephemeral_5m_input_tokens: u64,
    #[serde(default)]
    ephemeral_1h_input_tokens: u64,
}

/// Any provider's usage object (fields of each, all optional).
#[derive(Deserialize, Default, Clone)]
pub struct UsageAny {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation: Option<CacheCreation>,
    #[serde(default)]
    iterations: Vec<UsageAny>,
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<Details>,
    #[serde(default)]
    input_tokens_details: Option<Details>,
    /// Anthropic: `standard` or `fast` (fast mode).
    #[serde(default)]
    speed: Option<String>,
    /// Anthropic: where the request ran (`global`, `us`).
    #[serde(default)]
    inference_geo: Option<String>,
    /// Anthropic: `standard`, `priority` or `batch` (a Message Batches
    /// request, priced at batch prices).
    #[serde(default)]
    service_tier: Option<String>,
}

impl UsageAny {
    /// In tokencast's classes; `None` when the counts contradict each other
    /// (more cached than input).
    pub fn usage(&self, openai_response: bool) -> Option<Usage> {
        if let Some(prompt) = self.prompt_tokens {
            // OpenAI Chat Completions.
            let d = self.prompt_tokens_details.unwrap_or_default();
            return Some(Usage {
                input: prompt
                    .checked_sub(d.cached_tokens)?
                    .checked_sub(d.cache_write_tokens)?,
                cache_write_5m: d.cache_write_tokens,
                cache_write_1h: 0,
                cache_read: d.cached_tokens,
                output: self.completion_tokens.unwrap_or(0),
            });
        }
        if let (true, Some(input)) = (
            openai_response || self.input_tokens_details.is_some(),
            self.input_tokens,
        ) {
            // OpenAI Responses.
            let d = self.input_tokens_details.unwrap_or_default();
            return Some(Usage {
                input: input
                    .checked_sub(d.cached_tokens)?
                    .checked_sub(d.cache_write_tokens)?,
                cache_write_5m: d.cache_write_tokens,
                cache_write_1h: 0,
                cache_read: d.cached_tokens,
                output: self.output_tokens.unwrap_or(0),
            });
        }
        // Anthropic: iterations, when present, are the whole request.
        if !self.iterations.is_empty() {
            return self
                .iterations
                .iter()
                .try_fold(Usage::default(), |acc, it| {
                    Some(acc.plus(&it.usage(false)?))
                });
        }
        let (w5, w1) = match self.cache_creation {
            Some(c) => (c.ephemeral_5m_input_tokens, c.ephemeral_1h_input_tokens),
            None => (self.cache_creation_input_tokens.unwrap_or(0), 0),
        };
        Some(Usage {
            input: self.input_tokens.unwrap_or(0),
            cache_write_5m: w5,
            cache_write_1h: w1,
            cache_read: self.cache_read_input_tokens.unwrap_or(0),
            output: self.output_tokens.unwrap_or(0),
        })
    }
}

#[derive(Deserialize)]
struct RequestBody<'a> {
    #[serde(default, borrow)]
    messages: Vec<Message<'a>>,
    #[serde(default, borrow)]
    input: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default)]
    role: String,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    tool_call_id: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ToolCall>,
}

#[derive(Deserialize)]
struct ToolCall {
    #[serde(default)]
    id: String,
    #[serde(default)]
    function: Option<Function>,
}

#[derive(Deserialize)]
struct Function {
    #[serde(default)]
    name: String,
}

/// An Anthropic content block or a Responses input item.
#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    tool_use_id: Option<String>,
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(default, borrow)]
    output: Option<&'a RawValue>,
}

fn blocks(raw: Option<&RawValue>) -> Result<Vec<Block<'_>>, serde_json::Error> {
    match raw {
        Some(r) if r.get().starts_with('[') => serde_json::from_str(r.get()),
        _ => Ok(Vec::new()),
    }
}

/// A result found in a request: its id, tool name key, content, and
/// whether it is OpenAI's (a `role: tool` message or a
/// `function_call_output`), whose text is counted with `o200k_base`.
struct Found<'a> {
    id: String,
    content: Option<&'a RawValue>,
    is_error: bool,
    openai: bool,
}

/// Tool names asked for and tool results sent, in a request body.
fn scan<'a>(
    req: &'a RequestBody<'a>,
    names: &mut HashMap<String, String>,
) -> Result<Vec<Found<'a>>, serde_json::Error> {
    let mut found = Vec::new();
    for m in &req.messages {
        for c in &m.tool_calls {
            if let Some(f) = &c.function {
                names.insert(c.id.clone(), f.name.clone());
            }
        }
        if m.role == "tool" {
            if let Some(id) = &m.tool_call_id {
                found.push(Found {
                    id: id.clone(),
                    content: m.content,
                    is_error: false,
                    openai: true,
                });
            }
            continue;
        }
        for b in blocks(m.content)? {
            match b.kind.as_str() {
                "tool_use" | "server_tool_use" => {
                    if let (Some(id), Some(name)) = (b.id, b.name) {
                        names.insert(id, name);
                    }
                }
                "tool_result" => found.push(Found {
                    id: b.tool_use_id.unwrap_or_default(),
                    content: b.content,
                    is_error: b.is_error.unwrap_or(false),
                    openai: false,
                }),
                _ => {}
            }
        }
    }
    for b in blocks(req.input)? {
        match b.kind.as_str() {
            "function_call" | "custom_tool_call" => {
                if let (Some(id), Some(name)) = (b.call_id, b.name) {
                    names.insert(id, name);
                }
            }
            "function_call_output" | "custom_tool_call_output" => found.push(Found {
                id: b.call_id.unwrap_or_default(),
                content: b.output,
                is_error: false,
                openai: true,
            }),
            _ => {}
        }
    }
    Ok(found)
}

fn read_file(root: &Path, path: &Path) -> (Option<Session>, Import) {
    let name = super::name_under(root, path);
    let mut stats = Import::default();
    let mut cassette = Cassette::new(&name, path);
    let opened = each_line(path, &name, &mut stats, |number, text, stats| {
        cassette.line(number, text, stats)
    });
    stats.files = 1;
    if !opened {
        return (None, stats);
    }
    (cassette.finish(), stats)
}

/// What a file of recorded request and response pairs has said so far.
struct Cassette<'n> {
    /// The file, as problems name it.
    name: &'n str,
    /// Its stem: the session id, and the request ids where a response has none.
    stem: String,
    /// Its folder's name.
    project: String,
    thread: Thread,
    /// Tool names by call id, from the requests' assistant turns.
    names: HashMap<String, String>,
    /// Tool results already counted: each request re-sends the earlier ones.
    sent: HashSet<String>,
}

impl<'n> Cassette<'n> {
    fn new(name: &'n str, path: &Path) -> Self {
        Cassette {
            name,
            stem: path
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
            project: path
                .parent()
                .and_then(Path::file_name)
                .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
            thread: Thread {
                agent: None,
                compaction: false,
                requests: Vec::new(),
                results: Vec::new(),
            },
            names: HashMap::new(),
            sent: HashSet::new(),
        }
    }

    /// One pair: the request's new tool results, then the response's usage.
    fn line(&mut self, number: u64, text: &[u8], stats: &mut Import) {
        let pair: Pair = match super::lines::from_json_line(text) {
            Ok(p) => p,
            Err(e) => {
                stats.problem(self.name, number, not_json(text, &e, "a JSON line"));
                return;
            }
        };
        // A line of a Batches API's results holds the response inside it,
        // and the request was billed at batch prices.
        let in_batch = pair.custom_id.is_some();
        let batched = match (&pair.result, pair.response) {
            (Some(r), _) if in_batch => Some(r.message),
            (None, Some(r)) if in_batch => Some(
                serde_json::from_str::<BatchResponse>(r.get())
                    .ok()
                    .and_then(|b| b.body),
            ),
            _ => None,
        };
        let body = match (batched, pair.response) {
            (Some(Some(message)), _) => message.get().to_string(),
            // Errored, canceled or expired: nothing was billed.
            (Some(None), _) => {
                stats.skipped.other_lines += 1;
                return;
            }
            (None, Some(r)) => r.get().to_string(),
            (None, None) => String::from_utf8_lossy(text).into_owned(),
        };
        let resp: Response = match serde_json::from_str(&body) {
            Ok(r) => r,
            Err(e) => {
                stats.problem(
                    self.name,
                    number,
                    format!("not a response body at column {}", e.column()),
                );
                return;
            }
        };
        let Some(usage_any) = &resp.usage else {
            stats.problem(self.name, number, "a response without `usage`");
            return;
        };
        let openai_response = resp.object.as_deref() == Some("response");
        let Some(usage) = usage_any.usage(openai_response) else {
            stats.problem(self.name, number, "more cached than input tokens");
            return;
        };
        let usage = stats.capped(self.name, number, usage);
        let k = self.thread.requests.len();
        if let Some(req_raw) = pair.request {
            match self.new_results(req_raw.get(), k) {
                Ok(results) => self.thread.results.extend(results),
                Err(e) => stats.problem(
                    self.name,
                    number,
                    format!(
                        "a request body of an unexpected shape at column {}",
                        e.column()
                    ),
                ),
            }
        }
        let timestamp = pair.timestamp.or_else(|| {
            let secs = resp.created.or(resp.created_at)?;
            // Up to 9999-12-31: a later value is not a real timestamp.
            let secs = Some(secs).filter(|s| (0..=253_402_300_799).contains(s))?;
            Some(super::otel::millis(
                jiff::Timestamp::from_second(secs).ok()?,
            ))
        });
        self.thread.requests.push(Request {
            hidden_output: 0,
            output_bytes: 0,
            thinking_bytes: 0,
            compacted_before: false,
            lost_lines_before: 0,
            message_id: resp
                .id
                .clone()
                .unwrap_or_else(|| format!("{}#{k}", self.stem)),
            at_ms: timestamp.as_deref().and_then(epoch_ms),
            timestamp,
            model: super::priced_model(
                resp.model
                    .clone()
                    .unwrap_or_else(|| super::UNNAMED_MODEL.into()),
                // A batch result, or Anthropic's batch tier (its `priority`
                // tier is billed at the standard prices); else OpenAI's tier,
                // or Anthropic's fast mode.
                (in_batch
                    || resp.usage.as_ref().and_then(|u| u.service_tier.as_deref())
                        == Some(crate::pricing::BATCH_SERVICE))
                .then_some(crate::pricing::BATCH_SERVICE)
                .or(resp.service_tier.as_deref())
                .or(resp.usage.as_ref().and_then(|u| u.speed.as_deref())),
                resp.usage.as_ref().and_then(|u| u.inference_geo.as_deref()),
            ),
            usage,
        });
    }

    /// The tool results request `k` sends that no earlier request sent.
    fn new_results(&mut self, body: &str, k: usize) -> Result<Vec<ToolResult>, serde_json::Error> {
        let req: RequestBody = serde_json::from_str(body)?;
        let found = scan(&req, &mut self.names)?;
        let mut out = Vec::new();
        for f in found {
            if f.id.is_empty() || !self.sent.insert(f.id.clone()) {
                continue;
            }
            let c = f
                .content
                .map(ResultContent::measure)
                .transpose()?
                .unwrap_or_default();
            out.push(ToolResult {
                kind: super::ContextKind::Tool,
                tool: self
                    .names
                    .get(&f.id)
                    .cloned()
                    .unwrap_or_else(|| "unknown".into()),
                bytes: c.bytes,
                images: c.images,
                documents: c.documents,
                o200k_tokens: match (f.openai, f.content) {
                    (true, Some(raw)) => Some(ResultContent::o200k_tokens(raw)?),
                    _ => None,
                },
                is_error: f.is_error,
                latency_ms: 0,
                carried_by: Some(k),
                cleared_by: None,
                at_ms: None,
            });
        }
        Ok(out)
    }

    /// The session, if the file recorded any response.
    fn finish(self) -> Option<Session> {
        if self.thread.requests.is_empty() {
            return None;
        }
        Some(Session {
            id: self.stem,
            project: self.project,
            files: vec![self.name.to_string()],
            threads: vec![self.thread],
            compactions: 0,
            origin: None,
        })
    }
}

/// Reads every `.jsonl` file under `paths` (one session each) and hands the
/// sessions that pass `filter` to `each`, a few dozen at a time. A response
/// id seen in an earlier file is counted once; the results it carried stay,
/// carried by no request.
pub fn read<E: Send>(
    paths: &[PathBuf],
    filter: &Filter,
    each: impl FnMut(Vec<Session>) -> Result<(), E> + Send,
) -> Result<Import, E> {
    let mut seen: HashSet<String> = HashSet::new();
    super::read_each_file(
        "api",
        paths,
        &["jsonl"],
        filter,
        read_file,
        |s, skipped| {
            for t in &mut s.threads {
                let keep: Vec<bool> = t
                    .requests
                    .iter()
                    .map(|r| seen.insert(r.message_id.clone()))
                    .collect();
                let mut index: Vec<Option<usize>> = Vec::with_capacity(keep.len());
                let mut n = 0;
                for k in &keep {
                    index.push(k.then_some(n));
                    n += usize::from(*k);
                }
                skipped.duplicate_messages += (keep.len() - n) as u64;
                let mut i = 0;
                t.requests.retain(|_| {
                    i += 1;
                    keep[i - 1]
                });
                for r in &mut t.results {
                    r.carried_by = r.carried_by.and_then(|c| index[c]);
                }
            }
            s.threads.iter().any(|t| !t.requests.is_empty())
        },
        each,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(json: &str, openai_response: bool) -> Option<Usage> {
        serde_json::from_str::<UsageAny>(json)
            .unwrap()
            .usage(openai_response)
    }

    #[test]
    fn each_provider_converts_into_tokencast_classes() {
        // OpenAI Chat (a recorded pydantic-ai cassette): 4,020 prompt tokens of
        // which 4,012 written to the cache, none read: 8 uncached.
        let u = usage(
            r#"{"completion_tokens":4,"prompt_tokens":4020,"prompt_tokens_details":{"cache_write_tokens":4012,"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}"#,
            false,
        )
        .unwrap();
        assert_eq!(
            (u.input, u.cache_write_5m, u.cache_read, u.output),
            (8, 4012, 0, 4)
        );
        // OpenAI Responses, OpenAI's prompt-caching guide numbers: 2,006 input
        // of which 1,920 cached; output 300 including 128 reasoning.
        let u = usage(
            r#"{"input_tokens":2006,"input_tokens_details":{"cached_tokens":1920},"output_tokens":300,"output_tokens_details":{"reasoning_tokens":128}}"#,
            true,
        )
        .unwrap();
        assert_eq!((u.input, u.cache_read, u.output), (86, 1920, 300));
        // Anthropic with a server-side compaction (pydantic-ai cassette): the
        // compaction iteration's 55,096 5-minute writes are not in the top level.
        let u = usage(
            r#"{"input_tokens":229,"output_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,
               "iterations":[{"type":"compaction","input_tokens":100,"output_tokens":131,"cache_creation_input_tokens":55096,
                              "cache_creation":{"ephemeral_5m_input_tokens":55096,"ephemeral_1h_input_tokens":0},"cache_read_input_tokens":0},
                             {"type":"message","input_tokens":229,"output_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}]}"#,
            false,
        )
        .unwrap();
        assert_eq!((u.input, u.cache_write_5m, u.output), (329, 55096, 136));
        assert_eq!(
            usage(
                r#"{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":11}}"#,
                false
            ),
            None
        );
    }
}
