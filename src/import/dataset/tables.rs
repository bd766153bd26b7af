//! The dataset's three tables: one row per session, per recorded request
//! and per tool result (or other context that entered), each row keyed by
//! machine, session and the log file the session was read from. Column
//! names follow the OpenTelemetry GenAI conventions where one exists
//! (`gen_ai.usage.input_tokens` counts the whole prompt, cached or not, as
//! they define it); tokencast's own columns start with `tokencast.`.
//!
//! The request and result rows hold everything an import reads from a log
//! (sizes, counts, names, times; never text), so the sessions they make
//! again ([`session_of`]) give the import the same figures as the logs.

use super::columns::{Data, Table};
use crate::document::import::{Band, SessionRow};
use crate::import::{ContextKind, Origin, Request, Session, Thread, ToolResult, Usage};
use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// The three tables, as folder names.
pub const SESSIONS: &str = "sessions";
/// One row per recorded request.
pub const REQUESTS: &str = "requests";
/// One row per tool result or other context.
pub const RESULTS: &str = "tool_results";
/// All three, in the order they are written.
pub const TABLES: [&str; 3] = [SESSIONS, REQUESTS, RESULTS];

/// The machine's id.
pub const HOST: &str = "host.id";
/// The user's id.
pub const USER: &str = "user.id";
/// The session id.
pub const SESSION: &str = "gen_ai.conversation.id";
/// The first log file of the session (a session resumed into another log
/// file is a second row).
pub const LOG_FILE: &str = "tokencast.log_file";
/// Recorded cost, exact.
pub const COST: &str = "tokencast.cost_usd";
/// When the session started (its first request).
pub const STARTED: &str = "tokencast.started";
/// Its last request.
pub const LAST: &str = "tokencast.last_request";

/// Builds a table row by row; the first row names the columns.
#[derive(Default)]
pub struct Builder {
    table: Table,
    at: usize,
    rows: usize,
}

impl Builder {
    fn slot(&mut self, name: &'static str, empty: Data) -> &mut Data {
        if self.table.columns.len() == self.at {
            assert_eq!(self.rows, 0, "column {name} added after the first row");
            self.table.columns.push((name, empty));
        }
        let (n, d) = &mut self.table.columns[self.at];
        // The same literal is the same pointer: the text is compared only
        // when it is not (a comparison a value was 0.7 % of an import).
        if !std::ptr::eq(*n, name) {
            assert_eq!(*n, name, "columns are pushed in one order");
        }
        self.at += 1;
        d
    }

    fn int(&mut self, name: &'static str, v: Option<i64>) -> &mut Self {
        match self.slot(name, Data::Int(Vec::new())) {
            Data::Int(x) => x.push(v),
            _ => unreachable!("{name} is an integer column"),
        }
        self
    }

    fn count(&mut self, name: &'static str, v: u64) -> &mut Self {
        self.int(name, Some(i64::try_from(v).unwrap_or(i64::MAX)))
    }

    fn bool(&mut self, name: &'static str, v: bool) -> &mut Self {
        match self.slot(name, Data::Bool(Vec::new())) {
            Data::Bool(x) => x.push(Some(v)),
            _ => unreachable!("{name} is a boolean column"),
        }
        self
    }

    fn str(&mut self, name: &'static str, v: Option<&str>) -> &mut Self {
        match self.slot(name, Data::Str(Default::default())) {
            Data::Str(x) => x.push(v),
            _ => unreachable!("{name} is a string column"),
        }
        self
    }

    fn time(&mut self, name: &'static str, v: Option<i64>) -> &mut Self {
        match self.slot(name, Data::Time(Vec::new())) {
            Data::Time(x) => x.push(v),
            _ => unreachable!("{name} is a timestamp column"),
        }
        self
    }

    fn money(&mut self, name: &'static str, v: Option<Decimal>) -> &mut Self {
        match self.slot(name, Data::Money(Vec::new())) {
            Data::Money(x) => x.push(v),
            _ => unreachable!("{name} is a money column"),
        }
        self
    }

    fn end(&mut self) {
        assert_eq!(
            self.at,
            self.table.columns.len(),
            "every column has a value"
        );
        self.at = 0;
        self.rows += 1;
    }

    /// The table built.
    pub fn finish(self) -> Table {
        self.table
    }
}

/// Who and where a session was recorded, as the dataset keys it.
fn keys(b: &mut Builder, o: &Origin, s: &Session) {
    b.str(HOST, Some(&o.machine))
        .str(SESSION, Some(&s.id))
        .str(LOG_FILE, Some(s.files.first().map_or("", String::as_str)));
}

