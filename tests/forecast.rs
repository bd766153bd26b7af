//! Forecast: convergence to the recorded distributions, the exact answer for
//! a degenerate trace, determinism across threads, interruption and errors.

mod common;
use common::tokencast;
use rust_decimal::prelude::ToPrimitive;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use tokencast::analysis::forecast::{self, ForecastError, ForecastSpec, Method, Sampler};
use tokencast::engine::{simulate, SimulateOptions};
use tokencast::scenario::Scenario;

fn research() -> Scenario {
    tokencast::files::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/research.toml"),
        None,
    )
    .unwrap()
}

/// The research scenario whose trace is `times` copies of its row for `call`.
fn research_with_call(call: u32, times: usize) -> Scenario {
    research_with_call_and(call, times, "")
}

/// [`research_with_call`] with `extra` added under `[assumptions]`.
fn research_with_call_and(call: u32, times: usize, extra: &str) -> Scenario {
    research_with_sections(call, times, "", extra)
}

/// [`research_with_call_and`] with `section` added before `[assumptions]`.
fn research_with_sections(call: u32, times: usize, section: &str, extra: &str) -> Scenario {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    research_in(&root, call, times, section, extra)
}

/// [`research_with_sections`] read from the folder `root` (its price book
/// under `prices/`).
fn research_in(root: &Path, call: u32, times: usize, section: &str, extra: &str) -> Scenario {
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let csv = std::fs::read_to_string(scenarios.join("traces/research-trace.csv")).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    let row = lines.find(|l| l.starts_with(&format!("{call},"))).unwrap();
    let trace = tokencast::input::SourceText {
        name: "research-trace.csv".into(),
        text: format!("{header}\n{}", format!("{row}\n").repeat(times)),
    };
    let mut src = tokencast::files::read(&scenarios.join("research.toml"), "scenario").unwrap();
    src.text = src.text.replace(
        "[assumptions]\n",
        &format!("{section}[assumptions]\n{extra}"),
    );
    let given = tokencast::scenario::Given {
        trace: Some(&trace),
        ..Default::default()
    };
    tokencast::files::check(&src, root, None, given).unwrap()
}

fn spec(calls: u64, runs: u64) -> ForecastSpec {
    ForecastSpec {
        calls,
        runs,
        seed: 7,
        method: Method::Bootstrap,
        budget: None,
    }
}

fn run(s: &Scenario, spec: &ForecastSpec) -> forecast::Forecast {
    let sampler = Sampler::new(s.trace(), spec.method).unwrap();
    forecast::run(s, spec, &sampler, &AtomicBool::new(false), &|_| {})
        .unwrap_or_else(|_| panic!("forecast failed"))
}

/// The exact distribution of one bootstrap draw's raw bytes, enumerated from
/// the trace: a recorded result (its capability: the mix), a recorded call of
/// that capability (its items), and a recorded call with results (its bytes
/// per item). Returns (bytes, probability) pairs.
fn exact_one_call(s: &Scenario) -> Vec<(f64, f64)> {
    let results: Vec<_> = s.trace().iter().filter(|c| c.enters_context()).collect();
    let mut out = Vec::new();
    for r in &results {
        let same: Vec<_> = results
            .iter()
            .filter(|c| c.capability == r.capability)
            .collect();
        let with_items: Vec<_> = same.iter().filter(|c| c.items > 0).collect();
        for call in &same {
            let p = 1.0 / results.len() as f64 / same.len() as f64;
            if call.items == 0 {
                out.push((call.raw_bytes.unwrap() as f64, p));
                continue;
            }
            for per in &with_items {
                let bytes =
                    (call.items as f64 * per.raw_bytes.unwrap() as f64 / per.items as f64).round();
                out.push((bytes, p / with_items.len() as f64));
            }
        }
    }
    out
}

fn inverse_cdf(dist: &[(f64, f64)], q: f64) -> f64 {
    let mut d = dist.to_vec();
    d.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut acc = 0.0;
    for (x, p) in &d {
        acc += p;
        if acc >= q - 1e-12 {
            return *x;
        }
    }
    d.last().unwrap().0
}

