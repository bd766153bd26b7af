//! Tool and service fees: what a provider charges per call, per thousand
//! calls (web search), per session, or per container time with a minimum
//! (code execution). A scenario attaches each fee to capabilities of its
//! trace; the engine charges it from the calls that reached the tool.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// What a fee is charged per.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeeUnit {
    /// Each call.
    PerCall,
    /// Each thousand calls, prorated (web search: $10 per 1,000).
    #[serde(rename = "per_1000_calls")]
    Per1000Calls,
    /// Once per run (session) that makes at least one call.
    PerSession,
    /// Container time: the calls' wall-clock time, per minute.
    PerContainerMinute,
    /// Container time, per hour.
    PerContainerHour,
}

impl FeeUnit {
    /// The unit as written in price books.
    pub fn key(self) -> &'static str {
        match self {
            FeeUnit::PerCall => "per_call",
            FeeUnit::Per1000Calls => "per_1000_calls",
            FeeUnit::PerSession => "per_session",
            FeeUnit::PerContainerMinute => "per_container_minute",
            FeeUnit::PerContainerHour => "per_container_hour",
        }
    }
}

/// A fee of the price book.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fee {
    /// The fee's name in the book, e.g. `web_search`.
    pub name: String,
    /// What it is charged per.
    pub unit: FeeUnit,
    /// USD per unit.
    pub price: Decimal,
    /// Container fees: the least time billed per session, in minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum_minutes: Option<u64>,
    /// Where the fee was read.
    pub source: String,
    /// When.
    pub read_on: String,
}

const MS_PER_MINUTE: u64 = 60_000;
const MS_PER_HOUR: u64 = 3_600_000;

impl Fee {
    /// The fee of one run that made `calls` calls taking `busy_ms` in all.
    /// Container time below the minimum is billed as the minimum; a run with
    /// no call pays nothing.
    pub fn charge(&self, calls: u64, busy_ms: u64) -> Decimal {
        if calls == 0 {
            return Decimal::ZERO;
        }
        let container = |per_ms: u64| {
            let min_ms = self.minimum_minutes.unwrap_or(0) * MS_PER_MINUTE;
            self.price * Decimal::from(busy_ms.max(min_ms)) / Decimal::from(per_ms)
        };
        match self.unit {
            FeeUnit::PerCall => self.price * Decimal::from(calls),
            FeeUnit::Per1000Calls => self.price * Decimal::from(calls) / Decimal::from(1000),
            FeeUnit::PerSession => self.price,
            FeeUnit::PerContainerMinute => container(MS_PER_MINUTE),
            FeeUnit::PerContainerHour => container(MS_PER_HOUR),
        }
        .normalize()
    }

    /// The fee with its price times `rate` (a currency conversion), exact.
    pub fn converted(&self, rate: Decimal) -> Fee {
        Fee {
            price: (self.price * rate).normalize(),
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fee(unit: FeeUnit, price: &str, minimum_minutes: Option<u64>) -> Fee {
        Fee {
            name: "f".into(),
            unit,
            price: price.parse().unwrap(),
            minimum_minutes,
            source: "test".into(),
            read_on: "2026-11-30".into(),
        }
    }

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn per_thousand_calls_prorates() {
        // Web search at $10 per 1,000 searches: 1 search costs $0.01, 3 cost $0.03.
        let f = fee(FeeUnit::Per1000Calls, "10", None);
        assert_eq!(f.charge(1, 0), d("0.01"));
        assert_eq!(f.charge(3, 0), d("0.03"));
        assert_eq!(f.charge(1000, 0), d("10"));
        assert_eq!(f.charge(0, 0), Decimal::ZERO);
    }

    #[test]
    fn per_call_and_per_session() {
        assert_eq!(
            fee(FeeUnit::PerCall, "0.002", None).charge(7, 0),
            d("0.014")
        );
        let s = fee(FeeUnit::PerSession, "0.5", None);
        assert_eq!(s.charge(1, 0), d("0.5"));
        assert_eq!(s.charge(40, 9_000_000), d("0.5"));
        assert_eq!(s.charge(0, 0), Decimal::ZERO);
    }

    #[test]
    fn container_time_bills_at_least_the_minimum() {
        // $0.05 per container-hour, at least 5 minutes per session.
        let f = fee(FeeUnit::PerContainerHour, "0.05", Some(5));
        // 5 minutes = 1/12 hour: $0.05 / 12 — one minute under, at and over the minimum.
        let five = d("0.05") / d("12");
        assert_eq!(f.charge(1, 4 * 60_000), five.normalize());
        assert_eq!(f.charge(1, 5 * 60_000), five.normalize());
        // 6 minutes = 0.1 hour: $0.005.
        assert_eq!(f.charge(2, 6 * 60_000), d("0.005"));
        assert_eq!(f.charge(0, 0), Decimal::ZERO);
        // Per minute: 90 s at $0.01 per minute is $0.015; 30 s with a 1-minute minimum is $0.01.
        let m = fee(FeeUnit::PerContainerMinute, "0.01", Some(1));
        assert_eq!(m.charge(1, 90_000), d("0.015"));
        assert_eq!(m.charge(1, 30_000), d("0.01"));
    }
}
