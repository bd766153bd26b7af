//! Importing real agent logs: each source is read into the same records
//! (sessions of threads of requests and tool results), and everything
//! downstream (traces, scenarios, the summary, the backtest) works on those
//! records only, never on a source's format.
//!
//! Records hold sizes, counts, names of tools and models, and timestamps:
//! never prompt or tool-result text, so everything built from them can be
//! shared.
//!
//! - [`claude_code`]: Claude Code's `~/.claude/projects/**/*.jsonl`;
//! - [`lines`]: reading JSONL without ever holding an over-long line;
//! - [`write`](mod@write): a thread as a trace CSV and a scenario TOML;
//! - [`summary`]: the import summary document, priced, with what-ifs.

pub mod api;
pub mod calibrate;
pub mod claude_code;
pub mod codex;
pub mod content;
pub mod dataset;
pub mod lines;
pub mod manifest;
pub mod o200k;
pub mod otel;
pub mod summary;
pub use crate::scenario::combined as variant;
pub mod write;

use serde::{Deserialize, Serialize};

pub use crate::document::import::{Problem, Skipped};
pub use crate::pricing::Usage;

/// One model request as the provider reported it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Request {
    /// The provider's message id (deduplication key).
    pub message_id: String,
    /// When it was logged, RFC 3339.
    pub timestamp: Option<String>,
    /// The same, in milliseconds since the epoch.
    #[serde(skip)]
    pub at_ms: Option<i64>,
    /// The model that served it.
    pub model: String,
    /// Its usage.
    pub usage: Usage,
    /// Of its output, tokens billed but never sent back in later prompts
    /// (OpenAI reasoning tokens), where the log gives the split.
    #[serde(default)]
    pub hidden_output: u64,
    /// The log marks a compaction right before it: its context holds only
    /// the prefix and what entered after the marker (the summary).
    #[serde(default)]
    pub compacted_before: bool,
    /// Lines of the log since the thread's previous request whose content
    /// the reader lost ([`Import::lost_lines`]: a line truncated, redacted,
    /// over-long or of an unexpected shape): what those lines carried
    /// entered the context unmeasured, so the step before it measures nothing
    /// ([`calibrate`](mod@calibrate) neither fits on it nor expects its growth).
    #[serde(default)]
    pub lost_lines_before: u64,
    /// Bytes of its content as logged (text, thinking, tool calls), where
    /// the log has it: what the next prompts carry of it.
    #[serde(default)]
    pub output_bytes: u64,
    /// Of [`Request::output_bytes`], the bytes of its thinking blocks
    /// (Claude), where the log keeps them.
    #[serde(default)]
    pub thinking_bytes: u64,
}

impl Request {
    /// Of its output, the tokens sent back within its turn but taken out of
    /// the context once a user message starts the next one: OpenAI's
    /// reasoning tokens where the log splits them, or, for a Claude model
    /// whose API strips earlier turns' thinking
    /// ([`strips_earlier_thinking`]), the thinking blocks' share of its
    /// output, by their bytes among the bytes of all its content.
    pub fn reasoning_tokens(&self) -> u64 {
        let billed = self.usage.output;
        if self.hidden_output > 0 {
            return self.hidden_output.min(billed);
        }
        if self.thinking_bytes == 0
            || self.output_bytes == 0
            || !strips_earlier_thinking(&self.model)
        {
            return 0;
        }
        let share = u128::from(billed) * u128::from(self.thinking_bytes.min(self.output_bytes))
            / u128::from(self.output_bytes);
        u64::try_from(share).unwrap_or(billed)
    }
}

