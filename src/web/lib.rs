//! tokencast's engine for a report's page.
//!
//! A simulation page carries its scenario, price book and trace, and this
//! crate built for `wasm32-unknown-unknown`. When the reader changes an
//! assumption, the page sends a [`Request`]: the scenario's text and the
//! changes, each a dotted scenario key (`assumptions.runs_per_day`,
//! `variants.2.cache`) and its new value. [`run`] writes the changes into the
//! scenario's own text (its comments kept), checks it exactly as
//! `tokencast simulate` does, replays it with the same engine and returns
//! the page's figures as display text, worded by the same code as the
//! command line's page ([`tokencast_core::view`]). The changed text is in the
//! answer too, so the scenario the reader downloads is the one computed.
//!
//! The module speaks JSON through four exported functions: a page's script
//! copies a message into memory the module allocated ([`tc_alloc`]), loads
//! its inputs once ([`tc_load`], a [`Request`]), then sends each change
//! ([`tc_run`], a [`Change`]) and reads the answer ([`tc_output`]).

// Errors carry their source text for located messages; they are the cold path.
#![allow(clippy::result_large_err)]

use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use tokencast_core::document::import::{Paired, SessionRow};
use tokencast_core::document::{Contents, Envelope, SimulationDoc};
use tokencast_core::error::InputError;
use tokencast_core::input::SourceText;
use tokencast_core::pricing::ModelPrices;
use tokencast_core::scenario::combined::WhatIfVariant;
use tokencast_core::scenario::{CheckedTrace, Files, Given, InMemory, Recorded, Scenario};
use tokencast_core::view::page::{Block, ChartView, Fact, Headline};
use tokencast_core::view::simulation::{blocks, facts, headline};
use tokencast_core::view::Fmt;

/// What a page asks: its inputs as they were when it was made, and the
/// reader's changes.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Request {
    /// The scenario file's name, as the page's footer gives it.
    pub name: String,
    /// The scenario's text.
    pub scenario: String,
    /// Every file the scenario names (price book, trace), by the path it
    /// gives them.
    pub files: BTreeMap<String, String>,
    /// The day the page reads dated prices on (`YYYY-MM-DD`): the day it
    /// was made when the scenario's price date was that day, else a day
    /// with the same prices in force (`PriceBook::settled_day`); none when
    /// no price in its book is dated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub today: Option<String>,
    /// Whether the page showed every request (`simulate --all-rows`).
    #[serde(default)]
    pub all_rows: bool,
    /// Dotted scenario key → new value, as the control gives it.
    #[serde(default)]
    pub changes: BTreeMap<String, String>,
    /// JSON Pointers (RFC 6901) into the `simulate --format json` document
    /// whose values the page shows (`/comparison/saving`); each is answered
    /// in [`Answer::Ok`]'s `figures`.
    #[serde(default)]
    pub figures: Vec<String>,
    /// Models to rank by the cost of the same run (`simulate --models`),
    /// with their prices: the page ranks them again at every change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compared: Vec<tokencast_core::pricing::ModelPrices>,
    /// A forecast's page: the runs it draws (`tokencast forecast`), answered
    /// with the forecast's figures instead of the simulation's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forecast: Option<ForecastRun>,
    /// A corpus forecast's page (`tokencast forecast DIR`): the sessions'
    /// costs, forecast again at the runs a day and working days a week the
    /// reader sets (changes `runs_per_day`, `working_days_per_week`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus: Option<CorpusRun>,
    /// An import's page (`tokencast import`): every replayed thread, replayed
    /// again on the reader's what-if (changes `variant.model`,
    /// `variant.results`, `variant.cache`, `variant.mode`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<ImportRun>,
}

/// What an import's page replays: the threads the import replayed, as it
/// wrote them, and the price book beside them.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ImportRun {
    /// Each replayed thread, in the import's order.
    pub threads: Vec<ImportThread>,
    /// The price book's name, as the import names it.
    pub book_name: String,
    /// Its text.
    pub book: String,
    /// The what-if's model as the page was made: a model of the book, or
    /// [`AS_RECORDED`] (each request on the model that served it).
    pub model: String,
    /// The import's own `--variant`s, as given: the page's what-if comes
    /// after them.
    #[serde(default)]
    pub given: Vec<String>,
    /// The import's `--trim` rule, as given (empty: none).
    #[serde(default)]
    pub trim: String,
    /// The command's words that made the page, without its `--variant`s
    /// (`tokencast import claude-code PATH --out DIR`).
    pub command: Vec<String>,
}

/// One replayed thread of an import.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ImportThread {
    /// Its session's id (a resumed session's threads share it).
    pub session: String,
    /// The name the import replayed it by (`<session>/<thread>`).
    pub name: String,
    /// Its scenario, as written.
    pub toml: String,
    /// Its trace, as written.
    pub csv: String,
}

/// The name of an import page's own what-if (a page whose import has a
/// `--variant` of that name refuses to add it).
pub const WHAT_IF: &str = "what if";

