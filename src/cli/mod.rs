//! The steps of each command: check the arguments, load the inputs, build
//! the result document, render every output in memory, then write files.
//!
//! [`args`] is the command line as clap parses it; [`spec`] checks it into
//! typed specs. `main` prints what [`run`] returns and picks the exit code.

pub mod args;
pub mod corpus;
pub mod gate;
mod import;
pub mod spec;

pub use args::Cli;
use args::{
    Command, DiffArgs, DiffFormat, Format, ImportSource, LitellmArgs, LogSource, PageArgs,
    PricesCommand, SimulateArgs, SweepArgs, TraceArgs,
};

use crate::analysis::sweep;
use crate::document::{self, diff, Contents, SimulationDoc};
use crate::error::AppError;
use crate::output::{self, Marker, PlannedFile};
use crate::report::{HtmlOptions, Render, TerminalOptions};
use crate::scenario::Scenario;
use std::path::{Path, PathBuf};
mod forecast;
use forecast::run_forecast;

/// What a successful command produced: stdout bytes and notes for stderr.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Bytes for stdout.
    pub stdout: Vec<u8>,
    /// Lines for stderr (files written).
    pub notes: Vec<String>,
    /// Budget gates crossed: printed last, and the command exits with
    /// [`gate::GATE_EXIT_CODE`].
    pub gates_crossed: Vec<String>,
    /// What the command built and no longer needs.
    pub leftovers: Leftovers,
}

/// What a command built and no longer needs, which a process that ends
/// with the command may leave for its exit to take back: freeing a large
/// trace's rows one by one took 25 ms of a 1,000,000-row simulate's
/// 400 ms. `main` forgets them once the output is written; any other
/// caller drops them as it drops the rest of the [`Outcome`].
#[derive(Default)]
pub struct Leftovers(Vec<Box<dyn std::any::Any>>);

impl Leftovers {
    fn keep(&mut self, value: impl std::any::Any) {
        self.0.push(Box::new(value));
    }
}

impl std::fmt::Debug for Leftovers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Leftovers({})", self.0.len())
    }
}

/// Runs a parsed command.
pub fn run(cli: Cli) -> Result<Outcome, AppError> {
    // Ctrl-C in every command leaves nothing half-written.
    crate::output::interrupt::install();
    match cli.command {
        Command::Simulate(args) => run_simulate(args),
        Command::Sweep(args) => run_sweep(args),
        Command::Diff(args) => run_diff(args),
        Command::Forecast(args) => run_forecast(args),
        Command::Trace(args) => run_trace(args),
        Command::Import(cmd) => {
            use crate::import::Source;
            let (source, args) = match cmd.source {
                Some(LogSource::ClaudeCode(args)) => (Source::ClaudeCode, args),
                Some(LogSource::Codex(args)) => (Source::Codex, args),
                Some(LogSource::Api(args)) => (Source::Api, args),
                Some(LogSource::Otel(args)) => (Source::Otel, args),
                Some(LogSource::Dataset(args)) => (Source::Dataset, args),
                None => return import::run_detected(cmd.args),
            };
            import::run(import::ImportSpec::check(source, &args)?)
        }
        Command::Prices(PricesCommand::Import(ImportSource::Litellm(args))) => run_litellm(args),
    }
}

fn run_litellm(args: LitellmArgs) -> Result<Outcome, AppError> {
    let read_on = match args.read_on {
        Some(d) => spec::date(&d)?,
        None => today().to_string(),
    };
    let src = crate::files::read(&args.file, "LiteLLM price table")?;
    let conversion = crate::pricing::litellm::convert(&src, &args.models, &read_on)?;
    let file = args.file.file_name().map_or("the price table".into(), |n| {
        n.to_string_lossy().into_owned()
    });
    let bytes = conversion.to_toml(&file).into_bytes();
    let mut notes: Vec<String> = conversion
        .models
        .iter()
        .map(|m| {
            // Ids are the table's text: shown escaped, as every name from input.
            let id = crate::output::name::display(&m.id);
            if m.skipped.is_empty() {
                format!("converted {id}")
            } else {
                format!(
                    "converted {id}; not converted: {}",
                    crate::output::name::display(&m.skipped.join(", "))
                )
            }
        })
        .collect();
    notes.extend(conversion.unpriced.iter().map(|id| {
        format!(
            "unpriced: {} has no input or output price per token; left out",
            crate::output::name::display(id)
        )
    }));
    notes.extend(conversion.refused.iter().map(|(id, why)| {
        format!(
            "left out: {}: a price book refuses its prices: {}",
            crate::output::name::display(id),
            crate::output::name::display(why)
        )
    }));
    notes.push(format!("prices read on {read_on}"));
    let mut outcome = match args.out {
        None => write(bytes, Vec::new(), args.force)?,
        Some(path) => write(
            Vec::new(),
            vec![PlannedFile {
                path,
                bytes,
                marker: Marker::Toml,
            }],
            args.force,
        )?,
    };
    outcome.notes.splice(0..0, notes);
    Ok(outcome)
}