/// Whether the model's API takes the thinking blocks of earlier assistant
/// turns out of the context once a user message (not a tool result) starts
/// a new turn. Claude models before Opus 4.5 do (Sonnet 4.5, Haiku 4.5,
/// Opus 4.1 and earlier, the 3.x family); Opus 4.5 and later, Sonnet 4.6
/// and later and every 5.x model keep them. Measured on real Claude Code
/// sessions: after a turn that thought, Sonnet 4.5's next prompt is smaller
/// than the last one by about the turn's thinking, while Opus 4.5's and
/// 4.6's grow by what was added. Models of other providers: `false` (their
/// reasoning, where the log gives it, is [`Request::hidden_output`]).
pub fn strips_earlier_thinking(model: &str) -> bool {
    // The same model on Amazon Bedrock or Vertex AI behaves the same.
    let id = crate::pricing::cloud::anthropic_id(crate::pricing::PricedModel::parse(model).id);
    let Some(rest) = id.strip_prefix("claude-") else {
        return false;
    };
    let parts: Vec<&str> = rest.split('-').collect();
    let number = |s: &str| (s.len() <= 2).then(|| s.parse::<u32>().ok()).flatten();
    // `claude-opus-4-5-…`, `claude-opus-4-20250514`, or `claude-3-7-sonnet-…`.
    let (tier, major, minor) = match parts.as_slice() {
        [major, minor, tier, ..] if number(major).is_some() && number(minor).is_some() => {
            (*tier, number(major), number(minor))
        }
        [tier, major, rest @ ..] if number(major).is_some() => {
            (*tier, number(major), rest.first().and_then(|m| number(m)))
        }
        [major, tier, ..] if number(major).is_some() => (*tier, number(major), None),
        _ => return false,
    };
    let version = (major.unwrap_or(0), minor.unwrap_or(0));
    match tier {
        "opus" => version < (4, 5),
        "sonnet" => version < (4, 6),
        "haiku" => version < (4, 6),
        _ => false,
    }
}

/// What kind of context entered the conversation before a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextKind {
    /// A tool result.
    #[default]
    Tool,
    /// A message the user typed.
    User,
    /// Context the client injected: hook output, reminders, skill listings,
    /// changes to the tool list.
    Attachment,
}

impl ContextKind {
    /// The capability a trace row of this kind names (tool results name their tool).
    pub fn capability(self) -> Option<&'static str> {
        match self {
            ContextKind::Tool => None,
            ContextKind::User => Some(crate::scenario::trim::NOT_TOOL_RESULTS[0]),
            ContextKind::Attachment => Some(crate::scenario::trim::NOT_TOOL_RESULTS[1]),
        }
    }
}

/// Tools whose result is a file's content: what they read, or the lines
/// an edit changed as the tool shows them back (Claude Code's `Read`,
/// `Edit`, `MultiEdit`, `NotebookRead`, `NotebookEdit`; Gemini CLI's and
/// Codex's `read_file`, `read_many_files`). A write's confirmation is not.
pub const CODE_TOOLS: [&str; 7] = [
    "Read",
    "Edit",
    "MultiEdit",
    "NotebookRead",
    "NotebookEdit",
    "read_file",
    "read_many_files",
];

impl ToolResult {
    /// What it holds, for bytes per token by content: a file's content
    /// ([`CODE_TOOLS`]), other tool output, or text (a user message, an
    /// attachment).
    pub fn content_kind(&self) -> crate::scenario::content::ContentKind {
        use crate::scenario::content::ContentKind;
        match self.kind {
            ContextKind::User | ContextKind::Attachment => ContentKind::Text,
            ContextKind::Tool if CODE_TOOLS.contains(&self.tool.as_str()) => ContentKind::Code,
            ContextKind::Tool => ContentKind::Output,
        }
    }

    /// Context other than a tool result (a user message, an attachment, an
    /// earlier output), measured, waiting for the request that carries it.
    pub fn context(kind: ContextKind, c: content::ResultContent, at_ms: Option<i64>) -> ToolResult {
        ToolResult {
            kind,
            tool: kind.capability().unwrap_or("unknown").to_string(),
            bytes: c.bytes,
            images: c.images,
            documents: c.documents,
            o200k_tokens: None,
            is_error: false,
            latency_ms: 0,
            carried_by: None,
            cleared_by: None,
            at_ms,
        }
    }
}

