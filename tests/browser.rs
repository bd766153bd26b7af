//! Opens the committed-style report in headless Chromium from `file://` and
//! checks what a reader would see: every chart rendered with its labels, no
//! console errors, no network request, and a full-page screenshot under
//! `target/`. Needs Debian's `chromium` (installed by `.ci/run`). `build.rs`
//! looks for it: without it the test is reported as *ignored* with the
//! reason, and `browser_is_installed_in_ci` fails when `CI` is set.

mod common;
use base64::Engine;
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::{Emulation, Log, Network, Page, Runtime};
use headless_chrome::{Browser, LaunchOptions};
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

fn chromium() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("CHROMIUM").map(PathBuf::from),
        Some(PathBuf::from("/usr/bin/chromium")),
        Some(PathBuf::from("/usr/bin/chromium-browser")),
    ];
    candidates.into_iter().flatten().find(|p| p.exists())
}

/// Headless Chromium with a fresh profile and no background traffic (the
/// profile folder lives as long as the second value).
fn launch() -> (Browser, tempfile::TempDir) {
    let chrome = chromium().expect("build.rs found Chromium");
    let profile = tempfile::tempdir().unwrap();
    let args: Vec<&OsStr> = [
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
        "--disable-gpu",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    let options = LaunchOptions::default_builder()
        .path(Some(chrome))
        .sandbox(false)
        .headless(true)
        .window_size(Some((1280, 900)))
        .user_data_dir(Some(profile.path().to_path_buf()))
        .args(args)
        .build()
        .unwrap();
    (Browser::new(options).expect("launch chromium"), profile)
}

type Seen = Arc<Mutex<Vec<String>>>;

/// The tab's requests and its errors (console, log, uncaught exceptions).
fn watch(tab: &headless_chrome::Tab) -> (Seen, Seen) {
    let requests = Arc::new(Mutex::new(Vec::<String>::new()));
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    {
        let requests = Arc::clone(&requests);
        let errors = Arc::clone(&errors);
        tab.add_event_listener(Arc::new(move |event: &Event| match event {
            Event::NetworkRequestWillBeSent(e) => {
                requests.lock().unwrap().push(e.params.request.url.clone());
            }
            Event::LogEntryAdded(e) if e.params.entry.level == Log::LogEntryLevel::Error => {
                errors.lock().unwrap().push(e.params.entry.text.clone());
            }
            Event::RuntimeConsoleAPICalled(e)
                if e.params.Type == Runtime::ConsoleAPICalledEventTypeOption::Error =>
            {
                errors
                    .lock()
                    .unwrap()
                    .push(format!("console.error: {:?}", e.params.args));
            }
            Event::RuntimeExceptionThrown(e) => {
                errors
                    .lock()
                    .unwrap()
                    .push(format!("exception: {}", e.params.exception_details.text));
            }
            _ => {}
        }))
        .unwrap();
    }
    tab.enable_log().unwrap().enable_runtime().unwrap();
    let enable: Network::Enable = serde_json::from_value(serde_json::json!({})).unwrap();
    tab.call_method(enable).unwrap();
    (requests, errors)
}

#[test]
fn browser_is_installed_in_ci() {
    if std::env::var_os("CI").is_some() {
        assert!(
            chromium().is_some() && cfg!(has_chromium),
            "Chromium is not installed; .ci/run installs Debian's `chromium` package"
        );
    }
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "Chromium not found: apt-get install chromium (or set CHROMIUM=/path/to/chrome), then rebuild"
)]
fn report_renders_in_a_real_browser_without_errors_or_network() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("research.html");
    let out = common::tokencast()
        .args([
            "simulate",
            "scenarios/research.toml",
            "--format",
            "json",
            "--report",
        ])
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let (browser, _profile) = launch();
    let tab = browser.new_tab().unwrap();
    let (requests, errors) = watch(&tab);

    let url = format!("file://{}", report.display());
    tab.navigate_to(&url)
        .unwrap()
        .wait_until_navigated()
        .unwrap();

    // Every chart is in the DOM with its title and axis labels.
    let probe = r#"JSON.stringify(Array.from(document.querySelectorAll('figure.chart')).map(f => ({
        id: f.id,
        svgs: f.querySelectorAll('svg').length,
        narrow: f.querySelectorAll('.narrow svg').length,
        text: Array.from(f.querySelectorAll('svg text')).map(t => t.textContent).join('|'),
        width: f.querySelector('svg') ? f.querySelector('svg').getBoundingClientRect().width : 0
    })))"#;
    let value = tab.evaluate(probe, false).unwrap().value.unwrap();
    let charts: Vec<serde_json::Value> = serde_json::from_str(value.as_str().unwrap()).unwrap();
    let expected = [
        (
            "chart-context",
            &[
                "(a) Input tokens per request",
                "request in the run",
                "input tokens (thousands)",
                "raw results",
            ][..],
        ),
        (
            "chart-bytes",
            &["(b) Bytes per tool call", "tool call", "response size (KB"][..],
        ),
        (
            "chart-variants",
            &[
                "(c) Cost of one run per variant",
                "USD per run",
                "raw, no cache",
                "cache writes",
                "data fee",
            ][..],
        ),
        (
            "chart-attribution",
            &[
                "(d) Input cost attributed to each tool result",
                "USD per run",
                "tool call",
            ][..],
        ),
        (
            "chart-composition",
            &[
                "(e) Mean response per capability",
                "reddit/search",
                "kept (trimmed)",
                "cut",
            ][..],
        ),
        (
            "chart-latency",
            &[
                "(f) Median latency per capability",
                "median latency (seconds)",
                "youtube/comments",
            ][..],
        ),
        (
            "chart-retry",
            &[
                "(g) Retry break-even",
                "attempts for 20 accepted answers",
                "break-even: 25 attempts",
            ][..],
        ),
        (
            "chart-lifetime",
            &[
                "(h) Cache tier vs model time per step",
                "model time per step (seconds)",
                "trimmed, 1h tier",
            ][..],
        ),
        (
            "chart-restart",
            &[
                "(i) Extra cost of one restart",
                "restart before request",
                "extra USD per run",
            ][..],
        ),
        (
            "chart-context-management",
            &[
                "(j) Prompt per request: plain, compacted, cleared",
                "plain (every result stays)",
                "compaction above",
                "clearing results after",
            ][..],
        ),
        (
            "chart-context-compaction",
            &[
                "(k) Compaction: model cost by threshold",
                "compaction threshold (prompt tokens)",
                "cheapest:",
            ][..],
        ),
        (
            "chart-context-clearing",
            &[
                "(l) Clearing: model cost by steps kept",
                "requests a result stays (k)",
                "cheapest:",
            ][..],
        ),
        (
            "chart-cumulative",
            &[
                "Cumulative spend over twelve months (upper bound)",
                "USD, cumulative",
                "month",
                "raw, no cache",
            ][..],
        ),
    ];
    assert_eq!(charts.len(), expected.len(), "{charts:?}");
    for (id, labels) in expected {
        let chart = charts
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("{id} missing"));
        // The wide drawing and the narrow one (shown on phones).
        assert_eq!(chart["svgs"], 2, "{id} has not both drawings");
        assert_eq!(chart["narrow"], 1, "{id} has no narrow drawing");
        assert!(
            chart["width"].as_f64().unwrap() > 300.0,
            "{id} is not laid out"
        );
        let text = chart["text"].as_str().unwrap();
        for label in labels {
            assert!(text.contains(label), "{id}: {label:?} not in {text}");
        }
    }

    // Full-page screenshot.
    let height = tab
        .evaluate("document.documentElement.scrollHeight", false)
        .unwrap()
        .value
        .unwrap()
        .as_f64()
        .unwrap();
    let shot = tab
        .call_method(Page::CaptureScreenshot {
            format: Some(Page::CaptureScreenshotFormatOption::Png),
            quality: None,
            clip: Some(Page::Viewport {
                x: 0.0,
                y: 0.0,
                width: 1200.0,
                height,
                scale: 1.0,
            }),
            from_surface: Some(true),
            capture_beyond_viewport: Some(true),
            optimize_for_speed: None,
        })
        .unwrap();
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot.data)
        .unwrap();
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target).unwrap();
    let path = target.join("report-screenshot.png");
    std::fs::write(&path, &png).unwrap();
    assert!(png.len() > 50_000, "screenshot suspiciously small");
    assert!(height > 2000.0, "page height {height}");
    eprintln!("screenshot: {} ({height} px tall)", path.display());

    let errors = errors.lock().unwrap();
    assert!(errors.is_empty(), "console errors: {errors:?}");
    let requests = requests.lock().unwrap();
    assert!(
        !requests.is_empty(),
        "no request observed at all: the listener is not working"
    );
    let external: Vec<&String> = requests
        .iter()
        .filter(|u| !u.starts_with("file://") && !u.starts_with("data:"))
        .collect();
    assert!(external.is_empty(), "network requests: {external:?}");
}

