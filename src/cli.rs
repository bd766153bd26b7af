//! Command-line arguments and the steps of each command.
//!
//! Arguments are parsed by clap into [`Cli`]; [`run`] loads and checks the
//! scenario, simulates, renders every output in memory, and only then writes
//! files. `main` prints errors and picks the exit code.

use crate::engine::{simulate, SimulateOptions};
use crate::error::InputError;
use crate::output::{self, OutputError, Owner, PlannedFile};
use crate::report::{self, terminal::TerminalOptions};
use crate::scenario::Scenario;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use thiserror::Error;

/// tokencast: what your LLM agent's tool calls will cost, before the invoice does.
#[derive(Debug, Parser)]
#[command(name = "tokencast", version, about)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replay a scenario's trace through every variant and compare costs.
    Simulate(SimulateArgs),
    /// Vary one assumption, or two as a grid, and replay the scenario at every point.
    Sweep(SweepArgs),
    /// Compare two results (scenario .toml files or saved .json results) line by line.
    Diff(DiffArgs),
    /// Forecast longer runs from the recorded distributions: percentiles and budgets.
    Forecast(ForecastArgs),
}

/// How `forecast` draws tool results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Resample the recorded calls.
    Bootstrap,
    /// A log-normal per capability, fitted by maximum likelihood.
    Lognormal,
}

/// Arguments of `forecast`.
#[derive(Debug, clap::Args)]
pub struct ForecastArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Tool results per run.
    #[arg(long)]
    pub calls: u64,
    /// Runs to simulate.
    #[arg(long, default_value_t = 100_000)]
    pub runs: u64,
    /// Random seed: the same seed gives the same output on any number of threads.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How tool results are drawn.
    #[arg(long, value_enum, default_value_t = MethodArg::Bootstrap)]
    pub method: MethodArg,
    /// A budget per run in USD: report the share of runs above it.
    #[arg(long, value_name = "USD")]
    pub budget: Option<String>,
    /// Only draw these capabilities (repeatable).
    #[arg(long = "capability", value_name = "NAME")]
    pub capabilities: Vec<String>,
    /// Worker threads [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Where the HTML page goes.
    #[command(flatten)]
    pub page: PageArgs,
}

/// Output formats of `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// A terminal table.
    Table,
    /// JSON: every line with exact decimals.
    Json,
    /// A self-contained HTML page.
    Html,
}

/// Arguments of `sweep`.
#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// NAME=FROM..TO:STEP (or cache=none,5m,1h); give it twice for a grid.
    #[arg(long = "vary", value_name = "SPEC", required = true)]
    pub vary: Vec<String>,
    /// Most points the sweep may have (all axes together).
    #[arg(long, default_value_t = crate::analysis::sweep::DEFAULT_MAX_POINTS)]
    pub max_points: usize,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Where the HTML page goes.
    #[command(flatten)]
    pub page: PageArgs,
}

/// Arguments of `diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The left side: a scenario (.toml) or a saved result (.json).
    pub a: PathBuf,
    /// The right side.
    pub b: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Table)]
    pub format: DiffFormat,
    /// Write the output to this file instead of stdout.
    #[arg(long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Replace the output file even if it was not written by tokencast.
    #[arg(long)]
    pub force: bool,
}

/// Output formats for stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Terminal tables.
    Table,
    /// The canonical JSON document, exact decimals as strings.
    Json,
    /// The variants summary as CSV.
    Csv,
}

/// Arguments of `simulate`.
#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also print the per-request table (terminal format).
    #[arg(long)]
    pub requests: bool,
    /// Write every table as a CSV file into this folder.
    #[arg(long, value_name = "DIR")]
    pub csv: Option<PathBuf>,
    /// Where the HTML report goes.
    #[command(flatten)]
    pub page: PageArgs,
}