/// One tool result sent back to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The tool's name (`Read`, `Bash`, an MCP tool …).
    pub tool: String,
    /// A tool result, or other context (a user message, an attachment)
    /// measured the same way.
    #[serde(default)]
    pub kind: ContextKind,
    /// UTF-8 bytes of its text content as sent to the model.
    pub bytes: u64,
    /// Images in it (counted, not turned into bytes).
    pub images: u64,
    /// Documents in it.
    pub documents: u64,
    /// Its text's tokens counted with `o200k_base`, for a thread on a
    /// model of that tokenizer (OpenAI's); `None`: not counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub o200k_tokens: Option<u64>,
    /// The tool reported an error (the result still enters the context).
    pub is_error: bool,
    /// From the request that asked for it to the result, milliseconds.
    pub latency_ms: u64,
    /// Index of the request that carried it, in its thread.
    pub carried_by: Option<usize>,
    /// Index of the request before which the client cleared its content
    /// from the context (Claude Code's microcompaction): it is in the
    /// prompts from `carried_by` up to the one before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleared_by: Option<usize>,
    /// When the result came back, milliseconds since the epoch.
    #[serde(skip)]
    pub at_ms: Option<i64>,
}

/// One context: the main thread of a session, or one subagent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thread {
    /// `None` for the main thread; the agent's id for a subagent.
    pub agent: Option<String>,
    /// An automatic-compaction call (a summariser request of its own).
    pub compaction: bool,
    /// Requests in time order.
    pub requests: Vec<Request>,
    /// Tool results in time order.
    pub results: Vec<ToolResult>,
}

impl Thread {
    /// The thread's name in file names and tables: `main` or `agent-<id>`.
    pub fn name(&self) -> String {
        match &self.agent {
            None => "main".into(),
            Some(a) if a.starts_with("agent-") => a.clone(),
            Some(a) => format!("agent-{a}"),
        }
    }

    /// The thread's name as a file stem: [`Thread::name`] made safe (an
    /// agent id comes from the log's content).
    pub fn file_name(&self) -> crate::output::name::FileName {
        crate::output::name::FileName::from_untrusted(&self.name())
    }

    /// The model that served most of its tokens (ties: the first seen).
    pub fn main_model(&self) -> Option<&str> {
        let mut counts: Vec<(&str, u64)> = Vec::new();
        for r in &self.requests {
            let t = r.usage.total();
            match counts.iter_mut().find(|(m, _)| *m == r.model) {
                Some(c) => c.1 += t,
                None => counts.push((&r.model, t)),
            }
        }
        let best = counts.iter().map(|c| c.1).max()?;
        counts.iter().find(|c| c.1 == best).map(|c| c.0)
    }
}

/// One session: its threads, as the logs group them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// The session id.
    pub id: String,
    /// The project it belongs to (the log directory's name).
    pub project: String,
    /// The files it was read from (names relative to the project directory).
    pub files: Vec<String>,
    /// Main thread first, then subagents and compaction calls by name.
    pub threads: Vec<Thread>,
    /// Automatic compactions seen in the main thread (boundary markers).
    pub compactions: u64,
    /// Who recorded it on which machine, when it was read from a dataset
    /// (sessions read from logs are the importing machine's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

/// The machine a session was recorded on, and by whom: the dataset's keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The machine's id (its host name unless `--machine` says otherwise).
    pub machine: String,
    /// The user's id, when known.
    pub user: Option<String>,
    /// The source it was first imported from (`claude-code` …), when it
    /// was read from a dataset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl Session {
    /// The first request's timestamp.
    pub fn started(&self) -> Option<&str> {
        self.threads
            .iter()
            .flat_map(|t| t.requests.iter())
            .filter_map(|r| r.timestamp.as_deref())
            .min()
    }

    /// Every request of every thread.
    pub fn requests(&self) -> impl Iterator<Item = &Request> {
        self.threads.iter().flat_map(|t| t.requests.iter())
    }

    /// Gives `model` to every request whose log named none
    /// ([`UNNAMED_MODEL`]); how many there were.
    pub fn name_unnamed(&mut self, model: &str) -> u64 {
        let mut n = 0;
        for r in self.threads.iter_mut().flat_map(|t| t.requests.iter_mut()) {
            if r.model == UNNAMED_MODEL {
                r.model = model.to_string();
                n += 1;
            }
        }
        n
    }
}