/// What a reader sees of a simulation page's figures, read the same way
/// from the live page and from the command line's page.
const PROBE: &str = r#"(async () => {
  await window.tokencast.ready;
  const text = e => e.textContent;
  const rows = t => [...t.querySelectorAll('caption, tr')]
    .map(r => r.children.length ? [...r.children].map(text).join('\t') : r.textContent);
  return JSON.stringify({
    headline: Object.fromEntries([...document.querySelectorAll('[data-headline]')]
      .map(e => [e.dataset.headline, e.textContent])),
    facts: [...document.querySelectorAll('#facts dt, #facts dd')].map(text),
    tables: Object.fromEntries([...document.querySelectorAll('table[data-table]')]
      .map(t => [t.dataset.table, rows(t)])),
    lists: Object.fromEntries([...document.querySelectorAll('ul[data-block]')]
      .map(u => [u.dataset.block, [...u.children].map(text)])),
    charts: Object.fromEntries([...document.querySelectorAll('figure.chart')]
      .map(f => [f.id, f.innerHTML])),
  });
})()"#;

fn eval_json(tab: &headless_chrome::Tab, js: &str) -> serde_json::Value {
    let value = tab
        .evaluate(js, true)
        .unwrap_or_else(|e| panic!("{e}: {js}"))
        .value
        .unwrap_or_else(|| panic!("no value: {js}"));
    serde_json::from_str(value.as_str().expect("a JSON string")).unwrap()
}

