//! Claude Code's session logs (`~/.claude/projects/<project>/<session>.jsonl`).
//!
//! Layouts, as the CLI versions wrote them:
//! - 1.0.x: subagent (Task) lines inline in the session file, `isSidechain: true`;
//! - 2.0.x–2.1.1: sibling files `agent-<id>.jsonl` in the project directory;
//! - 2.1.3x+: `<session>/subagents/agent-<id>.jsonl`, including
//!   `agent-acompact-*` files that hold the automatic-compaction request.
//!
//! Counting rules (each tested):
//! - one response spans several lines sharing `message.id` (one per content
//!   block): it is one request, with the final (largest) output;
//! - a message logged again (in another file, or by a resumed session, with
//!   or without `requestId`) is counted once, by `message.id`;
//! - `cache_creation.ephemeral_5m/1h_input_tokens` are kept apart (priced
//!   separately); without that object the writes are 5-minute writes;
//! - when `usage.iterations[]` is present the request is the sum of its
//!   iterations (usage reported only there is counted);
//! - `<synthetic>` lines with zero usage are not requests.
//!
//! Bad input never stops the import: a line that is not JSON, not UTF-8, of
//! an unknown type, or longer than [`super::lines::MAX_LINE_BYTES`], and a file
//! that cannot be read to its end, become [`Problem`]s with file and line.

use super::content::ResultContent;
use super::lines::each_line;
use super::{
    epoch_ms, ContextKind, Filter, Import, Problem, Request, Session, Skipped, Thread, ToolResult,
    Usage,
};
use rayon::prelude::*;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// Where Claude Code keeps its logs: each directory of `$CLAUDE_CONFIG_DIR`
/// (comma-separated) with `/projects`, else `~/.config/claude/projects` and
/// `~/.claude/projects`; the ones that exist.
pub fn default_paths() -> Vec<PathBuf> {
    let candidates: Vec<PathBuf> = match std::env::var("CLAUDE_CONFIG_DIR") {
        Ok(v) if !v.trim().is_empty() => v
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|d| {
                let p = PathBuf::from(d);
                if p.ends_with("projects") {
                    p
                } else {
                    p.join("projects")
                }
            })
            .collect(),
        _ => dirs::home_dir()
            .map(|h| {
                vec![
                    h.join(".config/claude/projects"),
                    h.join(".claude/projects"),
                ]
            })
            .unwrap_or_default(),
    };
    candidates.into_iter().filter(|p| p.is_dir()).collect()
}

// ── The lines, as far as tokencast reads them ──────────────────────────────

/// The fields of a log line tokencast reads.
#[derive(Default)]
struct LineRec<'a> {
    kind: Option<String>,
    session_id: Option<String>,
    is_sidechain: bool,
    timestamp: Option<String>,
    subtype: Option<String>,
    message: Option<Message<'a>>,
    /// `parentUuid` is present and null: the first message of a chain (an
    /// inline subagent's conversation starts so).
    root: bool,
    /// An `attachment` line's payload, as JSON bytes (hook output,
    /// reminders, skill listings, tool-list changes: context the client
    /// sends with the next request).
    attachment_bytes: Option<u64>,
}

/// The error a line's reader stops with once it has every field it needs.
const HAVE_ALL: &str = "tokencast: every field read";

/// Reads a line's fields, and stops once `type`, `message` and `timestamp`
/// are read: what follows them in Claude Code's lines is the structured copy
/// of the tool result (`toolUseResult`) and ids, often half the line's
/// bytes, which tokencast never uses. The rest of such a line is only
/// checked for its closing brace (see [`parse_line`]).
struct LineVisitor<'a, 's>(&'s mut LineRec<'a>, &'s std::cell::Cell<bool>);

impl<'de: 'a, 'a> Visitor<'de> for LineVisitor<'a, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<M: de::MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let (mut kind, mut message, mut timestamp) = (false, false, false);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "type" => {
                    self.0.kind = map.next_value()?;
                    kind = true;
                }
                "message" => {
                    self.0.message = map.next_value()?;
                    message = true;
                }
                "timestamp" => {
                    self.0.timestamp = map.next_value()?;
                    timestamp = true;
                }
                "sessionId" => self.0.session_id = map.next_value()?,
                "parentUuid" => {
                    self.0.root = map.next_value::<Option<de::IgnoredAny>>()?.is_none();
                }
                "isSidechain" => {
                    self.0.is_sidechain = map.next_value::<Option<bool>>()?.unwrap_or(false)
                }
                "subtype" => self.0.subtype = map.next_value()?,
                "attachment" => {
                    let raw: &'de serde_json::value::RawValue = map.next_value()?;
                    self.0.attachment_bytes = Some(raw.get().len() as u64);
                }
                _ => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
            if kind && message && timestamp {
                self.1.set(true);
                return Err(de::Error::custom(HAVE_ALL));
            }
        }
        Ok(())
    }
}

