//! Fuzzes the saved-result loader (`diff` reads these): any text as a saved
//! simulation document; one that loads is compared with itself and shown.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokencast::document::{diff, load::load, SimulationDoc};
use tokencast::error::AppError;
use tokencast::input::SourceText;
use tokencast::report::{Render, TerminalOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let src = SourceText {
        name: "saved.json".into(),
        text: text.to_string(),
    };
    match load::<SimulationDoc>(&src) {
        Ok(doc) => {
            let d = diff::compare(&doc, &doc, "a.json", "b.json");
            let _ = d.terminal(&TerminalOptions::default());
            let _ = d.json();
        }
        Err(e) => {
            let _ = AppError::Input(e).render();
        }
    }
});
