//! The import summary: per session and per day, what was recorded and what
//! it cost at the price book, next to the engine's replay of the same
//! threads with results trimmed, on the other cache tier, in batch, and on
//! another model. A model the book does not price is an "unpriced" line with
//! its token counts, never $0.

use super::write::{self, ScenarioSpec, Trim};
use super::{Import, Problem, Session, Thread, Usage};
use crate::analysis::replay::{replay, ReplayBook, ThreadTrace};
use crate::document::import::{
    add_bands, days, empty_row, merge_rows, ranking, total, variant_totals, Confidence, ImportDoc,
    SessionRow, Unpriced,
};
use crate::error::InputError;
use crate::input::SourceText;
use crate::output::name::FileName;
use crate::pricing::book::NotPriced;
use crate::pricing::{ModelPrices, PriceBook};
use crate::scenario::CheckedTrace;
use rust_decimal::Decimal;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Options of the summary.
pub struct Options<'a> {
    /// The source's command-line name.
    pub source: &'a str,
    /// How trimmed results are made.
    pub trim: Trim,
    /// The models to compare, as given: ids or patterns (`claude-*`, `*`).
    pub compare: &'a [String],
    /// The user's combined what-ifs (`--variant`), checked against the book.
    pub variants: &'a [super::variant::WhatIfVariant],
    /// The price date.
    pub today: jiff::civil::Date,
    /// A saved calibration to apply instead of each thread's own fit.
    pub calibration: Option<&'a crate::import::calibrate::Calibration>,
    /// The files it came from, for the scenarios' comments.
    pub calibration_name: &'a str,
    /// The model of the requests whose log names none (`--unnamed-model`).
    pub unnamed_model: Option<&'a str>,
}

/// A file the import writes, relative to the output directory.
pub struct OutFile {
    /// Relative path.
    pub path: PathBuf,
    /// Contents.
    pub bytes: Vec<u8>,
    /// True for the trace CSV (marker: its header), false for TOML.
    pub csv: bool,
}

/// A session worked out by [`Summary::prepare`], to be added in order.
pub struct Prepared {
    problems: Vec<Problem>,
    first_file: Option<String>,
    row: SessionRow,
    unpriced: Vec<(String, String, Usage)>,
    /// The threads written.
    threads: Vec<WrittenThread>,
    /// Measured steps per model family, for a saved calibration.
    observations: Vec<(String, Vec<crate::import::calibrate::Observation>)>,
    /// New turns per model family, for a saved calibration.
    breaks: Vec<(String, crate::import::calibrate::TurnBreaks)>,
    /// Each request's cost and the threads written, for a dataset.
    replayed: super::dataset::tables::Replayed,
    /// A thread had no fit of its own and none was saved: it waits for its
    /// family's fit over the import's other threads ([`Summary::defer`]).
    wants_family: bool,
}

/// A thread of a prepared session, to be written.
struct WrittenThread {
    name: FileName,
    csv: Vec<u8>,
    toml: String,
    /// Its model is priced, and it was replayed.
    replayed: bool,
    /// Its bands for a live page's first answer.
    page: PageBands,
}

/// A replayed thread's bands for a live page's first answer: each
/// variant's beside the thread as recorded (the import's own, then the
/// page's what-if), or `None` when the what-if was not replayed with them
/// (no page, or not on this thread).
type PageBands = Option<Vec<Option<crate::document::import::Paired>>>;

/// What [`Summary::prepare`] works out of a thread before anything is
/// written or replayed ([`Summary::fit_thread`]).
struct ThreadFit {
    model: String,
    model_prices: Option<ModelPrices>,
    own: Vec<crate::import::calibrate::Observation>,
    family: String,
    lifetime: i64,
    breaks: crate::import::calibrate::TurnBreaks,
    calibration: Option<(crate::import::calibrate::Fit, String)>,
}

/// The price book's entries a session's models look up, each once.
struct SessionPrices<'s, 'a> {
    summary: &'s Summary<'a>,
    priced: BTreeMap<String, Result<ModelPrices, String>>,
}

impl SessionPrices<'_, '_> {
    /// A model's prices, or why it has none.
    fn get(&mut self, model: &str) -> Result<ModelPrices, String> {
        let summary = self.summary;
        self.priced
            .entry(model.to_string())
            .or_insert_with(|| summary.prices(model))
            .clone()
    }

    /// The other models a thread's requests ran on, when every one is priced.
    fn others(&mut self, t: &Thread, model: &str) -> Vec<ModelPrices> {
        let other_models: std::collections::BTreeSet<&str> = t
            .requests
            .iter()
            .map(|r| r.model.as_str())
            .filter(|m| *m != model)
            .collect();
        other_models
            .iter()
            .map(|m| self.get(m).ok())
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default()
    }
}

