//! Where an import reads from: the logs' default folders per source, the
//! price book (given or the source's own), and what to tell the user when
//! nothing was read.

use super::ImportSpec;
use crate::error::{AppError, InputError};
use crate::import::Source;
use crate::input::SourceText;
use std::path::{Path, PathBuf};

/// The price books `import` uses when none is given: the shipped books of
/// each source's provider.
pub(super) const ANTHROPIC_BOOK: &str =
    include_str!("../../../scenarios/prices/litellm-1.110.2/anthropic.toml");

/// Claude models on Amazon Bedrock, under Bedrock's ids (`us.anthropic.…`):
/// its regional profiles cost more than Anthropic's list prices.
pub(super) const BEDROCK_BOOK: &str =
    include_str!("../../../scenarios/prices/litellm-1.110.2/bedrock.toml");

/// Claude models the newer table no longer lists under their own names.
pub(super) const ANTHROPIC_OLDER_BOOK: &str =
    include_str!("../../../scenarios/prices/litellm-1.72.0/anthropic.toml");

pub(super) const OPENAI_BOOK: &str =
    include_str!("../../../scenarios/prices/litellm-1.110.2/openai.toml");

pub(super) const GOOGLE_BOOK: &str =
    include_str!("../../../scenarios/prices/litellm-1.110.2/google.toml");

/// The logs to read: those given (each must exist), or the source's
/// default places.
pub(super) fn log_paths(source: Source, given: &[PathBuf]) -> Result<Vec<PathBuf>, AppError> {
    if source == Source::Dataset {
        if given.is_empty() {
            return Err(InputError::new("import dataset: no dataset given")
                .with_help("give dataset folders, .parquet files or a quoted glob: tokencast import dataset team/ 'machines/*'")
                .into());
        }
        // Globs are expanded, and every path checked, as the dataset is read.
        return Ok(given.to_vec());
    }
    if given.is_empty() {
        if matches!(source, Source::Api | Source::Otel) {
            return Err(InputError::new(format!(
                "import {}: no files given ({} logs have no default location)",
                source.key(),
                source.title()
            ))
            .with_help(format!(
                "give the log files or their folder: tokencast import {} PATH …",
                source.key()
            ))
            .into());
        }
        let found = source.default_paths();
        if found.is_empty() {
            return Err(InputError::new(format!(
                "no {} logs found: looked in {}",
                source.title(),
                source.places_tried()
            ))
            .with_help(format!(
                "give the log directory or .jsonl files: tokencast import {} PATH",
                source.key()
            ))
            .into());
        }
        return Ok(found);
    }
    if let Some(p) = given.iter().find(|p| !p.exists()) {
        return Err(
            InputError::new(format!("{}: no such file or directory", p.display()))
                .with_help(format!(
                    "give a {} log directory or .jsonl files",
                    source.title()
                ))
                .into(),
        );
    }
    Ok(given.to_vec())
}

/// The price book given, or the shipped books of the source's providers;
/// when `--compare-model` names a model of another provider, every shipped
/// book (a Claude Code session on gpt-5.4, a Codex one on Claude).
/// The source's own price book, or every shipped book when a compared
/// model (or a pattern) is found in no model of the source's own.
pub(super) fn price_book(
    source: Source,
    given: Option<&Path>,
    compare: &[String],
) -> Result<SourceText, AppError> {
    let own = own_book(source, given)?;
    let finds = |b: &crate::pricing::PriceBook, m: &str| match glob::Pattern::new(m) {
        Ok(p) if m.contains(['*', '?', '[']) => b.model_ids().any(|id| p.matches(id)),
        _ => b.model_ids().any(|id| id == m),
    };
    let elsewhere = given.is_none()
        && !compare.is_empty()
        && crate::pricing::PriceBook::parse(&own)
            .is_ok_and(|b| compare.iter().any(|m| !finds(&b, m)));
    Ok(if elsewhere {
        SourceText {
            name: "litellm-1.110.2/anthropic.toml + bedrock.toml + openai.toml + google.toml + litellm-1.72.0/anthropic.toml"
                .into(),
            text: format!("{ANTHROPIC_BOOK}\n{BEDROCK_BOOK}\n{OPENAI_BOOK}\n{GOOGLE_BOOK}\n{ANTHROPIC_OLDER_BOOK}"),
        }
    } else {
        own
    })
}

pub(super) fn own_book(source: Source, given: Option<&Path>) -> Result<SourceText, AppError> {
    Ok(match (given, source) {
        (Some(p), _) => crate::files::read(p, "price book")?,
        (None, Source::ClaudeCode) => SourceText {
            name: "litellm-1.110.2/anthropic.toml + bedrock.toml + litellm-1.72.0/anthropic.toml".into(),
            text: format!("{ANTHROPIC_BOOK}\n{BEDROCK_BOOK}\n{ANTHROPIC_OLDER_BOOK}"),
        },
        // API logs may come from either provider: both books, one after the other.
        (None, Source::Api | Source::Otel) => SourceText {
            name: "litellm-1.110.2/anthropic.toml + bedrock.toml + openai.toml + litellm-1.72.0/anthropic.toml"
                .into(),
            text: format!("{ANTHROPIC_BOOK}\n{BEDROCK_BOOK}\n{OPENAI_BOOK}\n{ANTHROPIC_OLDER_BOOK}"),
        },
        // A dataset holds sessions of any provider.
        (None, Source::Dataset) => SourceText {
            name: "litellm-1.110.2/anthropic.toml + bedrock.toml + openai.toml + google.toml + litellm-1.72.0/anthropic.toml"
                .into(),
            text: format!("{ANTHROPIC_BOOK}\n{BEDROCK_BOOK}\n{OPENAI_BOOK}\n{GOOGLE_BOOK}\n{ANTHROPIC_OLDER_BOOK}"),
        },
        (None, Source::Codex) => SourceText {
            name: "litellm-1.110.2/openai.toml".into(),
            text: OPENAI_BOOK.to_string(),
        },
    })
}

