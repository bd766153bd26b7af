//! Every published figure of seed 003 (DOMAIN.md), reproduced by the real CLI
//! on `scenarios/research.toml`. Expected values are copied from DOMAIN.md.

mod common;
use common::*;

#[test]
fn final_request_input_tokens_match_the_seed() {
    let doc = research_json();
    let raw = &profile(&doc, "raw")["final_request_input"];
    let trimmed = &profile(&doc, "trimmed")["final_request_input"];
    assert_eq!(shown(&raw["lower"], 0), "160627");
    assert_eq!(shown(&raw["upper"], 0), "206115");
    assert_eq!(shown(&trimmed["lower"], 0), "44042");
    assert_eq!(shown(&trimmed["upper"], 0), "54555");
}

#[test]
fn model_input_costs_match_the_seed() {
    let doc = research_json();
    let input = |name: &str| variant(&doc, name)["cost"]["input"].clone();
    assert_eq!(shown(&input("raw, no cache")["lower"], 3), "10.383");
    assert_eq!(shown(&input("trimmed, no cache")["lower"], 3), "3.230");
    assert_eq!(shown(&input("raw, 5-min cache")["lower"], 3), "1.834");
    assert_eq!(shown(&input("trimmed, 5-min cache")["lower"], 3), "0.512");
    assert_eq!(shown(&input("raw, 5-min cache")["upper"], 3), "2.352");
    assert_eq!(shown(&input("trimmed, 5-min cache")["upper"], 3), "0.634");
}

#[test]
fn output_data_fee_and_totals_match_the_seed() {
    let doc = research_json();
    for name in ["raw, 5-min cache", "trimmed, 5-min cache"] {
        let c = &variant(&doc, name)["cost"];
        assert_eq!(shown(&c["output"]["lower"], 3), "0.440");
        assert_eq!(shown(&c["data_fee"]["lower"], 4), "0.0169");
    }
    assert_eq!(
        shown(
            &variant(&doc, "raw, 5-min cache")["cost"]["total"]["lower"],
            3
        ),
        "2.291"
    );
    assert_eq!(
        shown(
            &variant(&doc, "trimmed, 5-min cache")["cost"]["total"]["lower"],
            3
        ),
        "0.969"
    );
}

#[test]
fn hundred_runs_a_day_match_the_seed() {
    let doc = research_json();
    let raw = &variant(&doc, "raw, no cache")["per_day"];
    let cached = &variant(&doc, "trimmed, 5-min cache")["per_day"];
    assert_eq!(shown(&raw["input"]["lower"], 2), "1038.25");
    assert_eq!(shown(&cached["input"]["lower"], 2), "51.24");
    assert_eq!(shown(&raw["output"]["lower"], 2), "44.00");
    assert_eq!(shown(&cached["output"]["lower"], 2), "44.00");
    assert_eq!(shown(&raw["data_fee"]["lower"], 2), "1.69");
    assert_eq!(shown(&raw["total"]["lower"], 2), "1083.94");
    assert_eq!(shown(&cached["total"]["lower"], 2), "96.93");
}

#[test]
fn per_result_attribution_matches_the_seed() {
    let doc = research_json();
    let names: Vec<String> = doc["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap().to_string())
        .collect();
    let no_cache = names.iter().position(|n| n == "raw, no cache").unwrap();
    let cached = names.iter().position(|n| n == "raw, 5-min cache").unwrap();
    // call, raw KB, resent, no cache, 5-min cache (DOMAIN.md)
    let expected = [
        (5, "35.2", 14, "0.99", "0.11"),
        (9, "72.7", 10, "1.45", "0.21"),
        (12, "98.8", 7, "1.38", "0.28"),
        (18, "101.6", 1, "0.20", "0.25"),
    ];
    for (call, kb, resent, none, five) in expected {
        let row = doc["attribution"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["call"] == call)
            .unwrap();
        let bytes = rust_decimal::Decimal::from(row["raw_bytes"].as_u64().unwrap());
        let kb_shown = (bytes / rust_decimal::Decimal::from(1000))
            .round_dp_with_strategy(1, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
        assert_eq!(kb_shown.to_string(), kb, "call {call}");
        assert_eq!(row["resends"], resent, "call {call}");
        assert_eq!(
            shown(&row["cost"][no_cache]["lower"], 2),
            none,
            "call {call}"
        );
        assert_eq!(shown(&row["cost"][cached]["lower"], 2), five, "call {call}");
    }
}

#[test]
fn per_capability_figures_match_the_seed() {
    let doc = research_json();
    // capability, calls, items, mean raw B, mean trimmed B, median latency s
    let expected = [
        ("reddit/search", 6, 96, "56895", "8955", 5.6),
        ("trustpilot/reviews", 7, 143, "24297", "7733", 10.1),
        ("youtube/search", 2, 20, "26933", "2002", 7.7),
        ("youtube/comments", 3, 76, "9732", "5436", 16.6),
    ];
    let caps = doc["capabilities"].as_array().unwrap();
    assert_eq!(caps.len(), 4);
    for (cap, calls, items, raw, trimmed, latency) in expected {
        let c = caps.iter().find(|c| c["capability"] == cap).unwrap();
        assert_eq!(c["calls"], calls, "{cap}");
        assert_eq!(c["items"], items, "{cap}");
        assert_eq!(shown(&c["mean_raw_bytes"], 0), raw, "{cap}");
        assert_eq!(shown(&c["mean_trimmed_bytes"], 0), trimmed, "{cap}");
        let secs = c["median_latency_ms"].as_f64().unwrap() / 1000.0;
        assert!((secs - latency).abs() < 0.05, "{cap}: {secs}");
    }
    let median = doc["ledger"]["median_latency_with_data_ms"]
        .as_f64()
        .unwrap();
    assert!((median / 1000.0 - 9.2).abs() < 0.05, "{median}");
}

#[test]
fn ledger_skips_the_replay_and_uncharged_responses() {
    let doc = research_json();
    let l = &doc["ledger"];
    assert_eq!(l["requests"], 20);
    assert_eq!(l["replays_skipped"], 1);
    assert_eq!(l["errors"], 1);
    // 5 reddit × 0.000792 + 7 trustpilot × 0.00138889 + 2 × 0.000778 + 3 × 0.000556
    assert_eq!(dec(&l["total_usd"]).to_string(), "0.01690623");
    assert_eq!(l["charged"], 17);
}

#[test]
fn raw_and_trimmed_totals_match_the_seed() {
    let doc = research_json();
    // 594.5 KB raw → 128.2 KB trimmed (−78 %)
    let raw = profile(&doc, "raw")["result_bytes"].as_u64().unwrap();
    let trimmed = profile(&doc, "trimmed")["result_bytes"].as_u64().unwrap();
    assert_eq!(format!("{:.1}", raw as f64 / 1000.0), "594.5");
    assert_eq!(format!("{:.1}", trimmed as f64 / 1000.0), "128.2");
    assert_eq!(((1.0 - trimmed as f64 / raw as f64) * 100.0).round(), 78.0);
}

#[test]
fn terminal_tables_print_the_seed_figures() {
    let out = tokencast()
        .args(["simulate", "scenarios/research.toml", "--no-report"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for figure in [
        "$10.383",
        "$3.230",
        "$1.834",
        "$0.512",
        "$2.352",
        "$0.634",
        "160,627",
        "206,115",
        "44,042",
        "54,555",
        "$2.291",
        "$0.969",
        "$0.0169",
        "$1,038.25",
        "$51.24",
        "$1,083.94",
        "$96.93",
    ] {
        assert!(text.contains(figure), "missing {figure} in:\n{text}");
    }
}
