//! Bad input: each case gets a located, explained error, exit code 2, and
//! nothing written.

mod common;
use common::tokencast;
use std::fs;
use std::path::{Path, PathBuf};

/// A copy of the scenarios folder in a temporary directory, to break on purpose.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        common::copy_dir(&src, dir.path());
        Sandbox { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Rewrites a file with `from` replaced by `to` (which must occur).
    fn edit(&self, rel: &str, from: &str, to: &str) {
        let p = self.path(rel);
        let text = fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{from} not in {rel}");
        fs::write(&p, text.replacen(from, to, 1)).unwrap();
    }

    /// Runs simulate on `research.toml` inside the sandbox; expects exit 2 and returns stderr.
    fn fails(&self) -> String {
        let report = self.path("out/report.html");
        let out = tokencast()
            .current_dir(self.dir.path())
            .args(["simulate", "research.toml", "--report"])
            .arg(&report)
            .args(["--csv", "out/csv"])
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
        assert!(out.stdout.is_empty(), "no partial output on stdout");
        assert!(!self.path("out").exists(), "nothing written on error");
        stderr
    }
}

fn assert_has(stderr: &str, parts: &[&str]) {
    for p in parts {
        assert!(stderr.contains(p), "expected {p:?} in:\n{stderr}");
    }
}

#[test]
fn rejects_toml_syntax_error_with_location() {
    let s = Sandbox::new();
    s.edit(
        "research.toml",
        "runs_per_day = 100",
        "runs_per_day = = 100",
    );
    let err = s.fails();
    assert_has(&err, &["invalid scenario", "research.toml:17:16"]);
}

#[test]
fn rejects_unknown_key_and_suggests_the_closest() {
    let s = Sandbox::new();
    s.edit(
        "research.toml",
        "prefix_tokens = 3000",
        "prefx_tokens = 3000",
    );
    let err = s.fails();
    assert_has(
        &err,
        &[
            "unknown field `prefx_tokens`",
            "research.toml:12:1",
            "did you mean `prefix_tokens`?",
        ],
    );
}

#[test]
fn rejects_missing_required_field() {
    let s = Sandbox::new();
    s.edit("research.toml", "final_output_tokens = 2000", "");
    let err = s.fails();
    assert_has(
        &err,
        &["missing field `final_output_tokens`", "research.toml:"],
    );
}

#[test]
fn rejects_float_price_and_says_why() {
    let s = Sandbox::new();
    s.edit(
        "prices/anthropic.toml",
        "cache_read = \"0.20\"",
        "cache_read = 0.20",
    );
    let err = s.fails();
    assert_has(
        &err,
        &[
            "anthropic.toml:12:14",
            "TOML float",
            "write it as a string",
            "cannot hold every decimal price exactly",
        ],
    );
}

#[test]
fn rejects_negative_price() {
    let s = Sandbox::new();
    s.edit(
        "prices/anthropic.toml",
        "output = \"40\"",
        "output = \"-40\"",
    );
    let err = s.fails();
    assert_has(&err, &["anthropic.toml:9:", "is negative", "zero or more"]);
}

#[test]
fn rejects_non_numeric_price() {
    let s = Sandbox::new();
    s.edit(
        "prices/anthropic.toml",
        "input = \"8\"",
        "input = \"eight\"",
    );
    let err = s.fails();
    assert_has(
        &err,
        &["anthropic.toml:8:", "not a decimal number", "\"0.20\""],
    );
}

#[test]
fn rejects_csv_row_with_missing_value() {
    let s = Sandbox::new();
    s.edit("traces/research-trace.csv", ",25042,8549,", ",25042,,");
    let err = s.fails();
    assert_has(
        &err,
        &[
            "row 2 (line 3), column `trimmed_bytes`: missing value",
            "research-trace.csv:3:",
        ],
    );
}

#[test]
fn rejects_csv_row_with_non_numeric_value() {
    let s = Sandbox::new();
    s.edit(
        "traces/research-trace.csv",
        ",11232,3975,9400,",
        ",11232,3975,9.4s,",
    );
    let err = s.fails();
    assert_has(
        &err,
        &[
            "row 3 (line 4), column `latency_ms`: not a whole number",
            "research-trace.csv:4:",
        ],
    );
}

#[test]
fn rejects_trimmed_larger_than_raw() {
    let s = Sandbox::new();
    s.edit("traces/research-trace.csv", ",868,74,", ",868,900,");
    let err = s.fails();
    assert_has(
        &err,
        &[
            "row 1 (line 2), column `trimmed_bytes`",
            "900 B is larger than the raw size 868 B",
            "at most raw_bytes",
        ],
    );
}

