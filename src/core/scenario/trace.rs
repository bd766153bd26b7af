//! The recorded trace: one row per tool request, from CSV or inline TOML.
//!
//! Rows keep everything the ledger needs (errors, replays, fees); only
//! successful, non-replayed responses become tool results in the context.

use super::content::ContentKind;
use super::trace_columns::{Columns, Fees};
use crate::error::InputError;
use crate::input::SourceText;
use arcstr::ArcStr;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

pub use crate::limits::MAX_RESULT_BYTES;
mod csv_errors;
#[cfg(feature = "parallel")]
mod in_blocks;
#[cfg(feature = "parallel")]
mod in_parallel;
#[cfg(feature = "parallel")]
pub(crate) use in_blocks::{read_csv_blocks, BLOCK};
mod shared;
use csv_errors::{by_name, field_span, line_and_span, record_start, records, too_many_rows};
pub use shared::Trace;
pub(crate) use shared::{FactsRef, Gathered, Sums};

/// One recorded tool request, as checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceCall {
    /// 1-based position in the trace (a trace holds at most
    /// [`MAX_TRACE_ROWS`](crate::limits::MAX_TRACE_ROWS) rows).
    pub row: u32,
    /// The run's call number for results (empty for errors and replays).
    pub call: Option<u32>,
    /// The capability, e.g. `reddit/search` (one shared string per name
    /// in a trace read from a file, behind a pointer of 8 bytes: 80 MB
    /// less at 10,000,000 rows than an `Arc<str>`).
    pub capability: ArcStr,
    /// The request's parameters, as recorded (free text).
    pub params: Params,
    /// HTTP status.
    pub status: u16,
    /// Results returned.
    pub items: u64,
    /// Response size as returned, in bytes (absent for errors without a body size).
    pub raw_bytes: Option<u64>,
    /// Response size after trimming, in bytes.
    pub trimmed_bytes: Option<u64>,
    /// Wall-clock latency in milliseconds.
    pub latency_ms: u64,
    /// The `charged_usd` of the response's billing block.
    pub charged_usd: Decimal,
    /// An idempotent replay: echoes the first billing, not charged again.
    pub replayed: bool,
    /// What an imported trace records of the row and the request that
    /// carried it (none in a trace in the seed's format): kept apart, so
    /// a row of a hand-written or generated trace does not carry twelve
    /// empty fields (a million-row trace takes half the memory).
    #[serde(
        flatten,
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "imported_or_none"
    )]
    pub imported: Option<Box<Imported>>,
}

/// The imported fields of a row read back (a saved result), `None` when
/// none is given: a row reads back equal to the row it was.
fn imported_or_none<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Box<Imported>>, D::Error> {
    let imported = Imported::deserialize(d)?;
    Ok((imported != Imported::default()).then(|| Box::new(imported)))
}

/// The fields of a [`TraceCall`] that only an imported trace gives.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Imported {
    /// Images in the result (counted, never turned into bytes).
    #[serde(default, skip_serializing_if = "crate::input::is_zero")]
    pub images: u64,
    /// Documents in the result.
    #[serde(default, skip_serializing_if = "crate::input::is_zero")]
    pub documents: u64,
    /// What the result holds; absent: see [`TraceCall::content_kind`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<ContentKind>,
    /// The result's tokens counted exactly with OpenAI's `o200k_base`
    /// tokenizer at import (never its text): a replay on a model of that
    /// tokenizer takes them instead of its bytes ÷ bytes per token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub o200k_tokens: Option<u64>,
    /// What the provider reported for the request that carried this result
    /// (imported logs), when the trace records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<Recorded>,
    /// The recorded request that carried this row (imported traces). When
    /// every row names one, the rows of one request enter the context
    /// together, before that one request: a request may follow several
    /// results, or only a user message or an attachment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<u64>,
    /// Output tokens of the previous request sent back with this row's
    /// request (on a request's first row; imported traces).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resent_output: Option<u64>,
    /// Output the previous request was billed for but that is not sent back
    /// (reasoning tokens), on a request's first row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden_output: Option<u64>,
    /// Earlier output taken out of the context before this row's request
    /// (the reasoning of a finished turn), on a request's first row. Given
    /// at all (0 too), the request starts a new turn that may rewrite the
    /// cache from the prefix (a variant's `turn_break_share`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_output: Option<u64>,
    /// Tokens that entered before this row's request that the log does not
    /// let anyone measure (an output logged as a streaming snapshot, context
    /// a compaction restored, lines the log lost), taken from the recorded
    /// growth of the prompt, on a request's first row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmeasured_tokens: Option<u64>,
    /// Milliseconds from the previous request to this row's request, as
    /// recorded (on a request's first row): cache expiry follows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap_ms: Option<u64>,
    /// The context was compacted right before this row's request: it holds
    /// the prefix and this request's rows (the summary), nothing earlier.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compacted: bool,
    /// The request before which the client cleared this row's content
    /// from the context (Claude Code's microcompaction): the row is in the
    /// prompts from its own request up to the one before, and the bytes
    /// leave with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleared_before: Option<u64>,
}

