//! `tokencast import otel` on `tests/fixtures/otel/spans.jsonl`: OTLP/JSON
//! exports written for these tests with GenAI spans: a conversation of two
//! chat spans and a tool span between them, a span exported twice, a chat
//! span of another trace without a conversation id, a span that is neither,
//! and a broken line. Figures are worked out by hand; "SECRET" text (the
//! opt-in message and tool attributes) must appear in no output.

mod common;
use common::*;
use rust_decimal::Decimal;
use std::fs;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/otel")
}

fn import(dir: &Path, extra: &[&str]) -> std::process::Output {
    tokencast()
        .current_dir(dir)
        .args(["import", "otel"])
        .arg(fixtures())
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn genai_spans_become_sessions_with_input_net_of_cached_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let out = import(
        dir.path(),
        &["--format", "json", "--no-report", "--out", "out"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sessions = doc["sessions"].as_array().unwrap();
    assert_eq!(
        sessions.len(),
        2,
        "conv-1 by conversation id, t2 by trace id"
    );
    let s = sessions.iter().find(|s| s["session"] == "conv-1").unwrap();
    // input_tokens include cache reads and writes (GenAI conventions):
    // 2,006 − 1,920 = 86 and 4,100 − 2,006 − 2,000 = 94; the span exported
    // twice counts once.
    assert_eq!(s["requests"], 2);
    assert_eq!(doc["skipped"]["duplicate_messages"], 1);
    let u = &s["usage"];
    assert_eq!(u["input"], 86 + 94);
    assert_eq!(u["cache_read"], 1920 + 2006);
    assert_eq!(u["cache_write_5m"], 2000);
    assert_eq!(u["output"], 300 + 50);
    // gpt-5: 86×1.25 + 1,920×0.125 + 300×10 = 3,347.5; 94×1.25 + 2,000×1.25 +
    // 2,006×0.125 + 50×10 = 3,368.25.
    assert_eq!(
        dec(&s["recorded_cost"]),
        "0.00671575".parse::<Decimal>().unwrap()
    );
    // The tool span: 18 bytes of gen_ai.tool.call.result, 1.5 s, carried by
    // the second request, which runs on gpt-5: its text counted with
    // o200k_base (the count, never the text).
    let tokens = bpe_openai::o200k_base().count("SECRET-TOOL-RESULT");
    let csv = fs::read_to_string(dir.path().join("out/conv-1/main.csv")).unwrap();
    assert!(
        csv.lines().nth(1).unwrap().starts_with(&format!(
            "1,search,200,1,18,18,1500,0,false,0,0,output,{tokens},2,"
        )),
        "{csv}"
    );
    let t2 = sessions.iter().find(|s| s["session"] == "t2").unwrap();
    // claude-sonnet-4-5: 100×3 + 900×3.75 + 10×15 = 3,825.
    assert_eq!(
        dec(&t2["recorded_cost"]),
        "0.003825".parse::<Decimal>().unwrap()
    );
    assert_eq!(doc["problems"][0]["line"], 3);
}

#[test]
fn no_output_holds_span_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut all = Vec::new();
    for format in ["table", "json", "csv"] {
        let out = import(dir.path(), &["--format", format, "--out", "out"]);
        assert!(out.status.success());
        all.push(out.stdout);
        all.push(out.stderr);
    }
    assert_nowhere("SECRET", &all, dir.path());
}

#[test]
fn a_count_past_the_limit_is_capped_for_its_span_and_the_session_kept() {
    // Session t2's request says 3 billion input tokens instead of 1,000:
    // capped at 10^9 for that span, which is listed, and the session kept.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixtures().join("spans.jsonl")).unwrap();
    let corrupt = text.replacen(
        r#""gen_ai.usage.input_tokens", "value": {"intValue": "1000"}"#,
        r#""gen_ai.usage.input_tokens", "value": {"intValue": "3000000000"}"#,
        1,
    );
    assert_ne!(corrupt, text);
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    std::fs::write(dir.path().join("logs/spans.jsonl"), corrupt).unwrap();
    let doc = json_of(tokencast().current_dir(dir.path()).args([
        "import",
        "otel",
        "logs",
        "--format",
        "json",
        "--no-report",
    ]));
    let problems = doc["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p["what"].as_str().unwrap().contains("capped")),
        "{problems:?}"
    );
    let t2 = doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session"] == "t2")
        .expect("t2 kept");
    assert_eq!(t2["usage"]["input"], 1_000_000_000u64);
}

#[test]
fn one_pretty_printed_document_reads_as_its_lines_do() {
    // The fixture's exports that parse, merged into one document written
    // over many lines (as an export saved by hand or by a script is).
    let text = fs::read_to_string(fixtures().join("spans.jsonl")).unwrap();
    let mut resource_spans = Vec::new();
    for line in text.lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
            resource_spans.extend(v["resourceSpans"].as_array().unwrap().iter().cloned());
        }
    }
    assert!(
        resource_spans.len() >= 2,
        "the fixture has exports to merge"
    );
    let doc = serde_json::json!({ "resourceSpans": resource_spans });
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    fs::create_dir_all(&logs).unwrap();
    let pretty = serde_json::to_string_pretty(&doc).unwrap();
    fs::write(logs.join("export.json"), &pretty).unwrap();
    let whole = tokencast()
        .current_dir(dir.path())
        .args(["import", "otel"])
        .arg(&logs)
        .args(["--format", "json", "--no-report", "--out", "whole"])
        .output()
        .unwrap();
    assert!(
        whole.status.success(),
        "{}",
        String::from_utf8_lossy(&whole.stderr)
    );
    let lines = import(
        dir.path(),
        &["--format", "json", "--no-report", "--out", "lines"],
    );
    let (w, l): (serde_json::Value, serde_json::Value) = (
        serde_json::from_slice(&whole.stdout).unwrap(),
        serde_json::from_slice(&lines.stdout).unwrap(),
    );
    assert_eq!(w["sessions"], l["sessions"]);
    // The document's own lines and bytes are counted, as a file's always are.
    assert_eq!(w["lines"], pretty.lines().count());
    assert_eq!(w["bytes"], pretty.len());
    assert_eq!(w["totals"], l["totals"]);
    // The broken line of the fixture is not in the document: no problem.
    assert_eq!(w["problems"].as_array().unwrap().len(), 0);
}

