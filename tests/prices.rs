//! `tokencast prices import litellm` on a handful of entries copied from
//! LiteLLM 1.110.2's price table (`tests/fixtures/litellm-slice.json`): each
//! figure checked by hand against the per-token floats, and the book used by
//! a scenario.

mod common;
use common::*;
use std::fs;
use std::path::Path;

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litellm-slice.json")
}

fn convert(extra: &[&str]) -> (String, String) {
    let out = tokencast()
        .args(["prices", "import", "litellm"])
        .arg(fixture())
        .args(["--read-on", "2026-11-30"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn per_token_floats_become_prices_per_million_checked_by_hand() {
    let (book, notes) = convert(&[]);
    let doc: toml::Table = toml::from_str(&book).unwrap();
    let m = |id: &str| doc["models"][id].as_table().unwrap().clone();
    let sonnet = m("claude-sonnet-4-5");
    // 3e-06, 1.5e-05, 3.75e-06, 6e-06, 3e-07, 1.5e-06, 7.5e-06 per token.
    for (key, want) in [
        ("input", "3"),
        ("output", "15"),
        ("cache_write_5m", "3.75"),
        ("cache_write_1h", "6"),
        ("cache_read", "0.3"),
        ("batch_input", "1.5"),
        ("batch_output", "7.5"),
    ] {
        assert_eq!(sonnet[key].as_str(), Some(want), "{key}");
    }
    assert_eq!(sonnet["min_cacheable_tokens"].as_integer(), Some(1024));
    assert_eq!(sonnet["context_window_tokens"].as_integer(), Some(200_000));
    assert_eq!(sonnet["read_on"].as_str(), Some("2026-11-30"));
    // Gemini 2.5 Pro: 1.25e-06 and 1e-05, and above 200k tokens 2.5e-06 and 1.5e-05.
    let gemini = m("gemini/gemini-2.5-pro");
    assert_eq!(gemini["input"].as_str(), Some("1.25"));
    assert_eq!(gemini["cache_read"].as_str(), Some("0.125"));
    let lc = gemini["long_context"][0].as_table().unwrap();
    assert_eq!(lc["threshold_tokens"].as_integer(), Some(200_000));
    assert_eq!(lc["input"].as_str(), Some("2.5"));
    assert_eq!(lc["output"].as_str(), Some("15"));
    // Gemini's tier gives its own cache read (2.5e-07); flex and priority
    // are service tiers with their own prices (6.25e-07/5e-06 and 2.25e-06/1.8e-05).
    assert_eq!(lc["cache_read"].as_str(), Some("0.25"));
    let flex = gemini["services"]["flex"].as_table().unwrap();
    assert_eq!(flex["input"].as_str(), Some("0.625"));
    assert_eq!(flex["output"].as_str(), Some("5"));
    let priority = gemini["services"]["priority"].as_table().unwrap();
    assert_eq!(priority["input"].as_str(), Some("2.25"));
    assert_eq!(priority["output"].as_str(), Some("18"));
    // Google and OpenAI count cached tokens as input and charge no write
    // premium; Anthropic's input excludes them.
    assert_eq!(gemini["input_includes_cache"].as_bool(), Some(true));
    assert_eq!(gemini["cache_write_5m"].as_str(), Some("1.25"));
    assert_eq!(sonnet["input_includes_cache"].as_bool(), Some(false));
    let gpt = m("gpt-4o");
    assert_eq!(gpt["cache_write_5m"], gpt["input"]);
    // OpenAI's automatic cache keeps a prefix 5 to 10 minutes (its prompt
    // caching guide); LiteLLM has no field for it, the converter writes 10.
    assert_eq!(gpt["cache_lifetime_minutes"].as_integer(), Some(10));
    assert!(!gemini.contains_key("cache_lifetime_minutes"));
    assert!(!sonnet.contains_key("cache_lifetime_minutes"));
    // fedramp_uplift_multiplier 1.1 is a region.
    assert_eq!(gpt["regions"]["fedramp"].as_str(), Some("1.1"));
    // Web search: 0.01 per query is $10 per 1,000; Gemini's 0.035 is $35.
    let fee = |id: &str| doc["fees"][format!("{id}/web_search").as_str()]["price"].as_str();
    assert_eq!(fee("claude-sonnet-4-5"), Some("10"));
    assert_eq!(fee("gemini/gemini-2.5-pro"), Some("35"));
    // LiteLLM's combined prices (the 200k tier under flex, priority, batch)
    // are what tokencast derives, so none is listed; fields with no place in
    // the book are, in the file and on stderr.
    assert!(!book.contains("above_200k_tokens_flex"), "{book}");
    for skipped in [
        "google_maps_grounding_cost_per_query",
        "search_free_requests",
    ] {
        assert!(book.contains(skipped), "{skipped} listed in the book");
        assert!(notes.contains(skipped), "{skipped} listed on stderr");
    }
}

#[test]
fn the_shipped_books_load_and_price_first_party_models() {
    // Each book under scenarios/prices/litellm-1.110.2 priced through a
    // one-result scenario: 1,000 prefix tokens + 4,000 bytes (1,000 tokens)
    // of result = 1,000 and 2,000 input tokens; 0 output per step, 1,000 final.
    for (book, model, input_per_m, output_per_m) in [
        ("anthropic.toml", "claude-sonnet-4-5", "3", "15"),
        // Bedrock's US profile of Sonnet 4.5: the list price + 10 %
        // (aws.amazon.com/bedrock/pricing, via LiteLLM).
        (
            "bedrock.toml",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "3.3",
            "16.5",
        ),
        ("openai.toml", "gpt-5", "1.25", "10"),
        ("google.toml", "gemini/gemini-2.5-pro", "1.25", "10"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let scenario = format!(
            r#"name = "shipped"
question = "?"
model = "{model}"
prices = "{}"
[trace]
[[trace.calls]]
capability = "t/x"
status = 200
items = 1
raw_bytes = 4000
trimmed_bytes = 4000
latency_ms = 1
charged_usd = "0"
[assumptions]
prefix_tokens = 1000
output_tokens_per_step = 0
final_output_tokens = 1000
bytes_per_token = 4
tokenizer_uplift = 1
runs_per_day = 1
[[variants]]
results = "raw"
cache = "none"
"#,
            root.join("scenarios/prices/litellm-1.110.2")
                .join(book)
                .display()
        );
        fs::write(dir.path().join("s.toml"), scenario).unwrap();
        let doc = json_of(tokencast().current_dir(dir.path()).args([
            "simulate",
            "s.toml",
            "--format",
            "json",
            "--no-report",
        ]));
        let v = variant(&doc, "raw, no cache");
        // 3,000 input tokens and 1,000 output tokens at the book's prices.
        let want = (dec_of(input_per_m) * rust_decimal::Decimal::from(3000)
            + dec_of(output_per_m) * rust_decimal::Decimal::from(1000))
            / rust_decimal::Decimal::from(1_000_000);
        assert_eq!(
            dec(&v["cost"]["total"]["lower"]),
            want.normalize(),
            "{book}"
        );
    }
}

fn dec_of(s: &str) -> rust_decimal::Decimal {
    s.parse().unwrap()
}

#[test]
fn the_converted_book_prices_the_research_run() {
    let (book, _) = convert(&["--models", "claude-sonnet-*"]);
    assert!(!book.contains("gpt-4o"), "only the matching models");
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    fs::write(dir.path().join("book.toml"), &book).unwrap();
    let scenario = fs::read_to_string(root.join("research.toml"))
        .unwrap()
        .replace(
            "model = \"claude-fable-5-2\"",
            "model = \"claude-sonnet-4-5\"",
        )
        .replace("prices/anthropic.toml", "book.toml")
        .replace(
            "traces/research-trace.csv",
            &root.join("traces/research-trace.csv").display().to_string(),
        );
    // The retry what-if names fable models the converted book does not have.
    let scenario = scenario.split("[retry]").next().unwrap().to_string();
    fs::write(dir.path().join("s.toml"), scenario).unwrap();
    let doc: serde_json::Value = json_of(tokencast().current_dir(dir.path()).args([
        "simulate",
        "s.toml",
        "--format",
        "json",
        "--no-report",
    ]));
    // Published: raw results without a cache cost $10.383 of input at $8/M,
    // so the same tokens at $3/M cost 10.382502 × 3 / 8 = $3.893.
    let v = variant(&doc, "raw, no cache");
    assert_eq!(shown(&v["cost"]["input"]["lower"], 3), "3.893");
}

#[test]
fn an_unknown_pattern_names_the_nearest_models() {
    let out = tokencast()
        .args(["prices", "import", "litellm"])
        .arg(fixture())
        .args(["--models", "gpt-4p"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no model in") && err.contains("did you mean `gpt-4o`?"),
        "{err}"
    );
}

#[test]
fn the_book_is_written_with_a_marker_and_never_over_a_users_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("book.toml");
    fs::write(&path, "# my own prices\n").unwrap();
    let run = |force: bool| {
        let mut cmd = tokencast();
        cmd.args(["prices", "import", "litellm"])
            .arg(fixture())
            .arg("--out")
            .arg(&path);
        if force {
            cmd.arg("--force");
        }
        cmd.output().unwrap()
    };
    assert_eq!(run(false).status.code(), Some(2));
    assert_eq!(fs::read_to_string(&path).unwrap(), "# my own prices\n");
    assert!(run(true).status.success());
    assert!(run(false).status.success(), "its own book is replaced");
    assert!(fs::read_to_string(&path)
        .unwrap()
        .starts_with("# tokencast price book"));
}

/// `prices import litellm table.json --out book.toml` in `dir`, `table`
/// written as `table.json` first.
fn convert_in(dir: &Path, table: &impl serde::Serialize) -> std::process::Output {
    fs::write(
        dir.join("table.json"),
        serde_json::to_string(table).unwrap(),
    )
    .unwrap();
    tokencast()
        .current_dir(dir)
        .args([
            "prices",
            "import",
            "litellm",
            "table.json",
            "--read-on",
            "2026-11-30",
        ])
        .args(["--out", "book.toml"])
        .output()
        .unwrap()
}

#[test]
fn fast_mode_and_the_us_region_come_from_the_provider_specific_entry() {
    // As LiteLLM 1.110.2 lists claude-opus-4-8 (prices per token); a flag
    // that is not a multiplier (`realtime_ga_only`) is no region.
    let table = serde_json::json!({
        "claude-opus-4-8": {
            "litellm_provider": "anthropic",
            "input_cost_per_token": 5e-6,
            "output_cost_per_token": 2.5e-5,
            "cache_creation_input_token_cost": 6.25e-6,
            "cache_read_input_token_cost": 5e-7,
            "provider_specific_entry": {"us": 1.1, "fast": 2.0, "realtime_ga_only": 1}
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let out = convert_in(dir.path(), &table);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let book: toml::Table =
        toml::from_str(&fs::read_to_string(dir.path().join("book.toml")).unwrap()).unwrap();
    let m = &book["models"]["claude-opus-4-8"];
    assert_eq!(m["services"]["fast"]["multiplier"].as_str(), Some("2"));
    assert_eq!(m["regions"].as_table().unwrap().len(), 1);
    assert_eq!(m["regions"]["us"].as_str(), Some("1.1"));
}

#[test]
fn hostile_model_ids_round_trip_through_prices_import_and_simulate() {
    // Issue 25: one odd id made the whole written book unloadable. Each id
    // here is a TOML key that string formatting would have broken.
    let long = "x".repeat(10_000);
    let hostile = [
        "evil\nmodels.\"x\"] = 1",
        "quote\"]#[models.y]",
        "nul\u{0}esc\u{1b}[31m",
        "rtl\u{202e}lmth.exe",
        long.as_str(),
    ];
    let price = serde_json::json!({
        "litellm_provider": "anthropic",
        "input_cost_per_token": 3e-6,
        "output_cost_per_token": 1.5e-5,
        "cache_creation_input_token_cost": 3.75e-6,
        "cache_read_input_token_cost": 3e-7,
    });
    let table: serde_json::Map<String, serde_json::Value> = hostile
        .iter()
        .map(|id| ((*id).to_string(), price.clone()))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let out = convert_in(dir.path(), &table);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // The notes escape what they show: no raw control character reaches the terminal.
    assert!(!err.contains('\u{1b}') && !err.contains('\u{202e}') && !err.contains('\0'));
    let book = fs::read_to_string(dir.path().join("book.toml")).unwrap();
    // Every id a book can hold is a key of it, exactly; the 10,000-character
    // one is past the name limit: left out, and said.
    let parsed: toml::Table = toml::from_str(&book).unwrap();
    let mut keys: Vec<&str> = parsed["models"]
        .as_table()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    let mut want = hostile[..4].to_vec();
    want.sort_unstable();
    assert_eq!(keys, want);
    assert!(err.contains("left out: xxxx"), "{err}");
    assert!(
        !book.contains(long.as_str()),
        "the long id is shortened in its comment"
    );
    // A scenario names one of them (through the TOML serializer) and runs.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let model = toml::Value::String(hostile[1].to_string()).to_string();
    let scenario = fs::read_to_string(root.join("tiny.toml"))
        .unwrap()
        .replace("\"fixture-model\"", &model)
        .replace("\"fixture-big\"", &model)
        .replace("prices = \"tiny-prices.toml\"", "prices = \"book.toml\"");
    fs::write(dir.path().join("s.toml"), scenario).unwrap();
    let doc: serde_json::Value = json_of(tokencast().current_dir(dir.path()).args([
        "simulate",
        "s.toml",
        "--format",
        "json",
        "--no-report",
    ]));
    // Priced from the book under its own id: $3 input, $15 output a million.
    assert_eq!(doc["prices"]["model"], hostile[1]);
    assert_eq!(doc["prices"]["input"], "3");
    assert_eq!(doc["prices"]["output"], "15");
}
