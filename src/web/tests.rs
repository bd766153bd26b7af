//! The page's engine, run natively: changes written into the scenario's
//! text, figures checked by hand, and mistakes explained.

use super::*;

const BOOK: &str = r#"
[models.m]
source = "written for this test"
read_on = "2026-11-30"
input = "2"
output = "10"
cache_write_5m = "2.5"
cache_read = "0.2"
batch_input = "1"
batch_output = "5"
"#;

/// One request before the tool result and one after it; a 4,000-byte result
/// (2,000 bytes trimmed), two variants without a cache.
const SCENARIO: &str = r#"# a hand-checked scenario
name = "hand"
question = "What does one result cost?"
model = "m"
prices = "book.toml"

[trace]
[[trace.calls]]
call = 1
capability = "docs/fetch"
status = 200
items = 1
raw_bytes = 4000
trimmed_bytes = 2000
latency_ms = 1000
charged_usd = "0"

[assumptions]
prefix_tokens = 1000
output_tokens_per_step = 100   # o
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

fn request(changes: &[(&str, &str)]) -> Request {
    Request {
        name: "hand.toml".into(),
        scenario: SCENARIO.into(),
        files: BTreeMap::from([("book.toml".to_string(), BOOK.to_string())]),
        today: Some("2026-12-01".into()),
        all_rows: false,
        figures: vec![
            "/variants/0/cost/total/lower".into(),
            "/variants/1/cost/total/lower".into(),
            "/no/such".into(),
        ],
        changes: changes
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        compared: Vec::new(),
        forecast: None,
        corpus: None,
        import: None,
    }
}

/// The answer's parts, with its figures as the document they point into.
fn ok(a: Answer) -> (String, Option<Headline>, Vec<Block>, serde_json::Value) {
    match a {
        Answer::Ok {
            scenario,
            headline,
            blocks,
            figures,
            ..
        } => {
            assert_eq!(figures["/no/such"], serde_json::Value::Null);
            let mut doc = serde_json::json!({ "variants": [{ "cost": { "total": {} } }, { "cost": { "total": {} } }] });
            for v in 0..2 {
                doc["variants"][v]["cost"]["total"]["lower"] =
                    figures[&format!("/variants/{v}/cost/total/lower")].clone();
            }
            (scenario, headline, blocks, doc)
        }
        Answer::Invalid { message, .. } => panic!("expected figures, got: {message}"),
    }
}

fn invalid(a: Answer) -> String {
    match a {
        Answer::Invalid { message, .. } => message,
        Answer::Ok { .. } => panic!("expected an error"),
    }
}

fn total(doc: &serde_json::Value, variant: usize) -> rust_decimal::Decimal {
    let text = doc
        .pointer(&format!("/variants/{variant}/cost/total/lower"))
        .and_then(|v| v.as_str())
        .expect("a variant's total");
    text.parse().expect("a decimal")
}

fn dec(s: &str) -> rust_decimal::Decimal {
    s.parse().unwrap()
}

#[test]
fn unchanged_figures_are_the_hand_computed_ones() {
    let (text, headline, _, doc) = ok(run(&request(&[])));
    assert_eq!(text, SCENARIO);
    // Raw: input 1,000 + (1,000 + 100 + 4,000 ÷ 4) = 3,100 tokens × $2/M,
    // output 100 + 400 = 500 tokens × $10/M: $0.0062 + $0.005.
    assert_eq!(total(&doc, 0), dec("0.0112"));
    // Trimmed: input 1,000 + (1,000 + 100 + 500) = 2,600 tokens × $2/M.
    assert_eq!(total(&doc, 1), dec("0.0102"));
    let h = headline.expect("two variants give an answer");
    assert_eq!(h.saving, "$0.001");
    assert_eq!(h.runs_per_day, "10");
    assert_eq!(h.saving_per_day, "$0.01");
}

