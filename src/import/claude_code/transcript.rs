//! A transcript file read line by line: the named state that ties a line
//! to the ones before it (responses logged as several lines, tool calls and
//! their results, what waits for the next request of each thread).

use super::line::*;
use super::*;

/// What one transcript file has said so far: its records, and the state
/// that ties a line to the ones before it. Its maps are keyed by ids read
/// from the log, hashed with foldhash seeded per map ([`NameHasher`]) rather
/// than SipHash: a lookup or two a line.
pub(super) struct Transcript {
    pub(super) rec: FileRecords,
    /// Requests by message id: a response is logged as one line per
    /// content block.
    by_message: HashMap<String, usize, NameHasher>,
    /// Tool calls by id: their tool and when they were asked for.
    tool_uses: HashMap<String, (String, Option<i64>), NameHasher>,
    /// Per thread (None: the file's own; Some: an inline sidechain), what
    /// entered the context and waits for the thread's next request.
    pending: HashMap<Option<String>, Vec<usize>, NameHasher>,
    /// Inline subagent conversations seen so far.
    sidechains: u64,
    /// Threads whose next request follows a compaction marker.
    compacted: HashSet<Option<String>, NameHasher>,
    /// Lines of the file whose content was lost ([`Import::lost_lines`])
    /// before the one being read, and per thread as of its last request:
    /// their difference is what the thread's next request's
    /// [`Request::lost_lines_before`] counts. A line that cannot be read
    /// names no thread, so it counts for every thread.
    lost_before_line: u64,
    lost_at_request: HashMap<Option<String>, u64, NameHasher>,
    /// Per thread, the results a microcompaction cleared, to be marked
    /// with the thread's next request.
    clearing: HashMap<Option<String>, Vec<usize>, NameHasher>,
}

