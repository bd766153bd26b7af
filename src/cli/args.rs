//! The command line as parsed by clap, before any checking (ripgrep's
//! "low-level arguments"); [`super::spec`] turns these into checked specs.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

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
    /// Price books: convert published price tables into tokencast's format.
    #[command(subcommand)]
    Prices(PricesCommand),
    /// Import real agent sessions as traces and scenarios, with a priced summary
    /// (without a source: every source whose default location exists).
    Import(Box<ImportCommand>),
    /// Write a scenario's trace as CSV: a run described by distributions
    /// (`[trace.generate]`) drawn with its seed, or the rows it has.
    Trace(TraceArgs),
}

/// Arguments of `trace`.
#[derive(Debug, clap::Args)]
pub struct TraceArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Draw with this seed instead of the scenario's `[trace.generate] seed`.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write the CSV here instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace FILE even if tokencast did not write it.
    #[arg(long)]
    pub force: bool,
}

/// An argument's help, short and long alike (for a default that differs
/// from command to command).
fn help(text: &'static str) -> impl FnOnce(clap::Arg) -> clap::Arg {
    move |a| a.help(text).long_help(text)
}

/// Where `import` reads sessions from.
#[derive(Debug, Subcommand)]
pub enum LogSource {
    /// Claude Code's session logs: PATHs, else $CLAUDE_CONFIG_DIR (comma-separated) with
    /// /projects, else ~/.config/claude/projects and ~/.claude/projects.
    #[command(
        mut_arg("paths", help("Log folders or .jsonl files [default: each folder of $CLAUDE_CONFIG_DIR (comma-separated) with /projects, else ~/.config/claude/projects and ~/.claude/projects]")),
        mut_arg("report", help("Write the HTML page here [default: reports/import-claude-code.html]"))
    )]
    ClaudeCode(ImportArgs),
    /// Codex CLI's rollouts: PATHs, else ${CODEX_HOME:-~/.codex}/sessions and archived_sessions.
    #[command(
        mut_arg("paths", help("Rollout folders or .jsonl files [default: ${CODEX_HOME:-~/.codex}/sessions and archived_sessions]")),
        mut_arg("report", help("Write the HTML page here [default: reports/import-codex.html]"))
    )]
    Codex(ImportArgs),
    /// API logs: JSONL of Messages API or OpenAI Chat/Responses response bodies, or
    /// {request, response} pairs; each file is one session.
    #[command(
        mut_arg("paths", help("JSONL files of API responses, or folders of them (required: API logs have no default location)")),
        mut_arg("report", help("Write the HTML page here [default: reports/import-api.html]"))
    )]
    Api(ImportArgs),
    /// OpenTelemetry span exports (OTLP/JSON) following the GenAI semantic conventions;
    /// sessions by gen_ai.conversation.id, else trace id.
    #[command(
        mut_arg("paths", help("OTLP/JSON export files (.json or .jsonl), or folders of them (required: exports have no default location)")),
        mut_arg("report", help("Write the HTML page here [default: reports/import-otel.html]"))
    )]
    Otel(ImportArgs),
    /// A tokencast dataset (written by import --dataset, or an import's folder, which
    /// keeps its rows in OUT/dataset): folders, .parquet files or quoted globs; each
    /// session's newest import once, whatever dataset holds it.
    #[command(
        mut_arg(
            "paths",
            help("Dataset folders, .parquet files or quoted globs (required)")
        ),
        mut_arg(
            "report",
            help("Write the HTML page here [default: reports/import-dataset.html]")
        )
    )]
    Dataset(ImportArgs),
}

/// `tokencast import [SOURCE]`.
#[derive(Debug, clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    mut_arg(
        "report",
        help("Write each source's HTML page here [default: reports/import-<source>.html]")
    )
)]
pub struct ImportCommand {
    /// Where the sessions come from.
    #[command(subcommand)]
    pub source: Option<LogSource>,
    /// Options when no source is named.
    #[command(flatten)]
    pub args: ImportArgs,
}

