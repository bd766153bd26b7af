//! Located errors of the trace CSV: the line, column and field of a row
//! that cannot be read, with what would be right.

use super::RawCall;
use crate::error::InputError;
use crate::input::SourceText;
use rust_decimal::Decimal;

pub(super) fn too_many_rows(src: &SourceText) -> InputError {
    InputError::new(format!(
        "{}: more than {} rows",
        src.name,
        crate::limits::MAX_TRACE_ROWS
    ))
    .with_help("split the trace, or forecast long runs with `tokencast forecast --calls N`")
}

/// Records after the header, counted without keeping any.
pub(super) fn records(src: &SourceText) -> usize {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(src.text.as_bytes());
    let mut record = csv::ByteRecord::new();
    let mut n = 0;
    while let Ok(true) = reader.read_byte_record(&mut record) {
        n += 1;
    }
    n
}

/// A row read through serde by header name: the rows the fast path leaves
/// (see [`super::trace_columns`]), with every error located.
pub(super) fn by_name(
    src: &SourceText,
    record: &csv::StringRecord,
    headers: &csv::StringRecord,
    row: usize,
    start: usize,
) -> Result<RawCall, InputError> {
    let mut record = record.clone();
    record.trim();
    record.deserialize(Some(headers)).map_err(|e| {
        let (line, span) = line_and_span(&src.text, start);
        let (field, message) = describe_csv_error(&e, headers, &record);
        let help = column_help(&field);
        let field_span = record
            .position()
            .and_then(|_| field_span(&src.text, span.clone(), headers, &field))
            .unwrap_or(span.clone());
        src.error_at(
            format!(
                "{}: row {row} (line {}), column `{field}`: {message}",
                src.name, line
            ),
            field_span,
            format!("column `{field}`"),
        )
        .with_help(help)
    })
}

/// The 1-based line of the row starting at byte `start`, and its span.
pub(super) fn line_and_span(text: &str, start: usize) -> (u64, std::ops::Range<usize>) {
    let start = start.min(text.len());
    let line = text.as_bytes()[..start]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1;
    (line, start..line_end(text, start))
}

pub(super) fn line_end(text: &str, start: usize) -> usize {
    let start = start.min(text.len());
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    if end > start && text.as_bytes()[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// csv reports a record's start one byte early after a CRLF; skip line terminators.
pub(super) fn record_start(text: &str, byte: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = byte.min(bytes.len());
    while i < bytes.len() && (bytes[i] == b'\n' || bytes[i] == b'\r') {
        i += 1;
    }
    i
}

/// Byte span of one named field within a CSV line (best effort; quoted commas are handled).
pub(super) fn field_span(
    text: &str,
    line: std::ops::Range<usize>,
    headers: &csv::StringRecord,
    field: &str,
) -> Option<std::ops::Range<usize>> {
    let idx = headers.iter().position(|h| h == field)?;
    let bytes = &text.as_bytes()[line.clone()];
    let mut field_no = 0;
    let mut in_quotes = false;
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' => in_quotes = !in_quotes,
            b',' if !in_quotes => {
                if field_no == idx {
                    return Some(
                        line.start + start..line.start + i.max(start + 1).min(bytes.len()),
                    );
                }
                field_no += 1;
                start = i + 1;
            }
            _ => {}
        }
    }
    (field_no == idx).then(|| line.start + start..line.end.max(line.start + start + 1))
}

pub(super) fn describe_csv_error(
    e: &csv::Error,
    headers: &csv::StringRecord,
    record: &csv::StringRecord,
) -> (String, String) {
    if let csv::ErrorKind::Deserialize { err, .. } = e.kind() {
        // csv names the field of built-in conversions only; a column read by
        // our own deserializer (the fee) is found by reading it again.
        let fee_is_bad = || {
            headers
                .iter()
                .position(|h| h == "charged_usd")
                .and_then(|i| record.get(i))
                .is_some_and(|v| {
                    v.trim()
                        .parse::<Decimal>()
                        .map_or(true, |d| d.is_sign_negative() && !d.is_zero())
                })
        };
        let field = err
            .field()
            .and_then(|i| headers.get(i as usize))
            .map(str::to_string)
            .or_else(|| fee_is_bad().then(|| "charged_usd".to_string()))
            .unwrap_or_else(|| "?".into());
        let value = err
            .field()
            .and_then(|i| record.get(i as usize))
            .unwrap_or("");
        let message = match err.kind() {
            csv::DeserializeErrorKind::ParseInt(_) if value.trim().starts_with('-') => {
                if field.ends_with("_bytes") {
                    format!("{value}: a size cannot be negative")
                } else {
                    format!("{value}: `{field}` cannot be negative")
                }
            }
            csv::DeserializeErrorKind::ParseInt(pe) if pe.to_string().contains("empty") => {
                "missing value".to_string()
            }
            csv::DeserializeErrorKind::ParseInt(_) => "not a whole number".to_string(),
            csv::DeserializeErrorKind::ParseBool(_) => "not true or false".to_string(),
            csv::DeserializeErrorKind::Message(m) if m.starts_with("missing field") => {
                let f = m.split('`').nth(1).unwrap_or("?").to_string();
                return (f, "missing column".to_string());
            }
            other => other.to_string(),
        };
        return (field, message);
    }
    ("?".into(), e.to_string())
}

pub(super) fn column_help(field: &str) -> String {
    match field {
        "status" => "write the HTTP status code, e.g. 200".into(),
        "items" | "latency_ms" | "call" | "round" => {
            format!("`{field}` is a whole number, zero or more")
        }
        "raw_bytes" | "trimmed_bytes" => format!(
            "`{field}` is the response size in bytes, a whole number (leave it empty only for error rows)"
        ),
        "charged_usd" => "write the fee in USD, e.g. 0.000792, or 0 when not charged".into(),
        "replayed" => "write true or false".into(),
        _ => "see the trace columns in the README".into(),
    }
}