/// What a corpus forecast's page forecasts.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct CorpusRun {
    /// The sessions' costs per variant, and where they came from.
    pub corpus: tokencast_core::analysis::corpus::Corpus,
    /// Days, runs a day, working days, seed and weights, as the page was made.
    pub spec: tokencast_core::analysis::corpus::CorpusSpec,
    /// The command's words that made the page, without the runs a day and
    /// the working days (`tokencast forecast DIR --runs 100000 --seed 1`).
    pub command: Vec<String>,
}

/// What a forecast page forecasts, as its command line gave it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ForecastRun {
    /// Calls a run, runs, seed, method and budget.
    pub spec: tokencast_core::analysis::forecast::ForecastSpec,
    /// Only these capabilities are drawn (`--capability`); empty: all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
}

/// A change the page asks about, once its [`Request`] is loaded: only the
/// changes and the pointers travel, not the inputs.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct Change {
    /// Dotted scenario key → new value.
    #[serde(default)]
    pub changes: BTreeMap<String, String>,
    /// As [`Request::figures`].
    #[serde(default)]
    pub figures: Vec<String>,
}

/// What the engine answers: the page's figures, or what is wrong.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "status", rename_all = "snake_case")]
// One answer is made per change and serialized at once: its size is moot.
#[allow(clippy::large_enum_variant)]
pub enum Answer {
    /// The changed scenario's figures.
    Ok {
        /// The scenario's text with the changes written in (a corpus
        /// forecast's page: the command that gives the same figures).
        scenario: String,
        /// The page's question, when a change words it anew.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        question: Option<String>,
        /// The Answer box.
        headline: Option<Headline>,
        /// The key assumptions.
        facts: Vec<Fact>,
        /// The tables and lists, in page order (chart places left out).
        blocks: Vec<Block>,
        /// Every chart, in page order, drawn as the command line draws it.
        charts: Vec<ChartView>,
        /// The value at each pointer the request asked for, as the
        /// `simulate --format json` document of the changed scenario has it
        /// (`null` where it has none).
        figures: BTreeMap<String, serde_json::Value>,
    },
    /// A change the scenario does not accept, with where and why.
    Invalid {
        /// The located message, as the command line would explain it.
        message: String,
        /// The scenario's text with the changes written in, when they could
        /// be (the command line refuses it with the same message).
        scenario: Option<String>,
    },
}

/// Answers one request: writes the changes into the scenario, checks it,
/// replays it and words its figures.
pub fn run(req: &Request) -> Answer {
    answer(req, None, None)
}

/// A page's loaded request, with its trace read and checked once.
#[derive(Debug)]
pub struct Session {
    req: Request,
    trace: Option<CheckedTrace>,
}

impl Session {
    /// Loads the page's inputs, and answers them unchanged.
    pub fn load(req: Request) -> (Session, Answer) {
        let seen = std::cell::RefCell::new(None);
        let answer = answer(&req, None, Some(&seen));
        let trace = seen.into_inner().and_then(|(rel, text): (String, String)| {
            let src = SourceText {
                name: rel.clone(),
                text,
            };
            CheckedTrace::parse(&rel, &src).ok()
        });
        (Session { req, trace }, answer)
    }

    /// Answers one change (it replaces the previous one).
    pub fn answer(&mut self, change: Change) -> Answer {
        self.req.changes = change.changes;
        self.req.figures = change.figures;
        answer(&self.req, self.trace.as_ref(), None)
    }
}

/// The trace file a check read: its name and text.
type SeenTrace = std::cell::RefCell<Option<(String, String)>>;

fn answer(req: &Request, trace: Option<&CheckedTrace>, seen: Option<&SeenTrace>) -> Answer {
    if let Some(run) = &req.import {
        return import_answer(req, run, None);
    }
    if let Some(run) = &req.corpus {
        return corpus(req, run).unwrap_or_else(|e| Answer::Invalid {
            message: explain(&e),
            scenario: None,
        });
    }
    let text = match with_changes(&req.name, &req.scenario, &req.changes) {
        Ok(text) => text,
        Err(e) => {
            return Answer::Invalid {
                message: explain(&e),
                scenario: None,
            }
        }
    };
    match compute(req, &text, trace, seen) {
        Ok(answer) => answer,
        Err(e) => Answer::Invalid {
            message: explain(&e),
            scenario: Some(text),
        },
    }
}

/// An import page's answer before any change, from the bands the import's
/// own replay of each thread gave for the page's what-if ([`page_what_if`],
/// replayed beside the import's variants): one row a page thread, in the
/// threads' order, as [`import_row`] makes them. It is [`run`]'s answer
/// (tested) without replaying every thread a second time. A request that is
/// not an import's, or has changes, is answered by [`run`].
pub fn first_import_answer(req: &Request, replayed: Vec<SessionRow>) -> Answer {
    match &req.import {
        Some(run) if req.changes.is_empty() => import_answer(req, run, Some(replayed)),
        _ => run(req),
    }
}