/// `import otel PATH --format json --no-report --out out` run in `dir`,
/// which must succeed: its output and its summary document.
fn import_json(dir: &Path, path: &Path) -> (std::process::Output, serde_json::Value) {
    let out = tokencast()
        .current_dir(dir)
        .args(["import", "otel"])
        .arg(path)
        .args(["--format", "json", "--no-report", "--out", "out"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = serde_json::from_slice(&out.stdout).unwrap();
    (out, doc)
}

/// Claude Code's own OpenTelemetry events (`tests/fixtures/otel-claude-code`,
/// written for this test as the collector's file exporter writes logs):
/// a user prompt, two `claude_code.api_request` events and a
/// `claude_code.tool_result` between them, the second export written twice.
#[test]
fn claude_codes_own_events_become_a_session_with_anthropics_token_classes() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/otel-claude-code");
    let (out, doc) = import_json(dir.path(), &fixtures);
    let s = &doc["sessions"][0];
    assert_eq!(s["session"], "sess-1");
    assert_eq!(s["project"], "claude-code", "the resource's service.name");
    assert_eq!(s["requests"], 2);
    assert_eq!(s["tool_results"], 1);
    // Anthropic's classes as the events give them: input_tokens is the
    // uncached input, cache_creation_tokens are writes.
    let u = &s["usage"];
    assert_eq!(
        (
            &u["input"],
            &u["cache_write_5m"],
            &u["cache_read"],
            &u["output"]
        ),
        (
            &(10 + 5).into(),
            &(5000 + 700).into(),
            &5010.into(),
            &(50 + 20).into()
        )
    );
    // claude-sonnet-4-5 ($3 input, $3.75 5-minute write, $0.30 read, $15
    // output per million): 10×3 + 5,000×3.75 + 50×15 = 19,530 and
    // 5×3 + 700×3.75 + 5,010×0.3 + 20×15 = 4,443 millionths.
    assert_eq!(dec(&s["recorded_cost"]), Decimal::new(23_973, 6));
    // The retried export counts once; the user prompt is no request.
    assert_eq!(doc["skipped"]["duplicate_messages"], 2);
    assert_eq!(doc["skipped"]["other_lines"], 1);
    // The 400-byte Read result enters before the second request, which
    // started at its end time less its duration (10:00:06 − 1 s).
    let trace = fs::read_to_string(dir.path().join("out/sess-1/main.csv")).unwrap();
    let row: Vec<&str> = trace.lines().nth(1).unwrap().split(',').collect();
    assert_eq!((row[1], row[4], row[6]), ("Read", "400", "500"), "{trace}");
    // A `Read` result is code.
    assert_eq!(
        (row[11], row[12], row[13], row[14]),
        ("code", "", "2", "2026-11-20T10:00:05.000Z"),
        "{trace}"
    );
    // No attribute text (the user id) reaches any output.
    assert_nowhere("SECRET", &[out.stdout, out.stderr], dir.path());
}

#[test]
fn an_events_size_past_the_limit_is_capped_for_that_event() {
    let dir = tempfile::tempdir().unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/otel-claude-code/logs.jsonl");
    let text = fs::read_to_string(fixture).unwrap().replacen(
        r#"{"key": "tool_result_size_bytes", "value": {"intValue": "400"}}"#,
        r#"{"key": "tool_result_size_bytes", "value": {"intValue": "18446744073709551615"}}"#,
        1,
    );
    assert!(text.contains("18446744073709551615"));
    fs::create_dir_all(dir.path().join("logs")).unwrap();
    fs::write(dir.path().join("logs/logs.jsonl"), text).unwrap();
    let (_, doc) = import_json(dir.path(), &dir.path().join("logs"));
    // The session is kept, with the result at the 10 GB limit, and the
    // event is named among the problems.
    assert_eq!(doc["sessions"][0]["requests"], 2);
    let problems = doc["problems"].to_string();
    assert!(
        problems.contains("tool_result#2: a result size above 10000000000 bytes"),
        "{problems}"
    );
    let trace = fs::read_to_string(dir.path().join("out/sess-1/main.csv")).unwrap();
    assert!(
        trace.lines().nth(1).unwrap().contains(",10000000000,"),
        "{trace}"
    );
}

/// The fixture's lines, with two more broken ones among them, each in a
/// file of its own read as the one file of them does (the same sessions,
/// and problems of three kinds in the same order); and a file whose first
/// line is JSON but no export is read a line at a time (that line
/// reported), not as one document.
#[test]
fn an_export_a_file_reads_as_an_export_a_line_and_a_first_line_of_other_json_is_reported() {
    let text = fs::read_to_string(fixtures().join("spans.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (_, fixture) = import_json(dir.path(), &fixtures());
    let mut lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() >= 3, "the fixture has lines to split");
    lines.insert(1, r#"{"resourceSpans": ["#);
    lines.insert(3, "[1, 2]");
    let (joined, split) = (dir.path().join("joined"), dir.path().join("split"));
    fs::create_dir_all(&joined).unwrap();
    fs::create_dir_all(&split).unwrap();
    fs::write(joined.join("spans.jsonl"), lines.join("\n")).unwrap();
    for (i, line) in lines.iter().enumerate() {
        let file = split.join(format!("export-{i:02}.jsonl"));
        fs::write(file, format!("{line}\n")).unwrap();
    }
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (_, one_file) = import_json(d1.path(), &joined);
    let (_, files) = import_json(d2.path(), &split);
    assert_eq!(one_file["sessions"], fixture["sessions"]);
    assert_eq!(files["sessions"], one_file["sessions"]);
    assert_eq!(files["totals"], one_file["totals"]);
    let whats = |doc: &serde_json::Value| -> Vec<String> {
        doc["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["what"].as_str().unwrap().to_string())
            .collect()
    };
    // The fixture's broken line and the two added: three kinds of problem.
    let seen = whats(&one_file);
    assert_eq!(seen.len(), whats(&fixture).len() + 2, "{seen:?}");
    assert!(seen[0].contains("truncated"), "{seen:?}");
    assert_eq!(whats(&files), seen);

    let other = dir.path().join("other");
    fs::create_dir_all(&other).unwrap();
    fs::write(other.join("spans.jsonl"), format!("[1, 2]\n{text}")).unwrap();
    let d3 = tempfile::tempdir().unwrap();
    let (_, after) = import_json(d3.path(), &other);
    assert_eq!(after["sessions"], fixture["sessions"]);
    let problems = after["problems"].as_array().unwrap();
    assert_eq!(
        problems.len(),
        fixture["problems"].as_array().unwrap().len() + 1
    );
    assert_eq!(problems[0]["line"], 1);
    assert!(
        problems[0]["what"]
            .as_str()
            .unwrap()
            .contains("not an OTLP/JSON export"),
        "{problems:?}"
    );
}
