//! Forecast from many sessions: exact toy corpora for the sampler and the
//! percentiles, the one-sided p99 bound, determinism across threads, and
//! the command on scenario files and on an imported directory.

mod common;
use common::*;
use rust_decimal::Decimal;
use std::fs;
use std::path::Path;
use tokencast::analysis::corpus::{self, CorpusSpec, Recorded, SessionCost};
use tokencast::engine::Bounds;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn corpus_of(kinds: &[&str], sessions: &[(usize, &str)]) -> Recorded {
    Recorded {
        kinds: kinds.iter().map(|k| k.to_string()).collect(),
        variants: vec!["v".into()],
        sessions: sessions
            .iter()
            .enumerate()
            .map(|(i, (kind, cost))| SessionCost {
                name: format!("s{i}"),
                kind: *kind,
                cost: vec![Bounds::exact(d(cost))],
            })
            .collect(),
    }
}

fn spec(weights: Option<Vec<&str>>, runs_per_day: u64) -> CorpusSpec {
    CorpusSpec {
        weights: weights.map(|w| w.into_iter().map(d).collect()),
        runs_per_day,
        team_size: 1,
        working_days_per_week: 7,
        days: 100_000,
        seed: 7,
    }
}

fn pct(p: &corpus::PeriodCost, n: u8) -> Decimal {
    p.percentiles
        .iter()
        .find(|x| x.percentile == n)
        .unwrap()
        .upper
        .value
}

#[test]
fn two_sessions_recorded_mix_enumerated() {
    // Sessions of $1 and $3, equally likely. A run: p50 is the 1st of 2
    // (nearest rank ⌈0.5 × 2⌉), p90 and p99 the 2nd; mean $2. A day of two
    // runs: $2, $4, $6 with chances 1/4, 1/2, 1/4, so p50 = $4 (1/4 < 0.5 ≤
    // 3/4), p90 = p99 = $6.
    let rec = corpus_of(&["a", "b"], &[(0, "1"), (1, "3")]);
    let f = corpus::forecast(&rec, &spec(None, 2), "t".into(), Vec::new());
    let v = &f.variants[0];
    assert_eq!(pct(&v.run, 50), d("1"));
    assert_eq!(pct(&v.run, 90), d("3"));
    assert_eq!(pct(&v.run, 99), d("3"));
    assert_eq!(v.run.mean.upper, d("2"));
    assert_eq!(pct(&v.day, 50), d("4"));
    assert_eq!(pct(&v.day, 90), d("6"));
    assert_eq!(pct(&v.day, 99), d("6"));
    assert_eq!(v.day.mean.upper, d("4"));
    // A month: 2 runs × 7 days × 52 ÷ 12 = 60.67 → 61 runs, mean $122.
    assert_eq!(v.month.runs, 61);
    assert_eq!(v.month.mean.upper, d("122"));
    assert_eq!(f.kinds[0].share, d("0.5"));
    assert!(f.sampling.starts_with("whole sessions"));
    // Two sessions cannot bound a p99 budget.
    assert_eq!(v.p99_budget, None);
}

#[test]
fn weights_change_the_mix_exactly() {
    // a = 3, b = 1: $1 with chance 3/4. A run: p50 = $1 (3/4 ≥ 0.5), p90 =
    // $3, mean $1.50. A day of two: $2, $4, $6 with 9/16, 6/16, 1/16: p50 =
    // $2, p90 = $4 (15/16 ≥ 0.9), p99 = $6.
    let rec = corpus_of(&["a", "b"], &[(0, "1"), (1, "3")]);
    let f = corpus::forecast(&rec, &spec(Some(vec!["3", "1"]), 2), "t".into(), Vec::new());
    let v = &f.variants[0];
    assert_eq!(pct(&v.run, 50), d("1"));
    assert_eq!(pct(&v.run, 90), d("3"));
    assert_eq!(v.run.mean.upper, d("1.5"));
    assert_eq!(pct(&v.day, 50), d("2"));
    assert_eq!(pct(&v.day, 90), d("4"));
    assert_eq!(pct(&v.day, 99), d("6"));
    assert_eq!(f.kinds[0].share, d("0.75"));
    assert_eq!(f.kinds[0].recorded_share, d("0.5"));
    assert!(f.weighted);
}