#[test]
fn bootstrap_converges_to_the_recorded_distribution() {
    // Tolerances at 200,000 runs: the mean within 0.5 %; each percentile q lies
    // between the exact distribution's (q − 0.01) and (q + 0.01) quantiles,
    // widened by the sketch's 0.1 % relative accuracy. (The distribution is
    // discrete, so a fixed relative tolerance would fail at its jumps.)
    let s = research();
    let f = run(&s, &spec(1, 200_000));
    let dist = exact_one_call(&s);
    let mean: f64 = dist.iter().map(|(x, p)| x * p).sum();
    let rel = |a: f64, b: f64| (a - b).abs() / b;
    assert!(
        rel(f.mean_raw_bytes_per_result, mean) < 0.005,
        "{} vs {mean}",
        f.mean_raw_bytes_per_result
    );
    // Final context of a one-call run, lower bound: P + o + bytes ÷ 4.
    let a = &s.assumptions();
    let tokens = |bytes: f64| (a.prefix_tokens + a.output_tokens_per_step) as f64 + bytes / 4.0;
    let raw = &f.context[0];
    let got_mean = raw.lower.mean.to_f64().unwrap();
    assert!(
        rel(got_mean, tokens(mean)) < 0.005,
        "mean {got_mean} vs {}",
        tokens(mean)
    );
    for (i, q) in [(0, 0.5), (1, 0.9), (2, 0.99)] {
        let lo = tokens(inverse_cdf(&dist, q - 0.01)) * 0.999;
        let hi = tokens(inverse_cdf(&dist, (q + 0.01_f64).min(1.0))) * 1.001;
        let got = raw.lower.percentiles()[i].to_f64().unwrap();
        assert!(
            lo <= got && got <= hi,
            "p{}: {got} not in [{lo}, {hi}]",
            q * 100.0
        );
    }
}

#[test]
fn lognormal_fit_is_maximum_likelihood_on_logs() {
    let s = research();
    let sampler = Sampler::new(s.trace(), Method::Lognormal).unwrap();
    let fits = sampler.fits();
    let yc = fits
        .iter()
        .find(|f| f.capability == "youtube/search")
        .unwrap();
    // Two calls with 10 items each: μ = ln 10, σ = 0.
    let items = yc.items.unwrap();
    assert!((items.mu - 10f64.ln()).abs() < 1e-12 && items.sigma == 0.0);
    // Bytes per item 2,873.6 and 2,513: μ = mean of logs, σ = half their difference.
    let per = yc.raw_bytes_per_item.unwrap();
    let (a, b) = (2873.6f64.ln(), 2513f64.ln());
    assert!((per.mu - (a + b) / 2.0).abs() < 1e-9);
    assert!((per.sigma - (a - b).abs() / 2.0).abs() < 1e-9);
    // The fitted model's mean bytes per result lands near the recorded mean.
    let f = run(
        &s,
        &ForecastSpec {
            method: Method::Lognormal,
            ..spec(1, 100_000)
        },
    );
    let recorded: f64 = s
        .trace()
        .iter()
        .filter(|c| c.enters_context())
        .map(|c| c.raw_bytes.unwrap() as f64)
        .sum::<f64>()
        / 18.0;
    assert!(
        (f.mean_raw_bytes_per_result / recorded - 1.0).abs() < 0.25,
        "{}",
        f.mean_raw_bytes_per_result
    );
}

#[test]
fn degenerate_trace_gives_the_exact_closed_form() {
    // The research scenario with its trace cut to call 9, three and five
    // times over: every bootstrap draw is the same call.
    degenerate_run_is_the_engines("");
}

#[test]
fn degenerate_timed_trace_gives_the_exact_cost_with_its_expiries() {
    // 400 s of model time a step: every gap outlives the 5-minute cache
    // (each such request writes its whole prompt), none the hour.
    degenerate_run_is_the_engines("[timing]\nmodel_seconds_per_step = 400\n\n");
}

