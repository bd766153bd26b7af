//! One line of a Claude Code transcript as written: the fields tokencast
//! reads (a hand-written visitor stops at the last of them), the content
//! blocks measured in place, and the line types that carry nothing to count.

use super::*;

/// The fields of a log line tokencast reads.
#[derive(Default)]
pub(super) struct LineRec<'a> {
    pub(super) kind: Option<Text<'a>>,
    pub(super) session_id: Option<Text<'a>>,
    pub(super) is_sidechain: bool,
    pub(super) timestamp: Option<Text<'a>>,
    pub(super) subtype: Option<Text<'a>>,
    pub(super) message: Option<Message<'a>>,
    /// `parentUuid` is present and null: the first message of a chain (an
    /// inline subagent's conversation starts so).
    pub(super) root: bool,
    /// An `attachment` line's payload, as JSON bytes (hook output,
    /// reminders, skill listings, tool-list changes: context the client
    /// sends with the next request).
    pub(super) attachment_bytes: Option<u64>,
    /// A `content-replacement` line's records, as JSON (read as
    /// [`Replacement`]s for that line type only): what the model saw in
    /// place of a large tool result (CLI 2.1.x's tool-result budget).
    pub(super) replacements: Option<&'a serde_json::value::RawValue>,
    /// A `microcompact_boundary` line's metadata, as JSON (read as
    /// [`Microcompact`] for that line only).
    pub(super) microcompact: Option<&'a serde_json::value::RawValue>,
}

/// What a `microcompact_boundary` line says the client did: it cleared the
/// content of these tool results from the context (each leaves a short
/// marker) before the thread's next request.
#[derive(Deserialize)]
pub(super) struct Microcompact<'a> {
    #[serde(default, borrow, rename = "compactedToolIds")]
    pub(super) compacted_tool_ids: Vec<Text<'a>>,
}

/// One record of a `content-replacement` line: `replacement` is the exact
/// text the model was sent instead of tool result `toolUseId` (a preview
/// of a result the client stored on disk). Only its length is kept.
#[derive(Deserialize)]
pub(super) struct Replacement<'a> {
    #[serde(default, borrow)]
    pub(super) kind: Option<Text<'a>>,
    #[serde(default, borrow, rename = "toolUseId")]
    pub(super) tool_use_id: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(super) replacement: Option<&'a serde_json::value::RawValue>,
}

/// The error a line's reader stops with once it has every field it needs.
pub(super) const HAVE_ALL: &str = "tokencast: every field read";

/// Reads a line's fields, and stops once `type`, `message` and `timestamp`
/// are read: what follows them in Claude Code's lines is the structured copy
/// of the tool result (`toolUseResult`) and ids, often half the line's
/// bytes, which tokencast never uses. The rest of such a line is only
/// checked for its closing brace (see [`parse_line`]).
pub(super) struct LineVisitor<'a, 's>(&'s mut LineRec<'a>, &'s std::cell::Cell<bool>);

impl<'de: 'a, 'a> Visitor<'de> for LineVisitor<'a, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<M: de::MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let (mut kind, mut message, mut timestamp) = (false, false, false);
        while let Some(key) = map.next_key::<Field>()? {
            match key {
                Field::Type => {
                    self.0.kind = map.next_value()?;
                    kind = true;
                }
                Field::Message => {
                    self.0.message = map.next_value()?;
                    message = true;
                }
                Field::Timestamp => {
                    self.0.timestamp = map.next_value()?;
                    timestamp = true;
                }
                Field::SessionId => self.0.session_id = map.next_value()?,
                Field::ParentUuid => {
                    self.0.root = map.next_value::<Option<de::IgnoredAny>>()?.is_none();
                }
                Field::IsSidechain => {
                    self.0.is_sidechain = map.next_value::<Option<bool>>()?.unwrap_or(false)
                }
                Field::Subtype => self.0.subtype = map.next_value()?,
                Field::Attachment => {
                    let raw: &'de serde_json::value::RawValue = map.next_value()?;
                    self.0.attachment_bytes = Some(raw.get().len() as u64);
                }
                Field::Replacements => self.0.replacements = map.next_value()?,
                Field::MicrocompactMetadata => self.0.microcompact = map.next_value()?,
                Field::Other => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
            if kind && message && timestamp {
                self.1.set(true);
                return Err(de::Error::custom(HAVE_ALL));
            }
        }
        Ok(())
    }
}