/// Options shared by every command that writes an HTML page.
#[derive(Debug, clap::Args)]
pub struct PageArgs {
    /// Write the HTML page here [default: reports/<scenario file stem>[-sweep|-forecast].html].
    #[arg(long, value_name = "PATH", conflicts_with = "no_report")]
    pub report: Option<PathBuf>,
    /// Do not write the HTML page.
    #[arg(long)]
    pub no_report: bool,
    /// Print the generation time in the page's footer (off by default, so reruns are byte-identical).
    #[arg(long)]
    pub timestamp: bool,
    /// Replace output files even if they were not written by tokencast.
    #[arg(long)]
    pub force: bool,
}

/// Everything that can stop a command.
#[derive(Debug, Error)]
pub enum AppError {
    /// The scenario, price book or trace is wrong.
    #[error(transparent)]
    Input(#[from] InputError),
    /// Files could not be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// A renderer failed (a bug: please report it).
    #[error("could not render the report: {0}")]
    Render(String),
    /// Ctrl-C.
    #[error("interrupted: nothing was written")]
    Interrupted,
}

impl AppError {
    /// 2 for anything the user can fix in their input or arguments, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            AppError::Input(_) => 2,
            AppError::Output(e) if e.is_user_error() => 2,
            AppError::Output(_) | AppError::Render(_) => 1,
            AppError::Interrupted => 130,
        }
    }
}

/// What a successful command produced: stdout bytes and notes for stderr.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Bytes for stdout.
    pub stdout: Vec<u8>,
    /// Lines for stderr (files written).
    pub notes: Vec<String>,
}

/// Runs a parsed command.
pub fn run(cli: Cli) -> Result<Outcome, AppError> {
    match cli.command {
        Command::Simulate(args) => run_simulate(args),
        Command::Sweep(args) => run_sweep(args),
        Command::Diff(args) => run_diff(args),
        Command::Forecast(args) => run_forecast(args),
    }
}

/// Where an HTML page goes, if anywhere: the given path, or `reports/<stem><suffix>.html`.
fn report_path(scenario: &std::path::Path, page: &PageArgs, suffix: &str) -> Option<PathBuf> {
    if page.no_report {
        return None;
    }
    Some(page.report.clone().unwrap_or_else(|| {
        let stem = scenario
            .file_stem()
            .map_or("report".into(), |s| s.to_string_lossy().into_owned());
        PathBuf::from("reports").join(format!("{stem}{suffix}.html"))
    }))
}

fn now(asked: bool) -> Option<String> {
    asked.then(|| humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string())
}

fn html_file(path: PathBuf, bytes: Result<Vec<u8>, tera::Error>) -> Result<PlannedFile, AppError> {
    Ok(PlannedFile {
        path,
        bytes: bytes.map_err(|e| AppError::Render(e.to_string()))?,
        owner: Owner::HtmlReport,
    })
}

fn written(files: &[PlannedFile]) -> Vec<String> {
    files
        .iter()
        .map(|f| format!("wrote {}", f.path.display()))
        .collect()
}

fn run_sweep(args: SweepArgs) -> Result<Outcome, AppError> {
    use crate::analysis::sweep;
    if args.vary.len() > 2 {
        return Err(InputError::new("--vary is given more than twice")
            .with_help("vary one assumption, or two as a grid")
            .into());
    }
    let axes = args
        .vary
        .iter()
        .map(|v| sweep::parse_axis(v, args.max_points))
        .collect::<Result<Vec<_>, _>>()?;
    let total: usize = axes.iter().map(|a| a.values.len()).product();
    if total > args.max_points {
        return Err(InputError::new(format!(
            "the grid has {total} points, more than the limit of {}",
            args.max_points
        ))
        .with_help("use larger steps, or raise the limit with --max-points")
        .into());
    }
    let scenario = Scenario::load(&args.scenario)?;
    let result = sweep::run(&scenario, &axes)?;
    let table = report::tables::sweep(&result);
    let stdout = match args.format {
        Format::Table => report::terminal::plain_table(&table).into_bytes(),
        Format::Json => {
            let mut v = serde_json::to_vec_pretty(&result).expect("a sweep always serializes");
            v.push(b'\n');
            v
        }
        Format::Csv => report::csv::render(&table),
    };
    let mut files = Vec::new();
    if let Some(path) = report_path(&args.scenario, &args.page, "-sweep") {
        let meta = report::html::PageMeta {
            fingerprint: scenario.fingerprint(),
            inputs: scenario.inputs.clone(),
            timestamp: now(args.page.timestamp),
        };
        files.push(html_file(path, report::html::render_sweep(&result, &meta))?);
    }
    output::write_all(&files, args.page.force)?;
    Ok(Outcome {
        stdout,
        notes: written(&files),
    })
}

