//! `tokencast import`: a checked spec of what to read, price and write
//! ([`ImportSpec::check`]), then one step that runs it ([`run`]), itself a
//! list of named steps: read and stage each session's files as they come,
//! add the set's own files, commit, and remove what an earlier import left.

use super::args::{Format, ImportArgs, PageArgs};
use super::{stdout_of, terminal_width, today, Outcome};
use crate::document::import::ImportDoc;
use crate::error::{AppError, InputError};
use crate::import::calibrate::Calibration;
use crate::import::manifest::{Manifest, MANIFEST_FILE};
use crate::import::{summary, write::Trim, Filter, Source};
use crate::input::SourceText;
use crate::output::{self, Marker, PlannedFile};
use std::path::{Path, PathBuf};
mod paths;
use paths::{log_paths, nothing_read, price_book};

/// `tokencast import` without a source: every source whose default
/// location exists, one after the other, saying which it read.
pub(super) fn run_detected(args: ImportArgs) -> Result<Outcome, AppError> {
    use crate::error::InputError;
    use crate::import::Source;
    if !args.paths.is_empty() {
        return Err(InputError::new("import: paths given without a source")
            .with_help("name the source: tokencast import claude-code|codex|api|otel PATH …")
            .into());
    }
    let found: Vec<(Source, Vec<PathBuf>)> = [Source::ClaudeCode, Source::Codex]
        .into_iter()
        .map(|s| (s, s.default_paths()))
        .filter(|(_, p)| !p.is_empty())
        .collect();
    if found.is_empty() {
        return Err(InputError::new(format!(
            "no agent logs found: looked in {} (Claude Code) and {} (Codex)",
            Source::ClaudeCode.places_tried(),
            Source::Codex.places_tried()
        ))
        .with_help(
            "name a source and its files: tokencast import claude-code|codex|api|otel PATH …",
        )
        .into());
    }
    if found.len() > 1 && args.format != Format::Table {
        return Err(InputError::new(format!(
            "logs of {} sources were found, and --format {} holds one document",
            found.len(),
            if args.format == Format::Json {
                "json"
            } else {
                "csv"
            }
        ))
        .with_help("name the source: tokencast import claude-code … or tokencast import codex …")
        .into());
    }
    let mut outcome = Outcome::default();
    for (source, paths) in found {
        outcome.notes.push(format!(
            "{}: read {}",
            source.title(),
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let one = run(ImportSpec::check(source, &args)?)?;
        outcome.stdout.extend(one.stdout);
        outcome.notes.extend(one.notes);
    }
    Ok(outcome)
}

/// Everything an import needs, checked: nothing here can fail later for a
/// reason the user could have been told up front.
pub(super) struct ImportSpec {
    source: Source,
    /// The logs to read (the source's default places when none were given).
    paths: Vec<PathBuf>,
    filter: Filter,
    trim: Trim,
    /// The price book, read.
    book: SourceText,
    compare_models: Vec<String>,
    /// `--variant`: the user's combined what-ifs, checked against the book.
    variants: Vec<crate::import::variant::WhatIfVariant>,
    /// Their texts, as given.
    variant_texts: Vec<String>,
    /// `--trim` as given (empty: none).
    trim_text: String,
    /// `--unnamed-model`: the model of requests whose log names none.
    unnamed_model: Option<String>,
    /// Saved calibrations, merged, and the files they came from.
    calibration: Option<(Calibration, String)>,
    save_calibration: Option<PathBuf>,
    out: PathBuf,
    strict: bool,
    format: Format,
    page: PageArgs,
    /// `--csv DIR`: every table of the summary as a CSV file.
    csv: Option<PathBuf>,
    /// `--brief`: only the answer on the terminal.
    brief: bool,
    /// `--wide`: every column of the sessions and days tables.
    wide: bool,
    /// The command's words that give the import's figures again (its
    /// sources, filters, book and what-ifs; output to `what-if/`, no page),
    /// for a live page's download.
    command: Vec<String>,
    /// Who and where the sessions' rows say they were recorded (the
    /// folder's own copy of them, and the team dataset's).
    origin: crate::import::Origin,
    /// The team dataset to add the sessions to.
    dataset: Option<DatasetSpec>,
}

/// `--dataset DIR`, checked.
struct DatasetSpec {
    dir: PathBuf,
    anonymiser: Option<crate::import::dataset::Anonymiser>,
}

/// The words of `tokencast import SOURCE …` with every option that moves a
/// figure as given, writing its scenarios to `what-if/` and no page.
fn what_if_command(source: Source, args: &ImportArgs) -> Vec<String> {
    let mut w: Vec<String> = vec!["tokencast".into(), "import".into(), source.key().into()];
    w.extend(args.paths.iter().map(|p| p.display().to_string()));
    let mut opt = |flag: &str, value: Option<String>| {
        if let Some(v) = value {
            w.extend([flag.to_string(), v]);
        }
    };
    opt("--since", args.since.clone());
    opt("--until", args.until.clone());
    opt("--project", args.project.clone());
    opt("--session", args.session.clone());
    opt(
        "--prices",
        args.prices.as_ref().map(|p| p.display().to_string()),
    );
    opt("--trim", args.trim.clone());
    opt("--unnamed-model", args.unnamed_model.clone());
    for m in &args.compare_model {
        opt("--compare-model", Some(m.clone()));
    }
    for c in &args.calibration {
        opt("--calibration", Some(c.display().to_string()));
    }
    for v in &args.variant {
        opt("--variant", Some(v.clone()));
    }
    if args.follow_links {
        w.push("--follow-links".into());
    }
    w.extend(["--out".into(), "what-if".into(), "--no-report".into()]);
    w
}

/// A live import page's inputs before any thread is read: the price book,
/// the what-if's model (`compared`: the first compared, else "as
/// recorded"), and its controls; or why the page is a still picture.
fn page_inputs(spec: &ImportSpec, compared: Option<&str>) -> Result<crate::report::Live, String> {
    use crate::report::html::{Control, ControlGroup};
    let book = crate::pricing::PriceBook::parse(&spec.book).map_err(|e| e.to_string())?;
    // "As recorded" first: each request on the model that served it (the
    // what-if's starting value, unless a model was compared); then the
    // book's models, Bedrock's ids of Claude models (`anthropic.…`,
    // `us.anthropic.…`) after the providers' own.
    let bedrock = |id: &&str| crate::pricing::cloud::bedrock_named(id);
    let models: Vec<String> = std::iter::once(tokencast_web::AS_RECORDED.to_string())
        .chain(
            book.model_ids()
                .filter(|id| !bedrock(id))
                .map(str::to_string),
        )
        .chain(book.model_ids().filter(bedrock).map(str::to_string))
        .collect();
    let model = compared.unwrap_or(tokencast_web::AS_RECORDED).to_string();
    let select = |param: &str, label: &str, value: &str, options: Vec<String>| Control {
        param: param.into(),
        label: label.into(),
        value: value.into(),
        options,
        step: "",
    };
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let controls = vec![ControlGroup {
        title: "What if, over every replayed thread".into(),
        controls: vec![
            select("variant.model", "model", &model, models),
            select(
                "variant.results",
                "results",
                "raw",
                words(&["raw", "trimmed"]),
            ),
            select(
                "variant.cache",
                "cache",
                tokencast_web::AS_RECORDED,
                words(&[tokencast_web::AS_RECORDED, "none", "5m", "1h"]),
            ),
            select("variant.mode", "mode", "sync", words(&["sync", "batch"])),
            Control {
                param: "variant.trim".into(),
                label: "trim rule (4096, 25%; results trimmed)".into(),
                value: spec.trim_text.clone(),
                options: Vec::new(),
                step: "text",
            },
        ],
    }];
    let request = tokencast_web::Request {
        name: "import".into(),
        scenario: String::new(),
        files: Default::default(),
        today: book.settled_day(today()).map(|d| d.to_string()),
        all_rows: false,
        changes: Default::default(),
        figures: Vec::new(),
        compared: Vec::new(),
        forecast: None,
        corpus: None,
        import: Some(tokencast_web::ImportRun {
            threads: Vec::new(),
            book_name: spec.book.name.clone(),
            book: spec.book.text.clone(),
            model,
            given: spec.variant_texts.clone(),
            trim: spec.trim_text.clone(),
            command: spec.command.clone(),
        }),
    };
    Ok(crate::report::Live {
        request,
        controls,
        blocks: Vec::new(),
    })
}

/// A live import page: its inputs ([`page_inputs`]) with every replayed
/// thread, and what it shows before any change (the engine's own answer,
/// from the import's replays of the page's what-if when they gave every
/// thread's); or why the page is a still picture.
fn live_import(
    page: Result<crate::report::Live, String>,
    read: Result<summary::PageInputs, usize>,
) -> Result<crate::report::Live, String> {
    let mut page = page?;
    let read = read.map_err(|bytes| super::past_page_limit("its replayed threads", bytes))?;
    if read.threads.is_empty() {
        return Err("no thread was replayed".into());
    }
    if let Some(run) = page.request.import.as_mut() {
        run.threads = read
            .threads
            .into_iter()
            .map(|(session, name, toml, csv)| tokencast_web::ImportThread {
                session,
                name,
                toml,
                csv,
            })
            .collect();
    }
    let answer = match read.rows {
        Some(rows) => tokencast_web::first_import_answer(&page.request, rows),
        None => tokencast_web::run(&page.request),
    };
    page.blocks = match answer {
        tokencast_web::Answer::Ok { blocks, .. } => blocks,
        tokencast_web::Answer::Invalid { message, .. } => return Err(message),
    };
    Ok(page)
}

/// `--machine` and `--user`, or the host's name and `$USER`.
fn origin(args: &ImportArgs) -> Result<crate::import::Origin, AppError> {
    let machine = match &args.machine {
        Some(m) if !m.trim().is_empty() => m.clone(),
        Some(_) => {
            return Err(InputError::new("--machine: an empty machine id")
                .with_help("give the id the dataset's rows carry, e.g. --machine laptop-7")
                .into())
        }
        None => gethostname::gethostname().to_string_lossy().into_owned(),
    };
    let user = args.user.clone().or_else(|| {
        ["USER", "USERNAME"]
            .iter()
            .find_map(|v| std::env::var(v).ok().filter(|u| !u.is_empty()))
    });
    Ok(crate::import::Origin {
        machine,
        user,
        source: None,
    })
}

impl DatasetSpec {
    fn check(args: &ImportArgs) -> Result<Option<DatasetSpec>, AppError> {
        use crate::import::dataset::Anonymiser;
        let Some(dir) = &args.dataset else {
            return Ok(None);
        };
        let anonymiser = if args.anonymise {
            let salt = std::env::var(Anonymiser::SALT_VAR).unwrap_or_default();
            Some(Anonymiser::new(salt).ok_or_else(|| {
                InputError::new(format!(
                    "--anonymise: ${} is unset or shorter than 16 characters",
                    Anonymiser::SALT_VAR
                ))
                .with_help(format!(
                    "set {} to the team's shared secret (16 characters or more), the same on every machine, so the hashes of one name match",
                    Anonymiser::SALT_VAR
                ))
            })?)
        } else {
            None
        };
        if dir.exists() && !dir.is_dir() {
            return Err(
                InputError::new(format!("--dataset {}: not a folder", dir.display()))
                    .with_help("give the dataset's folder (made if missing)")
                    .into(),
            );
        }
        Ok(Some(DatasetSpec {
            dir: dir.clone(),
            anonymiser,
        }))
    }
}

impl ImportSpec {
    /// Checks the arguments of `tokencast import SOURCE`.
    pub(super) fn check(source: Source, args: &ImportArgs) -> Result<ImportSpec, AppError> {
        for (flag, d) in [("--since", &args.since), ("--until", &args.until)] {
            if let Some(d) = d {
                if crate::input::date(d).is_none() {
                    return Err(InputError::new(format!("{flag} {d}: not a date"))
                        .with_help("write the date as YYYY-MM-DD, e.g. 2026-11-30")
                        .into());
                }
            }
        }
        let trim = match &args.trim {
            None => Trim::None,
            Some(t) => Trim::parse(t).ok_or_else(|| {
                InputError::new(format!("--trim {t}: not a trim rule")).with_help(
                    "give the bytes kept per result (--trim 4096) or the share kept (--trim 25%)",
                )
            })?,
        };
        let mut saved = Vec::new();
        for p in &args.calibration {
            saved.push(Calibration::parse(&crate::files::read(p, "calibration")?)?);
        }
        let calibration = (!saved.is_empty()).then(|| {
            let names: Vec<String> = args
                .calibration
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            (Calibration::merge(&saved), names.join(" + "))
        });
        // A model a --variant names counts as compared when choosing the book.
        let wanted: Vec<String> = args
            .compare_model
            .iter()
            .cloned()
            .chain(
                args.variant
                    .iter()
                    .filter_map(|v| crate::import::variant::WhatIfVariant::model_of(v)),
            )
            .chain(args.unnamed_model.iter().cloned())
            .collect();
        let book = price_book(source, args.prices.as_deref(), &wanted)?;
        let variants = crate::import::variant::WhatIfVariant::check_all(
            &args.variant,
            &crate::pricing::PriceBook::parse(&book)?,
            today(),
        )?;
        Ok(ImportSpec {
            source,
            paths: log_paths(source, &args.paths)?,
            filter: Filter {
                since: args.since.clone(),
                until: args.until.clone(),
                project: args.project.clone(),
                session: args.session.clone(),
                follow_links: args.follow_links,
            },
            trim,
            variants,
            variant_texts: args.variant.clone(),
            trim_text: args.trim.clone().unwrap_or_default(),
            unnamed_model: args.unnamed_model.clone(),
            book,
            compare_models: args.compare_model.clone(),
            calibration,
            save_calibration: args.save_calibration.clone(),
            out: args.out.clone(),
            strict: args.strict,
            format: args.format,
            page: args.page.clone(),
            csv: args.csv.clone(),
            brief: args.brief,
            wide: args.wide,
            command: what_if_command(source, args),
            origin: origin(args)?,
            dataset: DatasetSpec::check(args)?,
        })
    }
}

/// What reading the logs staged.
struct Read {
    import: crate::import::Import,
    staging: output::Staging,
    /// Scenario files written.
    scenarios: usize,
    /// Sessions read (before any is written).
    sessions: usize,
    /// Every file staged, relative to `--out` (for the manifest).
    written: Vec<PathBuf>,
    /// The sessions for the dataset, when one is written (once `rows` is
    /// joined).
    dataset: Option<crate::import::dataset::store::Writer>,
    /// The rows' thread, until it is joined: the dataset's writer and the
    /// files of the folder's own copy of the sessions.
    rows: Option<RowsThread>,
    /// The folder copy's files, by path below its root, when the team's
    /// dataset holds the same rows (names not hidden there).
    encoded: crate::import::dataset::store::Encoded,
}

/// Threads per core the import's pool has (unless `RAYON_NUM_THREADS`
/// says otherwise): a log not in the page cache is read from the disk, and
/// while a thread waits for it the others keep the cores busy. The first
/// import of a machine's logs (2,866 small sessions, evicted from the
/// cache before each run, 5 interleaved rounds on 2 cores): 1.60 s on 2
/// threads, 1.26 s on 4, 1.36 s on 8; the 1 GB corpus 1.37 → 1.14 s; from
/// the page cache 1.18 → 1.14 s (`benches/HISTORY.md`, 2026-12-07,
/// 07:14–08:20).
const IMPORT_THREADS_PER_CORE: usize = 2;

/// The process's thread pool for an import (the first to ask sets it; a
/// process that set it already keeps its own).
fn import_pool() {
    let threads = if std::env::var_os("RAYON_NUM_THREADS").is_some() {
        0
    } else {
        std::thread::available_parallelism().map_or(1, usize::from) * IMPORT_THREADS_PER_CORE
    };
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
}

/// Runs a checked import: read and stage every session, sum them into the
/// document, stage the set's other files and the dataset's, then commit.
pub(super) fn run(spec: ImportSpec) -> Result<Outcome, AppError> {
    import_pool();
    let opts = summary::Options {
        source: spec.source.key(),
        trim: spec.trim,
        compare: &spec.compare_models,
        variants: &spec.variants,
        today: today(),
        calibration: spec.calibration.as_ref().map(|(c, _)| c),
        calibration_name: spec.calibration.as_ref().map_or("", |(_, n)| n.as_str()),
        unnamed_model: spec.unnamed_model.as_deref(),
    };
    let mut sum = summary::Summary::new(&spec.book, &opts)?;
    // A live page's what-if is replayed beside the import's own variants,
    // for its first answer.
    let page = (!spec.page.no_report).then(|| page_inputs(&spec, sum.first_compared()));
    if let Some(page) = &page {
        let what_if = page
            .as_ref()
            .ok()
            .and_then(|p| tokencast_web::page_what_if(&p.request).ok());
        sum.keep_for_page(crate::limits::MAX_LIVE_INPUT_BYTES, what_if);
    }
    // One tokencast at a time writes a set into --out.
    let lock = output::FolderLock::take(&spec.out)?;
    let mut read = read_and_stage(&spec, &mut sum)?;
    let fitted = spec
        .save_calibration
        .as_ref()
        .map(|p| (p, sum.calibration()));
    if let Some(e) = nothing_read(&spec, &read.import, read.sessions) {
        return Err(e.into());
    }
    let page_threads = sum.page_threads();
    // The page's first answer is worked out beside the summary's sums.
    let (doc, live) = std::thread::scope(|s| {
        let live = s.spawn(|| match (page, page_threads) {
            (Some(page), Some(read)) => live_import(page, read),
            _ => Err(String::new()),
        });
        let doc = sum.finish(&read.import);
        (doc, live.join().expect("the page's thread does not panic"))
    });
    strict(&spec, &doc)?;
    let stdout = stdout_of(
        &doc,
        spec.format,
        &crate::report::TerminalOptions {
            requests: false,
            width: terminal_width(),
            brief: spec.brief,
            wide: spec.wide,
        },
    );
    let mut notes = Vec::new();
    if lock.finished() > 0 {
        notes.push(format!(
            "finished the set a killed import had committed under {} ({} file(s)) before reading",
            spec.out.display(),
            lock.finished()
        ));
    }
    let manifests = stage_set(&spec, &doc, &mut read, fitted, live, &mut notes)?;
    // One tokencast at a time writes a machine's files of a dataset; other
    // machines' imports go on beside it.
    let _dataset_locks = stage_dataset(&spec, &mut read, &mut notes)?;
    commit(&spec, read, manifests, &mut notes)?;
    Ok(Outcome {
        stdout,
        notes,
        ..Outcome::default()
    })
}

/// With `--strict`, the first problem read is an error.
fn strict(spec: &ImportSpec, doc: &ImportDoc) -> Result<(), AppError> {
    if !spec.strict || doc.problems.is_empty() {
        return Ok(());
    }
    let p = &doc.problems[0];
    Err(InputError::new(format!(
        "{}: line {}: {} ({} problem(s) in all)",
        p.file,
        p.line,
        p.what,
        doc.problems.len()
    ))
    .with_help("without --strict, unreadable lines are listed and the rest is imported")
    .into())
}

/// The manifest of what an earlier import wrote under `--out`, and this one's.
type Manifests = (Option<Manifest>, Manifest);

/// Stages the set's files besides the sessions': the price book, the
/// manifest, a saved calibration, the page and the CSV tables.
fn stage_set(
    spec: &ImportSpec,
    doc: &ImportDoc,
    read: &mut Read,
    fitted: Option<(&PathBuf, crate::import::calibrate::Calibration)>,
    live: Result<crate::report::Live, String>,
    notes: &mut Vec<String>,
) -> Result<Manifests, AppError> {
    // The page is drawn beside the staging of the folder's own files.
    let (page, staged) = std::thread::scope(|s| {
        let page = s.spawn(|| {
            super::live_page_file(
                doc,
                Path::new(&format!("import-{}", spec.source.key())),
                &spec.page,
                "",
                live,
            )
        });
        let staged = (|| {
            if read.scenarios > 0 {
                stage_book(spec, read)?;
            }
            stage_folder_rows(spec, read)
        })();
        (
            page.join().expect("the page's thread does not panic"),
            staged,
        )
    });
    let page = page?;
    staged?;
    let previous = std::fs::read_to_string(spec.out.join(MANIFEST_FILE))
        .ok()
        .and_then(|t| Manifest::parse(&t));
    let manifest = Manifest::of(std::mem::take(&mut read.written));
    if !manifest.files.is_empty() || previous.is_some() {
        read.staging.stage(&PlannedFile {
            path: spec.out.join(MANIFEST_FILE),
            bytes: manifest.to_toml().into_bytes(),
            marker: Marker::Toml,
        })?;
    }
    if let Some((path, c)) = fitted {
        read.staging.stage(&PlannedFile {
            path: path.clone(),
            bytes: c.to_toml().into_bytes(),
            marker: Marker::Toml,
        })?;
        notes.push(format!(
            "wrote {} ({} model famil{})",
            path.display(),
            c.families.len(),
            if c.families.len() == 1 { "y" } else { "ies" }
        ));
    }
    if let Some(p) = &page {
        read.staging.stage(p)?;
        notes.push(format!("wrote {}", p.path.display()));
    }
    let tables = super::csv_files(doc, spec.csv.as_deref());
    for t in &tables {
        read.staging.stage(t)?;
    }
    if let (Some(dir), false) = (&spec.csv, tables.is_empty()) {
        notes.push(format!(
            "wrote {} table(s) as CSV under {}",
            tables.len(),
            dir.display()
        ));
    }
    Ok((previous, manifest))
}

/// Stages the folder's own copy of its sessions (`OUT/dataset`), listed in
/// its manifest like every file of the set, so that the next import into
/// the folder replaces it whole.
fn stage_folder_rows(spec: &ImportSpec, read: &mut Read) -> Result<(), AppError> {
    let Some(rows) = read.rows.take() else {
        return Ok(());
    };
    let (dataset, files) = rows.join().expect("the rows' thread does not panic")?;
    read.dataset = dataset;
    let root = spec.out.join(crate::import::dataset::store::FOLDER_ROWS);
    let shared = spec
        .dataset
        .as_ref()
        .is_some_and(|d| d.anonymiser.is_none());
    for (path, bytes) in files {
        let f = PlannedFile {
            path,
            bytes,
            marker: Marker::Parquet,
        };
        read.staging.stage(&f)?;
        if let Ok(rel) = f.path.strip_prefix(&spec.out) {
            read.written.push(rel.to_path_buf());
        }
        if let (true, Ok(rel)) = (shared, f.path.strip_prefix(&root)) {
            read.encoded.insert(rel.to_path_buf(), f.bytes);
        }
    }
    Ok(())
}

/// Stages the dataset's day files, holding each machine's lock until the
/// commit (the locks are returned).
fn stage_dataset(
    spec: &ImportSpec,
    read: &mut Read,
    notes: &mut Vec<String>,
) -> Result<Vec<output::FolderLock>, AppError> {
    let mut locks = Vec::new();
    if let (Some(writer), Some(d)) = (read.dataset.take(), &spec.dataset) {
        for m in writer.machines() {
            locks.push(output::FolderLock::take(&writer.lock_dir(m))?);
        }
        let (files, merged) = writer.files_reusing(&read.encoded)?;
        for (path, bytes) in files {
            read.staging.stage(&PlannedFile {
                path,
                bytes,
                marker: Marker::Parquet,
            })?;
        }
        notes.push(dataset_note(&d.dir, &merged));
    }
    Ok(locks)
}

/// Renames the staged set into place. The set under `--out` (and what the
/// last import wrote there and this one did not) changes whole, even
/// across a kill.
fn commit(
    spec: &ImportSpec,
    mut read: Read,
    (previous, manifest): Manifests,
    notes: &mut Vec<String>,
) -> Result<(), AppError> {
    read.staging.journal_in(spec.out.clone());
    for rel in previous
        .map(|p| p.left_behind(&manifest))
        .unwrap_or_default()
    {
        read.staging.remove_on_commit(rel);
    }
    let done = read.staging.commit()?;
    let removed = done.removed;
    if removed > 0 {
        notes.push(format!(
            "removed {removed} file(s) an earlier import wrote under {} and this one did not",
            spec.out.display()
        ));
    }
    if read.scenarios > 0 {
        notes.push(format!(
            "wrote {} scenario(s) and their traces under {}",
            read.scenarios,
            spec.out.display()
        ));
    }
    notes.extend(super::stale_note(&done));
    Ok(())
}

/// Threads that stage the sessions' files: making a file is mostly the
/// file system's work (an import of 3,000 small sessions makes about 6,000
/// files in 2,000 folders), and one thread making them fell behind the
/// reading and held it up.
const STAGERS: usize = 2;

/// The staging thread of a file: every file of a folder goes to the same
/// one, which checks and makes the folder.
fn stager_of(path: &Path) -> usize {
    use std::hash::{Hash, Hasher};
    // `DefaultHasher::new` hashes alike in every run: the same files go to
    // the same threads, and the set is staged in the same order.
    let mut h = std::hash::DefaultHasher::new();
    path.parent().hash(&mut h);
    (h.finish() % STAGERS as u64) as usize
}

/// Reads the logs and stages each session's files as it comes. Staging runs
/// on writer threads, so the waits on the disk overlap the reading; files
/// are renamed into place only at the end, so memory stays flat and a
/// failure leaves nothing behind.
fn read_and_stage(spec: &ImportSpec, sum: &mut summary::Summary) -> Result<Read, AppError> {
    use crate::import::dataset::store::SessionRows;
    let force = spec.page.force;
    let (send, writers): (Vec<_>, Vec<_>) = (0..STAGERS)
        .map(|_| {
            let (send, receive) = std::sync::mpsc::sync_channel::<PlannedFile>(128);
            let writer =
                std::thread::spawn(move || -> Result<output::Staging, output::OutputError> {
                    let mut staging = output::Staging::new(force);
                    for f in receive {
                        staging.stage(&f)?;
                    }
                    Ok(staging)
                });
            (send, writer)
        })
        .unzip();
    // The sessions' rows go to the dataset writers on a thread of their
    // own: taken in order there, they no longer hold up the summary of the
    // next sessions (a sixth of a 3,000-session import's time, on one core).
    let mut dataset = dataset_writer(spec);
    let mut folder = writer_into(
        spec,
        spec.out.join(crate::import::dataset::store::FOLDER_ROWS),
        None,
    );
    let makers = Makers {
        folder: folder.row_maker().clone(),
        // The team dataset's rows are the folder's unless names are hidden there.
        team: dataset
            .as_ref()
            .filter(|w| w.anonymises())
            .map(|w| w.row_maker().clone()),
    };
    let (send_rows, receive_rows) =
        std::sync::mpsc::sync_channel::<(SessionRows, Option<SessionRows>)>(64);
    let rows: RowsThread = std::thread::spawn(move || {
        for (own, team) in receive_rows {
            if let Some(d) = dataset.as_mut() {
                d.push(team.unwrap_or_else(|| own.clone()))?;
            }
            folder.push(own)?;
        }
        // The folder's copy is encoded as soon as its last rows are in,
        // while the summary and the page are made (it is not joined
        // until the set is staged).
        let (files, _) = folder.files()?;
        Ok((dataset, files))
    });
    let mut sessions_read = 0usize;
    let mut taker = Taker {
        spec,
        send,
        send_rows,
        makers,
        scenarios: 0,
        written: Vec::new(),
        deferred: Vec::new(),
        stopped: false,
    };
    let read = crate::import::read(
        spec.source,
        &spec.paths,
        &spec.filter,
        |sessions| -> Result<(), AppError> {
            sessions_read += sessions.len();
            taker.take(sum, sessions)
        },
    );
    // Every session read: the sessions held back for their families' fits,
    // a batch at a time as the reading took them, so that the writer
    // threads stage each batch's files while the next is prepared (taken
    // at once, the cores waited on the disk, then the disk on the cores).
    let read = read.and_then(|import| {
        sum.settle_families();
        let mut deferred = std::mem::take(&mut taker.deferred);
        while !deferred.is_empty() && !taker.stopped {
            let rest = deferred.split_off(deferred.len().min(crate::import::SESSIONS_AT_ONCE));
            taker.take(sum, deferred)?;
            deferred = rest;
        }
        Ok(import)
    });
    let Taker {
        send,
        send_rows,
        scenarios,
        written,
        ..
    } = taker;
    drop(send);
    drop(send_rows);
    // One set of every thread's files (the first error, in the threads'
    // order; the other threads' files are removed with their stagings).
    let staged =
        writers
            .into_iter()
            .fold(None, |set: Option<Result<output::Staging, _>>, writer| {
                let staged = writer.join().expect("a writer thread does not panic");
                Some(match (set, staged) {
                    (None, staged) => staged,
                    (Some(Ok(mut set)), Ok(more)) => {
                        set.merge(more);
                        Ok(set)
                    }
                    (Some(Err(e)), _) | (Some(Ok(_)), Err(e)) => Err(e),
                })
            });
    let staged = staged.expect("there are writer threads");
    // The sessions' files reach the disk while the dataset is made.
    if let Ok(staging) = &staged {
        staging.start_writing_back();
    }
    let import = read?;
    Ok(Read {
        import,
        staging: staged?,
        scenarios,
        sessions: sessions_read,
        written,
        dataset: None,
        rows: Some(rows),
        encoded: Default::default(),
    })
}

/// The thread the sessions' rows go to: it gives back the team dataset's
/// writer (with `--dataset`) and the files of the folder's own copy.
type RowsThread = std::thread::JoinHandle<
    Result<
        (
            Option<crate::import::dataset::store::Writer>,
            Vec<crate::import::dataset::store::FileBytes>,
        ),
        InputError,
    >,
>;

/// What the sessions' rows are built with, for the folder's own copy and,
/// where names are hidden there, for the team's dataset.
struct Makers {
    folder: crate::import::dataset::store::RowMaker,
    team: Option<crate::import::dataset::store::RowMaker>,
}

/// Takes the sessions read into the summary, stages their files and sends
/// their rows to the dataset writers, as they come.
struct Taker<'a> {
    spec: &'a ImportSpec,
    /// To the writer threads ([`stager_of`]).
    send: Vec<std::sync::mpsc::SyncSender<PlannedFile>>,
    /// To the rows' thread: the folder's rows, and the team's when they differ.
    send_rows: std::sync::mpsc::SyncSender<(
        crate::import::dataset::store::SessionRows,
        Option<crate::import::dataset::store::SessionRows>,
    )>,
    makers: Makers,
    scenarios: usize,
    written: Vec<PathBuf>,
    /// Sessions with a thread that waits for its family's fit.
    deferred: Vec<crate::import::Session>,
    /// A writer or the rows' thread stopped on an error (reported when it
    /// is joined): nothing more is taken.
    stopped: bool,
}

impl Taker<'_> {
    fn take(
        &mut self,
        sum: &mut summary::Summary,
        mut sessions: Vec<crate::import::Session>,
    ) -> Result<(), AppError> {
        use rayon::prelude::*;
        sum.name_unnamed(&mut sessions);
        // Each session worked out, and its rows built, in parallel.
        let (makers, summed) = (&self.makers, &*sum);
        let prepared: Vec<(Result<summary::Prepared, InputError>, Option<_>)> = sessions
            .par_iter()
            .map(|s| {
                let p = summed.prepare(s);
                let rows = p.as_ref().ok().filter(|p| !p.wants_family()).map(|p| {
                    let (row, replayed) = p.dataset_parts();
                    let team = makers.team.as_ref().map(|m| m.rows_of(s, row, replayed));
                    (makers.folder.rows_of(s, row, replayed), team)
                });
                (p, rows)
            })
            .collect();
        for ((p, rows), session) in prepared.into_iter().zip(sessions) {
            let p = p?;
            if p.wants_family() {
                sum.defer(p);
                self.deferred.push(session);
                continue;
            }
            // A closed channel means a thread stopped on an error, reported below.
            if let Some(rows) = rows {
                if self.send_rows.send(rows).is_err() {
                    self.stopped = true;
                    return Ok(());
                }
            }
            for f in sum.accept(p) {
                self.scenarios += usize::from(!f.csv);
                self.written.push(f.path.clone());
                let f = planned_in(self.spec, f)?;
                if self.send[stager_of(&f.path)].send(f).is_err() {
                    self.stopped = true;
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// The team dataset's writer, when `--dataset` is given.
fn dataset_writer(spec: &ImportSpec) -> Option<crate::import::dataset::store::Writer> {
    spec.dataset
        .as_ref()
        .map(|d| writer_into(spec, d.dir.clone(), Some(d)))
}

/// A writer of the sessions' rows into `root`: merged into a team's dataset
/// (`team`, with its anonymiser), or the folder's own copy, written alone.
/// Its provenance is the price book (name and digest) and the import's
/// assumptions.
fn writer_into(
    spec: &ImportSpec,
    root: PathBuf,
    team: Option<&DatasetSpec>,
) -> crate::import::dataset::store::Writer {
    use crate::import::dataset::store::Writer;
    let book = crate::scenario::input_file(&spec.book);
    let provenance = crate::import::dataset::Provenance {
        price_book: spec.book.name.clone(),
        price_book_sha256: book.sha256,
        assumptions: serde_json::json!({
            "trim": spec.trim.describe(),
            "compare_model": spec.compare_models.first(),
            "compare_models": spec.compare_models,
            "calibration": spec.calibration.as_ref().map(|(_, n)| n),
            "price_date": today().to_string(),
            "price_book": spec.book.name,
        })
        .to_string(),
    };
    match team {
        Some(d) => Writer::new(
            root,
            provenance,
            spec.origin.clone(),
            d.anonymiser.clone(),
            spec.source.key(),
        ),
        None => Writer::alone(root, provenance, spec.origin.clone(), spec.source.key()),
    }
}

/// A session's file as a file to write, confined to `--out` (a name from
/// the log that would leave it is an error).
fn planned_in(spec: &ImportSpec, f: summary::OutFile) -> Result<PlannedFile, AppError> {
    let path = output::name::confined(&spec.out, &f.path).map_err(|e| {
        InputError::new(format!(
            "{}: not written: {} would leave {}",
            e.path.display(),
            e.why,
            spec.out.display()
        ))
        .with_help("tokencast writes imported files only inside --out")
    })?;
    Ok(PlannedFile {
        path,
        marker: if f.csv { Marker::Trace } else { Marker::Toml },
        bytes: f.bytes,
    })
}

/// What an import added to the dataset, in one line.
fn dataset_note(dir: &Path, m: &crate::import::dataset::store::Merged) -> String {
    let mut note = format!(
        "added {} session(s) to the dataset {} ({} file(s))",
        m.sessions,
        dir.display(),
        m.files
    );
    if m.replaced > 0 {
        note.push_str(&format!(
            "; {} of them replaced an earlier import of the same session",
            m.replaced
        ));
    }
    if m.kept_newer > 0 {
        note.push_str(&format!(
            "; {} session(s) were left as they were: the dataset holds a newer import of each",
            m.kept_newer
        ));
    }
    note
}

/// The price book the scenarios name, copied beside them.
fn stage_book(spec: &ImportSpec, read: &mut Read) -> Result<(), AppError> {
    let text = if spec.book.text.starts_with("# tokencast ") {
        spec.book.text.clone()
    } else {
        format!(
            "# tokencast price book, copied from {} by `tokencast import`.\n{}",
            spec.book.name, spec.book.text
        )
    };
    read.staging.stage(&PlannedFile {
        path: spec.out.join(summary::BOOK_FILE),
        bytes: text.into_bytes(),
        marker: Marker::Toml,
    })?;
    read.written.push(PathBuf::from(summary::BOOK_FILE));
    Ok(())
}