/// Fails a live page's test in a build without the page's engine.
fn engine_built() {
    if cfg!(no_web_engine) {
        panic!("this build has no page engine (see build.rs's warning)");
    }
}

/// The research scenario's live page in a folder of its own, and a browser.
struct LivePage {
    dir: tempfile::TempDir,
    page: PathBuf,
    browser: Browser,
    _profile: tempfile::TempDir,
}

fn live_page() -> LivePage {
    engine_built();
    let (dir, page) = research_copy();
    let (browser, _profile) = launch();
    LivePage {
        dir,
        page,
        browser,
        _profile,
    }
}

/// The research scenario's files, copied where a downloaded what-if can
/// sit beside them, and its live page.
fn research_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for f in [
        "research.toml",
        "prices/anthropic.toml",
        "traces/research-trace.csv",
    ] {
        let to = dir.path().join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root.join(f), &to).unwrap();
    }
    let page = dir.path().join("research.html");
    common::succeeded(
        common::tokencast()
            .arg("simulate")
            .arg(dir.path().join("research.toml"))
            .arg("--report")
            .arg(&page),
    );
    (dir, page)
}

/// A random value for a control: one of a select's options, or a number in
/// the range a planner would try.
fn random_value(rng: &mut rand_pcg::Pcg64, param: &str, options: &[serde_json::Value]) -> String {
    use rand::RngExt;
    if !options.is_empty() {
        return options[rng.random_range(0..options.len())]
            .as_str()
            .unwrap()
            .to_string();
    }
    let pick =
        |rng: &mut rand_pcg::Pcg64, xs: &[&str]| xs[rng.random_range(0..xs.len())].to_string();
    match param {
        "assumptions.runs_per_day" => rng.random_range(1..5000u32).to_string(),
        "assumptions.prefix_tokens" => rng.random_range(0..40_000u32).to_string(),
        "assumptions.output_tokens_per_step" => rng.random_range(0..4000u32).to_string(),
        "assumptions.final_output_tokens" => rng.random_range(0..8000u32).to_string(),
        "assumptions.bytes_per_token" => pick(rng, &["2", "3", "3.5", "4", "4.25", "5"]),
        "assumptions.tokenizer_uplift" => pick(rng, &["1", "1.1", "1.25", "1.3", "1.45", "2"]),
        "assumptions.trim" => pick(rng, &["", "4096", "25%", "100000", "1%"]),
        "cache_lifetime.model_seconds_per_step" => {
            pick(rng, &["0", "5", "20", "45.5", "120", "400"])
        }
        "context_management.summary_tokens" => rng.random_range(100..6000u32).to_string(),
        // Lists: thresholds above the research run's prefix and summary,
        // steps kept from 0 to 17.
        "context_management.thresholds" => {
            pick(rng, &["60000", "60000, 90000", "45000, 120000, 150000", ""])
        }
        "context_management.keep_steps" => pick(rng, &["[0]", "[1, 3]", "[2, 4, 8, 16]", "[]"]),
        "plan.working_days_per_week" | "working_days_per_week" => {
            rng.random_range(1..=7u32).to_string()
        }
        // A corpus forecast's runs a day; now and then one out of range.
        "runs_per_day" => pick(rng, &["1", "2", "5", "12", "0", "3"]),
        "assumptions.team_size" | "team_size" => pick(rng, &["1", "2", "7", "40", "0"]),
        // An import page's trim rule (empty: none; "half" is refused).
        "variant.trim" => pick(rng, &["", "4096", "25%", "100", "1%", "half"]),
        "plan.monthly_growth" => pick(rng, &["0", "0.02", "0.05", "0.1"]),
        "plan.budget_per_month" => pick(rng, &["500", "5000", "50000", "250000"]),
        other => panic!("no range for {other}"),
    }
}