#[test]
fn rejects_a_negative_size_saying_sizes_cannot_be_negative() {
    let s = Sandbox::new();
    s.edit("traces/research-trace.csv", ",868,74,", ",-868,74,");
    let err = s.fails();
    assert_has(
        &err,
        &[
            "row 1 (line 2), column `raw_bytes`",
            "-868: a size cannot be negative",
        ],
    );
    assert!(!err.contains("unknown variant"), "{err}");
}

#[test]
fn rejects_empty_trace() {
    let s = Sandbox::new();
    let header = "call,round,capability,params,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed,note\n";
    fs::write(s.path("traces/research-trace.csv"), header).unwrap();
    let err = s.fails();
    assert_has(&err, &["the trace is empty", "research.toml:"]);
}

#[test]
fn rejects_model_not_in_price_book() {
    let s = Sandbox::new();
    s.edit(
        "research.toml",
        "model = \"claude-fable-5-2\"",
        "model = \"claude-fable-5-3\"",
    );
    let err = s.fails();
    assert_has(
        &err,
        &[
            "model `claude-fable-5-3` is not in the price book",
            "research.toml:5:9",
            "did you mean `claude-fable-5-2`?",
        ],
    );
}

#[test]
fn rejects_unknown_cache_value() {
    let s = Sandbox::new();
    s.edit("research.toml", "cache = \"5m\"", "cache = \"10m\"");
    let err = s.fails();
    assert_has(
        &err,
        &[
            "unknown value `10m`",
            "`none`, `5m`, `1h`",
            "research.toml:",
        ],
    );
}

#[test]
fn rejects_variant_needing_a_price_the_source_does_not_give() {
    let s = Sandbox::new();
    s.edit(
        "research.toml",
        "model = \"claude-fable-5-2\"",
        "model = \"claude-fable-5-1\"",
    );
    let err = s.fails();
    assert_has(
        &err,
        &[
            "needs cache_write_5m and cache_read for `claude-fable-5-1`",
            "does not give",
        ],
    );
}

#[test]
fn rejects_missing_trace_file() {
    let s = Sandbox::new();
    fs::remove_file(s.path("traces/research-trace.csv")).unwrap();
    let err = s.fails();
    assert_has(
        &err,
        &[
            "cannot read the trace file",
            "research-trace.csv",
            "research.toml:9:",
        ],
    );
}

#[test]
fn rejects_trace_path_that_is_a_directory() {
    let s = Sandbox::new();
    s.edit(
        "research.toml",
        "file = \"traces/research-trace.csv\"",
        "file = \"traces\"",
    );
    let err = s.fails();
    assert_has(&err, &["is a directory, not a file", "research.toml:9:"]);
}

