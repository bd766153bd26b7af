//! The import's result document ([`ImportDoc`]): per session and per day,
//! what was recorded and what it cost at the price book, beside the
//! engine's replays of the same threads, and how its rows add up (per day,
//! all sessions, each compared model and each `--variant`).
//!
//! The importer reads the logs and fills the session rows; everything the
//! renderers show is a field here.

use crate::engine::Bounds;
use crate::pricing::{ModelPrices, Usage};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The import's result document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportDoc {
    /// Every session summed (`day` = "all"): the recorded cost, and each
    /// replay's lower, estimate and upper (first: the answer).
    #[serde(default)]
    pub totals: DayRow,
    /// The compared models, cheapest first by the estimate: each one's cost
    /// of the same replayed threads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranking: Vec<ModelRank>,
    /// Each `--variant` over the threads that could take it: its cost
    /// beside theirs as recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<VariantTotal>,
    /// `claude-code`.
    pub source: String,
    /// Files, lines and bytes read.
    pub files: u64,
    /// Lines read.
    pub lines: u64,
    /// Bytes read.
    pub bytes: u64,
    /// The price book's file name.
    pub price_book: String,
    /// The model the "other model" what-if runs on: the first compared.
    pub compare_model: Option<String>,
    /// Every compared model, in the order of each session's `on_models`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compare_models: Vec<String>,
    /// How "trimmed" was made.
    pub trim: String,
    /// Per session, by start.
    pub sessions: Vec<SessionRow>,
    /// Per day (UTC, of the session's start).
    pub days: Vec<DayRow>,
    /// Requests on models the book does not price, per model.
    pub unpriced: Vec<Unpriced>,
    /// What counting rules removed.
    pub skipped: Skipped,
    /// Lines or files that could not be read.
    pub problems: Vec<Problem>,
    /// Scenario files written, relative to the output directory.
    pub scenarios: Vec<String>,
    /// Recorded cost per session: percentiles with distribution-free 95 %
    /// intervals, over the sessions whose every request is priced.
    pub confidence: Confidence,
    /// The model `--unnamed-model` gave the requests whose log named none,
    /// when any did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unnamed_model: Option<UnnamedModel>,
}

/// Requests priced on a model their log did not name (`--unnamed-model`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnnamedModel {
    /// The model they were priced as.
    pub model: String,
    /// How many requests.
    pub requests: u64,
}

/// A what-if's replay of some threads beside the same threads as recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Paired {
    /// The what-if.
    pub cost: Band,
    /// The same threads replayed as recorded.
    pub as_recorded: Band,
}

impl std::ops::Add for Paired {
    type Output = Paired;
    fn add(self, o: Paired) -> Paired {
        Paired {
            cost: self.cost + o.cost,
            as_recorded: self.as_recorded + o.as_recorded,
        }
    }
}

/// One `--variant` over every replayed thread that could take it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantTotal {
    /// The variant as given.
    pub variant: crate::scenario::combined::WhatIfVariant,
    /// Its cost over those threads: lower, estimate, upper.
    pub cost: Band,
    /// The same threads replayed as recorded.
    pub as_recorded: Band,
    /// `cost.estimate ÷ as_recorded.estimate − 1`; none when that is zero.
    pub versus_as_recorded: Option<Decimal>,
    /// Sessions with a thread that took it.
    pub sessions: u64,
}

/// One compared model: the cost of every replayed thread moved onto it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRank {
    /// The model id.
    pub model: String,
    /// The replayed threads on it, summed: lower, estimate, upper.
    pub cost: Band,
    /// The same threads as recorded (each request on its own model).
    pub as_recorded: Band,
    /// `cost.estimate ÷ as_recorded.estimate − 1`; none when that is zero.
    pub versus_as_recorded: Option<Decimal>,
    /// Sessions whose threads were replayed on it.
    pub sessions: u64,
    /// How it caches: the tiers its price book entry has.
    pub cache: String,
}

impl super::Document for ImportDoc {
    const KIND: &'static str = "import";
}

/// What the imported sessions can say about the cost of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Confidence {
    /// Sessions used (every request priced).
    pub sessions: u64,
    /// Confidence of the intervals (0.95).
    pub level: f64,
    /// Sessions a distribution-free p99 budget at that confidence needs (299).
    pub needed_for_p99: u64,
    /// p50, p90, p99 of the recorded cost per session.
    pub percentiles: Vec<crate::analysis::confidence::Stated>,
}