/// Parses one line: the whole object, or up to its last needed field (the
/// line must then still end with the object's closing brace).
fn parse_line(text: &[u8]) -> Result<LineRec<'_>, serde_json::Error> {
    let mut rec = LineRec::default();
    let stopped = std::cell::Cell::new(false);
    let mut de = serde_json::Deserializer::from_slice(text);
    match de::Deserializer::deserialize_map(&mut de, LineVisitor(&mut rec, &stopped)) {
        Ok(()) => de.end().map(|()| rec),
        Err(_) if stopped.get() => {
            let last = text.iter().rev().find(|b| !b.is_ascii_whitespace());
            if last == Some(&b'}') {
                Ok(rec)
            } else {
                // Read on to report where the line breaks off.
                serde_json::from_slice::<de::IgnoredAny>(text).map(|_| rec)
            }
        }
        Err(e) => Err(e),
    }
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    usage: Option<UsageWithIterations>,
    #[serde(default, borrow)]
    content: Blocks<'a>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct UsageRaw {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation: Option<CacheCreation>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct CacheCreation {
    #[serde(default)]
    ephemeral_5m_input_tokens: u64,
    #[serde(default)]
    ephemeral_1h_input_tokens: u64,
}

/// `usage` with its optional `iterations`.
#[derive(Deserialize)]
struct UsageWithIterations {
    #[serde(flatten)]
    top: UsageRaw,
    /// Absent, `null` (CLI 2.1.1xx) or the server-side iterations.
    #[serde(default)]
    iterations: Option<Vec<UsageRaw>>,
}

impl UsageRaw {
    fn usage(&self) -> Usage {
        let created = self.cache_creation_input_tokens.unwrap_or(0);
        let (w5, w1) = match self.cache_creation {
            Some(c) => (c.ephemeral_5m_input_tokens, c.ephemeral_1h_input_tokens),
            None => (created, 0),
        };
        Usage {
            input: self.input_tokens.unwrap_or(0),
            cache_write_5m: w5,
            cache_write_1h: w1,
            cache_read: self.cache_read_input_tokens.unwrap_or(0),
            output: self.output_tokens.unwrap_or(0),
        }
    }
}

/// `message.content`: a string (only its length is kept) or content blocks.
#[derive(Default)]
struct Blocks<'a>(Vec<Block<'a>>, u64);

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    tool_use_id: Option<String>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default, borrow)]
    content: Option<&'a serde_json::value::RawValue>,
    #[serde(default, borrow)]
    text: Option<&'a serde_json::value::RawValue>,
    #[serde(default, borrow)]
    thinking: Option<&'a serde_json::value::RawValue>,
    #[serde(default, borrow)]
    input: Option<&'a serde_json::value::RawValue>,
}