/// One side of a diff as the canonical JSON document.
fn diff_side(
    path: &std::path::Path,
) -> Result<(serde_json::Value, Vec<crate::scenario::InputFile>), AppError> {
    if path.extension().is_some_and(|e| e == "json") {
        let src = crate::input::SourceText::read(path, "result file")?;
        let v = crate::diff::parse_result(&src)?;
        let inputs = serde_json::from_value(v["inputs"].clone()).unwrap_or_default();
        Ok((v, inputs))
    } else {
        let scenario = Scenario::load(path)?;
        let sim = simulate(&scenario, SimulateOptions { detail: false });
        let v = serde_json::to_value(&sim).expect("a simulation always serializes");
        Ok((v, scenario.inputs))
    }
}

fn run_forecast(args: ForecastArgs) -> Result<Outcome, AppError> {
    use crate::analysis::forecast::{self, ForecastError, ForecastSpec, Method, Sampler};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let budget = match &args.budget {
        None => None,
        Some(b) => Some(
            b.trim()
                .parse::<rust_decimal::Decimal>()
                .ok()
                .filter(|d| *d >= rust_decimal::Decimal::ZERO)
                .ok_or_else(|| {
                    InputError::new(format!("--budget {b}: not an amount in USD"))
                        .with_help("write a number such as 2.50")
                })?,
        ),
    };
    if args.threads == Some(0) {
        return Err(InputError::new("--threads is 0")
            .with_help("use at least one thread")
            .into());
    }
    let spec = ForecastSpec {
        calls: args.calls,
        runs: args.runs,
        seed: args.seed,
        method: match args.method {
            MethodArg::Bootstrap => Method::Bootstrap,
            MethodArg::Lognormal => Method::Lognormal,
        },
        budget,
    };
    let scenario = Scenario::load(&args.scenario)?;
    let sampler = Sampler::new(&scenario.trace, spec.method)?.only(&args.capabilities)?;

    let cancel = Arc::new(AtomicBool::new(false));
    {
        let cancel = Arc::clone(&cancel);
        // If a handler is already installed (tests calling run twice), keep it.
        let _ = ctrlc::set_handler(move || cancel.store(true, Ordering::SeqCst));
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(args.runs),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} runs ({eta} left)")
            .expect("a valid template"),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .map_err(|e| AppError::Render(e.to_string()))?;
    let progress = |n: u64| bar.inc(n);
    let result = pool.install(|| forecast::run(&scenario, &spec, &sampler, &cancel, &progress));
    bar.finish_and_clear();
    let result = match result {
        Ok(r) => r,
        Err(ForecastError::Input(e)) => return Err(e.into()),
        Err(ForecastError::Interrupted) => return Err(AppError::Interrupted),
    };
    let stdout = match args.format {
        Format::Table => {
            let mut s = format!(
                "tokencast {} · forecast {} · {} runs of {} tool results · method {:?} · seed {}\n{}\n\n",
                env!("CARGO_PKG_VERSION"),
                result.scenario,
                result.runs,
                result.calls,
                result.method,
                result.seed,
                result.percentile_method
            );
            for t in [
                report::tables::forecast_variants(&result),
                report::tables::forecast_context(&result),
                report::tables::forecast_fan(&result),
            ] {
                s.push_str(&report::terminal::plain_table(&t));
                s.push('\n');
            }
            s.push_str("Read it as: half the runs cost less than p50, one in a hundred costs more than p99. Set the task budget at the p99 of the upper bound.\n");
            s.into_bytes()
        }
        Format::Json => {
            let mut v = serde_json::to_vec_pretty(&result).expect("a forecast always serializes");
            v.push(b'\n');
            v
        }
        Format::Csv => report::csv::render(&report::tables::forecast_variants(&result)),
    };
    let mut files = Vec::new();
    if let Some(path) = report_path(&args.scenario, &args.page, "-forecast") {
        let meta = report::html::PageMeta {
            fingerprint: scenario.fingerprint(),
            inputs: scenario.inputs.clone(),
            timestamp: now(args.page.timestamp),
        };
        files.push(html_file(
            path,
            report::html::render_forecast(&result, &meta),
        )?);
    }
    if cancel.load(Ordering::SeqCst) {
        return Err(AppError::Interrupted);
    }
    output::write_all(&files, args.page.force)?;
    Ok(Outcome {
        stdout,
        notes: written(&files),
    })
}

