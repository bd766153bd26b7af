//! Writes the sessions table of a synthetic team dataset for the forecast
//! benchmark (`benches/dataset.sh`): SESSIONS rows spread over 100 machines
//! and 90 days, each with a recorded cost and the five replayed variants,
//! as `tokencast import … --dataset` writes them. Only the sessions table is
//! written: a forecast reads nothing else (10⁸ request rows would not fit
//! this machine's disk budget, and are not needed).
//!
//! ```sh
//! cargo run --release --example gen_dataset -- OUT_DIR SESSIONS [SEED]
//! ```
//!
//! The same arguments give the same bytes.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use rust_decimal::Decimal;
use std::collections::BTreeMap;
use std::path::Path;
use tokencast::import::dataset::columns::{Data, Table};
use tokencast::import::dataset::{host_file, tables, Provenance};

const MACHINES: u64 = 100;
const DAYS: u64 = 90;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: gen_dataset OUT_DIR SESSIONS [SEED]");
        std::process::exit(2);
    }
    let out = Path::new(&args[1]);
    let n: u64 = args[2].parse().expect("SESSIONS is a number");
    let seed: u64 = args
        .get(3)
        .map_or(1, |s| s.parse().expect("SEED is a number"));
    let mut rng = Pcg64::seed_from_u64(seed);
    let schema = tables::schema(tables::SESSIONS);
    // One table per (day, machine), as an import writes them.
    let mut files: BTreeMap<(u64, u64), Table> = BTreeMap::new();
    let day0 = jiff::civil::date(2026, 9, 1);
    for i in 0..n {
        let (day, machine) = (rng.random_range(0..DAYS), rng.random_range(0..MACHINES));
        let t = files
            .entry((day, machine))
            .or_insert_with(|| schema.empty_like());
        let date = day0 + jiff::Span::new().days(day as i64);
        let started = format!("{date}T{:02}:{:02}:00Z", i % 24, i % 60);
        let started_ms = started.parse::<jiff::Timestamp>().unwrap().as_millisecond();
        let requests = rng.random_range(20..300u64);
        // Recorded cost: $0.05–$25 in millionths; the replay within ±8 % of it.
        let micros = rng.random_range(50_000..25_000_000i64);
        let cost = Decimal::new(micros, 6);
        let band = |lo: i64, hi: i64| (Decimal::new(micros * lo, 8), Decimal::new(micros * hi, 8));
        let variants = [
            band(92, 108),
            band(60, 75),
            band(85, 101),
            band(46, 54),
            band(20, 26),
        ];
        for (name, data) in t.columns.iter_mut() {
            let name: &str = name;
            match data {
                Data::Str(v) => v.push(
                    match name {
                        tables::HOST => Some(format!("machine-{machine}")),
                        tables::USER => Some(format!("user-{}", machine % 37)),
                        tables::SESSION => {
                            Some(format!("{:08x}-0000-4000-8000-{:012x}", i, i * 7919))
                        }
                        tables::LOG_FILE | "tokencast.log_files" => {
                            Some(format!("-home-user-project-{}/{i}.jsonl", i % 12))
                        }
                        "tokencast.project" => Some(format!("-home-user-project-{}", i % 12)),
                        "tokencast.source" => Some("claude-code".into()),
                        "tokencast.started_text" => Some(started.clone()),
                        _ => None,
                    }
                    .as_deref(),
                ),
                Data::Time(v) => v.push(Some(match name {
                    tables::STARTED => started_ms,
                    _ => started_ms + requests as i64 * 20_000,
                })),
                Data::Int(v) => v.push(Some(match name {
                    "tokencast.requests" => requests as i64,
                    "tokencast.threads" | "tokencast.replayed_threads" => 1,
                    _ => 0,
                })),
                Data::Bool(v) => v.push(Some(false)),
                Data::Money(v) => v.push(Some(match name {
                    tables::COST | "tokencast.replayed_recorded_cost_usd" => cost,
                    _ => {
                        let k = [
                            "as_recorded",
                            "trimmed",
                            "other_tier",
                            "batch",
                            "other_model",
                        ]
                        .iter()
                        .position(|p| name.contains(p))
                        .expect("a variant column");
                        let (lo, hi) = variants[k];
                        if name.ends_with("lower_usd") {
                            lo
                        } else if name.ends_with("upper_usd") {
                            hi
                        } else {
                            (lo + hi) / Decimal::TWO
                        }
                    }
                })),
            }
        }
    }
    let provenance = Provenance {
        price_book: "litellm-1.110.2/anthropic.toml".into(),
        price_book_sha256: "0".repeat(64),
        assumptions:
            r#"{"trim":"raw","compare_model":"claude-haiku-4-5","price_date":"2026-12-01"}"#.into(),
    };
    let count = files.len();
    for ((day, machine), t) in files {
        let date = day0 + jiff::Span::new().days(day as i64);
        let dir = out.join(tables::SESSIONS).join(format!("day={date}"));
        std::fs::create_dir_all(&dir).unwrap();
        let bytes = t
            .to_parquet(&provenance.metadata(tables::SESSIONS))
            .unwrap();
        std::fs::write(dir.join(host_file(&format!("machine-{machine}"))), bytes).unwrap();
    }
    eprintln!(
        "wrote {n} sessions in {count} files under {}",
        out.display()
    );
}