#[test]
fn more_days_than_are_kept_have_the_same_exact_percentiles() {
    // As above (a = 3, b = 1; a day of two runs is $2, $4 or $6 with
    // 9/16, 6/16 and 1/16), over 500,000 days: more than are kept to sort,
    // so the percentiles are found by narrowing windows over draws made
    // again. A month of 61 runs costs $61 to $183: its p50 is the mean's
    // neighbourhood, $91.5 ± a few dollars, and p50 ≤ p90 ≤ p99.
    let rec = corpus_of(&["a", "b"], &[(0, "1"), (1, "3")]);
    let spec = CorpusSpec {
        days: 500_000,
        ..spec(Some(vec!["3", "1"]), 2)
    };
    let f = corpus::forecast(&rec, &spec, "t".into(), Vec::new());
    let v = &f.variants[0];
    assert_eq!(pct(&v.day, 50), d("2"));
    assert_eq!(pct(&v.day, 90), d("4"));
    assert_eq!(pct(&v.day, 99), d("6"));
    let month = [50, 90, 99].map(|p| pct(&v.month, p));
    assert!(d("85") < month[0] && month[0] < d("98"), "{month:?}");
    assert!(month[0] <= month[1] && month[1] <= month[2], "{month:?}");
    // Whole dollars: every month is a sum of $1 and $3 runs.
    assert!(month.iter().all(|m| m.fract().is_zero()), "{month:?}");
}

#[test]
fn a_kinds_share_is_split_among_its_sessions() {
    // a = 1, b = 1: the three sessions of a have 1/6 each, b's one 1/2.
    // Sorted: $1 (1/6), $2 (2/6), $3 (3/6 ≥ 0.5: p50), $10 (p90).
    // Mean: (1 + 2 + 3) ÷ 6 + 10 ÷ 2 = $6.
    let rec = corpus_of(&["a", "b"], &[(0, "1"), (0, "2"), (0, "3"), (1, "10")]);
    let f = corpus::forecast(&rec, &spec(Some(vec!["1", "1"]), 1), "t".into(), Vec::new());
    let v = &f.variants[0];
    assert_eq!(pct(&v.run, 50), d("3"));
    assert_eq!(pct(&v.run, 90), d("10"));
    assert_eq!(v.run.mean.upper, d("6"));
    // A zero share leaves a kind out of the draws.
    let f = corpus::forecast(&rec, &spec(Some(vec!["1", "0"]), 1), "t".into(), Vec::new());
    assert_eq!(pct(&f.variants[0].run, 99), d("3"));
    assert_eq!(pct(&f.variants[0].day, 99), d("3"));
}

#[test]
fn a_p99_budget_needs_299_sessions() {
    let costs: Vec<String> = (1..=299).map(|i| i.to_string()).collect();
    let all: Vec<(usize, &str)> = costs.iter().map(|c| (0, c.as_str())).collect();
    let f = corpus::forecast(
        &corpus_of(&["a"], &all),
        &spec(None, 1),
        "t".into(),
        Vec::new(),
    );
    // The dearest of 299 is above the p99 with 95 % probability.
    assert_eq!(f.variants[0].p99_budget, Some(d("299")));
    assert_eq!(f.needed_for_p99, 299);
    let f = corpus::forecast(
        &corpus_of(&["a"], &all[..298]),
        &spec(None, 1),
        "t".into(),
        Vec::new(),
    );
    assert_eq!(f.variants[0].p99_budget, None);
    // Order-statistic interval of the median of 1..299 holds the median, 150.
    let p50 = &f.variants[0].run.percentiles[0].upper;
    assert!(p50.low.unwrap() < d("150") && d("150") < p50.high.unwrap());
}

