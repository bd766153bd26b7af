//! Fuzzes the trace CSV reader: any bytes as a trace file, through the same
//! UTF-8 check as a file read from disk. A trace that parses is replayed in
//! the research scenario's place (checked as a file would be); an error is
//! rendered.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use tokencast::document::{Contents, SimulationDoc};
use tokencast::error::AppError;
use tokencast::report::{Render, TerminalOptions};
use tokencast::scenario::{trace, Given};

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("tokencast-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("trace.csv");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let src = match tokencast::files::read(&path, "trace file") {
        Ok(src) => src,
        Err(e) => {
            let _ = AppError::Input(e).render();
            return;
        }
    };
    if let Err(e) = trace::parse_csv(&src) {
        let _ = AppError::Input(e).render();
        return;
    }
    // A trace that parses, checked in the research scenario's place (a
    // replay too large for exact decimals is a located error too).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let Ok(research) = tokencast::files::read(&root.join("research.toml"), "scenario") else {
        return;
    };
    let given = Given {
        trace: Some(&src),
        ..Given::default()
    };
    match tokencast::files::check(&research, &root, None, given) {
        Ok(s) => {
            let doc = SimulationDoc::build(&s, Contents::simulate(&s, false));
            let _ = doc.terminal(&TerminalOptions::default());
        }
        Err(e) => {
            let _ = AppError::Input(e).render();
        }
    }
});