/// A row's free-text parameters, behind one thin pointer: most rows have
/// none, and a `Box<str>` in each (a pointer and a length) would make every
/// row of a large trace 8 bytes larger. Reads as the text, `""` when none.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[expect(
    clippy::box_collection,
    reason = "a thin pointer: the row holds 8 bytes, not a String's 24"
)]
pub struct Params(Option<Box<String>>);

impl Params {
    /// The parameters `text` (none when it is empty).
    pub fn new(text: &str) -> Params {
        Params((!text.is_empty()).then(|| Box::new(text.to_string())))
    }
}

impl std::ops::Deref for Params {
    type Target = str;
    fn deref(&self) -> &str {
        self.0.as_deref().map_or("", String::as_str)
    }
}

impl Serialize for Params {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self)
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Params, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        Ok(Params::new(&text))
    }
}

/// A row's 1-based position as a row holds it. Every reader refuses a
/// trace of more than [`MAX_TRACE_ROWS`](crate::limits::MAX_TRACE_ROWS)
/// rows before checking one, so the number fits (`u32::MAX` is never
/// reached).
fn row_number(row: usize) -> u32 {
    const _: () = assert!(crate::limits::MAX_TRACE_ROWS <= u32::MAX as usize);
    u32::try_from(row).unwrap_or(u32::MAX)
}

/// `text.trim()`, at once when the text starts and ends with a visible
/// ASCII character (as every field the fast path reads does): such a
/// character is not a blank, and a last byte below 128 is a whole one.
fn trimmed(text: &str) -> &str {
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => text,
        _ => text.trim(),
    }
}

/// A text field that is given and not empty, as an owned string.
fn owned<S: AsRef<str>>(text: Option<&S>) -> Option<String> {
    text.map(AsRef::as_ref)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

/// The usage a provider reported for one request, in tokencast's classes:
/// uncached input, cache writes per lifetime, cache reads, output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Recorded {
    /// The request's number in its thread (several results may share one).
    pub request: u64,
    /// When the request was made, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The model that served it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Its usage.
    #[serde(flatten)]
    pub usage: crate::pricing::Usage,
}

impl Recorded {
    /// The whole prompt: uncached input, writes and reads.
    pub fn prompt(&self) -> u64 {
        self.usage.prompt()
    }
}

impl TraceCall {
    /// A successful, first-time response: its body enters the context.
    pub fn enters_context(&self) -> bool {
        (200..300).contains(&self.status) && !self.replayed
    }

    /// The imported fields, when any is given.
    fn imported_field<T>(&self, get: impl Fn(&Imported) -> Option<T>) -> Option<T> {
        self.imported.as_deref().and_then(get)
    }

    /// [`Imported::images`].
    pub fn images(&self) -> u64 {
        self.imported.as_deref().map_or(0, |i| i.images)
    }

    /// [`Imported::documents`].
    pub fn documents(&self) -> u64 {
        self.imported.as_deref().map_or(0, |i| i.documents)
    }

    /// [`Imported::content`].
    pub fn content(&self) -> Option<ContentKind> {
        self.imported_field(|i| i.content)
    }

    /// [`Imported::o200k_tokens`].
    pub fn o200k_tokens(&self) -> Option<u64> {
        self.imported_field(|i| i.o200k_tokens)
    }

    /// [`Imported::recorded`].
    pub fn recorded(&self) -> Option<&Recorded> {
        self.imported.as_deref().and_then(|i| i.recorded.as_ref())
    }

    /// [`Imported::request`].
    pub fn request(&self) -> Option<u64> {
        self.imported_field(|i| i.request)
    }

    /// [`Imported::resent_output`].
    pub fn resent_output(&self) -> Option<u64> {
        self.imported_field(|i| i.resent_output)
    }

    /// [`Imported::hidden_output`].
    pub fn hidden_output(&self) -> Option<u64> {
        self.imported_field(|i| i.hidden_output)
    }

    /// [`Imported::dropped_output`].
    pub fn dropped_output(&self) -> Option<u64> {
        self.imported_field(|i| i.dropped_output)
    }

