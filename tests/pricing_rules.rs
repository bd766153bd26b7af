//! Every pricing rule of a price book, through the command a user types, on
//! `tests/fixtures/rules/`: round prices and a two-result trace whose three
//! requests carry 1,000, 2,100 and 3,200 input tokens and 100, 100 and 400
//! output tokens. Each expected figure is worked out by hand in its comment.

mod common;
use common::*;
use rust_decimal::Decimal;
use std::fs;
use std::path::Path;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn simulate_json(dir: &Path) -> serde_json::Value {
    let out = tokencast()
        .current_dir(dir)
        .args(["simulate", "rules.toml", "--format", "json", "--no-report"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn fails(dir: &Path, parts: &[&str]) {
    let out = tokencast()
        .current_dir(dir)
        .args(["simulate", "rules.toml", "--no-report"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    for p in parts {
        assert!(err.contains(p), "expected {p:?} in:\n{err}");
    }
}

/// Model cost of one run (input and output, lower bound; both bounds agree here).
fn model_cost(doc: &serde_json::Value, name: &str) -> Decimal {
    let v = variant(doc, name);
    assert_eq!(v["cost"]["total"]["lower"], v["cost"]["total"]["upper"]);
    dec(&v["cost"]["input"]["lower"]) + dec(&v["cost"]["output"]["lower"])
}

#[test]
fn long_context_tiers_reprice_every_class_of_the_request_above_them() {
    let doc = simulate_json(sandbox("tests/fixtures/rules").path());
    // Request 1 (1,000) at the base, request 2 (2,100 > 2,000) in tier 1,
    // request 3 (3,200 > 3,000) in tier 2, output included:
    // input 1,000×2 + 2,100×4 + 3,200×6 = 29,600; output 100×10 + 100×15 + 400×20 = 10,500.
    assert_eq!(model_cost(&doc, "tiers"), d("0.0401"));
    assert_eq!(variant(&doc, "tiers")["long_context_requests"], 2);
    // Thresholds exactly at 2,100 and 3,200: "above" is strict, so request 2
    // stays at the base and request 3 reaches tier 1 only:
    // 1,000×2 + 2,100×2 + 3,200×4 = 19,000; 100×10 + 100×10 + 400×15 = 8,000.
    assert_eq!(model_cost(&doc, "at threshold"), d("0.027"));
    assert_eq!(variant(&doc, "at threshold")["long_context_requests"], 1);
    // One token lower (2,099 and 3,199): both tiers apply, as for `tiers`.
    assert_eq!(model_cost(&doc, "below threshold"), d("0.0401"));
    // Cached: the tiers keep the 1.25× write and 0.1× read ratios of their
    // input price. Request 1 writes 1,000 × 2.5; request 2 (tier 1) writes
    // 1,100 × 5 and reads 1,000 × 0.4; request 3 (tier 2) writes 1,100 × 7.5
    // and reads 2,100 × 0.6: 2,500 + 5,900 + 9,510 = 17,910; output 10,500.
    assert_eq!(model_cost(&doc, "tiers, cached"), d("0.02841"));
}

#[test]
fn service_tiers_and_regions_change_every_price() {
    let doc = simulate_json(sandbox("tests/fixtures/rules").path());
    // Flex has its own prices (input 1, output 5): each tier scales by half:
    // 1,000×1 + 2,100×2 + 3,200×3 = 14,800; 100×5 + 100×7.5 + 400×10 = 5,250.
    assert_eq!(model_cost(&doc, "flex"), d("0.02005"));
    // Fast mode multiplies every price by 6, the US-only region by 1.1.
    assert_eq!(model_cost(&doc, "fast, us-only"), d("0.26466"));
}

#[test]
fn tool_fees_are_charged_per_unit_with_the_container_minimum() {
    let doc = simulate_json(sandbox("tests/fixtures/rules").path());
    // One web search at $10 per 1,000; 2 s of code execution billed as the
    // 5-minute minimum at $0.05 an hour: $0.01 + $0.05 / 12.
    let fees = d("0.01") + d("0.05") / d("12");
    let v = variant(&doc, "tiers");
    assert_eq!(dec(&v["cost"]["tool_fee"]["lower"]), fees.normalize());
    assert_eq!(
        dec(&v["cost"]["total"]["lower"]),
        (d("0.0401") + fees).normalize()
    );
    let lines = doc["tool_fees"].as_array().unwrap();
    assert_eq!(lines.len(), 2);
    let search = lines
        .iter()
        .find(|l| l["fee"]["name"] == "web_search")
        .unwrap();
    assert_eq!(search["calls"], 1);
    assert_eq!(dec(&search["charge"]), d("0.01"));
}

#[test]
fn explicit_cache_storage_is_billed_by_the_hour_and_writes_without_premium() {
    let doc = simulate_json(sandbox("tests/fixtures/rules").path());
    let v = variant(&doc, "stored");
    // The write price equals the input price: request 1 costs what it would
    // uncached. Writes 1,000×2, then 1,100×2 + 1,000×0.5, then 1,100×2 + 2,100×0.5:
    // 2,000 + 2,700 + 3,250 = 7,950; output 6,000.
    assert_eq!(model_cost(&doc, "stored"), d("0.01395"));
    // Held between requests (gaps of 2 s of tool time + 10 s of model time)
    // and for the 5-minute lifetime after the last: 1,000×12 s + 2,100×12 s
    // + 3,200×300 s = 997,200 token-seconds = 277 token-hours, at $1 per
    // million per hour.
    assert_eq!(dec(&v["cost"]["cache_storage"]["lower"]), d("0.000277"));
}

#[test]
fn the_scenario_date_chooses_the_entry_in_force() {
    let dir = sandbox("tests/fixtures/rules");
    let doc = simulate_json(dir.path());
    // 2026-12-31: the entry from 2026-01-01 (input 2, output 10): 18,600.
    assert_eq!(model_cost(&doc, "dated"), d("0.0186"));
    assert_eq!(doc["price_date"]["date"], "2026-12-31");
    assert_eq!(doc["price_date"]["from"], "scenario");
    // 2027-01-01: the entry from that day (input 3, output 12): 6,300×3 + 600×12.
    edit(
        dir.path(),
        "rules.toml",
        "date = \"2026-12-31\"",
        "date = \"2027-01-01\"",
    );
    let doc = simulate_json(dir.path());
    assert_eq!(model_cost(&doc, "dated"), d("0.0261"));
    // Before the first entry there is no price: an error naming its start.
    edit(
        dir.path(),
        "rules.toml",
        "date = \"2027-01-01\"",
        "date = \"2025-12-31\"",
    );
    fails(
        dir.path(),
        &["no price in force on 2025-12-31", "2026-01-01"],
    );
}

#[test]
fn without_a_date_today_chooses_and_is_printed() {
    let dir = sandbox("tests/fixtures/rules");
    edit(dir.path(), "rules.toml", "date = \"2026-12-31\"\n", "");
    let doc = simulate_json(dir.path());
    assert_eq!(doc["price_date"]["from"], "today");
    let today = doc["price_date"]["date"].as_str().unwrap().to_string();
    let want = if today.as_str() >= "2027-01-01" {
        "0.0261"
    } else {
        "0.0186"
    };
    assert_eq!(model_cost(&doc, "dated"), d(want));
    let out = tokencast()
        .current_dir(dir.path())
        .args(["simulate", "rules.toml", "--no-report"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("Prices in force on {today} (today")),
        "{text}"
    );
}

#[test]
fn a_currency_converts_every_figure_exactly_and_is_named_everywhere() {
    let dir = sandbox("tests/fixtures/rules");
    let usd = simulate_json(dir.path());
    edit(
        dir.path(),
        "rules.toml",
        "[timing]",
        "[currency]\ncode = \"EUR\"\nper_usd = \"0.92\"\nrate_date = \"2026-11-27\"\n\n[timing]",
    );
    let eur = simulate_json(dir.path());
    assert_eq!(eur["currency"]["code"], "EUR");
    for v in usd["variants"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        for part in ["input", "output", "cache_storage"] {
            let a = &v["cost"][part]["lower"];
            if a.is_null() {
                continue;
            }
            assert_eq!(
                dec(&variant(&eur, name)["cost"][part]["lower"]),
                (dec(a) * d("0.92")).normalize(),
                "{name} {part}"
            );
        }
        // Container time is a price per hour times milliseconds: $0.05 / 12
        // does not end in decimal, so fees and totals agree to 20 places
        // (rust_decimal keeps 28 significant digits).
        for part in ["tool_fee", "total"] {
            let a = dec(&v["cost"][part]["lower"]) * d("0.92");
            let b = dec(&variant(&eur, name)["cost"][part]["lower"]);
            assert_eq!(a.round_dp(20), b.round_dp(20), "{name} {part}");
        }
    }
    // Terminal, CSV and HTML all say so, with the rate and its date.
    let out = tokencast()
        .current_dir(dir.path())
        .args(["simulate", "rules.toml", "--csv", "csv"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("0.92 EUR per USD (rate of 2026-11-27)"),
        "{text}"
    );
    assert!(
        text.contains("Cost of one run, per variant (EUR)"),
        "{text}"
    );
    assert!(text.contains("EUR 0.0"), "{text}");
    assert!(!text.contains('$'), "{text}");
    let csv = fs::read_to_string(dir.path().join("csv/variants.csv")).unwrap();
    assert!(
        csv.lines().next().unwrap().contains("total_eur_lower"),
        "{csv}"
    );
    let html = fs::read_to_string(dir.path().join("reports/rules.html")).unwrap();
    assert!(html.contains("0.92 EUR per USD (rate of 2026-11-27)"));
    assert!(!html.contains("$0"));
}

#[test]
fn unknown_names_are_errors_that_point_at_them() {
    let dir = sandbox("tests/fixtures/rules");
    edit(
        dir.path(),
        "rules.toml",
        "service = \"flex\"",
        "service = \"flx\"",
    );
    fails(
        dir.path(),
        &["service tier `flx` is not defined for `tiered`", "flex"],
    );
    let dir = sandbox("tests/fixtures/rules");
    edit(
        dir.path(),
        "rules.toml",
        "region = \"us-only\"",
        "region = \"eu\"",
    );
    fails(dir.path(), &["region `eu`", "us-only"]);
    let dir = sandbox("tests/fixtures/rules");
    edit(
        dir.path(),
        "rules.toml",
        "\"web/search\" = \"web_search\"",
        "\"web/search\" = \"websearch\"",
    );
    fails(
        dir.path(),
        &["fee `websearch` is not in the price book", "web_search"],
    );
    let dir = sandbox("tests/fixtures/rules");
    edit(
        dir.path(),
        "rules.toml",
        "\"web/search\" = \"web_search\"",
        "\"web/serch\" = \"web_search\"",
    );
    fails(
        dir.path(),
        &["capability `web/serch` is not in the trace", "web/search"],
    );
    let dir = sandbox("tests/fixtures/rules");
    edit(
        dir.path(),
        "rules.toml",
        "model = \"dated\"",
        "model = \"dates\"",
    );
    fails(dir.path(), &["`dates` is not in the price book", "dated"]);
    let dir = sandbox("tests/fixtures/rules");
    edit(
        dir.path(),
        "rules.toml",
        "[timing]",
        "[currency]\ncode = \"euro\"\nper_usd = \"0.92\"\nrate_date = \"2026-11-27\"\n\n[timing]",
    );
    fails(dir.path(), &["currency code \"euro\"", "ISO 4217"]);
}

#[test]
fn a_price_book_with_tiers_out_of_order_is_refused() {
    let dir = sandbox("tests/fixtures/rules");
    let p = dir.path().join("prices.toml");
    let text = fs::read_to_string(&p).unwrap();
    fs::write(
        &p,
        text.replacen("threshold_tokens = 3000", "threshold_tokens = 1500", 1),
    )
    .unwrap();
    fails(
        dir.path(),
        &[
            "long-context thresholds must rise: 1500 after 2000",
            "prices.toml",
        ],
    );
}