/// The live page's probe equals the command line's, or the first place they
/// differ is named.
fn assert_same(live: &serde_json::Value, cli: &serde_json::Value, set: &str) {
    for part in ["headline", "facts", "tables", "lists", "charts"] {
        let (a, b) = (&live[part], &cli[part]);
        if a == b {
            continue;
        }
        if let (Some(a), Some(b)) = (a.as_object(), b.as_object()) {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                assert_eq!(
                    a.get(k),
                    b.get(k),
                    "{set}: {part}.{k} differs (live, then command line)"
                );
            }
        }
        assert_eq!(a, b, "{set}: {part} differs (live, then command line)");
    }
}

/// How a page's what-ifs are checked: the command that made it (its
/// subcommand, then the options after the scenario; none when the page
/// gives the whole command of its what-if instead of a scenario), the
/// settings tried first, and the least numbers of controls and figures.
struct WhatIfCheck<'a> {
    command: &'a [&'a str],
    min_controls: usize,
    first: &'a [(&'a str, &'a str)],
    min_figures: usize,
    seed: u64,
}

/// Sets at least 20 random what-ifs on the live page at `page`, in `dir`
/// beside its scenario's files: each one the page computes is run by the
/// command line on the scenario the page downloads, and every `data-figure`,
/// table, list and chart is the same, character for character; each one the
/// page refuses, the command line refuses with exit code 2.
fn what_ifs_equal_the_command_lines(
    dir: &std::path::Path,
    page: &std::path::Path,
    check: &WhatIfCheck,
) {
    use rand::{RngExt, SeedableRng};
    let (browser, _profile) = launch();
    let tab = browser.new_tab().unwrap();
    let (requests, errors) = watch(&tab);
    let url = format!("file://{}", page.display());
    let all = open_controls(&tab, &url);
    let all = all.as_array().unwrap().clone();
    assert!(all.len() >= check.min_controls, "{all:?}");
    let mut rng = rand_pcg::Pcg64::seed_from_u64(check.seed);
    let (mut compared, mut refused) = (0, 0);
    // The command line of a what-if: the page's command with the scenario
    // it wrote, or the command it gave.
    let command_line = |what_if: &std::path::Path, text: &str| {
        let mut c = common::tokencast();
        match check.command.split_first() {
            Some((command, options)) => {
                std::fs::write(what_if, text).unwrap();
                c.arg(command).arg(what_if).args(options);
            }
            None => {
                let words = shlex::split(text).expect("a shell command");
                assert_eq!(words[0], "tokencast", "{text}");
                c.args(&words[1..]);
            }
        }
        c
    };
    let command = check.command.first().copied().unwrap_or("forecast");
    for attempt in 0..80 {
        if compared >= 24 {
            break;
        }
        if attempt > 0 {
            open_controls(&tab, &url);
        }
        // One to four controls changed at once, after the settings tried first.
        let n = if attempt == 0 {
            0
        } else {
            rng.random_range(1..5)
        };
        let mut settings = serde_json::Map::new();
        if attempt == 0 {
            for (k, v) in check.first {
                settings.insert(k.to_string(), v.to_string().into());
            }
        }
        for _ in 0..n {
            let c = &all[rng.random_range(0..all.len())];
            let param = c["param"].as_str().unwrap();
            let value = random_value(&mut rng, param, c["options"].as_array().unwrap());
            settings.insert(param.to_string(), value.into());
        }
        let set = serde_json::Value::Object(settings.clone()).to_string();
        let answer = eval_json(
            &tab,
            &format!(
                r#"(async () => {{
                  await window.tokencast.ready;
                  const want = {set};
                  for (const [k, v] of Object.entries(want)) {{
                    const c = document.querySelector(`[data-param="${{k}}"]`);
                    c.value = v;
                    c.dispatchEvent(new Event('change'));
                  }}
                  const a = window.tokencast.answer() || {{}};
                  const figures = Object.fromEntries([...document.querySelectorAll('[data-figure]')]
                    .map(e => [e.dataset.figure, e.dataset.value]));
                  return JSON.stringify({{ status: a.status || 'none', scenario: a.scenario,
                    changes: window.tokencast.changes(), figures,
                    hash: location.hash, error: document.querySelector('#live-error').textContent }});
                }})()"#
            ),
        );
        let changed = answer["changes"].as_object().unwrap();
        if changed.is_empty() {
            continue; // every value drawn was the scenario's own
        }
        let scenario = answer["scenario"].as_str();
        let what_if = dir.join(format!("what-if-{attempt}.toml"));
        let cli_page = dir.join(format!("what-if-{attempt}.html"));
        if answer["status"] != "ok" {
            // The page refused the what-if; the command line refuses the
            // same scenario, with exit code 2.
            refused += 1;
            let error = answer["error"].as_str().unwrap();
            assert!(error.starts_with("Not recomputed: "), "{answer}");
            if let Some(text) = scenario {
                let out = command_line(&what_if, text)
                    .arg("--no-report")
                    .output()
                    .unwrap();
                assert_eq!(out.status.code(), Some(2), "{set}: {error}");
            }
            continue;
        }
        let live = eval_json(&tab, PROBE);
        let out = command_line(&what_if, scenario.unwrap())
            .args(["--format", "json", "--report"])
            .arg(&cli_page)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{set}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // Every data-figure is the JSON document's value, character for character.
        common::assert_figures(&answer["figures"], &json, &set, check.min_figures);
        tab.navigate_to(&format!("file://{}", cli_page.display()))
            .unwrap()
            .wait_until_navigated()
            .unwrap();
        let cli = eval_json(&tab, PROBE);
        assert_same(&live, &cli, &set);
        compared += 1;
    }
    eprintln!(
        "live {command} page: {compared} what-ifs equal to the command line's, {refused} refused by both"
    );
    assert!(compared >= 20, "only {compared} what-ifs were compared");
    quiet_and_offline(&requests, &errors);
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "Chromium not found: apt-get install chromium (or set CHROMIUM=/path/to/chrome), then rebuild"
)]
fn a_live_pages_figures_equal_the_command_lines_on_the_downloaded_scenario() {
    engine_built();
    let (dir, page) = research_copy();
    what_ifs_equal_the_command_lines(
        dir.path(),
        &page,
        &WhatIfCheck {
            command: &["simulate"],
            min_controls: 7 + 5 + 3 * 6,
            // First, the two lists.
            first: &[
                ("context_management.thresholds", "[60000, 90000]"),
                ("context_management.keep_steps", "[2, 4]"),
            ],
            // The Answer box's and the six variants' figures.
            min_figures: 6 * 10 + 6,
            seed: 20_261_201,
        },
    );
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "Chromium not found: apt-get install chromium (or set CHROMIUM=/path/to/chrome), then rebuild"
)]
fn a_live_forecast_pages_figures_equal_the_command_lines_on_the_downloaded_scenario() {
    engine_built();
    let (dir, _) = research_copy();
    let options = [
        "--calls", "20", "--runs", "4000", "--seed", "11", "--budget", "5",
    ];
    let page = dir.path().join("research-forecast.html");
    common::succeeded(
        common::tokencast()
            .arg("forecast")
            .arg(dir.path().join("research.toml"))
            .args(options)
            .arg("--report")
            .arg(&page),
    );
    let mut command = vec!["forecast"];
    command.extend(options);
    what_ifs_equal_the_command_lines(
        dir.path(),
        &page,
        &WhatIfCheck {
            command: &command,
            // The run's seven, six variants' three.
            min_controls: 7 + 3 * 6,
            first: &[("assumptions.trim", "25%"), ("variants.0.cache", "1h")],
            // Each of the six variants: its name, six percentiles, the
            // mean and the share over the budget.
            min_figures: 6 * 9,
            seed: 20_261_202,
        },
    );
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "Chromium not found: apt-get install chromium (or set CHROMIUM=/path/to/chrome), then rebuild"
)]
fn a_live_corpus_forecast_gives_the_command_of_its_what_if_and_the_command_agrees() {
    engine_built();
    // The Claude Code fixtures' sessions, imported, then forecast.
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    common::succeeded(
        common::tokencast()
            .args(["import", "claude-code"])
            .arg(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code"),
            )
            .arg("--out")
            .arg(&sessions)
            .arg("--no-report"),
    );
    let page = dir.path().join("sessions-forecast.html");
    common::succeeded(
        common::tokencast()
            .arg("forecast")
            .arg(&sessions)
            .args([
                "--runs",
                "300",
                "--runs-per-day",
                "4",
                "--working-days",
                "5",
            ])
            .arg("--report")
            .arg(&page),
    );
    what_ifs_equal_the_command_lines(
        dir.path(),
        &page,
        &WhatIfCheck {
            command: &[],
            min_controls: 2,
            // First, one the command line refuses too.
            first: &[("runs_per_day", "0")],
            min_figures: 0,
            seed: 20_261_203,
        },
    );
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "Chromium not found: apt-get install chromium (or set CHROMIUM=/path/to/chrome), then rebuild"
)]
fn a_live_pages_address_reopens_the_same_what_if() {
    let LivePage {
        dir: _dir,
        page,
        browser,
        _profile,
    } = live_page();
    let tab = browser.new_tab().unwrap();
    tab.navigate_to(&format!("file://{}", page.display()))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    let before = eval_json(&tab, PROBE);
    let changed = eval_json(
        &tab,
        r#"(async () => {
          await window.tokencast.ready;
          const c = document.querySelector('[data-param="assumptions.runs_per_day"]');
          c.value = '250';
          c.dispatchEvent(new Event('change'));
          return JSON.stringify({ href: location.href, changes: window.tokencast.changes() });
        })()"#,
    );
    let href = changed["href"].as_str().unwrap().to_string();
    assert!(href.ends_with("#assumptions.runs_per_day=250"), "{href}");
    let after = eval_json(&tab, PROBE);
    assert_ne!(before, after, "the change moved no figure");
    // The charts are drawn again: the twelve months' spend scales with the
    // runs a day, the per-run charts do not move.
    assert_eq!(after["charts"].as_object().unwrap().len(), 13);
    assert_ne!(
        after["charts"]["chart-cumulative"],
        before["charts"]["chart-cumulative"]
    );
    assert_eq!(
        after["charts"]["chart-variants"],
        before["charts"]["chart-variants"]
    );
    // $10.346 a run saved × 250 runs a day (hand-checked from the seed's
    // $10.346315625 per run): $2,586.58 a day.
    assert_eq!(after["headline"]["saving_per_day"], "$2,586.58");
    assert_eq!(after["headline"]["runs_per_day"], "250");

    // A fresh tab opened at the address shows the same what-if.
    let other = browser.new_tab().unwrap();
    other
        .navigate_to(&href)
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    let reopened = eval_json(&other, PROBE);
    assert_eq!(reopened, after);
    let value = eval_json(
        &other,
        r#"JSON.stringify(document.querySelector('[data-param="assumptions.runs_per_day"]').value)"#,
    );
    assert_eq!(value, "250");

    // Reset puts every figure back and clears the address.
    let reset = eval_json(
        &other,
        r#"(async () => { document.querySelector('#live-reset').click();
          return JSON.stringify(location.hash); })()"#,
    );
    assert_eq!(reset, "");
    assert_eq!(eval_json(&other, PROBE), before);
}

