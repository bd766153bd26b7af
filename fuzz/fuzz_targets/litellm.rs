//! Fuzzes `tokencast prices import litellm`: any text as LiteLLM's price
//! table. A table that converts must give a price book that loads again,
//! whatever its model ids hold (a newline, a quote, `]`, 10,000 characters):
//! one odd id must never make the written book unloadable.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokencast::error::AppError;
use tokencast::input::SourceText;
use tokencast::pricing::{litellm, PriceBook};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let src = SourceText {
        name: "model_prices_and_context_window.json".into(),
        text: text.to_string(),
    };
    match litellm::convert(&src, &[], "2026-11-30") {
        Ok(conversion) => {
            let book = SourceText {
                name: "prices.toml".into(),
                text: conversion.to_toml("model_prices_and_context_window.json"),
            };
            if let Err(e) = PriceBook::parse(&book) {
                panic!(
                    "a converted book does not load: {}",
                    AppError::Input(e).render()
                );
            }
        }
        Err(e) => {
            let _ = AppError::Input(e).render();
        }
    }
});
