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

use super::lines::{Line, Lines, MAX_LINE_BYTES};
use super::{
    epoch_ms, Filter, Import, Problem, Request, Session, Skipped, Thread, ToolResult, Usage,
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

#[derive(Deserialize)]
struct LineRec {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(rename = "sessionId", default)]
    session_id: Option<String>,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: bool,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    subtype: Option<String>,
    #[serde(default)]
    message: Option<Message>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    usage: Option<UsageWithIterations>,
    #[serde(default)]
    content: Blocks,
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
    #[serde(default)]
    iterations: Vec<UsageRaw>,
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

/// `message.content`: a string (ignored) or content blocks.
#[derive(Default)]
struct Blocks(Vec<Block>);

#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    tool_use_id: Option<String>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(default)]
    content: Option<ResultContent>,
}

/// A tool result's content, measured while it is read: UTF-8 bytes of its
/// text, images and documents counted. The text itself is dropped.
#[derive(Default)]
struct ResultContent {
    bytes: u64,
    images: u64,
    documents: u64,
}

#[derive(Deserialize)]
struct InnerBlock {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    text: Option<String>,
}

impl<'de> Deserialize<'de> for Blocks {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Blocks;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Blocks, E> {
                Ok(Blocks::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Blocks, E> {
                Ok(Blocks::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Blocks, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<Block>()? {
                    out.push(b);
                }
                Ok(Blocks(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for ResultContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ResultContent;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("tool result content: a string or a list of blocks")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ResultContent, E> {
                Ok(ResultContent {
                    bytes: s.len() as u64,
                    ..ResultContent::default()
                })
            }
            fn visit_unit<E: de::Error>(self) -> Result<ResultContent, E> {
                Ok(ResultContent::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ResultContent, A::Error> {
                let mut out = ResultContent::default();
                while let Some(b) = seq.next_element::<InnerBlock>()? {
                    match b.kind.as_str() {
                        "image" => out.images += 1,
                        "document" => out.documents += 1,
                        _ => out.bytes += b.text.map_or(0, |t| t.len() as u64),
                    }
                }
                Ok(out)
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<ResultContent, A::Error> {
                // A single block instead of a list.
                let b = InnerBlock::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(match b.kind.as_str() {
                    "image" => ResultContent {
                        images: 1,
                        ..ResultContent::default()
                    },
                    "document" => ResultContent {
                        documents: 1,
                        ..ResultContent::default()
                    },
                    _ => ResultContent {
                        bytes: b.text.map_or(0, |t| t.len() as u64),
                        ..ResultContent::default()
                    },
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// Line types that carry nothing to count.
const QUIET_TYPES: [&str; 7] = [
    "summary",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "system",
    "result",
    "custom-title",
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
    let mut rec = FileRecords {
        role,
        session_id: None,
        requests: Vec::new(),
        results: Vec::new(),
        compactions: 0,
        lines: 0,
        bytes: 0,
        skipped: Skipped::default(),
        problems: Vec::new(),
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            rec.problems.push(Problem {
                file: rec.role.name.clone(),
                line: 0,
                what: format!("cannot be read: {}", e.kind()),
            });
            return rec;
        }
    };
    let mut lines = Lines::new(
        std::io::BufReader::with_capacity(1 << 20, file),
        MAX_LINE_BYTES,
    );
    // Per thread (None: the file's own thread; Some: inline sidechain).
    let mut by_message: HashMap<String, usize> = HashMap::new();
    let mut tool_uses: HashMap<String, (String, Option<i64>)> = HashMap::new();
    let mut pending: HashMap<Option<String>, Vec<usize>> = HashMap::new();
    loop {
        let (number, line) = match lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => {
                rec.problems.push(Problem {
                    file: rec.role.name.clone(),
                    line: lines.number + 1,
                    what: format!("reading stopped: {}", e.kind()),
                });
                break;
            }
        };
        let text = match line {
            Line::TooLong(n) => {
                rec.problems.push(Problem {
                    file: rec.role.name.clone(),
                    line: number,
                    what: format!(
                        "line of {n} bytes is longer than {} MiB; skipped",
                        MAX_LINE_BYTES >> 20
                    ),
                });
                continue;
            }
            Line::Text(t) => t,
        };
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let parsed: LineRec = match serde_json::from_slice(text) {
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
                rec.problems.push(Problem {
                    file: rec.role.name.clone(),
                    line: number,
                    what,
                });
                continue;
            }
        };
        if rec.session_id.is_none() {
            rec.session_id = parsed.session_id.clone();
        }
        let kind = parsed.kind.as_deref().unwrap_or("");
        let thread = if rec.role.agent.is_none() && parsed.is_sidechain {
            Some("sidechain".to_string())
        } else {
            None
        };
        match kind {
            "assistant" => {
                let Some(msg) = parsed.message else {
                    rec.skipped.other_lines += 1;
                    continue;
                };
                let at_ms = parsed.timestamp.as_deref().and_then(epoch_ms);
                for b in &msg.content.0 {
                    if b.kind == "tool_use" || b.kind == "server_tool_use" {
                        if let (Some(id), Some(name)) = (&b.id, &b.name) {
                            tool_uses.insert(id.clone(), (name.clone(), at_ms));
                        }
                    }
                }
                let usage = msg.usage.map(|u| u.total()).unwrap_or_default();
                let model = msg.model.unwrap_or_default();
                let Some(id) = msg.id else {
                    rec.skipped.other_lines += 1;
                    continue;
                };
                if model == "<synthetic>" && usage.total() == 0 {
                    rec.skipped.synthetic += 1;
                    continue;
                }
                if let Some(&i) = by_message.get(&id) {
                    // Another content block of the same response: keep the final output.
                    rec.skipped.repeated_lines += 1;
                    let r = &mut rec.requests[i].request;
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
                    continue;
                }
                by_message.insert(id.clone(), rec.requests.len());
                if let Some(waiting) = pending.remove(&thread) {
                    for j in waiting {
                        rec.results[j].carried_by = Some(id.clone());
                    }
                }
                rec.requests.push(FileRequest {
                    thread,
                    request: Request {
                        message_id: id,
                        timestamp: parsed.timestamp,
                        at_ms,
                        model,
                        usage,
                    },
                });
            }
            "user" => {
                let Some(msg) = parsed.message else { continue };
                let at_ms = parsed.timestamp.as_deref().and_then(epoch_ms);
                for b in msg.content.0 {
                    if b.kind != "tool_result" {
                        continue;
                    }
                    let c = b.content.unwrap_or_default();
                    let use_id = b.tool_use_id.unwrap_or_default();
                    let (tool, asked_at) = tool_uses
                        .get(&use_id)
                        .cloned()
                        .unwrap_or_else(|| ("unknown".to_string(), None));
                    let latency_ms = match (asked_at, at_ms) {
                        (Some(a), Some(b)) if b >= a => (b - a) as u64,
                        _ => 0,
                    };
                    pending
                        .entry(thread.clone())
                        .or_default()
                        .push(rec.results.len());
                    rec.results.push(FileResult {
                        thread: thread.clone(),
                        tool_use_id: use_id,
                        carried_by: None,
                        result: ToolResult {
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
            "system" if parsed.subtype.as_deref() == Some("compact_boundary") => {
                rec.compactions += 1;
            }
            k if QUIET_TYPES.contains(&k) => rec.skipped.other_lines += 1,
            other => rec.problems.push(Problem {
                file: rec.role.name.clone(),
                line: number,
                what: if other.is_empty() {
                    "a line without a `type`".into()
                } else {
                    format!(
                        "unknown line type `{}`",
                        other.chars().take(40).collect::<String>()
                    )
                },
            }),
        }
    }
    rec.lines = lines.number;
    rec.bytes = lines.bytes;
    rec
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
        if self.iterations.is_empty() {
            self.top.usage()
        } else {
            self.iterations
                .iter()
                .fold(Usage::default(), |acc, u| acc.plus(&u.usage()))
        }
    }
}

// ── All files ──────────────────────────────────────────────────────────────

/// Every `.jsonl` file under `paths` (a file is taken as it is), sorted,
/// and the entries that could not be listed (a dangling link, a directory
/// that cannot be read) as problems.
fn files_under(paths: &[PathBuf]) -> (Vec<(PathBuf, PathBuf)>, Vec<Problem>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for root in paths {
        if root.is_file() {
            let base = root.parent().map(Path::to_path_buf).unwrap_or_default();
            out.push((base, root.clone()));
            continue;
        }
        let mut found: Vec<PathBuf> = Vec::new();
        for entry in walkdir::WalkDir::new(root).follow_links(true) {
            match entry {
                Ok(e) if e.file_type().is_file() => {
                    let p = e.into_path();
                    if p.extension().is_some_and(|x| x == "jsonl") {
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

/// Reads every Claude Code log under `paths` into sessions. Files are read in
/// parallel; deduplication then walks them in path order, so the result does
/// not depend on the number of threads.
pub fn read(paths: &[PathBuf], filter: &Filter) -> Import {
    let (files, listing_problems) = files_under(paths);
    let records: Vec<FileRecords> = files
        .par_iter()
        .map(|(root, path)| read_file(root, path))
        .collect();
    let mut import = Import {
        source: "claude-code".into(),
        files: records.len() as u64,
        problems: listing_problems,
        ..Import::default()
    };
    let mut seen_messages: HashSet<String> = HashSet::new();
    let mut seen_results: HashSet<String> = HashSet::new();
    // session id → (project, files, threads by key, compactions)
    let mut sessions: BTreeMap<String, SessionBuild> = BTreeMap::new();
    for rec in records {
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
        let mut kept: HashSet<String> = HashSet::new();
        for r in rec.requests {
            if !seen_messages.insert(r.request.message_id.clone()) {
                import.skipped.duplicate_messages += 1;
                continue;
            }
            kept.insert(r.request.message_id.clone());
            build.thread(key_of(&r.thread)).requests.push(r.request);
        }
        for r in rec.results {
            if !r.tool_use_id.is_empty() && !seen_results.insert(r.tool_use_id.clone()) {
                import.skipped.duplicate_results += 1;
                continue;
            }
            let t = build.thread(key_of(&r.thread));
            let mut result = r.result;
            result.carried_by = r
                .carried_by
                .filter(|m| kept.contains(m))
                .and_then(|m| t.requests.iter().position(|q| q.message_id == m));
            t.results.push(result);
        }
    }
    import.sessions = sessions
        .into_iter()
        .map(|(id, b)| b.finish(id))
        .filter(|s| s.threads.iter().any(|t| !t.requests.is_empty()))
        .filter(|s| filter.keeps(s))
        .collect();
    import
        .sessions
        .sort_by(|a, b| a.started().cmp(&b.started()).then(a.id.cmp(&b.id)));
    import
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
