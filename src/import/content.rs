//! Measuring tool-result content as providers send it, without copying or
//! keeping its text: a JSON string's decoded UTF-8 length, and content
//! blocks (Anthropic `text`/`image`/`document`; OpenAI `text`,
//! `input_text`, `image_url`, `input_image`, `file`, `input_file`).

use serde::Deserialize;

/// A tool result's content, measured while it is read: UTF-8 bytes of its
/// text, images and documents counted. The text itself is dropped.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultContent {
    /// UTF-8 bytes of the text.
    pub bytes: u64,
    /// Images.
    pub images: u64,
    /// Documents (files).
    pub documents: u64,
}

#[derive(Deserialize)]
struct InnerBlock<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(default, borrow)]
    text: Option<&'a serde_json::value::RawValue>,
}

impl ResultContent {
    /// Measures a tool result's raw JSON content: a string, a list of
    /// blocks, or one block. Text is measured in place (its decoded UTF-8
    /// length), never copied.
    pub fn measure(raw: &serde_json::value::RawValue) -> Result<ResultContent, serde_json::Error> {
        let text = raw.get();
        let mut out = ResultContent::default();
        match text.as_bytes().first() {
            Some(b'"') => out.bytes = decoded_len(text),
            Some(b'[') => {
                let blocks: Vec<InnerBlock> = serde_json::from_str(text)?;
                for b in &blocks {
                    out.add(b);
                }
            }
            Some(b'{') => out.add(&serde_json::from_str::<InnerBlock>(text)?),
            _ => {}
        }
        Ok(out)
    }

    /// The tokens of a result's text under `o200k_base`: the text that
    /// [`ResultContent::measure`] counts in bytes (a string, or the text of
    /// a list of parts; images and files are not text).
    pub fn o200k_tokens(raw: &serde_json::value::RawValue) -> Result<u64, serde_json::Error> {
        // A `text` that is not a string holds no text (as `measure` reads it).
        let string = |r: &serde_json::value::RawValue| -> Result<u64, serde_json::Error> {
            Ok(serde_json::from_str::<std::borrow::Cow<str>>(r.get())
                .map_or(0, |t| super::o200k::count(&t)))
        };
        let text = raw.get();
        let parts = |blocks: &[InnerBlock]| -> Result<u64, serde_json::Error> {
            let mut n = 0u64;
            for b in blocks {
                match (&*b.kind, b.text) {
                    (
                        "image" | "image_url" | "input_image" | "document" | "file" | "input_file",
                        _,
                    ) => {}
                    (_, Some(t)) => n = n.saturating_add(string(t)?),
                    (_, None) => {}
                }
            }
            Ok(n)
        };
        match text.as_bytes().first() {
            Some(b'"') => string(raw),
            Some(b'[') => parts(&serde_json::from_str::<Vec<InnerBlock>>(text)?),
            Some(b'{') => parts(&[serde_json::from_str::<InnerBlock>(text)?]),
            _ => Ok(0),
        }
    }

    fn add(&mut self, b: &InnerBlock) {
        match &*b.kind {
            "image" | "image_url" | "input_image" => self.images += 1,
            "document" | "file" | "input_file" => self.documents += 1,
            _ => self.bytes += b.text.map_or(0, |t| decoded_len(t.get())),
        }
    }
}

/// The searchers [`decoded_len`] asks of every text, built once.
static ESCAPED_BACKSLASH: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(br"\\"));
static UNICODE_ESCAPE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(br"\u"));

/// The UTF-8 length of a JSON string literal once decoded (`raw` includes
/// its quotes and is valid JSON): escapes count as the bytes they stand for.
///
/// A string with no escaped backslash (`\\`) and no `\u` escape, as most
/// web pages, logs and prose a tool returns are, has only two-byte escapes
/// (`\n`, `\"`, …), each standing for one byte: its length is its bytes
/// less its backslashes, found in three vectorized passes (`memmem` twice,
/// `bytecount`). Walked an escape at a time, text with a backslash every 43
/// bytes (the 1 GB bench corpus's) took a `memchr` call per escape, 8 % of
/// the import's time. Any other string is walked so.
pub fn decoded_len(raw: &str) -> u64 {
    let b = raw.as_bytes();
    let (mut i, end) = (1usize, b.len().saturating_sub(1));
    if i >= end {
        return 0;
    }
    let inner = &b[i..end];
    if ESCAPED_BACKSLASH.find(inner).is_none() && UNICODE_ESCAPE.find(inner).is_none() {
        return (inner.len() - bytecount::count(inner, b'\\')) as u64;
    }
    let mut len = 0u64;
    while i < end {
        match memchr::memchr(b'\\', &b[i..end]) {
            None => {
                len += (end - i) as u64;
                break;
            }
            Some(j) => {
                len += j as u64;
                i += j + 1;
                if b.get(i) == Some(&b'u') {
                    let cp = hex4(&b[i + 1..]);
                    i += 5;
                    // A surrogate pair is one 4-byte character.
                    if (0xD800..0xDC00).contains(&cp)
                        && b.get(i) == Some(&b'\\')
                        && b.get(i + 1) == Some(&b'u')
                        && (0xDC00..0xE000).contains(&hex4(&b[i + 2..]))
                    {
                        len += 4;
                        i += 6;
                    } else {
                        len += match cp {
                            0..=0x7F => 1,
                            0x80..=0x7FF => 2,
                            _ => 3,
                        };
                    }
                } else {
                    len += 1;
                    i += 1;
                }
            }
        }
    }
    len
}