    /// [`Imported::unmeasured_tokens`].
    pub fn unmeasured_tokens(&self) -> Option<u64> {
        self.imported_field(|i| i.unmeasured_tokens)
    }

    /// [`Imported::gap_ms`].
    pub fn gap_ms(&self) -> Option<u64> {
        self.imported_field(|i| i.gap_ms)
    }

    /// [`Imported::compacted`].
    pub fn compacted(&self) -> bool {
        self.imported.as_ref().is_some_and(|i| i.compacted)
    }

    /// [`Imported::cleared_before`].
    pub fn cleared_before(&self) -> Option<u64> {
        self.imported_field(|i| i.cleared_before)
    }

    /// The imported fields, created empty when there are none yet.
    pub fn imported_mut(&mut self) -> &mut Imported {
        self.imported.get_or_insert_with(Default::default)
    }

    /// What its body holds: as the trace says, else text for the rows that
    /// are not tool results and tool output for the others.
    pub fn content_kind(&self) -> ContentKind {
        self.content()
            .unwrap_or_else(|| ContentKind::of_capability(&self.capability))
    }
}

/// The header of the trace CSV tokencast writes (an import's): the columns
/// of [`TraceRow`] in order, without the hand-written `round` and `params`.
pub const TRACE_HEADER: &str = "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed,images,documents,content,o200k_tokens,request,timestamp,model,recorded_input,recorded_cache_write_5m,recorded_cache_write_1h,recorded_cache_read,recorded_output,resent_output,hidden_output,dropped_output,unmeasured_tokens,gap_ms,compacted,cleared_before,note";

/// Headers earlier versions of tokencast wrote: an import still owns (and
/// may replace) the traces they mark.
pub const EARLIER_TRACE_HEADERS: [&str; 4] = ["call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed,images,documents,content,o200k_tokens,request,timestamp,model,recorded_input,recorded_cache_write_5m,recorded_cache_write_1h,recorded_cache_read,recorded_output,resent_output,hidden_output,dropped_output,unmeasured_tokens,gap_ms,compacted,note", "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed,images,documents,o200k_tokens,request,timestamp,model,recorded_input,recorded_cache_write_5m,recorded_cache_write_1h,recorded_cache_read,recorded_output,resent_output,hidden_output,dropped_output,unmeasured_tokens,gap_ms,compacted,note", "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed,images,documents,request,timestamp,model,recorded_input,recorded_cache_write_5m,recorded_cache_write_1h,recorded_cache_read,recorded_output,resent_output,hidden_output,dropped_output,unmeasured_tokens,gap_ms,compacted,note", "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed,images,documents,request,timestamp,model,recorded_input,recorded_cache_write_5m,recorded_cache_write_1h,recorded_cache_read,recorded_output,resent_output,hidden_output,dropped_output,gap_ms,compacted,note"];