/// The what-if an import page starts with (no change made), as its first
/// answer replays it beside the import's own `--variant`s: the variant and
/// the prices of the model it names, if any.
pub fn page_what_if(req: &Request) -> Result<(WhatIfVariant, Option<ModelPrices>), InputError> {
    let run = req
        .import
        .as_ref()
        .ok_or_else(|| InputError::new("the page is not an import's"))?;
    let (text, _) = import_variant(run, &BTreeMap::new())?;
    let book = tokencast_core::pricing::PriceBook::parse(&SourceText {
        name: run.book_name.clone(),
        text: run.book.clone(),
    })?;
    let mut variants = page_variants(run, &text, &book, page_today(req)?)?;
    Ok(variants.pop().expect("the page's variant is the last"))
}

/// A thread's row of an import page's answer: its session, and the bands
/// of each variant (the import's own, then the page's) replayed beside the
/// thread as recorded.
pub fn import_row(session: &str, bands: Vec<Option<Paired>>) -> SessionRow {
    let mut row = tokencast_core::document::import::empty_row();
    row.session = session.to_string();
    row.variants = tokencast_core::document::import::add_bands(Vec::new(), bands);
    row
}

/// The price date an import page reads its book on.
fn page_today(req: &Request) -> Result<jiff::civil::Date, InputError> {
    match req.today.as_deref() {
        Some(d) => d.parse().map_err(|_| {
            InputError::new(format!("the page's price date `{d}` is not a date"))
                .with_help("give it as YYYY-MM-DD")
        }),
        // No price of the book is dated: any day reads the same prices.
        None => Ok(jiff::civil::Date::MAX),
    }
}

/// The import's own `--variant`s and then the page's `text`, checked as the
/// command line checks them, each with its model's prices on `today`.
fn page_variants(
    run: &ImportRun,
    text: &str,
    book: &tokencast_core::pricing::PriceBook,
    today: jiff::civil::Date,
) -> Result<Vec<(WhatIfVariant, Option<ModelPrices>)>, InputError> {
    // Checked after the import's own, as the command line checks them.
    let mut given = run.given.clone();
    given.push(text.to_string());
    Ok(WhatIfVariant::check_all(&given, book, today)?
        .into_iter()
        .map(|v| {
            let on = v
                .model
                .as_deref()
                .and_then(|m| book.get_on(m, today).ok().cloned());
            (v, on)
        })
        .collect())
}

/// An import page's answer; `replayed`: each page thread's row, when the
/// import's own replays gave them (the first answer).
fn import_answer(req: &Request, run: &ImportRun, replayed: Option<Vec<SessionRow>>) -> Answer {
    let command = import_variant(run, &req.changes).and_then(|(text, trim)| {
        let mut words: Vec<String> = Vec::with_capacity(run.command.len() + 4);
        let mut given = run.command.iter();
        while let Some(w) = given.next() {
            // The page's trim rule takes the place of the import's.
            if w == "--trim" {
                given.next();
                continue;
            }
            if w == "--out" {
                if !trim.is_empty() {
                    words.extend(["--trim".to_string(), trim.clone()]);
                }
                words.extend(["--variant".to_string(), text.clone()]);
            }
            words.push(w.clone());
        }
        let command = shlex::try_join(words.iter().map(String::as_str)).map_err(|e| {
            InputError::new(format!(
                "the page's command cannot be written for a shell: {e}"
            ))
        })?;
        Ok((text, trim, format!("{command}\n")))
    });
    match command {
        Ok((text, trim, command)) => import(req, run, (&text, &trim), &command, replayed)
            .unwrap_or_else(|e| Answer::Invalid {
                message: explain(&e),
                scenario: Some(command),
            }),
        Err(e) => Answer::Invalid {
            message: explain(&e),
            scenario: None,
        },
    }
}

fn compute(
    req: &Request,
    text: &str,
    trace: Option<&CheckedTrace>,
    seen: Option<&SeenTrace>,
) -> Result<Answer, InputError> {
    let today: Option<jiff::civil::Date> = req
        .today
        .as_deref()
        .map(|d| {
            d.parse().map_err(|_| {
                InputError::new(format!("the page's price date `{d}` is not a date"))
                    .with_help("give it as YYYY-MM-DD")
            })
        })
        .transpose()?;
    let files = InMemory(
        req.files
            .iter()
            .filter(|(rel, _)| trace.is_none_or(|t| t.rel() != rel.as_str()))
            .map(|(rel, text)| {
                (
                    rel.clone(),
                    SourceText {
                        name: rel.clone(),
                        text: text.clone(),
                    },
                )
            })
            .collect(),
    );
    let src = SourceText {
        name: req.name.clone(),
        text: text.to_string(),
    };
    let given = Given {
        checked_trace: trace,
        ..Given::default()
    };
    let scenario = match seen {
        Some(seen) => {
            let recorded = Recorded::new(&files, usize::MAX);
            let checked = Scenario::check_with(&src, &recorded, today, given);
            if let (Some(rel), Some(text)) = (
                recorded.name_of("trace file"),
                recorded.text_of("trace file"),
            ) {
                *seen.borrow_mut() = Some((rel, text));
            }
            checked?
        }
        None => Scenario::check_with(&src, &files as &dyn Files, today, given)?,
    };
    if let Some(run) = &req.forecast {
        return forecast(req, text, &scenario, run);
    }
    let mut doc = SimulationDoc::build(&scenario, Contents::simulate(&scenario, req.all_rows));
    if !req.compared.is_empty() {
        doc.models = Some(tokencast_core::analysis::models::rank(
            &scenario,
            &doc.simulation,
            &req.compared,
        ));
    }
    let fmt = Fmt::new(
        doc.simulation.currency.clone(),
        doc.simulation.price_date.clone(),
    );
    let figures = figures_of(&doc, &req.figures)?;
    let (blocks, charts) = drawn(&fmt, blocks(&fmt, &doc), |f, slot| {
        tokencast_charts::simulation_slot(f, &doc, slot)
    });
    Ok(Answer::Ok {
        scenario: text.to_string(),
        question: None,
        headline: headline(&fmt, &doc),
        facts: facts(&fmt, &doc.simulation),
        blocks,
        charts,
        figures,
    })
}