/// The session row's own: who, which project, which source (the request
/// and result rows join it on the key).
fn about(b: &mut Builder, o: &Origin, s: &Session, source: &str) {
    b.str(USER, o.user.as_deref())
        .str("tokencast.project", Some(&s.project))
        .str("tokencast.source", Some(source));
}

fn usage(b: &mut Builder, u: &Usage) {
    b.count("gen_ai.usage.input_tokens", u.prompt())
        .count("gen_ai.usage.output_tokens", u.output)
        .count("gen_ai.usage.cache_read.input_tokens", u.cache_read)
        .count(
            "gen_ai.usage.cache_creation.input_tokens",
            u.cache_write_5m.saturating_add(u.cache_write_1h),
        )
        .count("tokencast.usage.uncached_input_tokens", u.input)
        .count(
            "tokencast.usage.cache_creation_5m_input_tokens",
            u.cache_write_5m,
        )
        .count(
            "tokencast.usage.cache_creation_1h_input_tokens",
            u.cache_write_1h,
        );
}

/// `<variant>.lower_usd`, `.estimate_usd`, `.upper_usd` of each variant.
const BAND_COLUMNS: [[&str; 3]; 5] = [
    [
        "tokencast.as_recorded.lower_usd",
        "tokencast.as_recorded.estimate_usd",
        "tokencast.as_recorded.upper_usd",
    ],
    [
        "tokencast.trimmed.lower_usd",
        "tokencast.trimmed.estimate_usd",
        "tokencast.trimmed.upper_usd",
    ],
    [
        "tokencast.other_tier.lower_usd",
        "tokencast.other_tier.estimate_usd",
        "tokencast.other_tier.upper_usd",
    ],
    [
        "tokencast.batch.lower_usd",
        "tokencast.batch.estimate_usd",
        "tokencast.batch.upper_usd",
    ],
    [
        "tokencast.other_model.lower_usd",
        "tokencast.other_model.estimate_usd",
        "tokencast.other_model.upper_usd",
    ],
];

/// What the import worked out for a session besides its row.
#[derive(Debug, Clone, Default)]
pub struct Replayed {
    /// Threads written as scenarios.
    pub threads: u64,
    /// The model of the first written thread the book does not price.
    pub unpriced_model: Option<String>,
    /// Per thread, per request: its recorded cost, `None` when unpriced.
    pub costs: Vec<Vec<Option<Decimal>>>,
}

/// One session's rows in all three tables.
#[derive(Default)]
pub struct Rows {
    /// One row per session.
    pub sessions: Builder,
    /// One row per request.
    pub requests: Builder,
    /// One row per result.
    pub results: Builder,
}

/// The provider of a model, as `gen_ai.provider.name` names it.
pub fn provider(model: &str) -> Option<&'static str> {
    let m = model.rsplit('/').next().unwrap_or(model);
    if let Some(c) = crate::pricing::cloud::on_cloud(m) {
        return Some(c.cloud.provider());
    }
    if m.starts_with("claude") {
        Some("anthropic")
    } else if m.starts_with("gemini") {
        Some("gcp.gemini")
    } else if m.starts_with("gpt") || m.starts_with("codex") || m.starts_with('o') {
        Some("openai")
    } else {
        None
    }
}

