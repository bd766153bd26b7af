//! Runs that have not happened: a scenario whose trace is described by
//! distributions (`[trace.generate]`), drawn with a seed, written as CSV by
//! `tokencast trace`, priced by `simulate` and sampled by `forecast`.

mod common;
use common::*;
use std::fs;
use std::path::Path;

const BOOK: &str = r#"
[models.m]
source = "written for this test"
read_on = "2026-11-30"
input = "2"
output = "10"
"#;

/// One call of 4,000 bytes (trimmed 2,000), the prefix 1,000 tokens, 100
/// tokens out a step and 400 at the end, bytes ÷ 4.
const ONE: &str = r#"
name = "one"
question = "What does one planned result cost?"
model = "m"
prices = "book.toml"

[trace.generate]
[[trace.generate.capabilities]]
capability = "docs/fetch"
calls = 1
raw_bytes = 4000
trimmed_bytes = 2000

[assumptions]
prefix_tokens = 1000
output_tokens_per_step = 100
final_output_tokens = 400
bytes_per_token = 4
tokenizer_uplift = 1.25
runs_per_day = 10

[[variants]]
results = "raw"
cache = "none"

[[variants]]
results = "trimmed"
cache = "none"
"#;

fn json(dir: &Path, args: &[&str]) -> serde_json::Value {
    let out = tokencast()
        .current_dir(dir)
        .args(args)
        .args(["--format", "json", "--no-report"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_planned_call_costs_what_the_hand_computation_says() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("book.toml"), BOOK).unwrap();
    fs::write(dir.path().join("one.toml"), ONE).unwrap();
    let doc = json(dir.path(), &["simulate", "one.toml"]);
    // Raw: input 1,000 + (1,000 + 100 + 4,000 ÷ 4) = 3,100 tokens × $2/M,
    // output 100 + 400 = 500 tokens × $10/M: $0.0062 + $0.005.
    assert_eq!(
        dec(&doc["variants"][0]["cost"]["total"]["lower"]),
        "0.0112".parse().unwrap()
    );
    // Trimmed: input 1,000 + (1,000 + 100 + 500) = 2,600 tokens × $2/M.
    assert_eq!(
        dec(&doc["variants"][1]["cost"]["total"]["lower"]),
        "0.0102".parse().unwrap()
    );
}

#[test]
fn the_drawn_trace_follows_the_description_and_prices_as_a_file_would() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let trace = |extra: &[&str]| {
        let out = tokencast()
            .args(["trace", "scenarios/planned.toml"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let csv_bytes = trace(&[]);
    assert_eq!(trace(&[]), csv_bytes, "the same seed draws the same rows");
    assert_ne!(trace(&["--seed", "2"]), csv_bytes);
    let mut rows = csv::Reader::from_reader(csv_bytes.as_slice());
    let (mut files, mut searches) = (0, 0);
    for r in rows.records() {
        let r = r.unwrap();
        let (raw, trimmed): (u64, u64) = (r[4].parse().unwrap(), r[5].parse().unwrap());
        match &r[1] {
            // 40 files of 2–20 KB, trimmed to 1–4 KB.
            "files/read" => {
                files += 1;
                assert!((2000..=20000).contains(&raw) && (1000..=4000).contains(&trimmed));
            }
            // 8 searches of 6–12 KB, trimmed to 2,000 bytes.
            "web/search" => {
                searches += 1;
                assert!((6000..=12000).contains(&raw) && trimmed == 2000);
            }
            other => panic!("capability {other}"),
        }
    }
    assert_eq!((files, searches), (40, 8));
    // The same rows as a trace file give the same figures to the last digit.
    let csv_path = dir.path().join("drawn.csv");
    fs::write(&csv_path, &csv_bytes).unwrap();
    let planned = fs::read_to_string(root.join("planned.toml")).unwrap();
    let start = planned.find("[trace.generate]").unwrap();
    let end = planned.find("[assumptions]").unwrap();
    let from_file = format!(
        "{}[trace]\nfile = {:?}\n\n{}",
        planned[..start].replace(
            "prices/anthropic.toml",
            &root.join("prices/anthropic.toml").display().to_string()
        ),
        csv_path.display().to_string(),
        &planned[end..]
    );
    fs::write(dir.path().join("from_file.toml"), from_file).unwrap();
    let a = json(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["simulate", "scenarios/planned.toml"],
    );
    let b = json(dir.path(), &["simulate", "from_file.toml"]);
    for v in 0..3 {
        assert_eq!(
            a["variants"][v]["cost"], b["variants"][v]["cost"],
            "variant {v}"
        );
    }
    // The forecast samples the distributions, and says so.
    let f = json(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "forecast",
            "scenarios/planned.toml",
            "--calls",
            "48",
            "--runs",
            "2000",
        ],
    );
    assert_eq!(f["planned"], true);
}

#[test]
fn a_description_that_cannot_be_drawn_is_refused_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("book.toml"), BOOK).unwrap();
    for (change, to, says) in [
        ("calls = 1", "calls = 0", "has calls = 0"),
        (
            "raw_bytes = 4000",
            "raw_bytes = { from = 9, to = 3 }",
            "backwards",
        ),
        ("raw_bytes = 4000", "raw_bytes = \"big\"", "raw_bytes"),
        (
            "[trace.generate]",
            "[trace]\nfile = \"t.csv\"\n[trace.generate]",
            "also `file`",
        ),
    ] {
        fs::write(dir.path().join("bad.toml"), ONE.replace(change, to)).unwrap();
        let out = tokencast()
            .current_dir(dir.path())
            .args(["simulate", "bad.toml", "--no-report"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{to}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(says) && err.contains("bad.toml"),
            "{to}: {err}"
        );
    }
    // `trace` on a scenario that gives its rows says why there is nothing to draw.
    let out = tokencast()
        .args(["trace", "scenarios/research.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("there is nothing to draw"));
}
