//! `tokencast forecast`: one scenario's runs drawn from its distributions,
//! or many imported sessions' costs resampled into days and months.

use super::args::ForecastArgs;
use super::{
    corpus, csv_files, gate, live_inputs, live_page_file, plain_stdout, spec, today, with_variants,
    write, Leftovers, Outcome,
};
use crate::analysis::forecast;
use crate::document::{self};
use crate::error::AppError;
use crate::output::PlannedFile;
use crate::scenario::Scenario;

pub(super) fn run_forecast(args: ForecastArgs) -> Result<Outcome, AppError> {
    let gates = gate::stats(&args.fail_over)?;
    if args.paths.len() > 1 || args.paths[0].is_dir() || corpus::is_dataset(&args.paths[0]) {
        return run_corpus_forecast(args, &gates);
    }
    if args.weights.is_some() {
        return Err(crate::error::InputError::new(
            "--weights needs several scenarios or a directory of sessions",
        )
        .with_help("give each kind of session as its own PATH, e.g. `forecast research/ coding/ --weights research=3,coding=1`")
        .into());
    }
    gate::per_run_only(&gates)?;
    let scenario_path = &args.paths[0];
    let spec = spec::forecast_spec(&args)?;
    let today = today();
    // The page carries its engine's inputs only when the scenario is the
    // file's own (a `--variant` lives on the command line only).
    let (loaded, given) = if args.variant.is_empty() {
        let loaded = crate::files::load_recorded(
            scenario_path,
            Some(today),
            crate::limits::MAX_LIVE_INPUT_BYTES,
        )?;
        (Some(loaded), None)
    } else {
        (None, Some(with_variants(scenario_path, &args.variant)?))
    };
    let scenario = match (&loaded, &given) {
        (Some(l), _) => &l.scenario,
        (None, Some(s)) => s,
        (None, None) => unreachable!("one of the two is loaded"),
    };
    let (sampler, planned) = forecast::sampler_for(scenario, &spec)?;
    spec::check_capabilities(&args.capabilities, &sampler)?;
    let sampler = sampler.only(&args.capabilities);
    let (threads, capped) = spec::threads(args.threads);
    let mut doc = forecast_with_progress(scenario, &spec, &sampler, threads)?;
    doc.planned = planned;
    let mut leftovers = Leftovers::default();
    let live = match loaded {
        Some(loaded) => {
            let controls =
                crate::report::html::controls::scenario_controls(&loaded.scenario, &loaded.models);
            live_inputs(loaded, today, false, Vec::new(), &mut leftovers, |_| controls).map(|mut l| {
                l.request.forecast = Some(tokencast_web::ForecastRun {
                    spec: spec.clone(),
                    capabilities: args.capabilities.clone(),
                });
                l
            })
        }
        None => Err(
            "its variants given with --variant are not in the scenario file; add them to the file for a page that recomputes"
                .to_string(),
        ),
    };
    let stdout = plain_stdout(&doc, args.format, args.brief);
    let mut files: Vec<PlannedFile> =
        live_page_file(&doc, scenario_path, &args.page, "-forecast", live)?
            .into_iter()
            .collect();
    files.extend(csv_files(&doc, args.csv.as_deref()));
    let mut outcome = write(stdout, files, args.page.force)?;
    outcome.notes.extend(capped);
    outcome.gates_crossed = gate::check_forecast(&doc, &gates);
    outcome.leftovers = leftovers;
    Ok(outcome)
}