#[test]
fn the_same_seed_gives_the_same_forecast_on_any_number_of_threads() {
    let rec = corpus_of(
        &["a", "b"],
        &[(0, "1.5"), (0, "2.25"), (1, "7"), (1, "0.5")],
    );
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                serde_json::to_string(&corpus::forecast(
                    &rec,
                    &spec(Some(vec!["2", "1"]), 5),
                    "t".into(),
                    Vec::new(),
                ))
                .unwrap()
            })
    };
    assert_eq!(run(1), run(2));
    assert_eq!(run(1), run(3));
}

fn two_scenarios(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let text = fs::read_to_string(fixtures.join("tiny.toml"))
        .unwrap()
        .replace(
            "tiny-prices.toml",
            &fixtures.join("tiny-prices.toml").display().to_string(),
        );
    let a = dir.join("lookup.toml");
    let b = dir.join("research.toml");
    fs::write(&a, &text).unwrap();
    // The research kind: the same calls with the first result ten times larger.
    fs::write(
        &b,
        text.replacen("raw_bytes = 8000", "raw_bytes = 80000", 1),
    )
    .unwrap();
    (a, b)
}

#[test]
fn scenarios_naming_one_price_book_share_one_read_of_it() {
    // Three sessions in folders of their own name one book, two by
    // `../prices.toml` and one by its absolute path: it is read once, and
    // each scenario is the one `load` makes on its own. A book that does
    // not parse gives the error `load` gives.
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let book = dir.path().join("prices.toml");
    fs::copy(fixtures.join("tiny-prices.toml"), &book).unwrap();
    let text = fs::read_to_string(fixtures.join("tiny.toml")).unwrap();
    let absolute = book.display().to_string();
    let mut paths = Vec::new();
    for (name, rel) in [
        ("a", "../prices.toml"),
        ("b", "../prices.toml"),
        ("c", absolute.as_str()),
    ] {
        fs::create_dir(dir.path().join(name)).unwrap();
        let path = dir.path().join(name).join("session.toml");
        fs::write(&path, text.replace("tiny-prices.toml", rel)).unwrap();
        paths.push(path);
    }
    let books = tokencast::files::Books::default();
    let totals = |s: &tokencast::scenario::Scenario| {
        let sim = tokencast::engine::simulate(s, tokencast::engine::SimulateOptions::TOTALS);
        serde_json::to_string(
            &sim.variants
                .iter()
                .map(|v| v.cost.total)
                .collect::<Vec<_>>(),
        )
        .unwrap()
    };
    for path in &paths {
        let shared = books.load(path, None).unwrap();
        let own = tokencast::files::load(path, None).unwrap();
        assert_eq!(totals(&shared), totals(&own));
        assert_eq!(shared.inputs(), own.inputs());
    }
    assert_eq!(books.len(), 1);
    fs::create_dir(dir.path().join("d")).unwrap();
    fs::write(
        dir.path().join("broken.toml"),
        "[models.x]\ninput = \"one\"\n",
    )
    .unwrap();
    let path = dir.path().join("d").join("session.toml");
    fs::write(&path, text.replace("tiny-prices.toml", "../broken.toml")).unwrap();
    let shared = books.load(&path, None).unwrap_err();
    let own = tokencast::files::load(&path, None).unwrap_err();
    // The same message, help and place in the same file.
    assert_eq!(format!("{shared:?}"), format!("{own:?}"));
    assert!(
        own.to_string().contains("\"one\" is not a decimal"),
        "{own}"
    );
    assert!(format!("{own:?}").contains("broken.toml"), "{own:?}");
    assert_eq!(books.len(), 2);
}

