//! A current Claude Code log replayed request by request (issue 19): user
//! messages and attachments are measured as context, a usage with
//! `"iterations": null` is read, the CLI's newer line types are known, the
//! gap before each request and a compaction come from the log, and a change
//! of model is priced per request. Every expected figure is derived here.

mod common;
use common::{import_logs, simulate_json, tokencast};
use serde_json::json;
use std::fs;

const SID: &str = "44444444-dddd-4ddd-8ddd-444444444444";

fn line(v: serde_json::Value) -> String {
    format!("{v}\n")
}

fn assistant(
    id: &str,
    model: &str,
    at: &str,
    content: serde_json::Value,
    usage: serde_json::Value,
) -> String {
    line(json!({
        "type": "assistant", "sessionId": SID, "version": "2.1.126", "timestamp": at,
        "requestId": format!("req_{id}"),
        "message": {"model": model, "id": id, "role": "assistant", "content": content, "usage": usage}
    }))
}

fn user(at: &str, content: serde_json::Value) -> String {
    line(
        json!({"type": "user", "sessionId": SID, "version": "2.1.126", "timestamp": at,
        "message": {"role": "user", "content": content}}),
    )
}

/// The attachment of the log, as its line holds it.
fn attachment() -> serde_json::Value {
    json!({"type": "hook_additional_context", "content": ["a reminder of 35 bytes, and no more"]})
}

fn log() -> String {
    [
        user("2026-11-20T10:00:00.000Z", json!("hello")),
        assistant(
            "m1",
            "claude-sonnet-4-5",
            "2026-11-20T10:00:01.000Z",
            json!([{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]),
            json!({"input_tokens": 10, "cache_creation_input_tokens": 5000,
                   "cache_read_input_tokens": 0, "output_tokens": 50, "iterations": null,
                   "cache_creation": {"ephemeral_5m_input_tokens": 5000, "ephemeral_1h_input_tokens": 0}}),
        ),
        user(
            "2026-11-20T10:00:02.000Z",
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "x".repeat(400)}]),
        ),
        line(json!({"type": "attachment", "sessionId": SID, "timestamp": "2026-11-20T10:00:02.500Z",
            "attachment": attachment()})),
        line(json!({"type": "permission-mode", "sessionId": SID, "permissionMode": "default"})),
        line(json!({"type": "ai-title", "sessionId": SID, "aiTitle": "t"})),
        line(json!({"type": "last-prompt", "sessionId": SID})),
        assistant(
            "m2",
            "claude-sonnet-4-5",
            "2026-11-20T10:00:03.000Z",
            json!([{"type": "text", "text": "done"}]),
            json!({"input_tokens": 5, "cache_creation_input_tokens": 700,
                   "cache_read_input_tokens": 5010, "output_tokens": 20}),
        ),
        user("2026-11-20T10:10:00.000Z", json!("next question")),
        line(json!({"type": "system", "subtype": "compact_boundary", "sessionId": SID,
            "timestamp": "2026-11-20T10:10:01.000Z"})),
        user("2026-11-20T10:10:02.000Z", json!("S".repeat(800))),
        assistant(
            "m3",
            "claude-haiku-4-5",
            "2026-11-20T10:10:05.000Z",
            json!([{"type": "text", "text": "ok"}]),
            json!({"input_tokens": 3, "cache_creation_input_tokens": 5200,
                   "cache_read_input_tokens": 0, "output_tokens": 9}),
        ),
    ]
    .concat()
}

/// The backtest's last request of the imported session's scenario.
fn last_backtest_request(dir: &std::path::Path) -> serde_json::Value {
    let sim = simulate_json(dir, &format!("out/{SID}/main.toml"));
    sim["backtest"]["requests"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone()
}

/// A temporary folder holding `log` as the session's file under `logs/proj`.
fn with_log(log: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs/proj");
    fs::create_dir_all(&logs).unwrap();
    fs::write(logs.join(format!("{SID}.jsonl")), log).unwrap();
    dir
}

/// `import claude-code logs --out out --no-report --strict` in `dir`: every
/// line of the log must read.
fn import_strict(dir: &std::path::Path) {
    tokencast()
        .current_dir(dir)
        .args([
            "import",
            "claude-code",
            "logs",
            "--out",
            "out",
            "--no-report",
            "--strict",
        ])
        .assert()
        .success();
}

fn imported() -> tempfile::TempDir {
    let dir = with_log(&log());
    // --strict: every line of a current log is read.
    import_strict(dir.path());
    dir
}

#[test]
fn every_request_is_a_step_with_what_entered_before_it() {
    let dir = imported();
    let csv = fs::read_to_string(dir.path().join(format!("out/{SID}/main.csv"))).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let h = reader.headers().unwrap().clone();
    let get = |r: &csv::StringRecord, col: &str| {
        r.get(h.iter().position(|c| c == col).unwrap())
            .unwrap()
            .to_string()
    };
    // Request 2 follows the Read result (400 bytes) and the attachment;
    // request 3 follows only the summary (800 bytes): "next question" came
    // before the compaction and is inside the summary.
    let seen: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| (get(r, "request"), get(r, "capability"), get(r, "raw_bytes")))
        .collect();
    let att = attachment().to_string().len().to_string();
    assert_eq!(
        seen,
        vec![
            ("2".into(), "Read".into(), "400".into()),
            ("2".into(), "(attachment)".into(), att),
            ("3".into(), "(user message)".into(), "800".into()),
        ]
    );
    // Request 1's 50 tokens of output go back with request 2, 2 s after it;
    // request 2's 20 with request 3, 602 s after it, after a compaction.
    assert_eq!(get(&rows[0], "resent_output"), "50");
    assert_eq!(get(&rows[0], "gap_ms"), "2000");
    assert_eq!(get(&rows[0], "compacted"), "");
    assert_eq!(get(&rows[1], "resent_output"), "");
    assert_eq!(get(&rows[2], "resent_output"), "20");
    assert_eq!(get(&rows[2], "gap_ms"), "602000");
    assert_eq!(get(&rows[2], "compacted"), "true");
    assert_eq!(get(&rows[2], "model"), "claude-haiku-4-5");
}