/// A line's keys that tokencast reads; any other is skipped. Read as an
/// identifier, a key costs no allocation.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum Field {
    #[serde(rename = "type")]
    Type,
    Message,
    Timestamp,
    SessionId,
    ParentUuid,
    IsSidechain,
    Subtype,
    Attachment,
    Replacements,
    MicrocompactMetadata,
    #[serde(other)]
    Other,
}

/// A string value of a line: borrowed from the line where it has no
/// escapes (nearly always), decoded into its own buffer where it has.
#[derive(Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(transparent)]
pub(super) struct Text<'a>(#[serde(borrow)] pub(super) std::borrow::Cow<'a, str>);

impl Text<'_> {
    /// The string, as `&str`.
    pub(super) fn as_str(&self) -> &str {
        &self.0
    }

    /// The string, owned.
    pub(super) fn into_owned(self) -> String {
        self.0.into_owned()
    }
}

/// Parses one line: the whole object, or up to its last needed field (the
/// line must then still end with the object's closing brace).
pub(super) fn parse_line(text: &[u8]) -> Result<LineRec<'_>, serde_json::Error> {
    // See [`crate::import::lines::utf8`]: a line that is UTF-8 throughout
    // is read as text, whose strings serde_json then takes as they are.
    match crate::import::lines::utf8(text) {
        Some(s) => parse_with(text, serde_json::Deserializer::from_str(s)),
        None => parse_with(text, serde_json::Deserializer::from_slice(text)),
    }
}

/// [`parse_line`] with `de` reading `text`.
fn parse_with<'a, R: serde_json::de::Read<'a>>(
    text: &'a [u8],
    mut de: serde_json::Deserializer<R>,
) -> Result<LineRec<'a>, serde_json::Error> {
    let mut rec = LineRec::default();
    let stopped = std::cell::Cell::new(false);
    match de::Deserializer::deserialize_map(&mut de, LineVisitor(&mut rec, &stopped)) {
        Ok(()) => de.end().map(|()| rec),
        Err(_) if stopped.get() => {
            let last = text.iter().rev().find(|b| !b.is_ascii_whitespace());
            if last == Some(&b'}') {
                Ok(rec)
            } else {
                // Read on to report where the line breaks off.
                serde_json::from_slice::<de::IgnoredAny>(text).map(|_| rec)
            }
        }
        Err(e) => Err(e),
    }
}

#[derive(Deserialize)]
pub(super) struct Message<'a> {
    #[serde(default, borrow)]
    pub(super) id: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(super) model: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(super) usage: Option<UsageWithIterations<'a>>,
    #[serde(default, borrow)]
    pub(super) content: Blocks<'a>,
}

#[derive(Deserialize, Default, Clone, Copy)]
pub(super) struct UsageRaw {
    #[serde(default)]
    pub(super) input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) output_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_creation: Option<CacheCreation>,
}

#[derive(Deserialize, Default, Clone, Copy)]
pub(super) struct CacheCreation {
    #[serde(default)]
    pub(super) ephemeral_5m_input_tokens: u64,
    #[serde(default)]
    pub(super) ephemeral_1h_input_tokens: u64,
}

/// `usage` with its optional `iterations`: [`UsageRaw`]'s fields beside
/// them (spelled out rather than `#[serde(flatten)]`, which buffers every
/// field of every usage before reading it).
#[derive(Deserialize)]
pub(super) struct UsageWithIterations<'a> {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation: Option<CacheCreation>,
    /// Absent, `null` (CLI 2.1.1xx) or the server-side iterations.
    #[serde(default)]
    pub(super) iterations: Option<Vec<UsageRaw>>,
    /// `standard` or `fast` (fast mode, billed at a multiple of every price).
    #[serde(default, borrow)]
    speed: Option<Text<'a>>,
    /// Where the request ran: `global` or empty (no uplift), or a region
    /// billed at an uplift (`us`).
    #[serde(default, borrow)]
    inference_geo: Option<Text<'a>>,
}

impl UsageRaw {
    pub(super) fn usage(&self) -> Usage {
        let created = self.cache_creation_input_tokens.unwrap_or(0);
        let (w5, w1) = match self.cache_creation {
            Some(c) => (c.ephemeral_5m_input_tokens, c.ephemeral_1h_input_tokens),
            None => (created, 0),
        };
        Usage {
            input: self.input_tokens.unwrap_or(0),
            cache_write_5m: w5,
            cache_write_1h: w1,
            cache_read: self.cache_read_input_tokens.unwrap_or(0),
            output: self.output_tokens.unwrap_or(0),
        }
    }
}

