//! Budget gates: a crossed gate prints and writes everything, says which
//! figure crossed which limit, and exits with code 3.

mod common;
use common::*;
use std::fs;
use std::path::Path;

fn simulate(dir: &Path, gate: &str) -> (Option<i32>, String, bool) {
    let out = tokencast()
        .current_dir(dir)
        .args(["simulate", "rules.toml", "--no-report", "--fail-over", gate])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        !out.stdout.is_empty(),
    )
}

#[test]
fn simulate_gates_on_each_period_at_the_edge() {
    let d = sandbox("tests/fixtures/rules");
    // The dearest variant of the rules fixture, "fast, us-only": 0.26466 of
    // model cost (6 × 1.1 × 0.0401) plus 0.01 + 0.05/12 of tool fees =
    // 0.278826… a run; 10 runs a day: 2.788266…; a month, as the periods
    // table has it (a twelfth of 52 weeks of 7 working days, 364/12 days):
    // 84.577….
    // The next dearest ("tiers", "below threshold") cost 0.054266… a run.
    for (gate, crossed) in [
        ("run=0.28", false),
        ("run=0.27", true),
        ("day=2.79", false),
        ("day=2.78", true),
        ("month=84.6", false),
        ("month=84.5", true),
    ] {
        let (code, err, printed) = simulate(d.path(), gate);
        assert!(printed, "{gate}: the tables are printed either way");
        if crossed {
            assert_eq!(code, Some(3), "{gate}: {err}");
            assert!(
                err.contains("budget gate crossed: fast, us-only per"),
                "{err}"
            );
            assert_eq!(
                err.matches("budget gate crossed").count(),
                1,
                "{gate}: {err}"
            );
        } else {
            assert_eq!(code, Some(0), "{gate}: {err}");
            assert!(!err.contains("budget gate"), "{err}");
        }
    }
    // Above 0.05 a run: "tiers" and "below threshold" (0.0401 + 0.014166…)
    // and "fast, us-only"; the cached, flex, at-threshold, dated and stored
    // variants (0.028 to 0.043) stay under.
    let (code, err, _) = simulate(d.path(), "run=0.05");
    assert_eq!(code, Some(3));
    assert_eq!(err.matches("budget gate crossed").count(), 3, "{err}");
    let (code, err, _) = simulate(d.path(), "week=5");
    assert_eq!(code, Some(2));
    assert!(err.contains("`week` is not a period"), "{err}");
}

#[test]
fn forecast_gates_on_a_statistic() {
    let d = sandbox("tests/fixtures/backtest");
    let run = |gate: &str| {
        tokencast()
            .current_dir(d.path())
            .args([
                "forecast",
                "backtest.toml",
                "--calls",
                "4",
                "--runs",
                "1000",
            ])
            .args(["--no-report", "--fail-over", gate])
            .output()
            .unwrap()
    };
    // Every run costs more than nothing, and far less than a million.
    let out = run("max=0");
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a max cost per run of"));
    assert_eq!(run("p99=1000000").status.code(), Some(0));
    assert_eq!(run("p95=1").status.code(), Some(2));
}

#[test]
fn diff_gates_on_the_rise_of_the_cheapest_run() {
    let d = sandbox("tests/fixtures/backtest");
    // The same run at twice every price: +100 % exactly (no fees).
    let book = fs::read_to_string(d.path().join("prices.toml")).unwrap();
    let doubled = book
        .replace("input = \"2\"", "input = \"4\"")
        .replace("output = \"10\"", "output = \"20\"")
        .replace("cache_write_5m = \"2.5\"", "cache_write_5m = \"5\"")
        .replace("cache_write_1h = \"4\"", "cache_write_1h = \"8\"")
        .replace("cache_read = \"0.2\"", "cache_read = \"0.4\"");
    fs::write(d.path().join("dear.toml"), doubled).unwrap();
    let scenario = fs::read_to_string(d.path().join("backtest.toml")).unwrap();
    fs::write(
        d.path().join("b.toml"),
        scenario.replace("prices = \"prices.toml\"", "prices = \"dear.toml\""),
    )
    .unwrap();
    let run = |limit: &str| {
        tokencast()
            .current_dir(d.path())
            .args([
                "diff",
                "backtest.toml",
                "b.toml",
                "--fail-over-change",
                limit,
            ])
            .output()
            .unwrap()
    };
    let out = run("99");
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("+100%, over --fail-over-change 99"), "{err}");
    assert_eq!(run("100").status.code(), Some(0));
    assert_eq!(run("ten").status.code(), Some(2));
}