/// `forecast` over several scenarios or directories of sessions.
pub(super) fn run_corpus_forecast(
    args: ForecastArgs,
    gates: &[gate::Gate<gate::StatOf>],
) -> Result<Outcome, AppError> {
    if !args.variant.is_empty() {
        return Err(crate::error::InputError::new(
            "--variant adds a variant to one scenario's forecast, not to many sessions",
        )
        .with_help("import the sessions with `import … --variant '{…}'`: their scenarios then carry it, and the forecast over them too")
        .into());
    }
    let spec = spec::corpus_spec(&args)?;
    let (threads, capped) = spec::threads(args.threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| AppError::Render(e.to_string()))?;
    let (corpus, spec) = pool.install(|| -> Result<_, AppError> {
        let loaded = corpus::load(&args.paths, today())?;
        let weights = args
            .weights
            .as_deref()
            .map(|w| corpus::weights(w, &loaded.recorded.kinds))
            .transpose()?;
        let corpus = crate::analysis::corpus::Corpus {
            recorded: loaded.recorded,
            left_out: loaded.left_out,
            currency: loaded.currency,
            price_date: loaded.price_date,
            inputs: loaded.inputs,
            sessions_left_out: loaded
                .unpriced
                .iter()
                .map(|(s, m)| format!("{s} (`{m}` is not in the price book)"))
                .collect(),
        };
        Ok((
            corpus,
            crate::analysis::corpus::CorpusSpec { weights, ..spec },
        ))
    })?;
    let doc = pool.install(|| corpus.forecast(&spec));
    let live = corpus_live(&args, corpus, spec);
    let stdout = plain_stdout(&doc, args.format, args.brief);
    let mut files: Vec<PlannedFile> =
        live_page_file(&doc, &args.paths[0], &args.page, "-forecast", live)?
            .into_iter()
            .collect();
    files.extend(csv_files(&doc, args.csv.as_deref()));
    let mut outcome = write(stdout, files, args.page.force)?;
    outcome.notes.extend(capped);
    outcome.gates_crossed = gate::check_corpus(&doc, gates);
    Ok(outcome)
}

/// What a corpus forecast's page needs to forecast again at other runs a
/// day and working days: the sessions' costs, and the command's words that
/// do not change (its paths, weights, days and seed), so the page can give
/// the command of the reader's what-if.
pub(super) fn corpus_live(
    args: &ForecastArgs,
    corpus: crate::analysis::corpus::Corpus,
    spec: crate::analysis::corpus::CorpusSpec,
) -> Result<crate::report::Live, String> {
    let mut command: Vec<String> = vec!["tokencast".into(), "forecast".into()];
    command.extend(args.paths.iter().map(|p| p.display().to_string()));
    if let Some(w) = &args.weights {
        command.extend(["--weights".into(), w.clone()]);
    }
    command.extend([
        "--runs".into(),
        spec.days.to_string(),
        "--seed".into(),
        spec.seed.to_string(),
    ]);
    let size = serde_json::to_vec(&corpus).map_or(usize::MAX, |j| j.len());
    if size > crate::limits::MAX_LIVE_INPUT_BYTES {
        return Err(super::past_page_limit(
            &format!("its {} sessions' costs", corpus.recorded.sessions.len()),
            size,
        ));
    }
    let controls = crate::report::html::controls::corpus_controls(&spec);
    Ok(crate::report::Live {
        request: tokencast_web::Request {
            name: "forecast".into(),
            scenario: String::new(),
            files: Default::default(),
            today: None,
            all_rows: false,
            changes: Default::default(),
            figures: Vec::new(),
            compared: Vec::new(),
            forecast: None,
            import: None,
            corpus: Some(tokencast_web::CorpusRun {
                corpus,
                spec,
                command,
            }),
        },
        controls,
        blocks: Vec::new(),
    })
}

/// Runs the forecast on its own thread pool with a progress bar on stderr
/// (hidden when stderr is not a terminal); Ctrl-C stops it and writes nothing.
pub(super) fn forecast_with_progress(
    scenario: &Scenario,
    spec: &forecast::ForecastSpec,
    sampler: &forecast::Sampler,
    threads: Option<usize>,
) -> Result<document::Forecast, AppError> {
    use std::sync::atomic::Ordering;
    // The process's Ctrl-C flag (see `output::interrupt`).
    let cancel = crate::output::interrupt::flag();
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(spec.runs),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} runs ({eta} left)")
            .expect("a valid template"),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| AppError::Render(e.to_string()))?;
    let progress = |n: u64| bar.inc(n);
    let result = pool.install(|| forecast::run(scenario, spec, sampler, cancel, &progress));
    bar.finish_and_clear();
    match result {
        Ok(_) if cancel.load(Ordering::SeqCst) => Err(AppError::Interrupted),
        Ok(doc) => Ok(doc),
        Err(forecast::ForecastError::Input(e)) => Err(e.into()),
        Err(forecast::ForecastError::Interrupted) => Err(AppError::Interrupted),
    }
}