/// The model a reader gives a request whose log names none.
pub const UNNAMED_MODEL: &str = "unknown";

/// The model a request is priced and cached under
/// ([`crate::pricing::PricedModel`]): a `service` other than the standard
/// one (Anthropic's `speed` `fast`; OpenAI's `service_tier` `flex`,
/// `priority`, `scale`, not `default` or `auto`) is a service tier, an
/// `inference_geo` other than `global`, `not_available` or empty a region.
/// A value that is not a name (log text) is `unrecognised`, which no book
/// prices: the request is then unpriced, with the reason, never priced at
/// the standard rates.
pub fn priced_model(model: String, service: Option<&str>, geo: Option<&str>) -> String {
    let name = |v: &str| {
        if crate::pricing::PricedModel::is_option(v) {
            v.to_string()
        } else {
            "unrecognised".to_string()
        }
    };
    let service = service
        .filter(|s| !matches!(*s, "standard" | "default" | "auto"))
        .map(name);
    let region = geo
        .filter(|g| !matches!(*g, "" | "global" | "not_available"))
        .map(name);
    match (&service, &region) {
        (None, None) => model,
        _ => crate::pricing::PricedModel::name(&model, service.as_deref(), region.as_deref()),
    }
}

/// What one import read: counts and problems (sessions are handed over one
/// at a time as they are read).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Import {
    /// The source: `claude-code`.
    pub source: String,
    /// Files read.
    pub files: u64,
    /// Lines read.
    pub lines: u64,
    /// Bytes read.
    pub bytes: u64,
    /// What counting rules removed.
    pub skipped: Skipped,
    /// Lines or files that could not be read.
    pub problems: Vec<Problem>,
    /// Of the lines with a problem, those whose content was lost (not
    /// JSON, cut short, not UTF-8, over-long, of a shape the reader does
    /// not know for its type): what they carried entered the context
    /// unmeasured ([`Request::lost_lines_before`]). A line of an unknown
    /// type, or a count capped, loses nothing the replay measures.
    #[serde(skip)]
    pub lost_lines: u64,
}

/// Filters on what is imported.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Sessions starting on or after this date (YYYY-MM-DD, UTC).
    pub since: Option<String>,
    /// Sessions starting on or before this date.
    pub until: Option<String>,
    /// Projects whose name contains this.
    pub project: Option<String>,
    /// Only sessions whose id is this or starts with it.
    pub session: Option<String>,
    /// Walk into folders that symbolic links lead to (off: a link to a
    /// folder is listed and skipped, so a log tree cannot send the walk
    /// into `/usr`; loops are found and reported either way).
    pub follow_links: bool,
}

impl Filter {
    /// True when it keeps every session (no date, project or session asked for).
    pub fn is_empty(&self) -> bool {
        self.since.is_none()
            && self.until.is_none()
            && self.project.is_none()
            && self.session.is_none()
    }

    /// Whether a session passes.
    pub fn keeps(&self, s: &Session) -> bool {
        let day = s.started().map(|t| &t[..t.len().min(10)]);
        self.session
            .as_ref()
            .is_none_or(|id| s.id.starts_with(id.as_str()))
            && self
                .project
                .as_ref()
                .is_none_or(|p| s.project.contains(p.as_str()))
            && self
                .since
                .as_ref()
                .is_none_or(|d| day.is_some_and(|x| x >= d.as_str()))
            && self
                .until
                .as_ref()
                .is_none_or(|d| day.is_some_and(|x| x <= d.as_str()))
    }
}

