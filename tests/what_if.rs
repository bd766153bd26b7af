//! What-if analyses on the research scenario, checked against figures derived
//! by hand from the model and the seeds (000–003).

mod common;
use common::*;
use std::fs;

fn what_if() -> serde_json::Value {
    research_json()["what_if"].clone()
}

#[test]
fn retry_break_even_matches_seeds_000_to_002() {
    let r = &what_if()["retry"];
    // 25,000 × $10/M + 2,000 × $50/M and 25,000 × $8/M + 2,000 × $40/M
    assert_eq!(shown(&r["baseline_cost_per_attempt"], 2), "0.35");
    assert_eq!(shown(&r["candidate_cost_per_attempt"], 2), "0.28");
    assert_eq!(shown(&r["baseline_total"], 2), "7.00");
    assert_eq!(r["break_even_attempts"], 25); // $7.00 ÷ $0.28
    let at = |n: u64| {
        r["curve"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["attempts"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(shown(&at(25)["candidate_total"], 2), "7.00");
    assert_eq!(shown(&at(26)["candidate_total"], 2), "7.28");
    assert_eq!(shown(&at(26)["candidate_per_accepted"], 3), "0.364");
    // (25 − 20) ÷ 20 = 0.25: one extra attempt per four successes.
    assert_eq!(shown(&r["extra_attempts_per_success"], 2), "0.25");
    assert_eq!(shown(&r["successes_per_extra_attempt"], 0), "4");
}

#[test]
fn whole_run_break_even_counts_retries_of_the_cheapest_variant() {
    let b = &what_if()["run_break_even"];
    // $10.839 (raw, no cache) ÷ $0.493 (trimmed, 5-min, batch) = 21.98 → 21 runs, 20 retries.
    assert_eq!(b["cheapest"], "trimmed, 5-min cache, batch");
    assert_eq!(b["dearest"], "raw, no cache");
    assert_eq!(b["runs"], 21);
    assert_eq!(b["retries"], 20);
}

#[test]
fn cache_lifetime_reproduces_the_seed_comparison() {
    let l = &what_if()["cache_lifetime"];
    let trimmed = l["final_expiry"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["results"] == "trimmed")
        .unwrap();
    // One expiry at the last request rewrites 44,042 tokens × $10/M ≈ $0.44 …
    assert_eq!(shown(&trimmed["rewrite_tokens"]["lower"], 0), "44042");
    assert_eq!(shown(&trimmed["rewrite_cost"]["lower"], 2), "0.44");
    // … while the 1-hour tier writes the same 44,042 tokens at $6/M more ≈ $0.26.
    assert_eq!(shown(&trimmed["one_hour_premium"]["lower"], 2), "0.26");
    // The expiry's extra cost: the final request writes 40,487.5 tokens it would
    // have read, × ($10 − $0.20)/M = $0.397 > $0.264, so the 1-hour tier wins then.
    assert_eq!(shown(&trimmed["extra_cost"]["lower"], 3), "0.397");
    // At 20 s per step no gap reaches 5 minutes (the slowest call is 19.8 s).
    for t in l["tiers"].as_array().unwrap() {
        assert_eq!(t["expiries_5m"], 0);
        assert_eq!(t["cheaper"], "5m");
    }
    // With 18 tool gaps of 4.8–19.8 s, every gap exceeds 300 s once the model
    // takes 300 s per step: the sweep's answer flips there.
    for (results, flip) in l["flips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f[0].clone(), f[1].clone()))
    {
        assert_eq!(flip, 300, "{results}");
    }
}

#[test]
fn effort_preset_high_costs_the_seed_output() {
    let effort = what_if()["effort"].clone();
    let high = effort
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["preset"] == "high")
        .unwrap();
    assert_eq!(high["output_tokens"], 38000); // 18 × 2,000 + 2,000
    assert_eq!(shown(&high["output_cost"][0], 2), "1.52"); // × $40/M
}

#[test]
fn batch_stacks_with_the_cache_multipliers() {
    let doc = research_json();
    let sync = dec(&variant(&doc, "trimmed, 5-min cache")["cost"]["input"]["lower"]);
    let batch = dec(&variant(&doc, "trimmed, 5-min cache, batch")["cost"]["input"]["lower"]);
    // Batch input is $4 = half of $8, so writes ($5) and reads ($0.10) halve too.
    assert_eq!(batch * rust_decimal::Decimal::TWO, sync);
    let rates = &variant(&doc, "trimmed, 5-min cache, batch")["rates"];
    assert_eq!(dec(&rates["cache_write"]).to_string(), "5");
    assert_eq!(dec(&rates["cache_read"]).to_string(), "0.1");
}

#[test]
fn restart_costs_follow_the_model() {
    let doc = research_json();
    let r = &doc["what_if"]["restart"];
    let names: Vec<&str> = doc["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    let raw_none = names.iter().position(|n| *n == "raw, no cache").unwrap();
    let first = &r["rows"][0];
    assert_eq!(first["before_request"], 2);
    // Starting over before request 2 pays request 1 again: 3,000 × $8/M + 500 × $40/M.
    assert_eq!(shown(&first["start_over"][raw_none], 3), "0.044");
    // Without a cache, resuming costs nothing extra.
    for row in r["rows"].as_array().unwrap() {
        assert_eq!(dec(&row["resume"][raw_none]), rust_decimal::Decimal::ZERO);
    }
    assert_eq!(r["idempotency_keys"], true);
}

#[test]
fn terminal_prints_the_what_if_answers() {
    let out = tokencast()
        .args(["simulate", "scenarios/research.toml", "--no-report"])
        .output()
        .unwrap();
    // Sentences wrap at the terminal's width: read them as one text.
    let text = String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for s in [
        "an attempt costs $0.35 on claude-fable-5-1 and $0.28 on claude-fable-5-2",
        "breaks even at 25 attempts",
        "attempt 26 makes it $7.28, $0.364 per accepted answer",
        "One extra attempt per 4 successes",
        "rewrites 44,042 tokens ($0.44",
        "the 1-hour tier costs $0.26 more",
        "$1.520",
    ] {
        assert!(text.contains(s), "missing {s:?}");
    }
}

#[test]
fn sweep_replays_every_point_with_the_engine() {
    let s: serde_json::Value = json_of(tokencast().args([
        "sweep",
        "scenarios/research.toml",
        "--vary",
        "output_tokens_per_step=500..2000:1500",
        "--format",
        "json",
        "--no-report",
    ]));
    let points = s["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    // At 500 tokens per step the sweep is the research run: $0.969 for trimmed, 5-min.
    let i = s["variants"]
        .as_array()
        .unwrap()
        .iter()
        .position(|v| v == "trimmed, 5-min cache")
        .unwrap();
    assert_eq!(shown(&points[0]["totals"][i]["lower"], 3), "0.969");
    // At 2,000: output $1.52 instead of $0.44, and 18 × 1,500 more tokens carried
    // in later requests' context: Σ_{k=1..18} k × 1,500 = 256,500 tokens; with the
    // cache, the final request writes 27,000 more (× $10/M) and the rest is read
    // (229,500 × $0.20/M): +$1.08 + $0.27 + $0.0459 = $0.969 + $1.3959 = $2.365.
    assert_eq!(shown(&points[1]["totals"][i]["lower"], 3), "2.365");
}

fn sweep_fails(spec: &str) -> String {
    let out = tokencast()
        .args([
            "sweep",
            "scenarios/research.toml",
            "--no-report",
            "--max-points",
            "50",
            "--vary",
            spec,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{spec}");
    assert!(out.stdout.is_empty());
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn sweep_rejects_bad_ranges_clearly() {
    assert!(sweep_fails("runs_per_day=").contains("the range is empty"));
    assert!(sweep_fails("runs_per_day=10..1:1").contains("the range is reversed"));
    assert!(sweep_fails("runs_per_day=1..10:0").contains("the step must be greater than zero"));
    let many = sweep_fails("runs_per_day=1..100:1");
    assert!(
        many.contains("100 points is more than the limit of 50"),
        "{many}"
    );
    assert!(many.contains("--max-points"));
    let unknown = sweep_fails("prefix_tokns=1..2:1");
    assert!(unknown.contains("unknown parameter `prefix_tokns`"));
    assert!(unknown.contains("did you mean `prefix_tokens`?"));
}

#[test]
fn sweep_writes_a_chart_page() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("sweep.html");
    let out = tokencast()
        .args([
            "sweep",
            "scenarios/research.toml",
            "--vary",
            "trim_ratio=0.1..0.5:0.2",
            "--vary",
            "calls=10..30:10",
            "--report",
        ])
        .arg(&page)
        .output()
        .unwrap();
    assert!(out.status.success());
    let html = fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<svg") && html.contains("cheapest variant"),
        "heat map"
    );
    assert!(html.contains("trim_ratio"));
}

#[test]
fn diff_compares_a_saved_result_with_a_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("before.json");
    let out = tokencast()
        .args([
            "simulate",
            "scenarios/research.toml",
            "--format",
            "json",
            "--no-report",
        ])
        .output()
        .unwrap();
    fs::write(&saved, &out.stdout).unwrap();
    let text = research_absolute().replace(
        "output_tokens_per_step = 500",
        "output_tokens_per_step = 2000",
    );
    let after = dir.path().join("after.toml");
    fs::write(&after, text).unwrap();
    let d: serde_json::Value = json_of(
        tokencast()
            .args(["diff"])
            .arg(&saved)
            .arg(&after)
            .args(["--format", "json"]),
    );
    let line = |key: &str| {
        d["lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["key"] == key)
            .unwrap()
            .clone()
    };
    // Output: (18 × 2,000 + 2,000 − 11,000) × $40/M = $1.08 more.
    let out_line = line("raw, no cache · output · lower");
    assert_eq!(shown(&out_line["delta"], 2), "1.08");
    // Final request: 18 × 1,500 = 27,000 more tokens, on 160,627 → +16.8 %.
    let tokens = line("raw results · final request input tokens · lower");
    assert_eq!(shown(&tokens["delta"], 0), "27000");
    assert_eq!(shown(&tokens["delta_share"], 3), "0.168");
    for format in ["table", "html"] {
        let out = tokencast()
            .args(["diff"])
            .arg(&saved)
            .arg(&after)
            .args(["--format", format])
            .output()
            .unwrap();
        assert!(out.status.success());
    }
}

#[test]
fn diff_rejects_a_json_that_is_not_a_result() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    fs::write(&bad, "{\n  \"a\": 1,\n  oops\n}").unwrap();
    let out = tokencast()
        .args(["diff"])
        .arg(&bad)
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("is not valid JSON") && err.contains("bad.json:3:"),
        "{err}"
    );
    fs::write(&bad, "{\"a\": 1}").unwrap();
    let out = tokencast()
        .args(["diff"])
        .arg(&bad)
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("is not a tokencast result"));
}

#[test]
fn diff_output_never_replaces_a_users_file_but_replaces_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let diff_into = |path: &std::path::Path, format: &str, force: bool| {
        let mut cmd = tokencast();
        cmd.args([
            "diff",
            "scenarios/research.toml",
            "scenarios/research.toml",
            "--format",
            format,
            "--output",
        ])
        .arg(path);
        if force {
            cmd.arg("--force");
        }
        cmd.output().unwrap()
    };
    for (name, format) in [
        ("notes.json", "json"),
        ("notes.txt", "table"),
        ("notes.html", "html"),
    ] {
        let path = dir.path().join(name);
        // A user's own file, even one that looks like JSON, is left alone.
        fs::write(&path, "{\"my\": \"notes\"}\n").unwrap();
        let out = diff_into(&path, format, false);
        assert_eq!(out.status.code(), Some(2), "{format}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to overwrite"));
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"my\": \"notes\"}\n");
        // With --force it is replaced; after that the file is tokencast's own.
        assert!(diff_into(&path, format, true).status.success());
        let first = fs::read(&path).unwrap();
        assert!(diff_into(&path, format, false).status.success(), "{format}");
        assert_eq!(fs::read(&path).unwrap(), first);
    }
}