/// Arguments of every `import` source.
#[derive(Debug, Clone, clap::Args)]
pub struct ImportArgs {
    /// Log directories or .jsonl files [default: the source's own locations].
    pub paths: Vec<PathBuf>,
    /// Only sessions starting on or after this date (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only sessions starting on or before this date (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
    /// Only projects whose directory name contains this.
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
    /// Only the session with this id, or the sessions whose id starts with
    /// it (the tables show ids by their first 8 characters).
    #[arg(long = "session", value_name = "ID")]
    pub session: Option<String>,
    /// Where traces and scenarios go (one directory per session).
    #[arg(long, value_name = "DIR", default_value = "scenarios/imported")]
    pub out: PathBuf,
    /// The price book [default: the shipped LiteLLM 1.110.2 book of the source's provider];
    /// copied to DIR/prices.toml.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// Other models of the price book: the first is the "other model" what-if, and every
    /// one is ranked by the cost of the same sessions under its provider's cache rules. An
    /// id, or a pattern such as 'claude-*' or '*' (the whole book); repeatable.
    #[arg(long, value_name = "MODEL")]
    pub compare_model: Vec<String>,
    /// A what-if that combines, written as the scenario file writes a variant (an inline
    /// table): '{ name = "trimmed on haiku", results = "trimmed", model = "claude-haiku-4-5",
    /// cache = "5m" }' (keys: name, results, cache, mode, model, service); repeatable.
    #[arg(long = "variant", value_name = "TABLE")]
    pub variant: Vec<String>,
    /// How "trimmed" results are made: BYTES kept per result, or PERCENT% of each [default: trimmed = raw].
    #[arg(long, value_name = "RULE")]
    pub trim: Option<String>,
    /// Price the requests whose log names no model (Codex rollouts before
    /// 0.4x record none; API and OpenTelemetry logs may omit it) as MODEL,
    /// an id of the price book; every output says how many were.
    #[arg(long, value_name = "MODEL")]
    pub unnamed_model: Option<String>,
    /// Stop with exit code 2 on any unreadable line or file instead of listing it.
    #[arg(long)]
    pub strict: bool,
    /// Walk into folders that symbolic links under PATH lead to (links to
    /// files are always read; loops are reported either way).
    #[arg(long)]
    pub follow_links: bool,
    /// Write the bytes per token fitted per model family from these
    /// sessions' recorded prompt growth to FILE (apply it with --calibration).
    #[arg(long, value_name = "FILE")]
    pub save_calibration: Option<PathBuf>,
    /// Use a saved calibration (several are merged) instead of each
    /// thread's own fit; families it lacks fall back to the thread's fit.
    #[arg(long, value_name = "FILE")]
    pub calibration: Vec<PathBuf>,
    /// Also add every session to the team dataset in DIR: Parquet tables of
    /// sessions, requests and tool results, by day, one file per machine
    /// (a session imported again replaces its rows).
    #[arg(long, value_name = "DIR")]
    pub dataset: Option<PathBuf>,
    /// The machine id the rows carry, in the dataset and in the folder's
    /// own copy of them (OUT/dataset) [default: the host name].
    #[arg(long, value_name = "ID")]
    pub machine: Option<String>,
    /// The user id the rows carry, in the dataset and in the folder's own
    /// copy of them [default: $USER, else $USERNAME].
    #[arg(long, value_name = "ID")]
    pub user: Option<String>,
    /// Replace machine, user and project names in the dataset with a hash
    /// salted with $TOKENCAST_SALT (the team's shared secret, 16 characters or more).
    #[arg(long, requires = "dataset")]
    pub anonymise: bool,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Write every table of the summary as a CSV file into this folder.
    #[arg(long, value_name = "DIR")]
    pub csv: Option<PathBuf>,
    /// Print only the answer: the totals as recorded and replayed, each
    /// what-if's estimate, the dearest sessions (terminal format).
    #[arg(long)]
    pub brief: bool,
    /// Print every column of the sessions and days tables (usage by token class, each
    /// replay's lower and upper bound, sizes) instead of the compact ones.
    #[arg(long, conflicts_with = "brief")]
    pub wide: bool,
    /// Where the HTML page goes.
    #[command(flatten)]
    pub page: PageArgs,
}

/// `tokencast prices …`.
#[derive(Debug, Subcommand)]
pub enum PricesCommand {
    /// Convert a price table into a tokencast price book.
    #[command(subcommand)]
    Import(ImportSource),
}

/// Where `prices import` reads from.
#[derive(Debug, Subcommand)]
pub enum ImportSource {
    /// LiteLLM's model_prices_and_context_window.json.
    Litellm(LitellmArgs),
}

