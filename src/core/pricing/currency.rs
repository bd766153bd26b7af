//! The currency a scenario reports in: a code, a fixed rate per US dollar
//! and the date the rate was read. No live rates: the same input gives the
//! same report. Every price and fee is converted once, exactly, when the
//! scenario is checked, so every figure downstream is in this currency.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// A reporting currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Currency {
    /// ISO 4217 code, e.g. `EUR`.
    pub code: String,
    /// Units of this currency per US dollar.
    pub per_usd: Decimal,
    /// When the rate was read (YYYY-MM-DD).
    pub rate_date: String,
}

impl Currency {
    /// US dollars: no conversion.
    pub fn usd() -> Currency {
        Currency {
            code: "USD".into(),
            per_usd: Decimal::ONE,
            rate_date: String::new(),
        }
    }

    /// True for US dollars (nothing converted).
    pub fn is_usd(&self) -> bool {
        self.code == "USD"
    }

    /// How a figure is prefixed: `$` for US dollars, else the code and a space.
    pub fn sign(&self) -> String {
        if self.is_usd() {
            "$".into()
        } else {
            format!("{} ", self.code)
        }
    }

    /// The line every output prints when a conversion applies.
    pub fn note(&self) -> Option<String> {
        (!self.is_usd()).then(|| {
            format!(
                "Figures in {}: prices converted at {} {} per USD (rate of {}).",
                self.code, self.per_usd, self.code, self.rate_date
            )
        })
    }
}

impl Default for Currency {
    fn default() -> Self {
        Currency::usd()
    }
}