fn hex4(b: &[u8]) -> u32 {
    b.iter().take(4).fold(0, |acc, c| {
        acc * 16 + (*c as char).to_digit(16).unwrap_or(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoded_length_counts_what_escapes_stand_for() {
        for (raw, want) in [
            (r#""hello wörld""#, 12),
            (r#""hello w\u00f6rld""#, 12),
            (r#""a\nb\"c\\d""#, 7),
            (r#""\ud83d\ude00""#, 4),
            (r#""\u20ac""#, 3),
            (r#""""#, 0),
        ] {
            let decoded: String = serde_json::from_str(raw).unwrap();
            assert_eq!(decoded.len() as u64, want, "{raw}");
            assert_eq!(decoded_len(raw), want, "{raw}");
        }
    }

    /// Every way through: no escape, two-byte escapes only (counted), and
    /// strings with an escaped backslash or a `\u` escape (walked), against
    /// serde_json's decoding of the same literal.
    #[test]
    fn decoded_length_is_serde_jsons_either_way() {
        let cases = [
            r#""plain text""#,
            r#""line\nnext\t\"quoted\" \/ \b\f\r""#,
            r#""a\\nb""#,
            r#""\\u00e9 is no escape""#,
            r#""\\\\\"""#,
            r#""\u00e9\n""#,
            r#""é \n 😀""#,
        ];
        for raw in cases {
            let decoded: String = serde_json::from_str(raw).unwrap();
            assert_eq!(decoded_len(raw), decoded.len() as u64, "{raw}");
        }
        // serde_json writes a control character other than \n, \t and the
        // like as \u00XX: the strings mix text, escapes and both kinds.
        use proptest::prelude::*;
        let piece = prop_oneof![
            "[a-z é😀]{0,8}",
            Just("\n".to_string()),
            Just("\"".to_string()),
            Just("\\".to_string()),
            Just("\u{1}".to_string()),
            Just("\\u".to_string()),
        ];
        proptest!(|(parts in proptest::collection::vec(piece, 0..24))| {
            let text: String = parts.concat();
            let raw = serde_json::to_string(&text).unwrap();
            prop_assert_eq!(decoded_len(&raw), text.len() as u64, "{}", raw);
        });
    }

    #[test]
    fn blocks_of_both_providers() {
        let raw = serde_json::value::RawValue::from_string(
            r#"[{"type":"text","text":"abc"},{"type":"image","source":{}},{"type":"input_text","text":"de"},{"type":"image_url","image_url":{}},{"type":"input_file","file_id":"f"}]"#.into(),
        )
        .unwrap();
        let c = ResultContent::measure(&raw).unwrap();
        assert_eq!((c.bytes, c.images, c.documents), (5, 2, 1));
    }

    #[test]
    fn the_text_measured_is_the_text_counted() {
        let raw = |s: &str| serde_json::value::RawValue::from_string(s.to_string()).unwrap();
        let n = |s: &str| bpe_openai::o200k_base().count(s) as u64;
        assert_eq!(
            ResultContent::o200k_tokens(&raw(r#""hello world""#)).unwrap(),
            2
        );
        // Parts: the text ones, not the image; a `text` that is no string holds none.
        let parts = r#"[{"type": "text", "text": "a\nb"}, {"type": "image_url", "image_url": {"url": "x"}},
            {"type": "input_text", "text": "café"}, {"type": "text", "text": 7}]"#;
        assert_eq!(
            ResultContent::o200k_tokens(&raw(parts)).unwrap(),
            n("a\nb") + n("café")
        );
    }
}