#[test]
fn the_replay_prices_each_request_on_its_own_model_after_the_recorded_gap() {
    let dir = imported();
    let toml = fs::read_to_string(dir.path().join(format!("out/{SID}/main.toml"))).unwrap();
    assert!(toml.contains("model = \"claude-sonnet-4-5\""), "{toml}");
    assert!(toml.contains("recorded_models = true"), "{toml}");
    // Too few steps to fit: the seed's band, and the measured prefix.
    assert!(toml.contains("bytes_per_token = 4\n"), "{toml}");
    let doc = simulate_json(dir.path(), &format!("out/{SID}/main.toml"));
    let v = &doc["variants"][0];
    assert_eq!(v["name"], "as recorded");
    // Prompts (lower, ÷4): request 1 5,010 (the recorded first prompt);
    // request 2 5,010 + 50 + (400 + attachment)/4; request 3 (compacted)
    // 5,010 + 800/4 = 5,210. All are above both models' minimum cacheable
    // lengths (1,024 and 4,096 tokens).
    let att = attachment().to_string().len() as u64;
    let p2 = 5010 + 50 + (400 + att) / 4;
    assert_eq!((400 + att) % 4, 0, "the attachment keeps the sums whole");
    // 5-minute cache on sonnet-4-5 ($3.75 write, $0.3 read, $15 out):
    // request 1 writes 5,010; request 2 reads 5,010 and writes the rest;
    // request 3 runs on haiku-4-5 ($1.25 write, $5 out), which has no copy of
    // the prefix: it writes all 5,210. Output: 50 + 20 on sonnet, 9 on haiku.
    let sonnet = 5010 * 375 + (p2 - 5010) * 375 + 5010 * 30 + (50 + 20) * 1500;
    let haiku = 5210 * 125 + 9 * 500;
    // In hundredths of a dollar per million tokens.
    let expected =
        rust_decimal::Decimal::from(sonnet + haiku) / rust_decimal::Decimal::from(100_000_000u64);
    let model_cost =
        common::dec(&v["cost"]["input"]["lower"]) + common::dec(&v["cost"]["output"]["lower"]);
    assert_eq!(model_cost, expected.normalize());
    assert_eq!(
        v["expiries"], 0,
        "the break at request 3 is the change of model"
    );
}