/// A forecast page's answer: the changed scenario forecast as the command
/// line forecasts it (the same draws, seed and method).
fn forecast(
    req: &Request,
    text: &str,
    scenario: &Scenario,
    run: &ForecastRun,
) -> Result<Answer, InputError> {
    use tokencast_core::analysis::forecast as f;
    let (sampler, planned) = f::sampler_for(scenario, &run.spec)?;
    let sampler = sampler.only(&run.capabilities);
    let never = std::sync::atomic::AtomicBool::new(false);
    let mut doc = match f::run(scenario, &run.spec, &sampler, &never, &|_| {}) {
        Ok(doc) => doc,
        Err(f::ForecastError::Input(e)) => return Err(e),
        Err(f::ForecastError::Interrupted) => {
            return Err(InputError::new("the forecast stopped before its last run"))
        }
    };
    doc.planned = planned;
    let fmt = Fmt::new(doc.currency.clone(), doc.price_date.clone());
    let figures = figures_of(&doc, &req.figures)?;
    let (blocks, charts) = drawn(
        &fmt,
        tokencast_core::view::forecast::blocks(&fmt, &doc),
        |f, slot| tokencast_charts::forecast_slot(f, &doc, slot),
    );
    Ok(Answer::Ok {
        scenario: text.to_string(),
        question: None,
        headline: None,
        facts: Vec::new(),
        blocks,
        charts,
        figures,
    })
}

/// A corpus forecast's answer: the same sessions forecast at the reader's
/// runs a day and working days; its "scenario" is the command that gives
/// the same figures.
fn corpus(req: &Request, run: &CorpusRun) -> Result<Answer, InputError> {
    let mut runs_per_day = run.spec.runs_per_day;
    let mut working_days = run.spec.working_days_per_week;
    let mut team_size = run.spec.team_size;
    for (key, value) in &req.changes {
        let slot = match key.as_str() {
            "runs_per_day" => &mut runs_per_day,
            "working_days_per_week" => &mut working_days,
            "team_size" => &mut team_size,
            _ => {
                return Err(InputError::new(format!(
                    "the change `{key} = {value}` cannot be made: a corpus forecast has no such setting"
                ))
                .with_help("change runs_per_day, team_size or working_days_per_week"))
            }
        };
        *slot = value.trim().parse().map_err(|_| {
            InputError::new(format!("{key} = `{value}` is not a whole number")).with_help(
                "give a whole number of runs a day (1 to 100,000) or working days a week (1 to 7)",
            )
        })?;
    }
    let spec = tokencast_core::analysis::corpus::CorpusSpec {
        weights: run.spec.weights.clone(),
        ..tokencast_core::analysis::corpus::CorpusSpec::checked(
            run.spec.days,
            runs_per_day,
            working_days,
            run.spec.seed,
        )?
        .with_team(team_size)?
    };
    let doc = run.corpus.forecast(&spec);
    let fmt = Fmt::new(doc.currency.clone(), doc.price_date.clone());
    let figures = figures_of(&doc, &req.figures)?;
    let (blocks, charts) = drawn(
        &fmt,
        tokencast_core::view::corpus::blocks(&fmt, &doc),
        |f, slot| tokencast_charts::corpus_slot(f, &doc, slot),
    );
    let mut words = run.command.clone();
    words.extend([
        "--runs-per-day".into(),
        runs_per_day.to_string(),
        "--working-days".into(),
        working_days.to_string(),
    ]);
    if team_size != 1 {
        words.extend(["--team-size".into(), team_size.to_string()]);
    }
    let command = shlex::try_join(words.iter().map(String::as_str)).map_err(|e| {
        InputError::new(format!(
            "the page's command cannot be written for a shell: {e}"
        ))
    })?;
    Ok(Answer::Ok {
        scenario: format!("{command}\n"),
        question: Some(tokencast_core::view::page::with_basis(
            &fmt,
            tokencast_core::view::corpus::question(&doc),
        )),
        headline: None,
        facts: Vec::new(),
        blocks,
        charts,
        figures,
    })
}

/// The `--variant` an import page's changes make: `{ name = "what if",
/// results = …, model = …[, cache = …][, mode = "batch"] }`, as the command
/// line takes it.
/// The `--variant` an import page's changes make: `{ name = "what if",
/// results = …, model = …[, cache = …][, mode = "batch"] }`, as the command
/// line takes it.
/// The trim rule the page's command gives (`--trim`, as written; empty:
/// none), and the rule when the reader changed it (every tool result's
/// trimmed size is then made again from its raw size).
pub type PageTrim = (String, Option<tokencast_core::scenario::trim::Trim>);