impl Block<'_> {
    /// Bytes of an assistant block as the next prompts carry it: text and
    /// thinking decoded, a tool call's name and input as JSON.
    fn output_bytes(&self) -> u64 {
        let text = |r: Option<&serde_json::value::RawValue>| {
            r.and_then(|t| ResultContent::measure(t).ok())
                .map_or(0, |c| c.bytes)
        };
        match &*self.kind {
            "text" => text(self.text),
            "thinking" => text(self.thinking),
            "tool_use" | "server_tool_use" => {
                self.name.as_ref().map_or(0, |n| n.len() as u64)
                    + self.input.map_or(0, |i| i.get().len() as u64)
            }
            _ => 0,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Blocks<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Blocks<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Blocks<'a>, E> {
                Ok(Blocks(Vec::new(), text.len() as u64))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Blocks<'a>, E> {
                Ok(Blocks::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Blocks<'a>, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<Block<'a>>()? {
                    out.push(b);
                }
                Ok(Blocks(out, 0))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// Line types that carry nothing to count (client state, titles, modes).
const QUIET_TYPES: [&str; 13] = [
    "summary",
    "progress",
    "file-history-snapshot",
    "file-history-delta",
    "queue-operation",
    "system",
    "result",
    "custom-title",
    "ai-title",
    "permission-mode",
    "mode",
    "last-prompt",
    "bridge-session",
];

// ── One file ───────────────────────────────────────────────────────────────

/// Where a file sits in the layout.
#[derive(Debug, Clone)]
struct FileRole {
    /// Name relative to the path given.
    name: String,
    project: String,
    /// Session id from the layout (a fallback when lines give none).
    session_hint: String,
    /// `Some(stem)` for subagent files.
    agent: Option<String>,
    compaction: bool,
}

fn role_of(root: &Path, file: &Path) -> FileRole {
    let name = file
        .strip_prefix(root)
        .ok()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(file)
        .to_string_lossy()
        .into_owned();
    let name = if name.is_empty() {
        file.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    } else {
        name
    };
    let stem = file
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let parent = file.parent();
    let dir_name = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    };
    let in_subagents = dir_name(parent) == "subagents";
    if in_subagents {
        let session_dir = parent.and_then(Path::parent);
        FileRole {
            name,
            project: dir_name(session_dir.and_then(Path::parent)),
            session_hint: dir_name(session_dir),
            compaction: stem.starts_with("agent-acompact"),
            agent: Some(stem),
        }
    } else if stem.starts_with("agent-") {
        FileRole {
            name,
            project: dir_name(parent),
            session_hint: stem.clone(),
            compaction: stem.starts_with("agent-acompact"),
            agent: Some(stem),
        }
    } else {
        FileRole {
            name,
            project: dir_name(parent),
            session_hint: stem,
            agent: None,
            compaction: false,
        }
    }
}

/// A request as read from one file, before deduplication across files.
struct FileRequest {
    thread: Option<String>,
    request: Request,
}

/// A result as read, with the message that carried it.
struct FileResult {
    thread: Option<String>,
    tool_use_id: String,
    carried_by: Option<String>,
    result: ToolResult,
}

/// What one file holds.
struct FileRecords {
    role: FileRole,
    session_id: Option<String>,
    requests: Vec<FileRequest>,
    results: Vec<FileResult>,
    compactions: u64,
    lines: u64,
    bytes: u64,
    skipped: Skipped,
    problems: Vec<Problem>,
}

fn read_file(root: &Path, path: &Path) -> FileRecords {
    let role = role_of(root, path);
    let name = role.name.clone();
    let mut transcript = Transcript::new(role);
    let mut stats = Import::default();
    each_line(path, &name, &mut stats, |number, text, stats| {
        transcript.line(number, text, stats)
    });
    let mut rec = transcript.rec;
    rec.lines = stats.lines;
    rec.bytes = stats.bytes;
    rec.skipped = stats.skipped;
    rec.problems = stats.problems;
    rec
}

/// What one transcript file has said so far: its records, and the state
/// that ties a line to the ones before it.
struct Transcript {
    rec: FileRecords,
    /// Requests by message id: a response is logged as one line per
    /// content block.
    by_message: HashMap<String, usize>,
    /// Tool calls by id: their tool and when they were asked for.
    tool_uses: HashMap<String, (String, Option<i64>)>,
    /// Per thread (None: the file's own; Some: an inline sidechain), what
    /// entered the context and waits for the thread's next request.
    pending: HashMap<Option<String>, Vec<usize>>,
    /// Inline subagent conversations seen so far.
    sidechains: u64,
    /// Threads whose next request follows a compaction marker.
    compacted: HashSet<Option<String>>,
}

impl Transcript {
    fn new(role: FileRole) -> Transcript {
        Transcript {
            rec: FileRecords {
                role,
                session_id: None,
                requests: Vec::new(),
                results: Vec::new(),
                compactions: 0,
                lines: 0,
                bytes: 0,
                skipped: Skipped::default(),
                problems: Vec::new(),
            },
            by_message: HashMap::new(),
            tool_uses: HashMap::new(),
            pending: HashMap::new(),
            sidechains: 0,
            compacted: HashSet::new(),
        }
    }

    /// One line: a record of its type, or a problem named by its number.
    fn line(&mut self, number: u64, text: &[u8], stats: &mut Import) {
        let parsed: LineRec = match parse_line(text) {
            Ok(p) => p,
            Err(e) => {
                let what = match std::str::from_utf8(text) {
                    Err(u) => format!("not UTF-8 (invalid byte at column {})", u.valid_up_to() + 1),
                    Ok(_) if e.is_eof() => "truncated JSON".to_string(),
                    Ok(_) => format!(
                        "not a JSON log line: {} at column {}",
                        category(&e),
                        e.column()
                    ),
                };
                stats.problem(&self.rec.role.name, number, what);
                return;
            }
        };
        if self.rec.session_id.is_none() {
            self.rec.session_id = parsed.session_id.clone();
        }
        let thread = self.thread_of(&parsed);
        match parsed.kind.as_deref().unwrap_or("") {
            "assistant" => self.assistant(parsed, thread, number, stats),
            "user" => self.user(parsed, thread, number, stats),
            "attachment" => {
                let at_ms = parsed.timestamp.as_deref().and_then(epoch_ms);
                let measured = ResultContent {
                    bytes: parsed.attachment_bytes.unwrap_or(0),
                    ..ResultContent::default()
                };
                self.push_context(&thread, ContextKind::Attachment, measured, at_ms);
            }
            "system" if parsed.subtype.as_deref() == Some("compact_boundary") => {
                self.rec.compactions += 1;
                self.compacted.insert(thread.clone());
                // What was waiting is now inside the summary, not sent as it was.
                self.pending.remove(&thread);
            }
            k if QUIET_TYPES.contains(&k) => stats.skipped.other_lines += 1,
            other => stats.problem(
                &self.rec.role.name,
                number,
                if other.is_empty() {
                    "a line without a `type`".into()
                } else {
                    format!(
                        "unknown line type `{}`",
                        other.chars().take(40).collect::<String>()
                    )
                },
            ),
        }
    }

    /// The thread a line belongs to. Inline subagents (CLI 1.0.x): each
    /// conversation starts with a root user message that hands over a task
    /// (not a tool result) and is a thread of its own.
    fn thread_of(&mut self, parsed: &LineRec) -> Option<String> {
        if self.rec.role.agent.is_some() || !parsed.is_sidechain {
            return None;
        }
        let hands_over = parsed
            .message
            .as_ref()
            .is_some_and(|m| m.content.0.iter().all(|b| b.kind != "tool_result"));
        if parsed.root && parsed.kind.as_deref() == Some("user") && hands_over {
            self.sidechains += 1;
        }
        Some(match self.sidechains {
            0 | 1 => "sidechain".to_string(),
            n => format!("sidechain-{n}"),
        })
    }

    /// An assistant line: a request, or another content block of one.
    fn assistant(
        &mut self,
        parsed: LineRec,
        thread: Option<String>,
        number: u64,
        stats: &mut Import,
    ) {
        let Some(msg) = parsed.message else {
            stats.skipped.other_lines += 1;
            return;
        };
        let at_ms = parsed.timestamp.as_deref().and_then(epoch_ms);
        for b in &msg.content.0 {
            if b.kind == "tool_use" || b.kind == "server_tool_use" {
                if let (Some(id), Some(name)) = (&b.id, &b.name) {
                    self.tool_uses.insert(id.clone(), (name.clone(), at_ms));
                }
            }
        }
        let (usage, over) = msg
            .usage
            .map(|u| u.total())
            .unwrap_or_default()
            .capped(crate::limits::MAX_TOKENS);
        if over {
            stats.problem(
                &self.rec.role.name,
                number,
                format!(
                    "a usage count above {} tokens; capped there for this line",
                    crate::limits::MAX_TOKENS
                ),
            );
        }
        let output_bytes: u64 = msg.content.0.iter().map(Block::output_bytes).sum();
        let model = msg.model.unwrap_or_default();
        let Some(id) = msg.id else {
            stats.skipped.other_lines += 1;
            return;
        };
        if model == "<synthetic>" && usage.total() == 0 {
            stats.skipped.synthetic += 1;
            return;
        }
        if let Some(&i) = self.by_message.get(&id) {
            // Another content block of the same response: keep the final output.
            stats.skipped.repeated_lines += 1;
            let r = &mut self.rec.requests[i].request;
            r.output_bytes += output_bytes;
            if usage.output > r.usage.output {
                r.usage.output = usage.output;
            }
            if usage.prompt() > r.usage.prompt() {
                let out = r.usage.output;
                r.usage = Usage {
                    output: out,
                    ..usage
                };
            }
            return;
        }
        self.by_message.insert(id.clone(), self.rec.requests.len());
        if let Some(waiting) = self.pending.remove(&thread) {
            for j in waiting {
                self.rec.results[j].carried_by = Some(id.clone());
            }
        }
        let compacted_before = self.compacted.remove(&thread);
        self.rec.requests.push(FileRequest {
            thread,
            request: Request {
                compacted_before,
                hidden_output: 0,
                output_bytes,
                message_id: id,
                timestamp: parsed.timestamp,
                at_ms,
                model,
                usage,
            },
        });
    }

    /// A user line: what the user (or the client on the user's behalf)
    /// sent, text and images, and the tool results.
    fn user(&mut self, parsed: LineRec, thread: Option<String>, number: u64, stats: &mut Import) {
        let Some(msg) = parsed.message else { return };
        let at_ms = parsed.timestamp.as_deref().and_then(epoch_ms);
        let mut typed = ResultContent {
            bytes: msg.content.1,
            ..ResultContent::default()
        };
        for b in &msg.content.0 {
            match &*b.kind {
                "text" => {
                    typed.bytes += b
                        .text
                        .and_then(|t| ResultContent::measure(t).ok())
                        .map_or(0, |c| c.bytes)
                }
                "image" => typed.images += 1,
                "document" => typed.documents += 1,
                _ => {}
            }
        }
        if typed != ResultContent::default() {
            self.push_context(&thread, ContextKind::User, typed, at_ms);
        }
        for b in msg.content.0 {
            if b.kind != "tool_result" {
                continue;
            }
            let c = match b.content.map(ResultContent::measure).transpose() {
                Ok(c) => c.unwrap_or_default(),
                Err(_) => {
                    stats.problem(
                        &self.rec.role.name,
                        number,
                        "a tool result whose content is not text blocks",
                    );
                    continue;
                }
            };
            let use_id = b.tool_use_id.unwrap_or_default();
            let (tool, asked_at) = self
                .tool_uses
                .get(&use_id)
                .cloned()
                .unwrap_or_else(|| ("unknown".to_string(), None));
            let latency_ms = match (asked_at, at_ms) {
                (Some(a), Some(b)) if b >= a => (b - a) as u64,
                _ => 0,
            };
            self.pending
                .entry(thread.clone())
                .or_default()
                .push(self.rec.results.len());
            self.rec.results.push(FileResult {
                thread: thread.clone(),
                tool_use_id: use_id,
                carried_by: None,
                result: ToolResult {
                    kind: super::ContextKind::Tool,
                    tool,
                    bytes: c.bytes,
                    images: c.images,
                    documents: c.documents,
                    is_error: b.is_error.unwrap_or(false),
                    latency_ms,
                    carried_by: None,
                    at_ms,
                },
            });
        }
    }

    /// Adds context other than a tool result, carried by the thread's next request.
    fn push_context(
        &mut self,
        thread: &Option<String>,
        kind: ContextKind,
        c: ResultContent,
        at_ms: Option<i64>,
    ) {
        self.pending
            .entry(thread.clone())
            .or_default()
            .push(self.rec.results.len());
        self.rec.results.push(FileResult {
            thread: thread.clone(),
            tool_use_id: String::new(),
            carried_by: None,
            result: ToolResult::context(kind, c, at_ms),
        });
    }
}

/// A serde_json error's kind, without any of the line's text.
fn category(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Io => "read error",
        serde_json::error::Category::Syntax => "syntax error",
        serde_json::error::Category::Data => "unexpected value",
        serde_json::error::Category::Eof => "truncated",
    }
}

impl UsageWithIterations {
    /// The request's usage: the sum of its iterations when it has them.
    fn total(self) -> Usage {
        match self.iterations {
            Some(its) if !its.is_empty() => its
                .iter()
                .fold(Usage::default(), |acc, u| acc.plus(&u.usage())),
            _ => self.top.usage(),
        }
    }
}

// ── All files ──────────────────────────────────────────────────────────────

/// Every `.jsonl` file under `paths` (a file is taken as it is), sorted,
/// and the entries that could not be listed (a dangling link, a directory
/// that cannot be read) as problems.
pub(super) fn files_under(
    paths: &[PathBuf],
    follow_links: bool,
) -> (Vec<(PathBuf, PathBuf)>, Vec<Problem>) {
    files_under_with(paths, &["jsonl"], follow_links)
}

/// [`files_under`] for files ending in any of `extensions`. A symbolic link
/// to a file is read; a link to a folder is walked only with
/// `follow_links`, and otherwise listed as a problem that says so.
pub(super) fn files_under_with(
    paths: &[PathBuf],
    extensions: &[&str],
    follow_links: bool,
) -> (Vec<(PathBuf, PathBuf)>, Vec<Problem>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for root in paths {
        if root.is_file() {
            let base = root.parent().map(Path::to_path_buf).unwrap_or_default();
            out.push((base, root.clone()));
            continue;
        }
        let mut found: Vec<PathBuf> = Vec::new();
        for entry in walkdir::WalkDir::new(root).follow_links(follow_links) {
            match entry {
                Ok(e) if e.path_is_symlink() && !follow_links && e.depth() > 0 => {
                    let file = e
                        .path()
                        .strip_prefix(root)
                        .unwrap_or(e.path())
                        .display()
                        .to_string();
                    match std::fs::metadata(e.path()) {
                        Ok(m) if m.is_file() => {
                            let p = e.into_path();
                            if p.extension()
                                .is_some_and(|x| extensions.iter().any(|e| x == *e))
                            {
                                found.push(p);
                            }
                        }
                        Ok(m) if m.is_dir() => problems.push(Problem {
                            file,
                            line: 0,
                            what: "a symbolic link to a folder, not followed (give --follow-links to walk it)".into(),
                        }),
                        Ok(_) => {}
                        Err(io) => problems.push(Problem {
                            file,
                            line: 0,
                            what: format!("cannot be read: {}", io.kind()),
                        }),
                    }
                }
                Ok(e) if e.file_type().is_file() => {
                    let p = e.into_path();
                    if p.extension()
                        .is_some_and(|x| extensions.iter().any(|e| x == *e))
                    {
                        found.push(p);
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    let name = e
                        .path()
                        .and_then(|p| p.strip_prefix(root).ok())
                        .map_or_else(|| root.display().to_string(), |p| p.display().to_string());
                    problems.push(Problem {
                        file: name,
                        line: 0,
                        what: format!(
                            "cannot be read: {}",
                            e.io_error()
                                .map_or("a link loop".to_string(), |io| io.kind().to_string())
                        ),
                    });
                }
            }
        }
        found.sort();
        out.extend(found.into_iter().map(|p| (root.clone(), p)));
    }
    (out, problems)
}

/// A message or result id as a 64-bit hash with fixed keys: the sets that
/// deduplicate across files stay small (8 bytes an id) and the result is
/// the same on every run.
fn id_hash(id: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    // DefaultHasher::new() has fixed keys: the same id hashes the same way
    // in every run (collisions: about 1 in 10^8 for a million ids).
    let mut h = std::collections::hash_map::DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

/// Sessions read at a time: enough to keep every core busy, few enough that
/// memory does not grow with the size of the logs.
const GROUPS_AT_ONCE: usize = 32;

/// Reads every Claude Code log under `paths` and hands the sessions that
/// pass `filter` to `each`, a few dozen at a time, so memory stays flat
/// however large the logs are. Files of one session (the session file, its
/// subagents) are read together, in parallel with other sessions; each
/// message and tool result is counted once, the first time it is seen in
/// path order, so the result does not depend on the number of threads.
/// The returned [`Import`] holds the counts and problems, not the sessions.
pub fn read<E>(
    paths: &[PathBuf],
    filter: &Filter,
    mut each: impl FnMut(Vec<Session>) -> Result<(), E>,
) -> Result<Import, E> {
    let (files, listing_problems) = files_under(paths, filter.follow_links);
    // Group by session: the session file and `<session>/subagents/*`
    // share their session id; other files are groups of their own.
    let mut groups: Vec<Vec<(PathBuf, PathBuf)>> = Vec::new();
    let mut index: HashMap<(PathBuf, String), usize> = HashMap::new();
    for (root, path) in files {
        let role = role_of(&root, &path);
        let dir = match &role.agent {
            Some(_) if role.name.contains("/subagents/") => path
                .parent()
                .and_then(Path::parent)
                .and_then(Path::parent)
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            _ => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        let key = (dir, role.session_hint.clone());
        match index.get(&key) {
            Some(&i) => groups[i].push((root, path)),
            None => {
                index.insert(key, groups.len());
                groups.push(vec![(root, path)]);
            }
        }
    }
    drop(index);
    let mut import = Import {
        source: "claude-code".into(),
        files: groups.iter().map(|g| g.len() as u64).sum(),
        problems: listing_problems,
        ..Import::default()
    };
    let mut seen_messages: HashSet<u64> = HashSet::new();
    let mut seen_results: HashSet<u64> = HashSet::new();
    for chunk in groups.chunks(GROUPS_AT_ONCE) {
        let records: Vec<Vec<FileRecords>> = chunk
            .par_iter()
            .map(|g| g.iter().map(|(root, path)| read_file(root, path)).collect())
            .collect();
        let mut ready = Vec::new();
        for group in records {
            let mut sessions: BTreeMap<String, SessionBuild> = BTreeMap::new();
            for rec in group {
                merge(
                    &mut import,
                    &mut sessions,
                    &mut seen_messages,
                    &mut seen_results,
                    rec,
                );
            }
            for (id, b) in sessions {
                let s = b.finish(id);
                if s.threads.iter().any(|t| !t.requests.is_empty()) && filter.keeps(&s) {
                    ready.push(s);
                }
            }
        }
        each(ready)?;
    }
    Ok(import)
}

/// Adds one file's records to the sessions being built, counting each
/// message and tool result once.
fn merge(
    import: &mut Import,
    sessions: &mut BTreeMap<String, SessionBuild>,
    seen_messages: &mut HashSet<u64>,
    seen_results: &mut HashSet<u64>,
    rec: FileRecords,
) {
    import.lines += rec.lines;
    import.bytes += rec.bytes;
    let s = &mut import.skipped;
    s.repeated_lines += rec.skipped.repeated_lines;
    s.synthetic += rec.skipped.synthetic;
    s.other_lines += rec.skipped.other_lines;
    import.problems.extend(rec.problems);
    let id = rec
        .session_id
        .clone()
        .unwrap_or_else(|| rec.role.session_hint.clone());
    let build = sessions.entry(id).or_insert_with(|| SessionBuild {
        project: rec.role.project.clone(),
        ..SessionBuild::default()
    });
    build.files.push(rec.role.name.clone());
    build.compactions += rec.compactions;
    let key_of = |thread: &Option<String>| -> (Option<String>, bool) {
        match (&rec.role.agent, thread) {
            (Some(a), _) => (Some(a.clone()), rec.role.compaction),
            (None, t) => (t.clone(), false),
        }
    };
    let mut kept: HashSet<&str> = HashSet::new();
    let mut requests = Vec::new();
    for r in &rec.requests {
        if !seen_messages.insert(id_hash(&r.request.message_id)) {
            import.skipped.duplicate_messages += 1;
            continue;
        }
        kept.insert(&r.request.message_id);
        requests.push(r);
    }
    for r in requests {
        build
            .thread(key_of(&r.thread))
            .requests
            .push(r.request.clone());
    }
    for r in &rec.results {
        if !r.tool_use_id.is_empty() && !seen_results.insert(id_hash(&r.tool_use_id)) {
            import.skipped.duplicate_results += 1;
            continue;
        }
        let t = build.thread(key_of(&r.thread));
        let mut result = r.result.clone();
        result.carried_by = r
            .carried_by
            .as_deref()
            .filter(|m| kept.contains(m))
            .and_then(|m| t.requests.iter().rposition(|q| q.message_id == m));
        t.results.push(result);
    }
}

#[derive(Default)]
struct SessionBuild {
    project: String,
    files: Vec<String>,
    compactions: u64,
    threads: Vec<Thread>,
}

impl SessionBuild {
    fn thread(&mut self, (agent, compaction): (Option<String>, bool)) -> &mut Thread {
        let i = match self.threads.iter().position(|t| t.agent == agent) {
            Some(i) => i,
            None => {
                self.threads.push(Thread {
                    agent,
                    compaction,
                    requests: Vec::new(),
                    results: Vec::new(),
                });
                self.threads.len() - 1
            }
        };
        &mut self.threads[i]
    }

    fn finish(mut self, id: String) -> Session {
        self.threads.sort_by(|a, b| {
            a.agent
                .is_some()
                .cmp(&b.agent.is_some())
                .then(a.agent.cmp(&b.agent))
        });
        Session {
            id,
            project: self.project,
            files: self.files,
            threads: self.threads,
            compactions: self.compactions,
        }
    }
}
