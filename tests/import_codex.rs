//! `tokencast import codex` on `tests/fixtures/codex/`: one rollout written
//! for these tests (and its archived copy), in Codex CLI's shape: a
//! heartbeat `token_count` with null info, an event emitted twice, one with
//! only the running total, two kinds of tool call, a compaction, and lines
//! the importer must list. Figures are worked out by hand in the comments;
//! the text of the rollout contains "SECRET", which no output may contain.

mod common;
use common::*;
use rust_decimal::Decimal;
use std::fs;
use std::path::{Path, PathBuf};

const SID: &str = "0199aaaa-0000-7000-8000-000000000001";

fn home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex")
}

fn run(dir: &Path, extra: &[&str]) -> std::process::Output {
    run_from(&home(), dir, extra)
}

/// `import codex` in `dir` with `CODEX_HOME` at `codex_home`.
fn run_from(codex_home: &Path, dir: &Path, extra: &[&str]) -> std::process::Output {
    tokencast()
        .current_dir(dir)
        .env("CODEX_HOME", codex_home)
        .args(["import", "codex"])
        .args(extra)
        .output()
        .unwrap()
}

fn import_json(dir: &Path) -> serde_json::Value {
    let out = run(dir, &["--format", "json", "--no-report", "--out", "out"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn openai_counts_are_converted_once_into_tokencast_classes() {
    let dir = tempfile::tempdir().unwrap();
    let doc = import_json(dir.path());
    let sessions = doc["sessions"].as_array().unwrap();
    // The archived copy of the same session is counted once.
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(s["session"], SID);
    // Three requests: the heartbeat (info null) is none, the event emitted
    // twice is one. Input includes cached tokens and output includes
    // reasoning (OpenAI's convention):
    // 1. last 2,006 in, 1,920 cached, 300 out → 86 uncached, 1,920 read, 300 out
    // 2. last 2,494 in, 1,880 cached, 120 out → 614, 1,880, 120
    // 3. only the total: 7,000/6,000/500 minus 4,500/3,800/420 → 300, 2,200, 80
    assert_eq!(s["requests"], 3);
    let u = &s["usage"];
    assert_eq!(u["input"], 86 + 614 + 300);
    assert_eq!(u["cache_read"], 1920 + 1880 + 2200);
    assert_eq!(u["output"], 300 + 120 + 80);
    assert_eq!(u["cache_write_5m"], 0);
    assert_eq!(
        doc["skipped"]["repeated_lines"], 2,
        "the event emitted twice, in each copy"
    );
    // gpt-5-codex (LiteLLM 1.110.2): input 1.25, cache read 0.125, output 10
    // per million: 1,000×1.25 + 6,000×0.125 + 500×10 = 7,000.
    assert_eq!(
        dec(&s["recorded_cost"]),
        "0.007".parse::<Decimal>().unwrap()
    );
    // The shell output "SECRET-OUTPUT ö" is 16 UTF-8 bytes; the patch tool's 300.
    assert_eq!(s["tool_results"], 2);
    assert_eq!(s["result_bytes"], 316);
    assert_eq!(s["compactions"], 1);
    assert_eq!(s["project"], "codex-proj");
}

#[test]
fn each_result_is_carried_by_the_next_request_and_the_scenario_simulates() {
    let dir = tempfile::tempdir().unwrap();
    import_json(dir.path());
    let csv = fs::read_to_string(dir.path().join(format!("out/{SID}/main.csv"))).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 2);
    // shell asked at 10:00:03.5, answered at 10:00:05.5: 2,000 ms; carried
    // by request 2; its text counted with o200k_base as the model got it
    // (the count, never the text); a shell's output is tool output.
    let tokens = bpe_openai::o200k_base().count("SECRET-OUTPUT ö");
    assert!(
        rows[0].starts_with(&format!(
            "1,shell,200,1,16,16,2000,0,false,0,0,output,{tokens},2,"
        )),
        "{}",
        rows[0]
    );
    // Request 1 output 300, of which 128 reasoning: within a turn (a tool
    // result, no user message) the reasoning goes back too, so all 300 are
    // sent back and none is hidden or dropped; requests at 10:00:03 and
    // 10:00:08: 5,000 ms apart.
    assert!(
        rows[0].ends_with(",gpt-5-codex,614,0,0,1880,120,300,0,,,5000,,,"),
        "{}",
        rows[0]
    );
    // The patch tool's output: 300 × "x".
    let tokens = bpe_openai::o200k_base().count(&"x".repeat(300));
    assert!(
        rows[1].starts_with(&format!(
            "2,apply_patch,200,1,300,300,500,0,false,0,0,output,{tokens},3,"
        )),
        "{}",
        rows[1]
    );
    let doc = json_of(tokencast().current_dir(dir.path()).args([
        "simulate",
        &format!("out/{SID}/main.toml"),
        "--format",
        "json",
        "--no-report",
    ]));
    // Recorded cost of the two carrying requests: 614×1.25 + 1,880×0.125 +
    // 120×10 = 2,202.5 and 300×1.25 + 2,200×0.125 + 80×10 = 1,450.
    assert_eq!(
        dec(&doc["backtest"]["recorded_cost"]),
        "0.0036525".parse::<Decimal>().unwrap()
    );
    // Both tool outputs were counted, and the terminal says so beside the
    // bytes-per-token rule.
    assert_eq!(doc["counted_results"], 2, "{}", doc["tool_results"]);
    let out = tokencast()
        .current_dir(dir.path())
        .args(["simulate", &format!("out/{SID}/main.toml"), "--no-report"])
        .env("COLUMNS", "400")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "2 of the {} results counted exactly with o200k_base",
            doc["tool_results"]
        )),
        "{text}"
    );
}

