//! Reading a saved document back, typed: a renamed or missing field is an
//! error that names it, never a silent blank.

use super::{Document, GENERATOR};
use crate::error::InputError;
use crate::input::SourceText;
use serde::Deserialize;

/// The marker fields around a document's own fields.
#[derive(Deserialize)]
struct Loaded<T> {
    #[serde(default)]
    generator: Option<String>,
    #[serde(default)]
    document: Option<String>,
    #[serde(flatten)]
    body: T,
}

/// Just the marker, to say what a file is when it is not the document asked for.
#[derive(Deserialize)]
struct Marker {
    #[serde(default)]
    generator: Option<String>,
    #[serde(default)]
    document: Option<String>,
}

fn help(kind: &str) -> String {
    format!(
        "give a file written by `tokencast {} --format json`, or a scenario .toml",
        if kind == "simulation" {
            "simulate"
        } else {
            kind
        }
    )
}

/// Reads a saved `T` from `src`, with a located error when it is not one.
pub fn load<T: Document>(src: &SourceText) -> Result<T, InputError> {
    let located = |message: String, e: &serde_json::Error| {
        let offset = offset_of(&src.text, e.line(), e.column());
        src.error_at(message, offset..offset, "here")
            .with_help(help(T::KIND))
    };
    match serde_json::from_str::<Loaded<T>>(&src.text) {
        Ok(l) => match (l.generator.as_deref(), l.document.as_deref()) {
            (Some(GENERATOR) | None, Some(kind)) if kind != T::KIND => {
                Err(InputError::new(format!(
                    "{} is a tokencast {kind} document, not a {} result",
                    src.name,
                    T::KIND
                ))
                .with_help(help(T::KIND)))
            }
            _ => Ok(l.body),
        },
        Err(e) if e.is_syntax() || e.is_eof() => {
            Err(located(format!("{} is not valid JSON: {e}", src.name), &e))
        }
        Err(e) => {
            let marker = serde_json::from_str::<Marker>(&src.text).ok();
            match marker {
                Some(Marker {
                    generator: Some(g),
                    document: Some(kind),
                }) if g == GENERATOR && kind != T::KIND => Err(InputError::new(format!(
                    "{} is a tokencast {kind} document, not a {} result",
                    src.name,
                    T::KIND
                ))
                .with_help(help(T::KIND))),
                _ => Err(located(
                    format!(
                        "{} is not a tokencast result (a {} document): {e}",
                        src.name,
                        T::KIND
                    ),
                    &e,
                )),
            }
        }
    }
}

/// Byte offset of a 1-based line and column.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let offset = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>()
        + column.saturating_sub(1);
    offset.min(text.len())
}