/// A row of a trace as written in the CSV file or inline TOML: the one row
/// type the reader deserializes (`S = String`) and an import serializes
/// (`S = &str`), so the two cannot drift apart. Checked into a
/// [`TraceCall`] by [`parse_csv`] and the inline reader.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceRow<S> {
    /// The call number (several rows may share one: its pages).
    #[serde(default)]
    pub call: Option<u32>,
    /// A hand-written trace's round of parallel calls (not written).
    #[serde(default, skip_serializing)]
    pub round: Option<u32>,
    /// The tool capability, `reddit/search`.
    pub capability: S,
    /// A hand-written trace's call parameters (not written).
    #[serde(default, skip_serializing)]
    pub params: S,
    /// HTTP status.
    pub status: u16,
    /// Items in the response.
    pub items: u64,
    /// Bytes of the response as returned.
    #[serde(default)]
    pub raw_bytes: Option<u64>,
    /// Bytes after trimming.
    #[serde(default)]
    pub trimmed_bytes: Option<u64>,
    /// Tool latency.
    pub latency_ms: u64,
    /// What the data provider charged, USD.
    #[serde(deserialize_with = "crate::input::non_negative_decimal")]
    pub charged_usd: Decimal,
    /// A retry the provider answered from its own cache.
    #[serde(default)]
    pub replayed: bool,
    /// Images in the result.
    #[serde(default)]
    pub images: Option<u64>,
    /// Documents in the result.
    #[serde(default)]
    pub documents: Option<u64>,
    /// What the result holds: `code`, `output` or `text` (imported traces).
    #[serde(default)]
    pub content: Option<ContentKind>,
    /// The result's tokens counted with `o200k_base` (imported traces).
    #[serde(default)]
    pub o200k_tokens: Option<u64>,
    /// The recorded request this row entered before (imported traces).
    #[serde(default)]
    pub request: Option<u64>,
    /// When that request was made.
    #[serde(default)]
    pub timestamp: Option<S>,
    /// The model that request ran on.
    #[serde(default)]
    pub model: Option<S>,
    /// That request's recorded uncached input tokens (its first row only).
    #[serde(default)]
    pub recorded_input: Option<u64>,
    /// Its recorded 5-minute cache writes.
    #[serde(default)]
    pub recorded_cache_write_5m: Option<u64>,
    /// Its recorded 1-hour cache writes.
    #[serde(default)]
    pub recorded_cache_write_1h: Option<u64>,
    /// Its recorded cache reads.
    #[serde(default)]
    pub recorded_cache_read: Option<u64>,
    /// Its recorded output tokens.
    #[serde(default)]
    pub recorded_output: Option<u64>,
    /// The previous request's output sent back in this one's prompt.
    #[serde(default)]
    pub resent_output: Option<u64>,
    /// The previous request's output billed but never sent back (reasoning).
    #[serde(default)]
    pub hidden_output: Option<u64>,
    /// Earlier output taken out of the context before this request (the
    /// reasoning of the turn a user message closes); given at all (0 too),
    /// the request starts a new turn.
    #[serde(default)]
    pub dropped_output: Option<u64>,
    /// Tokens that entered before this request that the log does not let
    /// anyone measure, from the recorded prompt growth.
    #[serde(default)]
    pub unmeasured_tokens: Option<u64>,
    /// Milliseconds since the previous request.
    #[serde(default)]
    pub gap_ms: Option<u64>,
    /// The log marks a compaction before this request.
    #[serde(default)]
    pub compacted: Option<bool>,
    /// The request before which the client cleared this row's content from
    /// the context (a later one than the row's `request`).
    #[serde(default)]
    pub cleared_before: Option<u64>,
    /// Free text.
    #[serde(default)]
    pub note: S,
}

/// A row as read.
pub(crate) type RawCall = TraceRow<String>;

/// Where a raw row came from, so checks can point at it.
pub(crate) enum RowSite<'a> {
    Csv {
        src: &'a SourceText,
        /// Where the row starts (its line and span are found on an error).
        start: usize,
        headers: &'a csv::StringRecord,
    },
    Toml {
        src: &'a SourceText,
        span: std::ops::Range<usize>,
    },
}

impl RowSite<'_> {
    fn error(&self, row: usize, field: &str, message: &str, help: &str) -> InputError {
        match self {
            RowSite::Csv {
                src,
                start,
                headers,
            } => {
                let (line, span) = line_and_span(&src.text, *start);
                src.error_at(
                    format!(
                        "{}: row {row} (line {line}), column `{field}`: {message}",
                        src.name
                    ),
                    field_span(&src.text, span.clone(), headers, field).unwrap_or(span.clone()),
                    format!("column `{field}`"),
                )
                .with_help(help)
            }
            RowSite::Toml { src, span } => src
                .error_at(
                    format!("trace call {row}, field `{field}`: {message}"),
                    span.clone(),
                    format!("field `{field}`"),
                )
                .with_help(help),
        }
    }
}

/// The capability names of a trace, each held once: a million rows of a
/// few tools share a few strings rather than owning one each. Hashed with
/// foldhash ([`crate::hashing`]).
#[derive(Debug)]
pub(crate) struct Names(std::collections::HashSet<ArcStr, crate::hashing::NameHasher>);

impl Default for Names {
    fn default() -> Names {
        Names(std::collections::HashSet::with_hasher(
            crate::hashing::name_hasher(),
        ))
    }
}

impl Names {
    /// The shared string for `name`.
    pub(crate) fn get(&mut self, name: &str) -> ArcStr {
        if let Some(known) = self.0.get(name) {
            return known.clone();
        }
        let new = ArcStr::from(name);
        self.0.insert(new.clone());
        new
    }
}

impl<S: AsRef<str>> TraceRow<S> {
    /// Checks one row; `row` is 1-based. The checks run in the order a
    /// reader fixes a row: status and sizes, names and texts, token counts,
    /// then the recorded usage.
    pub(crate) fn check(self, row: usize, site: &RowSite) -> Result<TraceCall, InputError> {
        self.check_naming(row, site, &mut Names::default())
    }