#[test]
fn the_backtest_covers_every_request_with_the_engine_s_own_prompts() {
    let dir = imported();
    let doc = simulate_json(dir.path(), &format!("out/{SID}/main.toml"));
    let b = &doc["backtest"];
    let rows = b["requests"].as_array().unwrap();
    // Requests 2 and 3 (request 1's prompt is the measured prefix), with
    // the rows that entered before each: Read and the attachment, the summary.
    let seen: Vec<(u64, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["request"].as_u64().unwrap(),
                r["results"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(seen, vec![(2, 2), (3, 3)]);
    // Recorded prompts: 5 + 700 + 5,010 and 3 + 5,200.
    assert_eq!(rows[0]["recorded_prompt"], 5715);
    assert_eq!(rows[1]["recorded_prompt"], 5203);
    // The engine's prompts, as it replayed them: request 3 after the
    // compaction holds the prefix and the 800-byte summary only, in both
    // bounds' measured parts (5,010 + 200, and 5,010 + 200 × 1.3 = 5,270).
    assert_eq!(
        common::dec(&rows[1]["simulated_prompt"]["lower"]),
        5210.into()
    );
    assert_eq!(
        common::dec(&rows[1]["simulated_prompt"]["upper"]),
        5270.into()
    );
    // Recorded cost of both, each on its own model: sonnet-4-5 5 × 3 +
    // 700 × 3.75 + 5,010 × 0.3 + 20 × 15 = 4,443; haiku-4-5 3 × 1 +
    // 5,200 × 1.25 + 9 × 5 = 6,548 (per million).
    assert_eq!(
        common::dec(&b["recorded_cost"]),
        "0.010991".parse::<rust_decimal::Decimal>().unwrap()
    );
}

#[test]
fn each_inline_subagent_conversation_is_a_thread_of_its_own() {
    // CLI 1.0.x logs Task subagents inline (isSidechain); each conversation
    // starts with a root user message handing over the task. Two of them
    // are two threads, never one context growing across both.
    let side = |parent: Option<&str>, t: &str, body: serde_json::Value| {
        line(
            json!({"type": "user", "sessionId": SID, "isSidechain": true, "parentUuid": parent,
            "timestamp": t, "message": {"role": "user", "content": body}}),
        )
    };
    let reply = |id: &str, t: &str| {
        line(
            json!({"type": "assistant", "sessionId": SID, "isSidechain": true, "parentUuid": "p",
            "timestamp": t, "requestId": format!("r{id}"),
            "message": {"model": "claude-sonnet-4-5", "id": id, "role": "assistant",
                "content": [{"type": "text", "text": "x"}],
                "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0,
                          "cache_read_input_tokens": 0, "output_tokens": 5}}}),
        )
    };
    let text = [
        side(None, "2026-11-20T10:00:00.000Z", json!("task one")),
        reply("s1", "2026-11-20T10:00:01.000Z"),
        side(Some("s1"), "2026-11-20T10:00:02.000Z", json!("more")),
        reply("s2", "2026-11-20T10:00:03.000Z"),
        side(None, "2026-11-20T10:01:00.000Z", json!("task two")),
        reply("s3", "2026-11-20T10:01:01.000Z"),
        side(Some("s3"), "2026-11-20T10:01:02.000Z", json!("more")),
        reply("s4", "2026-11-20T10:01:03.000Z"),
    ]
    .concat();
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs/proj");
    fs::create_dir_all(&logs).unwrap();
    fs::write(logs.join(format!("{SID}.jsonl")), text).unwrap();
    let doc = import_logs(dir.path(), &[]);
    assert_eq!(doc["sessions"][0]["threads"], 2);
    let mut written: Vec<&str> = doc["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    written.sort();
    assert_eq!(
        written,
        vec![
            format!("{SID}/agent-sidechain-2.toml"),
            format!("{SID}/agent-sidechain.toml")
        ]
    );
}

#[test]
fn simulate_shows_the_central_estimate_beside_the_band() {
    let dir = imported();
    let path = dir.path().join(format!("out/{SID}/main.toml"));
    let toml = fs::read_to_string(&path).unwrap();
    fs::write(
        &path,
        toml.replacen(
            "bytes_per_token = 4\n",
            "bytes_per_token = 4\nestimate_bytes_per_token = 2\n",
            1,
        ),
    )
    .unwrap();
    let doc = simulate_json(dir.path(), &format!("out/{SID}/main.toml"));
    let e = &doc["estimate"];
    assert_eq!(e["variants"][0]["name"], "as recorded");
    // At 2 bytes a token: request 2 is 5,010 + 50 + 484/2 = 5,302; request 3
    // (compacted, on haiku) 5,010 + 800/2 = 5,410; priced as in the test above.
    let att = attachment().to_string().len() as u64;
    let p2 = 5010 + 50 + (400 + att) / 2;
    let sonnet = 5010 * 375 + (p2 - 5010) * 375 + 5010 * 30 + (50 + 20) * 1500;
    let haiku = 5410 * 125 + 9 * 500;
    let expected =
        rust_decimal::Decimal::from(sonnet + haiku) / rust_decimal::Decimal::from(100_000_000u64);
    assert_eq!(
        common::dec(&e["variants"][0]["total"]),
        expected.normalize()
    );
}

/// Sonnet 4.5: six steps of a 4,000-byte result each grow the prompt by
/// 1,010 (10 of output sent back and 1,000 for the bytes: 4 bytes a token),
/// then request 7 logs a 20,000-byte thinking block under a snapshot count
/// of 8 output tokens, and request 8, after a 400-byte result, is 17,102
/// tokens larger: 20,006 bytes of content (the thinking, `Read` and `{}`)
/// and 400 make 20,406 bytes, 5,102 tokens at 4 bytes a token, and 12,000
/// the log cannot account for (the thinking it logged is a summary).
fn snapshot_log() -> String {
    let ts = |s: u32| format!("2026-11-21T10:00:{s:02}.000Z");
    let usage = |read: u64, write: u64, out: u64| {
        json!({"input_tokens": 0, "cache_creation_input_tokens": write,
               "cache_read_input_tokens": read, "output_tokens": out})
    };
    let call =
        |i: u32| json!({"type": "tool_use", "id": format!("t{i}"), "name": "Read", "input": {}});
    let result = |i: u32, bytes: usize| json!([{"type": "tool_result", "tool_use_id": format!("t{i}"), "content": "x".repeat(bytes)}]);
    let mut out = vec![
        user(&ts(0), json!("go")),
        assistant(
            "s0",
            "claude-sonnet-4-5",
            &ts(1),
            json!([call(0)]),
            usage(0, 10_000, 10),
        ),
    ];
    let mut prompt = 10_000u64;
    for i in 1..=6u32 {
        out.push(user(&ts(2 * i), result(i - 1, 4000)));
        let content = if i == 6 {
            json!([{"type": "thinking", "thinking": "t".repeat(20_000)}, call(i)])
        } else {
            json!([call(i)])
        };
        let output = if i == 6 { 8 } else { 10 };
        out.push(assistant(
            &format!("s{i}"),
            "claude-sonnet-4-5",
            &ts(2 * i + 1),
            content,
            usage(prompt, 1010, output),
        ));
        prompt += 1010;
    }
    out.push(user(&ts(20), result(6, 400)));
    out.push(assistant(
        "s7",
        "claude-sonnet-4-5",
        &ts(21),
        json!([{"type": "text", "text": "done"}]),
        usage(prompt, 17_102, 5),
    ));
    out.concat()
}

#[test]
fn growth_the_log_cannot_measure_is_taken_from_the_recorded_prompt() {
    let dir = with_log(&snapshot_log());
    let doc = import_logs(dir.path(), &["--strict"]);
    let session = &doc["sessions"][0];
    assert_eq!(session["unmeasured"], json!({"steps": 1, "tokens": 12_000}));
    let csv = fs::read_to_string(dir.path().join(format!("out/{SID}/main.csv"))).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let h = reader.headers().unwrap().clone();
    let col = h.iter().position(|c| c == "unmeasured_tokens").unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let filled: Vec<&str> = rows
        .iter()
        .map(|r| &r[col])
        .filter(|v| !v.is_empty())
        .collect();
    assert_eq!(filled, vec!["12000"]);
    // The summarized step is no observation: the fit is the six 4-byte
    // steps, so the band has no width, and the replay meets request 8's
    // prompt: 10,000 + 6 × 10 sent back + (6 × 4,000 + 20,406) ÷ 4 +
    // 12,000 = 33,161.5, against 33,162 recorded.
    let last = last_backtest_request(dir.path());
    assert_eq!(last["recorded_prompt"], 33_162);
    assert_eq!(
        common::dec(&last["simulated_prompt"]["lower"]),
        "33161.5".parse().unwrap()
    );
    assert_eq!(
        common::dec(&last["simulated_prompt"]["upper"]),
        "33161.5".parse().unwrap()
    );
    // And the terminal says so.
    let out = tokencast()
        .current_dir(dir.path())
        .args([
            "import",
            "claude-code",
            "logs",
            "--out",
            "again",
            "--no-report",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap().replace('\n', " ");
    assert!(
        text.contains("In 1 session(s), 1 step(s) grew by 12,000 tokens more than the log lets anyone measure"),
        "{text}"
    );
}

/// Six steps of a 4,000-byte `Read` result, each growing the prompt by
/// 1,010 tokens (10 of output sent back and 1,000 for the bytes: 4 bytes a
/// token), where the third result's line is cut in half (a redacted or
/// truncated log): the log lost what entered before request 3.
fn lost_line_log() -> String {
    let ts = |s: u32| format!("2026-11-22T10:00:{s:02}.000Z");
    let usage = |read: u64, write: u64| {
        json!({"input_tokens": 0, "cache_creation_input_tokens": write,
               "cache_read_input_tokens": read, "output_tokens": 10})
    };
    let call =
        |i: u32| json!([{"type": "tool_use", "id": format!("t{i}"), "name": "Read", "input": {}}]);
    let mut out = vec![
        user(&ts(0), json!("go")),
        assistant("l0", "claude-sonnet-4-5", &ts(1), call(0), usage(0, 10_000)),
    ];
    let mut prompt = 10_000u64;
    for i in 1..=6u32 {
        let result = user(
            &ts(2 * i),
            json!([{"type": "tool_result", "tool_use_id": format!("t{}", i - 1), "content": "x".repeat(4000)}]),
        );
        out.push(if i == 3 {
            format!("{}\n", &result[..result.len() / 2])
        } else {
            result
        });
        out.push(assistant(
            &format!("l{i}"),
            "claude-sonnet-4-5",
            &ts(2 * i + 1),
            call(i),
            usage(prompt, 1010),
        ));
        prompt += 1010;
    }
    out.concat()
}

#[test]
fn a_step_after_a_lost_line_is_not_fitted_and_its_growth_is_unmeasured() {
    let dir = with_log(&lost_line_log());
    let doc = import_logs(dir.path(), &[]);
    // Line 7 is the cut one (the user's line and a request, then a result
    // and a request per step: the third result is line 2 + 2 × 2 + 1).
    assert_eq!(doc["problems"][0]["line"], 7);
    assert_eq!(doc["problems"][0]["what"], "truncated JSON");
    // Request 3 grew 1,010 tokens while nothing measurable entered: 10
    // were the output sent back, and the lost result's 1,000 are
    // unmeasured (below the 1,000-token floor that growth elsewhere must
    // pass, since there the fit's spread could explain it).
    let session = &doc["sessions"][0];
    assert_eq!(session["unmeasured"], json!({"steps": 1, "tokens": 1000}));
    // The other five steps measure 4 bytes a token each: a band of no
    // width. Without the lost line the step would have been a near-empty
    // one, its 1,000 tokens taken for framing.
    let toml = fs::read_to_string(dir.path().join(format!("out/{SID}/main.toml"))).unwrap();
    assert!(toml.contains("on 5 measured steps"), "{toml}");
    assert!(toml.contains("bytes_per_token = 4\n"), "{toml}");
    assert!(toml.contains("step_overhead_tokens = 0\n"), "{toml}");
    // The replay meets the last prompt: 10,000 + 6 × 10 sent back + 5 ×
    // 4,000 ÷ 4 + 1,000 = 16,060, as recorded (10,000 + 6 × 1,010).
    let last = last_backtest_request(dir.path());
    assert_eq!(last["recorded_prompt"], 16_060);
    assert_eq!(
        common::dec(&last["simulated_prompt"]["lower"]),
        "16060".parse().unwrap()
    );
}

/// The record CLI 2.1.x writes when it sends a large tool result as a
/// preview of it (the tool-result budget): the exact text the model saw.
fn replacement_text() -> String {
    // Multi-byte characters and line breaks: measured as the UTF-8 the
    // model was sent, not as the line's JSON escapes.
    format!(
        "<persisted-output>\nOutput too large. Preview:\n{}{}\n</persisted-output>",
        "é".repeat(10),
        "z".repeat(100)
    )
}

fn replaced_log(record_in_main: bool) -> (String, String) {
    let usage = json!({"input_tokens": 10, "cache_creation_input_tokens": 5000,
                       "cache_read_input_tokens": 0, "output_tokens": 40});
    let calls = json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}},
                       {"type": "tool_use", "id": "t2", "name": "Read", "input": {}}]);
    let record = line(
        json!({"type": "content-replacement", "sessionId": SID, "agentId": "a1",
        "replacements": [{"kind": "tool-result", "toolUseId": "t1", "replacement": replacement_text()}]}),
    );
    // Lines of a current session that carry nothing to count.
    let quiet: String = [
        json!({"type": "worktree-state", "sessionId": SID, "worktreeSession": null}),
        json!({"type": "pr-link", "sessionId": SID, "prNumber": 7, "prUrl": "u", "prRepository": "r", "timestamp": "t"}),
        json!({"type": "tag", "sessionId": SID, "tag": "x"}),
        json!({"type": "agent-name", "sessionId": SID, "agentName": "n"}),
        json!({"type": "agent-color", "sessionId": SID, "agentColor": "blue"}),
        json!({"type": "agent-setting", "sessionId": SID, "agentSetting": "s"}),
        json!({"type": "attribution-snapshot", "messageId": "m", "surface": "cli", "fileStates": {}}),
        json!({"type": "speculation-accept", "timestamp": "t", "timeSavedMs": 5}),
        json!({"type": "isolation-latch", "sessionId": SID}),
        json!({"type": "fork-context-ref", "sessionId": SID}),
        json!({"type": "frame-link", "sessionId": SID}),
        json!({"type": "relocated", "sessionId": SID, "relocatedCwd": "/w"}),
        json!({"type": "atis-latch", "sessionId": SID, "atis": "a"}),
        json!({"type": "marble-origami-snapshot", "sessionId": SID, "armed": true}),
    ]
    .into_iter()
    .map(line)
    .collect();
    let agent = [
        user("2026-11-23T10:00:00.000Z", json!("look")),
        assistant(
            "a1",
            "claude-haiku-4-5",
            "2026-11-23T10:00:01.000Z",
            calls,
            usage.clone(),
        ),
        user(
            "2026-11-23T10:00:02.000Z",
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "x".repeat(60_000)},
                   {"type": "tool_result", "tool_use_id": "t2", "content": "y".repeat(300)}]),
        ),
        if record_in_main {
            String::new()
        } else {
            record.clone()
        },
        quiet,
        assistant(
            "a2",
            "claude-haiku-4-5",
            "2026-11-23T10:00:03.000Z",
            json!([{"type": "text", "text": "done"}]),
            usage,
        ),
    ]
    .concat();
    let main = if record_in_main {
        record
    } else {
        String::new()
    };
    (main, agent)
}

