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
//! an unknown type, or longer than [`crate::limits::MAX_LINE_BYTES`], and a file
//! that cannot be read to its end, become [`Problem`]s with file and line.

mod line;
mod transcript;

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
use tokencast_core::hashing::{name_hasher, NameHasher};
use transcript::Transcript;

/// Where Claude Code keeps its logs: each directory of `$CLAUDE_CONFIG_DIR`
/// (comma-separated) with `/projects`, else `~/.config/claude/projects` and
/// `~/.claude/projects`; the ones that exist.
pub fn default_paths() -> Vec<PathBuf> {
    candidate_paths()
        .into_iter()
        .filter(|p| p.is_dir())
        .collect()
}

/// Every place [`default_paths`] looks, whether it exists or not (what an
/// error names).
pub fn candidate_paths() -> Vec<PathBuf> {
    match std::env::var("CLAUDE_CONFIG_DIR") {
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
    }
}

// ── The lines, as far as tokencast reads them ──────────────────────────────

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
    /// The message before which a microcompaction cleared it.
    cleared_by: Option<String>,
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
    /// `content-replacement` records: a tool result by its id, and the
    /// replacement the model was sent instead, measured.
    replacements: Vec<(String, ResultContent)>,
}

/// Measures each tool result of a session's files that a
/// `content-replacement` record names (in any of the files) by what the
/// model was sent: the replacement's text, no images or documents.
fn apply_replacements(files: &mut [FileRecords]) {
    let replaced: HashMap<String, ResultContent> = files
        .iter_mut()
        .flat_map(|f| std::mem::take(&mut f.replacements))
        .collect();
    if replaced.is_empty() {
        return;
    }
    for r in files.iter_mut().flat_map(|f| f.results.iter_mut()) {
        if let Some(c) = replaced.get(&r.tool_use_id) {
            r.result.bytes = c.bytes;
            r.result.images = c.images;
            r.result.documents = c.documents;
        }
    }
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
    use std::hash::BuildHasher;
    // A fixed seed: the same id hashes the same way in every run
    // (collisions: about 1 in 10^8 for a million ids). foldhash's quality
    // hasher, at a fraction of SipHash's cost an id.
    const SEED: u64 = 0x746f_6b65_6e63_6173; // "tokencas"
    foldhash::quality::FixedState::with_seed(SEED).hash_one(id)
}

/// Reads every Claude Code log under `paths` and hands the sessions that
/// pass `filter` to `each`, a few dozen at a time, so memory stays flat
/// however large the logs are. Files of one session (the session file, its
/// subagents) are read together, in parallel with other sessions; each
/// message and tool result is counted once, the first time it is seen in
/// path order, so the result does not depend on the number of threads.
/// The returned [`Import`] holds the counts and problems, not the sessions.
pub fn read<E: Send>(
    paths: &[PathBuf],
    filter: &Filter,
    each: impl FnMut(Vec<Session>) -> Result<(), E> + Send,
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
    let read_chunk = |chunk: &[Vec<(PathBuf, PathBuf)>]| {
        chunk
            .par_iter()
            .map(|g| {
                let mut files: Vec<FileRecords> =
                    g.iter().map(|(root, path)| read_file(root, path)).collect();
                apply_replacements(&mut files);
                files
            })
            .collect::<Vec<Vec<FileRecords>>>()
    };
    let bytes: Vec<u64> = groups
        .par_iter()
        .map(|g| g.iter().map(|(_, path)| super::file_len(path)).sum())
        .collect();
    super::overlapped(
        super::chunked(
            &groups,
            &bytes,
            super::READ_AT_ONCE,
            super::LOG_BYTES_AT_ONCE,
        ),
        read_chunk,
        each,
        |records| {
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
            ready
        },
    )?;
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
    // Where each request this file adds went: its thread and its place
    // there. A request is added once (a message seen in an earlier file or
    // earlier in this one is not added again), so a result's request is
    // looked up here rather than searched for among its thread's requests
    // (a search per result, through every request of a long thread when
    // the request is another thread's).
    let mut placed: HashMap<&str, (usize, usize), NameHasher> =
        HashMap::with_capacity_and_hasher(rec.requests.len(), name_hasher());
    for r in &rec.requests {
        if !seen_messages.insert(id_hash(&r.request.message_id)) {
            import.skipped.duplicate_messages += 1;
            continue;
        }
        let (i, t) = build.thread(key_of(&r.thread));
        placed.insert(&r.request.message_id, (i, t.requests.len()));
        t.requests.push(r.request.clone());
    }
    for r in &rec.results {
        if !r.tool_use_id.is_empty() && !seen_results.insert(id_hash(&r.tool_use_id)) {
            import.skipped.duplicate_results += 1;
            continue;
        }
        let (i, t) = build.thread(key_of(&r.thread));
        // A request this file added to the result's own thread.
        let in_thread = |m: &Option<String>| {
            let (thread, at) = placed.get(m.as_deref()?)?;
            (*thread == i).then_some(*at)
        };
        let mut result = r.result.clone();
        result.carried_by = in_thread(&r.carried_by);
        result.cleared_by =
            in_thread(&r.cleared_by).filter(|c| result.carried_by.is_some_and(|k| k < *c));
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
    /// The thread of `agent` (made when it is new) and its place.
    fn thread(&mut self, (agent, compaction): (Option<String>, bool)) -> (usize, &mut Thread) {
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
        (i, &mut self.threads[i])
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
            origin: None,
        }
    }
}
