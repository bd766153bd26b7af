//! A trim rule: how results are trimmed for the "trimmed" variants when a
//! rule says it rather than the trace's `trimmed_bytes` (`import --trim`,
//! a scenario's `[assumptions] trim`, a live page's trim control).

use serde::{Deserialize, Serialize};
use std::fmt;

/// How results are trimmed for the "trimmed" variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Trim {
    /// Trimmed is raw (the default: nothing known about trimming).
    #[default]
    None,
    /// Keep at most this many bytes of each result.
    KeepBytes(u64),
    /// Keep this percentage of each result (0–100).
    KeepPercent(u64),
}

impl Trim {
    /// No rule: the trace's own trimmed sizes.
    pub fn is_none(&self) -> bool {
        *self == Trim::None
    }

    /// Parses `4096` (bytes kept per result) or `25%` (share kept).
    pub fn parse(s: &str) -> Option<Trim> {
        let s = s.trim();
        match s.strip_suffix('%') {
            Some(p) => p
                .trim()
                .parse()
                .ok()
                .filter(|p| *p <= 100)
                .map(Trim::KeepPercent),
            None => s.parse().ok().map(Trim::KeepBytes),
        }
    }

    /// The trimmed size of a result of `raw` bytes.
    pub fn apply(self, raw: u64) -> u64 {
        match self {
            Trim::None => raw,
            Trim::KeepBytes(n) => raw.min(n),
            // At most 100 %, so the share fits where the raw size did.
            Trim::KeepPercent(p) => {
                u64::try_from(u128::from(raw) * u128::from(p) / 100).unwrap_or(raw)
            }
        }
    }

    /// How the rule reads beside the figures it shapes.
    pub fn sentence(self) -> Option<String> {
        match self {
            Trim::None => None,
            Trim::KeepBytes(n) => Some(format!(
                "at most {} bytes of each result (trim = {n})",
                crate::text::group_thousands(&n.to_string())
            )),
            Trim::KeepPercent(p) => Some(format!("{p}% of each result (trim = \"{p}%\")")),
        }
    }

    /// How the rule reads in a scenario's comment.
    pub fn describe(self) -> String {
        match self {
            Trim::None => "trimmed = raw (no --trim rule given)".into(),
            Trim::KeepBytes(n) => format!("trimmed = at most {n} bytes per result (--trim {n})"),
            Trim::KeepPercent(p) => format!("trimmed = {p}% of each result (--trim {p}%)"),
        }
    }
}

/// The rule as written: `4096`, `25%`; empty for none.
impl fmt::Display for Trim {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Trim::None => Ok(()),
            Trim::KeepBytes(n) => write!(f, "{n}"),
            Trim::KeepPercent(p) => write!(f, "{p}%"),
        }
    }
}

impl From<Trim> for String {
    fn from(t: Trim) -> String {
        t.to_string()
    }
}

impl TryFrom<String> for Trim {
    type Error = String;
    fn try_from(s: String) -> Result<Trim, String> {
        if s.trim().is_empty() {
            return Ok(Trim::None);
        }
        Trim::parse(&s).ok_or_else(|| {
            format!(
                "`{s}` is not a trim rule: give bytes kept per result (4096) or a share kept (25%)"
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_reads_and_writes_as_the_scenario_writes_it() {
        for (text, rule) in [
            ("4096", Trim::KeepBytes(4096)),
            ("25%", Trim::KeepPercent(25)),
            ("", Trim::None),
        ] {
            assert_eq!(Trim::try_from(text.to_string()), Ok(rule));
            assert_eq!(rule.to_string(), text);
        }
        assert!(Trim::try_from("4 KB".to_string()).is_err());
        // A share of the largest size is exact, never wrapped.
        assert_eq!(Trim::KeepPercent(100).apply(u64::MAX), u64::MAX);
        assert_eq!(Trim::KeepPercent(50).apply(u64::MAX), u64::MAX / 2);
    }
}

/// The capabilities an imported trace gives its rows that are not tool
/// results: a user message, an attachment, the previous request's output
/// sent back as bytes, a request after which nothing entered. An import
/// never writes a tool under one of these names (see [`tool_capability`]).
pub const NOT_TOOL_RESULTS: [&str; 4] = [
    "(user message)",
    "(attachment)",
    "(assistant output)",
    "(no new context)",
];

/// The capability an imported trace writes for a tool named `name`: the
/// name, or, when a log names a tool like one of [`NOT_TOOL_RESULTS`], the
/// name marked as a tool's, so that a row's kind can always be read back.
pub fn tool_capability(name: &str) -> std::borrow::Cow<'_, str> {
    if NOT_TOOL_RESULTS.contains(&name) {
        std::borrow::Cow::Owned(format!("{name} (tool)"))
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// An imported trace (CSV) with each tool result's trimmed size made again
/// by `trim` from its raw size, as `import --trim` makes it; other rows
/// (their trimmed size is their raw size) and every other field as they
/// were. Or why the text is not such a trace.
pub fn retrim(csv_text: &str, trim: Trim) -> Result<String, String> {
    let mut reader = csv::ReaderBuilder::new().from_reader(csv_text.as_bytes());
    let headers = reader.headers().map_err(|e| e.to_string())?.clone();
    let at = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("the trace has no `{name}` column"))
    };
    let (capability, raw, trimmed) = (at("capability")?, at("raw_bytes")?, at("trimmed_bytes")?);
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(&headers).map_err(|e| e.to_string())?;
    for record in reader.records() {
        let record = record.map_err(|e| e.to_string())?;
        let tool = !NOT_TOOL_RESULTS.contains(&record.get(capability).unwrap_or(""));
        let size = record.get(raw).and_then(|r| r.trim().parse::<u64>().ok());
        let fields: Vec<String> = record
            .iter()
            .enumerate()
            .map(|(i, f)| match (i == trimmed, tool, size) {
                (true, true, Some(raw)) => trim.apply(raw).to_string(),
                _ => f.to_string(),
            })
            .collect();
        out.write_record(&fields).map_err(|e| e.to_string())?;
    }
    let bytes = out.into_inner().map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

#[cfg(test)]
mod retrim_tests {
    use super::*;

    #[test]
    fn only_tool_results_are_trimmed_again() {
        let csv = "call,capability,raw_bytes,trimmed_bytes,note\n\
                   1,Read,10000,10000,\n\
                   2,(user message),9000,9000,\n\
                   3,(user message) (tool),8000,8000,\"a, b\"\n";
        let again = retrim(csv, Trim::KeepBytes(4096)).unwrap();
        assert_eq!(
            again,
            "call,capability,raw_bytes,trimmed_bytes,note\n\
             1,Read,10000,4096,\n\
             2,(user message),9000,9000,\n\
             3,(user message) (tool),8000,4096,\"a, b\"\n"
        );
        assert_eq!(tool_capability("(attachment)"), "(attachment) (tool)");
        assert_eq!(tool_capability("Bash"), "Bash");
        assert!(retrim("call,raw_bytes\n1,2\n", Trim::None).is_err());
    }
}