impl Transcript {
    pub(super) fn new(role: FileRole) -> Transcript {
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
                replacements: Vec::new(),
            },
            by_message: HashMap::with_hasher(name_hasher()),
            tool_uses: HashMap::with_hasher(name_hasher()),
            pending: HashMap::with_hasher(name_hasher()),
            sidechains: 0,
            compacted: HashSet::with_hasher(name_hasher()),
            lost_before_line: 0,
            lost_at_request: HashMap::with_hasher(name_hasher()),
            clearing: HashMap::with_hasher(name_hasher()),
        }
    }

    /// One line: a record of its type, or a problem named by its number.
    pub(super) fn line(&mut self, number: u64, text: &[u8], stats: &mut Import) {
        self.lost_before_line = stats.lost_lines;
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
                stats.lost(&self.rec.role.name, number, what);
                return;
            }
        };
        if self.rec.session_id.is_none() {
            self.rec.session_id = parsed.session_id.clone().map(Text::into_owned);
        }
        let thread = self.thread_of(&parsed);
        match parsed.kind.as_ref().map_or("", Text::as_str) {
            "assistant" => self.assistant(parsed, thread, number, stats),
            "user" => self.user(parsed, thread, number, stats),
            "attachment" => {
                let at_ms = parsed.timestamp.as_ref().and_then(|t| epoch_ms(t.as_str()));
                let measured = ResultContent {
                    bytes: parsed.attachment_bytes.unwrap_or(0),
                    ..ResultContent::default()
                };
                self.push_context(&thread, ContextKind::Attachment, measured, at_ms);
            }
            "system" if parsed.subtype.as_ref().map(Text::as_str) == Some("compact_boundary") => {
                self.rec.compactions += 1;
                self.compacted.insert(thread.clone());
                // What was waiting is now inside the summary, not sent as it was.
                self.pending.remove(&thread);
            }
            "content-replacement" => {
                let records = parsed
                    .replacements
                    .map_or(Ok(Vec::new()), |r| serde_json::from_str(r.get()));
                match records {
                    Ok(records) => self.replacements(records),
                    Err(e) => {
                        let column = parsed.replacements.map_or(0, |r| column_in(text, r, &e));
                        stats.problem(
                            &self.rec.role.name,
                            number,
                            format!(
                                "a content-replacement line whose `replacements` are not \
                                 records of `kind`, `toolUseId` and `replacement` ({} at \
                                 column {}): the results it names are measured as logged",
                                category(&e),
                                column
                            ),
                        )
                    }
                }
            }
            "marble-origami-commit" => stats.problem(
                &self.rec.role.name,
                number,
                "a context collapse (`marble-origami-commit`), which the replay does not \
                 model: later requests are replayed with the archived messages still in \
                 the context",
            ),
            "system"
                if parsed.subtype.as_ref().map(Text::as_str) == Some("microcompact_boundary") =>
            {
                self.microcompact(&parsed, thread, text, number, stats)
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
        if parsed.root && parsed.kind.as_ref().map(Text::as_str) == Some("user") && hands_over {
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
        let at_ms = parsed.timestamp.as_ref().and_then(|t| epoch_ms(t.as_str()));
        for b in &msg.content.0 {
            if b.kind == "tool_use" || b.kind == "server_tool_use" {
                if let (Some(id), Some(name)) = (&b.id, &b.name) {
                    self.tool_uses
                        .insert(id.as_str().to_string(), (name.as_str().to_string(), at_ms));
                }
            }
        }
        // Fast mode and a regional uplift price the request differently, and
        // the provider caches it apart: a model of its own.
        let model = {
            let (speed, geo) = msg
                .usage
                .as_ref()
                .map_or((None, None), |u| u.speed_and_geo());
            crate::import::priced_model(
                msg.model.map(Text::into_owned).unwrap_or_default(),
                speed,
                geo,
            )
        };
        let usage = stats.capped(
            &self.rec.role.name,
            number,
            msg.usage.map(|u| u.total()).unwrap_or_default(),
        );
        let output_bytes: u64 = msg.content.0.iter().map(Block::output_bytes).sum();
        let thinking_bytes: u64 = msg
            .content
            .0
            .iter()
            .filter(|b| b.kind == "thinking")
            .map(Block::output_bytes)
            .sum();
        let Some(id) = msg.id.map(Text::into_owned) else {
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
            r.thinking_bytes += thinking_bytes;
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
        // Nearly always empty: no key to hash for each request.
        let cleared = (!self.clearing.is_empty())
            .then(|| self.clearing.remove(&thread))
            .flatten();
        if let Some(cleared) = cleared {
            for j in cleared {
                self.rec.results[j].cleared_by = Some(id.clone());
            }
        }
        let compacted_before = self.compacted.remove(&thread);
        let seen = self
            .lost_at_request
            .insert(thread.clone(), self.lost_before_line)
            .unwrap_or(0);
        self.rec.requests.push(FileRequest {
            thread,
            request: Request {
                compacted_before,
                lost_lines_before: self.lost_before_line.saturating_sub(seen),
                hidden_output: 0,
                output_bytes,
                thinking_bytes,
                message_id: id,
                timestamp: parsed.timestamp.map(Text::into_owned),
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
        let at_ms = parsed.timestamp.as_ref().and_then(|t| epoch_ms(t.as_str()));
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
                    stats.lost(
                        &self.rec.role.name,
                        number,
                        "a tool result whose content is not text blocks",
                    );
                    continue;
                }
            };
            let use_id = b.tool_use_id.map(Text::into_owned).unwrap_or_default();
            let (tool, asked_at) = self
                .tool_uses
                .get(&use_id)
                .cloned()
                .unwrap_or_else(|| ("unknown".to_string(), None));
            let latency_ms = match (asked_at, at_ms) {
                (Some(a), Some(b)) if b >= a => (b - a) as u64,
                _ => 0,
            };
            let result = ToolResult {
                kind: super::ContextKind::Tool,
                tool,
                bytes: c.bytes,
                images: c.images,
                documents: c.documents,
                o200k_tokens: None,
                is_error: b.is_error.unwrap_or(false),
                latency_ms,
                carried_by: None,
                cleared_by: None,
                at_ms,
            };
            self.push_waiting(&thread, use_id, result);
        }
    }

    /// A `content-replacement` line: each tool result it names was sent as
    /// its replacement text (the client keeps the whole result on disk and
    /// sends a preview; a result is replaced before it is first sent, and
    /// for good). Measured now, applied to the result when the session's
    /// files are read (a subagent's records may sit in another file).
    fn replacements(&mut self, records: Vec<Replacement<'_>>) {
        for r in records {
            let (Some(id), Some(text)) = (r.tool_use_id, r.replacement) else {
                continue;
            };
            if id.as_str().is_empty()
                || r.kind.as_ref().is_some_and(|k| k.as_str() != "tool-result")
            {
                continue;
            }
            // The text the model saw is a string; anything else measures nothing.
            if !text.get().starts_with('"') {
                continue;
            }
            if let Ok(measured) = ResultContent::measure(text) {
                self.rec.replacements.push((id.into_owned(), measured));
            }
        }
    }

    /// A `microcompact_boundary` line: the tool results it names, already
    /// sent, leave the thread's context before its next request (their
    /// content replaced by a marker of a few bytes). A result still waiting
    /// to be sent, or one another thread or file holds, is left as it is.
    fn microcompact(
        &mut self,
        parsed: &LineRec,
        thread: Option<String>,
        text: &[u8],
        number: u64,
        stats: &mut Import,
    ) {
        let Some(raw) = parsed.microcompact else {
            stats.skipped.other_lines += 1;
            return;
        };
        let meta: Microcompact = match serde_json::from_str(raw.get()) {
            Ok(m) => m,
            Err(e) => {
                stats.problem(
                    &self.rec.role.name,
                    number,
                    format!(
                        "a microcompact_boundary line whose `microcompactMetadata` has no list \
                         of `compactedToolIds` ({} at column {}): the results it cleared are \
                         replayed as if still in the context",
                        category(&e),
                        column_in(text, raw, &e)
                    ),
                );
                return;
            }
        };
        let waiting = self.pending.get(&thread);
        for id in meta.compacted_tool_ids {
            let found = self.rec.results.iter().rposition(|r| {
                r.thread == thread && !id.as_str().is_empty() && r.tool_use_id == id.as_str()
            });
            if let Some(j) = found {
                if self.rec.results[j].carried_by.is_some()
                    && !waiting.is_some_and(|w| w.contains(&j))
                {
                    self.clearing.entry(thread.clone()).or_default().push(j);
                }
            }
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
        self.push_waiting(thread, String::new(), ToolResult::context(kind, c, at_ms));
    }

    /// Adds what entered `thread`'s context, to be carried by its next request.
    fn push_waiting(&mut self, thread: &Option<String>, tool_use_id: String, result: ToolResult) {
        self.pending
            .entry(thread.clone())
            .or_default()
            .push(self.rec.results.len());
        self.rec.results.push(FileResult {
            thread: thread.clone(),
            tool_use_id,
            carried_by: None,
            cleared_by: None,
            result,
        });
    }
}

/// The 1-based column of `line` at which reading `value`, a part of it,
/// failed with `e` (lines are single JSON objects, so a column is a byte
/// offset plus one).
fn column_in(line: &[u8], value: &serde_json::value::RawValue, e: &serde_json::Error) -> usize {
    // The value is borrowed from the line: where it starts in it.
    let start = (value.get().as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    start + e.column()
}