/// A source of agent logs: each is one reader that yields [`Session`]s;
/// everything after it (traces, scenarios, summary, backtest) is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Claude Code (`~/.claude/projects`).
    ClaudeCode,
    /// Codex CLI (`~/.codex/sessions`).
    Codex,
    /// API usage logs: response bodies, or request and response pairs.
    Api,
    /// OpenTelemetry GenAI spans (OTLP/JSON).
    Otel,
    /// A tokencast dataset (`import … --dataset`): folders, files, globs.
    Dataset,
}

impl Source {
    /// The command-line name: `claude-code`, `codex`.
    pub fn key(self) -> &'static str {
        match self {
            Source::ClaudeCode => "claude-code",
            Source::Codex => "codex",
            Source::Api => "api",
            Source::Otel => "otel",
            Source::Dataset => "dataset",
        }
    }

    /// The name for people.
    pub fn title(self) -> &'static str {
        match self {
            Source::ClaudeCode => "Claude Code",
            Source::Codex => "Codex",
            Source::Api => "API",
            Source::Otel => "OpenTelemetry",
            Source::Dataset => "tokencast dataset",
        }
    }

    /// Where the source keeps its logs, in words.
    pub fn default_places(self) -> &'static str {
        match self {
            Source::ClaudeCode => {
                "$CLAUDE_CONFIG_DIR/projects, ~/.config/claude/projects or ~/.claude/projects"
            }
            Source::Codex => "${CODEX_HOME:-~/.codex}/sessions or archived_sessions",
            Source::Api | Source::Otel | Source::Dataset => "no default location (give the files)",
        }
    }

    /// The default locations this machine would have, each named as it
    /// was looked for (`$CLAUDE_CONFIG_DIR`, `$CODEX_HOME` or the home
    /// folder): what an error says was tried.
    pub fn places_tried(self) -> String {
        let (paths, from) = match self {
            Source::ClaudeCode => (
                claude_code::candidate_paths(),
                if std::env::var("CLAUDE_CONFIG_DIR").is_ok_and(|v| !v.trim().is_empty()) {
                    " (from $CLAUDE_CONFIG_DIR)"
                } else {
                    ""
                },
            ),
            Source::Codex => (
                codex::candidate_paths(),
                if std::env::var("CODEX_HOME").is_ok_and(|v| !v.trim().is_empty()) {
                    " (from $CODEX_HOME)"
                } else {
                    ""
                },
            ),
            Source::Api | Source::Otel | Source::Dataset => return self.default_places().into(),
        };
        if paths.is_empty() {
            return format!("{} (no home folder to look in)", self.default_places());
        }
        let shown: Vec<String> = paths
            .iter()
            .map(|p| crate::output::name::display(&p.display().to_string()))
            .collect();
        format!("{}{from}", shown.join(", "))
    }

    /// The default locations that exist.
    pub fn default_paths(self) -> Vec<std::path::PathBuf> {
        match self {
            Source::ClaudeCode => claude_code::default_paths(),
            Source::Codex => codex::default_paths(),
            Source::Api | Source::Otel | Source::Dataset => Vec::new(),
        }
    }
}

/// Reads `source`'s logs under `paths`, handing the sessions that pass
/// `filter` to `each` a few dozen at a time.
pub fn read<E>(
    source: Source,
    paths: &[std::path::PathBuf],
    filter: &Filter,
    each: impl FnMut(Vec<Session>) -> Result<(), E> + Send,
) -> Result<Import, E>
where
    E: From<crate::error::InputError> + Send,
{
    match source {
        Source::ClaudeCode => claude_code::read(paths, filter, each),
        Source::Codex => codex::read(paths, filter, each),
        Source::Api => api::read(paths, filter, each),
        Source::Otel => otel::read(paths, filter, each),
        Source::Dataset => dataset::store::read(paths, filter, each),
    }
}

