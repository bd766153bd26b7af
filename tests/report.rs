//! The HTML report and CSV exports: where they go, that they are
//! deterministic, self-contained, safe, and agree with the JSON.

mod common;
use common::*;
use std::fs;
use std::path::Path;

fn simulate_into(dir: &Path, extra: &[&str]) -> std::process::Output {
    tokencast()
        .args(["simulate", "scenarios/research.toml", "--report"])
        .arg(dir.join("research.html"))
        .args(["--csv"])
        .arg(dir.join("csv"))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn committed_report_is_up_to_date() {
    let dir = tempfile::tempdir().unwrap();
    let out = simulate_into(dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fresh = fs::read(dir.path().join("research.html")).unwrap();
    let committed = fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/research.html"))
        .expect("reports/research.html is committed");
    assert!(
        fresh == committed,
        "reports/research.html is stale: run `cargo run --release -- simulate scenarios/research.toml` and commit it"
    );
}

/// The committed page must be the file a run makes on any later day: its
/// book has no dated price, so the page carries no day (it carried the day
/// it was made, and CI failed the day after).
#[test]
fn a_page_whose_prices_have_no_date_does_not_carry_the_day_it_was_made() {
    let dir = tempfile::tempdir().unwrap();
    let out = simulate_into(dir.path(), &[]);
    assert!(out.status.success());
    let html = fs::read_to_string(dir.path().join("research.html")).unwrap();
    let today = jiff::Timestamp::now()
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date()
        .to_string();
    assert!(html.contains("data-param=\"model\""), "a live page");
    assert!(!html.contains(&today), "the page carries {today}");
    assert!(!html.contains("\"today\""));
}

#[test]
fn default_report_path_is_reports_scenario_stem() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("s")).unwrap();
    for f in [
        "research.toml",
        "prices/anthropic.toml",
        "traces/research-trace.csv",
    ] {
        let to = dir.path().join("s").join(f);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("scenarios")
                .join(f),
            to,
        )
        .unwrap();
    }
    let out = tokencast()
        .current_dir(dir.path())
        .args(["simulate", "s/research.toml"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(dir.path().join("reports/research.html").is_file());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("reports/research.html"),
        "prints the path: {err}"
    );
}

#[test]
fn same_input_gives_byte_identical_outputs() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let out_a = simulate_into(a.path(), &[]);
    let out_b = simulate_into(b.path(), &[]);
    assert_eq!(out_a.stdout, out_b.stdout);
    assert_eq!(
        fs::read(a.path().join("research.html")).unwrap(),
        fs::read(b.path().join("research.html")).unwrap()
    );
    for entry in fs::read_dir(a.path().join("csv")).unwrap() {
        let name = entry.unwrap().file_name();
        assert_eq!(
            fs::read(a.path().join("csv").join(&name)).unwrap(),
            fs::read(b.path().join("csv").join(&name)).unwrap(),
            "{name:?}"
        );
    }
}

#[test]
fn timestamp_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    simulate_into(dir.path(), &[]);
    let html = fs::read_to_string(dir.path().join("research.html")).unwrap();
    assert!(!html.contains("generated 20"), "no timestamp by default");
    simulate_into(dir.path(), &["--timestamp"]);
    let html = fs::read_to_string(dir.path().join("research.html")).unwrap();
    assert!(html.contains("· generated 20"), "timestamp in footer");
}

#[test]
fn report_is_self_contained() {
    let dir = tempfile::tempdir().unwrap();
    simulate_into(dir.path(), &[]);
    let html = fs::read_to_string(dir.path().join("research.html")).unwrap();
    for forbidden in [
        "<link",
        "src=",
        "href=\"http",
        "@import",
        "url(",
        "@font-face",
    ] {
        assert!(!html.contains(forbidden), "found {forbidden}");
    }
    assert_eq!(
        html.matches("<svg width=\"880\"").count(),
        13,
        "twelve inline charts (a–l) and the cumulative spend"
    );
    assert_eq!(
        html.matches("<svg width=\"340\"").count(),
        13,
        "each chart drawn again for narrow screens"
    );
    assert_eq!(html.matches("<svg").count(), 26);
    assert!(html.contains("@media print"), "print styles");
}