#[test]
fn diff_of_identical_inputs_says_no_differences_and_a_change_starts_with_the_inputs() {
    let same = tokencast()
        .args(["diff", "scenarios/research.toml", "scenarios/research.toml"])
        .output()
        .unwrap();
    assert!(same.status.success());
    let text = String::from_utf8(same.stdout).unwrap();
    assert!(text.contains("no differences"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let after = dir.path().join("after.toml");
    fs::write(
        &after,
        research_absolute().replace("runs_per_day = 100", "runs_per_day = 200"),
    )
    .unwrap();
    let out = tokencast()
        .args(["diff", "scenarios/research.toml"])
        .arg(&after)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let d: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(d["identical"], false);
    let changes = d["input_changes"].as_array().unwrap();
    assert!(changes
        .iter()
        .any(|c| c["what"] == "assumptions.runs_per_day" && c["a"] == "100" && c["b"] == "200"));
    // Runs per day change the per-day figures only: one run of the cheapest
    // variant costs the same on both sides.
    assert_eq!(d["headline"]["a_total"], d["headline"]["b_total"]);
    assert_eq!(d["headline"]["a_variant"], d["headline"]["b_variant"]);
    assert_eq!(dec(&d["headline"]["delta"]), rust_decimal::Decimal::ZERO);
}

#[test]
fn sweeping_runs_per_day_shows_the_per_day_cost() {
    let out = tokencast()
        .args([
            "sweep",
            "scenarios/research.toml",
            "--vary",
            "runs_per_day=100..200:100",
            "--format",
            "json",
            "--no-report",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["figure"], "per_day");
    // Published: raw results, no cache, 100 runs a day cost $1,083.94.
    assert_eq!(shown(&s["points"][0]["totals"][0]["lower"], 2), "1083.94");
    // Twice the runs, twice the cost.
    assert_eq!(
        dec(&s["points"][1]["totals"][0]["lower"]),
        dec(&s["points"][0]["totals"][0]["lower"]) * rust_decimal::Decimal::TWO
    );
}

/// The research scenario with `extra` appended (paths made absolute), in a temporary folder.
fn research_with(extra: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let text = research_absolute();
    let path = dir.path().join("s.toml");
    fs::write(&path, format!("{text}\n{extra}")).unwrap();
    (dir, path)
}

#[test]
fn a_variant_may_run_on_its_own_model() {
    let (_dir, path) = research_with(
        "[[variants]]\nresults = \"raw\"\ncache = \"none\"\nmodel = \"claude-fable-5-1\"\n",
    );
    let doc: serde_json::Value =
        json_of(
            tokencast()
                .arg("simulate")
                .arg(&path)
                .args(["--format", "json", "--no-report"]),
        );
    let v = variant(&doc, "raw, no cache, claude-fable-5-1");
    assert_eq!(v["model"], "claude-fable-5-1");
    // The same tokens as the published $10.383 at $8/M, at Fable 5.1's $10/M:
    // 10.382502 × 10 / 8 = $12.978; output 11,000 tokens × $50/M = $0.55.
    assert_eq!(shown(&v["cost"]["input"]["lower"], 3), "12.978");
    assert_eq!(shown(&v["cost"]["output"]["lower"], 2), "0.55");
    assert_eq!(variant(&doc, "raw, no cache")["model"], "claude-fable-5-2");
    assert_eq!(doc["other_prices"][0]["model"], "claude-fable-5-1");
    // A cached variant on a model without cache prices is an error naming it.
    let (_dir, path) = research_with(
        "[[variants]]\nresults = \"raw\"\ncache = \"5m\"\nmodel = \"claude-fable-5-1\"\n",
    );
    let out = tokencast()
        .arg("simulate")
        .arg(&path)
        .arg("--no-report")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("needs cache_write_5m and cache_read for `claude-fable-5-1`"),
        "{err}"
    );
    // An unknown model is named with the nearest known one.
    let (_dir, path) = research_with(
        "[[variants]]\nresults = \"raw\"\ncache = \"none\"\nmodel = \"claude-fable-5-3\"\n",
    );
    let out = tokencast()
        .arg("simulate")
        .arg(&path)
        .arg("--no-report")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("variant model `claude-fable-5-3` is not in the price book"),
        "{err}"
    );
    assert!(err.contains("did you mean"), "{err}");
}

#[test]
fn context_management_plain_run_is_the_simulated_variant() {
    let doc = research_json();
    let c = &doc["what_if"]["context"];
    assert_eq!(c["variant"], "raw, 5-min cache");
    // The plain replay is the variant's model cost: its total without the
    // data fee (tool fees are none here).
    let v = variant(&doc, "raw, 5-min cache");
    let model = dec(&v["cost"]["total"]["lower"]) - dec(&v["cost"]["data_fee"]["lower"]);
    assert_eq!(dec(&c["plain"]["cost"]["lower"]), model);
    // It writes its final prompt, P + 18 × o + Σ T = 160,627 tokens (seed 003).
    assert_eq!(
        shown(&c["plain"]["cache_write_tokens"]["lower"], 0),
        "160627"
    );
    assert_eq!(c["plain"]["requests"][0], 19);
}

#[test]
fn context_management_grids_and_their_cheapest_settings() {
    let c = research_json()["what_if"]["context"].clone();
    let costs = |runs: &serde_json::Value| -> Vec<rust_decimal::Decimal> {
        runs.as_array()
            .unwrap()
            .iter()
            .map(|r| dec(&r["cost"]["lower"]))
            .collect()
    };
    for (runs, best) in [
        ("compaction", "best_compaction"),
        ("clearing", "best_clearing"),
    ] {
        let all = costs(&c[runs]);
        let min = *all.iter().min().unwrap();
        let i = c[best].as_u64().unwrap() as usize;
        assert_eq!(all[i], min, "{runs}: the cheapest is named");
        assert_eq!(
            all.iter().position(|x| *x == min),
            Some(i),
            "first on a tie"
        );
    }
    // Thresholds: 16 even steps above u·P + S = 1.3 × 3,000 + 2,000 = 5,900
    // tokens, up to the plain run's largest upper-bound prompt.
    let t: Vec<u64> = c["compaction"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["strategy"]["threshold_tokens"].as_u64().unwrap())
        .collect();
    assert_eq!(t.len(), 16);
    assert!(t[0] > 5_900);
    let peak_upper = dec(&c["plain"]["peak_prompt"]["upper"]).ceil();
    assert_eq!(rust_decimal::Decimal::from(*t.last().unwrap()), peak_upper);
    // Keeps 0, 1, 2, 3, 4, 6, 8, 12, 16 (below N − 1 = 17).
    let k: Vec<u64> = c["clearing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["strategy"]["keep_steps"].as_u64().unwrap())
        .collect();
    assert_eq!(k, [0, 1, 2, 3, 4, 6, 8, 12, 16]);
    // Clearing after 0 steps writes what the plain run writes: request j
    // writes o + T_j either way (P + Σ (o + T_j) in all), and reads less.
    let zero = &c["clearing"][0];
    assert_eq!(zero["cache_write_tokens"], c["plain"]["cache_write_tokens"]);
    // The compaction at the largest threshold never fires in the lower bound.
    let last = c["compaction"].as_array().unwrap().last().unwrap();
    assert_eq!(last["events"][0], 0);
    assert_eq!(last["cost"]["lower"], c["plain"]["cost"]["lower"]);
}

#[test]
fn context_management_settings_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, message) in [
        (
            "thresholds = [5900]",
            "threshold 5900 is not above the compacted prompt, 5900 tokens",
        ),
        ("variant = \"raw\"", "no variant is named `raw`"),
        ("summary_tokens = 0", "summary_tokens = 0"),
        (
            "keep_steps = [18446744073709551615]",
            "keep_steps 18446744073709551615",
        ),
    ] {
        let text = research_absolute().replace(
            "summary_tokens = 2000",
            &if extra.starts_with("summary") {
                extra.to_string()
            } else {
                format!("summary_tokens = 2000\n{extra}")
            },
        );
        let text = if extra.starts_with("variant") {
            text.replace("variant = \"raw, 5-min cache\"\n", "")
        } else {
            text
        };
        let path = dir.path().join("s.toml");
        fs::write(&path, text).unwrap();
        let out = tokencast()
            .args(["simulate", "--no-report"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{extra}: {err}");
        assert!(err.contains("s.toml:"), "located: {err}");
        assert!(out.stdout.is_empty());
    }
}

/// `team_size` people each starting `runs_per_day` runs make the day's
/// figures the team's: 10 people × 10 runs are the research run's 100 runs
/// a day, and a day is 100 runs of each variant's exact cost.
#[test]
fn a_team_of_ten_at_ten_runs_each_is_a_hundred_runs_a_day() {
    let dir = tempfile::tempdir().unwrap();
    let base = common::research_absolute();
    assert!(base.contains("runs_per_day = 100"));
    let team = base.replace("runs_per_day = 100", "runs_per_day = 10\nteam_size = 10");
    std::fs::write(dir.path().join("base.toml"), &base).unwrap();
    std::fs::write(dir.path().join("team.toml"), &team).unwrap();
    let (a, b) = (
        common::simulate_json(dir.path(), "base.toml"),
        common::simulate_json(dir.path(), "team.toml"),
    );
    assert_eq!(b["assumptions"]["team_size"], 10);
    assert!(
        a["assumptions"].get("team_size").is_none(),
        "one person: not written"
    );
    for (va, vb) in a["variants"]
        .as_array()
        .unwrap()
        .iter()
        .zip(b["variants"].as_array().unwrap())
    {
        assert_eq!(va["per_day"], vb["per_day"], "{}", va["name"]);
        // A day is 100 runs: the run's exact total times 100.
        let run: rust_decimal::Decimal = va["cost"]["total"]["upper"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let day: rust_decimal::Decimal = vb["per_day"]["total"]["upper"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            day,
            run * rust_decimal::Decimal::from(100),
            "{}",
            va["name"]
        );
    }
    // No one, or a team past a billion runs a day, is refused where it is.
    for (bad, says) in [
        ("team_size = 0", "a team has at least one person"),
        ("team_size = 200000000", "more than 1000000000"),
    ] {
        let text = base.replace("runs_per_day = 100", &format!("runs_per_day = 10\n{bad}"));
        std::fs::write(dir.path().join("bad.toml"), text).unwrap();
        let out = common::tokencast()
            .current_dir(dir.path())
            .args(["simulate", "bad.toml", "--no-report"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(says) && err.contains("bad.toml"),
            "{bad}: {err}"
        );
    }
}