/// The `--variant` an import page's changes make (`{ name = "what if",
/// results = …, model = …[, cache = …][, mode = "batch"] }`, as the command
/// line takes it), and the trim rule its command gives (`--trim`, as
/// written; empty: none).
pub fn import_variant(
    run: &ImportRun,
    changes: &BTreeMap<String, String>,
) -> Result<(String, String), InputError> {
    let (mut model, mut results, mut cache, mut mode, mut trim) = (
        run.model.clone(),
        "raw".to_string(),
        String::new(),
        "sync".to_string(),
        run.trim.clone(),
    );
    for (key, value) in changes {
        let slot = match key.as_str() {
            "variant.model" => &mut model,
            "variant.results" => &mut results,
            "variant.cache" => &mut cache,
            "variant.mode" => &mut mode,
            "variant.trim" => &mut trim,
            _ => {
                return Err(InputError::new(format!(
                    "the change `{key} = {value}` cannot be made: an import's what-if has no such setting"
                ))
                .with_help("change variant.model, variant.results, variant.cache, variant.mode or variant.trim"))
            }
        };
        *slot = value.trim().to_string();
    }
    let quoted = |s: &str| toml_edit::Value::from(s).to_string();
    let mut text = format!(
        "{{ name = {}, results = {}",
        quoted(WHAT_IF),
        quoted(&results)
    );
    // "As recorded": each request on the model that served it (no `model`).
    if !model.is_empty() && model != AS_RECORDED {
        text.push_str(&format!(", model = {}", quoted(&model)));
    }
    if !cache.is_empty() && cache != AS_RECORDED {
        text.push_str(&format!(", cache = {}", quoted(&cache)));
    }
    if mode != "sync" {
        text.push_str(&format!(", mode = {}", quoted(&mode)));
    }
    text.push_str(" }");
    Ok((text, trim))
}

/// The page's trim rule when the reader changed it (every tool result's
/// trimmed size is then made again from its raw size), read as the command
/// line reads `--trim`.
fn page_trim(
    run: &ImportRun,
    trim: &str,
) -> Result<Option<tokencast_core::scenario::trim::Trim>, InputError> {
    use tokencast_core::scenario::trim::Trim;
    match (trim == run.trim, trim.is_empty()) {
        (true, _) => Ok(None),
        (false, true) => Ok(Some(Trim::None)),
        (false, false) => Trim::parse(trim).map(Some).ok_or_else(|| {
            InputError::new(format!("--trim {trim}: not a trim rule")).with_help(
                "give the bytes kept per result (--trim 4096) or the share kept (--trim 25%)",
            )
        }),
    }
}

/// The import page's model (and cache) setting that keeps each request on
/// what it was recorded with.
pub const AS_RECORDED: &str = "as recorded";

/// An import's page's answer: every replayed thread replayed again with the
/// reader's what-if as one more variant, written into its scenario as
/// `import --variant` writes it, and totalled as the import totals it.
fn import(
    req: &Request,
    run: &ImportRun,
    (text, trim): (&str, &str),
    command: &str,
    replayed: Option<Vec<SessionRow>>,
) -> Result<Answer, InputError> {
    let trim = page_trim(run, trim)?;
    use tokencast_core::document::import::{merge_rows, variant_totals};
    let today = page_today(req)?;
    let book_src = SourceText {
        name: run.book_name.clone(),
        text: run.book.clone(),
    };
    let book = tokencast_core::pricing::PriceBook::parse(&book_src)?;
    let variants = page_variants(run, text, &book, today)?;
    let rows = match (replayed, trim) {
        // The import replayed the what-if beside its own variants, on the
        // trim rule it wrote the traces with.
        (Some(rows), None) => rows,
        (_, trim) => replay_threads(run, &book_src, &book, today, &variants, trim)?,
    };
    // The import's own variants again (a trim rule moves their trimmed
    // ones), then the page's.
    let totals = variant_totals(&variants, &merge_rows(rows));
    let document = serde_json::json!({ "variants": totals });
    let figures = req
        .figures
        .iter()
        .map(|p| (p.clone(), document.pointer(p).cloned().unwrap_or_default()))
        .collect();
    let fmt = Fmt::new(Default::default(), None);
    // The what-if's row of the table of every variant: its figures' places
    // are those of the import run with the page's command.
    let mut table = tokencast_core::view::page::view(
        &fmt,
        &tokencast_core::view::import::variants(
            "import_what_if",
            tokencast_core::view::import::PAGE,
            &totals,
        ),
    );
    table.rows.drain(..run.given.len());
    Ok(Answer::Ok {
        scenario: command.to_string(),
        question: None,
        headline: None,
        facts: Vec::new(),
        blocks: vec![tokencast_core::view::page::Block::table(table)],
        charts: Vec::new(),
        figures,
    })
}