#[test]
fn degenerate_trace_with_a_minimum_cacheable_length_gives_the_exact_cost() {
    // A minimum cacheable length (a rule: every drawn run is walked through
    // it) between the first prompts and the last, timed so that the
    // 5-minute cache also expires.
    let dir = tempfile::tempdir().unwrap();
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let book = std::fs::read_to_string(scenarios.join("prices/anthropic.toml")).unwrap();
    let book = book.replace(
        "[models.claude-fable-5-2]\n",
        "[models.claude-fable-5-2]\nmin_cacheable_tokens = 5000\n",
    );
    std::fs::create_dir(dir.path().join("prices")).unwrap();
    std::fs::write(dir.path().join("prices/anthropic.toml"), book).unwrap();
    let with = |times| {
        let timing = "[timing]\nmodel_seconds_per_step = 400\n\n";
        research_in(dir.path(), 9, times, timing, "")
    };
    let five = with(5);
    let exact = simulate(&five, SimulateOptions::TOTALS);
    let uncacheable: Vec<u64> = exact
        .variants
        .iter()
        .map(|v| v.uncacheable_requests)
        .collect();
    assert!(uncacheable.iter().any(|u| *u > 0), "{uncacheable:?}");
    assert!(
        uncacheable.iter().any(|u| *u > 0 && *u < 6),
        "{uncacheable:?}"
    );
    degenerate_run_matches(&with(3), &exact);
}

/// [`degenerate_trace_gives_the_exact_closed_form`] with `section` before
/// the scenario's `[assumptions]`.
fn degenerate_run_is_the_engines(section: &str) {
    let with = |times| research_with_sections(9, times, section, "");
    // Every run is the same five calls: the engine's answer for that run.
    let five = with(5);
    let exact = simulate(&five, SimulateOptions::TOTALS);
    if !section.is_empty() {
        let expiries: Vec<u64> = exact.variants.iter().map(|v| v.expiries).collect();
        // The research variants: raw, raw 5m, trimmed, trimmed 5m, trimmed 1h, batch 5m.
        assert_eq!(
            expiries,
            [0, 5, 0, 5, 0, 5],
            "five gaps after the first request"
        );
    }
    degenerate_run_matches(&with(3), &exact);
}

/// A forecast of 3,000 runs of five calls drawn from `s` (its trace one
/// call, repeated) reports `exact`, the engine's answer for those five
/// calls, on every variant and percentile.
fn degenerate_run_matches(s: &Scenario, exact: &tokencast::engine::Simulation) {
    let f = run(s, &spec(5, 3_000));
    for (fv, ev) in f.variants.iter().zip(&exact.variants) {
        for (q, e) in [
            (&fv.cost_lower, ev.cost.total.lower - ev.cost.data_fee.lower),
            (&fv.cost_upper, ev.cost.total.upper - ev.cost.data_fee.upper),
        ] {
            // Every percentile is clamped to the exact extremes, so a run
            // that never varies reports the engine's figure exactly.
            assert_eq!(q.p50, q.p99, "{}: all percentiles equal", fv.name);
            assert_eq!(q.min, q.max);
            assert_eq!(q.p90, e.normalize(), "{}", fv.name);
            assert_eq!(q.mean, e.normalize(), "{}", fv.name);
        }
    }
    let ctx = exact
        .profile(tokencast::scenario::Content::Raw)
        .final_request_input;
    assert_eq!(f.context[0].lower.p50, ctx.lower.normalize());
}

#[test]
fn a_forecast_weighs_each_drawn_result_by_its_kind() {
    // The degenerate trace again, its tool output counting 1.5 bytes of
    // the band a byte: every run is the engine's weighed run, and the
    // results' tokens in the last request are 1.5 times the unweighed ones.
    let weights = "content_weights = { output = 1.5 }\n";
    let s = research_with_call_and(9, 3, weights);
    let f = run(&s, &spec(5, 1_000));
    let five = research_with_call_and(9, 5, weights);
    let exact = simulate(&five, SimulateOptions::TOTALS);
    for (fv, ev) in f.variants.iter().zip(&exact.variants) {
        assert_eq!(
            fv.cost_lower.p50,
            (ev.cost.total.lower - ev.cost.data_fee.lower).normalize()
        );
    }
    let a = s.assumptions();
    let base = rust_decimal::Decimal::from(a.prefix_tokens + 5 * a.output_tokens_per_step);
    let plain = run(&research_with_call(9, 3), &spec(5, 1_000));
    assert_eq!(
        f.context[0].lower.p50 - base,
        (plain.context[0].lower.p50 - base) * rust_decimal::Decimal::new(15, 1)
    );
}