/// The columns `names` of every row of an imported thread's CSV.
fn columns_of(csv_path: &std::path::Path, names: &[&str]) -> Vec<Vec<String>> {
    let csv = fs::read_to_string(csv_path).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let h = reader.headers().unwrap().clone();
    let at: Vec<usize> = names
        .iter()
        .map(|n| h.iter().position(|c| c == *n).unwrap())
        .collect();
    reader
        .records()
        .map(Result::unwrap)
        .map(|r| at.iter().map(|i| r[*i].to_string()).collect())
        .collect()
}

/// Each row of an imported thread's CSV: request, tool, raw bytes.
fn rows_of(csv_path: &std::path::Path) -> Vec<Vec<String>> {
    columns_of(csv_path, &["request", "capability", "raw_bytes"])
}

/// Rows as [`columns_of`] gives them.
fn strs<const N: usize>(rows: &[[&str; N]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.iter().map(|v| v.to_string()).collect())
        .collect()
}

#[test]
fn a_tool_result_sent_as_a_preview_is_measured_as_the_preview() {
    let (_, agent) = replaced_log(false);
    let dir = with_log(&agent);
    // --strict: the line types of a current session are known.
    import_strict(dir.path());
    // The Bash result's 60,000 bytes were never sent: its preview was.
    let preview = replacement_text().len();
    assert_eq!(preview, 18 + 1 + 26 + 1 + 10 * 2 + 100 + 1 + 19);
    assert_eq!(
        rows_of(&dir.path().join(format!("out/{SID}/main.csv"))),
        strs(&[["2", "Bash", &preview.to_string()], ["2", "Read", "300"]])
    );
}