fn run_diff(args: DiffArgs) -> Result<Outcome, AppError> {
    let (a, inputs_a) = diff_side(&args.a)?;
    let (b, inputs_b) = diff_side(&args.b)?;
    let label = |p: &std::path::Path| {
        p.file_name().map_or(p.display().to_string(), |n| {
            n.to_string_lossy().into_owned()
        })
    };
    let d = crate::diff::compare(&a, &b, &label(&args.a), &label(&args.b));
    let bytes = match args.format {
        DiffFormat::Table => report::terminal::plain_table(&report::tables::diff(&d)).into_bytes(),
        DiffFormat::Json => {
            let mut v = serde_json::to_vec_pretty(&d).expect("a diff always serializes");
            v.push(b'\n');
            v
        }
        DiffFormat::Html => {
            let inputs: Vec<_> = inputs_a.into_iter().chain(inputs_b).collect();
            let meta = report::html::PageMeta {
                fingerprint: crate::scenario::fingerprint(&inputs),
                inputs,
                timestamp: None,
            };
            report::html::render_diff(&d, &meta).map_err(|e| AppError::Render(e.to_string()))?
        }
    };
    match args.output {
        None => Ok(Outcome {
            stdout: bytes,
            notes: Vec::new(),
        }),
        Some(path) => {
            let owner = match args.format {
                DiffFormat::Html => Owner::HtmlReport,
                _ => Owner::Csv(
                    String::from_utf8_lossy(&bytes)
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_string(),
                ),
            };
            let files = vec![PlannedFile { path, bytes, owner }];
            output::write_all(&files, args.force)?;
            Ok(Outcome {
                stdout: Vec::new(),
                notes: written(&files),
            })
        }
    }
}

fn run_simulate(args: SimulateArgs) -> Result<Outcome, AppError> {
    let scenario = Scenario::load(&args.scenario)?;
    let mut sim = simulate(&scenario, SimulateOptions { detail: true });
    sim.what_if = Some(crate::analysis::what_if(&scenario, &sim));
    let stdout = match args.format {
        Format::Table => report::terminal::render(
            &sim,
            TerminalOptions {
                requests: args.requests,
            },
        )
        .into_bytes(),
        Format::Json => report::json::render(&sim),
        Format::Csv => report::csv::render(&report::tables::variants(&sim)),
    };
    let mut files = Vec::new();
    if let Some(path) = report_path(&args.scenario, &args.page, "") {
        let options = report::html::HtmlOptions {
            timestamp: now(args.page.timestamp),
        };
        files.push(html_file(path, report::html::render(&sim, &options))?);
    }
    if let Some(dir) = &args.csv {
        for t in report::tables::all(&sim) {
            let bytes = report::csv::render(&t);
            let header = t
                .columns
                .iter()
                .map(|c| c.key.as_str())
                .collect::<Vec<_>>()
                .join(",");
            files.push(PlannedFile {
                path: dir.join(format!("{}.csv", t.id)),
                bytes,
                owner: Owner::Csv(header),
            });
        }
    }
    output::write_all(&files, args.page.force)?;
    Ok(Outcome {
        stdout,
        notes: written(&files),
    })
}
