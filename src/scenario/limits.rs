//! The ranges an assumption may take, shared by the scenario format and by
//! `sweep`, so a value is accepted or refused the same way wherever it is
//! written.

use rust_decimal::Decimal;

/// Largest token count an assumption may hold (far above any context window).
pub const MAX_TOKENS: u64 = 1_000_000_000;

/// Most decimals of bytes per token and of the tokenizer uplift.
pub const MAX_FACTOR_DECIMALS: u32 = 6;

/// Largest bytes per token or tokenizer uplift.
pub const MAX_FACTOR: u64 = 1000;

/// Checks a token count (`prefix_tokens`, `output_tokens_per_step`, `final_output_tokens`).
pub fn tokens(field: &str, v: u64) -> Result<(), String> {
    if v > MAX_TOKENS {
        return Err(format!("{field} = {v} is more than {MAX_TOKENS} tokens"));
    }
    Ok(())
}

/// Checks bytes per token or the tokenizer uplift: above zero, at most
/// [`MAX_FACTOR_DECIMALS`] decimals and at most [`MAX_FACTOR`], so every
/// exact sum of the replay stays within `rust_decimal`'s 96 bits.
pub fn factor(field: &str, v: Decimal) -> Result<(), String> {
    if v <= Decimal::ZERO {
        return Err(format!("{field} must be above zero, not {v}"));
    }
    if v.normalize().scale() > MAX_FACTOR_DECIMALS || v > Decimal::from(MAX_FACTOR) {
        return Err(format!(
            "{field} = {v} is outside what tokencast accepts: at most {MAX_FACTOR_DECIMALS} decimals and at most {MAX_FACTOR}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factor_edges() {
        assert!(factor("b", Decimal::from(1000)).is_ok());
        assert!(factor("b", Decimal::from(1001)).is_err());
        assert!(factor("b", Decimal::new(1_000_001, 6)).is_ok());
        assert!(factor("b", Decimal::new(10_000_001, 7)).is_err());
        assert!(factor("b", Decimal::ZERO).is_err());
    }

    #[test]
    fn token_edges() {
        assert!(tokens("p", MAX_TOKENS).is_ok());
        assert!(tokens("p", MAX_TOKENS + 1).is_err());
    }
}
