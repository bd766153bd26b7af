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
