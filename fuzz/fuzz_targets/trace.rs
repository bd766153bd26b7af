//! Fuzzes the trace CSV reader: any bytes as a trace file, through the same
//! UTF-8 check as a file read from disk. A trace that parses is replayed in
//! the research scenario's place; an error is rendered.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use tokencast::document::{Contents, SimulationDoc};
use tokencast::error::AppError;
use tokencast::input::SourceText;
use tokencast::report::{Render, TerminalOptions};
use tokencast::scenario::{trace, Scenario};

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("tokencast-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("trace.csv");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let src = match SourceText::read(&path, "trace file") {
        Ok(src) => src,
        Err(e) => {
            let _ = AppError::Input(e).render();
            return;
        }
    };
    match trace::parse_csv(&src) {
        Ok(calls) => {
            let research = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/research.toml");
            let Ok(mut s) = Scenario::load(&research) else {
                return;
            };
            if !calls.iter().any(|c| c.enters_context()) {
                return;
            }
            s.trace = calls;
            if tokencast::scenario::limits::replay_fits(&s.replay_size()).is_err() {
                return;
            }
            let doc = SimulationDoc::build(&s, Contents::simulate(&s, false));
            let _ = doc.terminal(&TerminalOptions::default());
        }
        Err(e) => {
            let _ = AppError::Input(e).render();
        }
    }
});