/// Every chart label's size as drawn (its font size × the SVG's scale), the
/// page's width against the window's, and the widest table box.
const SIZES: &str = r#"JSON.stringify((() => {
  const sizes = [];
  let shown = 0, narrow = 0, scrolls = 0;
  for (const svg of document.querySelectorAll('figure svg')) {
    const width = svg.getBoundingClientRect().width;
    // The drawing this screen does not show is not drawn at all.
    if (width === 0) { continue; }
    shown += 1;
    if (svg.viewBox.baseVal.width < 880) { narrow += 1; }
    const figure = svg.closest('figure');
    if (figure.scrollWidth > figure.clientWidth) { scrolls += 1; }
    const scale = width / svg.viewBox.baseVal.width;
    for (const t of svg.querySelectorAll('text')) {
      sizes.push(parseFloat(getComputedStyle(t).fontSize) * scale);
    }
  }
  return {
    texts: sizes.length,
    smallest: Math.min(...sizes),
    shown, narrow, scrolls,
    page: document.documentElement.scrollWidth,
    window: window.innerWidth,
  };
})())"#;

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "Chromium not found: apt-get install chromium (or set CHROMIUM=/path/to/chrome), then rebuild"
)]
fn at_400_pixels_charts_are_redrawn_narrow_with_text_of_11_px_or_more() {
    let dir = tempfile::tempdir().unwrap();
    let pages = [
        (
            "research.html",
            vec!["simulate", "scenarios/research.toml", "--models", "*"],
        ),
        (
            "forecast.html",
            vec![
                "forecast",
                "scenarios/research.toml",
                "--calls",
                "20",
                "--runs",
                "2000",
            ],
        ),
        (
            "sweep.html",
            vec![
                "sweep",
                "scenarios/research.toml",
                "--vary",
                "cache=none,5m,1h",
            ],
        ),
        // A two-axis sweep: a heat map whose cells carry their figures.
        (
            "sweep-grid.html",
            vec![
                "sweep",
                "scenarios/research.toml",
                "--vary",
                "calls=10..40:10",
                "--vary",
                "output_tokens_per_step=250..1000:250",
            ],
        ),
    ];
    let (browser, _profile) = launch();
    for (name, args) in pages {
        let page = dir.path().join(name);
        let out = common::tokencast()
            .args(&args)
            .arg("--report")
            .arg(&page)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // A phone's viewport (a window cannot be that narrow), then a laptop's.
        for width in [400u32, 1280] {
            let tab = browser.new_tab().unwrap();
            tab.call_method(Emulation::SetDeviceMetricsOverride {
                width,
                height: 900,
                device_scale_factor: 1.0,
                mobile: width < 800,
                scale: None,
                screen_width: None,
                screen_height: None,
                position_x: None,
                position_y: None,
                dont_set_visible_size: None,
                screen_orientation: None,
                viewport: None,
                display_feature: None,
                device_posture: None,
            })
            .unwrap();
            tab.navigate_to(&format!("file://{}", page.display()))
                .unwrap()
                .wait_until_navigated()
                .unwrap();
            let v = tab.evaluate(SIZES, false).unwrap().value.unwrap();
            let got: serde_json::Value = serde_json::from_str(v.as_str().unwrap()).unwrap();
            // A screenshot of the page under target/, to look at.
            let shot = tab
                .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
                .unwrap();
            let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
            std::fs::create_dir_all(&target).unwrap();
            let path = target.join(format!("screenshot-{width}px-{name}.png"));
            std::fs::write(&path, &shot).unwrap();
            assert!(shot.len() > 10_000, "{name}: screenshot suspiciously small");
            assert!(
                got["window"].as_f64().unwrap() <= f64::from(width),
                "{name}: {got}"
            );
            assert!(got["texts"].as_u64().unwrap() > 10, "{name}: {got}");
            assert!(
                got["smallest"].as_f64().unwrap() >= 11.0,
                "{name} at {width}: {got}"
            );
            // Every chart shown is the drawing for the screen's width, and
            // none scrolls.
            assert!(got["shown"].as_u64().unwrap() > 0, "{name}: {got}");
            let narrow = if width < 800 {
                got["shown"].as_u64()
            } else {
                Some(0)
            };
            assert_eq!(got["narrow"].as_u64(), narrow, "{name} at {width}: {got}");
            assert_eq!(got["scrolls"], 0, "{name} at {width}: {got}");
            // Wide tables scroll inside their own box: the page itself is
            // no wider than the window.
            assert!(
                got["page"].as_f64().unwrap() <= got["window"].as_f64().unwrap(),
                "{name} at {width}: {got}"
            );
        }
    }
}

