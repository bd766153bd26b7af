//! Fuzzes the price book: any text parsed as a book; every model that
//! parses is asked for the rates of every cache tier and mode.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokencast::error::AppError;
use tokencast::input::SourceText;
use tokencast::pricing::{Cache, Mode, PriceBook};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let src = SourceText {
        name: "prices.toml".into(),
        text: text.to_string(),
    };
    match PriceBook::parse(&src) {
        Ok(book) => {
            for id in book.model_ids() {
                let Ok(m) = book.get_on(id, jiff::civil::Date::MAX) else {
                    continue;
                };
                for cache in Cache::ALL {
                    for mode in [Mode::Sync, Mode::Batch] {
                        let _ = m.rates(cache, mode);
                    }
                }
            }
        }
        Err(e) => {
            let _ = AppError::Input(e).render();
        }
    }
});
