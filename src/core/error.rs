//! Errors the user can fix: what is wrong, where, and what would be right.
//!
//! Every problem with a scenario, a price book or a trace becomes one
//! [`InputError`]. It carries the offending file's text and a byte span, so
//! miette prints a `file:line:col` snippet with a label, and a help line that
//! says what a valid value looks like. The CLI maps it to exit code 2.

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceSpan};
use std::fmt;
use thiserror::Error;

/// A located, explained problem with the user's input.
#[derive(Debug, Error, Diagnostic)]
#[error("{message}")]
pub struct InputError {
    message: String,
    #[source_code]
    src: Option<NamedSource<String>>,
    #[label(collection)]
    labels: Vec<LabeledSpan>,
    #[help]
    help: Option<String>,
}

impl InputError {
    /// An error with no source location (for example a file that cannot be read).
    pub fn new(message: impl Into<String>) -> Self {
        InputError {
            message: message.into(),
            src: None,
            labels: Vec::new(),
            help: None,
        }
    }

    /// An error located at `span` in `text`, the contents of the file `name`.
    pub fn at(
        message: impl Into<String>,
        name: &str,
        text: &str,
        span: impl Into<SourceSpan>,
        label: impl Into<String>,
    ) -> Self {
        let span: SourceSpan = span.into();
        let (source, span) = excerpt(name, text, span);
        InputError {
            message: message.into(),
            src: Some(source),
            labels: vec![LabeledSpan::new_with_span(Some(label.into()), span)],
            help: None,
        }
    }

    /// Adds the line that tells the user what would be right.
    pub fn with_help(mut self, help: impl fmt::Display) -> Self {
        self.help = Some(help.to_string());
        self
    }

    /// The one-line message, without location or help.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The help line, if any.
    pub fn help_text(&self) -> Option<&str> {
        self.help.as_deref()
    }
}

/// Lines longer than this (machine-written files) are shown as an excerpt
/// around the error, so the printer never has to lay out a huge line.
pub const MAX_SHOWN_LINE: usize = 240;

/// Files larger than this are shown as an excerpt of the offending line.
const MAX_SHOWN_FILE: usize = 1 << 20;

/// The source to show for an error at `span` in `text`: the whole file when
/// it is small and its lines short, else an excerpt of the offending line
/// whose name gives the real line and column.
fn excerpt(name: &str, text: &str, span: SourceSpan) -> (NamedSource<String>, SourceSpan) {
    // Spans from parsers can fall inside a multi-byte character (at the end
    // of a cut file, say): widen them to whole characters.
    let mut start = span.offset().min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (span.offset() + span.len()).clamp(start, text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let span = SourceSpan::new(start.into(), end - start);
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let long_line = line_end - line_start > MAX_SHOWN_LINE;
    if !long_line && text.len() <= MAX_SHOWN_FILE {
        return (NamedSource::new(name, text.to_string()), span);
    }
    let floor = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let ceil = |mut i: usize| {
        while i < text.len() && !text.is_char_boundary(i) {
            i += 1;
        }
        i
    };
    let from = floor(start.saturating_sub(80).max(line_start));
    let to = ceil((end.max(start + 1) + 80).min(line_end));
    let head = if from > line_start { "…" } else { "" };
    let tail = if to < line_end { "…" } else { "" };
    let shown = format!("{head}{}{tail}", &text[from..to]);
    let line = text.as_bytes()[..start]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1;
    let column = text[line_start..start].chars().count() + 1;
    let offset = head.len() + (start - from);
    let len = (end - start).min(to - start);
    (
        NamedSource::new(
            format!("{name} (line {line}, column {column}; excerpt)"),
            shown,
        ),
        SourceSpan::new(offset.into(), len),
    )
}

/// Suggests the candidate closest to `given` (Jaro–Winkler), if any is close enough.
pub fn closest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(given, c), c))
        .filter(|(score, _)| *score > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// A help line naming the closest of `known` to `given` and listing them all:
/// "did you mean `x`? {what}: a, b, c" or, with nothing close, "{what}: a, b, c".
pub fn did_you_mean<'a>(
    given: &str,
    known: impl IntoIterator<Item = &'a str>,
    what: &str,
) -> String {
    let known: Vec<&str> = known.into_iter().collect();
    let list = known.join(", ");
    match closest(given, known.iter().copied()) {
        Some(best) => format!("did you mean `{best}`? {what}: {list}"),
        None => {
            let mut w = what.chars();
            let what = w
                .next()
                .map_or(String::new(), |c| c.to_lowercase().chain(w).collect());
            format!("{what}: {list}")
        }
    }
}

/// Turns serde's "unknown field `x`, expected one of `a`, `b`" (and the same for
/// variants) into a help line that names the closest valid choice.
pub fn suggest_from_serde_message(message: &str) -> Option<String> {
    let (kind, rest) = if let Some(rest) = message.strip_prefix("unknown field `") {
        ("key", rest)
    } else if let Some(rest) = message
        .strip_prefix("unknown variant `")
        .or_else(|| message.strip_prefix("unknown value `"))
    {
        ("value", rest)
    } else {
        return None;
    };
    let given = rest.split('`').next()?;
    let expected_part = rest.split_once("expected ")?.1;
    let candidates: Vec<&str> = expected_part
        .split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s)
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let list = candidates
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Some(match closest(given, candidates.iter().copied()) {
        Some(best) => format!("did you mean `{best}`? Valid {kind}s here: {list}"),
        None => format!("valid {kind}s here: {list}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_closest_key_for_a_typo() {
        let help = suggest_from_serde_message(
            "unknown field `prefx_tokens`, expected one of `prefix_tokens`, `runs_per_day`",
        )
        .unwrap();
        assert!(help.starts_with("did you mean `prefix_tokens`?"), "{help}");
    }

    #[test]
    fn lists_choices_when_nothing_is_close() {
        let help =
            suggest_from_serde_message("unknown variant `zzz`, expected `none` or `5m`").unwrap();
        assert!(help.contains("`none`, `5m`"), "{help}");
        assert!(!help.contains("did you mean"), "{help}");
    }
}