/// Every thread of an import page replayed with the page's what-if (the
/// last of `variants`) as one more variant, each trace trimmed again by
/// `trim` when the reader changed the rule: one row a thread the engine
/// replays ([`import_row`]), in the threads' order.
fn replay_threads(
    run: &ImportRun,
    book_src: &SourceText,
    book: &tokencast_core::pricing::PriceBook,
    today: jiff::civil::Date,
    variants: &[(WhatIfVariant, Option<ModelPrices>)],
    trim: Option<tokencast_core::scenario::trim::Trim>,
) -> Result<Vec<SessionRow>, InputError> {
    let (variant, on) = variants.last().expect("one variant was given");
    let names: Vec<&str> = variants.iter().map(|(v, _)| v.name.as_str()).collect();
    let file = tokencast_core::scenario::input_file(book_src);
    let with = tokencast_core::analysis::replay::ReplayBook {
        src: book_src,
        book,
        file: &file,
        today,
    };
    // The threads side by side where the engine has threads (the command
    // line's page, made before it is written); on the page itself, in
    // order. Either way the rows are in the threads' order, and an error
    // is the first thread's that has one.
    let replayed = tokencast_core::par::map(&run.threads, |t| {
        let toml = with_import_variant(&t.toml, variant, on.as_ref())?;
        let csv = match trim {
            Some(rule) => std::borrow::Cow::Owned(
                tokencast_core::scenario::trim::retrim(&t.csv, rule).map_err(|e| {
                    InputError::new(format!("{}: the trace does not read: {e}", t.name))
                })?,
            ),
            None => std::borrow::Cow::Borrowed(t.csv.as_str()),
        };
        // A thread the engine cannot replay was not written by the import.
        let Ok((_, _, custom)) = tokencast_core::analysis::replay::replay(
            &t.name,
            &toml,
            tokencast_core::analysis::replay::ThreadTrace::Csv(csv.as_bytes()),
            &with,
            &[],
            &names,
        ) else {
            return Ok(None);
        };
        Ok(Some(import_row(&t.session, custom)))
    });
    replayed.into_iter().filter_map(Result::transpose).collect()
}

/// A thread's scenario with `v` as one more variant, as the import writes a
/// `--variant` on a model (`VariantWriter::combined`): its tier as asked,
/// else the thread's recorded tier as that model offers it.
pub fn with_import_variant(
    toml: &str,
    v: &WhatIfVariant,
    on: Option<&ModelPrices>,
) -> Result<String, InputError> {
    let doc: toml_edit::DocumentMut = toml
        .parse()
        .map_err(|e| InputError::new(format!("a thread's scenario does not read: {e}")))?;
    with_import_variant_in(doc, v, on)
}

/// [`with_import_variant`] on the scenario's document (an import's, as it
/// wrote it, not read back from its text).
pub fn with_import_variant_in(
    mut doc: toml_edit::DocumentMut,
    v: &WhatIfVariant,
    on: Option<&ModelPrices>,
) -> Result<String, InputError> {
    let thread_model = doc
        .get("model")
        .and_then(|m| m.as_str())
        .unwrap_or("")
        .to_string();
    let variants = doc
        .get_mut("variants")
        .and_then(toml_edit::Item::as_array_of_tables_mut)
        .ok_or_else(|| InputError::new("a thread's scenario has no variants"))?;
    let as_recorded = variants
        .iter()
        .find(|t| t.get("name").and_then(|n| n.as_str()) == Some("as recorded"));
    let recorded = as_recorded
        .and_then(|t| t.get("cache").and_then(|c| c.as_str()))
        .unwrap_or("none")
        .to_string();
    // On the thread's own models the what-if keeps what the import fitted
    // for them, as `import --variant` writes it: each request on its own
    // model and the recorded cache shares. Naming the one model the thread
    // ran on stays on it.
    let others = usize::from(as_recorded.is_some_and(|t| t.contains_key("recorded_models")));
    let on = on
        .filter(|m| !tokencast_core::scenario::combined::stays_on(&m.model, &thread_model, others));
    let own: Vec<(&str, toml_edit::Item)> = match (on, as_recorded) {
        (None, Some(t)) => tokencast_core::scenario::combined::OWN_MODEL_KEYS
            .iter()
            .filter_map(|k| t.get(k).map(|v| (*k, v.clone())))
            .collect(),
        _ => Vec::new(),
    };
    if variants
        .iter()
        .any(|t| t.get("name").and_then(|n| n.as_str()) == Some(v.name.as_str()))
    {
        return Err(InputError::new(format!(
            "a variant of the import is named `{}`: the page's what-if cannot be added beside it",
            v.name
        )));
    }
    let mut t = toml_edit::Table::new();
    t.insert("name", toml_edit::value(v.name.as_str()));
    t.insert(
        "results",
        toml_edit::value(match v.results {
            tokencast_core::scenario::Content::Raw => "raw",
            tokencast_core::scenario::Content::Trimmed => "trimmed",
        }),
    );
    t.insert("cache", toml_edit::value(v.cache_on(&recorded, on)));
    if v.mode == tokencast_core::pricing::Mode::Batch {
        t.insert("mode", toml_edit::value("batch"));
    }
    if let Some(s) = &v.service {
        t.insert("service", toml_edit::value(s.as_str()));
    }
    if let Some(m) = on {
        t.insert("model", toml_edit::value(m.model.as_str()));
    }
    for (k, v) in own {
        t.insert(k, v);
    }
    variants.push(t);
    Ok(doc.to_string())
}

