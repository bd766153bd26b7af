//! Fuzzes a saved calibration (`import --calibration FILE`): any text as the
//! file. One that loads is applied to a model and must write itself back as
//! a file that loads to the same calibration.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokencast::error::AppError;
use tokencast::import::calibrate::Calibration;
use tokencast::input::SourceText;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let src = SourceText {
        name: "calibration.toml".into(),
        text: text.to_string(),
    };
    match Calibration::parse(&src) {
        Ok(c) => {
            let _ = c.fit_for("claude-sonnet-4-5-20250929");
            let again = SourceText {
                name: "again.toml".into(),
                text: c.to_toml(),
            };
            let back = Calibration::parse(&again).expect("a written calibration loads");
            assert_eq!(back.to_toml(), c.to_toml());
        }
        Err(e) => {
            let _ = AppError::Input(e).render();
        }
    }
});