#[test]
fn a_replacement_recorded_in_the_session_file_measures_its_subagent_s_result() {
    let (main, agent) = replaced_log(true);
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs/proj");
    fs::create_dir_all(logs.join(format!("{SID}/subagents"))).unwrap();
    let opening = user("2026-11-23T09:59:00.000Z", json!("start"));
    let request = assistant(
        "m1",
        "claude-sonnet-4-5",
        "2026-11-23T09:59:01.000Z",
        json!([{"type": "text", "text": "ok"}]),
        json!({"input_tokens": 10, "cache_creation_input_tokens": 3000,
               "cache_read_input_tokens": 0, "output_tokens": 5}),
    );
    fs::write(
        logs.join(format!("{SID}.jsonl")),
        [opening, request, main].concat(),
    )
    .unwrap();
    fs::write(logs.join(format!("{SID}/subagents/agent-a1.jsonl")), agent).unwrap();
    import_strict(dir.path());
    let csvs: Vec<_> = fs::read_dir(dir.path().join(format!("out/{SID}")))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv") && !p.ends_with("main.csv"))
        .collect();
    assert_eq!(csvs.len(), 1, "{csvs:?}");
    let preview = replacement_text().len().to_string();
    assert_eq!(
        rows_of(&csvs[0]),
        strs(&[["2", "Bash", &preview], ["2", "Read", "300"]])
    );
}

