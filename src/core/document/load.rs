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
    let parsed = serde_json::from_str::<Loaded<T>>(&src.text);
    // Valid JSON: no string longer than a document holds (a syntax error
    // is reported first, as it is).
    let syntax = matches!(&parsed, Err(e) if e.is_syntax() || e.is_eof());
    if let (false, Some(span)) = (syntax, over_long_string(&src.text)) {
        return Err(src
            .error_at(
                format!(
                    "{}: a string of {} bytes, more than a tokencast document holds",
                    src.name,
                    span.len()
                ),
                span.start..span.start + 1,
                "this string starts here",
            )
            .with_help(help(T::KIND)));
    }
    match parsed {
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

/// The span of the first JSON string literal whose characters could not be
/// a name or text tokencast writes: more than [`crate::limits::MAX_TEXT_CHARS`]
/// characters once unescaped. Measured on the literal as written (an escape
/// is at most six characters for one), so nothing tokencast writes is
/// refused, and a document never makes `diff` compare or print megabytes
/// of one name.
fn over_long_string(text: &str) -> Option<std::ops::Range<usize>> {
    let max = crate::limits::MAX_TEXT_CHARS * 6;
    let bytes = text.as_bytes();
    let (mut i, mut start, mut inside) = (0, 0, false);
    while i < bytes.len() {
        match (inside, bytes[i]) {
            (false, b'"') => {
                inside = true;
                start = i;
            }
            (true, b'\\') => i += 1,
            (true, b'"') => {
                inside = false;
                let literal = &text[start + 1..i];
                if !crate::limits::text_fits(literal, max) {
                    return Some(start..i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_past_the_limit_is_found_and_escapes_are_skipped() {
        let max = crate::limits::MAX_TEXT_CHARS * 6;
        let ok = format!(r#"{{"a": "x\"y", "b": "{}"}}"#, "é".repeat(max));
        assert_eq!(over_long_string(&ok), None);
        let long = format!(r#"{{"a": "x\"y", "b": "{}"}}"#, "é".repeat(max + 1));
        let span = over_long_string(&long).expect("found");
        assert_eq!(&long[span.start..span.start + 1], "\"");
        assert_eq!(span.len(), 2 + 2 * (max + 1));
    }
}