/// Columns for terminal tables: `COLUMNS` when set, else the terminal's
/// width, else (output to a file or a pipe) the default.
fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w > 0)
        .or_else(|| comfy_table::Table::new().width().map(usize::from))
        .unwrap_or(crate::report::terminal::DEFAULT_WIDTH)
}

/// `doc` in the stdout format asked for, tables as wide as the terminal;
/// `brief`: only the answer (terminal format).
fn plain_stdout(doc: &impl Render, format: Format, brief: bool) -> Vec<u8> {
    stdout_of(
        doc,
        format,
        &TerminalOptions {
            requests: false,
            width: terminal_width(),
            brief,
            wide: false,
        },
    )
}

/// `doc` in the stdout format asked for.
fn stdout_of(doc: &impl Render, format: Format, terminal: &TerminalOptions) -> Vec<u8> {
    match format {
        Format::Table => doc.terminal(terminal).into_bytes(),
        Format::Json => doc.json(),
        Format::Csv => doc.csv(),
    }
}

/// The HTML page, if the arguments ask for one: the given path, or
/// `reports/<scenario stem><suffix>.html`.
fn page_file(
    doc: &impl Render,
    scenario: &Path,
    page: &PageArgs,
    suffix: &str,
) -> Result<Option<PlannedFile>, AppError> {
    live_page_file(doc, scenario, page, suffix, Err(String::new()))
}