/// An import's page replays its threads again on the reader's what-if: for
/// 20 random settings of its controls, every figure the page shows is the
/// one `tokencast import … --variant` gives with the command the page
/// downloads, character for character; a what-if the page refuses, the
/// command line refuses with exit code 2. The import's own `--variant`
/// keeps its row (and its figures' places) before the page's.
#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "Chromium not found: apt-get install chromium (or set CHROMIUM=/path/to/chrome), then rebuild"
)]
fn a_live_import_pages_what_if_equals_the_command_lines_variant() {
    use rand::{RngExt, SeedableRng};
    engine_built();
    let dir = tempfile::tempdir().unwrap();
    let fixtures =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code");
    let page = dir.path().join("import.html");
    let given = r#"{ name = "haiku, trimmed", results = "trimmed", model = "claude-haiku-4-5" }"#;
    common::succeeded(
        common::tokencast()
            .current_dir(dir.path())
            .args(["import", "claude-code"])
            .arg(&fixtures)
            .args(["--out", "imported", "--variant", given, "--report"])
            .arg(&page),
    );
    let (browser, _profile) = launch();
    let tab = browser.new_tab().unwrap();
    let (requests, errors) = watch(&tab);
    let url = format!("file://{}", page.display());
    let all = open_controls(&tab, &url).as_array().unwrap().clone();
    let params: Vec<&str> = all.iter().map(|c| c["param"].as_str().unwrap()).collect();
    assert_eq!(
        params,
        [
            "variant.model",
            "variant.results",
            "variant.cache",
            "variant.mode",
            "variant.trim"
        ]
    );
    let mut rng = rand_pcg::Pcg64::seed_from_u64(20_261_203);
    let (mut compared, mut refused) = (0, 0);
    for attempt in 0..60 {
        if compared >= 20 {
            break;
        }
        if attempt > 0 {
            open_controls(&tab, &url);
        }
        let mut settings = serde_json::Map::new();
        if attempt == 0 {
            // First a trim rule of the page's own, on every variant's
            // trimmed results (the import's own variant's too).
            settings.insert("variant.results".into(), "trimmed".into());
            settings.insert("variant.trim".into(), "1%".into());
        }
        for c in all.iter().filter(|_| attempt > 0) {
            if rng.random_range(0..3) > 0 {
                let param = c["param"].as_str().unwrap();
                let value = random_value(&mut rng, param, c["options"].as_array().unwrap());
                settings.insert(param.to_string(), value.into());
            }
        }
        let set = serde_json::Value::Object(settings).to_string();
        let answer = eval_json(
            &tab,
            &format!(
                r#"(async () => {{
                  await window.tokencast.ready;
                  for (const [k, v] of Object.entries({set})) {{
                    const c = document.querySelector(`[data-param="${{k}}"]`);
                    c.value = v;
                    c.dispatchEvent(new Event('change'));
                  }}
                  const a = window.tokencast.answer() || {{}};
                  const figures = Object.fromEntries([...document.querySelectorAll('[data-figure]')]
                    .map(e => [e.dataset.figure, e.dataset.value]));
                  const what_if = [...document.querySelectorAll('table[data-table="import_what_if"] td')]
                    .map(td => td.textContent);
                  return JSON.stringify({{ status: a.status || 'none', command: a.scenario,
                    changes: window.tokencast.changes(), figures, what_if,
                    error: document.querySelector('#live-error').textContent }});
                }})()"#
            ),
        );
        if answer["changes"].as_object().unwrap().is_empty() {
            continue;
        }
        let command = || {
            let mut c = common::tokencast();
            c.current_dir(dir.path());
            let text = answer["command"].as_str().unwrap();
            let words = shlex::split(text).expect("a shell command");
            assert_eq!(words[0], "tokencast", "{text}");
            c.args(&words[1..]);
            c
        };
        if answer["status"] != "ok" {
            refused += 1;
            // The command line refuses the same --variant with exit code 2,
            // and the page's message is its message.
            let error = answer["error"].as_str().unwrap();
            let out = command().output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{set}: {error}");
            let first = error.trim_start_matches("Not recomputed: ");
            let first = first.lines().next().unwrap();
            assert!(
                String::from_utf8_lossy(&out.stderr).contains(first),
                "{set}: {first}"
            );
            continue;
        }
        let out = command().args(["--format", "json"]).output().unwrap();
        assert!(
            out.status.success(),
            "{set}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // Both variants' figures: the import's own first, the page's second.
        common::assert_figures(&answer["figures"], &json, &set, 14);
        if attempt == 0 {
            let words = shlex::split(answer["command"].as_str().unwrap()).unwrap();
            assert!(words.windows(2).any(|w| w == ["--trim", "1%"]), "{words:?}");
        }
        assert_eq!(json["variants"][1]["variant"]["name"], "what if", "{set}");
        assert_eq!(answer["what_if"][0], "what if", "{set}");
        compared += 1;
    }
    eprintln!(
        "live import page: {compared} what-ifs equal to the command line's, {refused} refused"
    );
    assert!(compared >= 20, "only {compared} what-ifs were compared");
    quiet_and_offline(&requests, &errors);
}

/// The page logged no error and asked for nothing beyond the file itself.
fn quiet_and_offline(requests: &Seen, errors: &Seen) {
    let errors = errors.lock().unwrap();
    assert!(errors.is_empty(), "console errors: {errors:?}");
    let external: Vec<String> = requests
        .lock()
        .unwrap()
        .iter()
        .filter(|u| !u.starts_with("file://") && !u.starts_with("data:") && !u.starts_with("blob:"))
        .cloned()
        .collect();
    assert!(external.is_empty(), "network requests: {external:?}");
}

/// Opens the page at `url` and waits for its engine: each control's
/// `data-param`, with a select's options.
fn open_controls(tab: &headless_chrome::Tab, url: &str) -> serde_json::Value {
    tab.navigate_to(url)
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    eval_json(
        tab,
        r#"(async () => { await window.tokencast.ready; return JSON.stringify(
            [...document.querySelectorAll('[data-param]')].map(c => ({
              param: c.dataset.param,
              options: c.tagName === 'SELECT' ? [...c.options].map(o => o.value) : []
            }))); })()"#,
    )
}
