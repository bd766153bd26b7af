//! A lower and an upper estimate of the same quantity.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::ops::{Add, Mul, Sub};

/// Every token figure is an estimate: bytes ÷ b (lower) and that × uplift (upper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Bounds {
    /// Lower bound.
    pub lower: Decimal,
    /// Upper bound.
    pub upper: Decimal,
}

impl Bounds {
    /// Both bounds equal (for quantities measured, not estimated).
    pub fn exact(v: Decimal) -> Bounds {
        Bounds { lower: v, upper: v }
    }

    /// Both bounds zero.
    pub fn is_zero(&self) -> bool {
        self.lower.is_zero() && self.upper.is_zero()
    }

    /// Applies `f` to both bounds.
    pub fn map(self, f: impl Fn(Decimal) -> Decimal) -> Bounds {
        Bounds {
            lower: f(self.lower),
            upper: f(self.upper),
        }
    }
}

impl Add for Bounds {
    type Output = Bounds;
    fn add(self, o: Bounds) -> Bounds {
        Bounds {
            lower: self.lower + o.lower,
            upper: self.upper + o.upper,
        }
    }
}

impl Sub for Bounds {
    type Output = Bounds;
    fn sub(self, o: Bounds) -> Bounds {
        Bounds {
            lower: self.lower - o.lower,
            upper: self.upper - o.upper,
        }
    }
}

impl Mul<Decimal> for Bounds {
    type Output = Bounds;
    fn mul(self, k: Decimal) -> Bounds {
        self.map(|v| v * k)
    }
}

impl std::iter::Sum for Bounds {
    fn sum<I: Iterator<Item = Bounds>>(iter: I) -> Bounds {
        iter.fold(Bounds::default(), Add::add)
    }
}