#[test]
fn forecast_of_two_scenario_files_prices_each_as_simulate_does() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_scenarios(dir.path());
    let doc = json_of(tokencast().arg("forecast").args([&a, &b]).args([
        "--format",
        "json",
        "--no-report",
        "--weights",
        "research=1,lookup=3",
    ]));
    assert_eq!(doc["document"], "corpus-forecast");
    assert_eq!(doc["kinds"][0]["kind"], "lookup");
    assert_eq!(doc["kinds"][1]["kind"], "research");
    assert_eq!(dec(&doc["kinds"][0]["share"]), d("0.75"));
    // Each session's cost is its scenario's simulated total, per variant.
    for (i, path) in [&a, &b].into_iter().enumerate() {
        let sim = json_of(tokencast().arg("simulate").arg(path).args([
            "--format",
            "json",
            "--no-report",
        ]));
        for (v, name) in ["raw, no cache", "trimmed, 5-min cache"].iter().enumerate() {
            assert_eq!(
                doc["recorded"][i]["cost"][v],
                variant(&sim, name)["cost"]["total"],
                "{name}"
            );
        }
    }
    // The weighted mean: 3/4 × lookup + 1/4 × research.
    let cost = |i: usize| dec(&doc["recorded"][i]["cost"][0]["upper"]);
    let mean = dec(&doc["variants"][0]["run"]["mean"]["upper"]);
    assert_eq!(mean, (cost(0) * d("3") + cost(1)) / d("4"));
}

#[test]
fn corpus_forecast_outputs_and_gates() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_scenarios(dir.path());
    let page = dir.path().join("f.html");
    let out = tokencast()
        .arg("forecast")
        .args([&a, &b])
        .args(["--runs", "2000", "--report"])
        .arg(&page)
        .args(["--fail-over", "p50=0.000001"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Sampling: whole sessions"), "{text}");
    assert!(
        text.contains("needs 299 independent recorded runs"),
        "{text}"
    );
    assert!(text.contains("this corpus has 2"), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("budget gate crossed") && err.contains("p50"),
        "{err}"
    );
    let html = fs::read_to_string(&page).unwrap();
    assert!(html.contains("chart-corpus-distribution"));
    // One chart, drawn wide and narrow.
    assert_eq!(html.matches("<svg").count(), 2);
    assert_eq!(html.matches("<svg width=\"340\"").count(), 1);
    // CSV: the cost table's header.
    let out = tokencast()
        .arg("forecast")
        .args([&a, &b])
        .args(["--runs", "2000", "--no-report", "--format", "csv"])
        .output()
        .unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.starts_with("variant,period,runs,mean_usd_lower,mean_usd_upper,p50_usd_lower"));
    assert_eq!(
        csv.lines().count(),
        1 + 2 * 3,
        "two variants × run, day, month"
    );
    // --csv DIR: every table, every session.
    let csv_dir = dir.path().join("csv");
    let out = tokencast()
        .arg("forecast")
        .args([&a, &b])
        .args(["--runs", "2000", "--no-report", "--csv"])
        .arg(&csv_dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut names: Vec<String> = fs::read_dir(&csv_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["corpus_costs.csv", "corpus_mix.csv", "corpus_sessions.csv"]
    );
    let sessions = fs::read_to_string(csv_dir.join("corpus_sessions.csv")).unwrap();
    assert_eq!(sessions.lines().count(), 1 + 2);
}

#[test]
fn corpus_forecast_arguments_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_scenarios(dir.path());
    for (extra, message) in [
        (vec!["--weights", "lookup=1"], "no share for `research`"),
        (
            vec!["--weights", "lookup=1,coding=2"],
            "no kind is named `coding`",
        ),
        (vec!["--weights", "lookup=-1,research=1"], "is not a share"),
        (vec!["--weights", "lookup=0,research=0"], "every share is 0"),
        (vec!["--calls", "20"], "--calls applies to one scenario"),
        (vec!["--working-days", "8"], "--working-days 8"),
    ] {
        let out = tokencast()
            .arg("forecast")
            .args([&a, &b])
            .args(&extra)
            .arg("--no-report")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{extra:?}: {err}");
        assert!(out.stdout.is_empty());
    }
    // One scenario still needs --calls; --weights needs several.
    let out = tokencast()
        .arg("forecast")
        .arg(&a)
        .arg("--no-report")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--calls is missing"));
    let out = tokencast()
        .arg("forecast")
        .arg(&a)
        .args(["--calls", "5", "--weights", "a=1", "--no-report"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Two paths of one name are one kind twice.
    let sub = dir.path().join("x");
    fs::create_dir(&sub).unwrap();
    fs::copy(&a, sub.join("lookup.toml")).unwrap();
    let out = tokencast()
        .arg("forecast")
        .arg(&a)
        .arg(sub.join("lookup.toml"))
        .arg("--no-report")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("are both the kind `lookup`"));
}

#[test]
fn forecast_of_an_imported_directory_sums_each_sessions_threads() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("claude");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code");
    let import = tokencast()
        .args(["import", "claude-code"])
        .arg(&fixtures)
        .arg("--out")
        .arg(&out)
        .args(["--no-report", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        import.status.success(),
        "{}",
        String::from_utf8_lossy(&import.stderr)
    );
    let doc = json_of(tokencast().arg("forecast").arg(&out).args([
        "--format",
        "json",
        "--no-report",
        "--runs",
        "1000",
    ]));
    assert_eq!(doc["kinds"][0]["kind"], "claude");
    let sessions = doc["recorded"].as_array().unwrap();
    assert!(!sessions.is_empty());
    assert_eq!(doc["sessions"], sessions.len());
    // Each session: the sum of its threads' simulated totals, "as recorded".
    for s in sessions {
        let session_dir = out.join(s["name"].as_str().unwrap());
        let mut total = Decimal::ZERO;
        for entry in fs::read_dir(&session_dir).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_some_and(|e| e == "toml") {
                let sim = json_of(tokencast().arg("simulate").arg(&p).args([
                    "--format",
                    "json",
                    "--no-report",
                ]));
                total += dec(&variant(&sim, "as recorded")["cost"]["total"]["lower"]);
            }
        }
        assert_eq!(dec(&s["cost"][0]["lower"]), total, "{}", s["name"]);
    }
    assert_eq!(doc["variants"][0]["name"], "as recorded");
}