#[test]
fn a_change_is_written_into_the_text_and_priced() {
    let (text, headline, _, doc) = ok(run(&request(&[
        ("assumptions.output_tokens_per_step", "200"),
        ("assumptions.runs_per_day", "300"),
    ])));
    // The comment after the value stays.
    assert!(
        text.contains("output_tokens_per_step = 200   # o\n"),
        "{text}"
    );
    assert!(text.contains("runs_per_day = 300\n"), "{text}");
    assert!(text.starts_with("# a hand-checked scenario\n"));
    // Raw: input 1,000 + 2,200 = 3,200 × $2/M = $0.0064; output 600 × $10/M.
    assert_eq!(total(&doc, 0), dec("0.0124"));
    // Trimmed: input 1,000 + 1,700 = 2,700 × $2/M = $0.0054, plus $0.006.
    assert_eq!(total(&doc, 1), dec("0.0114"));
    let h = headline.unwrap();
    assert_eq!(h.runs_per_day, "300");
    // $0.001 a run × 300.
    assert_eq!(h.saving_per_day, "$0.30");
}

#[test]
fn a_variants_key_is_counted_from_zero_and_takes_a_string() {
    let mut req = request(&[("variants.1.cache", "5m")]);
    req.figures = vec!["/variants/0/cache".into(), "/variants/1/cache".into()];
    let Answer::Ok {
        scenario: text,
        blocks,
        figures,
        ..
    } = run(&req)
    else {
        panic!("expected figures")
    };
    assert_eq!(text.matches("cache = \"5m\"").count(), 1, "{text}");
    assert_eq!(figures["/variants/1/cache"], "5m");
    assert_eq!(figures["/variants/0/cache"], "none");
    let variants = blocks
        .iter()
        .find(|b| b.id.as_deref() == Some("variants"))
        .and_then(|b| b.table.as_ref())
        .expect("the variants table");
    assert!(variants
        .header
        .iter()
        .any(|c| c.text == "trimmed, 5-min cache"));
}

#[test]
fn a_new_key_is_added_where_the_scenario_names_it() {
    let mut req = request(&[("variants.0.mode", "batch")]);
    req.figures = vec!["/variants/0/mode".into()];
    let Answer::Ok {
        scenario: text,
        figures,
        ..
    } = run(&req)
    else {
        panic!("expected figures")
    };
    assert!(text.contains("mode = \"batch\""), "{text}");
    assert_eq!(figures["/variants/0/mode"], "batch");
}

#[test]
fn a_change_of_the_wrong_type_names_the_key() {
    let m = invalid(run(&request(&[("assumptions.runs_per_day", "many")])));
    assert!(m.contains("assumptions.runs_per_day = many"), "{m}");
    assert!(m.contains("is not a number"), "{m}");
    // A decimal where the scenario wants a whole number: the check says so.
    let m = invalid(run(&request(&[("assumptions.runs_per_day", "2.5")])));
    assert!(m.contains("runs_per_day"), "{m}");
    // A decimal where one is allowed is written as one.
    let (text, _, _, _) = ok(run(&request(&[("assumptions.tokenizer_uplift", "1.5")])));
    assert!(text.contains("tokenizer_uplift = 1.5\n"), "{text}");
    let m = invalid(run(&request(&[("variants.5.cache", "1h")])));
    assert!(m.contains("has 2 entries, counted from 0"), "{m}");
}

#[test]
fn a_value_the_scenario_refuses_is_explained_where_it_is() {
    let m = invalid(run(&request(&[("assumptions.bytes_per_token", "0")])));
    assert!(m.contains("bytes_per_token"), "{m}");
    assert!(m.contains("hand.toml"), "{m}");
    let m = invalid(run(&request(&[("model", "no-such-model")])));
    assert!(m.contains("no-such-model"), "{m}");
}

/// Sends `msg` through one exported function and parses its answer.
fn through(f: unsafe extern "C" fn(*mut u8, usize) -> usize, msg: &[u8]) -> serde_json::Value {
    let ptr = tc_alloc(msg.len());
    // SAFETY: `ptr` is a fresh allocation of `msg.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(msg.as_ptr(), ptr, msg.len()) };
    // SAFETY: the allocation is passed back once, with its length.
    let n = unsafe { f(ptr, msg.len()) };
    // SAFETY: the answer stays until the next call.
    let out = unsafe { std::slice::from_raw_parts(tc_output(), n) };
    serde_json::from_slice(out).unwrap()
}