    /// [`Self::check`], the capability's name taken from `names`.
    pub(crate) fn check_naming(
        self,
        row: usize,
        site: &RowSite,
        names: &mut Names,
    ) -> Result<TraceCall, InputError> {
        let _ = (self.round, &self.note);
        self.check_status_and_sizes(row, site)?;
        self.check_texts(row, site)?;
        let imported = if self.imports_nothing() {
            // Nothing for the checks below to find, nor an `Imported` to
            // build (a hand-written or generated trace's every row).
            None
        } else {
            self.check_token_counts(row, site)?;
            self.imported(row, site)?
        };
        Ok(TraceCall {
            imported,
            row: row_number(row),
            call: self.call,
            capability: names.get(trimmed(self.capability.as_ref())),
            params: Params::new(self.params.as_ref()),
            status: self.status,
            items: self.items,
            raw_bytes: self.raw_bytes,
            trimmed_bytes: self.trimmed_bytes,
            latency_ms: self.latency_ms,
            charged_usd: self.charged_usd,
            replayed: self.replayed,
        })
    }

    /// No field of the imported columns is given.
    fn imports_nothing(&self) -> bool {
        let counts = [
            self.images,
            self.documents,
            self.o200k_tokens,
            self.request,
            self.recorded_input,
            self.recorded_cache_write_5m,
            self.recorded_cache_write_1h,
            self.recorded_cache_read,
            self.recorded_output,
            self.resent_output,
            self.hidden_output,
            self.dropped_output,
            self.unmeasured_tokens,
            self.gap_ms,
            self.cleared_before,
        ];
        counts.iter().all(Option::is_none) && self.content.is_none() && self.compacted.is_none()
    }

    /// What the row records of an import, checked (`None` when it is
    /// nothing).
    fn imported(&self, row: usize, site: &RowSite) -> Result<Option<Box<Imported>>, InputError> {
        let imported = Imported {
            images: self.images.unwrap_or(0),
            documents: self.documents.unwrap_or(0),
            content: self.content,
            o200k_tokens: self.o200k_tokens,
            recorded: self.recorded(row, site)?,
            request: self.request,
            resent_output: self.resent_output,
            hidden_output: self.hidden_output,
            dropped_output: self.dropped_output,
            unmeasured_tokens: self.unmeasured_tokens,
            gap_ms: self.gap_ms,
            compacted: self.compacted.unwrap_or(false),
            cleared_before: self.cleared_before,
        };
        Ok((imported != Imported::default()).then(|| Box::new(imported)))
    }

    /// An HTTP status; a size for every response that enters the context,
    /// each within the limit and the trimmed one at most the raw one; the
    /// fee within its limit.
    fn check_status_and_sizes(&self, row: usize, site: &RowSite) -> Result<(), InputError> {
        let ok = (200..300).contains(&self.status);
        if !(100..600).contains(&self.status) {
            return Err(site.error(
                row,
                "status",
                &format!("{} is not an HTTP status", self.status),
                "write the response's HTTP status code, e.g. 200 or 422",
            ));
        }
        let sizes = [
            ("raw_bytes", self.raw_bytes),
            ("trimmed_bytes", self.trimmed_bytes),
        ];
        if ok && !self.replayed {
            if let Some((field, _)) = sizes.iter().find(|(_, v)| v.is_none()) {
                return Err(site.error(
                    row,
                    field,
                    "missing value",
                    "a successful response enters the context, so its size in bytes is needed",
                ));
            }
        }
        for (field, v) in sizes {
            if v.is_some_and(|b| b > MAX_RESULT_BYTES) {
                return Err(site.error(
                    row,
                    field,
                    &format!("{} B is more than the {MAX_RESULT_BYTES} B tokencast accepts for one response", v.unwrap_or(0)),
                    "one tool result of more than 10 GB cannot fit any model's context",
                ));
            }
        }
        // A mantissa within the limit is a fee within it (the scale only
        // divides): only a larger one is compared, at its scale.
        let max_fee = crate::limits::MAX_FEE_USD;
        if self.charged_usd.mantissa() > i128::from(max_fee)
            && self.charged_usd > Decimal::from(max_fee)
        {
            return Err(site.error(
                row,
                "charged_usd",
                &format!(
                    "{} USD is more than the {} USD tokencast accepts for one response",
                    self.charged_usd,
                    crate::limits::MAX_FEE_USD
                ),
                "write the fee of this one response in USD, e.g. 0.000792",
            ));
        }
        if let (Some(raw), Some(trimmed)) = (self.raw_bytes, self.trimmed_bytes) {
            if trimmed > raw {
                return Err(site.error(
                    row,
                    "trimmed_bytes",
                    &format!("trimmed size {trimmed} B is larger than the raw size {raw} B"),
                    "trimming only removes bytes: trimmed_bytes must be at most raw_bytes",
                ));
            }
        }
        Ok(())
    }