/// The engine's replay of a session's threads that carry tool results.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct WhatIfs {
    /// Replayed as recorded: raw results, the recorded cache tier.
    pub as_recorded: Band,
    /// With results trimmed.
    pub trimmed: Band,
    /// On the other cache tier (1 hour if 5 minutes was recorded, and back).
    pub other_tier: Option<Band>,
    /// In batch.
    pub batch: Option<Band>,
    /// On the other model.
    pub other_model: Option<Band>,
}

/// A replayed cost: the band and the central estimate inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Band {
    /// Fewest tokens (bytes ÷ the calibration's p90, or ÷ 4).
    pub lower: Decimal,
    /// The calibration's pooled bytes per token; without a calibration,
    /// the middle of the band.
    pub estimate: Decimal,
    /// Most tokens (bytes ÷ the calibration's p10, or × 1.3).
    pub upper: Decimal,
}

impl std::ops::Add for Band {
    type Output = Band;
    fn add(self, o: Band) -> Band {
        Band {
            lower: self.lower + o.lower,
            estimate: self.estimate + o.estimate,
            upper: self.upper + o.upper,
        }
    }
}

impl Band {
    /// A band from the replay's bounds and, when calibrated, the replay at the estimate.
    pub fn of(b: Bounds, estimate: Option<Decimal>) -> Band {
        Band {
            lower: b.lower,
            estimate: estimate.unwrap_or_else(|| ((b.lower + b.upper) / Decimal::TWO).normalize()),
            upper: b.upper,
        }
    }
}

impl WhatIfs {
    pub fn plus(&self, o: &WhatIfs) -> WhatIfs {
        let opt = |a: Option<Band>, b: Option<Band>| match (a, b) {
            (Some(a), Some(b)) => Some(a + b),
            (a, None) => a,
            (None, b) => b,
        };
        WhatIfs {
            as_recorded: self.as_recorded + o.as_recorded,
            trimmed: self.trimmed + o.trimmed,
            other_tier: opt(self.other_tier, o.other_tier),
            batch: opt(self.batch, o.batch),
            other_model: opt(self.other_model, o.other_model),
        }
    }
}

/// One session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRow {
    /// Session id.
    pub session: String,
    /// Project (log directory name).
    pub project: String,
    /// First request, RFC 3339.
    pub started: Option<String>,
    /// Threads: the main thread, subagents, compaction calls.
    pub threads: u64,
    /// Requests (each counted once).
    pub requests: u64,
    /// Tool results sent to the model.
    pub tool_results: u64,
    /// Their bytes.
    pub result_bytes: u64,
    /// Bytes of the other context that entered (user messages, attachments).
    #[serde(default)]
    pub other_context_bytes: u64,
    /// Prompt growth of its replayed threads that nothing in the log
    /// accounts for (a changed system prompt, tools added mid-session).
    #[serde(default)]
    pub unmeasured: Unmeasured,
    /// Its replayed threads on a provider that caches every prefix on its
    /// own (OpenAI, Google), whose replay reads the share of the previous
    /// prompt the log shows read from the cache: the estimate at that share
    /// (`cache_hit_share` in the thread's scenario), the upper bound at its
    /// p10 (`cache_hit_share_p10`), the lower bound reading it all.
    #[serde(default, skip_serializing_if = "crate::input::is_zero")]
    pub cache_hit_share_threads: u64,
    /// Images in them.
    pub images: u64,
    /// Documents in them.
    pub documents: u64,
    /// Automatic compactions (boundaries and summariser calls).
    pub compactions: u64,
    /// Recorded usage, all threads.
    pub usage: Usage,
    /// Recorded cost of the priced requests; none (`null`) when no request
    /// is priced, never a $0 that was not spent.
    pub recorded_cost: Option<Decimal>,
    /// Requests whose model the book does not price (not in `recorded_cost`).
    pub unpriced_requests: u64,
    /// Recorded cost of the replayed threads (to compare with `what_if`).
    pub replayed_recorded_cost: Decimal,
    /// The engine's replays, when the session's threads could be replayed.
    pub what_if: Option<WhatIfs>,
    /// Its replayed threads on each compared model (`compare_models`'
    /// order), lower, estimate and upper; none where a thread could not be.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on_models: Vec<Option<Band>>,
    /// Its replayed threads under each `--variant` (the document's
    /// `variants` order), beside the same threads as recorded; none where no
    /// thread could take it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Option<Paired>>,
}