#[test]
fn a_context_collapse_is_listed_as_what_the_replay_does_not_model() {
    let (_, agent) = replaced_log(false);
    let collapse = line(json!({"type": "marble-origami-commit", "sessionId": SID,
        "collapseId": "c", "summaryUuid": "s", "summaryContent": "secret words", "summary": "x",
        "firstArchivedUuid": "u0", "lastArchivedUuid": "a0"}));
    let dir = with_log(&[agent, collapse].concat());
    let doc = import_logs(dir.path(), &[]);
    let problems = doc["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    // The line after the log's 19 lines; its text is not repeated.
    assert_eq!(problems[0]["line"], 20);
    let what = problems[0]["what"].as_str().unwrap();
    assert!(what.starts_with("a context collapse"), "{what}");
    assert!(!doc.to_string().contains("secret words"));
}

#[test]
fn a_replacement_line_that_does_not_read_is_a_problem_and_the_result_keeps_its_size() {
    let (_, agent) = replaced_log(false);
    let bad = format!(
        "{{\"type\":\"content-replacement\",\"sessionId\":\"{SID}\",\"replacements\":[1]}}\n"
    );
    // After the results and before the request that carries them; a
    // request line with an unrelated `replacements` key still reads.
    let mut lines: Vec<String> = agent.lines().map(|l| format!("{l}\n")).collect();
    lines.retain(|l| !l.contains("content-replacement"));
    lines.insert(3, bad.clone());
    let last = lines.pop().unwrap();
    lines.push(last.replacen('{', "{\"replacements\": {\"any\": 1}, ", 1));
    let dir = with_log(&lines.concat());
    let doc = import_logs(dir.path(), &[]);
    let problems = doc["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0]["line"], 4);
    // The column of the record that is not one (1-based).
    let column = bad.find("[1]").unwrap() + 2;
    let what = problems[0]["what"].as_str().unwrap();
    assert!(what.contains(&format!("at column {column})")), "{what}");
    assert_eq!(
        rows_of(&dir.path().join(format!("out/{SID}/main.csv"))),
        strs(&[["2", "Bash", "60000"], ["2", "Read", "300"]])
    );
}

/// A session whose client cleared an old tool result before its fourth
/// request (a microcompaction), prompts as the provider would count them
/// at 4 bytes a token.
fn microcompacted_log() -> String {
    let ts = |s: u32| format!("2026-11-24T10:00:{s:02}.000Z");
    let usage = |read: u64, write: u64| {
        json!({"input_tokens": 0, "cache_creation_input_tokens": write,
               "cache_read_input_tokens": read, "output_tokens": 40})
    };
    let call = |id: &str| json!([{"type": "tool_use", "id": id, "name": "Read", "input": {}}]);
    let result = |id: &str, bytes: usize| json!([{"type": "tool_result", "tool_use_id": id, "content": "x".repeat(bytes)}]);
    [
        user(&ts(0), json!("go")),
        // 5,000 tokens of prefix.
        assistant(
            "c1",
            "claude-sonnet-4-5",
            &ts(1),
            call("t1"),
            usage(0, 5000),
        ),
        user(&ts(2), result("t1", 4000)),
        // + 40 output sent back + 4,000 bytes ÷ 4 = 6,040.
        assistant(
            "c2",
            "claude-sonnet-4-5",
            &ts(3),
            call("t2"),
            usage(5000, 1040),
        ),
        user(&ts(4), result("t2", 400)),
        // + 40 + 100 = 6,180.
        assistant(
            "c3",
            "claude-sonnet-4-5",
            &ts(5),
            json!([{"type": "text", "text": "ok"}]),
            usage(6040, 140),
        ),
        line(
            json!({"type": "system", "subtype": "microcompact_boundary", "sessionId": SID,
            "timestamp": ts(6), "content": "Context microcompacted",
            "microcompactMetadata": {"trigger": "auto", "preTokens": 6180, "tokensSaved": 1000,
                "compactedToolIds": ["t1", "t-unknown"], "clearedAttachmentUUIDs": []}}),
        ),
        user(&ts(7), json!("next")),
        // + 40 + "next" (4 bytes, 1 token) − the cleared 1,000 = 5,221.
        assistant(
            "c4",
            "claude-sonnet-4-5",
            &ts(8),
            json!([{"type": "text", "text": "done"}]),
            usage(5221, 0),
        ),
    ]
    .concat()
}

#[test]
fn a_result_the_client_cleared_leaves_the_replayed_prompts() {
    let dir = with_log(&microcompacted_log());
    import_strict(dir.path());
    let rows = columns_of(
        &dir.path().join(format!("out/{SID}/main.csv")),
        &["request", "raw_bytes", "cleared_before"],
    );
    // The first Read result (request 2) left before request 4; the
    // unknown id clears nothing.
    assert_eq!(
        rows,
        strs(&[["2", "4000", "4"], ["3", "400", ""], ["4", "4", ""]])
    );
    // The replay meets request 4's prompt: 5,000 + 3 × 40 sent back +
    // (400 + 4) ÷ 4 = 5,221, as recorded (without the clear: 6,221).
    let last = last_backtest_request(dir.path());
    assert_eq!(last["recorded_prompt"], 5221);
    assert_eq!(
        common::dec(&last["simulated_prompt"]["lower"]),
        "5221".parse().unwrap()
    );
}

#[test]
fn a_microcompaction_whose_list_does_not_read_is_a_problem_and_clears_nothing() {
    let log = microcompacted_log().replace(
        r#""compactedToolIds":["t1","t-unknown"]"#,
        r#""compactedToolIds":"t1""#,
    );
    assert!(log.contains(r#""compactedToolIds":"t1""#));
    let dir = with_log(&log);
    let doc = import_logs(dir.path(), &[]);
    let problems = doc["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    // The boundary is the log's seventh line; the column is that of the
    // string where a list belongs (serde_json reports its last character).
    assert_eq!(problems[0]["line"], 7);
    let line = log.lines().nth(6).unwrap();
    let column = line.find(r#""t1""#).unwrap() + r#""t1""#.len();
    let what = problems[0]["what"].as_str().unwrap();
    assert!(what.contains(&format!("at column {column})")), "{what}");
    let last = last_backtest_request(dir.path());
    assert_eq!(
        common::dec(&last["simulated_prompt"]["lower"]),
        "6221".parse().unwrap()
    );
}

/// A session whose second request ran with `speed` in the US region
/// (`inference_geo`); the first at the standard speed, anywhere. Fast mode
/// is cached apart at the provider, so the second request wrote its whole
/// prompt again (5 + 5,710: the first's 5,010, its 50 of output, and the
/// 400-byte result as billed).
fn fast_log(speed: &str) -> String {
    [
        user("2026-11-20T10:00:00.000Z", json!("hello")),
        assistant(
            "m1",
            "claude-opus-4-8",
            "2026-11-20T10:00:01.000Z",
            json!([{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]),
            json!({"input_tokens": 10, "cache_creation_input_tokens": 5000,
                   "cache_read_input_tokens": 0, "output_tokens": 50,
                   "speed": "standard", "inference_geo": "global"}),
        ),
        user(
            "2026-11-20T10:00:02.000Z",
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "x".repeat(400)}]),
        ),
        assistant(
            "m2",
            "claude-opus-4-8",
            "2026-11-20T10:00:03.000Z",
            json!([{"type": "text", "text": "done"}]),
            json!({"input_tokens": 5, "cache_creation_input_tokens": 5710,
                   "cache_read_input_tokens": 0, "output_tokens": 20,
                   "speed": speed, "inference_geo": "us"}),
        ),
    ]
    .concat()
}

#[test]
fn a_fast_mode_request_pays_its_multipliers_and_is_cached_apart() {
    let dir = with_log(&fast_log("fast"));
    let doc = common::import_logs(dir.path(), &["--strict"]);
    // claude-opus-4-8 in the bundled book (LiteLLM 1.110.2): $5 input, $25
    // output, $6.25 a 5-minute write; fast mode × 2, the US region × 1.1.
    // Request 1: 10 × 5 + 5,000 × 6.25 + 50 × 25 = 32,550 (per million);
    // request 2: (5 × 5 + 5,710 × 6.25 + 20 × 25) × 2.2 = 79,667.5.
    let s = &doc["sessions"][0];
    assert_eq!(s["unpriced_requests"], 0, "{doc}");
    assert_eq!(
        common::dec(&s["recorded_cost"]),
        "0.1122175".parse::<rust_decimal::Decimal>().unwrap()
    );
    let model = &columns_of(&dir.path().join(format!("out/{SID}/main.csv")), &["model"])[0];
    assert_eq!(
        model.last().unwrap(),
        "claude-opus-4-8 (service fast, region us)"
    );
    // The replay writes request 2's whole prompt again at the fast, US
    // prices: the lower bound's 5,060 carried over and 400 ÷ 4 = 100 for
    // the result, at 6.25 × 2.2, and 20 of output at 25 × 2.2: 72,050.
    let b = last_backtest_request(dir.path());
    assert_eq!(b["recorded_cost"], "0.0796675");
    assert_eq!(
        common::dec(&b["simulated_cost"]["lower"]),
        "0.07205".parse::<rust_decimal::Decimal>().unwrap()
    );
}

#[test]
fn a_speed_the_price_book_does_not_price_leaves_the_request_unpriced_and_says_why() {
    let dir = with_log(&fast_log("turbo"));
    let doc = common::import_logs(dir.path(), &[]);
    assert_eq!(doc["sessions"][0]["unpriced_requests"], 1, "{doc}");
    let u = &doc["unpriced"][0];
    assert_eq!(u["model"], "claude-opus-4-8 (service turbo, region us)");
    assert!(
        u["reason"]
            .as_str()
            .unwrap()
            .contains("service tier `turbo`"),
        "{u}"
    );
    // A value that is not a name is never copied out of the log.
    let dir = with_log(&fast_log("fast <b>secret</b>"));
    let doc = common::import_logs(dir.path(), &[]);
    let u = &doc["unpriced"][0];
    assert_eq!(
        u["model"],
        "claude-opus-4-8 (service unrecognised, region us)"
    );
    assert!(!doc.to_string().contains("secret"));
}

#[test]
fn a_snapshot_id_the_book_does_not_list_is_priced_as_its_model() {
    // The fast-mode log at the standard speed, on a dated snapshot of
    // claude-opus-4-8 that the bundled book does not list: priced at
    // claude-opus-4-8's prices, not left unpriced. Request 1 as above,
    // 32,550 per million; request 2 in the US region: (5 × 5 + 5,710 ×
    // 6.25 + 20 × 25) × 1.1 = 39,833.75.
    let log = fast_log("standard").replace("claude-opus-4-8", "claude-opus-4-8-20261001");
    let dir = with_log(&log);
    let doc = common::import_logs(dir.path(), &[]);
    assert_eq!(doc["unpriced"].as_array().unwrap().len(), 0, "{doc}");
    assert_eq!(
        common::dec(&doc["sessions"][0]["recorded_cost"]),
        "0.07238375".parse::<rust_decimal::Decimal>().unwrap()
    );
    // The scenario's price table says whose entry it is.
    let sim = simulate_json(dir.path(), &format!("out/{SID}/main.toml"));
    assert_eq!(sim["prices"]["model"], "claude-opus-4-8-20261001");
    assert!(
        sim["prices"]["source"]
            .as_str()
            .unwrap()
            .contains("the entry of `claude-opus-4-8`"),
        "{}",
        sim["prices"]
    );
}

/// Two requests on `model`: the first writes its prompt to the cache, the
/// second reads it and writes what was added.
fn two_requests_on(model: &str) -> String {
    [
        user("2026-11-20T10:00:00.000Z", json!("hello")),
        assistant(
            "m1",
            model,
            "2026-11-20T10:00:01.000Z",
            json!([{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]),
            json!({"input_tokens": 10, "cache_creation_input_tokens": 5000,
                   "cache_read_input_tokens": 0, "output_tokens": 50}),
        ),
        user(
            "2026-11-20T10:00:02.000Z",
            json!([{"type": "tool_result", "tool_use_id": "t1", "content": "x".repeat(400)}]),
        ),
        assistant(
            "m2",
            model,
            "2026-11-20T10:00:03.000Z",
            json!([{"type": "text", "text": "done"}]),
            json!({"input_tokens": 5, "cache_creation_input_tokens": 700,
                   "cache_read_input_tokens": 5010, "output_tokens": 20}),
        ),
    ]
    .concat()
}

#[test]
fn claude_on_bedrock_or_vertex_is_priced_at_the_clouds_price() {
    // Per million tokens, request 1: 10 input, 5,000 written, 50 output;
    // request 2: 5 input, 700 written, 5,010 read, 20 output.
    // Bedrock's US profile of Sonnet 4.5 (the shipped bedrock.toml: $3.30,
    // $16.50, $4.125 a 5-minute write, $0.33 a read): 33 + 20,625 + 825 and
    // 16.5 + 2,887.5 + 1,653.3 + 330, 26,370.3 in all. On Vertex AI, at
    // Anthropic's list price ($3, $15, $3.75, $0.30): 30 + 18,750 + 750 and
    // 15 + 2,625 + 1,503 + 300, 23,973. A Bedrock id the book lists under
    // another version suffix (`…-opus-4-6-v1` for `…-v1:0`) takes that
    // entry: $5.50, $27.50, $6.875, $0.55, 55 + 34,375 + 1,375 and 27.5 +
    // 4,812.5 + 2,755.5 + 550, 43,950.5.
    for (model, want) in [
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "0.0263703"),
        ("claude-sonnet-4-5@20250929", "0.023973"),
        ("eu.anthropic.claude-opus-4-6-v1:0", "0.0439505"),
    ] {
        let dir = with_log(&two_requests_on(model));
        let doc = common::import_logs(dir.path(), &["--strict"]);
        let s = &doc["sessions"][0];
        assert_eq!(s["unpriced_requests"], 0, "{model}: {doc}");
        assert_eq!(
            common::dec(&s["recorded_cost"]),
            want.parse::<rust_decimal::Decimal>().unwrap(),
            "{model}"
        );
        // Replayed on the same prices: a what-if exists.
        assert!(
            s["what_if"]["as_recorded"]["estimate"].is_string(),
            "{model}: {s}"
        );
    }
}
