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
    /// Write the HTML report here [default: reports/<scenario file stem>.html].
    #[arg(long, value_name = "PATH", conflicts_with = "no_report")]
    pub report: Option<PathBuf>,
    /// Do not write the HTML report.
    #[arg(long)]
    pub no_report: bool,
    /// Print the generation time in the report's footer (off by default, so reruns are byte-identical).
    #[arg(long)]
    pub timestamp: bool,
    /// Write every table as a CSV file into this folder.
    #[arg(long, value_name = "DIR")]
    pub csv: Option<PathBuf>,
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
}

impl AppError {
    /// 2 for anything the user can fix in their input or arguments, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            AppError::Input(_) => 2,
            AppError::Output(e) if e.is_user_error() => 2,
            AppError::Output(_) | AppError::Render(_) => 1,
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
    }
}

/// Where the HTML report goes, if anywhere.
fn report_path(args: &SimulateArgs) -> Option<PathBuf> {
    if args.no_report {
        return None;
    }
    Some(args.report.clone().unwrap_or_else(|| {
        let stem = args
            .scenario
            .file_stem()
            .map_or("report".into(), |s| s.to_string_lossy().into_owned());
        PathBuf::from("reports").join(format!("{stem}.html"))
    }))
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
    if let Some(path) = report_path(&args) {
        let timestamp = args
            .timestamp
            .then(|| humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string());
        let bytes = report::html::render(&sim, &report::html::HtmlOptions { timestamp })
            .map_err(|e| AppError::Render(e.to_string()))?;
        files.push(PlannedFile {
            path,
            bytes,
            owner: Owner::HtmlReport,
        });
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
    output::write_all(&files, args.force)?;
    let notes = files
        .iter()
        .map(|f| format!("wrote {}", f.path.display()))
        .collect();
    Ok(Outcome { stdout, notes })
}