#[test]
fn the_exported_functions_load_once_and_answer_each_change() {
    let change = serde_json::to_vec(&Change {
        changes: BTreeMap::from([("assumptions.runs_per_day".into(), "20".into())]),
        figures: vec!["/assumptions/runs_per_day".into()],
    })
    .unwrap();
    let before = through(tc_run, &change);
    assert_eq!(before["status"], "invalid");
    assert!(before["message"]
        .as_str()
        .unwrap()
        .contains("tc_load comes first"));

    let loaded = through(tc_load, &serde_json::to_vec(&request(&[])).unwrap());
    assert_eq!(loaded["status"], "ok");
    assert_eq!(loaded["headline"]["runs_per_day"], "10");
    let answer = through(tc_run, &change);
    assert_eq!(answer["status"], "ok", "{answer}");
    assert_eq!(answer["headline"]["runs_per_day"], "20");
    assert_eq!(answer["figures"]["/assumptions/runs_per_day"], 20);
    // A change replaces the previous one rather than adding to it.
    let answer = through(tc_run, br#"{"changes": {}}"#);
    assert_eq!(answer["headline"]["runs_per_day"], "10");

    let answer = through(tc_run, b"{not json");
    assert_eq!(answer["status"], "invalid");
    assert!(answer["message"].as_str().unwrap().contains("not valid"));
}

#[test]
fn a_session_reads_its_trace_once_and_answers_as_a_fresh_run() {
    let csv =
        "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed\n\
               1,docs/fetch,200,1,4000,2000,1000,0,false\n";
    let inline =
        &SCENARIO[SCENARIO.find("[trace]").unwrap()..SCENARIO.find("[assumptions]").unwrap()];
    let scenario = SCENARIO.replace(inline, "[trace]\nfile = \"t.csv\"\n\n");
    let mut req = request(&[]);
    req.scenario = scenario;
    req.files.insert("t.csv".into(), csv.into());
    let (mut session, first) = Session::load(req.clone());
    assert_eq!(first, run(&req));
    assert_eq!(session.trace.as_ref().map(|t| t.rel()), Some("t.csv"));
    let change = Change {
        changes: BTreeMap::from([("assumptions.output_tokens_per_step".into(), "200".into())]),
        figures: req.figures.clone(),
    };
    let cached = session.answer(change.clone());
    req.changes = change.changes;
    assert_eq!(cached, run(&req));
    // The hand-computed raw total of `a_change_is_written_into_the_text_and_priced`.
    let (_, _, _, doc) = ok(cached);
    assert_eq!(total(&doc, 0), dec("0.0124"));
}

#[test]
fn the_charts_are_drawn_again_for_the_change() {
    let charts = |a: Answer| match a {
        Answer::Ok { charts, .. } => charts,
        Answer::Invalid { message, .. } => panic!("{message}"),
    };
    let before = charts(run(&request(&[])));
    let after = charts(run(&request(&[(
        "assumptions.output_tokens_per_step",
        "200",
    )])));
    assert!(!before.is_empty());
    assert_eq!(before.len(), after.len());
    let variants = |cs: &[ChartView]| {
        cs.iter()
            .find(|c| c.id == "chart-variants")
            .and_then(|c| c.svg.clone())
            .expect("the cost-per-variant chart is drawn")
    };
    assert!(variants(&before).starts_with("<svg"));
    // More output per step costs more: the bars are drawn again.
    assert_ne!(variants(&before), variants(&after));
}

#[test]
fn compared_models_are_ranked_again_at_every_change() {
    // A model at twice m's prices and no cache: every variant costs 2 ×.
    let double = tokencast_core::pricing::ModelPrices {
        model: "m2".into(),
        input: dec("4"),
        output: dec("20"),
        ..Default::default()
    };
    let at = "/models/models/0/total/lower";
    let figure = |changes: &[(&str, &str)]| {
        let mut req = request(changes);
        req.compared = vec![double.clone()];
        req.figures = vec![at.into(), "/models/models/0/cheapest".into()];
        match run(&req) {
            Answer::Ok {
                figures, blocks, ..
            } => {
                assert!(blocks.iter().any(|b| b.id.as_deref() == Some("models")));
                assert_eq!(figures["/models/models/0/cheapest"], "trimmed, no cache");
                dec(figures[at].as_str().unwrap())
            }
            Answer::Invalid { message, .. } => panic!("{message}"),
        }
    };
    // Trimmed on m: $0.0102 (above); on m2 twice that.
    assert_eq!(figure(&[]), dec("0.0204"));
    // 200 output tokens a step: trimmed input 1,000 + (1,000 + 200 + 500) =
    // 2,700 tokens × $2/M, output 600 × $10/M = $0.0114 on m; × 2 on m2.
    assert_eq!(
        figure(&[("assumptions.output_tokens_per_step", "200")]),
        dec("0.0228")
    );
}

#[test]
fn a_calibration_the_scenario_names_is_read_from_the_page_and_can_be_overridden() {
    // 8,000 bytes over 4,000 tokens: 2 bytes a token; p10 1.6, p90 2.5, no
    // framing. The band's lower bound is bytes ÷ 2.5.
    let calibration = "[families.m]\nsteps = 20\nbytes = 8000\ntokens = 4000\noverhead = 0\np10 = \"1.6\"\np50 = \"2\"\np90 = \"2.5\"\n";
    let mut req = request(&[]);
    req.scenario = SCENARIO.replace(
        "bytes_per_token = 4\ntokenizer_uplift = 1.25\n",
        "calibration = \"cal.toml\"\n",
    );
    req.files.insert("cal.toml".into(), calibration.into());
    let (_, _, _, doc) = ok(run(&req));
    // Raw: input 1,000 + (1,000 + 100 + 4,000 ÷ 2.5) = 3,700 tokens × $2/M,
    // output 500 tokens × $10/M: $0.0074 + $0.005.
    assert_eq!(total(&doc, 0), dec("0.0124"));
    // Trimmed: 1,000 + (1,000 + 100 + 2,000 ÷ 2.5) = 2,900 tokens × $2/M.
    assert_eq!(total(&doc, 1), dec("0.0108"));
    // The reader's bytes per token takes the calibration's place.
    req.changes = [("assumptions.bytes_per_token".to_string(), "4".to_string())].into();
    let (text, _, _, doc) = ok(run(&req));
    assert!(text.contains("calibration = \"cal.toml\"\n"), "{text}");
    assert_eq!(total(&doc, 0), dec("0.0112"));
    // Without its file, the page says which file is missing.
    req.files.remove("cal.toml");
    let why = invalid(run(&req));
    assert!(why.contains("cal.toml"), "{why}");
}

#[test]
fn a_list_control_writes_a_toml_array() {
    let mut root: toml_edit::DocumentMut =
        "[context_management]\nthresholds = [1]\n".parse().unwrap();
    set(
        root.as_table_mut(),
        "context_management.thresholds",
        "60000, 90000",
    )
    .unwrap();
    assert_eq!(
        root.to_string(),
        "[context_management]\nthresholds = [60000, 90000]\n"
    );
    set(root.as_table_mut(), "context_management.thresholds", "").unwrap();
    assert_eq!(root.to_string(), "[context_management]\nthresholds = []\n");
    let why = set(
        root.as_table_mut(),
        "context_management.thresholds",
        "6e4x, 1",
    )
    .unwrap_err();
    assert!(why.contains("`6e4x` in `6e4x, 1` is not a number"), "{why}");
}

#[test]
fn a_share_replaces_a_number_of_bytes_as_text() {
    let mut root: toml_edit::DocumentMut = "[assumptions]\ntrim = 4096\n".parse().unwrap();
    set(root.as_table_mut(), "assumptions.trim", "25%").unwrap();
    assert_eq!(root.to_string(), "[assumptions]\ntrim = \"25%\"\n");
    set(root.as_table_mut(), "assumptions.trim", "1000").unwrap();
    assert_eq!(root.to_string(), "[assumptions]\ntrim = \"1000\"\n");
}

/// A forecast page's request: runs of two calls, each the one recorded
/// result (a bootstrap of one call draws it every time).
fn forecast_request(changes: &[(&str, &str)]) -> Request {
    Request {
        figures: vec![
            "/variants/0/cost_lower/p50".into(),
            "/variants/0/cost_upper/p99".into(),
            "/variants/1/cost_lower/mean".into(),
        ],
        forecast: Some(ForecastRun {
            spec: tokencast_core::analysis::forecast::ForecastSpec {
                calls: 2,
                runs: 50,
                seed: 1,
                method: tokencast_core::analysis::forecast::Method::Bootstrap,
                budget: None,
            },
            capabilities: Vec::new(),
        }),
        ..request(changes)
    }
}

#[test]
fn a_forecast_page_draws_the_same_runs_again_with_the_change() {
    let figures = |a: Answer| match a {
        Answer::Ok {
            figures,
            blocks,
            charts,
            headline,
            ..
        } => {
            assert!(headline.is_none());
            let ids: Vec<_> = blocks.iter().filter_map(|b| b.id.clone()).collect();
            assert_eq!(
                ids,
                [
                    "answer",
                    "forecast_variants",
                    "forecast_context",
                    "forecast_fan",
                    "forecast_capabilities"
                ]
            );
            // The fan and one histogram per variant, each drawn wide and narrow.
            assert_eq!(charts.len(), 3);
            assert!(charts.iter().all(|c| c.svg.is_some() && c.narrow.is_some()));
            figures
        }
        Answer::Invalid { message, .. } => panic!("expected figures, got: {message}"),
    };
    // Every run is the same three requests. Raw, lower bound: input 1,000 +
    // (1,000 + 100 + 1,000) + (1,000 + 200 + 2,000) = 6,300 tokens × $2/M,
    // output 2 × 100 + 400 = 600 × $10/M: $0.0126 + $0.006 = $0.0186.
    // Upper: the prefix and results × 1.25: 7,800 tokens: $0.0216.
    // Trimmed (500 tokens a result): 4,800 tokens: $0.0096 + $0.006.
    let f = figures(run(&forecast_request(&[])));
    assert_eq!(f["/variants/0/cost_lower/p50"], "0.0186");
    assert_eq!(f["/variants/0/cost_upper/p99"], "0.0216");
    assert_eq!(f["/variants/1/cost_lower/mean"], "0.0156");
    // At 2 bytes a token a result is 2,000 tokens: 9,300 input tokens,
    // $0.0186 + $0.006 = $0.0246.
    let f = figures(run(&forecast_request(&[(
        "assumptions.bytes_per_token",
        "2",
    )])));
    assert_eq!(f["/variants/0/cost_lower/p50"], "0.0246");
}

/// A corpus forecast's page over two sessions of one kind, costing $1 and
/// $3 a run (one variant, exact bounds).
fn corpus_request(changes: &[(&str, &str)]) -> Request {
    use tokencast_core::analysis::corpus::{Corpus, CorpusSpec, Recorded};
    use tokencast_core::document::corpus::SessionCost;
    use tokencast_core::engine::Bounds;
    let session = |name: &str, usd: i64| SessionCost {
        name: name.into(),
        kind: 0,
        cost: vec![Bounds::exact(rust_decimal::Decimal::from(usd))],
    };
    Request {
        name: "forecast".into(),
        scenario: String::new(),
        files: BTreeMap::new(),
        figures: vec![
            "/variants/0/run/percentiles/0/upper/value".into(),
            "/variants/0/day/runs".into(),
            "/variants/0/day/percentiles/0/upper/value".into(),
            "/variants/0/day/percentiles/2/upper/value".into(),
            "/answer/runs_per_month".into(),
        ],
        import: None,
        corpus: Some(CorpusRun {
            corpus: Corpus {
                recorded: Recorded {
                    kinds: vec!["imported".into()],
                    variants: vec!["as recorded".into()],
                    sessions: vec![session("a", 1), session("b", 3)],
                },
                left_out: Vec::new(),
                currency: tokencast_core::pricing::Currency::usd(),
                price_date: None,
                inputs: Vec::new(),
                sessions_left_out: Vec::new(),
            },
            spec: CorpusSpec::checked(100, 2, 7, 1).unwrap(),
            command: [
                "tokencast",
                "forecast",
                "my sessions/",
                "--runs",
                "100",
                "--seed",
                "1",
            ]
            .map(String::from)
            .to_vec(),
        }),
        ..request(changes)
    }
}

#[test]
fn a_corpus_forecast_page_forecasts_the_sessions_again_at_other_runs_a_day() {
    let answer = |changes: &[(&str, &str)]| match run(&corpus_request(changes)) {
        Answer::Ok {
            figures,
            scenario,
            question,
            charts,
            ..
        } => {
            assert_eq!(charts.len(), 1);
            let number = |p: &str| -> rust_decimal::Decimal {
                match &figures[p] {
                    serde_json::Value::String(s) => s.parse().unwrap(),
                    v => v.to_string().parse().unwrap(),
                }
            };
            let f: Vec<_> = [
                "/variants/0/run/percentiles/0/upper/value",
                "/variants/0/day/runs",
                "/variants/0/day/percentiles/2/upper/value",
                "/answer/runs_per_month",
            ]
            .iter()
            .map(|p| number(p))
            .collect();
            (
                f,
                scenario,
                question.unwrap(),
                number("/variants/0/day/percentiles/0/upper/value"),
            )
        }
        Answer::Invalid { message, .. } => panic!("expected figures, got: {message}"),
    };
    // A run is one of the two sessions: the median run costs $1 (the
    // nearest rank: half the sessions cost $1). A day of 2 runs costs $2,
    // $4 or $6 (a quarter, a half, a quarter): its median is $4, and in
    // 100 days one costs $6 (missed with chance 0.75¹⁰⁰). A month: 2 runs ×
    // 7 days × 52 ÷ 12 = 60.67, rounded: 61 runs.
    let (f, command, question, day_p50) = answer(&[]);
    assert_eq!(f, [dec("1"), dec("2"), dec("6"), dec("61")]);
    assert_eq!(day_p50, dec("4"));
    assert_eq!(
        command,
        "tokencast forecast 'my sessions/' --runs 100 --seed 1 --runs-per-day 2 --working-days 7\n"
    );
    assert!(
        question.starts_with("What do 2 runs a day cost"),
        "{question}"
    );
    // 3 runs a day, 5 days a week: a day costs $3 to $9, and in 100 days
    // one costs $9 (missed with chance (7/8)¹⁰⁰); a month is 3 × 5 × 52 ÷ 12
    // = 65 runs.
    let (f, command, question, _) =
        answer(&[("runs_per_day", "3"), ("working_days_per_week", "5")]);
    assert_eq!(f, [dec("1"), dec("3"), dec("9"), dec("65")]);
    assert!(
        command.ends_with("--runs-per-day 3 --working-days 5\n"),
        "{command}"
    );
    assert!(
        question.starts_with("What do 3 runs a day cost"),
        "{question}"
    );
    // Out of range, or not a setting: explained as the command line would.
    let message = invalid(run(&corpus_request(&[("working_days_per_week", "8")])));
    assert!(message.contains("--working-days 8"), "{message}");
    assert!(message.contains("1 to 7"), "{message}");
    let message = invalid(run(&corpus_request(&[("runs_per_day", "many")])));
    assert!(message.contains("not a whole number"), "{message}");
    let message = invalid(run(&corpus_request(&[("model", "m")])));
    assert!(message.contains("no such setting"), "{message}");
}

/// The variant the page adds after "as recorded" to a thread's scenario.
fn added_variant(
    toml: &str,
    what_if: &tokencast_core::scenario::combined::WhatIfVariant,
    on: Option<&tokencast_core::pricing::ModelPrices>,
) -> toml_edit::Table {
    let doc: toml_edit::DocumentMut = with_import_variant(toml, what_if, on)
        .unwrap()
        .parse()
        .unwrap();
    doc["variants"]
        .as_array_of_tables()
        .unwrap()
        .get(1)
        .unwrap()
        .clone()
}

/// A model priced with a 5-minute cache: $1 in, $2 out, $1.25 written,
/// $0.10 read per million tokens.
fn cached_model(model: &str) -> tokencast_core::pricing::ModelPrices {
    tokencast_core::pricing::ModelPrices {
        model: model.into(),
        input: dec("1"),
        output: dec("2"),
        cache_write_5m: Some(dec("1.25")),
        cache_read: Some(dec("0.1")),
        ..tokencast_core::pricing::ModelPrices::default()
    }
}

#[test]
fn a_what_if_on_the_threads_own_models_keeps_what_the_import_fitted_for_them() {
    // An imported thread's variants: what the import fitted for its own
    // models sits on "as recorded".
    let toml = r#"name = "t"
model = "m"

[[variants]]
name = "as recorded"
results = "raw"
cache = "5m"
recorded_models = true
turn_break_share = 0.5
warm_prefix_share = 0
survived_expiry_share = 0.25
"#;
    let what_if = |model: Option<&str>| tokencast_core::scenario::combined::WhatIfVariant {
        name: "what if".into(),
        results: tokencast_core::scenario::Content::Trimmed,
        cache: None,
        mode: tokencast_core::pricing::Mode::Sync,
        model: model.map(str::to_string),
        service: None,
    };
    let add = |on: Option<&tokencast_core::pricing::ModelPrices>| {
        added_variant(toml, &what_if(on.map(|m| m.model.as_str())), on)
    };
    let added = add(None);
    assert_eq!(added["name"].as_str(), Some("what if"));
    assert_eq!(added["cache"].as_str(), Some("5m"));
    assert_eq!(added["recorded_models"].as_bool(), Some(true));
    assert_eq!(added["turn_break_share"].as_float(), Some(0.5));
    assert_eq!(added["warm_prefix_share"].as_integer(), Some(0));
    assert_eq!(added["survived_expiry_share"].as_float(), Some(0.25));
    assert!(added.get("cache_hit_share").is_none());
    // On another model, none of them: they were fitted for the thread's.
    let other = cached_model("o");
    let moved = add(Some(&other));
    assert_eq!(moved["model"].as_str(), Some("o"));
    for k in tokencast_core::scenario::combined::OWN_MODEL_KEYS {
        assert!(moved.get(k).is_none(), "{k} on another model");
    }
}

#[test]
fn a_what_if_naming_the_one_model_a_thread_ran_on_stays_on_it() {
    // Naming the one model a thread ran on changes nothing, so the what-if keeps
    // what the import fitted for it. A thread of two models (recorded
    // models) is moved onto the one named, without those keys.
    let one = "name = \"t\"\nmodel = \"m\"\n\n[[variants]]\nname = \"as recorded\"\nresults = \"raw\"\ncache = \"5m\"\nsurvived_expiry_share = 0.25\n";
    let two = one.replace(
        "cache = \"5m\"\n",
        "cache = \"5m\"\nrecorded_models = true\n",
    );
    let m = cached_model("m");
    let what_if = tokencast_core::scenario::combined::WhatIfVariant {
        name: "what if".into(),
        results: tokencast_core::scenario::Content::Raw,
        cache: None,
        mode: tokencast_core::pricing::Mode::Sync,
        model: Some("m".into()),
        service: None,
    };
    let added = |toml: &str| added_variant(toml, &what_if, Some(&m));
    let stays = added(one);
    assert_eq!(stays["survived_expiry_share"].as_float(), Some(0.25));
    assert!(stays.get("model").is_none());
    assert_eq!(stays["cache"].as_str(), Some("5m"));
    let moved = added(&two);
    assert_eq!(moved["model"].as_str(), Some("m"));
    for k in tokencast_core::scenario::combined::OWN_MODEL_KEYS {
        assert!(moved.get(k).is_none(), "{k} on a thread of two models");
    }
}
