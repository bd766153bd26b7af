//! `tokencast import claude-code` on `tests/fixtures/claude-code/`: small logs
//! written for these tests in every layout Claude Code has used (inline
//! sidechains, sibling and nested subagent files, a compaction call, a
//! resumed session), with lines the importer must skip or list. Every
//! expected figure is computed by hand in its comment; the fixtures' prompt
//! and tool-result text contains "SECRET", which no output may contain.

mod common;
use common::*;
use rust_decimal::Decimal;
use std::fs;
use std::path::{Path, PathBuf};

const S1: &str = "11111111-aaaa-4aaa-8aaa-111111111111";
const S2: &str = "22222222-bbbb-4bbb-8bbb-222222222222";
const S3: &str = "33333333-cccc-4ccc-8ccc-333333333333";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code")
}

fn import_json(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let out = tokencast()
        .current_dir(dir)
        .args(["import", "claude-code"])
        .arg(fixtures())
        .args(["--format", "json", "--no-report"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn session<'a>(doc: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session"] == id)
        .unwrap_or_else(|| panic!("no session {id}"))
}

fn usage(s: &serde_json::Value) -> [u64; 5] {
    let u = &s["usage"];
    [
        "input",
        "cache_write_5m",
        "cache_write_1h",
        "cache_read",
        "output",
    ]
    .map(|k| u[k].as_u64().unwrap())
}

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

#[test]
fn each_response_counted_once_with_its_final_output_and_every_write_tier_apart() {
    let dir = tempfile::tempdir().unwrap();
    let doc = import_json(dir.path(), &[]);
    let s = session(&doc, S1);
    // msg_1 (two lines; output 5 then 120), msg_2, msg_3 (usage only in
    // iterations: 2+1 input, 50 5m writes, 3,300+3,350 reads, 10+20 output),
    // the subagent's msg_sub1 and msg_sub2, the compaction call msg_c; the
    // zero-usage <synthetic> line is not a request.
    assert_eq!(s["requests"], 6);
    // input 10+5+3+3+3+3; 5m 300+50+800+120+500; 1h 1,000; reads
    // 2,000+3,000+6,650+0+800+6,000; output 120+40+30+30+15+200.
    assert_eq!(usage(s), [27, 1770, 1000, 18450, 435]);
    assert_eq!(s["threads"], 3, "main, agent-abc1234, the compaction call");
    assert_eq!(s["compactions"], 1);
    // "hello wörld" is 12 UTF-8 bytes; "abc" 3 with an image and a document
    // counted apart; the subagent's Grep result 400.
    assert_eq!(s["tool_results"], 3);
    assert_eq!(s["result_bytes"], 415);
    assert_eq!(s["images"], 1);
    assert_eq!(s["documents"], 1);
    let k = &doc["skipped"];
    assert_eq!(k["repeated_lines"], 1, "msg_1's second line");
    assert_eq!(k["synthetic"], 1);
    // The resumed session logs msg_1 again without a requestId, and its result.
    assert_eq!(k["duplicate_messages"], 1);
    assert_eq!(k["duplicate_results"], 1);
}

#[test]
fn recorded_cost_prices_five_minute_and_one_hour_writes_apart() {
    let dir = tempfile::tempdir().unwrap();
    let doc = import_json(dir.path(), &[]);
    // claude-sonnet-4-5 (LiteLLM 1.110.2): input 3, output 15, 5m write 3.75,
    // 1h write 6, read 0.3; claude-haiku-4-5: 1, 5, 1.25, 2, 0.1 per million.
    // msg_1 10×3 + 1,000×6 + 2,000×0.3 + 120×15 = 8,430
    // msg_2 5×3 + 300×3.75 + 3,000×0.3 + 40×15 = 2,640
    // msg_3 3×3 + 50×3.75 + 6,650×0.3 + 30×15 = 2,641.5
    // msg_c 3×3 + 500×3.75 + 6,000×0.3 + 200×15 = 6,684
    // msg_sub1 (haiku) 3 + 800×1.25 + 30×5 = 1,153; msg_sub2 3 + 120×1.25 + 800×0.1 + 15×5 = 308
    assert_eq!(dec(&session(&doc, S1)["recorded_cost"]), d("0.0218565"));
    // Without a cache_creation object (CLI 1.0.x) writes are 5-minute writes:
    // 12 + 7,500 + 750 = 8,262; 12 + 5,625 + 375 = 6,012; 12 + 225 + 450 + 150 = 837;
    // 12 + 150 + 600 + 450 = 1,212; haiku 9 + 5 = 14.
    assert_eq!(dec(&session(&doc, S3)["recorded_cost"]), d("0.016337"));
}

#[test]
fn an_unknown_model_is_unpriced_with_its_tokens_never_zero_dollars() {
    let dir = tempfile::tempdir().unwrap();
    let doc = import_json(dir.path(), &[]);
    let u = &doc["unpriced"][0];
    assert_eq!(u["model"], "claude-unknown-9");
    assert_eq!(u["requests"], 2);
    assert_eq!(u["usage"]["input"], 9);
    assert_eq!(u["usage"]["cache_read"], 1100);
    assert_eq!(session(&doc, S2)["unpriced_requests"], 2);
    // In the JSON too: nothing priced is null, never "0"; the day that
    // holds only that session as well.
    assert!(session(&doc, S2)["recorded_cost"].is_null(), "{doc}");
    let day = doc["days"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["day"] == "2026-03-02")
        .unwrap();
    assert!(day["recorded_cost"].is_null(), "{day}");
    assert_eq!(dec(&session(&doc, S1)["recorded_cost"]), d("0.0218565"));
    let out = tokencast()
        .current_dir(dir.path())
        .args(["import", "claude-code"])
        .arg(fixtures())
        .args(["--no-report", "--session", S2])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("unpriced"), "{text}");
    assert!(text.contains("claude-unknown-9"), "{text}");
    assert!(!text.contains("$0.0000"), "{text}");
    // In the CSV the numeric column stays numeric: empty, not a word and
    // not 0; the count of unpriced requests says why.
    let out = tokencast()
        .current_dir(dir.path())
        .args(["import", "claude-code"])
        .arg(fixtures())
        .args(["--no-report", "--session", S2, "--format", "csv"])
        .output()
        .unwrap();
    let mut rows = csv::Reader::from_reader(out.stdout.as_slice());
    let header = rows.headers().unwrap().clone();
    let at = |k: &str| header.iter().position(|h| h == k).unwrap();
    let row = rows.records().next().unwrap().unwrap();
    assert_eq!(&row[at("recorded_usd")], "");
    assert_eq!(&row[at("recorded_status")], "unpriced");
    assert_eq!(&row[at("unpriced_requests")], "2");
}

#[test]
fn the_layouts_become_threads() {
    let dir = tempfile::tempdir().unwrap();
    let doc = import_json(dir.path(), &[]);
    // 1.0.x: the Task subagent inline (isSidechain) and a sibling agent file.
    let s3 = session(&doc, S3);
    assert_eq!(s3["threads"], 3);
    assert_eq!(s3["requests"], 5);
    let written: Vec<&str> = doc["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for f in [
        format!("{S1}/main.toml"),
        format!("{S1}/agent-abc1234.toml"),
        format!("{S3}/main.toml"),
        format!("{S3}/agent-sidechain.toml"),
    ] {
        assert!(written.contains(&f.as_str()), "{f} in {written:?}");
    }
}

#[test]
fn bad_lines_are_listed_with_file_and_line_and_the_rest_is_imported() {
    let dir = tempfile::tempdir().unwrap();
    let doc = import_json(dir.path(), &[]);
    let file = format!("proj-a/{S1}.jsonl");
    let problems: Vec<(String, u64, String)> = doc["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["file"].as_str().unwrap().to_string(),
                p["line"].as_u64().unwrap(),
                p["what"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        (12, "truncated JSON"),
        (13, "not a JSON log line"),
        (14, "unknown line type `brand-new-kind`"),
        (15, "not UTF-8"),
    ];
    assert_eq!(problems.len(), want.len(), "{problems:?}");
    for ((f, line, what), (wl, ww)) in problems.iter().zip(want) {
        assert_eq!(f, &file);
        assert_eq!(*line, wl);
        assert!(what.starts_with(ww), "{what}");
    }
    // --strict turns them into an error: exit 2, nothing written.
    let out = tokencast()
        .current_dir(dir.path())
        .args(["import", "claude-code"])
        .arg(fixtures())
        .args(["--strict", "--out", "strict"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{file}: line 12: truncated JSON")),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    assert!(!dir.path().join("strict").exists());
    assert!(!dir.path().join("reports").exists());
}

#[test]
fn an_over_long_line_and_an_unreadable_file_are_counted_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs/proj");
    fs::create_dir_all(&logs).unwrap();
    // One line of 65 MiB (over the 64 MiB limit) between two good lines.
    let good = fs::read_to_string(fixtures().join(format!("proj-a/{S2}.jsonl"))).unwrap();
    let mut text = good.lines().take(2).collect::<Vec<_>>().join("\n");
    text.push('\n');
    text.push_str(&format!(
        "{{\"type\":\"user\",\"pad\":\"{}\"}}\n",
        "p".repeat(65 << 20)
    ));
    text.push_str(good.lines().nth(2).unwrap());
    text.push('\n');
    fs::write(logs.join("big.jsonl"), text).unwrap();
    std::os::unix::fs::symlink(logs.join("gone.jsonl"), logs.join("dangling.jsonl")).unwrap();
    let out = tokencast()
        .current_dir(dir.path())
        .args([
            "import",
            "claude-code",
            "logs",
            "--format",
            "json",
            "--no-report",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let problems = doc["problems"].as_array().unwrap();
    assert!(problems.iter().any(|p| p["file"] == "proj/big.jsonl"
        && p["line"] == 3
        && p["what"].as_str().unwrap().contains("longer than 64 MiB")));
    assert!(problems.iter().any(|p| p["file"] == "proj/dangling.jsonl"
        && p["what"].as_str().unwrap().starts_with("cannot be read")));
    // msg_1 and msg_4 around the long line are both imported.
    assert_eq!(doc["sessions"][0]["requests"], 2);
    // Anthropic's cache is explicit: the replayed thread reads no fitted
    // cache hit share, and the field is left out.
    assert!(doc["sessions"][0]["what_if"].is_object(), "{doc}");
    assert!(doc["sessions"][0].get("cache_hit_share_threads").is_none());
}

#[test]
fn no_output_holds_text_from_the_logs() {
    let dir = tempfile::tempdir().unwrap();
    let mut all = Vec::new();
    for format in ["table", "json", "csv"] {
        let out = tokencast()
            .current_dir(dir.path())
            .args(["import", "claude-code"])
            .arg(fixtures())
            .args([
                "--format",
                format,
                "--out",
                "out",
                "--compare-model",
                "claude-haiku-4-5",
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        all.push(out.stdout);
        all.push(out.stderr);
    }
    // The page, every trace and scenario, and stdout in every format.
    assert_nowhere("SECRET", &all, dir.path());
}

#[test]
fn an_imported_scenario_simulates_with_its_backtest() {
    let dir = tempfile::tempdir().unwrap();
    import_json(dir.path(), &["--out", "out"]);
    let doc = json_of(tokencast().current_dir(dir.path()).args([
        "simulate",
        &format!("out/{S1}/main.toml"),
        "--format",
        "json",
        "--no-report",
    ]));
    let b = &doc["backtest"];
    // Two requests carried results in the main thread: msg_2 (toolu_1) and
    // msg_3 (toolu_2); their prompts as recorded: 5+300+3,000 and 3+50+6,650.
    let rows = b["requests"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["recorded_prompt"], 3305);
    assert_eq!(rows[1]["recorded_prompt"], 6703);
    // Recorded cost of those two requests: 2,640 + 2,641.5 per million.
    assert_eq!(dec(&b["recorded_cost"]), d("0.0052815"));
    // The engine's prompt of msg_2: the first prompt (10+1,000+2,000), msg_1's
    // own output sent back (120, its final count) and the 12-byte result ÷ 4:
    // 3,010 + 120 + 3 (lower). The upper bound does not uplift the measured
    // prefix or the output: 3,010 + 120 + 3 × 1.3.
    assert_eq!(
        dec(&rows[0]["simulated_prompt"]["lower"]),
        Decimal::from(3010 + 120 + 3)
    );
    assert_eq!(dec(&rows[0]["simulated_prompt"]["upper"]), d("3133.9"));
}

#[test]
fn default_paths_come_from_claude_config_dir_and_filters_apply() {
    let dir = tempfile::tempdir().unwrap();
    // Two config dirs, comma-separated, each with projects/.
    for (cfg, proj) in [("c1", "proj-a"), ("c2", "proj-b")] {
        copy_dir(
            &fixtures().join(proj),
            &dir.path().join(cfg).join("projects").join(proj),
        );
    }
    let run = |extra: &[&str]| {
        let out = tokencast()
            .current_dir(dir.path())
            .env(
                "CLAUDE_CONFIG_DIR",
                format!(
                    "{},{}",
                    dir.path().join("c1").display(),
                    dir.path().join("c2").display()
                ),
            )
            .args(["import", "claude-code", "--format", "json", "--no-report"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut ids: Vec<String> = doc["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["session"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(run(&[]), [S1, S2, S3]);
    assert_eq!(run(&["--since", "2026-03-02"]), [S2]);
    assert_eq!(run(&["--until", "2026-03-01"]), [S1, S3]);
    assert_eq!(run(&["--project", "proj-b"]), [S3]);
    assert_eq!(run(&["--session", S1]), [S1]);
    // The 8 characters the tables show are enough.
    assert_eq!(run(&["--session", &S2[..8]]), [S2]);
    // An id no session has is an error that says so, and nothing is written.
    let out = tokencast()
        .current_dir(dir.path())
        .env("CLAUDE_CONFIG_DIR", dir.path().join("c1"))
        .args([
            "import",
            "claude-code",
            "--out",
            "out",
            "--session",
            "99999999",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no session's id is or starts with `99999999`"),
        "{err}"
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
fn the_backtest_replays_a_recorded_compaction() {
    let doc = json_of(tokencast().args([
        "simulate",
        "tests/fixtures/backtest/compaction.toml",
        "--format",
        "json",
        "--no-report",
    ]));
    let c = &doc["backtest"]["compaction"];
    // Recorded prompts 2,100, 3,200, 4,300, 1,500, 2,600: 1,500 is below half
    // of 4,300, a compaction before request 5 with 4 results carried. Its
    // summary is 1,500 − P = 500 tokens.
    let points = c["points"].as_array().unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(points[0]["request"], 5);
    assert_eq!(points[0]["results"], 4);
    assert_eq!(points[0]["prompt_before"], 4300);
    assert_eq!(points[0]["summary_tokens"], 500);
    // Compacted replay, lower (P + 1,100 k, then P + S, then + 100 + 1,000):
    // 2,100, 3,200, 4,300, 1,500, 2,600 = 13,700, the recorded sum. Upper
    // (1.5 (P + T) + k o): 3,100, 4,700, 6,300, 1.5 × 1,000 + 500 = 2,000,
    // 1.5 × 2,000 + 100 + 500 = 3,600 = 19,700.
    assert_eq!(c["recorded_prompt"], 13700);
    assert_eq!(dec(&c["compacted_prompt"]["lower"]), d("13700"));
    assert_eq!(dec(&c["compacted_prompt"]["upper"]), d("19700"));
    assert_eq!(dec(&c["difference"]["lower"]), d("0"));
    assert_eq!(dec(&c["difference"]["upper"]), d("0.4380")); // 6,000 ÷ 13,700
                                                             // The plain replay keeps growing: 5,400 and 6,500 for the last two
                                                             // (21,500 in all; upper 7,900 and 9,500, 31,500 in all).
    assert_eq!(dec(&c["plain_prompt"]["lower"]), d("21500"));
    assert_eq!(dec(&c["plain_prompt"]["upper"]), d("31500"));
    assert_eq!(dec(&c["in_band"]), d("1"));
    // From the compaction on: recorded 4,100; compacted 4,100–5,600; plain
    // 11,900 (+190.24 %).
    let after = &c["after"];
    assert_eq!(after["requests"], 2);
    assert_eq!(after["recorded"], 4100);
    assert_eq!(dec(&after["difference"]["lower"]), d("0"));
    assert_eq!(dec(&after["difference"]["upper"]), d("0.3659"));
    assert_eq!(dec(&after["plain_difference"]["lower"]), d("1.9024"));
    // The page and the terminal say so.
    let out = tokencast()
        .args([
            "simulate",
            "tests/fixtures/backtest/compaction.toml",
            "--no-report",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("1 recorded compaction(s)"), "{text}");
    assert!(text.contains("compaction before request 5"), "{text}");
    assert!(
        text.contains("compaction (the prompt fell below half)"),
        "the cache break is named: {text}"
    );
    // Without a drop there is no check.
    let doc = json_of(tokencast().args([
        "simulate",
        "tests/fixtures/backtest/backtest.toml",
        "--format",
        "json",
        "--no-report",
    ]));
    assert!(doc["backtest"].get("compaction").is_none());
}

#[test]
fn the_backtest_fits_bytes_per_token_and_finds_cache_breaks() {
    let doc = json_of(tokencast().args([
        "simulate",
        "tests/fixtures/backtest/backtest.toml",
        "--format",
        "json",
        "--no-report",
    ]));
    let b = &doc["backtest"];
    // Engine prompts (lower, upper) with P = 1,000, o = 100, b = 4, u = 1.5:
    // 2,100–3,100, 3,200–4,700, 3,800–5,550, 4,900–7,150; recorded 2,100,
    // 3,200, 3,700, 4,800: two of four inside the band.
    let rows = b["requests"].as_array().unwrap();
    let band: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["simulated_prompt"]["lower"].as_str().unwrap().to_string(),
                r["simulated_prompt"]["upper"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        band,
        [
            ("2100", "3100"),
            ("3200", "4700"),
            ("3800", "5550"),
            ("4900", "7150")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    assert_eq!(dec(&b["in_band"]), d("0.5"));
    // Growth net of the previous output: 3,200 − 2,100 − 100 = 1,000 tokens for
    // 4,000 bytes; 3,700 − 3,200 − 100 = 400 for 2,000; 4,800 − 3,700 − 100 =
    // 1,000 for 4,000: 10,000 ÷ 2,400 = 4.1667; per step 4, 5, 4 (R-8: p10 4,
    // median 4, p90 5).
    let fit = &b["fit"];
    assert_eq!(dec(&fit["bytes_per_token"]), d("4.1667"));
    assert_eq!(fit["p10"], 4.0);
    assert_eq!(fit["p50"], 4.0);
    assert_eq!(fit["p90"], 5.0);
    assert_eq!(fit["steps"], 3);
    // Recorded cost at input 2, 5m write 2.5, read 0.2, output 10:
    // 3,945 + 4,165 + 10,245 + 12,995 per million.
    assert_eq!(dec(&b["recorded_cost"]), d("0.03135"));
    // Request 4 read nothing of the 3,190 tokens cached 10 s before: the
    // prefix changed; request 5 read nothing of 3,690 after 580 s: expiry.
    // Each costs its tokens × (2.5 − 0.2) per million.
    let breaks = b["breaks"].as_array().unwrap();
    assert_eq!(breaks.len(), 2);
    assert_eq!(breaks[0]["request"], 4);
    assert_eq!(breaks[0]["gap_seconds"], 10);
    assert_eq!(breaks[0]["cause"], "prefix changed");
    assert_eq!(breaks[0]["tokens"], 3190);
    assert_eq!(dec(&breaks[0]["extra_cost"]), d("0.007337"));
    assert_eq!(breaks[1]["request"], 5);
    assert_eq!(breaks[1]["gap_seconds"], 580);
    assert!(breaks[1]["cause"].as_str().unwrap().starts_with("expiry"));
    assert_eq!(breaks[1]["tokens"], 3690);
    assert_eq!(dec(&breaks[1]["extra_cost"]), d("0.008487"));
}

#[test]
fn the_summary_renders_as_terminal_tables_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let run = |format: &str| {
        let out = tokencast()
            .current_dir(dir.path())
            .env("COLUMNS", "160")
            .args(["import", "claude-code"])
            .arg(fixtures())
            .args(["--format", format, "--no-report", "--out", "out"])
            .args(["--compare-model", "claude-haiku-4-5", "--trim", "50%"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    insta::assert_snapshot!("import_terminal", run("table"));
    insta::assert_snapshot!("import_csv", run("csv"));
}

#[test]
fn a_count_past_the_limit_is_capped_for_its_line_and_the_thread_imported() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs/proj");
    fs::create_dir_all(&logs).unwrap();
    // A corrupt log: a first prompt of 3 billion tokens (more than any real
    // request, and than a scenario accepts), then a tool result and a
    // second request.
    let line = |kind: &str, body: &str| {
        format!(
            r#"{{"type":"{kind}","sessionId":"s-big","timestamp":"2026-03-01T10:00:00.000Z",{body}}}"#
        )
    };
    let text = [
        line("assistant", r#""message":{"id":"m1","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Read"}],"usage":{"input_tokens":3000000000,"output_tokens":1}}"#),
        line("user", r#""message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"abc"}]}"#),
        line("assistant", r#""message":{"id":"m2","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":5,"output_tokens":1}}"#),
    ]
    .join("\n");
    fs::write(logs.join("s-big.jsonl"), text).unwrap();
    let out = tokencast()
        .current_dir(dir.path())
        .args([
            "import",
            "claude-code",
            "logs",
            "--format",
            "json",
            "--no-report",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["sessions"][0]["requests"], 2);
    // The count is capped at 10^9 for its line, which is reported with its
    // file and line; the rest of the thread is imported and replayed.
    let p = &doc["problems"][0];
    assert_eq!(p["file"], "proj/s-big.jsonl");
    assert_eq!(p["line"], 1);
    assert!(p["what"].as_str().unwrap().contains("capped"), "{p}");
    assert_eq!(doc["sessions"][0]["usage"]["input"], 1_000_000_000u64 + 5);
    assert_eq!(doc["scenarios"].as_array().unwrap().len(), 1);
    // --strict refuses it.
    let out = tokencast()
        .current_dir(dir.path())
        .args([
            "import",
            "claude-code",
            "logs",
            "--strict",
            "--no-report",
            "--out",
            "strict",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("strict").exists());
}

#[test]
fn the_summary_states_what_the_sessions_can_support() {
    let dir = tempfile::tempdir().unwrap();
    let doc = import_json(dir.path(), &[]);
    let c = &doc["confidence"];
    // Two sessions are fully priced (S1 $0.0218565, S3 $0.016337); S2 is not.
    assert_eq!(c["sessions"], 2);
    assert_eq!(c["needed_for_p99"], 299);
    let p50 = &c["percentiles"][0];
    // R-8 median of two: the midpoint, (0.016337 + 0.0218565) / 2.
    assert!((p50["estimate"].as_f64().unwrap() - 0.01909675).abs() < 1e-12);
    // Two sessions bound no percentile at 95 %.
    assert!(p50["lower"].is_null() && p50["upper"].is_null());
}

#[test]
fn a_new_import_into_the_same_folder_replaces_the_set_the_last_one_wrote() {
    let dir = tempfile::tempdir().unwrap();
    import_json(dir.path(), &["--out", "out"]);
    let out = dir.path().join("out");
    assert!(out.join(format!("{S3}/main.toml")).is_file());
    // Files the user keeps there, and one that merely looks like a trace.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::write(out.join(format!("{S3}/mine.csv")), "a,b\n1,2\n").unwrap();
    // Only session 1 this time: session 3's scenarios and traces go, the
    // user's files stay, and so does session 3's folder that still holds one.
    import_json(dir.path(), &["--out", "out", "--session", S1]);
    assert!(out.join(format!("{S1}/main.toml")).is_file());
    assert!(!out.join(format!("{S3}/main.toml")).exists());
    assert!(!out.join(format!("{S3}/main.csv")).exists());
    assert!(out.join("notes.txt").is_file());
    assert!(out.join(format!("{S3}/mine.csv")).is_file());
    assert!(out.join("prices.toml").is_file());
    let manifest = std::fs::read_to_string(out.join("imported.toml")).unwrap();
    assert!(manifest.contains(&format!("{S1}/main.csv")));
    assert!(!manifest.contains(S3));
}

#[test]
fn another_providers_model_is_priced_from_the_shipped_books_on_its_own_cache() {
    // The Claude Code sessions on gpt-5.4: no --prices needed (every
    // shipped book is used), and the variant keeps a cache: OpenAI's
    // automatic 5-minute tier (gpt-5.4 has no 1-hour tier).
    let dir = tempfile::tempdir().unwrap();
    let doc = import_json(dir.path(), &["--out", "out", "--compare-model", "gpt-5.4"]);
    assert_eq!(doc["compare_model"], "gpt-5.4");
    let scenario = fs::read_to_string(dir.path().join(format!("out/{S1}/main.toml"))).unwrap();
    let variant = scenario
        .split("[[variants]]")
        .find(|v| v.contains("model = \"gpt-5.4\""))
        .expect("a variant on gpt-5.4");
    assert!(variant.contains("cache = \"5m\""), "{variant}");
    let prices = fs::read_to_string(dir.path().join("out/prices.toml")).unwrap();
    assert!(prices.contains("[models.\"gpt-5.4\"]") || prices.contains("[models.gpt-5.4]"));
    assert!(prices.contains("cache_lifetime_minutes = 10"));
}

/// A price book: the shipped Anthropic one, and two made-up models whose
/// every price differs by exactly 2×.
fn book_with_a_double(dir: &Path) -> PathBuf {
    let shipped = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios/prices/litellm-1.110.2/anthropic.toml"),
    )
    .unwrap();
    let model = |name: &str, k: u32| {
        let p = |base: &str| (d(base) * Decimal::from(k)).normalize().to_string();
        format!(
            "\n[models.{name}]\nsource = \"test\"\nread_on = \"2026-11-30\"\ninput = \"{}\"\noutput = \"{}\"\ncache_write_5m = \"{}\"\ncache_write_1h = \"{}\"\ncache_read = \"{}\"\n",
            p("1"),
            p("5"),
            p("1.25"),
            p("2"),
            p("0.1")
        )
    };
    let path = dir.join("book.toml");
    fs::write(
        &path,
        format!(
            "{shipped}{}{}",
            model("claude-test-b", 2),
            model("claude-test-a", 1)
        ),
    )
    .unwrap();
    path
}

#[test]
fn several_models_are_ranked_by_the_cost_of_the_same_threads() {
    let dir = tempfile::tempdir().unwrap();
    let book = book_with_a_double(dir.path());
    let doc = import_json(
        dir.path(),
        &[
            "--out",
            "out",
            "--prices",
            book.to_str().unwrap(),
            "--compare-model",
            "claude-test-*",
            "--compare-model",
            "claude-haiku-4-5",
            "--compare-model",
            "claude-test-b",
        ],
    );
    // The pattern stands for its ids in id order, then the id given; a
    // model named twice is compared once.
    let models: Vec<&str> = doc["compare_models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(
        models,
        ["claude-test-a", "claude-test-b", "claude-haiku-4-5"]
    );
    assert_eq!(doc["compare_model"], "claude-test-a");
    let band =
        |v: &serde_json::Value| ["lower", "estimate", "upper"].map(|k| d(v[k].as_str().unwrap()));
    // Same tokens, every price doubled: each session's replay on b is
    // exactly twice its replay on a.
    let mut sums = [[Decimal::ZERO; 3]; 3];
    let mut replayed = 0;
    for s in doc["sessions"].as_array().unwrap() {
        let Some(on) = s["on_models"].as_array() else {
            continue;
        };
        replayed += 1;
        let (a, b) = (band(&on[0]), band(&on[1]));
        assert_eq!(b, a.map(|x| x * Decimal::TWO), "{}", s["session"]);
        // The first compared model is the "other model" what-if.
        assert_eq!(band(&s["what_if"]["other_model"]), a);
        for (i, m) in on.iter().enumerate() {
            for (k, x) in band(m).into_iter().enumerate() {
                sums[i][k] += x;
            }
        }
    }
    assert!(replayed >= 2, "{doc}");
    // The ranking: cheapest first by the estimate, each the sum of its sessions.
    let ranking = doc["ranking"].as_array().unwrap();
    let order: Vec<&str> = ranking
        .iter()
        .map(|r| r["model"].as_str().unwrap())
        .collect();
    let estimate = |m: &str| sums[models.iter().position(|x| *x == m).unwrap()][1];
    let mut by_cost = models.clone();
    by_cost.sort_by_key(|m| estimate(m));
    assert_eq!(order, by_cost);
    for r in ranking {
        let i = models.iter().position(|m| *m == r["model"]).unwrap();
        assert_eq!(band(&r["cost"]), sums[i], "{}", r["model"]);
        assert_eq!(r["sessions"], replayed);
        assert_eq!(r["cache"], "5m and 1h tiers");
    }
    // The replay as recorded of the same threads sits beside each.
    assert_eq!(
        d(ranking[0]["as_recorded"]["estimate"].as_str().unwrap()),
        d(doc["totals"]["what_if"]["as_recorded"]["estimate"]
            .as_str()
            .unwrap())
    );
    // Every compared model is a variant of each written scenario.
    let scenario = fs::read_to_string(dir.path().join(format!("out/{S1}/main.toml"))).unwrap();
    for m in ["claude-test-a", "claude-test-b"] {
        assert!(
            scenario.contains(&format!("name = \"on {m}\"")),
            "{scenario}"
        );
    }
}

#[test]
fn a_compared_model_pattern_that_matches_nothing_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = tokencast()
        .current_dir(dir.path())
        .args(["import", "claude-code"])
        .arg(fixtures())
        .args([
            "--no-report",
            "--out",
            "out",
            "--compare-model",
            "nomodel-*",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--compare-model nomodel-*: matches no model of the price book"),
        "{err}"
    );
    assert!(!dir.path().join("out").exists(), "nothing written");
}

/// The import page of the fixtures (written into a temporary folder).
fn fixtures_page() -> String {
    fixtures_page_with(&[])
}

/// The import page of the fixtures imported with the options `extra`.
fn fixtures_page_with(extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    succeeded(
        tokencast()
            .current_dir(dir.path())
            .args(["import", "claude-code"])
            .arg(fixtures())
            .args(["--out", "out", "--report", "page.html"])
            .args(extra),
    );
    fs::read_to_string(dir.path().join("page.html")).unwrap()
}

#[test]
fn the_pages_model_choice_lists_bedrocks_ids_after_the_providers_own() {
    let page = fixtures_page();
    let select = &page[page.find("data-param=\"variant.model\"").unwrap()..];
    let select = &select[..select.find("</select>").unwrap()];
    let options: Vec<&str> = select
        .split("<option")
        .skip(1)
        .filter_map(|o| {
            o.split_once('>')
                .and_then(|(_, rest)| rest.split_once("</option>"))
        })
        .map(|(text, _)| text)
        .collect();
    let at = |id: &str| {
        options
            .iter()
            .position(|o| *o == id)
            .unwrap_or_else(|| panic!("{id} among {options:?}"))
    };
    assert_eq!(options[0], "as recorded");
    let bedrock = at("us.anthropic.claude-sonnet-4-5-20250929-v1:0");
    assert!(at("claude-sonnet-4-5") < bedrock && at("claude-opus-4-8") < bedrock);
    let first_bedrock = options
        .iter()
        .position(|o| o.starts_with("anthropic.") || o.contains(".anthropic."))
        .unwrap();
    assert!(
        options[first_bedrock..]
            .iter()
            .all(|o| o.starts_with("anthropic.") || o.contains(".anthropic.")),
        "Bedrock's ids come last, together"
    );
}

#[test]
fn unpriced_sessions_are_never_drawn_as_zero_bars() {
    // Session 22222222 runs only on claude-unknown-9, which no book prices.
    let page = fixtures_page();
    let chart = |id: &str| {
        let at = page.find(&format!("id=\"{id}\"")).unwrap();
        &page[at..at + page[at..].find("</figure>").unwrap()]
    };
    let sessions = chart("chart-import-sessions");
    assert!(
        sessions.contains("11111111") && !sessions.contains("22222222"),
        "{sessions}"
    );
    assert!(sessions.contains("1 session(s) on models the book does not price are not drawn"));
    assert!(chart("chart-import-per-day").contains("2026-03-02 (unpriced)"));
}

#[test]
fn the_default_tables_are_compact_and_wide_has_every_column() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let out = tokencast()
            .current_dir(dir.path())
            .env("COLUMNS", "80")
            .args(["import", "claude-code"])
            .arg(fixtures())
            .args(["--no-report", "--out", "out", "--force"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let compact = run(&["--compare-model", "claude-haiku-4-5"]);
    let parts = |text: &str| text.lines().filter(|l| l.starts_with("Sessions (")).count();
    // Short ids and the money first: at 80 columns, two parts at most, the
    // first holding the recorded cost and the replay's estimate.
    assert!(parts(&compact) <= 2, "{compact}");
    let first = compact
        .lines()
        .skip_while(|l| !l.starts_with("Sessions ("))
        .nth(2)
        .unwrap();
    assert!(
        first.contains("recorded") && first.contains("replayed"),
        "{first}"
    );
    let table: String = compact
        .lines()
        .skip_while(|l| !l.starts_with("Sessions ("))
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(table.contains("│ 11111111 "), "{table}");
    assert!(!table.contains("11111111-aaaa"), "{table}");
    assert!(compact.contains("on claude-haiku-4-5"), "{compact}");
    let wide = run(&["--wide"]);
    assert!(parts(&wide) > 2, "{wide}");
    for column in [
        "5-min writes",
        "1-hour writes",
        "replay, lower",
        "11111111-aaaa-4aaa-8aaa-111111111111",
    ] {
        assert!(wide.contains(column), "{column:?} not in {wide}");
    }
}

#[test]
fn a_combined_variant_is_one_figure_and_equals_the_same_what_if_made_another_way() {
    let dir = tempfile::tempdir().unwrap();
    let doc = import_json(
        dir.path(),
        &[
            "--out",
            "out",
            "--compare-model",
            "claude-haiku-4-5",
            "--variant",
            r#"{ name = "raw, as recorded", results = "raw" }"#,
            "--variant",
            r#"{ name = "raw, batch", results = "raw", mode = "batch" }"#,
            "--variant",
            r#"{ name = "raw on haiku", results = "raw", model = "claude-haiku-4-5" }"#,
            "--variant",
            "{ name = \"odd\\n[name]\", results = \"trimmed\", model = \"claude-haiku-4-5\", cache = \"5m\" }",
        ],
    );
    let band =
        |v: &serde_json::Value| ["lower", "estimate", "upper"].map(|k| d(v[k].as_str().unwrap()));
    let totals = &doc["totals"]["what_if"];
    let variants = doc["variants"].as_array().unwrap();
    let cost = |i: usize| band(&variants[i]["cost"]);
    // The same settings as the import's own what-ifs give the same figures,
    // to the last digit: as recorded, in batch, on the compared model.
    assert_eq!(cost(0), band(&totals["as_recorded"]));
    assert_eq!(cost(1), band(&totals["batch"]));
    assert_eq!(cost(2), band(&totals["other_model"]));
    for v in variants {
        assert_eq!(band(&v["as_recorded"]), band(&totals["as_recorded"]));
        assert!(v["sessions"].as_u64().unwrap() >= 2, "{v}");
    }
    // A name is data in the scenario, however it is written: the scenario
    // loads and replays it.
    assert_eq!(variants[3]["variant"]["name"], "odd\n[name]");
    let scenario = fs::read_to_string(dir.path().join(format!("out/{S1}/main.toml"))).unwrap();
    let parsed: toml::Value = toml::from_str(&scenario).unwrap();
    let names: Vec<&str> = parsed["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"odd\n[name]"), "{names:?}");
    assert!(parsed.get("name]").is_none() && parsed.get("name").is_some());
    assert!(cost(3)[1] > Decimal::ZERO);
    // A variant the book cannot price stops the import before it reads a log.
    let out = tokencast()
        .current_dir(dir.path())
        .args(["import", "claude-code"])
        .arg(fixtures())
        .args(["--no-report", "--out", "out2", "--variant"])
        .arg(r#"{ name = "x", results = "raw", model = "gpt-5.4", cache = "1h" }"#)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--variant 1") && err.contains("`gpt-5.4` has no"),
        "{err}"
    );
    assert!(!dir.path().join("out2").exists());
}

#[test]
fn the_import_pages_what_if_opens_on_every_request_as_recorded() {
    // Without --compare-model the page's model control starts at "as
    // recorded" (each request on the model that served it), so the what-if
    // it opens on changes nothing: its estimate is the replay as recorded.
    let page = fixtures_page();
    assert!(
        page.contains(r#"<select data-param="variant.model" data-original="as recorded"><option selected>as recorded</option>"#),
        "the model control"
    );
    let cell = |figure: &str| {
        let at = page
            .find(&format!(r#"data-figure="{figure}">"#))
            .unwrap_or_else(|| panic!("{figure}"));
        let text = &page[at..];
        let start = text.find('>').unwrap() + 1;
        text[start..start + text[start..].find('<').unwrap()].to_string()
    };
    assert_eq!(
        cell("/variants/0/cost/estimate"),
        cell("/variants/0/as_recorded/estimate")
    );
    assert_eq!(cell("/variants/0/versus_as_recorded"), "0%");
}

/// The cells of the table `id` of a page, as text (its body, row by row).
fn page_table_cells(page: &str, id: &str) -> Vec<String> {
    let table = &page[page
        .find(&format!(r#"data-table="{id}""#))
        .unwrap_or_else(|| panic!("the page has no table {id}"))..];
    let table = &table[..table.find("</table>").unwrap()];
    let body = &table[table.find("<tbody>").unwrap()..];
    body.split('<')
        .filter(|t| t.starts_with("td") || t.starts_with("th"))
        .map(|t| {
            t.split_once('>')
                .unwrap()
                .1
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#x27;", "'")
                .replace("&#x2F;", "/")
                .replace("&amp;", "&")
        })
        .collect()
}

/// An import page's first answer is made from the import's own replays of
/// the page's what-if (beside its `--variant`s): it is the answer the page's
/// engine gives the request the page carries, every thread replayed again,
/// cell for cell; with the import's own variant, a compared model (the
/// what-if's model) and a trim rule too.
#[test]
fn an_import_pages_first_answer_is_its_engines_answer_to_the_request_it_carries() {
    let given = r#"{ name = "haiku, trimmed", results = "trimmed", model = "claude-haiku-4-5" }"#;
    let runs: [&[&str]; 2] = [
        &[],
        &[
            "--variant",
            given,
            "--compare-model",
            "claude-sonnet-4-5",
            "--trim",
            "25%",
        ],
    ];
    for extra in runs {
        let page = fixtures_page_with(extra);
        let request = page
            .split(r#"<script type="application/json" id="tc-request">"#)
            .nth(1)
            .and_then(|rest| rest.split("</script>").next())
            .expect("the page carries its request");
        let request: tokencast_web::Request = serde_json::from_str(request).unwrap();
        assert!(request
            .import
            .as_ref()
            .is_some_and(|r| r.threads.len() >= 2));
        let tokencast_web::Answer::Ok { blocks, .. } = tokencast_web::run(&request) else {
            panic!("the page's request is answered")
        };
        let table = blocks
            .iter()
            .find_map(|b| b.table.as_ref().filter(|t| t.id == "import_what_if"))
            .expect("the answer's what-if table");
        let want: Vec<String> = table
            .rows
            .iter()
            .flatten()
            .map(|c| c.text.clone())
            .collect();
        assert_eq!(want[0], "what if", "{want:?}");
        assert!(want.iter().any(|c| c.starts_with('$')), "{want:?}");
        assert_eq!(page_table_cells(&page, "import_what_if"), want, "{extra:?}");
    }
}

/// Every file an import writes, and its document and page, are the same
/// read on one thread as on the import's pool (two threads per core): no
/// byte depends on which thread read which log first.
#[test]
fn one_thread_or_the_pool_writes_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, threads: Option<&str>| -> (Vec<u8>, Vec<(PathBuf, Vec<u8>)>) {
        let out = dir.path().join(name);
        let mut cmd = tokencast();
        cmd.current_dir(dir.path())
            .args(["import", "claude-code"])
            .arg(fixtures())
            .args(["--format", "json", "--out"])
            .arg(&out)
            .arg("--report")
            .arg(dir.path().join(format!("{name}.html")));
        match threads {
            Some(n) => cmd.env("RAYON_NUM_THREADS", n),
            None => cmd.env_remove("RAYON_NUM_THREADS"),
        };
        let o = succeeded(&mut cmd);
        let mut files: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(&out)
            .sort_by_file_name()
            .into_iter()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let rel = e.path().strip_prefix(&out).unwrap().to_path_buf();
                (rel, fs::read(e.path()).unwrap())
            })
            .collect();
        files.push((
            PathBuf::from("page"),
            fs::read(dir.path().join(format!("{name}.html"))).unwrap(),
        ));
        (o.stdout, files)
    };
    let (one_doc, one) = run("one", Some("1"));
    let (pool_doc, pool) = run("pool", None);
    assert!(one.len() > 5, "the import wrote its sessions' files");
    assert_eq!(
        one.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        pool.iter().map(|(p, _)| p).collect::<Vec<_>>()
    );
    for ((path, a), (_, b)) in one.iter().zip(&pool) {
        assert!(a == b, "{} differs", path.display());
    }
    // The document names no output path: the same bytes too.
    assert!(one_doc == pool_doc, "the documents differ");
}