    /// A capability named; every text within its length.
    fn check_texts(&self, row: usize, site: &RowSite) -> Result<(), InputError> {
        if trimmed(self.capability.as_ref()).is_empty() {
            return Err(site.error(
                row,
                "capability",
                "missing value",
                "name the tool capability, e.g. reddit/search",
            ));
        }
        use crate::limits::{text_fits, MAX_NAME_CHARS, MAX_TEXT_CHARS};
        for (field, text, max) in [
            ("capability", Some(self.capability.as_ref()), MAX_NAME_CHARS),
            (
                "model",
                self.model.as_ref().map(AsRef::as_ref),
                MAX_NAME_CHARS,
            ),
            (
                "timestamp",
                self.timestamp.as_ref().map(AsRef::as_ref),
                MAX_NAME_CHARS,
            ),
            ("params", Some(self.params.as_ref()), MAX_TEXT_CHARS),
            ("note", Some(self.note.as_ref()), MAX_TEXT_CHARS),
        ] {
            if text.is_some_and(|t| !text_fits(t, max)) {
                return Err(site.error(
                    row,
                    field,
                    &format!("longer than {max} characters"),
                    &format!("shorten `{field}` to at most {max} characters"),
                ));
            }
        }
        Ok(())
    }

    /// Output sent back, hidden, dropped or unmeasured, and the gap, each
    /// within its limit.
    fn check_token_counts(&self, row: usize, site: &RowSite) -> Result<(), InputError> {
        for (field, v) in [
            ("resent_output", self.resent_output),
            ("hidden_output", self.hidden_output),
            ("dropped_output", self.dropped_output),
            ("unmeasured_tokens", self.unmeasured_tokens),
            ("o200k_tokens", self.o200k_tokens),
        ] {
            if v.is_some_and(|t| t > crate::limits::MAX_TOKENS) {
                return Err(site.error(
                    row,
                    field,
                    &format!(
                        "more than the {} tokens tokencast accepts for one request",
                        crate::limits::MAX_TOKENS
                    ),
                    "this is the output of one request, in tokens",
                ));
            }
        }
        if let Some(c) = self.cleared_before {
            if self.request.is_none_or(|r| c <= r) {
                return Err(site.error(
                    row,
                    "cleared_before",
                    &match self.request {
                        Some(r) => format!(
                            "the row is cleared before request {c}, which is not after the \
                             request {r} that carried it"
                        ),
                        None => "a row cleared from the context must name its `request`".into(),
                    },
                    "the number of a later request, before which the row left the context",
                ));
            }
        }
        if self.gap_ms.is_some_and(|g| g > crate::limits::MAX_GAP_MS) {
            return Err(site.error(
                row,
                "gap_ms",
                &format!(
                    "more than the {} ms (a year) tokencast accepts between two requests",
                    crate::limits::MAX_GAP_MS
                ),
                "the milliseconds from the previous request to this one",
            ));
        }
        Ok(())
    }

    /// The usage recorded for the request that carried this row, if any:
    /// it names the request, and each count is within the limit.
    fn recorded(&self, row: usize, site: &RowSite) -> Result<Option<Recorded>, InputError> {
        let usage = [
            self.recorded_input,
            self.recorded_cache_write_5m,
            self.recorded_cache_write_1h,
            self.recorded_cache_read,
            self.recorded_output,
        ];
        if usage.iter().all(Option::is_none) {
            return Ok(None);
        }
        let Some(request) = self.request else {
            return Err(site.error(
                row,
                "request",
                "missing value",
                "a row with recorded usage names the request that carried it (1, 2, …)",
            ));
        };
        if usage
            .iter()
            .any(|u| u.is_some_and(|t| t > crate::limits::MAX_TOKENS))
        {
            return Err(site.error(
                row,
                "recorded_input",
                "a recorded token count is beyond what tokencast accepts",
                "recorded counts are the provider's usage of one request",
            ));
        }
        Ok(Some(Recorded {
            request,
            timestamp: owned(self.timestamp.as_ref()),
            model: owned(self.model.as_ref()),
            usage: crate::pricing::Usage {
                input: usage[0].unwrap_or(0),
                cache_write_5m: usage[1].unwrap_or(0),
                cache_write_1h: usage[2].unwrap_or(0),
                cache_read: usage[3].unwrap_or(0),
                output: usage[4].unwrap_or(0),
            },
        }))
    }
}