#[test]
fn periods_follow_the_plan_and_find_the_month_over_budget() {
    let d = sandbox("tests/fixtures/rules");
    let p = d.path().join("rules.toml");
    let text = fs::read_to_string(&p).unwrap().replace(
        "[timing]",
        "[plan]\nworking_days_per_week = 5\nmonthly_growth = \"0.1\"\nbudget_per_month = \"100\"\n\n[timing]",
    );
    fs::write(&p, text).unwrap();
    let v = variant_periods(d.path(), "fast, us-only");
    let up = |k: &str| dec(&v[k]["upper"]);
    // A run: 0.26466 + 0.01 + 0.05/12; a day of 10 runs; a week of 5 days;
    // a month of 52/12 weeks: 60.412444…
    let run = up("run");
    assert_eq!(up("day"), run * rust_decimal::Decimal::from(10));
    assert_eq!(up("week"), up("day") * rust_decimal::Decimal::from(5));
    assert_eq!(up("month").round_dp(6), "60.412444".parse().unwrap());
    // Twelve months growing 10 % each: month × (1.1^12 − 1) / 0.1 = month × 21.38428376721.
    let year = up("month") * "21.38428376721".parse::<rust_decimal::Decimal>().unwrap();
    assert_eq!(up("year").round_dp(12), year.round_dp(12));
    // Cumulative spend 962.82 after 10 months (within 1,000), 1,119.51 after 11
    // (over 1,100): over the budget from month 11.
    assert_eq!(v["over_budget_from_month"], 11);
    let flex = variant_periods(d.path(), "flex");
    assert!(flex["over_budget_from_month"].is_null());
}

/// The periods of the rules fixture's variant `name`, from `simulate
/// --format json` in `dir`.
fn variant_periods(dir: &Path, name: &str) -> serde_json::Value {
    let doc = json_of(tokencast().current_dir(dir).args([
        "simulate",
        "rules.toml",
        "--format",
        "json",
        "--no-report",
    ]));
    doc["periods"]["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == name)
        .unwrap()
        .clone()
}

#[test]
fn a_month_gate_uses_the_periods_tables_month() {
    // One calendar: with 5 working days a week the month is 5 × 52 ÷ 12 =
    // 21⅔ days of runs, in the periods table and in the gate alike.
    let d = sandbox("tests/fixtures/rules");
    let text = fs::read_to_string(d.path().join("rules.toml")).unwrap();
    fs::write(
        d.path().join("rules.toml"),
        format!("{text}\n[plan]\nworking_days_per_week = 5\n"),
    )
    .unwrap();
    let v = variant_periods(d.path(), "fast, us-only");
    let month = dec(&v["month"]["upper"]);
    let day = dec(&v["day"]["upper"]);
    assert_eq!(
        month,
        (day * rust_decimal::Decimal::from(5 * 52) / rust_decimal::Decimal::from(12)).normalize()
    );
    // 2.788266… a day × 21⅔ = 60.41…: a gate just above the table's month
    // holds, one just below it is crossed.
    let cents = rust_decimal::Decimal::new(1, 2);
    let above = format!("month={}", (month + cents).round_dp(2));
    let below = format!("month={}", (month - cents).round_dp(2));
    assert_eq!(simulate(d.path(), &above).0, Some(0), "{above}");
    assert_eq!(simulate(d.path(), &below).0, Some(3), "{below}");
}