impl Rows {
    /// Adds a session: its row (as the import summary made it) and every
    /// request and result of its threads.
    pub fn add(&mut self, o: &Origin, s: &Session, row: &SessionRow, rep: &Replayed, source: &str) {
        let last = s.requests().filter_map(|r| r.at_ms).max();
        let b = &mut self.sessions;
        keys(b, o, s);
        about(b, o, s, source);
        b.time(
            STARTED,
            row.started.as_deref().and_then(crate::import::epoch_ms),
        )
        .str("tokencast.started_text", row.started.as_deref())
        .time(LAST, last)
        .count("tokencast.threads", row.threads)
        .count("tokencast.replayed_threads", rep.threads)
        .str(
            "tokencast.unpriced_thread_model",
            rep.unpriced_model.as_deref(),
        )
        .count("tokencast.requests", row.requests)
        .count("tokencast.tool_results", row.tool_results)
        .count("tokencast.result_bytes", row.result_bytes)
        .count("tokencast.other_context_bytes", row.other_context_bytes)
        .count("tokencast.images", row.images)
        .count("tokencast.documents", row.documents)
        .count("tokencast.compactions", row.compactions)
        .count("tokencast.compaction_markers", s.compactions)
        .count("tokencast.unmeasured_steps", row.unmeasured.steps)
        .count("tokencast.unmeasured_tokens", row.unmeasured.tokens);
        usage(b, &row.usage);
        b.money(COST, row.recorded_cost)
            .count("tokencast.unpriced_requests", row.unpriced_requests)
            .money(
                "tokencast.replayed_recorded_cost_usd",
                Some(row.replayed_recorded_cost),
            );
        let w = row.what_if;
        let bands: [Option<Band>; 5] = [
            w.map(|w| w.as_recorded),
            w.map(|w| w.trimmed),
            w.and_then(|w| w.other_tier),
            w.and_then(|w| w.batch),
            w.and_then(|w| w.other_model),
        ];
        for (band, [lo, est, up]) in bands.iter().zip(BAND_COLUMNS) {
            b.money(lo, band.map(|x| x.lower))
                .money(est, band.map(|x| x.estimate))
                .money(up, band.map(|x| x.upper));
        }
        b.str("tokencast.log_files", Some(&s.files.join("\n")));
        b.end();
        for (ti, t) in s.threads.iter().enumerate() {
            let costs = rep.costs.get(ti);
            self.add_thread(o, s, ti, t, costs);
        }
    }

    fn add_thread(
        &mut self,
        o: &Origin,
        s: &Session,
        ti: usize,
        t: &Thread,
        costs: Option<&Vec<Option<Decimal>>>,
    ) {
        // What entered before each request, by kind: (results, tool bytes, user bytes, other bytes).
        let mut before = vec![(0u64, 0u64, 0u64, 0u64); t.requests.len()];
        for r in &t.results {
            if let Some(e) = r.carried_by.and_then(|i| before.get_mut(i)) {
                match r.kind {
                    ContextKind::Tool => {
                        e.0 += 1;
                        e.1 += r.bytes;
                    }
                    ContextKind::User => e.2 += r.bytes,
                    ContextKind::Attachment => e.3 += r.bytes,
                }
            }
        }
        let name = t.name();
        let mut prev: Option<i64> = None;
        for (ri, r) in t.requests.iter().enumerate() {
            let b = &mut self.requests;
            keys(b, o, s);
            thread(b, ti, t, &name);
            let gap = match (prev, r.at_ms) {
                (Some(p), Some(a)) => Some(a.saturating_sub(p)),
                _ => None,
            };
            prev = r.at_ms.or(prev);
            let (n, tool, user, other) = before[ri];
            // The model's id, and apart from it the service tier and region
            // the request was billed under (fast mode, a regional uplift).
            let priced = crate::pricing::PricedModel::parse(&r.model);
            b.count("tokencast.request_index", ri as u64)
                .str("gen_ai.response.id", Some(&r.message_id))
                .str("gen_ai.response.model", Some(priced.id))
                .str("tokencast.service_tier", priced.options.service)
                .str("tokencast.region", priced.options.region)
                .str(
                    "gen_ai.provider.name",
                    // A response of Claude on Bedrock or Vertex AI names the
                    // model by its Anthropic id; its message id names the cloud.
                    crate::pricing::cloud::served_by(&r.message_id)
                        .map(crate::pricing::cloud::Cloud::provider)
                        .or_else(|| provider(priced.id)),
                )
                .time("tokencast.timestamp", r.at_ms)
                .str("tokencast.timestamp_text", r.timestamp.as_deref())
                .int("tokencast.gap_before_ms", gap);
            usage(b, &r.usage);
            b.count("tokencast.usage.hidden_output_tokens", r.hidden_output)
                .count("tokencast.output_bytes", r.output_bytes)
                .count("tokencast.thinking_bytes", r.thinking_bytes)
                .bool("tokencast.compacted_before", r.compacted_before)
                .count("tokencast.lost_lines_before", r.lost_lines_before)
                .money(COST, costs.and_then(|c| c.get(ri).copied().flatten()))
                .count("tokencast.context_before.tool_results", n)
                .count("tokencast.context_before.tool_result_bytes", tool)
                .count("tokencast.context_before.user_message_bytes", user)
                .count("tokencast.context_before.attachment_bytes", other);
            b.end();
        }
        for (xi, x) in t.results.iter().enumerate() {
            let b = &mut self.results;
            keys(b, o, s);
            thread(b, ti, t, &name);
            let kind = match x.kind {
                ContextKind::Tool => "tool",
                ContextKind::User => "user",
                ContextKind::Attachment => "attachment",
            };
            b.count("tokencast.result_index", xi as u64)
                .str("gen_ai.tool.name", Some(&x.tool))
                .str("tokencast.kind", Some(kind))
                .count("tokencast.bytes", x.bytes)
                .count("tokencast.images", x.images)
                .count("tokencast.documents", x.documents)
                .int(
                    "tokencast.o200k_tokens",
                    x.o200k_tokens.map(|t| i64::try_from(t).unwrap_or(i64::MAX)),
                )
                .bool("tokencast.is_error", x.is_error)
                .count("tokencast.latency_ms", x.latency_ms)
                .int(
                    "tokencast.carried_by",
                    x.carried_by.map(|i| i64::try_from(i).unwrap_or(i64::MAX)),
                )
                .str(
                    "tokencast.carried_by_response_id",
                    x.carried_by
                        .and_then(|i| t.requests.get(i))
                        .map(|r| r.message_id.as_str()),
                )
                .int(
                    "tokencast.cleared_by",
                    x.cleared_by.map(|i| i64::try_from(i).unwrap_or(i64::MAX)),
                )
                .time("tokencast.timestamp", x.at_ms);
            b.end();
        }
    }
}