#[test]
fn report_figures_agree_with_json() {
    let doc = research_json();
    let dir = tempfile::tempdir().unwrap();
    simulate_into(dir.path(), &[]);
    let html = fs::read_to_string(dir.path().join("research.html")).unwrap();
    for v in doc["variants"].as_array().unwrap() {
        for (path, dp) in [("total", 3), ("input", 3)] {
            for bound in ["lower", "upper"] {
                let shown = format!("${}", shown(&v["cost"][path][bound], dp));
                assert!(
                    html.contains(&format!(">{shown}<")),
                    "{} {path} {bound}: {shown} not in the report",
                    v["name"]
                );
            }
        }
        let per_day = v["per_day"]["total"]["lower"].clone();
        let d = shown(&per_day, 2);
        let (int, frac) = d.split_once('.').unwrap();
        let grouped: Vec<String> = int
            .as_bytes()
            .rchunks(3)
            .rev()
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect();
        let shown = format!("${}.{frac}", grouped.join(","));
        assert!(html.contains(&format!(">{shown}<")), "per day {shown}");
    }
    assert!(html.contains(doc["fingerprint"].as_str().unwrap().get(..16).unwrap()));
}

#[test]
fn user_labels_are_escaped_in_html_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let evil = "<script>alert(1)</script>";
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let scenario = format!(
        r#"name = "evil"
question = "Is {evil} shown as text?"
model = "claude-fable-5-2"
prices = "{}"

[trace]
[[trace.calls]]
capability = "{evil}"
status = 200
items = 3
raw_bytes = 4000
trimmed_bytes = 1000
latency_ms = 1200
charged_usd = "0.001"

[[trace.calls]]
capability = "reddit/search"
status = 200
items = 2
raw_bytes = 8000
trimmed_bytes = 2000
latency_ms = 900
charged_usd = "0.000792"

[assumptions]
prefix_tokens = 1000
output_tokens_per_step = 100
final_output_tokens = 200
bytes_per_token = 4
tokenizer_uplift = 1.3
runs_per_day = 10

[[variants]]
name = "{evil}"
results = "raw"
cache = "none"

[[variants]]
results = "raw"
cache = "5m"
"#,
        root.join("prices/anthropic.toml").display()
    );
    let path = dir.path().join("evil.toml");
    fs::write(&path, scenario).unwrap();
    let report = dir.path().join("evil.html");
    let out = tokencast()
        .args(["simulate"])
        .arg(&path)
        .args(["--report"])
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = fs::read_to_string(&report).unwrap();
    assert!(!html.contains(evil), "raw script tag in the report");
    // The report's own scripts only: its inputs (JSON), its engine
    // (base64), the live page's script and the print script. The label is
    // inside the inputs' JSON, escaped, so it cannot end the element.
    assert_eq!(
        html.matches("<script").count(),
        4,
        "only the report's own scripts"
    );
    assert_eq!(html.matches("</script>").count(), 4);
    let inputs = html
        .split(r#"<script type="application/json" id="tc-request">"#)
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .expect("the page carries its inputs");
    assert!(!inputs.contains('<') && !inputs.contains('>'), "{inputs}");
    assert!(inputs.contains(r"\u003cscript\u003ealert(1)"), "{inputs}");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;"),
        "label kept as text"
    );
}

#[test]
fn csv_exports_one_spreadsheet_friendly_file_per_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = simulate_into(dir.path(), &[]);
    assert!(out.status.success());
    let csv_dir = dir.path().join("csv");
    let mut names: Vec<String> = fs::read_dir(&csv_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "assumptions.csv",
            "attribution.csv",
            "cache_lifetime.csv",
            "capabilities.csv",
            "context_management.csv",
            "context_settings.csv",
            "effort.csv",
            "ledger.csv",
            "lifetime_sweep.csv",
            "per_day.csv",
            "periods.csv",
            "prices.csv",
            "requests.csv",
            "restart.csv",
            "retry.csv",
            "variants.csv"
        ]
    );
    let text = fs::read_to_string(csv_dir.join("variants.csv")).unwrap();
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let headers = rows.headers().unwrap().clone();
    assert_eq!(&headers[0], "variant");
    let total = headers.iter().position(|h| h == "total_usd_lower").unwrap();
    for r in rows.records() {
        let r = r.unwrap();
        let v = &r[total];
        assert!(!v.contains('$') && !v.contains(','), "plain number: {v}");
        v.parse::<rust_decimal::Decimal>().unwrap();
    }
    let per_day = fs::read_to_string(csv_dir.join("per_day.csv")).unwrap();
    assert!(
        per_day.contains("1038.2502"),
        "exact, no separators: {per_day}"
    );
}

