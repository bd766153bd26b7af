//! Fuzzes the scenario format: any text as `research.toml` beside the real
//! price book and trace. A scenario that loads is replayed with its what-ifs
//! and rendered; one that does not has its error rendered. Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use tokencast::document::{Contents, SimulationDoc};
use tokencast::error::AppError;
use tokencast::input::SourceText;
use tokencast::report::{Render, TerminalOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let src = SourceText {
        name: "research.toml".into(),
        text: text.to_string(),
    };
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    match tokencast::files::check(&src, &base, None, Default::default()) {
        Ok(s) => {
            let doc = SimulationDoc::build(&s, Contents::simulate(&s, false));
            let _ = doc.terminal(&TerminalOptions::default());
            let _ = doc.json();
        }
        Err(e) => {
            let _ = AppError::Input(e).render();
        }
    }
});