fn thread(b: &mut Builder, ti: usize, t: &Thread, name: &str) {
    b.str("tokencast.thread", Some(name))
        .str("gen_ai.agent.id", t.agent.as_deref())
        .count("tokencast.thread_index", ti as u64)
        .bool("tokencast.thread_compaction", t.compaction);
}

/// Each table's columns, without rows (what a reader asks a file for).
pub fn schema(table: &str) -> Table {
    let o = Origin {
        machine: String::new(),
        user: None,
        source: None,
    };
    let t = Thread {
        agent: None,
        compaction: false,
        requests: vec![Request::default()],
        results: vec![ToolResult::context(
            ContextKind::User,
            crate::import::content::ResultContent::default(),
            None,
        )],
    };
    let s = Session {
        id: String::new(),
        project: String::new(),
        files: Vec::new(),
        threads: vec![t],
        compactions: 0,
        origin: None,
    };
    let row = crate::document::import::empty_row();
    let mut rows = Rows::default();
    rows.add(&o, &s, &row, &Replayed::default(), "");
    let table = match table {
        SESSIONS => rows.sessions.finish(),
        REQUESTS => rows.requests.finish(),
        _ => rows.results.finish(),
    };
    table.empty_like()
}

/// A value of a table read back, or why it cannot be one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("row {row}, column `{column}`: {why}")]
pub struct BadValue {
    /// 1-based row of the file.
    pub row: usize,
    /// The column.
    pub column: &'static str,
    /// What is wrong and what would be right.
    pub why: String,
}

/// Typed access to a table read back.
pub struct Cols<'a>(pub &'a Table);