impl Prepared {
    /// Each request's recorded cost at its own model's prices, summed into
    /// the row; an unpriced request is counted with its reason.
    fn recorded_costs(&mut self, s: &Session, prices: &mut SessionPrices) {
        for t in &s.threads {
            let mut costs = Vec::with_capacity(t.requests.len());
            for r in &t.requests {
                match prices.get(&r.model).and_then(|p| p.cost_of(&r.usage)) {
                    Ok(c) => {
                        *self.row.recorded_cost.get_or_insert(Decimal::ZERO) += c;
                        costs.push(Some(c));
                    }
                    Err(reason) => {
                        self.row.unpriced_requests += 1;
                        self.unpriced.push((r.model.clone(), reason, r.usage));
                        costs.push(None);
                    }
                }
            }
            self.replayed.costs.push(costs);
        }
    }
}

impl Prepared {
    /// The session's row, and what a dataset records of its replay.
    pub fn dataset_parts(&self) -> (&SessionRow, &super::dataset::tables::Replayed) {
        (&self.row, &self.replayed)
    }

    /// Whether a thread of it waits for its family's fit: the session is
    /// [`Summary::defer`]red, and prepared again once every session is read
    /// ([`Summary::settle_families`]).
    pub fn wants_family(&self) -> bool {
        self.wants_family
    }
}

/// The price book the import uses, as written next to the scenarios.
pub const BOOK_FILE: &str = "prices.toml";

/// The models `given` (to the option `flag`) names, in order, each once:
/// an id of the book, or a pattern (`*`, `?`, `[…]`) standing for every id
/// it matches, by id. An id the book lacks, or a pattern matching none, is
/// an error that names what the book has.
pub fn compared_models(
    flag: &str,
    book: &PriceBook,
    book_name: &str,
    given: &[String],
    today: jiff::civil::Date,
) -> Result<Vec<ModelPrices>, InputError> {
    let mut out: Vec<ModelPrices> = Vec::new();
    let add = |out: &mut Vec<ModelPrices>, m: &ModelPrices| {
        if !out.iter().any(|o| o.model == m.model) {
            out.push(m.clone());
        }
    };
    for g in given {
        if !g.contains(['*', '?', '[']) {
            let m = book.get_on(g, today).map_err(|_| {
                InputError::new(format!("{flag} {g}: not in the price book `{book_name}`"))
                    .with_help(crate::error::did_you_mean(
                        g,
                        book.model_ids(),
                        "The price book has",
                    ))
            })?;
            add(&mut out, m);
            continue;
        }
        let pattern = glob::Pattern::new(g).map_err(|e| {
            InputError::new(format!("{flag} {g}: not a pattern: {}", e.msg)).with_help(
                "give a model id, or a pattern such as 'claude-*' or '*' (quote it for the shell)",
            )
        })?;
        let before = out.len();
        for id in book.model_ids().filter(|id| pattern.matches(id)) {
            // A model whose prices start after the price date is left out.
            if let Ok(m) = book.get_on(id, today) {
                add(&mut out, m);
            }
        }
        if out.len() == before && !book.model_ids().any(|id| pattern.matches(id)) {
            return Err(InputError::new(format!(
                "{flag} {g}: matches no model of the price book `{book_name}`"
            ))
            .with_help(crate::error::did_you_mean(
                g.trim_matches(['*', '?']),
                book.model_ids(),
                "The price book has",
            )));
        }
    }
    Ok(out)
}

/// `--unnamed-model MODEL`: one model the book prices on the price date.
fn unnamed_model(
    model: &str,
    book: &PriceBook,
    book_name: &str,
    today: jiff::civil::Date,
) -> Result<(), InputError> {
    if model.contains(['*', '?', '[']) {
        return Err(InputError::new(format!(
            "--unnamed-model {model}: a pattern, where one model is needed"
        ))
        .with_help("give the id of the model the logs ran on, e.g. --unnamed-model gpt-5-codex"));
    }
    compared_models(
        "--unnamed-model",
        book,
        book_name,
        &[model.to_string()],
        today,
    )
    .map(|_| ())
}

/// The summary, built one session at a time: each session's row is kept,
/// its files are handed back to be written and then forgotten, so memory
/// does not grow with the size of the logs.
pub struct Summary<'a> {
    book_src: &'a SourceText,
    book: PriceBook,
    book_file: crate::scenario::InputFile,
    opts: &'a Options<'a>,
    /// The models compared, in the order given (patterns: by id).
    compare: Vec<ModelPrices>,
    /// The user's what-ifs, each with its model's prices when it names one.
    variants: Vec<(super::variant::WhatIfVariant, Option<ModelPrices>)>,
    rows: Vec<SessionRow>,
    unpriced: BTreeMap<String, Unpriced>,
    scenarios: Vec<String>,
    emitted: std::collections::HashSet<String>,
    problems: Vec<Problem>,
    observations: BTreeMap<String, Vec<crate::import::calibrate::Observation>>,
    breaks: BTreeMap<String, crate::import::calibrate::TurnBreaks>,
    /// Once every session is read: each family's fit over the import's
    /// threads, for a thread too short for its own.
    families: Option<crate::import::calibrate::Calibration>,
    /// Sessions deferred (by id and first log file): whether each was the
    /// first of its id, so that it names its files as it would have.
    deferred: BTreeMap<(String, Option<String>), bool>,
    /// The replayed threads an import's live page carries, while they fit.
    page: Option<PageThreads>,
    /// Requests whose log named no model, priced as `--unnamed-model`.
    named: u64,
}