#[test]
fn a_weighted_p99_budget_bounds_every_kind() {
    // Two kinds drawn: each needs a bound at 97.5 %, ln 0.025 ÷ ln 0.99 → 368
    // sessions; the budget is the larger kind's dearest session.
    let a: Vec<String> = (1..=368).map(|i| i.to_string()).collect();
    let b: Vec<String> = (1..=368).map(|i| (i * 2).to_string()).collect();
    let mut all: Vec<(usize, &str)> = a.iter().map(|c| (0, c.as_str())).collect();
    all.extend(b.iter().map(|c| (1, c.as_str())));
    let rec = corpus_of(&["a", "b"], &all);
    let f = corpus::forecast(&rec, &spec(Some(vec!["1", "1"]), 1), "t".into(), Vec::new());
    assert_eq!(f.needed_per_kind_for_p99, Some(368));
    assert_eq!(f.variants[0].p99_budget, Some(d("736")));
    // One session fewer in a kind: no budget yet.
    let f = corpus::forecast(
        &corpus_of(&["a", "b"], &all[1..]),
        &spec(Some(vec!["1", "1"]), 1),
        "t".into(),
        Vec::new(),
    );
    assert_eq!(f.variants[0].p99_budget, None);
    // A kind with no share is not drawn and needs nothing.
    let f = corpus::forecast(&rec, &spec(Some(vec!["1", "0"]), 1), "t".into(), Vec::new());
    assert_eq!(f.needed_per_kind_for_p99, Some(299));
    assert_eq!(f.variants[0].p99_budget, Some(d("368")));
}

