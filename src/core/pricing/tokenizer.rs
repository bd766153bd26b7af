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

#[cfg(test)]
mod tests {
    use super::counts_o200k;

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