/// A trace CSV file's name and digest beside its rows, read and checked
/// (the digest is taken while the rows are read).
pub(crate) fn read_csv(src: &SourceText) -> (super::InputFile, Result<Vec<TraceCall>, InputError>) {
    crate::par::join(|| super::input_file(src), || parse_csv(src))
}

/// Reads and checks a trace CSV file (a large one on every thread of the
/// pool, when the `parallel` feature is on).
pub fn parse_csv(src: &SourceText) -> Result<Vec<TraceCall>, InputError> {
    read_rows(src, Threads::All)
}

/// The columns every trace CSV has.
const REQUIRED: [&str; 8] = [
    "capability",
    "status",
    "items",
    "raw_bytes",
    "trimmed_bytes",
    "latency_ms",
    "charged_usd",
    "replayed",
];

/// The first of the [`REQUIRED`] columns the header row lacks.
fn missing_column(headers: &csv::StringRecord) -> Option<&'static str> {
    REQUIRED
        .into_iter()
        .find(|col| !headers.iter().any(|h| h == *col))
}

/// The threads a trace may be read on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Threads {
    /// Every thread of the pool, when the file allows it.
    All,
    /// The calling thread only (what the parallel reader is checked against).
    #[cfg(all(test, feature = "parallel"))]
    One,
}

fn read_rows(src: &SourceText, threads: Threads) -> Result<Vec<TraceCall>, InputError> {
    // Fields are trimmed (as `csv::Trim::All` would): the fast path trims
    // ASCII blanks itself, the serde path the whole record.
    let mut reader = csv::ReaderBuilder::new().from_reader(src.text.as_bytes());
    let mut headers = reader
        .headers()
        .map_err(|e| InputError::new(format!("{}: cannot read the header row: {e}", src.name)))?
        .clone();
    headers.trim();
    let header_len = src.text.lines().next().map_or(0, str::len);
    if let Some(col) = missing_column(&headers) {
        return Err(src
            .error_at(
                format!("{}: the header row has no `{col}` column", src.name),
                0..header_len,
                "header row",
            )
            .with_help(format!("a trace needs the columns {}", REQUIRED.join(", "))));
    }
    let columns = Columns::of(&headers);
    #[cfg(not(feature = "parallel"))]
    let _ = threads; // the calling thread is the only one
    #[cfg(feature = "parallel")]
    if let (Some(columns), Threads::All) = (&columns, threads) {
        let body = usize::try_from(reader.position().byte()).unwrap_or(usize::MAX);
        if let Some(calls) = in_parallel::rows(src, &headers, columns, body) {
            return Ok(calls);
        }
    }
    // One row a line, less the header: the vector is not copied as it grows.
    let lines = src.text.as_bytes().iter().filter(|&&b| b == b'\n').count();
    // More lines than rows allowed: count the records (quoted fields may
    // span lines) before anything is parsed or kept.
    if lines > crate::limits::MAX_TRACE_ROWS && records(src) > crate::limits::MAX_TRACE_ROWS {
        return Err(too_many_rows(src));
    }
    let mut calls = Vec::with_capacity(lines.min(crate::limits::MAX_TRACE_ROWS));
    let mut record = csv::StringRecord::new();
    let mut names = Names::default();
    let mut fees = Fees::default();
    loop {
        let pos_before = reader.position().clone();
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let start = e.position().map_or(pos_before.byte(), |p| p.byte()) as usize;
                let start = record_start(&src.text, start);
                let (line, span) = line_and_span(&src.text, start);
                return Err(src
                    .error_at(format!("{}: line {line}: {e}", src.name), span, "this row")
                    .with_help("every row needs as many fields as the header row"));
            }
        }
        let row = calls.len() + 1;
        if row > crate::limits::MAX_TRACE_ROWS {
            return Err(too_many_rows(src));
        }
        let pos = record.position().cloned().unwrap_or(pos_before);
        let start = record_start(&src.text, pos.byte() as usize);
        let site = RowSite::Csv {
            src,
            start,
            headers: &headers,
        };
        let call = match columns.as_ref().and_then(|c| c.read(&record, &mut fees)) {
            Some(raw) => raw.check_naming(row, &site, &mut names)?,
            None => {
                by_name(src, &record, &headers, row, start)?.check_naming(row, &site, &mut names)?
            }
        };
        calls.push(call);
    }
    Ok(calls)
}