/// [`page_file`] of a page that carries its own engine and its inputs.
fn live_page_file(
    doc: &impl Render,
    scenario: &Path,
    page: &PageArgs,
    suffix: &str,
    live: Result<crate::report::Live, String>,
) -> Result<Option<PlannedFile>, AppError> {
    let (live, still) = match live {
        Ok(l) => (Some(l), None),
        Err(why) => (None, Some(why)),
    };
    if page.no_report {
        return None.map(Ok).transpose();
    }
    let path = page.report.clone().unwrap_or_else(|| {
        let stem = scenario
            .file_stem()
            .map_or("report".into(), |s| s.to_string_lossy().into_owned());
        PathBuf::from("reports").join(format!("{stem}{suffix}.html"))
    });
    let opts = HtmlOptions {
        timestamp: page.timestamp.then(|| {
            jiff::Timestamp::now()
                .strftime("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        }),
        live,
        still: still.filter(|s| !s.is_empty()),
    };
    let bytes = doc
        .html(&opts)
        .map_err(|e| AppError::Render(e.to_string()))?;
    Ok(Some(PlannedFile {
        path,
        bytes,
        marker: Marker::Html,
    }))
}

/// With `--csv DIR`: every table of `doc` as `DIR/<table id>.csv`.
fn csv_files(doc: &impl Render, dir: Option<&Path>) -> Vec<PlannedFile> {
    let Some(dir) = dir else {
        return Vec::new();
    };
    let fmt = doc.fmt();
    doc.tables()
        .iter()
        .map(|t| PlannedFile {
            path: dir.join(format!("{}.csv", t.id)),
            bytes: crate::report::csv::render(t, &fmt),
            marker: Marker::Csv(t.header(&fmt)),
        })
        .collect()
}

/// Writes every planned file (all checked first) and says which.
fn write(stdout: Vec<u8>, files: Vec<PlannedFile>, force: bool) -> Result<Outcome, AppError> {
    let done = output::write_all(&files, force)?;
    let mut notes: Vec<String> = files
        .iter()
        .map(|f| format!("wrote {}", f.path.display()))
        .collect();
    notes.extend(stale_note(&done));
    Ok(Outcome {
        stdout,
        notes,
        ..Outcome::default()
    })
}

fn run_simulate(args: SimulateArgs) -> Result<Outcome, AppError> {
    let gates = gate::periods(&args.fail_over)?;
    let today = today();
    let loaded = crate::files::load_recorded(
        &args.scenario,
        Some(today),
        crate::limits::MAX_LIVE_INPUT_BYTES,
    )?;
    let scenario = &loaded.scenario;
    let all_rows = args.all_rows || args.csv.is_some();
    let compared = match (&loaded.book, args.models.is_empty()) {
        (_, true) => Vec::new(),
        (Some((book, name)), false) => {
            crate::import::summary::compared_models("--models", book, name, &args.models, today)?
        }
        (None, false) => {
            return Err(crate::error::InputError::new(
                "--models: the scenario's price book could not be read again",
            )
            .into())
        }
    };
    let mut doc = SimulationDoc::build(scenario, Contents::simulate(scenario, all_rows));
    if !compared.is_empty() {
        doc.models = Some(tokencast_core::analysis::models::rank(
            scenario,
            &doc.simulation,
            &compared,
        ));
    }
    // What the page holds, not how it was asked for: a short run holds
    // every row either way, so `--csv` does not change its page.
    let every_row = doc.simulation.rows != tokencast_core::engine::RowsKept::Outline;
    let mut leftovers = Leftovers::default();
    let live = live_inputs(
        loaded,
        today,
        every_row,
        compared,
        &mut leftovers,
        |models| crate::report::html::controls::controls(&doc, models),
    );
    let terminal = TerminalOptions {
        requests: args.requests,
        width: terminal_width(),
        brief: args.brief,
        wide: false,
    };
    let stdout = stdout_of(&doc, args.format, &terminal);
    let warnings = doc.context_warnings();
    let mut files: Vec<PlannedFile> = live_page_file(&doc, &args.scenario, &args.page, "", live)?
        .into_iter()
        .collect();
    files.extend(csv_files(&doc, args.csv.as_deref()));
    let mut outcome = write(stdout, files, args.page.force)?;
    outcome.notes.extend(warnings);
    outcome.gates_crossed = gate::check_simulation(&doc, &gates);
    outcome.leftovers = leftovers;
    Ok(outcome)
}

/// What a simulation page needs to replay its scenario itself, or why it
/// cannot carry it (inputs over [`crate::limits::MAX_LIVE_INPUT_BYTES`]).
fn live_inputs(
    loaded: crate::files::LoadedWithTexts,
    today: jiff::civil::Date,
    all_rows: bool,
    compared: Vec<crate::pricing::ModelPrices>,
    leftovers: &mut Leftovers,
    controls: impl FnOnce(&[String]) -> Vec<crate::report::html::ControlGroup>,
) -> Result<crate::report::Live, String> {
    let today = page_day(&loaded, today);
    let crate::files::LoadedWithTexts {
        src,
        files,
        models,
        scenario,
        ..
    } = loaded;
    leftovers.keep(scenario);
    let files =
        files.map_err(|size| past_page_limit("its scenario, price book and trace", size))?;
    let name = std::path::Path::new(&src.name)
        .file_name()
        .map_or_else(|| src.name.clone(), |n| n.to_string_lossy().into_owned());
    Ok(crate::report::Live {
        request: tokencast_web::Request {
            name,
            scenario: src.text,
            files,
            today,
            all_rows,
            changes: Default::default(),
            figures: Vec::new(),
            compared,
            forecast: None,
            corpus: None,
            import: None,
        },
        controls: controls(&models),
        blocks: Vec::new(),
    })
}

/// The day a page's engine reads dated prices on: `today` when the
/// scenario's own price date is today's (its figures say so), else a day
/// with the same prices in force, so that the page made tomorrow is the same
/// file; none when its book has no dated price.
fn page_day(loaded: &crate::files::LoadedWithTexts, today: jiff::civil::Date) -> Option<String> {
    let from_today = loaded
        .scenario
        .price_date()
        .as_ref()
        .is_some_and(|d| d.from == "today");
    match &loaded.book {
        Some((book, _)) if !from_today => book.settled_day(today),
        _ => Some(today),
    }
    .map(|d| d.to_string())
}

/// `trace`: the scenario's trace as CSV, generated when it is described by
/// distributions.
fn run_trace(args: TraceArgs) -> Result<Outcome, AppError> {
    let scenario = crate::files::load(&args.scenario, Some(today()))?;
    let Some(plan) = scenario.plan() else {
        return Err(crate::error::InputError::new(format!(
            "{} gives its trace's rows (a file or [[trace.calls]]): there is nothing to draw",
            args.scenario.display()
        ))
        .with_help("describe a run that has not happened with [trace.generate] (see the README), then `tokencast trace` draws its rows")
        .into());
    };
    let rows = plan.rows(args.seed);
    let csv = tokencast_core::scenario::generate::csv(&rows);
    match args.out {
        None => Ok(Outcome {
            stdout: csv,
            ..Outcome::default()
        }),
        Some(path) => {
            let header = tokencast_core::scenario::trace::TRACE_HEADER.to_string();
            write(
                Vec::new(),
                vec![PlannedFile {
                    path,
                    bytes: csv,
                    marker: Marker::Csv(header),
                }],
                args.force,
            )
        }
    }
}

fn run_sweep(args: SweepArgs) -> Result<Outcome, AppError> {
    let spec = spec::SweepSpec::check(&args.vary, args.max_points)?;
    let scenario = crate::files::load(&args.scenario, Some(today()))?;
    spec.check_against(&scenario)?;
    let doc = sweep::run(&scenario, &spec.axes).map_err(|p| {
        crate::error::InputError::new(format!("--vary: {p}"))
            .with_help("choose a smaller range for the varied assumptions")
    })?;
    let stdout = plain_stdout(&doc, args.format, args.brief);
    let files = page_file(&doc, &args.scenario, &args.page, "-sweep")?
        .into_iter()
        .collect();
    write(stdout, files, args.page.force)
}

/// The scenario at `path`, with each `--variant` added beside its own
/// (checked against its price book).
fn with_variants(path: &Path, given: &[String]) -> Result<Scenario, AppError> {
    if given.is_empty() {
        return Ok(crate::files::load(path, Some(today()))?);
    }
    let loaded = crate::files::load_recorded(path, Some(today()), 0)?;
    let Some((book, _)) = &loaded.book else {
        return Err(crate::error::InputError::new(
            "--variant: the scenario's price book could not be read again",
        )
        .into());
    };
    let variants = crate::import::variant::WhatIfVariant::check_all(given, book, today())?;
    let extra = variants.iter().map(|v| {
        let model = v
            .model
            .as_deref()
            .and_then(|m| book.get_on(m, today()).ok().cloned());
        (v.for_scenario(), model)
    });
    loaded.scenario.with_added_variants(extra).map_err(|e| {
        crate::error::InputError::new(format!("--variant: {e}"))
            .with_help(
                "give each variant its own name, and a tier, mode and service its model prices",
            )
            .into()
    })
}

/// One side of a diff: a saved simulation document, or a scenario simulated now.
fn diff_side(path: &Path) -> Result<SimulationDoc, AppError> {
    if path.extension().is_some_and(|e| e == "json") {
        let src = crate::files::read(path, "result file")?;
        Ok(document::load::load::<SimulationDoc>(&src)?)
    } else {
        let scenario = crate::files::load(path, Some(today()))?;
        Ok(SimulationDoc::build(&scenario, Contents::FIGURES))
    }
}

fn run_diff(args: DiffArgs) -> Result<Outcome, AppError> {
    let label = |p: &Path| {
        p.file_name().map_or(p.display().to_string(), |n| {
            n.to_string_lossy().into_owned()
        })
    };
    let a = diff_side(&args.a)?;
    let b = diff_side(&args.b)?;
    let (ca, cb) = (&a.simulation.currency, &b.simulation.currency);
    if ca != cb {
        return Err(crate::error::InputError::new(format!(
            "{} is in {} ({} per USD, rate of {}) and {} in {} ({} per USD, rate of {}): their amounts cannot be compared",
            label(&args.a), ca.code, ca.per_usd, ca.rate_date, label(&args.b), cb.code, cb.per_usd, cb.rate_date
        ))
        .with_help("give both scenarios the same [currency] table (or none, for USD)")
        .into());
    }
    let limit = args
        .fail_over_change
        .as_deref()
        .map(gate::percent)
        .transpose()?;
    let doc = diff::compare(&a, &b, &label(&args.a), &label(&args.b));
    let crossed = limit.map_or(Vec::new(), |l| gate::check_diff(&doc, l));
    let (bytes, marker) = match args.format {
        DiffFormat::Table => (
            doc.terminal(&TerminalOptions {
                requests: false,
                width: terminal_width(),
                brief: false,
                wide: false,
            })
            .into_bytes(),
            Marker::Text,
        ),
        DiffFormat::Json => (doc.json(), Marker::Json),
        DiffFormat::Html => (
            doc.html(&HtmlOptions::default())
                .map_err(|e| AppError::Render(e.to_string()))?,
            Marker::Html,
        ),
    };
    let mut outcome = match args.output {
        None => write(bytes, Vec::new(), args.force),
        Some(path) => write(
            Vec::new(),
            vec![PlannedFile {
                path,
                bytes,
                marker,
            }],
            args.force,
        ),
    }?;
    outcome.gates_crossed = crossed;
    Ok(outcome)
}

/// Today's date (UTC), the default price date: the clock is read here, in
/// the CLI, never in the engine.
fn today() -> jiff::civil::Date {
    jiff::Timestamp::now()
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date()
}

/// What a write says about the temporary files an interrupted run left, if
/// it removed any.
fn stale_note(done: &output::Written) -> Option<String> {
    (done.stale_removed > 0).then(|| {
        format!(
            "removed {} temporary file(s) left by an interrupted tokencast run",
            done.stale_removed
        )
    })
}

/// Why a page is a still picture when its inputs (`what`) take `bytes`,
/// past what a live page carries.
fn past_page_limit(what: &str, bytes: usize) -> String {
    format!(
        "{what} take {} MB, more than the {} MB a page carries",
        bytes >> 20,
        crate::limits::MAX_LIVE_INPUT_BYTES >> 20
    )
}