/// The replayed threads a live page carries (session id, the name they were
/// replayed by, scenario, trace), while their bytes stay within a limit,
/// and its first answer's rows, while every thread has its bands.
struct PageThreads {
    threads: Vec<PageThread>,
    bytes: usize,
    limit: usize,
    /// The page's what-if, replayed beside the import's own variants.
    what_if: Option<(super::variant::WhatIfVariant, Option<ModelPrices>)>,
    /// Each kept thread's row of the first answer
    /// ([`tokencast_web::import_row`]); `None` once one has none.
    rows: Option<Vec<SessionRow>>,
}

/// What an import's live page carries: its threads, and the rows of its
/// first answer when the import's replays gave every thread's.
pub struct PageInputs {
    pub threads: Vec<PageThread>,
    pub rows: Option<Vec<SessionRow>>,
}

/// One replayed thread for a page: its session's id, the name it was
/// replayed by, its scenario and its trace.
pub type PageThread = (String, String, String, String);

impl<'a> Summary<'a> {
    /// A summary priced with `book_src`.
    pub fn new(book_src: &'a SourceText, opts: &'a Options<'a>) -> Result<Summary<'a>, InputError> {
        let book = PriceBook::parse(book_src)?;
        let compare = compared_models(
            "--compare-model",
            &book,
            &book_src.name,
            opts.compare,
            opts.today,
        )?;
        if let Some(m) = opts.unnamed_model {
            unnamed_model(m, &book, &book_src.name, opts.today)?;
        }
        let variants = opts
            .variants
            .iter()
            .map(|v| {
                let on = v
                    .model
                    .as_deref()
                    .and_then(|m| book.get_on(m, opts.today).ok().cloned());
                (v.clone(), on)
            })
            .collect();
        Ok(Summary {
            variants,
            book_src,
            book,
            book_file: crate::scenario::input_file(book_src),
            opts,
            compare,
            rows: Vec::new(),
            unpriced: BTreeMap::new(),
            scenarios: Vec::new(),
            emitted: std::collections::HashSet::new(),
            observations: BTreeMap::new(),
            breaks: BTreeMap::new(),
            problems: Vec::new(),
            families: None,
            deferred: BTreeMap::new(),
            page: None,
            named: 0,
        })
    }

    /// Gives the requests whose log names no model the `--unnamed-model`
    /// (when one was given), counting them.
    pub fn name_unnamed(&mut self, sessions: &mut [super::Session]) {
        if let Some(model) = self.opts.unnamed_model {
            for s in sessions {
                self.named += s.name_unnamed(model);
            }
        }
    }

    /// Keeps each replayed thread's scenario and trace for a live page
    /// while they take at most `limit` bytes; the page's `what_if`
    /// ([`tokencast_web::page_what_if`]), when given, is replayed beside the
    /// import's own variants, for the page's first answer.
    pub fn keep_for_page(
        &mut self,
        limit: usize,
        what_if: Option<(super::variant::WhatIfVariant, Option<ModelPrices>)>,
    ) {
        self.page = Some(PageThreads {
            threads: Vec::new(),
            bytes: 0,
            limit,
            rows: what_if.as_ref().map(|_| Vec::new()),
            what_if,
        });
    }

    /// The first model compared (`--compare-model`), as the book names it.
    pub fn first_compared(&self) -> Option<&str> {
        self.compare.first().map(|m| m.model.as_str())
    }

    /// What a page carries, or the bytes its threads took past the limit.
    pub fn page_threads(&mut self) -> Option<Result<PageInputs, usize>> {
        let p = self.page.take()?;
        Some(if p.bytes > p.limit {
            Err(p.bytes)
        } else {
            Ok(PageInputs {
                threads: p.threads,
                rows: p.rows,
            })
        })
    }

    /// Holds back a session one of whose threads [`Prepared::wants_family`]:
    /// its measured steps count towards its family's fit now, and it keeps
    /// its place among sessions of the same id.
    pub fn defer(&mut self, p: Prepared) {
        self.observe(p.observations, p.breaks);
        let id = p.row.session.clone();
        let first = self.emitted.insert(id.clone());
        self.deferred.insert((id, p.first_file), first);
    }

    /// Every session is read: the families' fits are settled, and the
    /// deferred sessions can be prepared again (each thread too short for a
    /// fit of its own then takes its family's, where the import has one).
    pub fn settle_families(&mut self) {
        self.families = Some(self.calibration());
    }

    fn observe(
        &mut self,
        observations: Vec<(String, Vec<crate::import::calibrate::Observation>)>,
        breaks: Vec<(String, crate::import::calibrate::TurnBreaks)>,
    ) {
        for (family, obs) in observations {
            self.observations.entry(family).or_default().extend(obs);
        }
        for (family, b) in breaks {
            let e = self.breaks.entry(family).or_default();
            *e = e.plus(b);
        }
    }

    /// A model's entry in force, or why it is unpriced.
    fn prices(&self, model: &str) -> Result<ModelPrices, String> {
        self.book
            .priced_on(model, self.opts.today)
            .map_err(|why| match why {
                _ if model == super::UNNAMED_MODEL => {
                    "no model in the log (--unnamed-model)".to_string()
                }
                NotPriced::Lacks(what) => format!("the price book gives no {what}"),
                _ => "not in the price book".to_string(),
            })
    }

    /// Works out a session: its row, the unpriced requests, and for every
    /// thread with tool results its trace CSV and scenario TOML (each
    /// checked by loading it as `simulate` would, and replayed by the
    /// engine for the what-ifs). Pure, so sessions are prepared in parallel.
    pub fn prepare(&self, s: &Session) -> Result<Prepared, InputError> {
        let mut prices = SessionPrices {
            summary: self,
            priced: BTreeMap::new(),
        };
        let mut p = Prepared {
            replayed: Default::default(),
            problems: Vec::new(),
            first_file: s.files.first().cloned(),
            row: session_row(s),
            unpriced: Vec::new(),
            threads: Vec::new(),
            observations: Vec::new(),
            breaks: Vec::new(),
            wants_family: false,
        };
        // A thread of one request (a compaction call) has nothing to replay.
        let threads: Vec<(&Thread, ThreadFit)> = s
            .threads
            .iter()
            .filter(|t| t.requests.len() >= 2)
            .map(|t| (t, self.fit_thread(t, &mut prices)))
            .collect();
        // Before every log is read, a thread too short for a fit of its own
        // holds its session back: its measured steps count towards the
        // family's fit now, and the session is prepared once that is
        // settled. Nothing is written or replayed for it before then (a
        // session's main thread, prepared and then thrown away, was most
        // of the work of a held-back session).
        if self.families.is_none() && threads.iter().any(|(_, f)| f.calibration.is_none()) {
            p.wants_family = true;
            for (_, f) in threads {
                p.observations.push((f.family.clone(), f.own));
                p.breaks.push((f.family, f.breaks));
            }
            return Ok(p);
        }
        p.recorded_costs(s, &mut prices);
        for (t, fit) in threads {
            self.prepare_thread(s, t, fit, &mut prices, &mut p);
        }
        p.replayed.threads = p.threads.len() as u64;
        Ok(p)
    }

    /// What a thread's replay is fitted with: its model and prices, its
    /// measured steps, its family, its cache lifetime, how often a new turn
    /// broke its cache, and the calibration it takes (none: it waits for
    /// its family's).
    fn fit_thread(&self, t: &Thread, prices: &mut SessionPrices) -> ThreadFit {
        let model = t
            .requests
            .first()
            .map_or("unknown".to_string(), |r| r.model.clone());
        let model_prices = prices.get(&model).ok();
        let own = crate::import::calibrate::observations(t);
        let family = crate::import::calibrate::family(&model);
        let lifetime = write::cache_lifetime_ms(write::fitted(t).one_hour, model_prices.as_ref());
        let breaks = crate::import::calibrate::TurnBreaks::of(t, lifetime);
        let calibration = self.calibration_for(&model, &own);
        ThreadFit {
            model,
            model_prices,
            own,
            family,
            lifetime,
            breaks,
            calibration,
        }
    }

    /// One thread's scenario and trace, its calibration observations, and
    /// (when its model is priced) its replays added to the session's row.
    fn prepare_thread(
        &self,
        s: &Session,
        t: &Thread,
        fit: ThreadFit,
        prices: &mut SessionPrices,
        p: &mut Prepared,
    ) {
        let ThreadFit {
            model,
            model_prices,
            own,
            family,
            lifetime,
            breaks: own_breaks,
            calibration,
        } = fit;
        let name = t.file_name();
        let trace_name = format!("{name}.csv");
        let spec = ScenarioSpec {
            source: self.opts.source,
            session: s,
            prices_path: "../prices.toml",
            prices: model_prices.as_ref(),
            trace_file: &trace_name,
            trim: self.opts.trim,
            compare: &self.compare,
            variants: &self.variants,
            calibration,
            others: prices.others(t, &model),
            turn_breaks: self.turn_breaks_for(&family, own_breaks),
            warm_expiries: crate::import::calibrate::WarmExpiries::of(t, lifetime),
            hit_share: write::fitted_hit_share(t, lifetime, model_prices.as_ref()),
        };
        // What the log cannot measure is taken from the recorded prompt,
        // where the fit shows it (the replay of every what-if carries it).
        let unmeasured = spec.calibration.as_ref().map_or_else(
            || vec![0; t.requests.len()],
            |(fit, _)| crate::import::calibrate::unmeasured_tokens(t, fit),
        );
        // The trace is checked as it is written, and the replay takes it
        // so: the summary is of the rows read, not of the text read back.
        let at = format!("{}/{}", FileName::from_untrusted(&s.id), name.as_str());
        let (csv, trace) = CheckedTrace::write(
            &trace_name,
            &format!("{at}.csv"),
            &write::trace_rows(t, self.opts.trim, &unmeasured),
        );
        p.row.unmeasured = p
            .row
            .unmeasured
            .plus(crate::import::calibrate::Unmeasured::of(&unmeasured));
        p.observations.push((family.clone(), own));
        p.breaks.push((family, own_breaks));
        let doc = write::scenario_doc(t, &spec);
        let toml = doc.to_string();
        // A trace that does not check is read again by the replay, which
        // says why as it would for the file.
        let thread_trace = match &trace {
            Ok(checked) => ThreadTrace::Checked(checked),
            Err(_) => ThreadTrace::Csv(csv.as_bytes()),
        };
        let page = match model_prices {
            Some(_) => {
                match self.replay_thread(s, t, (&name, &at, (&toml, doc), thread_trace), prices, p)
                {
                    Some(page) => page,
                    None => return,
                }
            }
            None => None,
        };
        if model_prices.is_some() && spec.hit_share.is_some() {
            p.row.cache_hit_share_threads += 1;
        }
        if model_prices.is_none() && p.replayed.unpriced_model.is_none() {
            p.replayed.unpriced_model = Some(model);
        }
        p.threads.push(WrittenThread {
            name,
            csv: csv.into_bytes(),
            toml,
            replayed: model_prices.is_some(),
            page,
        });
    }

    /// Bytes per token for a thread on `model`: the saved calibration's fit
    /// for its family, else the thread's own (when it has enough steps).
    fn calibration_for(
        &self,
        model: &str,
        own: &[crate::import::calibrate::Observation],
    ) -> Option<(crate::import::calibrate::Fit, String)> {
        match self.opts.calibration.and_then(|c| c.fit_for(model)) {
            Some(fit) => Some((
                fit,
                format!(
                    "the calibration {} (family {})",
                    self.opts.calibration_name,
                    crate::import::calibrate::family(model)
                ),
            )),
            None => crate::import::calibrate::fit(own)
                .map(|f| (f, "this thread's recorded prompt growth".to_string()))
                .or_else(|| {
                    let fit = self.families.as_ref()?.fit_for(model)?;
                    Some((
                        fit,
                        format!(
                            "the other threads of this import (family {}): too few measured steps of its own",
                            crate::import::calibrate::family(model)
                        ),
                    ))
                }),
        }
    }

    /// How often a new turn broke the cache: the saved calibration's count
    /// for the family, else the thread's own.
    fn turn_breaks_for(
        &self,
        family: &str,
        own: crate::import::calibrate::TurnBreaks,
    ) -> Option<(crate::import::calibrate::TurnBreaks, String)> {
        let saved = self
            .opts
            .calibration
            .and_then(|c| c.families.get(family))
            .map(crate::import::calibrate::TurnBreaks::from)
            .filter(|b| b.turns > 0);
        match saved {
            Some(b) => Some((
                b,
                format!(
                    "the calibration {} (family {family})",
                    self.opts.calibration_name
                ),
            )),
            None => {
                (own.turns > 0).then(|| (own, "this thread's recorded cache reads".to_string()))
            }
        }
    }

    /// Replays a written thread (name, scenario as written and as a
    /// document, trace) and adds its
    /// what-ifs to the session's row, with its bands for a live page's first
    /// answer; a thread whose recorded numbers no scenario can hold (a
    /// corrupt log) is listed as a problem, not written (`None`), and the
    /// import goes on.
    fn replay_thread(
        &self,
        s: &Session,
        t: &Thread,
        (name, at, (toml, doc), trace): (
            &FileName,
            &str,
            (&str, toml_edit::DocumentMut),
            ThreadTrace,
        ),
        prices: &mut SessionPrices,
        p: &mut Prepared,
    ) -> Option<PageBands> {
        let with = ReplayBook {
            src: self.book_src,
            book: &self.book,
            file: &self.book_file,
            today: self.opts.today,
        };
        let names: Vec<&str> = self.variants.iter().map(|(v, _)| v.name.as_str()).collect();
        // The page's what-if beside the import's own variants, written into
        // the scenario as the page writes it: one replay gives the summary's
        // figures and the page's first answer. A variant's figures do not
        // depend on the others' (the one setting the replay takes from all
        // of them, whether any reads a fitted cache share, the what-if has
        // only from the thread's own "as recorded"). Where that replay
        // fails, the thread is replayed as written, and the page replays it
        // on its own.
        let with_page = self
            .page
            .as_ref()
            .and_then(|page| page.what_if.as_ref())
            .and_then(|(v, on)| {
                let toml = tokencast_web::with_import_variant_in(doc, v, on.as_ref()).ok()?;
                let all: Vec<&str> = names.iter().copied().chain([v.name.as_str()]).collect();
                let (ifs, on_models, custom) =
                    replay(at, &toml, trace, &with, &self.compare, &all).ok()?;
                let own = custom[..names.len()].to_vec();
                Some(((ifs, on_models, own), custom))
            });
        let (replayed, page) = match with_page {
            Some((r, bands)) => (Ok(r), Some(bands)),
            None => (replay(at, toml, trace, &with, &self.compare, &names), None),
        };
        let ifs = match replayed {
            Ok((ifs, on_models, custom)) => {
                p.row.on_models = add_bands(std::mem::take(&mut p.row.on_models), on_models);
                p.row.variants = add_bands(std::mem::take(&mut p.row.variants), custom);
                ifs
            }
            Err(e) => {
                p.problems.push(Problem {
                    file: s.files.first().cloned().unwrap_or_default(),
                    line: 0,
                    what: format!("thread {name} not written: {}", e.message()),
                });
                return None;
            }
        };
        let recorded: Decimal = t
            .requests
            .iter()
            .filter_map(|r| prices.get(&r.model).ok()?.cost_of(&r.usage).ok())
            .sum();
        p.row.replayed_recorded_cost += recorded;
        p.row.what_if = Some(match p.row.what_if {
            Some(w) => w.plus(&ifs),
            None => ifs,
        });
        Some(page)
    }

    /// Adds a prepared session and returns its files to write. A session id
    /// seen before (a resumed session's own file) names its files with the
    /// file's stem in front.
    pub fn accept(&mut self, p: Prepared) -> Vec<OutFile> {
        self.problems.extend(p.problems);
        let id = p.row.session.clone();
        // A deferred session's steps were counted when it was held back.
        let deferred = self.deferred.remove(&(id.clone(), p.first_file.clone()));
        if deferred.is_none() {
            self.observe(p.observations, p.breaks);
        }
        for (model, reason, usage) in p.unpriced {
            let e = self
                .unpriced
                .entry(model.clone())
                .or_insert_with(|| Unpriced {
                    model,
                    reason,
                    requests: 0,
                    usage: Usage::default(),
                });
            e.requests += 1;
            e.usage = e.usage.plus(&usage);
        }
        let mut row = p.row;
        row.recorded_cost = row.recorded_cost.map(|c| c.normalize());
        row.replayed_recorded_cost = row.replayed_recorded_cost.normalize();
        let first = deferred.unwrap_or_else(|| self.emitted.insert(id.clone()));
        let prefix = if first {
            None
        } else {
            p.first_file
                .as_deref()
                .and_then(|f| Path::new(f).file_stem())
                .map(|n| n.to_string_lossy().into_owned())
        };
        // Every path component comes from the log (session id, agent id,
        // file stem): each goes through `FileName`, so the files stay inside
        // the output folder whatever the log says.
        let dir = PathBuf::from(FileName::from_untrusted(&id).as_str());
        let mut files = Vec::new();
        for WrittenThread {
            name,
            csv,
            toml,
            replayed,
            page: bands,
        } in p.threads
        {
            if let (Some(page), true) = (self.page.as_mut(), replayed) {
                page.bytes = page.bytes.saturating_add(csv.len() + toml.len());
                if page.bytes <= page.limit {
                    page.threads.push((
                        id.clone(),
                        format!("{}/{}", FileName::from_untrusted(&id), name.as_str()),
                        toml.clone(),
                        String::from_utf8_lossy(&csv).into_owned(),
                    ));
                    page.rows = match (page.rows.take(), bands) {
                        (Some(mut rows), Some(bands)) => {
                            rows.push(tokencast_web::import_row(&id, bands));
                            Some(rows)
                        }
                        _ => None,
                    };
                } else {
                    page.threads = Vec::new();
                    page.rows = None;
                }
            }
            let (stem, toml) = match &prefix {
                None => (name, toml),
                Some(prefix) => {
                    let stem = FileName::from_untrusted(&format!("{prefix}-{name}"));
                    let toml = write::with_trace_file(&toml, &format!("{stem}.csv"));
                    (stem, toml)
                }
            };
            let scenario_path = dir.join(stem.with_suffix(".toml"));
            self.scenarios
                .push(scenario_path.to_string_lossy().into_owned());
            files.push(OutFile {
                path: dir.join(stem.with_suffix(".csv")),
                bytes: csv,
                csv: true,
            });
            files.push(OutFile {
                path: scenario_path,
                bytes: toml.into_bytes(),
                csv: false,
            });
        }
        self.rows.push(row);
        files
    }

    /// Bytes per token per model family over every thread read so far.
    pub fn calibration(&self) -> crate::import::calibrate::Calibration {
        crate::import::calibrate::calibration_of(&self.observations, &self.breaks)
    }

    /// The document, with the import's counts and problems.
    pub fn finish(self, import: &Import) -> ImportDoc {
        let mut rows = merge_rows(self.rows);
        rows.sort_by(|a, b| a.started.cmp(&b.started).then(a.session.cmp(&b.session)));
        let priced: Vec<Decimal> = rows
            .iter()
            .filter(|r| r.unpriced_requests == 0)
            .filter_map(|r| r.recorded_cost)
            .collect();
        let confidence = Confidence {
            sessions: priced.len() as u64,
            level: 0.95,
            needed_for_p99: crate::analysis::confidence::runs_needed(0.99, 0.95),
            percentiles: crate::analysis::confidence::state(&priced, 0.95),
        };
        let days = days(&rows);
        let totals = total(&days);
        let ranking = ranking(&self.compare, &rows);
        let variants = variant_totals(&self.variants, &rows);
        ImportDoc {
            variants,
            totals,
            ranking,
            source: import.source.clone(),
            files: import.files,
            lines: import.lines,
            bytes: import.bytes,
            // A book of several files keeps every name.
            price_book: Path::new(&self.book_src.name)
                .file_name()
                .filter(|_| !self.book_src.name.contains(" + "))
                .map_or(self.book_src.name.clone(), |n| {
                    n.to_string_lossy().into_owned()
                }),
            compare_model: self.compare.first().map(|c| c.model.clone()),
            compare_models: self.compare.iter().map(|c| c.model.clone()).collect(),
            trim: self.opts.trim.describe(),
            sessions: rows,
            days,
            unpriced: self.unpriced.into_values().collect(),
            skipped: import.skipped,
            problems: import
                .problems
                .iter()
                .cloned()
                .chain(self.problems)
                .collect(),
            scenarios: self.scenarios,
            confidence,
            unnamed_model: self
                .opts
                .unnamed_model
                .filter(|_| self.named > 0)
                .map(|model| crate::document::import::UnnamedModel {
                    model: model.to_string(),
                    requests: self.named,
                }),
        }
    }
}

fn session_row(s: &Session) -> SessionRow {
    let (sent, other): (Vec<&super::ToolResult>, Vec<&super::ToolResult>) = s
        .threads
        .iter()
        .flat_map(write::sent_results)
        .partition(|r| r.kind == super::ContextKind::Tool);
    SessionRow {
        session: s.id.clone(),
        project: s.project.clone(),
        started: s.started().map(str::to_string),
        threads: s.threads.len() as u64,
        requests: s.requests().count() as u64,
        tool_results: sent.len() as u64,
        result_bytes: sent.iter().map(|r| r.bytes).sum(),
        other_context_bytes: other.iter().map(|r| r.bytes).sum(),
        images: sent.iter().map(|r| r.images).sum(),
        documents: sent.iter().map(|r| r.documents).sum(),
        compactions: s
            .compactions
            .max(s.threads.iter().filter(|t| t.compaction).count() as u64),
        usage: s.requests().fold(Usage::default(), |a, r| a.plus(&r.usage)),
        // Costs and replays are added as the threads are priced.
        ..empty_row()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn recorded_cost_prices_each_write_tier_apart() {
        // claude-sonnet-4-5 (LiteLLM 1.110.2): input 3, output 15, writes 3.75 (5m)
        // and 6 (1h), read 0.3 per million.
        let p = ModelPrices {
            model: "claude-sonnet-4-5".into(),
            input: d("3"),
            output: d("15"),
            cache_write_5m: Some(d("3.75")),
            cache_write_1h: Some(d("6")),
            cache_read: Some(d("0.3")),
            ..ModelPrices::default()
        };
        let u = Usage {
            input: 1000,
            cache_write_5m: 2000,
            cache_write_1h: 3000,
            cache_read: 10000,
            output: 500,
        };
        // 1,000×3 + 2,000×3.75 + 3,000×6 + 10,000×0.3 + 500×15 = 39,000 per million.
        assert_eq!(p.cost_of(&u), Ok(d("0.039")));
        // A 1-hour write is never billed at the 5-minute price.
        let mut no_1h = p.clone();
        no_1h.cache_write_1h = None;
        assert_eq!(no_1h.cost_of(&u), Err("cache_write_1h".into()));
    }
}

#[cfg(test)]
mod held_back {
    use super::*;

    /// Claude Code lines of a thread whose `results` tool results of 600,
    /// 1,200, … bytes each grow the next prompt by a third of their bytes
    /// in tokens (each result a measured step); `sidechain` marks its lines
    /// as a subagent's, its first one handing over a task.
    fn thread(sid: &str, results: u32, sidechain: bool, from: u32) -> Vec<serde_json::Value> {
        let at = |s: u32| format!("2026-11-20T10:{:02}:{:02}.000Z", s / 60, s % 60);
        let tag = if sidechain { "s" } else { "m" };
        let mut lines = vec![serde_json::json!({"type": "user", "sessionId": sid,
            "version": "2.1.126", "isSidechain": sidechain, "parentUuid": null,
            "uuid": format!("{tag}0"), "timestamp": at(from),
            "message": {"role": "user", "content": "a task"}})];
        let (mut prompt, mut previous) = (5_000u64, 0u64);
        for k in 1..=results {
            let usage = if k == 1 {
                serde_json::json!({"input_tokens": 10, "cache_creation_input_tokens": prompt - 10,
                    "cache_read_input_tokens": 0, "output_tokens": 50})
            } else {
                serde_json::json!({"input_tokens": 10,
                    "cache_creation_input_tokens": prompt - previous,
                    "cache_read_input_tokens": previous - 10, "output_tokens": 50})
            };
            lines.push(serde_json::json!({"type": "assistant", "sessionId": sid,
                "version": "2.1.126", "isSidechain": sidechain,
                "parentUuid": format!("{tag}{}", 2 * k - 2), "uuid": format!("{tag}{}", 2 * k - 1),
                "timestamp": at(from + 2 * k - 1), "requestId": format!("req_{tag}{k}"),
                "message": {"model": "claude-sonnet-4-5", "id": format!("{tag}{k}"),
                    "role": "assistant", "content": [{"type": "tool_use",
                    "id": format!("t{tag}{k}"), "name": "Read", "input": {}}],
                    "usage": usage}}));
            let size = 600 * u64::from(k);
            lines.push(serde_json::json!({"type": "user", "sessionId": sid,
                "version": "2.1.126", "isSidechain": sidechain,
                "parentUuid": format!("{tag}{}", 2 * k - 1), "uuid": format!("{tag}{}", 2 * k),
                "timestamp": at(from + 2 * k), "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": format!("t{tag}{k}"),
                     "content": "x".repeat(size as usize)}]}}));
            previous = prompt;
            prompt += 50 + size / 3;
        }
        lines
    }

    /// A session whose main thread has a fit of its own (eight measured
    /// steps) and whose subagent, logged after it, is too short for one
    /// (two): before every log is read the session is held back, and
    /// nothing of it is written or replayed, its main thread included, as
    /// all of it is prepared again once the family's fit is settled; its
    /// measured steps count towards that fit now.
    #[test]
    fn a_held_back_session_is_neither_written_nor_replayed_before_it_is_prepared_again() {
        let sid = "11111111-2222-3333-4444-555555555555";
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("proj");
        std::fs::create_dir_all(&logs).unwrap();
        let lines: Vec<String> = thread(sid, 9, false, 0)
            .into_iter()
            .chain(thread(sid, 3, true, 100))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(logs.join(format!("{sid}.jsonl")), lines.concat()).unwrap();
        let mut sessions = Vec::new();
        crate::import::read(
            crate::import::Source::ClaudeCode,
            &[dir.path().to_path_buf()],
            &crate::import::Filter::default(),
            |s| -> Result<(), InputError> {
                sessions.extend(s);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(sessions.len(), 1);
        let s = &sessions[0];
        let lengths: Vec<usize> = s.threads.iter().map(|t| t.requests.len()).collect();
        assert_eq!(lengths, [9, 3], "the main thread first, then the subagent");
        let book = SourceText {
            name: "anthropic.toml".into(),
            text: include_str!("../../scenarios/prices/litellm-1.110.2/anthropic.toml").into(),
        };
        let opts = Options {
            source: "claude-code",
            trim: Trim::default(),
            compare: &[],
            variants: &[],
            today: jiff::civil::date(2026, 12, 1),
            calibration: None,
            calibration_name: "",
            unnamed_model: None,
        };
        let mut summary = Summary::new(&book, &opts).unwrap();
        let p = summary.prepare(s).unwrap();
        assert!(p.wants_family());
        assert!(
            p.threads.is_empty(),
            "{} thread(s) written",
            p.threads.len()
        );
        assert_eq!(p.replayed.threads, 0);
        assert!(p.replayed.costs.is_empty(), "nothing priced yet");
        // Both threads' measured steps (eight and two) are the family's.
        let steps: Vec<usize> = p.observations.iter().map(|(_, o)| o.len()).collect();
        assert_eq!(steps, [8, 2]);
        summary.defer(p);
        summary.settle_families();
        let again = summary.prepare(s).unwrap();
        assert!(!again.wants_family());
        assert_eq!(
            again.threads.len(),
            2,
            "both threads written once the fit is settled"
        );
    }
}