impl<'a> Cols<'a> {
    fn data(&self, name: &'static str) -> &'a Data {
        self.0.get(name).expect("tables are read with their schema")
    }

    /// A string column.
    pub fn str(&self, name: &'static str) -> &'a super::columns::Strs {
        match self.data(name) {
            Data::Str(v) => v,
            _ => unreachable!("{name} is a string column"),
        }
    }

    /// An integer or timestamp column.
    pub fn int(&self, name: &'static str) -> &'a [Option<i64>] {
        match self.data(name) {
            Data::Int(v) | Data::Time(v) => v,
            _ => unreachable!("{name} is an integer column"),
        }
    }

    /// A boolean column.
    pub fn bool(&self, name: &'static str) -> &'a [Option<bool>] {
        match self.data(name) {
            Data::Bool(v) => v,
            _ => unreachable!("{name} is a boolean column"),
        }
    }

    /// A money column.
    pub fn money(&self, name: &'static str) -> &'a [Option<Decimal>] {
        match self.data(name) {
            Data::Money(v) => v,
            _ => unreachable!("{name} is a money column"),
        }
    }

    /// Row `i` of a count column: present and not negative.
    pub fn count(&self, name: &'static str, i: usize) -> Result<u64, BadValue> {
        match self.int(name)[i] {
            Some(v) if v >= 0 => Ok(v as u64),
            Some(v) => Err(BadValue {
                row: i + 1,
                column: name,
                why: format!("{v} is negative; a count is 0 or more"),
            }),
            None => Err(BadValue {
                row: i + 1,
                column: name,
                why: "is null; a count is 0 or more".into(),
            }),
        }
    }

    /// Row `i` of a count column that may be null (or absent from files
    /// written before it existed).
    pub fn maybe_count(&self, name: &'static str, i: usize) -> Result<Option<u64>, BadValue> {
        match self.int(name)[i] {
            None => Ok(None),
            Some(_) => self.count(name, i).map(Some),
        }
    }

    /// Row `i` of a column of request indices that may be null.
    pub fn maybe_index(&self, name: &'static str, i: usize) -> Result<Option<usize>, BadValue> {
        match self.int(name)[i] {
            None => Ok(None),
            Some(v) => usize::try_from(v).map(Some).map_err(|_| BadValue {
                row: i + 1,
                column: name,
                why: format!("{v} is not a request index"),
            }),
        }
    }

    /// Row `i` of a column naming a service tier or region, null when there
    /// is none (and in files written before it): a name the price book can
    /// hold ([`crate::pricing::PricedModel::is_option`]).
    pub fn option(&self, name: &'static str, i: usize) -> Result<Option<&'a str>, BadValue> {
        match self.str(name).get(i) {
            None => Ok(None),
            Some(v) if crate::pricing::PricedModel::is_option(v) => Ok(Some(v)),
            Some(_) => Err(BadValue {
                row: i + 1,
                column: name,
                why: "is not a tier or region name: 1 to 32 letters, digits, `-` or `_`".into(),
            }),
        }
    }

    /// Row `i` of a required string column.
    pub fn text(&self, name: &'static str, i: usize) -> Result<&'a str, BadValue> {
        self.str(name).get(i).ok_or_else(|| BadValue {
            row: i + 1,
            column: name,
            why: "is null; it names the row".into(),
        })
    }

    fn usage(&self, i: usize) -> Result<Usage, BadValue> {
        Ok(Usage {
            input: self.count("tokencast.usage.uncached_input_tokens", i)?,
            cache_write_5m: self.count("tokencast.usage.cache_creation_5m_input_tokens", i)?,
            cache_write_1h: self.count("tokencast.usage.cache_creation_1h_input_tokens", i)?,
            cache_read: self.count("gen_ai.usage.cache_read.input_tokens", i)?,
            output: self.count("gen_ai.usage.output_tokens", i)?,
        })
    }
}

/// The key of a session's rows: machine, session id, first log file.
pub type Key = (String, String, String);

/// Row `i`'s key.
pub fn key_of(c: &Cols, i: usize) -> Result<Key, BadValue> {
    Ok((
        c.text(HOST, i)?.to_string(),
        c.text(SESSION, i)?.to_string(),
        c.text(LOG_FILE, i)?.to_string(),
    ))
}

/// What a session row says besides its requests and results.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    /// Who recorded it, where.
    pub origin: Origin,
    /// Its project.
    pub project: String,
    /// Its log files.
    pub files: Vec<String>,
    /// Compaction markers of its main thread.
    pub compactions: u64,
    /// Its last request, ms since the epoch (which of two imports is newer).
    pub last_ms: Option<i64>,
}

/// Row `i` of a sessions table.
pub fn session_info(c: &Cols, i: usize) -> Result<SessionInfo, BadValue> {
    Ok(SessionInfo {
        origin: Origin {
            machine: c.text(HOST, i)?.to_string(),
            user: c.str(USER).get(i).map(str::to_string),
            source: c.str("tokencast.source").get(i).map(str::to_string),
        },
        project: c
            .str("tokencast.project")
            .get(i)
            .map(str::to_string)
            .unwrap_or_default(),
        files: c
            .str("tokencast.log_files")
            .get(i)
            .map(|f| f.split('\n').map(str::to_string).collect())
            .unwrap_or_default(),
        compactions: c.count("tokencast.compaction_markers", i)?,
        last_ms: c.int(LAST)[i],
    })
}

/// A thread's requests and results read back, by thread index.
#[derive(Debug, Default)]
pub struct Threads(pub BTreeMap<u64, Thread>);

impl Threads {
    fn thread(&mut self, c: &Cols, i: usize) -> Result<&mut Thread, BadValue> {
        let ti = c.count("tokencast.thread_index", i)?;
        let agent = c.str("gen_ai.agent.id").get(i).map(str::to_string);
        let compaction = c.bool("tokencast.thread_compaction")[i].unwrap_or(false);
        Ok(self.0.entry(ti).or_insert_with(|| Thread {
            agent,
            compaction,
            requests: Vec::new(),
            results: Vec::new(),
        }))
    }

    /// Adds row `i` of a requests table (rows of a thread in index order).
    pub fn add_request(&mut self, c: &Cols, i: usize) -> Result<(), BadValue> {
        let r = Request {
            message_id: c.text("gen_ai.response.id", i)?.to_string(),
            timestamp: c.str("tokencast.timestamp_text").get(i).map(str::to_string),
            at_ms: c.int("tokencast.timestamp")[i],
            model: crate::pricing::PricedModel::name(
                c.text("gen_ai.response.model", i)?,
                c.option("tokencast.service_tier", i)?,
                c.option("tokencast.region", i)?,
            ),
            usage: c.usage(i)?,
            hidden_output: c.count("tokencast.usage.hidden_output_tokens", i)?,
            compacted_before: c.bool("tokencast.compacted_before")[i].unwrap_or(false),
            lost_lines_before: c
                .maybe_count("tokencast.lost_lines_before", i)?
                .unwrap_or(0),
            output_bytes: c.count("tokencast.output_bytes", i)?,
            thinking_bytes: c.count("tokencast.thinking_bytes", i)?,
        };
        let index = c.count("tokencast.request_index", i)?;
        let t = self.thread(c, i)?;
        if index != t.requests.len() as u64 {
            return Err(BadValue {
                row: i + 1,
                column: "tokencast.request_index",
                why: format!(
                    "is {index} where {} was expected (a thread's requests are numbered from 0, in order)",
                    t.requests.len()
                ),
            });
        }
        t.requests.push(r);
        Ok(())
    }

    /// Adds row `i` of a results table.
    pub fn add_result(&mut self, c: &Cols, i: usize) -> Result<(), BadValue> {
        let kind = match c.text("tokencast.kind", i)? {
            "tool" => ContextKind::Tool,
            "user" => ContextKind::User,
            "attachment" => ContextKind::Attachment,
            other => {
                return Err(BadValue {
                    row: i + 1,
                    column: "tokencast.kind",
                    why: format!(
                        "`{}` is not a kind; tool, user or attachment",
                        other.escape_debug()
                    ),
                })
            }
        };
        let carried_by = c.maybe_index("tokencast.carried_by", i)?;
        // Null in files written before the column.
        let cleared_by = c.maybe_index("tokencast.cleared_by", i)?;
        let x = ToolResult {
            tool: c.text("gen_ai.tool.name", i)?.to_string(),
            kind,
            bytes: c.count("tokencast.bytes", i)?,
            images: c.count("tokencast.images", i)?,
            documents: c.count("tokencast.documents", i)?,
            o200k_tokens: c.maybe_count("tokencast.o200k_tokens", i)?,
            is_error: c.bool("tokencast.is_error")[i].unwrap_or(false),
            latency_ms: c.count("tokencast.latency_ms", i)?,
            carried_by,
            cleared_by,
            at_ms: c.int("tokencast.timestamp")[i],
        };
        let index = c.count("tokencast.result_index", i)?;
        let t = self.thread(c, i)?;
        if index != t.results.len() as u64 {
            return Err(BadValue {
                row: i + 1,
                column: "tokencast.result_index",
                why: format!(
                    "is {index} where {} was expected (a thread's results are numbered from 0, in order)",
                    t.results.len()
                ),
            });
        }
        t.results.push(x);
        Ok(())
    }
}

/// A session made again from its rows.
pub fn session_of(id: &str, info: SessionInfo, threads: Threads) -> Session {
    Session {
        id: id.to_string(),
        project: info.project,
        files: info.files,
        threads: threads.0.into_values().collect(),
        compactions: info.compactions,
        origin: Some(info.origin),
    }
}

/// Each variant's lower and upper bound columns, found once.
pub type BandColumns<'a> = [(&'a [Option<Decimal>], &'a [Option<Decimal>]); 5];

/// Each variant's lower and upper bound columns of a sessions table, found
/// once for every row (`None` in a row where the import had no such replay).
pub fn band_columns<'a>(c: &Cols<'a>) -> BandColumns<'a> {
    BAND_COLUMNS.map(|[lo, _, up]| (c.money(lo), c.money(up)))
}

/// The variants' names as imported scenarios name them (the other model's
/// is `on <model>`).
pub fn band_names(compare_model: Option<&str>) -> [String; 5] {
    [
        "as recorded".into(),
        "trimmed".into(),
        "other cache tier".into(),
        "batch".into(),
        format!("on {}", compare_model.unwrap_or("the other model")),
    ]
}
