//! One test per cause the mutation fuzz found (issue 14): each input that
//! used to panic, abort or hang is now a located error with exit code 2, or
//! a result, and writes nothing it should not.

mod common;
use common::{edit, json_of, run_in, sandbox, tokencast};
use std::fs;
use std::path::{Path, PathBuf};

fn fails_with(dir: &Path, args: &[&str], parts: &[&str]) -> String {
    let (code, err) = run_in(dir, args);
    assert_eq!(code, Some(2), "{args:?}:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    for p in parts {
        assert!(err.contains(p), "expected {p:?} in:\n{err}");
    }
    err
}

const SIMULATE: [&str; 3] = ["simulate", "research.toml", "--no-report"];

#[test]
fn cause_1_an_error_far_into_a_long_line_is_printed_as_an_excerpt() {
    let d = sandbox("scenarios");
    let spaces = " ".repeat(70_000);
    edit(
        d.path(),
        "research.toml",
        "runs_per_day = 100",
        &format!("{spaces}runs_per_day = -1"),
    );
    fails_with(
        d.path(),
        &SIMULATE,
        &[
            "research.toml (line 17, column 70016; excerpt)",
            "runs_per_day = -1",
        ],
    );
    // A trace row with a 65,520-byte field and a bad value after it.
    let d = sandbox("scenarios");
    let long = "x".repeat(65_520);
    edit(
        d.path(),
        "traces/research-trace.csv",
        ",868,74,3100,0,",
        &format!(",868,74,3100,zero{long},"),
    );
    fails_with(
        d.path(),
        &SIMULATE,
        &["row 1 (line 2), column `charged_usd`", "excerpt"],
    );
}

#[test]
fn cause_1_a_minified_json_with_an_error_far_in_is_located() {
    let d = sandbox("scenarios");
    let bad = format!("{{\"a\": \"{}\", oops}}", "y".repeat(80_000));
    fs::write(d.path().join("bad.json"), bad).unwrap();
    fails_with(
        d.path(),
        &["diff", "bad.json", "research.toml"],
        &["is not valid JSON", "line 1, column 8"],
    );
}

#[test]
fn cause_2_a_billion_attempts_is_a_sampled_curve_not_an_abort() {
    let d = sandbox("scenarios");
    edit(
        d.path(),
        "research.toml",
        "attempts = 20, accepted = 20",
        "attempts = 1000000000, accepted = 20",
    );
    let doc: serde_json::Value = json_of(
        tokencast()
            .current_dir(d.path())
            .args([
                "simulate",
                "research.toml",
                "--no-report",
                "--format",
                "json",
            ])
            .timeout(std::time::Duration::from_secs(60)),
    );
    let curve = doc["what_if"]["retry"]["curve"].as_array().unwrap();
    assert!(curve.len() <= 510, "{} points", curve.len());
    // Past the limit it is an error that names it.
    edit(
        d.path(),
        "research.toml",
        "attempts = 1000000000,",
        "attempts = 1000000001,",
    );
    fails_with(
        d.path(),
        &SIMULATE,
        &["retry", "at most 1000000000 attempts"],
    );
}

#[test]
fn cause_3_prices_outside_the_limits_are_located_errors() {
    for price in [
        "10000000000000000000000",
        "0.0000000000000000000000000001",
        "18446744073709551616",
    ] {
        let d = sandbox("scenarios");
        edit(
            d.path(),
            "prices/anthropic.toml",
            "input = \"8\"",
            &format!("input = \"{price}\""),
        );
        fails_with(
            d.path(),
            &SIMULATE,
            &["is outside what tokencast accepts", "anthropic.toml:"],
        );
    }
    let d = sandbox("scenarios");
    edit(
        d.path(),
        "prices/anthropic.toml",
        "batch_output = \"20\"",
        "batch_output = \"79228162514264337593543950335\"",
    );
    fails_with(
        d.path(),
        &SIMULATE,
        &["at most 1000000 USD per million tokens"],
    );
}