/// `message.content`: a string (only its length is kept) or content blocks.
#[derive(Default)]
pub(super) struct Blocks<'a>(pub(super) Vec<Block<'a>>, pub(super) u64);

#[derive(Deserialize)]
pub(super) struct Block<'a> {
    #[serde(rename = "type", default, borrow)]
    pub(super) kind: std::borrow::Cow<'a, str>,
    #[serde(default, borrow)]
    pub(super) id: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(super) name: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub(super) tool_use_id: Option<Text<'a>>,
    #[serde(default)]
    pub(super) is_error: Option<bool>,
    #[serde(default, borrow)]
    pub(super) content: Option<&'a serde_json::value::RawValue>,
    #[serde(default, borrow)]
    pub(super) text: Option<&'a serde_json::value::RawValue>,
    #[serde(default, borrow)]
    pub(super) thinking: Option<&'a serde_json::value::RawValue>,
    #[serde(default, borrow)]
    pub(super) input: Option<&'a serde_json::value::RawValue>,
}

impl Block<'_> {
    /// Bytes of an assistant block as the next prompts carry it: text and
    /// thinking decoded, a tool call's name and input as JSON.
    pub(super) fn output_bytes(&self) -> u64 {
        let text = |r: Option<&serde_json::value::RawValue>| {
            r.and_then(|t| ResultContent::measure(t).ok())
                .map_or(0, |c| c.bytes)
        };
        match &*self.kind {
            "text" => text(self.text),
            "thinking" => text(self.thinking),
            "tool_use" | "server_tool_use" => {
                self.name.as_ref().map_or(0, |n| n.as_str().len() as u64)
                    + self.input.map_or(0, |i| i.get().len() as u64)
            }
            _ => 0,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Blocks<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Blocks<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Blocks<'a>, E> {
                Ok(Blocks(Vec::new(), text.len() as u64))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Blocks<'a>, E> {
                Ok(Blocks::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Blocks<'a>, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<Block<'a>>()? {
                    out.push(b);
                }
                Ok(Blocks(out, 0))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// Line types that carry nothing to count (client state, titles, modes,
/// links): those the CLI writes and reads back when it resumes a session
/// (2.1.x), besides the conversation's own lines.
pub(super) const QUIET_TYPES: [&str; 27] = [
    "summary",
    "progress",
    "file-history-snapshot",
    "file-history-delta",
    "attribution-snapshot",
    "queue-operation",
    "system",
    "result",
    "custom-title",
    "ai-title",
    "tag",
    "agent-name",
    "agent-color",
    "agent-setting",
    "permission-mode",
    "mode",
    "isolation-latch",
    "last-prompt",
    "bridge-session",
    "worktree-state",
    "pr-link",
    "fork-context-ref",
    "frame-link",
    "relocated",
    "atis-latch",
    "speculation-accept",
    "marble-origami-snapshot",
];

/// A serde_json error's kind, without any of the line's text.
pub(super) fn category(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Io => "read error",
        serde_json::error::Category::Syntax => "syntax error",
        serde_json::error::Category::Data => "unexpected value",
        serde_json::error::Category::Eof => "truncated",
    }
}

impl UsageWithIterations<'_> {
    /// `speed` and `inference_geo`, as logged ([`crate::import::priced_model`]).
    pub(super) fn speed_and_geo(&self) -> (Option<&str>, Option<&str>) {
        (
            self.speed.as_ref().map(Text::as_str),
            self.inference_geo.as_ref().map(Text::as_str),
        )
    }

    /// The request's usage: the sum of its iterations when it has them.
    pub(super) fn total(self) -> Usage {
        match self.iterations {
            Some(its) if !its.is_empty() => its
                .iter()
                .fold(Usage::default(), |acc, u| acc.plus(&u.usage())),
            _ => UsageRaw {
                input_tokens: self.input_tokens,
                cache_creation_input_tokens: self.cache_creation_input_tokens,
                cache_read_input_tokens: self.cache_read_input_tokens,
                output_tokens: self.output_tokens,
                cache_creation: self.cache_creation,
            }
            .usage(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_line, parse_with, LineRec};

    /// What a test compares of a line read: the fields and the measured
    /// blocks, or the error's column and kind.
    fn seen(r: Result<LineRec<'_>, serde_json::Error>) -> String {
        match r {
            Ok(l) => {
                let text = |t: &Option<super::Text>| t.as_ref().map(|t| t.as_str().to_string());
                let blocks = l.message.as_ref().map(|m| {
                    m.content
                        .0
                        .iter()
                        .map(|b| (b.kind.to_string(), b.output_bytes()))
                        .collect::<Vec<_>>()
                });
                format!(
                    "ok {:?} {:?} {:?} {:?} {} {} {:?} {:?}",
                    text(&l.kind),
                    text(&l.session_id),
                    text(&l.timestamp),
                    l.message.as_ref().map(|m| text(&m.id)),
                    l.root,
                    l.is_sidechain,
                    l.attachment_bytes,
                    blocks
                )
            }
            Err(e) => format!("err {:?} at {} ({})", e.classify(), e.column(), e.is_eof()),
        }
    }

    /// The bytes reader, as every line was read before lines were checked
    /// as UTF-8 at once.
    fn from_bytes(text: &[u8]) -> Result<LineRec<'_>, serde_json::Error> {
        parse_with(text, serde_json::Deserializer::from_slice(text))
    }

    #[test]
    fn a_line_reads_the_same_from_its_text_as_from_its_bytes() {
        let head = r#"{"type":"assistant","sessionId":"s1","parentUuid":null,"#;
        let lines: Vec<Vec<u8>> = vec![
            // ASCII, escapes, a surrogate pair, multi-byte text.
            format!(r#"{head}"message":{{"id":"m1","content":[{{"type":"text","text":"a\"b\\c\u00e9\ud83d\ude00 é 😀"}},{{"type":"tool_use","name":"Bash","input":{{"cmd":"ls ü"}}}}]}},"timestamp":"2026-01-01T00:00:00Z"}}"#).into_bytes(),
            // Stopped after the fields read: the rest is never looked at.
            format!(r#"{head}"timestamp":"2026-01-01T00:00:00Z","message":{{"id":"m2","content":"x"}},"toolUseResult":{{"stdout":"é"}}}}"#).into_bytes(),
            r#"{"type":"attachment","attachment":{"hook":"ö","n":[1,2]},"timestamp":"t"}"#.as_bytes().to_vec(),
            // Broken: truncated, a bad escape, a lone surrogate, bad grammar.
            format!(r#"{head}"message":{{"id":"m3","content":[{{"type":"text","text":"abc"#).into_bytes(),
            format!(r#"{head}"message":{{"id":"m4","content":[{{"type":"text","text":"a\qb"}}]}}}}"#).into_bytes(),
            format!(r#"{head}"message":{{"id":"m5","content":[{{"type":"text","text":"\ud800"}}]}}}}"#).into_bytes(),
            format!(r#"{head}"message":{{"id":"m6",}}}}"#).into_bytes(),
            b"[1,2,3]".to_vec(),
            b"{\"type\":\"user\"} trailing".to_vec(),
        ];
        for line in &lines {
            assert!(crate::import::lines::utf8(line).is_some());
            assert_eq!(
                seen(parse_line(line)),
                seen(from_bytes(line)),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        // The first line's text block, decoded: "a", a quote, "b", a backslash,
        // "c" (5 bytes), "é" twice (2 each), "😀" twice (4 each), two spaces.
        assert!(
            seen(parse_line(&lines[0])).contains("[(\"text\", 19), (\"tool_use\""),
            "{}",
            seen(parse_line(&lines[0]))
        );
    }

    #[test]
    fn a_line_that_is_not_utf8_is_read_from_its_bytes_as_before() {
        // A bad byte where the reader never looks: the line is still read.
        let mut past = br#"{"type":"user","timestamp":"t","message":{"id":"m","content":"x"},"toolUseResult":""#.to_vec();
        past.extend_from_slice(&[0xff, b'"', b'}']);
        // One in a field it reads: an error at that byte's string.
        let mut inside = br#"{"type":"user","message":{"id":"m"#.to_vec();
        inside.extend_from_slice(&[0xc3, b'"', b'}', b'}']);
        for line in [&past, &inside] {
            assert!(crate::import::lines::utf8(line).is_none());
            assert_eq!(seen(parse_line(line)), seen(from_bytes(line)));
        }
        assert!(seen(parse_line(&past)).starts_with("ok Some(\"user\")"));
        assert!(seen(parse_line(&inside)).starts_with("err"));
    }
}
