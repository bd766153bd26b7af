//! Opens the committed-style report in headless Chromium from `file://` and
//! checks what a reader would see: every chart rendered with its labels, no
//! console errors, no network request, and a full-page screenshot under
//! `target/`. Needs Debian's `chromium` (installed by `.ci/run`). `build.rs`
//! looks for it: without it the test is reported as *ignored* with the
//! reason, and `browser_is_installed_in_ci` fails when `CI` is set.

mod common;
use base64::Engine;
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::{Log, Network, Page, Runtime};
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
    let chrome = chromium().expect("build.rs found Chromium");

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
        .window_size(Some((1200, 900)))
        .user_data_dir(Some(profile.path().to_path_buf()))
        .args(args)
        .build()
        .unwrap();
    let browser = Browser::new(options).expect("launch chromium");
    let tab = browser.new_tab().unwrap();

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

    let url = format!("file://{}", report.display());
    tab.navigate_to(&url)
        .unwrap()
        .wait_until_navigated()
        .unwrap();

    // Every chart is in the DOM with its title and axis labels.
    let probe = r#"JSON.stringify(Array.from(document.querySelectorAll('figure.chart')).map(f => ({
        id: f.id,
        svgs: f.querySelectorAll('svg').length,
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
        assert_eq!(chart["svgs"], 1, "{id} has no SVG");
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
