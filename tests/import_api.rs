//! `tokencast import api` on `tests/fixtures/api/`: two runs written for
//! these tests in the providers' shapes: Anthropic request and response
//! pairs (a 1-hour cache, a result sent again, a server-side compaction in
//! `usage.iterations`), and OpenAI Chat and Responses bodies (cached and
//! written tokens inside the input count, reasoning inside the output).
//! Figures are worked out by hand; "SECRET" text must appear in no output.

mod common;
use common::*;
use rust_decimal::Decimal;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/api")
}

fn import(dir: &Path, extra: &[&str]) -> std::process::Output {
    tokencast()
        .current_dir(dir)
        .args(["import", "api"])
        .arg(fixtures())
        .args(extra)
        .output()
        .unwrap()
}

fn session<'a>(doc: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session"] == id)
        .unwrap()
}

fn usage(s: &serde_json::Value) -> [u64; 5] {
    [
        "input",
        "cache_write_5m",
        "cache_write_1h",
        "cache_read",
        "output",
    ]
    .map(|k| s["usage"][k].as_u64().unwrap())
}

fn json(dir: &Path) -> serde_json::Value {
    let out = import(dir, &["--format", "json", "--no-report", "--out", "out"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The fixture `run` with its first `from` replaced by `to` (which must
/// change it; both empty: as logged), imported from `dir/logs`: the JSON
/// summary.
fn import_edited(dir: &Path, run: &str, from: &str, to: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(fixtures().join(run)).unwrap();
    let edited = text.replacen(from, to, 1);
    assert!(
        from.is_empty() || edited != text,
        "{from} is not in the run"
    );
    import_written(dir, &[(run, &edited)])
}

#[test]
fn anthropic_pairs_count_iterations_and_measure_results_once() {
    let dir = tempfile::tempdir().unwrap();
    let doc = json(dir.path());
    let s = session(&doc, "anthropic-run");
    // 12 + 8 + (100 + 5) input; the compaction iteration's 55,096 5-minute
    // writes; 3,000 + 100 1-hour writes; 3,000 + 3,100 reads; 80 + 40 + (131 + 200) output.
    assert_eq!(usage(s), [125, 55096, 3100, 6100, 451]);
    // toolu_a's "SECRET-RESULT wörld" (20 bytes) in request 2, sent again in
    // request 3 and counted once; toolu_b's 500-byte text and an image.
    assert_eq!(s["tool_results"], 2);
    assert_eq!(s["result_bytes"], 520);
    assert_eq!(s["images"], 1);
    // claude-sonnet-4-5: 3 in, 15 out, 3.75 5m, 6 1h, 0.3 read per million:
    // 19,236 + 2,124 + 212,820.
    assert_eq!(
        dec(&s["recorded_cost"]),
        "0.23418".parse::<Decimal>().unwrap()
    );
}

#[test]
fn openai_counts_lose_cached_and_written_tokens_from_input() {
    let dir = tempfile::tempdir().unwrap();
    let doc = json(dir.path());
    let s = session(&doc, "openai-run");
    // Chat: 4,020 prompt with 4,012 written → 8 uncached; Chat: 4,100 with
    // 4,012 cached → 88; Responses: 4,300 with 4,100 cached → 200.
    assert_eq!(usage(s), [296, 4012, 0, 8112, 140]);
    // The tool message (250 bytes) and the function_call_output (120).
    assert_eq!(s["result_bytes"], 370);
    // Both are OpenAI's: counted with o200k_base into the trace, as the
    // tokenizer counts their text (250 × "y", 120 × "z").
    let trace = std::fs::read_to_string(dir.path().join("out/openai-run/main.csv")).unwrap();
    let o200k = bpe_openai::o200k_base();
    let want = [o200k.count(&"y".repeat(250)), o200k.count(&"z".repeat(120))];
    let mut rows = csv::Reader::from_reader(trace.as_bytes());
    let col = rows
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "o200k_tokens")
        .unwrap();
    let got: Vec<usize> = rows
        .records()
        .map(|r| r.unwrap()[col].to_string())
        .filter(|c| !c.is_empty())
        .map(|c| c.parse().unwrap())
        .collect();
    assert_eq!(got, want, "{trace}");
    // gpt-5: 1.25 in and write (no premium), 0.125 read, 10 out:
    // 5,325 + 1,111.5 + 1,362.5.
    assert_eq!(
        dec(&s["recorded_cost"]),
        "0.007799".parse::<Decimal>().unwrap()
    );
}

#[test]
fn bad_lines_are_listed_and_no_output_holds_log_text() {
    let dir = tempfile::tempdir().unwrap();
    let doc = json(dir.path());
    let p = &doc["problems"][0];
    assert_eq!(p["file"], "anthropic-run.jsonl");
    assert_eq!(p["line"], 4);
    let mut all = Vec::new();
    for format in ["table", "json", "csv"] {
        let out = import(dir.path(), &["--format", format, "--out", "o2"]);
        assert!(out.status.success());
        all.push(out.stdout);
        all.push(out.stderr);
    }
    assert_nowhere("SECRET", &all, dir.path());
    let out = import(dir.path(), &["--strict", "--out", "strict", "--no-report"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_count_past_the_limit_is_capped_for_its_line_and_the_run_imported() {
    // The first response of the Anthropic run with a prompt of 3 billion
    // tokens: capped at 10^9 for that line, which is listed with its file
    // and line, and the run's other requests are imported as before.
    let dir = tempfile::tempdir().unwrap();
    let doc = import_edited(
        dir.path(),
        "anthropic-run.jsonl",
        "\"input_tokens\": 12,",
        "\"input_tokens\": 3000000000,",
    );
    let p = &doc["problems"][0];
    assert_eq!(p["line"], 1, "{p}");
    assert!(p["what"].as_str().unwrap().contains("capped"), "{p}");
    // Against the same run as logged: the same requests, and 10^9 uncached
    // input tokens where the first line said 12.
    let clean = import_edited(dir.path(), "anthropic-run.jsonl", "", "");
    let (s, c) = (&doc["sessions"][0], &clean["sessions"][0]);
    assert_eq!(s["requests"], c["requests"]);
    assert_eq!(usage(s)[0], usage(c)[0] - 12 + 1_000_000_000);
    assert_eq!(usage(s)[1..], usage(c)[1..]);
}

#[test]
fn a_response_in_fast_mode_is_priced_as_its_own_model() {
    // The run's first response with Anthropic's `speed` and `inference_geo`:
    // claude-sonnet-4-5 has neither a fast tier nor a US uplift in the
    // bundled book, so that request is unpriced and says why, rather than
    // priced at the standard rates; the others are priced as before.
    let dir = tempfile::tempdir().unwrap();
    let doc = import_edited(
        dir.path(),
        "anthropic-run.jsonl",
        "\"output_tokens\": 80}",
        "\"output_tokens\": 80, \"speed\": \"fast\", \"inference_geo\": \"us\"}",
    );
    let u = &doc["unpriced"][0];
    assert_eq!(
        u["model"], "claude-sonnet-4-5 (service fast, region us)",
        "{doc}"
    );
    assert_eq!(u["requests"], 1);
    let reason = u["reason"].as_str().unwrap();
    assert!(reason.contains("service tier `fast`"), "{reason}");
    assert_eq!(doc["sessions"][0]["unpriced_requests"], 1);
}

#[test]
fn an_openai_response_on_the_flex_tier_is_priced_at_flex_prices() {
    // The OpenAI run's first response served on flex: gpt-5's flex prices
    // in the bundled book are $0.625 input and $5 output, and a write (no
    // premium) keeps its ratio to input, $0.625. That request: 8 × 0.625 +
    // 4,012 × 0.625 + 30 × 5 = 2,662.5 per million, against 5,325 on the
    // default tier; the run's other two as before (1,111.5 + 1,362.5).
    let on_tier = |tier: &str| {
        let dir = tempfile::tempdir().unwrap();
        let doc = import_edited(
            dir.path(),
            "openai-run.jsonl",
            "\"created\": 1772539200,",
            &format!("\"created\": 1772539200, \"service_tier\": \"{tier}\","),
        );
        let s = session(&doc, "openai-run");
        assert_eq!(s["unpriced_requests"], 0, "{doc}");
        dec(&s["recorded_cost"])
    };
    assert_eq!(on_tier("flex"), "0.0051365".parse::<Decimal>().unwrap());
    // The default tier (`default`, `auto`) is the standard one.
    assert_eq!(on_tier("default"), "0.007799".parse::<Decimal>().unwrap());
}

/// `import api logs --format json --no-report` of `files` (name, lines)
/// written under `dir/logs`.
fn import_written(dir: &Path, files: &[(&str, &str)]) -> serde_json::Value {
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join("logs").join(name), text).unwrap();
    }
    json_of(tokencast().current_dir(dir).args([
        "import",
        "api",
        "logs",
        "--format",
        "json",
        "--no-report",
    ]))
}

#[test]
fn batch_results_are_read_and_priced_at_batch_prices() {
    // Anthropic's Message Batches results: two requests succeeded on
    // claude-sonnet-4-5 (batch prices in the bundled book: $1.50 input,
    // $7.50 output, half the list), one errored (no message, no charge):
    // 1,000 × 1.5 + 200 × 7.5 + 2,000 × 1.5 + 100 × 7.5 = 6,750 per million.
    let message = |id: &str, input: u64, output: u64| {
        serde_json::json!({"id": id, "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929", "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": input, "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0, "output_tokens": output, "service_tier": "batch"}})
    };
    let anthropic = [
        serde_json::json!({"custom_id": "r1", "result": {"type": "succeeded", "message": message("msg_01A", 1000, 200)}}),
        serde_json::json!({"custom_id": "r2", "result": {"type": "errored",
            "error": {"type": "error", "error": {"type": "invalid_request_error", "message": "SECRET"}}}}),
        serde_json::json!({"custom_id": "r3", "result": {"type": "succeeded", "message": message("msg_01B", 2000, 100)}}),
    ]
    .map(|l| format!("{l}\n"))
    .concat();
    // OpenAI's Batch API output on gpt-5 (batch prices $0.625 input, $5
    // output, half the list): 1,000 × 0.625 + 100 × 5 = 1,125 per million.
    let openai = format!(
        "{}\n",
        serde_json::json!({"id": "batch_req_1", "custom_id": "q1", "response": {"status_code": 200,
            "request_id": "req_1", "body": {"id": "chatcmpl-1", "object": "chat.completion",
                "created": 1764000000, "model": "gpt-5", "choices": [],
                "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100,
                    "prompt_tokens_details": {"cached_tokens": 0}}}}, "error": null})
    );
    let dir = tempfile::tempdir().unwrap();
    let doc = import_written(
        dir.path(),
        &[("anthropic.jsonl", &anthropic), ("openai.jsonl", &openai)],
    );
    assert!(doc["problems"].as_array().unwrap().is_empty(), "{doc}");
    let cost = |id: &str| dec(&session(&doc, id)["recorded_cost"]);
    let d = |s: &str| s.parse::<Decimal>().unwrap();
    assert_eq!(cost("anthropic"), d("0.00675"));
    assert_eq!(session(&doc, "anthropic")["requests"], 2);
    assert_eq!(cost("openai"), d("0.001125"));
    // The errored request is left out as a line without usage, and no
    // output holds its text.
    assert!(!doc.to_string().contains("SECRET"));
    // The same response outside a batch pays the list price.
    let plain = format!(
        "{}\n",
        message("msg_01C", 1000, 200).to_string().replace(
            "\"service_tier\":\"batch\"",
            "\"service_tier\":\"standard\""
        )
    );
    let dir = tempfile::tempdir().unwrap();
    let doc = import_written(dir.path(), &[("plain.jsonl", &plain)]);
    // 1,000 × 3 + 200 × 15 = 6,000 per million.
    assert_eq!(dec(&session(&doc, "plain")["recorded_cost"]), d("0.006"));
}