#[test]
fn bad_lines_are_listed_and_no_output_holds_log_text() {
    let dir = tempfile::tempdir().unwrap();
    let doc = import_json(dir.path());
    let problems = doc["problems"].as_array().unwrap();
    assert!(problems.iter().any(|p| p["line"] == 14
        && p["what"]
            .as_str()
            .unwrap()
            .starts_with("not a JSON log line")));
    assert!(problems
        .iter()
        .any(|p| p["line"] == 15 && p["what"] == "unknown line type `mystery`"));
    let out = run(dir.path(), &["--strict", "--out", "strict"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("strict").exists());
    let mut all = Vec::new();
    for format in ["table", "json", "csv"] {
        let out = run(dir.path(), &["--format", format, "--out", "out2"]);
        assert!(out.status.success());
        all.push(out.stdout);
        all.push(out.stderr);
    }
    assert_nowhere("SECRET", &all, dir.path());
}

#[test]
fn import_without_a_source_reads_the_default_locations_that_exist() {
    let dir = tempfile::tempdir().unwrap();
    let out = tokencast()
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("CLAUDE_CONFIG_DIR", "")
        .env("CODEX_HOME", home())
        .args(["import", "--no-report", "--out", "out"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Codex: read "), "{err}");
    assert!(!err.contains("Claude Code: read"), "{err}");
    assert!(dir.path().join(format!("out/{SID}/main.toml")).exists());
    // Nothing anywhere: an error naming where it looked.
    let out = tokencast()
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("CLAUDE_CONFIG_DIR", "")
        .env("CODEX_HOME", dir.path().join("none"))
        .args(["import"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no agent logs found"));
}

#[test]
fn the_answer_comes_first_in_the_terminal() {
    // The fixture's one session, three requests, recorded $0.007 (see
    // above; four decimals under a dollar), as the first line after the title.
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["--no-report", "--out", "out"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let second = text.lines().nth(1).unwrap();
    assert!(
        second.starts_with("In all: 1 session(s), 3 request(s), recorded $0.0070;"),
        "{text}"
    );
}

#[test]
fn a_cache_that_outlived_some_expiries_is_written_with_its_share() {
    // Four requests of gpt-5-codex, whose automatic cache the price book
    // gives 10 minutes. Request 2 comes 20 minutes after request 1 and
    // still reads 2,048 of its 2,100 tokens (at least nine tenths: the
    // cache survived); request 3, 20 minutes later again, reads nothing.
    // Of 2 expiries 1 survived: a share of 0.5.
    let home = tempfile::tempdir().unwrap();
    let day = home.path().join("sessions/2026/03/02");
    fs::create_dir_all(&day).unwrap();
    let id = "0199bbbb-0000-7000-8000-000000000002";
    let usage = |at: &str, input: u64, cached: u64| {
        format!(
            r#"{{"timestamp":"{at}","type":"event_msg","payload":{{"type":"token_count","info":{{"last_token_usage":{{"input_tokens":{input},"cached_input_tokens":{cached},"output_tokens":10,"reasoning_output_tokens":0,"total_tokens":{}}}}}}}}}"#,
            input + 10
        )
    };
    let call = |at: &str, n: u32| {
        format!(
            r#"{{"timestamp":"{at}","type":"response_item","payload":{{"type":"function_call","name":"shell","arguments":"{{}}","call_id":"c{n}"}}}}
{{"timestamp":"{at}","type":"response_item","payload":{{"type":"function_call_output","call_id":"c{n}","output":"ok"}}}}"#
        )
    };
    let lines = [
        format!(
            r#"{{"timestamp":"2026-03-02T10:00:00.000Z","type":"session_meta","payload":{{"id":"{id}","cwd":"/p"}}}}"#
        ),
        r#"{"timestamp":"2026-03-02T10:00:00.100Z","type":"turn_context","payload":{"model":"gpt-5-codex"}}"#.to_string(),
        usage("2026-03-02T10:00:01.000Z", 2000, 0),
        call("2026-03-02T10:00:02.000Z", 1),
        usage("2026-03-02T10:01:00.000Z", 2100, 2000),
        call("2026-03-02T10:01:01.000Z", 2),
        usage("2026-03-02T10:21:00.000Z", 2200, 2048),
        call("2026-03-02T10:21:01.000Z", 3),
        usage("2026-03-02T10:41:00.000Z", 2300, 0),
    ];
    fs::write(
        day.join(format!("rollout-2026-03-02T10-00-00-{id}.jsonl")),
        lines.join("\n") + "\n",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = run_from(home.path(), dir.path(), &["--no-report", "--out", "out"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let toml = fs::read_to_string(dir.path().join(format!("out/{id}/main.toml"))).unwrap();
    assert!(
        toml.contains("survived_expiry_share = 0.5   # of 2 gaps longer than the cache lifetime, 1 still read the whole previous prompt"),
        "{toml}"
    );
    // Request 2, within the cache's lifetime, read 2,000 of request 1's
    // 2,010 tokens (its prompt and its output): a share of 2,000 ÷ 2,010 =
    // 0.995 on one step (the two expiries are counted apart, above). The
    // terminal says what the estimate and the upper bound read of it.
    assert!(toml.contains("\ncache_hit_share = 0.995 "), "{toml}");
    let terminal = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        terminal.contains("In 1 session(s) on a provider that caches every prefix on its own (OpenAI, Google), the cache is read as the log shows"),
        "{terminal}"
    );
    // The first request read nothing warm: no warm prefix share.
    assert!(!toml.contains("warm_prefix_share"), "{toml}");
    // A what-if that names the one model the thread ran on stays on it: it
    // keeps the share and replays exactly as recorded. One on another model
    // (gpt-5, the same prices) has no fit of its own and drops it.
    let out = run_from(
        home.path(),
        dir.path(),
        &[
            "--no-report",
            "--out",
            "out2",
            "--format",
            "json",
            "--variant",
            r#"{ name = "same model", results = "raw", model = "gpt-5-codex" }"#,
            "--variant",
            r#"{ name = "gpt-5 instead", results = "raw", model = "gpt-5" }"#,
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["sessions"][0]["cache_hit_share_threads"], 1);
    let same = &doc["variants"][0];
    assert_eq!(same["variant"]["name"], "same model");
    assert_eq!(same["cost"], same["as_recorded"], "{same}");
    let other = &doc["variants"][1];
    assert_ne!(other["cost"], other["as_recorded"], "{other}");
    let toml = fs::read_to_string(dir.path().join(format!("out2/{id}/main.toml"))).unwrap();
    let table = |name: &str| {
        let at = toml.find(&format!("name = \"{name}\"")).expect(name);
        toml[at..].split("[[variants]]").next().unwrap().to_string()
    };
    assert!(
        table("same model").contains("survived_expiry_share = 0.5"),
        "{toml}"
    );
    assert!(
        !table("gpt-5 instead").contains("survived_expiry_share"),
        "{toml}"
    );
}

/// The fixture's rollout as Codex 0.3x wrote one: no `turn_context`, so no
/// line names the model.
fn without_model(dir: &Path) -> PathBuf {
    let rollout = fs::read_dir(home().join("archived_sessions"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = fs::read_to_string(&rollout).unwrap();
    assert!(text.contains(r#""model": "gpt-5-codex""#));
    let kept: String = text
        .lines()
        .filter(|l| !l.contains(r#""type": "turn_context""#))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(!kept.contains("gpt-5"));
    let logs = dir.join("logs");
    fs::create_dir(&logs).unwrap();
    fs::write(logs.join(rollout.file_name().unwrap()), kept).unwrap();
    logs
}

#[test]
fn requests_whose_log_names_no_model_are_priced_as_the_model_given_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let logs = without_model(dir.path());
    let logs = logs.to_str().unwrap();
    let import = |extra: &[&str]| {
        let mut c = tokencast();
        c.current_dir(dir.path())
            .args(["import", "codex", logs, "--no-report"])
            .args(extra);
        c
    };
    // Without the option: unpriced, and the reason names it; never $0.
    let doc = json_of(&mut import(&["--format", "json", "--out", "plain"]));
    let s = &doc["sessions"][0];
    assert_eq!(s["unpriced_requests"], 3);
    assert!(s["recorded_cost"].is_null(), "{s}");
    assert_eq!(doc["unpriced"][0]["model"], "unknown");
    assert!(doc["unpriced"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("--unnamed-model"));
    assert!(doc.get("unnamed_model").is_none());
    // With it: the three requests on gpt-5-codex, priced as the test at the
    // top works out by hand ($0.007), and the document says how many.
    let doc = json_of(&mut import(&[
        "--format",
        "json",
        "--out",
        "named",
        "--unnamed-model",
        "gpt-5-codex",
    ]));
    assert_eq!(doc["unnamed_model"]["model"], "gpt-5-codex");
    assert_eq!(doc["unnamed_model"]["requests"], 3);
    let s = &doc["sessions"][0];
    assert_eq!(s["unpriced_requests"], 0);
    assert_eq!(
        dec(&s["recorded_cost"]),
        "0.007".parse::<Decimal>().unwrap()
    );
    assert!(doc["unpriced"].as_array().unwrap().is_empty());
    // The scenario written runs on that model.
    let toml = fs::read_to_string(dir.path().join(format!("named/{SID}/main.toml"))).unwrap();
    assert!(toml.contains(r#"model = "gpt-5-codex""#), "{toml}");
    // The terminal says it right under the answer.
    let out = succeeded(&mut import(&[
        "--out",
        "named2",
        "--unnamed-model",
        "gpt-5-codex",
    ]));
    let text = String::from_utf8(out.stdout).unwrap();
    let said = text
        .lines()
        .position(|l| {
            l == "3 request(s) whose log names no model are priced as gpt-5-codex (--unnamed-model)."
        })
        .expect(&text);
    let answer = text.lines().position(|l| l.starts_with("In all:")).unwrap();
    let counts = text
        .lines()
        .position(|l| l.starts_with("Read 1 files"))
        .unwrap();
    assert!(answer < said && said < counts, "{text}");
    // A model the book lacks, or a pattern: exit 2, nothing written.
    for (model, says) in [("gpt-9", "did you mean"), ("gpt-*", "a pattern")] {
        let out = import(&["--out", "bad", "--unnamed-model", model])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("--unnamed-model {model}")), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(!dir.path().join("bad").exists());
    }
}