/// The error when nothing could be read at all: no file of the source's
/// kind under the paths given, or files of which not one line was a
/// session's (a folder of YAML cassettes is not JSON lines). Sessions a
/// filter left out, or empty logs, are a result, not an error.
pub(super) fn nothing_read(
    spec: &ImportSpec,
    import: &crate::import::Import,
    sessions: usize,
) -> Option<InputError> {
    let key = spec.source.key();
    if import.files == 0 && spec.source != Source::Dataset {
        return Some(
            InputError::new(format!(
                "import {key}: no {} log file under {}{}",
                spec.source.title(),
                shown_paths(&spec.paths),
                other_files(&spec.paths)
            ))
            .with_help(format!(
                "{} logs are JSON lines (.jsonl{}); give their files or folders",
                spec.source.title(),
                if matches!(spec.source, Source::Api | Source::Otel) {
                    " or .json"
                } else {
                    ""
                }
            )),
        );
    }
    if let (0, Some(id)) = (sessions, &spec.filter.session) {
        return Some(
            InputError::new(format!(
                "import {key}: no session's id is or starts with `{}` in {} file(s) under {}{}",
                crate::output::name::display(id),
                import.files,
                shown_paths(&spec.paths),
                if spec.filter.since.is_some() || spec.filter.until.is_some() || spec.filter.project.is_some() {
                    " (with --since, --until or --project applied too)"
                } else {
                    ""
                }
            ))
            .with_help("give a session id as the summary lists it (its first 8 characters are enough), or leave out --session to import every session"),
        );
    }
    if sessions > 0 || import.problems.is_empty() || !spec.filter.is_empty() {
        return None;
    }
    let first = &import.problems[0];
    let found = spec
        .paths
        .iter()
        .find(|p| p.is_file())
        .and_then(|p| sniff(p))
        .map(|what| format!(" (the first file looks like {what}, not JSON lines)"))
        .unwrap_or_default();
    Some(
        InputError::new(format!(
            "import {key}: nothing could be read: {} file(s), {} problem(s), not one session{found}; the first: {}: line {}: {}",
            import.files,
            import.problems.len(),
            crate::output::name::display(&first.file),
            first.line,
            first.what
        ))
        .with_help(format!(
            "{} logs are JSON lines, one JSON object per line; give the files the agent wrote",
            spec.source.title()
        )),
    )
}

/// The paths given, for a message.
pub(super) fn shown_paths(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths
        .iter()
        .take(3)
        .map(|p| crate::output::name::display(&p.display().to_string()))
        .collect();
    let more = paths.len().saturating_sub(3);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// What else the paths hold, by extension (first 10,000 files walked):
/// `: found 3 .yaml file(s) (YAML, as VCR cassettes are)`.
pub(super) fn other_files(paths: &[PathBuf]) -> String {
    let mut by_ext: std::collections::BTreeMap<String, usize> = Default::default();
    for p in paths {
        for e in walkdir::WalkDir::new(p)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .take(10_000)
        {
            let ext = e.path().extension().map_or("(none)".to_string(), |x| {
                format!(".{}", x.to_string_lossy())
            });
            *by_ext.entry(ext).or_default() += 1;
        }
    }
    if by_ext.is_empty() {
        return ": the folder holds no file".into();
    }
    let mut kinds: Vec<(String, usize)> = by_ext.into_iter().collect();
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let list: Vec<String> = kinds
        .iter()
        .take(4)
        .map(|(ext, n)| {
            let note = match ext.as_str() {
                ".yaml" | ".yml" => " (YAML, as VCR cassettes are: not JSON lines)",
                _ => "",
            };
            format!("{n} {} file(s){note}", crate::output::name::display(ext))
        })
        .collect();
    format!(": found {}", list.join(", "))
}

/// What the start of a file looks like, when it is a format people mistake
/// for JSON lines.
pub(super) fn sniff(path: &Path) -> Option<&'static str> {
    use std::io::Read;
    let mut head = [0u8; 512];
    let n = std::fs::File::open(path).ok()?.read(&mut head).ok()?;
    let text = String::from_utf8_lossy(&head[..n]);
    let first = text.lines().find(|l| !l.trim().is_empty())?.trim_start();
    if first.starts_with("---") || first.starts_with("- ") {
        return Some("YAML (a VCR cassette?)");
    }
    let key = first.split(':').next().unwrap_or("");
    if first.contains(':')
        && !first.starts_with('{')
        && !first.starts_with('[')
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
    {
        return Some("YAML (a VCR cassette?)");
    }
    if first.starts_with('{') || first.starts_with('[') {
        return Some("JSON over several lines");
    }
    None
}