/// A log's name in problems and outputs: its path under the folder it was
/// found in (the whole path when it is not under it).
pub(crate) fn name_under(root: &std::path::Path, path: &std::path::Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// Reads sources whose files are one session each: files are read in
/// parallel, a few dozen at a time, and handed in path order to `keep`
/// (which may drop a session, or requests already seen, counting them)
/// before `filter`; the sessions left go to `each`.
pub(crate) fn read_each_file<E: Send>(
    source: &str,
    paths: &[std::path::PathBuf],
    extensions: &[&str],
    filter: &Filter,
    read_file: fn(&std::path::Path, &std::path::Path) -> (Option<Session>, Import),
    mut keep: impl FnMut(&mut Session, &mut Skipped) -> bool + Send,
    each: impl FnMut(Vec<Session>) -> Result<(), E> + Send,
) -> Result<Import, E> {
    use rayon::prelude::*;
    let (files, listing_problems) =
        claude_code::files_under_with(paths, extensions, filter.follow_links);
    let mut import = Import {
        source: source.into(),
        problems: listing_problems,
        ..Import::default()
    };
    let read_chunk = |chunk: &[(std::path::PathBuf, std::path::PathBuf)]| {
        chunk
            .par_iter()
            .map(|(root, path)| read_file(root, path))
            .collect::<Vec<(Option<Session>, Import)>>()
    };
    let bytes: Vec<u64> = files.par_iter().map(|(_, path)| file_len(path)).collect();
    let chunks = chunked(&files, &bytes, READ_AT_ONCE, LOG_BYTES_AT_ONCE);
    overlapped(chunks, read_chunk, each, |read| {
        let mut ready = Vec::new();
        for (session, stats) in read {
            import.add_counts(&stats);
            import.problems.extend(stats.problems);
            if let Some(mut s) = session {
                if keep(&mut s, &mut import.skipped) && filter.keeps(&s) {
                    ready.push(s);
                }
            }
        }
        ready
    })?;
    Ok(import)
}

/// Sessions held back for their families' fits that are prepared and
/// handed over at a time, once every log is read: enough to keep every
/// core busy while the writer threads stage the batch before.
pub const SESSIONS_AT_ONCE: usize = 32;

/// Sessions (or session files) read and handed over at a time: at most
/// this many, and at most [`LOG_BYTES_AT_ONCE`] of their logs (one
/// session however large): enough to keep every core busy, few enough that
/// memory does not grow with the size of the logs. Each chunk ends at a
/// barrier (the reading of one chunk and the summary of the one before
/// wait for each other), so chunks of small sessions are taken larger: on
/// 2,866 sessions of 240 KB, 1.204 s with 32 at a time and 1.178 s with
/// these limits; on the 1 GB corpus (1.6 MB a session) 64 at a time was no
/// faster and held 17 MB more, hence the bytes (`benches/HISTORY.md`,
/// 2026-12-07, 07:14–08:20).
pub const READ_AT_ONCE: usize = 64;

/// The logs' bytes read at a time, at most (see [`READ_AT_ONCE`]): about
/// 32 sessions of the 1 GB corpus.
pub const LOG_BYTES_AT_ONCE: u64 = 48 << 20;

/// `items` cut into the chunks [`overlapped`] reads: in order, each of at
/// most `max_items` items and, past its first, at most `max_bytes` of their
/// `bytes` (the item's logs' size) together.
pub(crate) fn chunked<'a, I>(
    items: &'a [I],
    bytes: &[u64],
    max_items: usize,
    max_bytes: u64,
) -> Vec<&'a [I]> {
    let mut chunks = Vec::new();
    let (mut start, mut held) = (0usize, 0u64);
    debug_assert_eq!(items.len(), bytes.len(), "a size for each item");
    for (i, b) in bytes.iter().enumerate() {
        let full = i - start == max_items || held.saturating_add(*b) > max_bytes;
        if i > start && full {
            chunks.push(&items[start..i]);
            (start, held) = (i, 0);
        }
        held = held.saturating_add(*b);
    }
    if start < items.len() {
        chunks.push(&items[start..]);
    }
    chunks
}

