//! A scenario that names a saved calibration (`[assumptions] calibration =
//! "FILE"`): the fit for its model's family sets the band, the estimate and
//! the framing a step, every output says so, and a wrong use is a located
//! error with exit code 2.

mod common;
use common::{edit, run_in, sandbox, simulate_json};

/// A calibration as `import --save-calibration` writes it, with round
/// numbers: 30,000 bytes over 10,000 tokens in 40 steps, 12 tokens of
/// framing a step, per-step ratios p10 2.5, p50 3, p90 3.5.
const CALIBRATION: &str = r#"# tokencast calibration: bytes per token fitted per model family from recorded prompt growth
[families.fixture-model]
steps = 40
bytes = 30000
tokens = 10000
overhead = 12
p10 = "2.5"
p50 = "3"
p90 = "3.5"

[families.other-model]
steps = 9
bytes = 900
tokens = 300
overhead = 0
p10 = "2"
p50 = "3"
p90 = "4"
"#;

const BAND: &str = "bytes_per_token = 4\ntokenizer_uplift = 1.25\n";

/// What `simulate SCENARIO --no-report` prints in `dir`, its words joined by
/// single spaces (whatever the terminal's width wrapped), after checking it
/// succeeded.
fn terminal_words(dir: &std::path::Path, scenario: &str) -> String {
    let out = common::succeeded(common::tokencast().current_dir(dir).args([
        "simulate",
        scenario,
        "--no-report",
    ]));
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn calibrated() -> tempfile::TempDir {
    let dir = sandbox("tests/fixtures");
    std::fs::write(dir.path().join("team.toml"), CALIBRATION).unwrap();
    edit(
        dir.path(),
        "tiny.toml",
        BAND,
        "calibration = \"team.toml\"\n",
    );
    dir
}

#[test]
fn a_named_calibration_sets_the_band_the_estimate_and_the_framing() {
    let dir = calibrated();
    let doc = simulate_json(dir.path(), "tiny.toml");
    let a = &doc["assumptions"];
    // By hand from the file: the estimate is the pooled 30,000 ÷ 10,000 =
    // 3 bytes a token; the band runs from max(p90, pooled) = 3.5 (fewest
    // tokens) to min(p10, pooled) = 2.5, so the uplift is 3.5 ÷ 2.5 = 1.4.
    assert_eq!(a["bytes_per_token"], "3.5");
    assert_eq!(a["tokenizer_uplift"], "1.4");
    assert_eq!(a["estimate_bytes_per_token"], "3");
    assert_eq!(a["step_overhead_tokens"], 12);
    assert_eq!(
        a["calibration"],
        serde_json::json!({"file": "team.toml", "family": "fixture-model", "steps": 40})
    );

    // The calibration means exactly those four values: the same scenario
    // with them written by hand replays to the same figures.
    let by_hand = sandbox("tests/fixtures");
    edit(
        by_hand.path(),
        "tiny.toml",
        BAND,
        "bytes_per_token = 3.5\ntokenizer_uplift = 1.4\nestimate_bytes_per_token = 3\nstep_overhead_tokens = 12\n",
    );
    let hand = simulate_json(by_hand.path(), "tiny.toml");
    assert_eq!(doc["comparison"], hand["comparison"]);
    assert_eq!(doc["variants"], hand["variants"]);
    // And they differ from the seed's ÷4 … ×1.25 the fixture had.
    let seed = simulate_json(sandbox("tests/fixtures").path(), "tiny.toml");
    assert_ne!(doc["variants"], seed["variants"]);

    // The terminal says where the band came from.
    let text = terminal_words(dir.path(), "tiny.toml");
    assert!(
        text.contains("tokens = bytes ÷ 3.5 (lower), × 1.4 (upper), estimate bytes ÷ 3, from the calibration `team.toml` (family fixture-model, 40 measured steps)"),
        "{text}"
    );
}

#[test]
fn a_value_written_beside_the_calibration_keeps_its_place() {
    // As a live page's reader who changes the uplift keeps the rest.
    let dir = calibrated();
    edit(
        dir.path(),
        "tiny.toml",
        "calibration = \"team.toml\"\n",
        "calibration = \"team.toml\"\ntokenizer_uplift = 1.3\n",
    );
    let doc = simulate_json(dir.path(), "tiny.toml");
    let a = &doc["assumptions"];
    assert_eq!(a["tokenizer_uplift"], "1.3");
    assert_eq!(a["bytes_per_token"], "3.5");
    assert_eq!(a["estimate_bytes_per_token"], "3");
    assert_eq!(a["step_overhead_tokens"], 12);
    assert_eq!(
        a["calibration"]["written"],
        serde_json::json!(["tokenizer_uplift"])
    );
    let out = common::tokencast()
        .current_dir(dir.path())
        .args(["simulate", "tiny.toml", "--no-report", "--brief"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let page = dir.path().join("tiny.html");
    let out = common::tokencast()
        .current_dir(dir.path())
        .args(["simulate", "tiny.toml", "--report", "tiny.html"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let html = std::fs::read_to_string(page).unwrap();
    assert!(
        html.contains("from the calibration <code>team.toml</code> (family fixture-model, 40 measured steps); <code>tokenizer_uplift</code> as the scenario writes"),
        "the page names the calibration"
    );
}

#[test]
fn a_calibration_is_an_input_of_the_run() {
    // Its file enters the inputs' fingerprint: another fit, another run.
    let dir = calibrated();
    let before = simulate_json(dir.path(), "tiny.toml");
    edit(dir.path(), "team.toml", "overhead = 12", "overhead = 13");
    let after = simulate_json(dir.path(), "tiny.toml");
    let inputs = |d: &serde_json::Value| d["inputs"].clone();
    assert!(
        inputs(&before)
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["name"] == "team.toml"),
        "{}",
        inputs(&before)
    );
    assert_ne!(inputs(&before), inputs(&after));
    assert_eq!(after["assumptions"]["step_overhead_tokens"], 13);
}

/// The calibrated fixture with one edit: simulate's stderr, after checking
/// it exits with code 2.
fn refused(file: &str, from: &str, to: &str) -> String {
    let dir = calibrated();
    edit(dir.path(), file, from, to);
    let (code, err) = run_in(dir.path(), &["simulate", "tiny.toml", "--no-report"]);
    assert_eq!(code, Some(2), "{err}");
    err
}

#[test]
fn a_wrong_calibration_is_a_located_error() {
    // No fit for the model's family: the families it has are named.
    let err = refused(
        "team.toml",
        "[families.fixture-model]",
        "[families.fixture-model-2]",
    );
    assert!(
        err.contains("has no fit for the model's family `fixture-model`")
            && err.contains("`fixture-model-2`, `other-model`"),
        "{err}"
    );
    // A file that is not there, pointed at in the scenario.
    let err = refused(
        "tiny.toml",
        "calibration = \"team.toml\"",
        "calibration = \"nowhere.toml\"",
    );
    assert!(
        err.contains("nowhere.toml") && err.contains("calibration path"),
        "{err}"
    );
    // A file that is not a calibration: its own line is named.
    let err = refused("team.toml", "steps = 40", "steps = \"many\"");
    assert!(
        err.contains("team.toml: not a tokencast calibration") && err.contains("team.toml:3"),
        "{err}"
    );
    // Another family's fit outside a band's limits (a variant on its model
    // would replay at it): refused, not carried into the arithmetic.
    let err = refused("team.toml", "p90 = \"4\"", "p90 = \"10000\"");
    assert!(
        err.contains(
            "family `other-model`: bytes_per_token = 10000 is outside what tokencast accepts"
        ) && err.contains("calibration path"),
        "{err}"
    );
    // Neither a band nor a calibration.
    let err = refused("tiny.toml", "calibration = \"team.toml\"\n", "");
    assert!(
        err.contains("[assumptions] has no `bytes_per_token`")
            && err.contains("calibration = \"FILE\""),
        "{err}"
    );
}

/// A Claude Code session whose nine tool results of 600, 1,200, …, 5,400
/// bytes each grow the next prompt by exactly a third of their bytes in
/// tokens, beside the 50 output tokens sent back.
fn three_bytes_a_token_log() -> String {
    three_bytes_a_token_session("11111111-2222-3333-4444-555555555555", 9)
}

/// [`three_bytes_a_token_log`] with `results` tool results, as session `sid`.
fn three_bytes_a_token_session(sid: &str, results: u32) -> String {
    let at = |s: u32| format!("2026-11-20T10:{:02}:{:02}.000Z", s / 60, s % 60);
    let mut lines = vec![
        serde_json::json!({"type": "user", "sessionId": sid, "version": "2.1.126",
        "timestamp": at(0), "message": {"role": "user", "content": "hello"}}),
    ];
    let (mut prompt, mut previous) = (5_000u64, 0u64);
    for k in 1..=results {
        let usage = if k == 1 {
            serde_json::json!({"input_tokens": 10, "cache_creation_input_tokens": prompt - 10,
                "cache_read_input_tokens": 0, "output_tokens": 50})
        } else {
            serde_json::json!({"input_tokens": 10, "cache_creation_input_tokens": prompt - previous,
                "cache_read_input_tokens": previous - 10, "output_tokens": 50})
        };
        lines.push(serde_json::json!({"type": "assistant", "sessionId": sid, "version": "2.1.126",
            "timestamp": at(2 * k - 1), "requestId": format!("req_{k}"),
            "message": {"model": "claude-sonnet-4-5", "id": format!("m{k}"), "role": "assistant",
                "content": [{"type": "tool_use", "id": format!("t{k}"), "name": "Read", "input": {}}],
                "usage": usage}}));
        let size = 600 * u64::from(k);
        lines.push(serde_json::json!({"type": "user", "sessionId": sid, "version": "2.1.126",
            "timestamp": at(2 * k), "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("t{k}"), "content": "x".repeat(size as usize)}]}}));
        previous = prompt;
        prompt += 50 + size / 3;
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A folder holding `log` as a Claude Code session's file under
/// `logs/proj`, imported into `out` with its calibration saved to
/// `team.toml`; the import's summary.
fn imported_with_calibration(log: &str) -> (tempfile::TempDir, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs/proj");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(logs.join("s.jsonl"), log).unwrap();
    let summary = common::import_logs(dir.path(), &["--save-calibration", "team.toml"]);
    (dir, summary)
}

/// A plan written by hand on Claude Sonnet 4.5, priced from the shipped
/// book and the calibration `team.toml`: a 1,000-token prefix, no output,
/// and one result of `raw` bytes (`trimmed` after trimming) with `extra`
/// lines added to its row.
fn hand_plan(raw: u64, trimmed: u64, extra: &str) -> String {
    let book = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/prices/litellm-1.110.2/anthropic.toml");
    format!(
        r#"name = "plan"
question = "What will the agent cost on our own bytes per token?"
model = "claude-sonnet-4-5"
prices = {book:?}
date = "2026-11-30"

[trace]
[[trace.calls]]
call = 1
capability = "docs/read"
status = 200
items = 1
raw_bytes = {raw}
trimmed_bytes = {trimmed}
latency_ms = 1000
charged_usd = "0"
{extra}
[assumptions]
prefix_tokens = 1000
output_tokens_per_step = 0
final_output_tokens = 0
calibration = "team.toml"
runs_per_day = 1

[[variants]]
results = "raw"
cache = "none"
"#
    )
}

#[test]
fn a_calibration_saved_by_an_import_prices_a_plan_written_by_hand() {
    let (dir, summary) = imported_with_calibration(&three_bytes_a_token_log());
    assert_eq!(summary["totals"]["sessions"], 1, "{summary}");
    let plan = hand_plan(9000, 3000, "");
    std::fs::write(dir.path().join("plan.toml"), plan).unwrap();
    let doc = simulate_json(dir.path(), "plan.toml");
    let a = &doc["assumptions"];
    // Eight measured steps (the ninth result has no request after it):
    // each grew the prompt by its bytes ÷ 3, so p10 = p90 = pooled = 3 and
    // the uplift is 3 ÷ 3 = 1; no near-empty step, so no framing.
    assert_eq!(a["bytes_per_token"], "3");
    assert_eq!(a["tokenizer_uplift"], "1");
    assert_eq!(a["estimate_bytes_per_token"], "3");
    assert_eq!(a["calibration"]["family"], "claude-sonnet-4-5");
    assert_eq!(a["calibration"]["steps"], 8);
    // The 9,000-byte result is 9,000 ÷ 3 = 3,000 tokens in the final
    // request, after the 1,000-token prefix: at the book's $3 per million
    // input tokens, 1,000 × 3 = $0.003, then 4,000 × 3 = $0.012.
    let v = &doc["variants"][0];
    assert_eq!(
        v["request_costs"],
        serde_json::json!([{"lower": "0.003", "upper": "0.003"}, {"lower": "0.012", "upper": "0.012"}]),
        "{v}"
    );
    assert_eq!(v["rates"]["input"], "3");
}

/// A thread with too few measured steps for a fit of its own takes its
/// family's fit over the import's other threads (it waits for every
/// session to be read), and the seed's band when the import has none.
#[test]
fn a_short_thread_takes_its_familys_fit_from_the_other_threads() {
    const SHORT: &str = "00000000-2222-3333-4444-555555555555";
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs/proj");
    std::fs::create_dir_all(&logs).unwrap();
    // Read first: three results, two measured steps (a fit needs five).
    std::fs::write(logs.join("a.jsonl"), three_bytes_a_token_session(SHORT, 3)).unwrap();
    std::fs::write(logs.join("b.jsonl"), three_bytes_a_token_log()).unwrap();
    let short_scenario =
        || std::fs::read_to_string(dir.path().join("out").join(SHORT).join("main.toml")).unwrap();
    let both = common::import_logs(dir.path(), &[]);
    assert_eq!(both["totals"]["sessions"], 2, "{both}");
    let toml = short_scenario();
    // The long thread's eight steps each grew the prompt by bytes ÷ 3.
    assert!(toml.contains("\nbytes_per_token = 3"), "{toml}");
    assert!(
        toml.contains("the other threads of this import (family claude-sonnet-4-5)"),
        "{toml}"
    );
    // Its files keep the name they had: the session named first is `main`.
    assert_eq!(both["sessions"][0]["session"], SHORT, "sessions by start");
    let alone = common::import_logs(dir.path(), &["--session", SHORT]);
    assert_eq!(alone["totals"]["sessions"], 1);
    let toml = short_scenario();
    assert!(
        toml.contains("\nbytes_per_token = 4"),
        "the seed's band: {toml}"
    );
    assert!(!toml.contains("other threads of this import"), "{toml}");
}

/// A Claude Code session of 21 tool results of 4,000 bytes each, `Read`
/// (code) and `Bash` (tool output) in turn: a `Read` result grows the next
/// prompt by 1,000 tokens (4 bytes a token), a `Bash` one by 2,000 (2 bytes
/// a token), each beside the 50 output tokens sent back.
fn code_and_output_log(sid: &str) -> String {
    let at = |s: u32| format!("2026-11-20T10:{:02}:{:02}.000Z", s / 60, s % 60);
    let mut lines = vec![
        serde_json::json!({"type": "user", "sessionId": sid, "version": "2.1.126",
        "timestamp": at(0), "message": {"role": "user", "content": "hello"}}),
    ];
    let (mut prompt, mut previous) = (5_000u64, 0u64);
    for k in 1..=21u32 {
        let usage = if k == 1 {
            serde_json::json!({"input_tokens": 10, "cache_creation_input_tokens": prompt - 10,
                "cache_read_input_tokens": 0, "output_tokens": 50})
        } else {
            serde_json::json!({"input_tokens": 10, "cache_creation_input_tokens": prompt - previous,
                "cache_read_input_tokens": previous - 10, "output_tokens": 50})
        };
        let tool = if k % 2 == 1 { "Read" } else { "Bash" };
        lines.push(
            serde_json::json!({"type": "assistant", "sessionId": sid, "version": "2.1.126",
            "timestamp": at(2 * k - 1), "requestId": format!("req_{k}"),
            "message": {"model": "claude-sonnet-4-5", "id": format!("m{k}"), "role": "assistant",
                "content": [{"type": "tool_use", "id": format!("t{k}"), "name": tool, "input": {}}],
                "usage": usage}}),
        );
        lines.push(serde_json::json!({"type": "user", "sessionId": sid, "version": "2.1.126",
            "timestamp": at(2 * k), "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("t{k}"), "content": "x".repeat(4000)}]}}));
        previous = prompt;
        prompt += 50 + if k % 2 == 1 { 1000 } else { 2000 };
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn code_and_tool_output_are_fitted_apart_and_weighed_in_the_replay() {
    let sid = "22222222-3333-4444-5555-666666666666";
    let (dir, _) = imported_with_calibration(&code_and_output_log(sid));
    // Twenty measured steps, ten of each kind: 80,000 bytes over 30,000
    // tokens, pooled 2.6667. Code alone is 4 bytes a token (a weight of
    // 2.6667 ÷ 4 = 0.666675), tool output 2 (1.33335); the mix, 40,000
    // bytes of each, then counts 80,001 bytes of 80,000, so both are scaled
    // by 80,000 ÷ 80,001: 0.66667 → 0.67 and 1.33333 → 1.33. No text was
    // measured: its weight is the scale, 0.99999 → 1.
    let toml = std::fs::read_to_string(dir.path().join(format!("out/{sid}/main.toml"))).unwrap();
    assert!(
        toml.contains("content_weights = { code = 0.67, output = 1.33, text = 1 }"),
        "{toml}"
    );
    assert!(
        toml.contains("code (file contents) 4 (p10 4 / p50 4 / p90 4) on 10 steps; other tool output 2 (p10 2 / p50 2 / p90 2) on 10 steps; text: 0 steps, too few"),
        "{toml}"
    );
    // The trace says which rows are code.
    let csv = std::fs::read_to_string(dir.path().join(format!("out/{sid}/main.csv"))).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let h = reader.headers().unwrap().clone();
    let (cap, content) = (
        h.iter().position(|c| c == "capability").unwrap(),
        h.iter().position(|c| c == "content").unwrap(),
    );
    let rows: Vec<(String, String)> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[cap].to_string(), r[content].to_string())
        })
        .collect();
    assert!(rows.iter().any(|r| r == &("Read".into(), "code".into())));
    assert!(rows.iter().any(|r| r == &("Bash".into(), "output".into())));
    assert!(rows.iter().all(|(c, k)| (c == "Read") == (k == "code")));

    // The replay weighs each kind: the band is 4 (p90) … 2 (p10) bytes a
    // token, so request 2, after the first 4,000 bytes of code, holds
    // 5,000 + 50 + 4,000 × 0.67 ÷ 4 = 5,720 tokens at least and 5,000 +
    // 50 + 4,000 × 0.67 ÷ 2 = 6,390 at most, around the 6,050 recorded.
    let doc = simulate_json(dir.path(), &format!("out/{sid}/main.toml"));
    assert_eq!(
        doc["assumptions"]["content_weights"],
        serde_json::json!({"code": "0.67", "output": "1.33", "text": "1"})
    );
    let second = &doc["backtest"]["requests"][0];
    assert_eq!(
        (second["request"].clone(), second["recorded_prompt"].clone()),
        (2.into(), 6050.into()),
        "{second}"
    );
    assert_eq!(
        common::dec(&second["simulated_prompt"]["lower"]),
        "5720".parse().unwrap()
    );
    assert_eq!(
        common::dec(&second["simulated_prompt"]["upper"]),
        "6390".parse().unwrap()
    );

    // The saved calibration keeps each kind, and a plan written by hand
    // that names it weighs its rows the same way.
    let saved = std::fs::read_to_string(dir.path().join("team.toml")).unwrap();
    assert!(
        saved.contains("[families.claude-sonnet-4-5.kinds.code]"),
        "{saved}"
    );
    let plan = hand_plan(8000, 8000, "content = \"code\"\n");
    std::fs::write(dir.path().join("plan.toml"), plan).unwrap();
    let doc = simulate_json(dir.path(), "plan.toml");
    assert_eq!(
        doc["assumptions"]["content_weights"],
        serde_json::json!({"code": "0.67", "output": "1.33", "text": "1"})
    );
    // 8,000 bytes of code: 8,000 × 0.67 ÷ 4 = 1,340 tokens at least, and
    // twice that at most (uplift 2; the prefix too, as written by hand),
    // after the 1,000-token prefix; at the book's $3 per million input
    // tokens: $0.003 and $0.006 for the first request, then (1,000 +
    // 1,340) × 3 = $0.00702 and (2,000 + 2,680) × 3 = $0.01404.
    assert_eq!(
        doc["variants"][0]["request_costs"],
        serde_json::json!([{"lower": "0.003", "upper": "0.006"}, {"lower": "0.00702", "upper": "0.01404"}]),
    );
    // Every output says how bytes became tokens.
    let text = terminal_words(dir.path(), "plan.toml");
    assert!(
        text.contains("a byte of code counting as 0.67 bytes, of other tool output as 1.33, of text as 1 (content weights)"),
        "{text}"
    );
}

#[test]
fn content_weights_written_in_a_scenario_are_checked_where_they_are_written() {
    for (weights, says) in [
        (
            "{ code = 0.005 }",
            "content_weights.code = 0.005 is outside what tokencast accepts",
        ),
        ("{ text = 11 }", "content_weights.text = 11"),
        ("{ output = 1.125 }", "at most 2 decimals"),
        ("{ prose = 1 }", "unknown field `prose`"),
    ] {
        let dir = sandbox("tests/fixtures");
        edit(
            dir.path(),
            "tiny.toml",
            BAND,
            &format!("{BAND}content_weights = {weights}\n"),
        );
        let (code, err) = run_in(dir.path(), &["simulate", "tiny.toml", "--no-report"]);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains(says) && err.contains("tiny.toml:"),
            "{weights}: {err}"
        );
    }
    // A row's kind that is none of the three is named with its row and column.
    let dir = sandbox("tests/fixtures");
    edit(
        dir.path(),
        "tiny.toml",
        "latency_ms = 900\n",
        "latency_ms = 900\ncontent = \"prose\"\n",
    );
    let (code, err) = run_in(dir.path(), &["simulate", "tiny.toml", "--no-report"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("unknown value `prose`, expected one of `code`, `output`, `text`")
            && err.contains("tiny.toml:55"),
        "{err}"
    );
}

/// The tiny fixture on `claude-fixture` (a Claude model's name, the
/// fixture's prices) with `gpt-5-fixture` in its price book (an o200k
/// model's name: another tokenizer; $2 and $10 per million input and output
/// tokens, no cache) and a raw, uncached variant on it beside the
/// fixture's; `band` in place of the fixture's.
fn with_another_tokenizer(band: &str) -> tempfile::TempDir {
    let dir = sandbox("tests/fixtures");
    let book = dir.path().join("tiny-prices.toml");
    let mut text = std::fs::read_to_string(&book).unwrap();
    let own = text
        .split("[models.fixture-big]")
        .next()
        .unwrap()
        .replace("[models.fixture-model]", "[models.claude-fixture]");
    text.push_str(&format!("\n{own}\n[models.gpt-5-fixture]\nsource = \"another tokenizer\"\nread_on = \"2026-11-30\"\ninput = \"2\"\noutput = \"10\"\n"));
    std::fs::write(&book, text).unwrap();
    edit(dir.path(), "tiny.toml", BAND, band);
    edit(
        dir.path(),
        "tiny.toml",
        "model = \"fixture-model\"\nprices",
        "model = \"claude-fixture\"\nprices",
    );
    edit(
        dir.path(),
        "tiny.toml",
        "[[variants]]\nresults = \"raw\"\ncache = \"none\"\n",
        "[[variants]]\nresults = \"raw\"\ncache = \"none\"\n\n[[variants]]\nname = \"on other\"\nmodel = \"gpt-5-fixture\"\nresults = \"raw\"\ncache = \"none\"\n",
    );
    dir
}

/// The input tokens of the tiny trace's four requests, raw and uncached, at
/// `b` bytes a token and uplift `u` (the prefix uplifted too): 1,000 of
/// prefix, 100 of output a step, after 8,000, 20,000 and 400 bytes.
fn tiny_input(b: i64, u: rust_decimal::Decimal) -> (rust_decimal::Decimal, rust_decimal::Decimal) {
    use rust_decimal::Decimal;
    let bytes = Decimal::from(8000 + 28_000 + 28_400);
    let lower = Decimal::from(4000 + 600) + bytes / Decimal::from(b);
    let upper = u * (Decimal::from(4000) + bytes / Decimal::from(b)) + Decimal::from(600);
    (lower, upper)
}

#[test]
fn a_variant_on_another_tokenizer_takes_the_seeds_band_not_the_scenarios() {
    use rust_decimal::Decimal;
    let dir = with_another_tokenizer("bytes_per_token = 2\ntokenizer_uplift = 1.25\n");
    let doc = simulate_json(dir.path(), "tiny.toml");
    let input = |v: &serde_json::Value| {
        (
            common::dec(&v["cost"]["input"]["lower"]),
            common::dec(&v["cost"]["input"]["upper"]),
        )
    };
    // Input at $2 per million tokens, by hand: 4,600 + 64,400 ÷ b tokens
    // (lower) and u × (4,000 + 64,400 ÷ b) + 600 (upper).
    let usd = |(l, u): (Decimal, Decimal)| {
        (
            l * Decimal::TWO / Decimal::from(1_000_000),
            u * Decimal::TWO / Decimal::from(1_000_000),
        )
    };
    let other = common::variant(&doc, "on other");
    assert_eq!(
        input(other),
        usd(tiny_input(4, Decimal::new(13, 1))),
        "{other}"
    );
    assert_eq!(
        other["tokens"],
        serde_json::json!({"tokenizer": "o200k", "bytes_per_token": "4", "tokenizer_uplift": "1.3"})
    );
    // Its last request at that band: 1,000 + 3 × 100 + 28,400 ÷ 4 = 8,400
    // tokens, and 1.3 × (1,000 + 7,100) + 300 = 10,830 at most.
    assert_eq!(
        other["final_request_input"],
        serde_json::json!({"lower": "8400", "upper": "10830"})
    );
    // The fixture's own model keeps the scenario's band.
    let own = common::variant(&doc, "raw, no cache");
    assert_eq!(
        input(own),
        usd(tiny_input(2, Decimal::new(125, 2))),
        "{own}"
    );
    assert!(own.get("tokens").is_none());
    // The terminal says which band the variant took, and why.
    let text = terminal_words(dir.path(), "tiny.toml");
    assert!(
        text.contains("; on other (another tokenizer, o200k): bytes ÷ 4 (lower), × 1.3 (upper), the seed's band (no calibration of its family)"),
        "{text}"
    );
}

#[test]
fn a_variant_on_another_tokenizer_takes_its_familys_fit_from_the_calibration() {
    use rust_decimal::Decimal;
    let dir = with_another_tokenizer("calibration = \"team.toml\"\n");
    let calibration = CALIBRATION
        .replace("fixture-model", "claude-fixture")
        .replace("other-model", "gpt-5-fixture");
    std::fs::write(dir.path().join("team.toml"), calibration).unwrap();
    let doc = simulate_json(dir.path(), "tiny.toml");
    let other = common::variant(&doc, "on other");
    // `gpt-5-fixture`'s fit: 900 bytes over 300 tokens (pooled 3), p10 2 and
    // p90 4, so the band runs from 4 bytes a token to 2 (uplift 2); no
    // framing a step (the scenario's model's 12 is its own).
    let (lower, upper) = tiny_input(4, Decimal::TWO);
    assert_eq!(lower, Decimal::from(20_700));
    assert_eq!(upper, Decimal::from(40_800));
    let million = Decimal::from(1_000_000);
    assert_eq!(
        common::dec(&other["cost"]["input"]["lower"]),
        lower * Decimal::TWO / million
    );
    assert_eq!(
        common::dec(&other["cost"]["input"]["upper"]),
        upper * Decimal::TWO / million
    );
    assert_eq!(other["tokens"]["estimate_bytes_per_token"], "3");
    assert_eq!(other["tokens"]["step_overhead_tokens"], 0);
    assert_eq!(
        other["tokens"]["calibration"],
        serde_json::json!({"file": "team.toml", "family": "gpt-5-fixture", "steps": 9})
    );
}

#[test]
fn a_forecast_replays_a_variant_on_another_tokenizer_at_its_band() {
    // One recorded result, so every drawn run is that result `calls` times
    // over: the forecast's every percentile is the engine's replay of the
    // same run written out, on each variant at its own band.
    let dir = with_another_tokenizer("bytes_per_token = 2\ntokenizer_uplift = 1.25\n");
    let plan = |rows: usize| {
        let row = "[[trace.calls]]\ncall = 1\ncapability = \"docs/fetch\"\nstatus = 200\nitems = 1\nraw_bytes = 6000\ntrimmed_bytes = 6000\nlatency_ms = 100\ncharged_usd = \"0\"\n\n";
        format!(
            "name = \"plan\"\nquestion = \"?\"\nmodel = \"claude-fixture\"\nprices = \"tiny-prices.toml\"\n\n[trace]\n{}[assumptions]\nprefix_tokens = 1000\noutput_tokens_per_step = 100\nfinal_output_tokens = 400\nbytes_per_token = 2\ntokenizer_uplift = 1.25\nruns_per_day = 1\n\n[[variants]]\nresults = \"raw\"\ncache = \"none\"\n\n[[variants]]\nname = \"on other\"\nmodel = \"gpt-5-fixture\"\nresults = \"raw\"\ncache = \"none\"\n",
            row.repeat(rows)
        )
    };
    std::fs::write(dir.path().join("one.toml"), plan(1)).unwrap();
    std::fs::write(dir.path().join("three.toml"), plan(3)).unwrap();
    let f = common::json_of(common::tokencast().current_dir(dir.path()).args([
        "forecast",
        "one.toml",
        "--calls",
        "3",
        "--runs",
        "200",
        "--format",
        "json",
        "--no-report",
    ]));
    let exact = simulate_json(dir.path(), "three.toml");
    let costs: Vec<(rust_decimal::Decimal, rust_decimal::Decimal)> = (0..2)
        .map(|i| {
            let v = &exact["variants"][i]["cost"];
            (
                common::dec(&v["total"]["lower"]) - common::dec(&v["data_fee"]["lower"]),
                common::dec(&f["variants"][i]["cost_lower"]["p50"]),
            )
        })
        .collect();
    for (engine, forecast) in &costs {
        assert_eq!(engine, forecast, "{costs:?}");
    }
    // By hand, the variant on the o200k model at the seed's 4 bytes a
    // token: 1,000 + (1,100 + 1,500) + (1,200 + 3,000) + (1,300 + 4,500) =
    // 13,600 input tokens and 3 × 100 + 400 = 700 output, at $2 and $10
    // per million: $0.0342.
    assert_eq!(costs[1].0, "0.0342".parse().unwrap());
    assert_ne!(costs[0].0, costs[1].0);
}