#[test]
fn cause_4_a_fee_over_the_limit_is_a_located_error() {
    let d = sandbox("scenarios");
    edit(
        d.path(),
        "traces/research-trace.csv",
        ",0.00138889,",
        ",50000000000000000000000000000.0,",
    );
    fails_with(
        d.path(),
        &SIMULATE,
        &["column `charged_usd`", "more than the 1000000 USD"],
    );
}

#[test]
fn cause_5_a_huge_model_time_is_a_located_error() {
    let d = sandbox("scenarios");
    edit(
        d.path(),
        "research.toml",
        "model_seconds_per_step = 20",
        "model_seconds_per_step = \"79228162514264337593543950335\"",
    );
    fails_with(
        d.path(),
        &SIMULATE,
        &["model_seconds_per_step", "milliseconds up to"],
    );
}

/// A saved simulation document with one variant's total replaced.
fn saved_with_total(dir: &Path, name: &str, total: &str) -> PathBuf {
    let out = tokencast()
        .current_dir(dir)
        .args([
            "simulate",
            "research.toml",
            "--no-report",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let mut doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["variants"][0]["cost"]["total"]["lower"] = serde_json::json!(total);
    let path = dir.join(name);
    fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    path
}

#[test]
fn causes_6_and_7_diffs_at_the_edge_of_decimals_have_no_delta_instead_of_a_panic() {
    let d = sandbox("scenarios");
    saved_with_total(d.path(), "low.json", "-79000000000000000000000000000");
    saved_with_total(d.path(), "high.json", "79000000000000000000000000000");
    saved_with_total(d.path(), "tiny.json", "0.0000000000000000000000000001");
    saved_with_total(d.path(), "ten.json", "10");
    for (a, b) in [("low.json", "high.json"), ("tiny.json", "ten.json")] {
        for format in ["json", "table", "html"] {
            let out = tokencast()
                .current_dir(d.path())
                .args(["diff", a, b, "--format", format])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{a} {b} {format}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let out = tokencast()
        .current_dir(d.path())
        .args(["diff", "low.json", "high.json", "--format", "json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let line = doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["key"] == "raw, no cache · total · lower")
        .unwrap();
    assert!(line["delta"].is_null(), "{line}");
}

#[test]
fn cause_8_huge_sweep_ranges_are_errors() {
    let d = sandbox("scenarios");
    fails_with(
        d.path(),
        &[
            "sweep",
            "research.toml",
            "--vary",
            "trim_ratio=0..79228162514264337593543950335:1",
            "--no-report",
        ],
        &["more than the limit"],
    );
    fails_with(
        d.path(),
        &[
            "sweep",
            "research.toml",
            "--vary",
            "tokenizer_uplift=2..18446744073709551615:0.0000000000000000000000000001",
            "--no-report",
        ],
        &["more than the limit"],
    );
}

#[test]
fn a_sweep_too_large_to_run_is_refused_before_any_point_is_replayed() {
    // Issue 25: `--max-points 10000000000` allocated 86 GB and aborted; a
    // grid of 10⁹ points inside that limit ran until memory was gone.
    let d = sandbox("scenarios");
    let sweep = |extra: &[&str]| {
        let mut args = vec!["sweep", "research.toml", "--no-report", "--format", "json"];
        args.extend_from_slice(extra);
        args.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let args = sweep(&[
        "--vary",
        "runs_per_day=1..100000:1",
        "--vary",
        "calls=1..10000:1",
        "--max-points",
        "10000000000",
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    fails_with(
        d.path(),
        &args,
        &["--max-points 10000000000", "at most 100000 points"],
    );
    // 100 points of up to 10⁷ calls on the research scenario's variants:
    // 100 × variants × (10⁷ + 1) steps, far past 4 × 10⁹.
    let args = sweep(&["--vary", "calls=100000..10000000:100000"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    fails_with(
        d.path(),
        &args,
        &[
            "the sweep would replay",
            "100 replays",
            "10000001 steps a run",
            "more than the limit of 4000000000",
        ],
    );
}

#[test]
fn cause_9_runs_per_day_past_the_limit_is_an_error() {
    let d = sandbox("scenarios");
    fails_with(
        d.path(),
        &[
            "sweep",
            "research.toml",
            "--vary",
            "calls=10000000..10000000:1",
            "--vary",
            "runs_per_day=18446744073709551615..18446744073709551615:1",
            "--no-report",
        ],
        &["runs_per_day = 18446744073709551615 is more than 1000000000"],
    );
}

#[test]
fn cause_10_a_huge_budget_is_not_a_panic() {
    let d = sandbox("scenarios");
    let (code, err) = run_in(
        d.path(),
        &[
            "forecast",
            "research.toml",
            "--calls",
            "5",
            "--runs",
            "200",
            "--budget",
            "99999999999999999999999",
            "--no-report",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn an_uplift_below_one_and_a_cheaper_long_context_tier_are_refused() {
    let d = sandbox("scenarios");
    edit(
        d.path(),
        "research.toml",
        "tokenizer_uplift = 1.3",
        "tokenizer_uplift = 0.9",
    );
    fails_with(
        d.path(),
        &SIMULATE,
        &["tokenizer_uplift = 0.9 is below 1", "research.toml:"],
    );
    let d = sandbox("scenarios");
    let book = d.path().join("prices/anthropic.toml");
    let mut text = fs::read_to_string(&book).unwrap();
    text.push_str("\n[models.claude-fable-5-2.long_context]\nthreshold_tokens = 200000\ninput = \"4\"\noutput = \"60\"\n");
    fs::write(&book, text).unwrap();
    fails_with(
        d.path(),
        &SIMULATE,
        &["long-context input price 4 above 200000 tokens is below the base's 8"],
    );
}

#[test]
fn a_final_request_over_the_context_window_is_a_warning_naming_the_requests() {
    let d = sandbox("scenarios");
    edit(
        d.path(),
        "prices/anthropic.toml",
        "context_window_tokens = 1000000",
        "context_window_tokens = 100000",
    );
    let (code, err) = run_in(d.path(), &SIMULATE);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("warning: with raw results the final request needs"),
        "{err}"
    );
    assert!(err.contains("context window of 100000; requests "), "{err}");
}

#[test]
fn invalid_utf8_is_located() {
    let d = sandbox("scenarios");
    let p = d.path().join("traces/research-trace.csv");
    let mut bytes = fs::read(&p).unwrap();
    let at = bytes.iter().position(|b| *b == b'\n').unwrap() + 5;
    bytes[at] = 0xff;
    fs::write(&p, bytes).unwrap();
    fails_with(
        d.path(),
        &SIMULATE,
        &["line 2, column 5: byte 0xff is not UTF-8 text"],
    );
}

#[test]
fn too_many_threads_are_capped_with_a_note() {
    let d = sandbox("scenarios");
    let (code, err) = run_in(
        d.path(),
        &[
            "forecast",
            "research.toml",
            "--calls",
            "5",
            "--runs",
            "100",
            "--threads",
            "100000",
            "--no-report",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("--threads 100000 is more than 4 per core"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn non_regular_files_are_refused_as_input_and_output() {
    let d = sandbox("scenarios");
    fails_with(
        d.path(),
        &["simulate", "/dev/zero", "--no-report"],
        &["not a regular file"],
    );
    let fifo = d.path().join("fifo.html");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        fails_with(
            d.path(),
            &["simulate", "research.toml", "--report", "fifo.html"],
            &["not a regular file"],
        );
    } else {
        eprintln!("skipped the FIFO half: mkfifo is not available");
    }
}

#[test]
fn csv_into_a_file_is_bad_input_and_writes_nothing() {
    let d = sandbox("scenarios");
    fs::write(d.path().join("notes"), "mine").unwrap();
    fails_with(
        d.path(),
        &[
            "simulate",
            "research.toml",
            "--csv",
            "notes",
            "--report",
            "out.html",
        ],
        &[
            "`notes` is a file, not a folder",
            "give a path with no file on the way (--csv and --out take folders)",
        ],
    );
    assert!(
        !d.path().join("out.html").exists(),
        "nothing of the set is written"
    );
    assert_eq!(fs::read_to_string(d.path().join("notes")).unwrap(), "mine");
}

#[test]
fn an_output_folder_below_a_file_is_bad_input_and_writes_nothing() {
    let d = sandbox("tests/fixtures/claude-code");
    fs::write(d.path().join("notes"), "mine").unwrap();
    let before = fs::read_dir(d.path()).unwrap().count();
    fails_with(
        d.path(),
        &[
            "import",
            "claude-code",
            ".",
            "--out",
            "notes/out",
            "--no-report",
        ],
        &[
            "`notes` is a file, not a folder",
            "give a path with no file on the way (--csv and --out take folders)",
        ],
    );
    assert_eq!(fs::read_to_string(d.path().join("notes")).unwrap(), "mine");
    assert_eq!(fs::read_dir(d.path()).unwrap().count(), before);
}

#[test]
fn a_failed_set_leaves_every_old_file_in_place() {
    let d = sandbox("scenarios");
    let (code, err) = run_in(
        d.path(),
        &[
            "simulate",
            "research.toml",
            "--csv",
            "out",
            "--report",
            "r.html",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let before: Vec<(PathBuf, Vec<u8>)> = fs::read_dir(d.path().join("out"))
        .unwrap()
        .flatten()
        .map(|e| (e.path(), fs::read(e.path()).unwrap()))
        .collect();
    // One target of the new set cannot be written (a folder where a file
    // would go): nothing of the set may change.
    edit(
        d.path(),
        "research.toml",
        "runs_per_day = 100",
        "runs_per_day = 200",
    );
    fs::remove_file(d.path().join("out/variants.csv")).unwrap();
    fs::create_dir(d.path().join("out/variants.csv")).unwrap();
    let (code, _) = run_in(
        d.path(),
        &[
            "simulate",
            "research.toml",
            "--csv",
            "out",
            "--report",
            "r.html",
        ],
    );
    assert_eq!(code, Some(2));
    for (path, bytes) in before.iter().filter(|(p, _)| !p.ends_with("variants.csv")) {
        assert_eq!(
            &fs::read(path).unwrap(),
            bytes,
            "{} changed",
            path.display()
        );
    }
}

#[test]
fn stale_temporary_files_of_an_interrupted_run_are_removed_and_said() {
    let d = sandbox("scenarios");
    let reports = d.path().join("reports");
    fs::create_dir_all(&reports).unwrap();
    let stale = reports.join(".tokencast-abc123.tmp");
    fs::write(&stale, "half a report").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let fresh = reports.join(".tokencast-def456.tmp");
    fs::write(&fresh, "another run's file in progress").unwrap();
    let (code, err) = run_in(d.path(), &["simulate", "research.toml"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!stale.exists());
    assert!(
        fresh.exists(),
        "a recent temporary file may belong to a running tokencast"
    );
    assert!(
        err.contains("removed 1 temporary file(s) left by an interrupted tokencast run"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn force_on_a_symlink_writes_through_it() {
    let d = sandbox("scenarios");
    fs::write(d.path().join("real.html"), "mine").unwrap();
    std::os::unix::fs::symlink("real.html", d.path().join("link.html")).unwrap();
    let (code, err) = run_in(
        d.path(),
        &[
            "simulate",
            "research.toml",
            "--report",
            "link.html",
            "--force",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(fs::symlink_metadata(d.path().join("link.html"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::read_to_string(d.path().join("real.html"))
        .unwrap()
        .contains("tokencast"));
}

#[test]
fn fuzz_find_a_saved_result_cut_inside_a_multibyte_character_is_an_error() {
    // Found by the saved_json fuzz target (fuzz/corpus/saved_json/regression-cut-in-multibyte.json).
    let d = sandbox("scenarios");
    let bytes = fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz/corpus/saved_json/regression-cut-in-multibyte.json"),
    )
    .unwrap();
    fs::write(d.path().join("cut.json"), bytes).unwrap();
    fails_with(
        d.path(),
        &["diff", "cut.json", "research.toml"],
        &["cut.json"],
    );
}

#[test]
fn a_forecast_run_beyond_exact_arithmetic_is_an_error_not_a_wrapped_figure() {
    // Issue 25: a 10 GB result, b = 4.000001 (denominator 10^6) and two
    // million calls a run: one run's Σ input numerators × rate is far past
    // 10^25. It used to exit 0 with an upper bound below the lower one.
    let d = sandbox("scenarios");
    edit(
        d.path(),
        "traces/research-trace.csv",
        "200,0,868,74,3100",
        "200,0,10000000000,74,3100",
    );
    edit(
        d.path(),
        "research.toml",
        "bytes_per_token = 4",
        "bytes_per_token = 4.000001",
    );
    let err = fails_with(
        d.path(),
        &[
            "forecast",
            "research.toml",
            "--calls",
            "2000000",
            "--runs",
            "10",
            "--seed",
            "1",
        ],
        &["beyond exact decimal arithmetic", "--calls"],
    );
    assert!(!err.contains("panicked"));
}

#[test]
fn names_and_free_text_past_their_limits_are_located_errors() {
    // A variant named with 10,000 characters.
    let d = sandbox("scenarios");
    let long = "v".repeat(10_000);
    edit(
        d.path(),
        "research.toml",
        "[[variants]]\nresults = \"raw\"\ncache = \"none\"\n",
        &format!("[[variants]]\nname = \"{long}\"\nresults = \"raw\"\ncache = \"none\"\n"),
    );
    fails_with(
        d.path(),
        &SIMULATE,
        &["a variant's name is longer than 200 characters"],
    );
    // A capability of 201 characters (200 is the most), located at its row and column.
    let d = sandbox("scenarios");
    edit(
        d.path(),
        "traces/research-trace.csv",
        "1,1,reddit/search,",
        &format!("1,1,{},", "c".repeat(201)),
    );
    fails_with(
        d.path(),
        &SIMULATE,
        &["row 1 (line 2), column `capability`: longer than 200 characters"],
    );
    // 65 effort presets (64 is the most).
    let d = sandbox("scenarios");
    let presets: Vec<String> = (0..65).map(|i| format!("p{i} = {}", 100 + i)).collect();
    edit(
        d.path(),
        "research.toml",
        "presets = { low = 200, medium = 500, high = 2000 }",
        &format!("presets = {{ {} }}", presets.join(", ")),
    );
    fails_with(
        d.path(),
        &SIMULATE,
        &["effort.presets lists 65 presets, more than 64"],
    );
}

#[test]
fn a_saved_result_with_a_huge_name_is_refused_before_it_is_compared() {
    // Issue 25: a variant named with 100,000 characters took 11 s to diff
    // and printed 62,164 lines.
    let d = sandbox("scenarios");
    let path = saved_with_total(d.path(), "a.json", "10");
    let mut doc: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    doc["variants"][0]["variant"]["name"] = serde_json::json!("n".repeat(100_000));
    fs::write(
        d.path().join("huge.json"),
        serde_json::to_vec(&doc).unwrap(),
    )
    .unwrap();
    let err = fails_with(
        d.path(),
        &["diff", "a.json", "huge.json"],
        &["huge.json: a string of 100002 bytes, more than a tokencast document holds"],
    );
    assert!(err.lines().count() < 40, "{err}");
}
