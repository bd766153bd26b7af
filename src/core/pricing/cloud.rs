//! Claude models as Amazon Bedrock and Google Vertex AI name them.
//!
//! A Claude Code session run through Bedrock or Vertex AI records the model
//! under the cloud's id: `us.anthropic.claude-sonnet-4-5-20250929-v1:0` (a
//! Bedrock cross-region inference profile: `us.`, `eu.`, `apac.`, `jp.`,
//! `au.`, `us-gov.`, `global.`, or none), `anthropic.claude-opus-4-8`, or
//! `claude-sonnet-4-5@20250929` (Vertex AI). The model is Anthropic's, with
//! Anthropic's tokenizer and behaviour; only its price may differ (Bedrock's
//! regional profiles cost 10 % more for recent models). [`on_cloud`] reads
//! such an id into the id Anthropic's API gives the same model.

use std::borrow::Cow;

/// A cloud that serves Claude models under names of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cloud {
    /// Amazon Bedrock.
    Bedrock,
    /// Google Vertex AI.
    Vertex,
}

impl Cloud {
    /// The cloud's name, for people.
    pub fn title(self) -> &'static str {
        match self {
            Cloud::Bedrock => "Amazon Bedrock",
            Cloud::Vertex => "Google Vertex AI",
        }
    }

    /// The cloud as OpenTelemetry's `gen_ai.provider.name` names it.
    pub fn provider(self) -> &'static str {
        match self {
            Cloud::Bedrock => "aws.bedrock",
            Cloud::Vertex => "gcp.vertex_ai",
        }
    }
}

/// A Claude model id as a cloud names it, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnCloud {
    /// The cloud.
    pub cloud: Cloud,
    /// A Bedrock cross-region profile's geography (`us`, `eu`, `global` …),
    /// `None` for an id without one.
    pub geo: Option<String>,
    /// The id Anthropic's API gives the same model, e.g. `claude-sonnet-4-5-20250929`.
    pub anthropic: String,
}

impl OnCloud {
    /// Whether it is a Bedrock profile bound to a geography (`us.`, `eu.` …,
    /// not `global.`): for recent models these cost 10 % more than the list.
    pub fn regional(&self) -> bool {
        self.geo.as_deref().is_some_and(|g| g != "global")
    }
}

/// Whether `id` is Bedrock's name of an Anthropic model, one [`on_cloud`]
/// reads or an older one it does not (`anthropic.claude-v2:1`): it starts
/// `anthropic.`, or a geography and `.anthropic.`.
pub fn bedrock_named(id: &str) -> bool {
    id.starts_with("anthropic.") || id.contains(".anthropic.")
}

/// The cloud that served a response, by its message id: Anthropic's
/// Messages API on Amazon Bedrock and on Vertex AI gives ids of its own
/// (`msg_bdrk_…`, `msg_vrtx_…`) while the response names the model by its
/// Anthropic id; `None` for any other id.
pub fn served_by(message_id: &str) -> Option<Cloud> {
    if message_id.starts_with("msg_bdrk_") {
        Some(Cloud::Bedrock)
    } else if message_id.starts_with("msg_vrtx_") {
        Some(Cloud::Vertex)
    } else {
        None
    }
}

/// Most characters of a Bedrock geography prefix (`us-gov`, `global`).
const MAX_GEO: usize = 8;

/// Reads `id` as a cloud's name of a Claude model; `None` for any other id
/// (Anthropic's own ids among them).
///
/// - Bedrock: an optional geography (lowercase letters and `-`, then `.`),
///   `anthropic.`, then the model, with Bedrock's version suffix (`-v1:0`,
///   `-v1`, `-v2:0`) taken off.
/// - Vertex AI: the model, `@`, then its snapshot date (`@20250929` becomes
///   `-20250929`) or a label (`@default`, dropped).
pub fn on_cloud(id: &str) -> Option<OnCloud> {
    bedrock(id)
        .map(|(geo, anthropic)| OnCloud {
            cloud: Cloud::Bedrock,
            geo: geo.map(str::to_string),
            anthropic,
        })
        .or_else(|| {
            vertex(id).map(|anthropic| OnCloud {
                cloud: Cloud::Vertex,
                geo: None,
                anthropic,
            })
        })
}

/// The id Anthropic's API gives the model `id` names: a cloud's id read by
/// [`on_cloud`], any other id as it is.
pub fn anthropic_id(id: &str) -> Cow<'_, str> {
    match on_cloud(id) {
        Some(c) => Cow::Owned(c.anthropic),
        None => Cow::Borrowed(id),
    }
}