#[test]
fn day_and_month_gates() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_scenarios(dir.path());
    let run = |gate: &str| {
        tokencast()
            .arg("forecast")
            .args([&a, &b])
            .args([
                "--runs",
                "1000",
                "--runs-per-day",
                "3",
                "--no-report",
                "--fail-over",
                gate,
            ])
            .output()
            .unwrap()
    };
    let out = run("month.p99=0.01");
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("p99 cost per month"), "{err}");
    assert!(err.contains("over --fail-over month.p99=0.01"), "{err}");
    assert_eq!(run("day.mean=1000000").status.code(), Some(0));
    let out = run("day.max=1");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no largest day or month"));
    let out = run("week.p99=1");
    assert_eq!(out.status.code(), Some(2));
    // One scenario has no days or months to gate.
    let out = tokencast()
        .arg("forecast")
        .arg(&a)
        .args([
            "--calls",
            "5",
            "--runs",
            "100",
            "--no-report",
            "--fail-over",
            "day.p99=1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("need a forecast over many sessions"));
}

#[test]
fn the_answer_is_a_month_budget_with_its_calendar() {
    // One session that costs $2 on one variant and $5 on the other, so every
    // month is the same: 2 runs a day × 5 working days × 52 ÷ 12 = 43.33…,
    // rounded to 43 runs; $86 and $215 a month.
    let rec = Recorded {
        kinds: vec!["a".into()],
        variants: vec!["cheap".into(), "dear".into()],
        sessions: vec![SessionCost {
            name: "s0".into(),
            kind: 0,
            cost: vec![Bounds::exact(d("2")), Bounds::exact(d("5"))],
        }],
    };
    let spec = CorpusSpec {
        working_days_per_week: 5,
        days: 1_000,
        ..spec(None, 2)
    };
    let f = corpus::forecast(&rec, &spec, "t".into(), Vec::new());
    let a = f.answer.as_ref().unwrap();
    assert_eq!(a.runs_per_month, 43);
    assert_eq!(
        (a.cheapest.variant.as_str(), a.cheapest.per_month),
        ("cheap", d("86"))
    );
    assert_eq!(
        (a.dearest.variant.as_str(), a.dearest.per_month),
        ("dear", d("215"))
    );
    // One session is far from the 299 a p99 budget per run needs.
    assert_eq!(a.cheapest.per_run, None);
    let text = tokencast::report::Render::terminal(
        &f,
        &tokencast::report::TerminalOptions {
            brief: true,
            width: 400,
            ..Default::default()
        },
    );
    for part in [
        "Answer: budget $86.00 a month for cheap",
        "based on 1 recorded session(s) at 2 run(s) a day, 5 working day(s) a week: 43 runs a month",
        "The dearest variant, dear, needs $215.00 a month",
        "needs 299 sessions and these are 1",
    ] {
        assert!(text.contains(part), "{part:?} not in {text}");
    }
    assert!(!text.contains("The mix"), "{text}");
}

/// `--team-size` people each starting `--runs-per-day` runs: a team of 3 at
/// 4 runs each is the forecast of 12 runs a day, draw for draw; a team of
/// none, or one past the limit, is refused with exit code 2.
#[test]
fn a_team_of_three_at_four_runs_each_is_twelve_runs_a_day() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_scenarios(dir.path());
    let run = |extra: &[&str]| {
        tokencast()
            .arg("forecast")
            .args([&a, &b])
            .args(["--runs", "500", "--no-report", "--format", "json"])
            .args(extra)
            .output()
            .unwrap()
    };
    let twelve = run(&["--runs-per-day", "12"]);
    let team = run(&["--runs-per-day", "4", "--team-size", "3"]);
    assert!(twelve.status.success() && team.status.success());
    assert_eq!(twelve.stdout, team.stdout);
    let doc: serde_json::Value = serde_json::from_slice(&team.stdout).unwrap();
    assert_eq!(doc["answer"]["runs_per_day"], 12);
    for (bad, says) in [("0", "--team-size 0"), ("50000", "at most 100000")] {
        let out = run(&["--runs-per-day", "4", "--team-size", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(says), "{bad}");
    }
}