/// One day.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct DayRow {
    /// YYYY-MM-DD (UTC).
    pub day: String,
    /// Sessions started that day.
    pub sessions: u64,
    /// Their requests.
    pub requests: u64,
    /// Their recorded usage.
    pub usage: Usage,
    /// Their recorded cost (priced requests); none when no request is priced.
    pub recorded_cost: Option<Decimal>,
    /// Unpriced requests.
    pub unpriced_requests: u64,
    /// Recorded cost of the replayed threads.
    pub replayed_recorded_cost: Decimal,
    /// The replays, summed, when a session of the day was replayed.
    pub what_if: Option<WhatIfs>,
}

/// Requests on a model the book does not price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unpriced {
    /// The model id as logged.
    pub model: String,
    /// Why: not in the book, or a price it needs is missing.
    pub reason: String,
    /// Requests.
    pub requests: u64,
    /// Their usage.
    pub usage: Usage,
}

/// Something in the logs that could not be imported, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// The file (relative to the path given).
    pub file: String,
    /// 1-based line; 0 for the file as a whole.
    pub line: u64,
    /// What is wrong (never the line's text).
    pub what: String,
}

/// What counting rules removed, for the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Skipped {
    /// Further lines of a message already counted (one per content block).
    pub repeated_lines: u64,
    /// Messages logged again in another file (resumed sessions).
    pub duplicate_messages: u64,
    /// `<synthetic>` lines with zero usage (errors, interruptions).
    pub synthetic: u64,
    /// Tool results logged again (resumed sessions).
    pub duplicate_results: u64,
    /// Lines of types that carry no usage (progress, snapshots …).
    pub other_lines: u64,
}

/// Prompt growth the log does not account for (a system prompt that
/// changed, tools added mid-session, content the log does not keep).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Unmeasured {
    /// Steps whose prompt grew beyond what entered by more than the
    /// importer's threshold, and by more than what entered.
    pub steps: u64,
    /// By how much, in tokens, summed.
    pub tokens: u64,
}

impl Unmeasured {
    /// The steps with unmeasured tokens (one count per request), and their tokens summed.
    pub fn of(per_request: &[u64]) -> Unmeasured {
        per_request
            .iter()
            .filter(|t| **t > 0)
            .fold(Unmeasured::default(), |u, t| Unmeasured {
                steps: u.steps + 1,
                tokens: u.tokens.saturating_add(*t),
            })
    }

    /// Both summed.
    pub fn plus(self, o: Unmeasured) -> Unmeasured {
        Unmeasured {
            steps: self.steps + o.steps,
            tokens: self.tokens.saturating_add(o.tokens),
        }
    }
}

/// A session row with nothing in it (a table's columns are named by one).
pub fn empty_row() -> SessionRow {
    SessionRow {
        session: String::new(),
        project: String::new(),
        started: None,
        threads: 0,
        requests: 0,
        tool_results: 0,
        result_bytes: 0,
        other_context_bytes: 0,
        unmeasured: Default::default(),
        cache_hit_share_threads: 0,
        images: 0,
        documents: 0,
        compactions: 0,
        usage: Usage::default(),
        recorded_cost: None,
        unpriced_requests: 0,
        replayed_recorded_cost: Decimal::ZERO,
        what_if: None,
        on_models: Vec::new(),
        variants: Vec::new(),
    }
}

/// Rows of the same session id (a session read in several groups) as one.
pub fn merge_rows(rows: Vec<SessionRow>) -> Vec<SessionRow> {
    let mut out: Vec<SessionRow> = Vec::with_capacity(rows.len());
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows {
        match at.get(&r.session) {
            None => {
                at.insert(r.session.clone(), out.len());
                out.push(r);
            }
            Some(&i) => {
                let m = &mut out[i];
                m.started = match (m.started.take(), r.started) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                m.threads += r.threads;
                m.requests += r.requests;
                m.tool_results += r.tool_results;
                m.result_bytes += r.result_bytes;
                m.other_context_bytes += r.other_context_bytes;
                m.unmeasured = m.unmeasured.plus(r.unmeasured);
                m.cache_hit_share_threads += r.cache_hit_share_threads;
                m.images += r.images;
                m.documents += r.documents;
                m.compactions += r.compactions;
                m.usage = m.usage.plus(&r.usage);
                m.recorded_cost = add_costs(m.recorded_cost, r.recorded_cost);
                m.unpriced_requests += r.unpriced_requests;
                m.replayed_recorded_cost += r.replayed_recorded_cost;
                m.what_if = match (m.what_if, r.what_if) {
                    (Some(a), Some(b)) => Some(a.plus(&b)),
                    (a, b) => a.or(b),
                };
                m.on_models = add_bands(std::mem::take(&mut m.on_models), r.on_models);
                m.variants = add_bands(std::mem::take(&mut m.variants), r.variants);
            }
        }
    }
    out
}