/// A scenario over a generated trace of `rows` results (sizes from a fixed
/// sequence below 20,500 B, and every 997th result 400,000 B: the spikes).
fn long_run(dir: &Path, rows: usize) -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut csv = String::from(
        "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed\n",
    );
    let mut x: u64 = 7;
    for i in 1..=rows {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut raw = 500 + (x >> 33) % 20_000;
        if i % 997 == 0 {
            raw = 400_000;
        }
        csv.push_str(&format!(
            "{i},cap/{},200,3,{raw},{},2000,0.001,false\n",
            i % 3,
            raw / 4
        ));
    }
    fs::write(dir.join("long.csv"), csv).unwrap();
    let toml = fs::read_to_string(root.join("research.toml"))
        .unwrap()
        .replace("traces/research-trace.csv", "long.csv")
        .replace(
            "prices/anthropic.toml",
            &root.join("prices/anthropic.toml").display().to_string(),
        );
    let path = dir.join("long.toml");
    fs::write(&path, toml).unwrap();
    path
}

#[test]
fn a_long_run_keeps_an_outline_with_its_spikes_and_a_small_page() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = long_run(dir.path(), 20_000);
    let doc: serde_json::Value = json_of(
        tokencast()
            .arg("simulate")
            .arg(&scenario)
            .args(["--format", "json", "--report"])
            .arg(dir.path().join("long.html")),
    );
    assert_eq!(doc["rows"], "outline");
    assert_eq!(doc["tool_results"], 20_000);
    let kept = doc["attribution"].as_array().unwrap();
    assert!(kept.len() <= 2_100, "{} rows kept", kept.len());
    // Every spike is kept.
    let spikes = kept
        .iter()
        .filter(|a| a["call"].as_u64().unwrap() % 997 == 0)
        .count();
    assert_eq!(spikes, 20_000 / 997);
    // The first and the last request are kept: the chart spans the run.
    let requests = doc["context"][0]["per_request"].as_array().unwrap();
    assert_eq!(requests.first().unwrap()["request"], 1);
    assert_eq!(requests.last().unwrap()["request"], 20_001);
    let page = fs::read_to_string(dir.path().join("long.html")).unwrap();
    assert!(page.len() < 5_000_000, "{} bytes", page.len());
    assert!(page.contains("the CSV export (--csv DIR) has every row"));
    // Asked for, every row is kept.
    let all = tokencast()
        .arg("simulate")
        .arg(&scenario)
        .args(["--format", "json", "--no-report", "--all-rows"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&all.stdout).unwrap();
    assert_eq!(doc["rows"], "all");
    assert_eq!(doc["attribution"].as_array().unwrap().len(), 20_000);
}