/// The size of the file at `path` in bytes (0 when it cannot be read: the
/// reading says why).
pub(crate) fn file_len(path: &std::path::Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Reads `chunks` one at a time (`read`, in parallel within the chunk;
/// [`chunked`] cuts them) while the chunk before is gathered into a batch (`gather`)
/// and taken (`each`): the summary of one batch runs beside the reading of
/// the next, so neither waits for the other's slowest file, and neither
/// waits for the gathering (which, run between the chunks, left both cores
/// but one thread idle for a sixteenth of an import's time). `gather` and
/// `each` see the chunks in order, once each, as they would without the
/// overlap; once `each` fails, nothing more is gathered or taken.
pub(crate) fn overlapped<'a, I: Sync + 'a, R: Send, B, E: Send>(
    chunks: impl IntoIterator<Item = &'a [I]>,
    read: impl Fn(&[I]) -> R + Sync,
    mut each: impl FnMut(B) -> Result<(), E> + Send,
    mut gather: impl FnMut(R) -> B + Send,
) -> Result<(), E> {
    let mut pending: Option<R> = None;
    let mut take = |r: R| each(gather(r));
    for chunk in chunks {
        let (read, taken) =
            rayon::join(|| read(chunk), || pending.take().map_or(Ok(()), &mut take));
        taken?;
        pending = Some(read);
    }
    pending.map_or(Ok(()), take)
}

pub use tokencast_core::input::epoch_ms;

#[cfg(test)]
mod overlap_tests {
    use super::{chunked, overlapped};

    #[test]
    fn chunks_end_at_the_count_or_the_bytes_whichever_comes_first() {
        let items: Vec<u32> = (0..9).collect();
        // At most 3 items and 10 bytes: [5, 5] (a third would pass 10),
        // [1, 1, 1] (the count), [20] (one item however large), [4, 6],
        // [2] (the rest).
        let bytes = [5, 5, 1, 1, 1, 20, 4, 6, 2];
        let cut: Vec<&[u32]> = chunked(&items, &bytes, 3, 10);
        assert_eq!(
            cut,
            [&[0, 1][..], &[2, 3, 4], &[5], &[6, 7], &[8]],
            "{cut:?}"
        );
        // Sizes that never bind: chunks of the count alone, as `chunks(3)`.
        let by_count: Vec<&[u32]> = chunked(&items, &[0; 9], 3, 10);
        assert_eq!(by_count, items.chunks(3).collect::<Vec<_>>());
        assert!(chunked(&[] as &[u32], &[], 3, 10).is_empty());
    }

    #[test]
    fn each_batch_is_taken_in_order_once_while_the_next_is_read() {
        // 0..10 in chunks of 3: batches [0,1,2], [3,4,5], [6,7,8], [9],
        // each doubled by `gather`.
        let items: Vec<u32> = (0..10).collect();
        let mut taken = Vec::new();
        overlapped(
            items.chunks(3),
            |chunk: &[u32]| chunk.to_vec(),
            |batch: Vec<u32>| -> Result<(), ()> {
                taken.push(batch);
                Ok(())
            },
            |read: Vec<u32>| read.into_iter().map(|x| 2 * x).collect::<Vec<u32>>(),
        )
        .unwrap();
        assert_eq!(
            taken,
            [vec![0, 2, 4], vec![6, 8, 10], vec![12, 14, 16], vec![18]]
        );
    }

    #[test]
    fn an_error_of_a_batch_stops_before_the_next_is_taken() {
        let items: Vec<u32> = (0..10).collect();
        let mut taken = 0;
        let r = overlapped(
            items.chunks(3),
            |chunk: &[u32]| chunk.len(),
            |n: usize| {
                taken += 1;
                if taken == 2 {
                    Err(n)
                } else {
                    Ok(())
                }
            },
            |n| n,
        );
        assert_eq!(r, Err(3));
        assert_eq!(taken, 2);
    }

    #[test]
    fn nothing_to_read_takes_nothing() {
        let mut taken = 0;
        overlapped(
            [] as [&[u32]; 0],
            |chunk: &[u32]| chunk.len(),
            |_: usize| -> Result<(), ()> {
                taken += 1;
                Ok(())
            },
            |n| n,
        )
        .unwrap();
        assert_eq!(taken, 0);
    }
}