#[test]
fn rejects_missing_scenario_file() {
    let out = tokencast()
        .args(["simulate", "scenarios/nope.toml", "--no-report"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_has(
        &err,
        &["cannot read the scenario file `scenarios/nope.toml`"],
    );
}

#[test]
fn refuses_to_overwrite_a_file_it_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("notes.html");
    fs::write(&mine, "my own notes").unwrap();
    let out = tokencast()
        .args(["simulate", "scenarios/research.toml", "--report"])
        .arg(&mine)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_has(&err, &["refusing to overwrite", "--force"]);
    assert_eq!(fs::read_to_string(&mine).unwrap(), "my own notes");
}

#[test]
fn rejects_assumptions_beyond_exact_arithmetic() {
    let s = Sandbox::new();
    s.edit(
        "research.toml",
        "prefix_tokens = 3000",
        "prefix_tokens = 3000000000000",
    );
    let err = s.fails();
    assert_has(
        &err,
        &["assumptions.prefix_tokens = 3000000000000 is more than 1000000000 tokens"],
    );
    let s = Sandbox::new();
    s.edit(
        "research.toml",
        "bytes_per_token = 4",
        "bytes_per_token = \"4.0000001\"",
    );
    assert_has(&s.fails(), &["bytes_per_token", "at most six decimals"]);
}

#[test]
fn rejects_a_turn_break_share_above_one_where_it_is_written() {
    let s = Sandbox::new();
    s.edit(
        "research.toml",
        "results = \"raw\"\ncache = \"5m\"",
        "results = \"raw\"\ncache = \"5m\"\nturn_break_share = 1.5",
    );
    let err = s.fails();
    assert_has(
        &err,
        &[
            "turn_break_share = 1.5 is not a share of at most 1",
            "research.toml:",
            "write a share between 0 and 1",
        ],
    );
}

#[test]
fn rejects_a_warm_prefix_or_survived_expiry_share_outside_zero_to_one_where_it_is_written() {
    for key in ["warm_prefix_share", "survived_expiry_share"] {
        for (value, says) in [
            ("1.25", format!("{key} = 1.25 is not a share of at most 1")),
            ("-0.5", key.to_string()),
            ("0.12345", "at most 4 decimals".to_string()),
        ] {
            let s = Sandbox::new();
            s.edit(
                "research.toml",
                "results = \"raw\"\ncache = \"5m\"",
                &format!("results = \"raw\"\ncache = \"5m\"\n{key} = {value}"),
            );
            assert_has(&s.fails(), &[&says, "research.toml:"]);
        }
    }
}

#[test]
fn rejects_a_cache_hit_share_p10_alone_or_above_its_share_where_it_is_written() {
    let beside = "the share the upper bound reads: write it beside a cache_hit_share";
    for (keys, says, help) in [
        (
            "cache_hit_share_p10 = 0.9",
            "cache_hit_share_p10 = 0.9 is without a cache_hit_share",
            beside,
        ),
        (
            "cache_hit_share = 0.9\ncache_hit_share_p10 = 0.95",
            "cache_hit_share_p10 = 0.95 is above its cache_hit_share = 0.9",
            beside,
        ),
        (
            "cache_hit_share = 0.9\ncache_hit_share_p10 = 1.5",
            "cache_hit_share_p10 = 1.5 is not a share of at most 1",
            "write a share between 0 and 1",
        ),
    ] {
        let s = Sandbox::new();
        s.edit(
            "research.toml",
            "results = \"raw\"\ncache = \"5m\"",
            &format!("results = \"raw\"\ncache = \"5m\"\n{keys}"),
        );
        assert_has(&s.fails(), &[says, "research.toml:", help]);
    }
}

#[test]
fn rejects_a_service_tier_the_models_entry_does_not_give() {
    // A model named with a tier, as an import names a fast-mode request's:
    // the research book's entry gives no fast mode.
    let s = Sandbox::new();
    s.edit(
        "research.toml",
        "model = \"claude-fable-5-2\"",
        "model = \"claude-fable-5-2 (service fast)\"",
    );
    let err = s.fails();
    assert_has(
        &err,
        &[
            "model `claude-fable-5-2 (service fast)`",
            "gives no service tier `fast`",
            "research.toml:5:9",
            "[models.\"claude-fable-5-2\".services.fast] multiplier",
        ],
    );
}

/// A trace of `rows` generated rows (9 MB at 200,000: past the size from
/// which a trace is read a block at a time), with `bad` in place of row
/// `bad_row` when given.
fn large_trace(rows: usize, bad: Option<(usize, &str)>) -> String {
    let mut text = String::from(
        "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed\n",
    );
    for i in 1..=rows {
        match bad {
            Some((row, line)) if row == i => text.push_str(line),
            _ => {
                let cap = ["web/search", "docs/fetch", "reddit/search"][i % 3];
                let status = if i % 11 == 5 { 503 } else { 200 };
                text.push_str(&format!(
                    "{i},{cap},{status},{},{},{},{},0.000{},false\n",
                    i % 9,
                    4000 + i * 7 % 5000,
                    1000 + i % 700,
                    i % 2000,
                    i % 10,
                ));
            }
        }
    }
    text
}

#[test]
fn a_bad_row_deep_in_a_trace_read_in_blocks_is_named_with_its_line() {
    let s = Sandbox::new();
    let rows = 200_000;
    let text = large_trace(
        rows,
        Some((150_000, "150000,web/search,2OO,1,900,100,5,0,false\n")),
    );
    assert!(text.len() > 8 << 20, "{}", text.len());
    fs::write(s.path("traces/research-trace.csv"), text).unwrap();
    let err = s.fails();
    assert_has(
        &err,
        &[
            "row 150000 (line 150001), column `status`: not a whole number",
            "line 150001, column 19",
        ],
    );
}

#[test]
fn a_trace_read_in_blocks_has_every_row_and_the_files_digest() {
    use sha2::{Digest, Sha256};
    let s = Sandbox::new();
    let rows = 200_000;
    let text = large_trace(rows, None);
    fs::write(s.path("traces/research-trace.csv"), &text).unwrap();
    let doc = common::json_of(tokencast().current_dir(s.dir.path()).args([
        "simulate",
        "research.toml",
        "--format",
        "json",
        "--no-report",
    ]));
    // Every 11th row from the 5th is an error; the rest are results.
    let errors = (1..=rows).filter(|i| i % 11 == 5).count();
    assert_eq!(doc["tool_results"], (rows - errors) as u64);
    assert_eq!(doc["ledger"]["errors"], errors as u64);
    let digest: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let trace = doc["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "research-trace.csv")
        .expect("the trace among the inputs");
    assert_eq!(trace["sha256"], digest.as_str());
}