fn bedrock(id: &str) -> Option<(Option<&str>, String)> {
    let (geo, rest) = match id.strip_prefix("anthropic.") {
        Some(rest) => (None, rest),
        None => {
            let (geo, rest) = id.split_once(".anthropic.")?;
            let geo_ok = !geo.is_empty()
                && geo.len() <= MAX_GEO
                && geo.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
                && !geo.starts_with('-');
            if !geo_ok {
                return None;
            }
            (Some(geo), rest)
        }
    };
    let model = without_version(rest);
    claude(model).then(|| (geo, model.to_string()))
}

/// `rest` without a trailing Bedrock version (`-v<digits>`, optionally
/// `:<digits>`), when a model name is left before it.
fn without_version(rest: &str) -> &str {
    let Some((head, tail)) = rest.rsplit_once("-v") else {
        return rest;
    };
    let (major, minor) = match tail.split_once(':') {
        Some((a, b)) => (a, Some(b)),
        None => (tail, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if digits(major) && minor.is_none_or(digits) && claude(head) {
        head
    } else {
        rest
    }
}

fn vertex(id: &str) -> Option<String> {
    let (model, label) = id.split_once('@')?;
    if !claude(model) || label.is_empty() || label.contains('@') {
        return None;
    }
    let date = label.len() == 8 && label.bytes().all(|b| b.is_ascii_digit());
    let label_ok = label
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if date {
        Some(format!("{model}-{label}"))
    } else if label_ok {
        Some(model.to_string())
    } else {
        None
    }
}

/// Whether `model` reads as a Claude model id: `claude-` and a name of
/// letters, digits, `-` and `.`.
fn claude(model: &str) -> bool {
    model.strip_prefix("claude-").is_some_and(|rest| {
        !rest.is_empty()
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
    })
}

#[cfg(test)]
mod tests {
    use super::{anthropic_id, bedrock_named, on_cloud, served_by, Cloud};

    #[test]
    fn bedrocks_names_are_told_apart_read_or_not() {
        for id in [
            "anthropic.claude-v2:1",
            "us.anthropic.claude-opus-4-8",
            "global.anthropic.claude-opus-4-6-v1",
        ] {
            assert!(bedrock_named(id), "{id}");
        }
        for id in ["claude-opus-4-8", "claude-sonnet-4-5@20250929", "gpt-5"] {
            assert!(!bedrock_named(id), "{id}");
        }
    }

    #[test]
    fn a_clouds_message_id_names_it() {
        assert_eq!(served_by("msg_bdrk_01H8tVabc"), Some(Cloud::Bedrock));
        assert_eq!(served_by("msg_vrtx_01abc"), Some(Cloud::Vertex));
        for id in ["msg_01XyZ", "rollout#3", "", "msg_bdrk"] {
            assert_eq!(served_by(id), None, "{id}");
        }
    }

    #[test]
    fn bedrock_and_vertex_ids_read_as_anthropic_ids() {
        for (id, cloud, anthropic) in [
            (
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                Cloud::Bedrock,
                "claude-sonnet-4-5-20250929",
            ),
            (
                "global.anthropic.claude-opus-4-6-v1",
                Cloud::Bedrock,
                "claude-opus-4-6",
            ),
            (
                "us-gov.anthropic.claude-opus-4-8",
                Cloud::Bedrock,
                "claude-opus-4-8",
            ),
            (
                "anthropic.claude-3-5-sonnet-20241022-v2:0",
                Cloud::Bedrock,
                "claude-3-5-sonnet-20241022",
            ),
            (
                "anthropic.claude-sonnet-4-6",
                Cloud::Bedrock,
                "claude-sonnet-4-6",
            ),
            (
                "claude-sonnet-4-5@20250929",
                Cloud::Vertex,
                "claude-sonnet-4-5-20250929",
            ),
            ("claude-opus-4-6@default", Cloud::Vertex, "claude-opus-4-6"),
        ] {
            let c = on_cloud(id).unwrap_or_else(|| panic!("{id}"));
            assert_eq!((c.cloud, c.anthropic.as_str()), (cloud, anthropic), "{id}");
            assert_eq!(anthropic_id(id), anthropic, "{id}");
        }
    }

    #[test]
    fn other_ids_are_not_read() {
        for id in [
            "claude-opus-4-8",
            "claude-sonnet-4-5-20250929",
            "claude-sonnet-4-5-20250929-v1:0",
            "gpt-5.4",
            "us.amazon.nova-pro-v1:0",
            "anthropic.titan-text",
            "US.anthropic.claude-opus-4-8",
            "a.b.anthropic.claude-opus-4-8",
            "toolongname.anthropic.claude-opus-4-8",
            "us.anthropic.",
            "anthropic.claude-",
            "claude-opus-4-8@",
            "claude-opus-4-8@a b",
            "claude-opus 4@20250101",
            "gemini-2.5-pro@001",
            // A version-like end that leaves no model name before it.
            "anthropic.claude-v2:1",
        ] {
            assert_eq!(on_cloud(id), None, "{id}");
            assert_eq!(anthropic_id(id), id);
        }
    }
}