/// Arguments of `prices import litellm`.
#[derive(Debug, clap::Args)]
pub struct LitellmArgs {
    /// LiteLLM's model_prices_and_context_window.json.
    pub file: PathBuf,
    /// Only models whose id matches (`*` and `?` wildcards; repeatable) [default: all].
    #[arg(long = "models", value_name = "PATTERN")]
    pub models: Vec<String>,
    /// The date the prices were read, YYYY-MM-DD [default: today].
    #[arg(long, value_name = "DATE")]
    pub read_on: Option<String>,
    /// Write the price book here instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace the output file even if it was not written by tokencast.
    #[arg(long)]
    pub force: bool,
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
#[command(mut_arg("report", help("Write the HTML page here [default: reports/<first PATH's file stem or folder name>-forecast.html]")))]
pub struct ForecastArgs {
    /// One scenario (TOML): runs of --calls results drawn from its trace. Several scenarios,
    /// or directories of them (such as `import --out` directories), forecast from many
    /// sessions: each PATH is a kind of session, named by its file stem or directory name.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Tool results per run (one scenario).
    #[arg(long)]
    pub calls: Option<u64>,
    /// Runs to simulate (one scenario), or days to simulate (many sessions; months: a tenth).
    #[arg(long, default_value_t = 100_000)]
    pub runs: u64,
    /// Random seed: the same seed gives the same output on any number of threads.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How tool results are drawn (one scenario) [default: bootstrap].
    #[arg(long, value_enum)]
    pub method: Option<MethodArg>,
    /// A budget per run in USD: report the share of runs above it (one scenario).
    #[arg(long, value_name = "USD")]
    pub budget: Option<String>,
    /// Exit with code 3 when any variant's STAT (p50, p90, p99, mean, max) of the cost per
    /// run, upper bound, is above AMOUNT; day.STAT and month.STAT (p50, p90, p99, mean)
    /// gate a day's or a month's cost over many sessions (repeatable).
    #[arg(long = "fail-over", value_name = "STAT=AMOUNT")]
    pub fail_over: Vec<String>,
    /// Only draw these capabilities (one scenario; repeatable).
    #[arg(long = "capability", value_name = "NAME")]
    pub capabilities: Vec<String>,
    /// Many sessions: each kind's share of the runs, e.g. research=3,coding=1 (every kind
    /// named) [default: the recorded mix, every session equally likely].
    #[arg(long, value_name = "KIND=SHARE,...")]
    pub weights: Option<String>,
    /// One scenario: a variant to forecast beside the scenario's own, written as the
    /// scenario file writes one (an inline table): '{ name = "trimmed on haiku", results =
    /// "trimmed", model = "claude-haiku-4-5", cache = "5m" }'; without cache, uncached
    /// (repeatable).
    #[arg(long = "variant", value_name = "TABLE")]
    pub variant: Vec<String>,
    /// Many sessions: runs a day.
    #[arg(long, default_value_t = 1)]
    pub runs_per_day: u64,
    /// Many sessions: working days a week (1–7).
    #[arg(long, default_value_t = 7)]
    pub working_days: u64,
    /// Many sessions: people who each start --runs-per-day runs a day (a day is
    /// their runs together).
    #[arg(long, default_value_t = 1)]
    pub team_size: u64,
    /// Write every table as a CSV file into this folder (every row).
    #[arg(long, value_name = "DIR")]
    pub csv: Option<PathBuf>,
    /// Worker threads [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Print only the answer: the budget of the cheapest and dearest variant, a run (one
    /// scenario) or a month (many sessions) (terminal format).
    #[arg(long)]
    pub brief: bool,
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
#[command(mut_arg(
    "report",
    help("Write the HTML page here [default: reports/<scenario file stem>-sweep.html]")
))]
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
    /// Print only the answer: the cheapest and dearest point of the grid (terminal format).
    #[arg(long)]
    pub brief: bool,
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
    /// Exit with code 3 when the cheapest variant's total rose by more than PERCENT.
    #[arg(long, value_name = "PERCENT")]
    pub fail_over_change: Option<String>,
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
#[command(mut_arg(
    "report",
    help("Write the HTML page here [default: reports/<scenario file stem>.html]")
))]
pub struct SimulateArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also print the per-request table (terminal format).
    #[arg(long)]
    pub requests: bool,
    /// Print only the answer: the cheapest and dearest variant and the saving (terminal format).
    #[arg(long, conflicts_with = "requests")]
    pub brief: bool,
    /// Rank other models of the scenario's price book by the cost of the same run, every
    /// variant moved onto each under its provider's cache rules: an id, or a pattern such as
    /// 'claude-*' or '*' (the whole book); repeatable.
    #[arg(long = "models", value_name = "MODEL")]
    pub models: Vec<String>,
    /// Write every table as a CSV file into this folder (every row, however long the run).
    #[arg(long, value_name = "DIR")]
    pub csv: Option<PathBuf>,
    /// Keep every per-request and per-result row in the JSON, tables and page, even for runs
    /// of more than 10,000 tool results (by default those keep an outline of 2,000 requests).
    #[arg(long)]
    pub all_rows: bool,
    /// Exit with code 3 when any variant's total (upper bound) per PERIOD (run, day, month)
    /// is above AMOUNT, in the scenario's currency (repeatable). A month is the periods
    /// table's: a twelfth of 52 weeks of the scenario's working days (`[plan]
    /// working_days_per_week`, 7 by default).
    #[arg(long = "fail-over", value_name = "PERIOD=AMOUNT")]
    pub fail_over: Vec<String>,
    /// Where the HTML report goes.
    #[command(flatten)]
    pub page: PageArgs,
}

/// Options shared by every command that writes an HTML page.
// The `<scenario file stem>` in the help text is for people, not HTML.
#[allow(rustdoc::invalid_html_tags)]
#[derive(Debug, Clone, clap::Args)]
pub struct PageArgs {
    /// Write the HTML page here (each command says where it writes it by default).
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