/// The value at each of `pointers` in `doc`'s JSON document (`null` where
/// it has none).
fn figures_of<D: tokencast_core::document::Document + Serialize>(
    doc: &D,
    pointers: &[String],
) -> Result<BTreeMap<String, serde_json::Value>, InputError> {
    if pointers.is_empty() {
        return Ok(BTreeMap::new());
    }
    let document = serde_json::to_value(Envelope::of(doc))
        .map_err(|e| InputError::new(format!("the document could not be written as JSON: {e}")))?;
    Ok(pointers
        .iter()
        .map(|p| {
            let v = document
                .pointer(p)
                .cloned()
                .unwrap_or(serde_json::Value::Null);
            (p.clone(), v)
        })
        .collect())
}

/// The page's blocks without their chart places, and the charts `draw`
/// makes at those places, on both canvases, in page order.
fn drawn(
    fmt: &Fmt,
    blocks: Vec<Block>,
    draw: impl Fn(&Fmt, tokencast_core::view::page::ChartSlot) -> Vec<tokencast_charts::Chart>,
) -> (Vec<Block>, Vec<ChartView>) {
    let (slots, blocks): (Vec<Block>, Vec<Block>) =
        blocks.into_iter().partition(|b| b.slot.is_some());
    let charts = slots
        .iter()
        .filter_map(|b| b.slot)
        .flat_map(|slot| tokencast_charts::views(fmt, |f| draw(f, slot)))
        .collect();
    (blocks, charts)
}

/// The located message, in words (no colours, no box drawing).
fn explain(e: &InputError) -> String {
    let mut out = String::new();
    match miette::NarratableReportHandler::new().render_report(&mut out, e) {
        Ok(()) => out.trim_end().to_string(),
        Err(_) => e.to_string(),
    }
}

/// The scenario's text with each change written in at its dotted key: a
/// number segment indexes an array (`variants.2.cache`, counted from 0). A
/// value takes the type of the value it replaces; a new key is a boolean, an
/// integer, a decimal or a string as its text reads.
pub fn with_changes(
    name: &str,
    text: &str,
    changes: &BTreeMap<String, String>,
) -> Result<String, InputError> {
    if changes.is_empty() {
        return Ok(text.to_string());
    }
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        InputError::new(format!("{name} is not valid TOML: {}", e.message()))
    })?;
    for (key, value) in changes {
        set(doc.as_table_mut(), key, value).map_err(|why| {
            InputError::new(format!(
                "the change `{key} = {value}` cannot be made: {why}"
            ))
            .with_help("name a key of the scenario file, with variants counted from 0")
        })?;
    }
    Ok(doc.to_string())
}

fn set(root: &mut toml_edit::Table, key: &str, value: &str) -> Result<(), String> {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err("a key has no empty part".into());
    }
    let (last, path) = parts.split_last().ok_or("the key is empty")?;
    if last.parse::<usize>().is_ok() {
        return Err("a key ends with a name, not a number".into());
    }
    let mut table: &mut dyn toml_edit::TableLike = root;
    let mut i = 0;
    while i < path.len() {
        let part = path[i];
        if let Some(n) = path.get(i + 1).and_then(|p| p.parse::<usize>().ok()) {
            let list = table
                .get_mut(part)
                .and_then(|item| item.as_array_of_tables_mut())
                .ok_or_else(|| format!("`{part}` is not a list of tables in the scenario"))?;
            let len = list.len();
            table = list
                .get_mut(n)
                .ok_or_else(|| format!("`{part}` has {len} entries, counted from 0"))?;
            i += 2;
        } else {
            if part.parse::<usize>().is_ok() {
                return Err(format!("`{part}` follows something that is not a list"));
            }
            if table.get(part).is_none() {
                table.insert(part, toml_edit::Item::Table(toml_edit::Table::new()));
            }
            table = table
                .get_mut(part)
                .and_then(|item| item.as_table_like_mut())
                .ok_or_else(|| format!("`{part}` is a value, not a table"))?;
            i += 1;
        }
    }
    let new = match table.get(last) {
        Some(old) => typed_like(old, value)?,
        None => inferred(value),
    };
    match table.get_mut(last) {
        Some(slot) => {
            // Keep the comment after the value (`runs_per_day = 100  # …`).
            let mut new = new;
            if let Some(old) = slot.as_value() {
                *new.decor_mut() = old.decor().clone();
            }
            *slot = toml_edit::Item::Value(new);
        }
        None => {
            table.insert(last, toml_edit::Item::Value(new));
        }
    }
    Ok(())
}