/// Two recorded costs added: none only when neither was priced.
pub fn add_costs(a: Option<Decimal>, b: Option<Decimal>) -> Option<Decimal> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    }
}

/// Two lists of bands added place by place (an empty list: none yet).
pub fn add_bands<T: std::ops::Add<Output = T>>(
    a: Vec<Option<T>>,
    b: Vec<Option<T>>,
) -> Vec<Option<T>> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    a.into_iter()
        .zip(b)
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => Some(x + y),
            (x, y) => x.or(y),
        })
        .collect()
}

impl DayRow {
    /// An empty row named `day`.
    pub fn named(day: String) -> DayRow {
        DayRow {
            day,
            ..DayRow::default()
        }
    }

    /// Adds another row's sessions, requests, usage, costs and replays.
    pub fn add(&mut self, o: &DayRow) {
        self.sessions += o.sessions;
        self.requests += o.requests;
        self.usage = self.usage.plus(&o.usage);
        self.recorded_cost = add_costs(self.recorded_cost, o.recorded_cost);
        self.unpriced_requests += o.unpriced_requests;
        self.replayed_recorded_cost += o.replayed_recorded_cost;
        if let Some(w) = &o.what_if {
            self.what_if = Some(match self.what_if {
                Some(x) => x.plus(w),
                None => *w,
            });
        }
    }
}

/// Each `--variant`'s cost of the sessions with a thread that took it,
/// beside the same sessions as recorded.
pub fn variant_totals(
    variants: &[(
        crate::scenario::combined::WhatIfVariant,
        Option<ModelPrices>,
    )],
    rows: &[SessionRow],
) -> Vec<VariantTotal> {
    variants
        .iter()
        .enumerate()
        .map(|(i, (v, _))| {
            let (mut cost, mut as_recorded, mut sessions) = (Band::default(), Band::default(), 0);
            for r in rows {
                if let Some(Some(p)) = r.variants.get(i) {
                    cost = cost + p.cost;
                    as_recorded = as_recorded + p.as_recorded;
                    sessions += 1;
                }
            }
            VariantTotal {
                variant: v.clone(),
                cost,
                as_recorded,
                versus_as_recorded: crate::analysis::relative_change(
                    cost.estimate,
                    as_recorded.estimate,
                ),
                sessions,
            }
        })
        .collect()
}

/// Each compared model's cost of the sessions replayed on it, cheapest
/// first by the estimate (then by id).
pub fn ranking(compare: &[ModelPrices], rows: &[SessionRow]) -> Vec<ModelRank> {
    let mut out: Vec<ModelRank> = compare
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut cost = Band::default();
            let mut as_recorded = Band::default();
            let mut sessions = 0;
            for r in rows {
                if let (Some(Some(b)), Some(w)) = (r.on_models.get(i), r.what_if) {
                    cost = cost + *b;
                    as_recorded = as_recorded + w.as_recorded;
                    sessions += 1;
                }
            }
            ModelRank {
                model: m.model.clone(),
                cost,
                as_recorded,
                versus_as_recorded: crate::analysis::relative_change(
                    cost.estimate,
                    as_recorded.estimate,
                ),
                sessions,
                cache: m.cache_rule().to_string(),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        a.cost
            .estimate
            .cmp(&b.cost.estimate)
            .then_with(|| a.model.cmp(&b.model))
    });
    out
}

/// The days summed.
pub fn total(days: &[DayRow]) -> DayRow {
    let mut t = DayRow::named("all".into());
    for d in days {
        t.add(d);
    }
    t
}

pub fn days(rows: &[SessionRow]) -> Vec<DayRow> {
    let mut out: BTreeMap<String, DayRow> = BTreeMap::new();
    for r in rows {
        let day = r
            .started
            .as_deref()
            .map_or("unknown".to_string(), |t| t.chars().take(10).collect());
        let one = DayRow {
            sessions: 1,
            requests: r.requests,
            usage: r.usage,
            recorded_cost: r.recorded_cost,
            unpriced_requests: r.unpriced_requests,
            replayed_recorded_cost: r.replayed_recorded_cost,
            what_if: r.what_if,
            ..DayRow::named(day.clone())
        };
        out.entry(day.clone())
            .or_insert_with(|| DayRow::named(day))
            .add(&one);
    }
    out.into_values().collect()
}