/// Writes `rows` as a trace CSV (the header row, then each row) and checks
/// them as reading that text back gives them, without reading it: each row
/// as the reader sees it once written (its texts trimmed, an empty text
/// absent, the fee normalized; the hand-written `round` and `params` are
/// not written). A row the reader might see otherwise (a negative fee) or
/// that does not check, or more rows than a trace may have, makes the text
/// be read back instead, so an error is always the reader's own, with its
/// row, line and column.
pub(crate) fn write_rows<S: AsRef<str> + Serialize>(
    name: &str,
    rows: &[TraceRow<S>],
) -> (SourceText, Result<Vec<TraceCall>, InputError>) {
    let mut w = csv::Writer::from_writer(Vec::new());
    if rows.is_empty() {
        w.write_record(TRACE_HEADER.split(','))
            .expect("writing to memory cannot fail");
    }
    for row in rows {
        w.serialize(row).expect("writing to memory cannot fail");
    }
    let text = w.into_inner().expect("writing to memory cannot fail");
    let src = SourceText {
        name: name.to_string(),
        // Serialized from `str` fields: UTF-8 throughout.
        text: String::from_utf8(text)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    };
    let calls = checked_as_read(&src, rows).unwrap_or_else(|| parse_csv(&src));
    (src, calls)
}

/// The rows of [`write_rows`] checked as read back from `src`, or `None`
/// when only reading `src` says for sure.
fn checked_as_read<S: AsRef<str>>(
    src: &SourceText,
    rows: &[TraceRow<S>],
) -> Option<Result<Vec<TraceCall>, InputError>> {
    if rows.len() > crate::limits::MAX_TRACE_ROWS {
        return None;
    }
    let headers = csv::StringRecord::from(TRACE_HEADER.split(',').collect::<Vec<_>>());
    // Only for an error, which sends the text to the reader.
    let site = RowSite::Csv {
        src,
        start: 0,
        headers: &headers,
    };
    let mut names = Names::default();
    let mut calls = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let read = row.read_back()?;
        calls.push(read.check_naming(i + 1, &site, &mut names).ok()?);
    }
    Some(Ok(calls))
}

impl<S: AsRef<str>> TraceRow<S> {
    /// The row as reading it back once written gives it: texts trimmed
    /// (the reader trims every field), an empty timestamp or model absent,
    /// the fee normalized, the fields that are not written (`round`,
    /// `params`) as a reader finds them missing. `None` for a negative fee,
    /// which the reader refuses.
    fn read_back(&self) -> Option<TraceRow<&str>> {
        let fee = self.charged_usd;
        if fee.is_sign_negative() && !fee.is_zero() {
            return None;
        }
        fn text<S: AsRef<str>>(t: &S) -> Option<&str> {
            Some(t.as_ref().trim()).filter(|t| !t.is_empty())
        }
        Some(TraceRow {
            call: self.call,
            round: None,
            capability: self.capability.as_ref().trim(),
            params: "",
            status: self.status,
            items: self.items,
            raw_bytes: self.raw_bytes,
            trimmed_bytes: self.trimmed_bytes,
            latency_ms: self.latency_ms,
            charged_usd: fee.normalize(),
            replayed: self.replayed,
            images: self.images,
            documents: self.documents,
            content: self.content,
            o200k_tokens: self.o200k_tokens,
            request: self.request,
            timestamp: self.timestamp.as_ref().and_then(text),
            model: self.model.as_ref().and_then(text),
            recorded_input: self.recorded_input,
            recorded_cache_write_5m: self.recorded_cache_write_5m,
            recorded_cache_write_1h: self.recorded_cache_write_1h,
            recorded_cache_read: self.recorded_cache_read,
            recorded_output: self.recorded_output,
            resent_output: self.resent_output,
            hidden_output: self.hidden_output,
            dropped_output: self.dropped_output,
            unmeasured_tokens: self.unmeasured_tokens,
            gap_ms: self.gap_ms,
            compacted: self.compacted,
            cleared_before: self.cleared_before,
            note: self.note.as_ref().trim(),
        })
    }
}

/// Checks inline `[[trace.calls]]` rows.
pub(crate) fn check_inline(
    src: &SourceText,
    rows: Vec<toml::Spanned<RawCall>>,
) -> Result<Vec<TraceCall>, InputError> {
    if rows.len() > crate::limits::MAX_TRACE_ROWS {
        return Err(too_many_rows(src));
    }
    rows.into_iter()
        .enumerate()
        .map(|(i, spanned)| {
            let span = spanned.span();
            spanned
                .into_inner()
                .check(i + 1, &RowSite::Toml { src, span })
        })
        .collect()
}

#[cfg(test)]
mod row_tests;