/// `value` with the type of `old`.
fn typed_like(old: &toml_edit::Item, value: &str) -> Result<toml_edit::Value, String> {
    let v = old
        .as_value()
        .ok_or("a table cannot be replaced by a value")?;
    Ok(match v {
        // A whole number stays one; a decimal where the file has a whole
        // number is for the scenario's check to accept or explain.
        // A share (`25%`) where the file has a number is text the
        // scenario's check reads (a trim rule).
        toml_edit::Value::Integer(_) if value.trim_end().ends_with('%') => value.into(),
        toml_edit::Value::Integer(_) | toml_edit::Value::Float(_) => decimal(value)?,
        toml_edit::Value::Boolean(_) => match value {
            "true" => true.into(),
            "false" => false.into(),
            _ => return Err(format!("`{value}` is not true or false")),
        },
        toml_edit::Value::Array(_) => list(value)?,
        _ => value.into(),
    })
}

/// A list of numbers as a control writes it (`[60000, 90000]`, the
/// brackets optional where the scenario already has a list; `[]` for
/// none), as a TOML array.
fn list(value: &str) -> Result<toml_edit::Value, String> {
    let inner = value.trim();
    let inner = inner
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .unwrap_or(inner);
    let mut out = toml_edit::Array::new();
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        out.push(decimal(part).map_err(|_| format!("`{part}` in `{value}` is not a number"))?);
    }
    Ok(toml_edit::Value::Array(out))
}

/// A decimal as TOML writes it: a whole number stays an integer.
fn decimal(value: &str) -> Result<toml_edit::Value, String> {
    if let Ok(i) = value.parse::<i64>() {
        return Ok(i.into());
    }
    let f: f64 = value
        .parse()
        .map_err(|_| format!("`{value}` is not a number"))?;
    if !f.is_finite() {
        return Err(format!("`{value}` is not a finite number"));
    }
    Ok(f.into())
}

fn inferred(value: &str) -> toml_edit::Value {
    match value {
        "true" => true.into(),
        "false" => false.into(),
        // A list in brackets is a list (the scenario's check explains a
        // value in it that is not a number).
        _ if value.trim_start().starts_with('[') => list(value).unwrap_or_else(|_| value.into()),
        _ => decimal(value).unwrap_or_else(|_| value.into()),
    }
}

thread_local! {
    static OUTPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static LOADED: RefCell<Option<Session>> = const { RefCell::new(None) };
}

/// Memory for a message of `len` bytes; [`tc_load`] or [`tc_run`] takes it back.
#[no_mangle]
pub extern "C" fn tc_alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast()
}

/// Takes back a message from [`tc_alloc`].
///
/// # Safety
/// `ptr` and `len` are exactly what one call of [`tc_alloc`] returned and
/// was given, not yet passed back.
unsafe fn take(ptr: *mut u8, len: usize) -> Box<[u8]> {
    // SAFETY: the caller passes back one allocation of `len` bytes made by
    // `tc_alloc` as a boxed slice; it is owned and freed here, once.
    unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) }
}

/// Keeps the JSON [`Request`] at `ptr` (the page's inputs) for the
/// [`tc_run`]s that follow, and answers it as [`tc_run`] does.
///
/// # Safety
/// As [`tc_run`].
#[no_mangle]
pub unsafe extern "C" fn tc_load(ptr: *mut u8, len: usize) -> usize {
    // SAFETY: forwarded from this function's own contract.
    let bytes = unsafe { take(ptr, len) };
    let answer = match serde_json::from_slice::<Request>(&bytes) {
        Ok(req) => {
            let (session, answer) = Session::load(req);
            LOADED.with(|l| *l.borrow_mut() = Some(session));
            answer
        }
        Err(e) => not_valid(e),
    };
    respond(&answer)
}

/// Answers the JSON [`Change`] at `ptr` (`len` bytes, from [`tc_alloc`])
/// against the loaded request, frees it, and returns the length of the JSON
/// [`Answer`], read at [`tc_output`].
///
/// # Safety
/// `ptr` and `len` must be exactly what one call of [`tc_alloc`] returned and
/// was given, not yet passed back.
#[no_mangle]
pub unsafe extern "C" fn tc_run(ptr: *mut u8, len: usize) -> usize {
    // SAFETY: forwarded from this function's own contract.
    let bytes = unsafe { take(ptr, len) };
    let answer = match serde_json::from_slice::<Change>(&bytes) {
        Ok(change) => LOADED.with(|l| match l.borrow_mut().as_mut() {
            Some(session) => session.answer(change),
            None => Answer::Invalid {
                message: "the page's inputs are not loaded (tc_load comes first)".into(),
                scenario: None,
            },
        }),
        Err(e) => not_valid(e),
    };
    respond(&answer)
}

fn not_valid(e: serde_json::Error) -> Answer {
    Answer::Invalid {
        message: format!("the page's request is not valid: {e}"),
        scenario: None,
    }
}

fn respond(answer: &Answer) -> usize {
    let out = serde_json::to_vec(answer).unwrap_or_else(|e| {
        format!(r#"{{"status":"invalid","message":"the answer could not be written: {e}"}}"#)
            .into_bytes()
    });
    OUTPUT.with(|o| {
        let n = out.len();
        *o.borrow_mut() = out;
        n
    })
}

/// Where the last answer is (valid until the next [`tc_load`] or [`tc_run`]).
#[no_mangle]
pub extern "C" fn tc_output() -> *const u8 {
    OUTPUT.with(|o| o.borrow().as_ptr())
}

/// The engine's version, as the page's footer shows it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[cfg(test)]
mod tests;