#[test]
fn cancelled_forecast_returns_nothing() {
    let s = research();
    let sampler = Sampler::new(s.trace(), Method::Bootstrap).unwrap();
    let r = forecast::run(
        &s,
        &spec(20, 100_000),
        &sampler,
        &AtomicBool::new(true),
        &|_| {},
    );
    assert!(matches!(r, Err(ForecastError::Interrupted)));
}

fn cli(args: &[&str]) -> std::process::Output {
    tokencast()
        .args(["forecast", "scenarios/research.toml", "--no-report"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn same_seed_same_output_on_one_and_two_threads() {
    let one = cli(&[
        "--calls",
        "60",
        "--runs",
        "30000",
        "--seed",
        "1",
        "--threads",
        "1",
        "--format",
        "json",
    ]);
    let two = cli(&[
        "--calls",
        "60",
        "--runs",
        "30000",
        "--seed",
        "1",
        "--threads",
        "2",
        "--format",
        "json",
    ]);
    assert!(
        one.status.success(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    assert_eq!(one.stdout, two.stdout);
    let other = cli(&[
        "--calls",
        "60",
        "--runs",
        "30000",
        "--seed",
        "2",
        "--threads",
        "2",
        "--format",
        "json",
    ]);
    assert_ne!(one.stdout, other.stdout, "the seed matters");
    // Not a terminal: no progress bar on stderr.
    assert!(
        one.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
}

#[test]
fn table_states_the_percentile_method_and_budget() {
    let out = cli(&["--calls", "20", "--runs", "20000", "--budget", "1.00"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("DDSketch") && text.contains("floor(q·(n−1))"));
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains("runs over budget (upper bound)"), "{text}");
    assert!(text.contains("Set the task budget at the p99 of the upper bound"));
    assert!(text.contains("compare the upper bound"));
    assert!(text.contains("runs over the window"));
}

#[test]
fn rejects_bad_parameters() {
    for (args, msg) in [
        (vec!["--calls", "20", "--runs", "0"], "--runs is 0"),
        (vec!["--calls", "0", "--runs", "10"], "--calls is 0"),
        (
            vec!["--calls", "5", "--capability", "reddit/serch"],
            "no recorded data for this capability",
        ),
        (
            vec!["--calls", "5", "--budget", "lots"],
            "--budget lots: not an amount in USD",
        ),
    ] {
        let out = cli(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
    let err =
        String::from_utf8(cli(&["--calls", "5", "--capability", "reddit/serch"]).stderr).unwrap();
    assert!(err.contains("did you mean `reddit/search`?"), "{err}");
}

#[test]
fn ctrl_c_stops_cleanly_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("f.html");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_tokencast"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "forecast",
            "scenarios/research.toml",
            "--calls",
            "200",
            // 2 × 10⁸ draws, the most a forecast may ask for: long enough to interrupt.
            "--runs",
            "1000000",
            "--report",
        ])
        .arg(&report)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted: nothing was written"));
    assert!(!report.exists());
}

#[test]
fn writes_the_forecast_page_with_histograms_and_fan() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("f.html");
    let out = tokencast()
        .args([
            "forecast",
            "scenarios/research.toml",
            "--calls",
            "60",
            "--runs",
            "20000",
            "--report",
        ])
        .arg(&page)
        .output()
        .unwrap();
    assert!(out.status.success());
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        html.matches("chart-forecast-histogram-").count(),
        6,
        "one histogram per variant"
    );
    assert!(html.contains("chart-forecast-fan"));
    assert!(html.contains("Context size against the number of calls"));
}

#[test]
fn the_answer_is_the_budget_of_the_cheapest_and_dearest_variant() {
    // Every run is the same five calls (as above), so each variant's p99 of
    // the upper bound is the engine's upper total for those five calls less
    // the data fee; the answer names the least and the most of them.
    let s = research_with_call(9, 3);
    let f = run(&s, &spec(5, 3_000));
    let exact = simulate(&research_with_call(9, 5), SimulateOptions::TOTALS);
    let upper: Vec<(String, rust_decimal::Decimal)> = exact
        .variants
        .iter()
        .map(|v| {
            (
                v.variant.variant.name.clone(),
                (v.cost.total.upper - v.cost.data_fee.upper).normalize(),
            )
        })
        .collect();
    let least = upper.iter().min_by_key(|(_, c)| *c).unwrap();
    let most = upper.iter().max_by_key(|(_, c)| *c).unwrap();
    let a = f.answer.as_ref().expect("a forecast with variants answers");
    assert_eq!(
        (&a.cheapest.variant, a.cheapest.per_run),
        (&least.0, least.1)
    );
    assert_eq!((&a.dearest.variant, a.dearest.per_run), (&most.0, most.1));
    assert_eq!((a.runs, a.calls), (3_000, 5));
}

#[test]
fn brief_prints_only_the_budget_and_the_json_opens_with_it() {
    let brief = cli(&[
        "--calls", "20", "--runs", "2000", "--brief", "--budget", "3",
    ]);
    assert!(brief.status.success());
    let text = String::from_utf8(brief.stdout).unwrap();
    assert!(text.contains("Answer: budget $"), "{text}");
    assert!(
        text.contains("Runs over the $3.00 budget a run (upper bound)"),
        "{text}"
    );
    assert!(!text.contains("Cost per run of"), "{text}");
    // The full output carries the same answer, before its tables.
    let full = String::from_utf8(cli(&["--calls", "20", "--runs", "2000", "--budget", "3"]).stdout)
        .unwrap();
    let answer = text.lines().find(|l| l.starts_with("Answer:")).unwrap();
    let at = full.find(answer).expect("the full output has the answer");
    assert!(at < full.find("Cost per run of").unwrap(), "{full}");
    // The JSON's first field after its marker is the answer, and it agrees
    // with the variants' own p99 of the upper bound.
    let json = cli(&["--calls", "20", "--runs", "2000", "--format", "json"]);
    let raw = String::from_utf8(json.stdout).unwrap();
    let keys: Vec<&str> = raw
        .lines()
        .filter(|l| l.starts_with("  \"") && !l.starts_with("   "))
        .map(|l| l.trim_start().split('"').nth(1).unwrap())
        .take(3)
        .collect();
    assert_eq!(keys, ["generator", "document", "answer"]);
    let doc: serde_json::Value = serde_json::from_str(&raw).unwrap();
    let budgets: Vec<f64> = doc["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["cost_upper"]["p99"].as_str().unwrap().parse().unwrap())
        .collect();
    let cheapest: f64 = doc["answer"]["cheapest"]["per_run"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let dearest: f64 = doc["answer"]["dearest"]["per_run"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        cheapest,
        budgets.iter().cloned().fold(f64::INFINITY, f64::min)
    );
    assert_eq!(dearest, budgets.iter().cloned().fold(0.0, f64::max));
}

#[test]
fn a_variant_added_to_a_forecast_prices_the_same_draws() {
    // The research scenario's sixth variant is trimmed, 5-minute cache,
    // batch. The same settings under another name are priced on the same
    // drawn runs, so every percentile is the same to the last digit.
    let out = cli(&[
        "--calls",
        "20",
        "--runs",
        "2000",
        "--format",
        "json",
        "--variant",
        r#"{ name = "again", results = "trimmed", cache = "5m", mode = "batch" }"#,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let variant = |name: &str| {
        doc["variants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("no variant {name}"))
            .clone()
    };
    let (own, again) = (variant("trimmed, 5-min cache, batch"), variant("again"));
    assert_eq!(own["cost_lower"], again["cost_lower"]);
    assert_eq!(own["cost_upper"], again["cost_upper"]);
    // A tier the named model does not price, or a name already taken, is
    // refused with exit code 2, naming the --variant.
    for (given, says) in [
        (
            r#"{ name = "x", results = "raw", model = "claude-fable-5-1", cache = "5m" }"#,
            "--variant 1",
        ),
        (
            r#"{ name = "raw, no cache", results = "raw" }"#,
            "already named `raw, no cache`",
        ),
    ] {
        let out = cli(&["--calls", "5", "--runs", "100", "--variant", given]);
        assert_eq!(out.status.code(), Some(2), "{given}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{given}: {err}");
    }
}
