//! `tokencast diff`: compare two results line by line, like `infracost diff`.
//!
//! Each side is the canonical JSON document, either read from a saved file or
//! produced by simulating a scenario. The comparison reads only the JSON, so
//! any two results compare the same way.

use crate::error::InputError;
use crate::input::SourceText;
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;
use std::str::FromStr;

/// One compared figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffLine {
    /// What the figure is: `variant · line · bound`.
    pub key: String,
    /// Value on the left, if present.
    pub a: Option<Decimal>,
    /// Value on the right, if present.
    pub b: Option<Decimal>,
    /// b − a, when both are present.
    pub delta: Option<Decimal>,
    /// (b − a) ÷ a, when both are present and a ≠ 0.
    pub delta_share: Option<Decimal>,
}

/// A whole comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    /// Left name (its scenario).
    pub a: String,
    /// Right name.
    pub b: String,
    /// Every figure, in a stable order.
    pub lines: Vec<DiffLine>,
}

/// Reads a saved JSON result, checking that it is one.
pub fn parse_result(src: &SourceText) -> Result<Value, InputError> {
    let v: Value = serde_json::from_str(&src.text).map_err(|e| {
        let offset = offset_of(&src.text, e.line(), e.column());
        src.error_at(
            format!("{} is not valid JSON: {e}", src.name),
            offset..offset,
            "here",
        )
        .with_help("give a file written by `tokencast simulate --format json`, or a scenario .toml")
    })?;
    if !v.get("variants").is_some_and(Value::is_array)
        || !v.get("scenario").is_some_and(Value::is_string)
    {
        return Err(InputError::new(format!(
            "{} is not a tokencast result: it has no `scenario` and `variants`",
            src.name
        ))
        .with_help(
            "give a file written by `tokencast simulate --format json`, or a scenario .toml",
        ));
    }
    Ok(v)
}

fn offset_of(text: &str, line: usize, column: usize) -> usize {
    text.split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>()
        + column.saturating_sub(1)
}

fn dec(v: &Value) -> Option<Decimal> {
    match v {
        Value::String(s) => Decimal::from_str(s).ok(),
        Value::Number(n) => Decimal::from_str(&n.to_string()).ok(),
        _ => None,
    }
}

/// The figures of one result, keyed and ordered.
fn figures(doc: &Value) -> Vec<(String, Option<Decimal>)> {
    let mut out = Vec::new();
    for p in doc["context"].as_array().into_iter().flatten() {
        let results = p["results"].as_str().unwrap_or("?");
        for bound in ["lower", "upper"] {
            out.push((
                format!("{results} results · final request input tokens · {bound}"),
                dec(&p["final_request_input"][bound]),
            ));
        }
    }
    const LINES: [&str; 7] = [
        "uncached_input",
        "cache_write",
        "cache_read",
        "input",
        "output",
        "data_fee",
        "total",
    ];
    for v in doc["variants"].as_array().into_iter().flatten() {
        let name = v["name"].as_str().unwrap_or("?");
        for line in LINES {
            for bound in ["lower", "upper"] {
                out.push((
                    format!("{name} · {line} · {bound}"),
                    dec(&v["cost"][line][bound]),
                ));
            }
        }
        for bound in ["lower", "upper"] {
            out.push((
                format!("{name} · per day total · {bound}"),
                dec(&v["per_day"]["total"][bound]),
            ));
        }
    }
    out.push(("data fee (ledger)".into(), dec(&doc["ledger"]["total_usd"])));
    out
}

/// Compares two results, labelled `label_a` and `label_b` (file names, say).
pub fn compare(a: &Value, b: &Value, label_a: &str, label_b: &str) -> Diff {
    let fa = figures(a);
    let fb = figures(b);
    let mut keys: Vec<String> = fa.iter().map(|(k, _)| k.clone()).collect();
    for (k, _) in &fb {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    let get = |f: &[(String, Option<Decimal>)], k: &str| {
        f.iter().find(|(x, _)| x == k).and_then(|(_, v)| *v)
    };
    let lines = keys
        .into_iter()
        .map(|key| {
            let (va, vb) = (get(&fa, &key), get(&fb, &key));
            let delta = va.zip(vb).map(|(x, y)| y - x);
            let delta_share = va
                .zip(delta)
                .and_then(|(x, d)| (!x.is_zero()).then(|| d / x));
            DiffLine {
                key,
                a: va,
                b: vb,
                delta,
                delta_share,
            }
        })
        .collect();
    Diff {
        a: label_a.to_string(),
        b: label_b.to_string(),
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(total: &str) -> Value {
        json!({"scenario": "s", "context": [], "ledger": {"total_usd": "0.01"},
               "variants": [{"name": "v", "cost": {"total": {"lower": total, "upper": total}}, "per_day": {}}]})
    }

    #[test]
    fn computes_absolute_and_relative_deltas() {
        let d = compare(&doc("2.00"), &doc("2.50"), "a", "b");
        let line = d
            .lines
            .iter()
            .find(|l| l.key == "v · total · lower")
            .unwrap();
        assert_eq!(line.delta, Some(Decimal::new(50, 2)));
        assert_eq!(line.delta_share, Some(Decimal::new(25, 2)));
    }

    #[test]
    fn a_line_present_on_one_side_has_no_delta() {
        let mut b = doc("1");
        b["variants"][0]["name"] = json!("w");
        let d = compare(&doc("1"), &b, "a", "b");
        let only_a = d
            .lines
            .iter()
            .find(|l| l.key == "v · total · lower")
            .unwrap();
        assert_eq!((only_a.b, only_a.delta), (None, None));
    }
}
