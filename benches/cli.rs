//! The command a user types, end to end: `tokencast simulate SCENARIO
//! --format json --no-report` on generated traces of 10,000, 100,000 and
//! 1,000,000 rows (about 61 MB), reading the CSV, checking it, replaying
//! every variant of the research scenario and writing the JSON document.
//!
//! Run: `cargo bench --bench cli`. Target (issue 11): the 1,000,000-row run
//! under 2 s on the 2-core machine, and 10× the rows in at most 13× the time.

use criterion::{criterion_group, criterion_main, Criterion};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Writes a trace of `rows` results (a fixed sequence of sizes and
/// latencies) and a copy of the research scenario that reads it.
fn scenario(dir: &Path, rows: usize) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let trace = dir.join(format!("trace-{rows}.csv"));
    let mut w = std::io::BufWriter::new(std::fs::File::create(&trace).unwrap());
    writeln!(
        w,
        "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed"
    )
    .unwrap();
    let caps = [
        "reddit/search",
        "trustpilot/reviews",
        "youtube/search",
        "youtube/comments",
    ];
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for i in 1..=rows {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let raw = 500 + (x >> 33) % 100_000;
        writeln!(
            w,
            "{i},{},200,{},{raw},{},{},0.000792,false",
            caps[i % 4],
            1 + (x >> 20) % 30,
            raw / 5,
            1000 + (x >> 40) % 15_000
        )
        .unwrap();
    }
    w.flush().unwrap();
    // The research scenario's variants and assumptions, without its what-if
    // sections (they replay the run many times over and are timed apart).
    let text = std::fs::read_to_string(root.join("research.toml")).unwrap();
    let main_part = text.split("# ── What-if").next().unwrap();
    let toml = main_part
        .replace("traces/research-trace.csv", trace.to_str().unwrap())
        .replace(
            "prices/anthropic.toml",
            root.join("prices/anthropic.toml").to_str().unwrap(),
        );
    let path = dir.join(format!("scenario-{rows}.toml"));
    std::fs::write(&path, toml).unwrap();
    path
}

fn simulate_json(scenario: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_tokencast"))
        .args(["simulate"])
        .arg(scenario)
        .args(["--format", "json", "--no-report"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("cli_simulate_json");
    group.sample_size(10);
    for rows in [10_000, 100_000, 1_000_000] {
        let path = scenario(dir.path(), rows);
        group.bench_function(format!("{rows}_rows"), |b| b.iter(|| simulate_json(&path)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