#[test]
fn brief_prints_only_the_answer() {
    let out = tokencast()
        .args([
            "simulate",
            "scenarios/research.toml",
            "--brief",
            "--no-report",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // Seed 003's totals: $10.83940823 raw uncached against $0.493092605
    // trimmed, cached and batched: $10.346315625 saved a run, × 100 runs a day.
    for part in [
        "cheapest trimmed, 5-min cache, batch at $0.493 a run",
        "dearest raw, no cache at $10.839",
        "Saving $10.346 a run (95%), $1,034.63 a day at 100 runs a day",
    ] {
        assert!(flat.contains(part), "{part:?} not in {text}");
    }
    assert!(!text.contains("Cost of one run, per variant"), "{text}");
    assert!(text.lines().count() < 10, "{text}");
    // The full report opens with the same answer.
    let full = tokencast()
        .args(["simulate", "scenarios/research.toml", "--no-report"])
        .output()
        .unwrap();
    let full = String::from_utf8(full.stdout).unwrap();
    assert!(full.starts_with(text.trim_end()), "{full}");
}

#[test]
fn sweep_opens_with_the_cheapest_and_dearest_point() {
    // Seed 003: $0.493092605 a run trimmed, cached and batched, $10.83940823
    // raw and uncached. Swept over runs a day, the figure is a day's cost:
    // 100 × $0.493092605 = $49.3092605 and 300 × $10.83940823 = $3,251.822469.
    let out = tokencast()
        .args([
            "sweep",
            "scenarios/research.toml",
            "--vary",
            "runs_per_day=100..300:100",
            "--brief",
            "--no-report",
        ])
        .env("COLUMNS", "400")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for part in [
        "Answer: cheapest trimmed, 5-min cache, batch at runs_per_day = 100: $49.309",
        "Dearest raw, no cache at runs_per_day = 300: $3,251.822",
        "Over the 3 point(s) of the grid and 6 variant(s)",
    ] {
        assert!(text.contains(part), "{part:?} not in {text}");
    }
    assert!(!text.contains("Sweep of"), "{text}");
    let json = tokencast()
        .args([
            "sweep",
            "scenarios/research.toml",
            "--vary",
            "runs_per_day=100..300:100",
            "--format",
            "json",
            "--no-report",
        ])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let dec = |v: &serde_json::Value| {
        v.as_str()
            .unwrap()
            .parse::<rust_decimal::Decimal>()
            .unwrap()
    };
    assert_eq!(
        dec(&doc["answer"]["cheapest"]["total"]["lower"]),
        "49.3092605".parse().unwrap()
    );
    assert_eq!(
        dec(&doc["answer"]["dearest"]["total"]["lower"]),
        "3251.822469".parse().unwrap()
    );
    assert_eq!(doc["answer"]["dearest"]["at"][0], "300");
}

#[test]
fn a_split_sweep_table_repeats_every_axis() {
    let out = tokencast()
        .args([
            "sweep",
            "scenarios/research.toml",
            "--vary",
            "runs_per_day=100..200:100",
            "--vary",
            "cache=none,5m",
            "--no-report",
        ])
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let headers: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("runs_per_day ┆"))
        .collect();
    assert!(headers.len() > 1, "split into parts: {text}");
    assert!(headers.iter().all(|h| h.contains("┆ cache ┆")), "{text}");
}

#[test]
fn models_ranks_the_same_run_on_other_models_of_the_book() {
    let run = |extra: &[&str]| {
        tokencast()
            .args(["simulate", "scenarios/research.toml", "--no-report"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--models", "claude-fable-5-1", "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dec = |v: &serde_json::Value| {
        v.as_str()
            .unwrap()
            .parse::<rust_decimal::Decimal>()
            .unwrap()
    };
    let ranking = &doc["models"];
    assert_eq!(ranking["scenario_model"], "claude-fable-5-2");
    let row = &ranking["models"][0];
    assert_eq!(row["model"], "claude-fable-5-1");
    // The price book: fable 5.1 costs 10 and 50 per million against 5.2's 8
    // and 40, so the tokens of a run cost 1.25 × as much; the data fee
    // ($0.01690623 a run) does not depend on the model.
    let own = &doc["variants"][0]["cost"];
    let fee = dec(&own["data_fee"]["lower"]);
    let expected = (dec(&own["total"]["lower"]) - fee) * rust_decimal::Decimal::new(125, 2) + fee;
    let raw = &row["variants"][0];
    assert_eq!(raw["variant"], "raw, no cache");
    assert_eq!(dec(&raw["total"]["lower"]), expected);
    // 5.1 has no cache prices: the cached variants run uncached and say so,
    // at the uncached cost; batch has no prices and is not priced.
    let cached = &row["variants"][1];
    assert_eq!(dec(&cached["total"]["lower"]), expected);
    assert!(cached["note"]
        .as_str()
        .unwrap()
        .contains("uncached instead of 5m"));
    let batch = &row["variants"][5];
    assert!(batch["total"].is_null());
    assert!(
        batch["note"].as_str().unwrap().contains("batch_input"),
        "{batch}"
    );
    // Its cheapest variant is the trimmed, uncached one.
    assert_eq!(row["cheapest"], "trimmed, no cache");
    // The terminal answers which model is cheapest, and --brief keeps it.
    let brief = String::from_utf8(run(&["--models", "claude-*", "--brief"]).stdout).unwrap();
    let flat = brief.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Of 2 compared model(s), claude-fable-5-2 runs cheapest: $0.493 a run"),
        "{brief}"
    );
    assert!(flat.contains("the dearest, claude-fable-5-1"), "{brief}");
    // A pattern that matches nothing is refused, located, with exit 2.
    let bad = run(&["--models", "gpt-*"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("--models gpt-*: matches no model of the price book"),
        "{err}"
    );
}

#[test]
fn every_json_document_opens_with_its_answer() {
    let first_keys = |args: &[&str]| {
        let out = tokencast()
            .args(args)
            .args(["--format", "json", "--no-report"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let raw = String::from_utf8(out.stdout).unwrap();
        raw.lines()
            .filter(|l| l.starts_with("  \"") && !l.starts_with("   "))
            .map(|l| l.trim_start().split('"').nth(1).unwrap().to_string())
            .take(3)
            .collect::<Vec<_>>()
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (args, answer) in [
        (vec!["simulate", "scenarios/research.toml"], "comparison"),
        (
            vec![
                "sweep",
                "scenarios/research.toml",
                "--vary",
                "cache=none,5m",
            ],
            "answer",
        ),
        (
            vec![
                "forecast",
                "scenarios/research.toml",
                "--calls",
                "10",
                "--runs",
                "500",
            ],
            "answer",
        ),
        (
            vec![
                "import",
                "claude-code",
                "tests/fixtures/claude-code",
                "--out",
                out.to_str().unwrap(),
            ],
            "totals",
        ),
    ] {
        assert_eq!(first_keys(&args)[2], answer, "{args:?}");
    }
}
