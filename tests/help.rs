//! Help that is true (issue 22): every `--help` default is the real
//! default, and an import that could read nothing says what it expected and
//! what it found, and exits 2 with nothing written.

mod common;
use common::*;
use std::fs;
use std::path::Path;

fn help(args: &[&str]) -> String {
    let out = tokencast().args(args).arg("--help").output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

fn fails(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = tokencast()
        .current_dir(dir)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "no partial output: {args:?}");
    err
}

#[test]
fn each_pages_default_in_help_is_where_the_page_is_written() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code");
    assert!(help(&["import", "claude-code"]).contains("[default: reports/import-claude-code.html]"));
    assert!(help(&["import", "api"]).contains("[default: reports/import-api.html]"));
    assert!(help(&["simulate"]).contains("[default: reports/<scenario file stem>.html]"));
    assert!(help(&["sweep"]).contains("[default: reports/<scenario file stem>-sweep.html]"));
    // And that is where an import without --report writes its page.
    let dir = tempfile::tempdir().unwrap();
    let out = tokencast()
        .current_dir(dir.path())
        .args(["import", "claude-code"])
        .arg(&fixtures)
        .args(["--out", "out", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.path().join("reports/import-claude-code.html").is_file());
}

#[test]
fn sources_without_a_default_location_say_so_in_help_and_when_run() {
    let api = help(&["import", "api"]);
    assert!(api.contains("no default location"), "{api}");
    assert!(!api.contains("the source's own locations"), "{api}");
    let dir = tempfile::tempdir().unwrap();
    for source in ["api", "otel"] {
        let err = fails(dir.path(), &["import", source, "--no-report"], &[]);
        assert!(err.contains("no files given"), "{err}");
    }
}

#[test]
fn the_claude_config_dir_tried_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let err = fails(
        dir.path(),
        &["import", "claude-code", "--no-report"],
        &[(
            "CLAUDE_CONFIG_DIR",
            "/nonexistent/tokencast-a,/nonexistent/tokencast-b",
        )],
    );
    assert!(
        err.contains("/nonexistent/tokencast-a/projects, /nonexistent/tokencast-b/projects (from $CLAUDE_CONFIG_DIR)"),
        "{err}"
    );
}

#[test]
fn yaml_cassettes_are_named_as_yaml_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let cassettes = dir.path().join("cassettes");
    fs::create_dir_all(&cassettes).unwrap();
    let cassette = "interactions:\n- request:\n    body: '{}'\n    method: POST\n  response:\n    status: {code: 200}\nversion: 1\n";
    fs::write(cassettes.join("one.yaml"), cassette).unwrap();
    fs::write(cassettes.join("two.yaml"), cassette).unwrap();
    // A folder of them: no file of the kind the reader reads.
    let err = fails(
        dir.path(),
        &["import", "api", "cassettes", "--out", "out"],
        &[],
    );
    assert!(err.contains("no API log file under cassettes"), "{err}");
    assert!(err.contains("found 2 .yaml file(s) (YAML"), "{err}");
    // One given by name: every line is a problem, so nothing was read.
    let err = fails(
        dir.path(),
        &["import", "api", "cassettes/one.yaml", "--out", "out"],
        &[],
    );
    assert!(err.contains("nothing could be read"), "{err}");
    assert!(err.contains("looks like YAML"), "{err}");
    assert!(err.contains("one.yaml: line 1"), "{err}");
    assert!(!dir.path().join("out").exists() && !dir.path().join("reports").exists());
}

/// The fixture logs copied to `dir/logs` (what `common::import_logs` reads).
fn with_logs() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code");
    copy_dir(&fixtures, &dir.path().join("logs"));
    dir
}

#[test]
fn a_filter_that_keeps_no_session_is_a_result_not_an_error() {
    let dir = with_logs();
    let doc = import_logs(dir.path(), &["--since", "2099-01-01"]);
    assert_eq!(doc["sessions"].as_array().unwrap().len(), 0);
}

#[test]
fn import_writes_every_table_as_csv_like_simulate() {
    let dir = with_logs();
    let doc = import_logs(dir.path(), &["--csv", "tables"]);
    let mut rdr = csv::Reader::from_path(dir.path().join("tables/sessions.csv")).unwrap();
    let headers = rdr.headers().unwrap().clone();
    let at = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    let sessions = doc["sessions"].as_array().unwrap();
    assert_eq!(rows.len(), sessions.len());
    for row in &rows {
        let s = sessions
            .iter()
            .find(|s| s["session"] == row[at("session")])
            .unwrap();
        // The same figure as the JSON, or an empty field (never 0) where
        // no request of the session could be priced.
        if s["unpriced_requests"] == s["requests"] {
            assert_eq!(&row[at("recorded_usd")], "");
            assert_eq!(&row[at("unpriced_requests")], s["requests"].to_string());
        } else {
            assert_eq!(
                row[at("recorded_usd")]
                    .parse::<rust_decimal::Decimal>()
                    .unwrap(),
                dec(&s["recorded_cost"])
            );
        }
    }
    for table in ["days", "problems", "unpriced"] {
        assert!(
            dir.path().join(format!("tables/{table}.csv")).is_file(),
            "{table}"
        );
    }
}

#[test]
fn import_brief_prints_only_the_answer() {
    let dir = with_logs();
    let out = tokencast()
        .current_dir(dir.path())
        .args([
            "import",
            "claude-code",
            "logs",
            "--out",
            "out",
            "--no-report",
            "--brief",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // The fixture's sessions as recorded, worked out by hand in
    // tests/dataset.rs: $0.0218565 and $0.016337, to four decimals.
    assert!(
        text.contains("Dearest sessions as recorded: 11111111 $0.0219, 33333333 $0.0163."),
        "{text}"
    );
    assert!(
        text.contains("In all: 3 session(s), 13 request(s)"),
        "{text}"
    );
    // Batch halves every price: half the as-recorded estimate.
    let doc = import_logs(dir.path(), &[]);
    let w = &doc["totals"]["what_if"];
    assert_eq!(
        dec(&w["batch"]["estimate"]) * rust_decimal::Decimal::TWO,
        dec(&w["as_recorded"]["estimate"])
    );
    assert!(
        text.contains(&format!("in batch ${}", shown(&w["batch"]["estimate"], 4))),
        "{text}"
    );
    // Nothing but the answer: no table, no counting sentence.
    assert!(
        !text.contains("Sessions (") && !text.contains("Read 6 files"),
        "{text}"
    );
}
