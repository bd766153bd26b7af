//! The floor an import is measured against: every line of every `.jsonl`
//! file under a folder read and parsed once by serde_json (the parser the
//! importers use, into `IgnoredAny`: every byte checked, nothing kept), on
//! every core, a file a job, as the import reads them. No measuring, no
//! session, no file written.
//!
//!   cargo run --release --example json_floor -- FOLDER
//!
//! serde_json is the fastest of the crates tried on these logs (one core,
//! `IgnoredAny`, the 1 GB bench corpus, 2026-12-06): serde_json 1.0
//! 847 MB/s, sonic-rs 0.5 697 MB/s, simd-json 0.15 (with runtime
//! detection) 593 MB/s; with `-C target-cpu=native` 838, 668 and 669.

use rayon::prelude::*;
use serde::de::IgnoredAny;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args().nth(1).ok_or("usage: json_floor FOLDER")?;
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(&root) {
        let entry = entry?;
        if entry.file_type().is_file() && entry.path().extension() == Some("jsonl".as_ref()) {
            files.push(entry.into_path());
        }
    }
    let per_file: Vec<Result<(u64, u64), String>> = files
        .par_iter()
        .map(|path| {
            let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut lines = 0u64;
            for (n, line) in text.split(|b| *b == b'\n').enumerate() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                // A line that is not JSON is counted, not fatal (a log's
                // last line may be cut off): the import reads on too.
                let _ = serde_json::from_slice::<IgnoredAny>(line)
                    .map_err(|e| eprintln!("{}:{}: {e}", path.display(), n + 1));
                lines += 1;
            }
            Ok((lines, text.len() as u64))
        })
        .collect();
    let (mut lines, mut bytes) = (0u64, 0u64);
    for r in per_file {
        let (l, b) = r?;
        lines += l;
        bytes += b;
    }
    println!("{} files, {lines} lines, {bytes} bytes", files.len());
    Ok(())
}
