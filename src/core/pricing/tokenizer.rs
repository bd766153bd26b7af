//! Which tokenizer a model counts with, where a trace can carry exact
//! counts for it.

/// Whether `model` (a price book id, with or without a `provider/` prefix)
/// tokenizes with OpenAI's `o200k_base`: GPT-4o, GPT-4.1, GPT-4.5, GPT-5
/// and the o-series reasoning models, with their Codex and dated variants.
/// A trace's `o200k_tokens` counts apply to these models only; any other
/// model takes the result's bytes through its bytes per token.
pub fn counts_o200k(model: &str) -> bool {
    let id = model.rsplit('/').next().unwrap_or(model);
    let id = id.strip_prefix("ft:").unwrap_or(id);
    const PREFIXES: [&str; 7] = [
        "gpt-4o",
        "gpt-4.1",
        "gpt-4.5",
        "gpt-5",
        "chatgpt-4o",
        "codex-",
        "gpt-oss",
    ];
    if PREFIXES.iter().any(|p| id.starts_with(p)) {
        return true;
    }
    // o1, o3, o4-mini …: an `o`, a digit, then the end or a dash.
    let b = id.as_bytes();
    b.len() >= 2 && b[0] == b'o' && b[1].is_ascii_digit() && (b.len() == 2 || b[2] == b'-')
}

/// Model lines whose tokenizer tokencast tells apart, by the first word of
/// the model id (after [`counts_o200k`]'s, which come first): OpenAI's
/// older GPT models (`cl100k_base`), Anthropic's Claude, Google's Gemini
/// and Gemma, and other vendors' own.
pub const LINES: [&str; 12] = [
    "gpt",
    "claude",
    "gemini",
    "gemma",
    "grok",
    "mistral",
    "codestral",
    "llama",
    "deepseek",
    "qwen",
    "command",
    "nova",
];

/// The tokenizer `model` counts with, as far as tokencast tells them apart:
/// `o200k` for the models of [`counts_o200k`], else the model's line when
/// it is one of [`LINES`] (`claude`, `gemini`, `gpt` for GPT-4 and earlier
/// …); `None` for a model it does not know (a hand-written book's). Bytes
/// per token fitted on one model holds for another of the same tokenizer;
/// a model of another one counts the same bytes in other tokens.
pub fn group(model: &str) -> Option<&'static str> {
    if counts_o200k(model) {
        return Some("o200k");
    }
    let id = model.rsplit('/').next().unwrap_or(model);
    // A cloud's name of a Claude model (`us.anthropic.claude-…`) counts as Claude.
    let id = super::cloud::anthropic_id(id);
    let id = id.strip_prefix("ft:").unwrap_or(&id).to_ascii_lowercase();
    let first = id.split(['-', '.', ':', '_']).next().unwrap_or(&id);
    LINES.iter().find(|l| **l == first).copied()
}

/// Whether `a` and `b` are known to count with different tokenizers.
pub fn differ(a: &str, b: &str) -> bool {
    matches!((group(a), group(b)), (Some(x), Some(y)) if x != y)
}

#[cfg(test)]
mod tests {
    use super::{counts_o200k, differ, group};

    #[test]
    fn models_of_one_line_share_a_tokenizer_group() {
        for (m, g) in [
            ("claude-sonnet-4-5-20250929", Some("claude")),
            ("anthropic/claude-haiku-4-5", Some("claude")),
            ("gpt-5.4", Some("o200k")),
            ("o3-mini", Some("o200k")),
            ("gpt-4-turbo", Some("gpt")),
            ("gemini-2.5-pro", Some("gemini")),
            ("Mistral-large", Some("mistral")),
            ("fixture-model", None),
            // Claude on Amazon Bedrock and Vertex AI.
            (
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                Some("claude"),
            ),
            ("claude-opus-4-6@default", Some("claude")),
            ("us.amazon.nova-pro-v1:0", None),
        ] {
            assert_eq!(group(m), g, "{m}");
        }
        assert!(differ("claude-opus-4-5", "gpt-5"));
        assert!(!differ("claude-opus-4-5", "claude-haiku-4-5"));
        // A model tokencast does not know keeps the scenario's band.
        assert!(!differ("claude-opus-4-5", "fixture-model"));
    }

    #[test]
    fn openai_models_of_o200k_and_no_others() {
        for m in [
            "gpt-4o",
            "gpt-4o-mini-2024-07-18",
            "gpt-4.1",
            "gpt-5",
            "gpt-5.2-codex",
            "openai/gpt-5-codex",
            "azure/gpt-4o",
            "o1",
            "o3-mini",
            "o4-mini-2025-04-16",
            "codex-mini-latest",
        ] {
            assert!(counts_o200k(m), "{m}");
        }
        // GPT-4 and GPT-3.5 count with cl100k; Claude and Gemini with their own.
        for m in [
            "gpt-4",
            "gpt-4-turbo",
            "gpt-3.5-turbo",
            "claude-opus-4-5",
            "gemini-2.5-pro",
            "o",
            "omni-x",
        ] {
            assert!(!counts_o200k(m), "{m}");
        }
    }
}
