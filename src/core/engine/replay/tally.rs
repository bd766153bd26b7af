//! Exact integer sums of a replay: the token numerators' fixed denominators
//! ([`Scale`]), the sums per price class and tier ([`Sums`], [`Tally`]) and
//! the integer prices that turn them into money ([`IntegerRates`]).

use crate::engine::Bounds;
use crate::pricing::Rates;
use crate::scenario::Assumptions;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

/// Fixed denominators for the lower and upper token numerators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scale {
    pub(super) o: i128,
    pub(super) mb: i128,
    pub(super) pu: i128,
    /// Prefix tokens already cached at the first request.
    pub(super) cached: i128,
    /// Tokens each step adds besides its bytes and output.
    pub(super) overhead: u128,
    /// Per bound, a prompt's numerator as a line in what it holds: the
    /// prefix's numerator, and the factors of the output tokens sent back
    /// and of the bytes (see [`Scale::numerators_out`]).
    pub(super) line: [[i128; 3]; 2],
}

impl Scale {
    /// The scale of `a`'s band, its bytes counted in the units of its
    /// content weights ([`Assumptions::unit_bytes_per_token`]).
    pub(crate) fn new(a: &Assumptions) -> Scale {
        let b = a.unit_bytes_per_token().normalize();
        let u = a.tokenizer_uplift.normalize();
        let (p, mb, pb) = (
            i128::from(a.prefix_tokens),
            b.mantissa(),
            10i128.pow(b.scale()),
        );
        let (mu, pu) = (u.mantissa(), 10i128.pow(u.scale()));
        // Lower: p·mb + out·mb + cum·pb. Upper: the output in the model's
        // own tokens (out·mb·pu), the bytes uplifted (cum·mu·pb), the
        // prefix uplifted unless it was measured (p·mb·mu, else p·mb·pu).
        let upper_prefix = if a.prefix_measured {
            p * mb * pu
        } else {
            mu * p * mb
        };
        Scale {
            o: i128::from(a.output_tokens_per_step),
            mb,
            pu,
            cached: i128::from(a.prefix_cached_tokens),
            overhead: u128::from(a.step_overhead_tokens),
            line: [[p * mb, mb, pb], [upper_prefix, mb * pu, mu * pb]],
        }
    }

    /// Numerators of request k+1's input (k results before it, `cum` bytes).
    pub(crate) fn numerators(&self, k: u64, cum: u128) -> [i128; 2] {
        // `o` came from a u64, so it is not negative.
        self.numerators_out(u128::from(k) * (self.o.unsigned_abs() + self.overhead), cum)
    }

    /// The prefix already cached at the first request, per bound (None: cold).
    pub(crate) fn warm(&self) -> [Option<i128>; 2] {
        if self.cached == 0 {
            return [None, None];
        }
        let d = self.denominators();
        [Some(self.cached * d[0]), Some(self.cached * d[1])]
    }

    /// Numerators of a request whose prompt holds `out` tokens of earlier
    /// output sent back and `cum` bytes of results and other context.
    /// Output is in the model's own tokens and never uplifted; so is the
    /// prefix when it was measured.
    pub(crate) fn numerators_out(&self, out: u128, cum: u128) -> [i128; 2] {
        [
            self.numerator_out(out, cum, 0),
            self.numerator_out(out, cum, 1),
        ]
    }

    /// Bound `bound`'s line: the prefix's numerator and the factors of the
    /// output tokens sent back and of the bytes.
    pub(crate) fn line_of(&self, bound: usize) -> [i128; 3] {
        self.line[bound]
    }

    /// [`Scale::numerators_out`] of one bound (0 lower, 1 upper).
    #[inline(always)]
    pub(crate) fn numerator_out(&self, out: u128, cum: u128, bound: usize) -> i128 {
        // `limits::replay_fits` keeps every replay's sums far below 2^127.
        let [prefix, per_out, per_byte] = self.line[bound];
        prefix + out.cast_signed() * per_out + cum.cast_signed() * per_byte
    }

    /// Denominators: lower, upper.
    pub(crate) fn denominators(&self) -> [i128; 2] {
        [self.mb, self.mb * self.pu]
    }

    /// A whole number of tokens as a numerator of each bound.
    pub(crate) fn tokens(&self, t: u64) -> [i128; 2] {
        let d = self.denominators();
        [i128::from(t) * d[0], i128::from(t) * d[1]]
    }

    /// A numerator pair as exact token counts.
    pub(crate) fn tokens_of(&self, n: [i128; 2]) -> Bounds {
        let d = self.denominators();
        Bounds {
            lower: ratio(n[0], d[0]),
            upper: ratio(n[1], d[1]),
        }
    }
}

pub(super) fn ratio(n: i128, d: i128) -> Decimal {
    (Decimal::from_i128_with_scale(n, 0) / Decimal::from_i128_with_scale(d, 0)).normalize()
}

/// Price tiers a request can fall in: the base and each long-context tier.
pub(crate) const TIERS: usize = crate::pricing::MAX_LONG_TIERS + 1;

/// Token sums by what they are billed as, per price tier (0 is the base,
/// t the t-th long-context tier), and the cache's storage in token
/// numerators × milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Sums {
    pub(super) uncached: [i128; TIERS],
    pub(super) write: [i128; TIERS],
    pub(super) read: [i128; TIERS],
    pub(super) output: [i128; TIERS],
    pub(super) storage: i128,
}

/// What one request adds to one bound's [`Sums`]: all of it in one tier,
/// and the cache's storage.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Added {
    pub(super) tier: usize,
    pub(super) uncached: i128,
    pub(super) write: i128,
    pub(super) read: i128,
    pub(super) output: i128,
    pub(super) storage: i128,
}

pub(super) fn sub(a: [i128; TIERS], b: [i128; TIERS]) -> [i128; TIERS] {
    std::array::from_fn(|t| a[t] - b[t])
}

impl Sums {
    /// Adds what one request added, `times` over (the sum of every later
    /// request's sums takes a request's addition once per request from it on).
    #[inline(always)]
    pub(super) fn add_times(&mut self, a: &Added, times: i128) {
        let t = a.tier;
        self.uncached[t] += a.uncached * times;
        self.write[t] += a.write * times;
        self.read[t] += a.read * times;
        self.output[t] += a.output * times;
        self.storage += a.storage * times;
    }

    /// These sums of a cached replay where no rule applies, as the same
    /// replay without a cache bills them: every token written or read is
    /// uncached (what one request writes and reads is its whole prompt).
    pub(super) fn uncached_instead(&self) -> Sums {
        Sums {
            uncached: std::array::from_fn(|t| self.uncached[t] + self.write[t] + self.read[t]),
            write: [0; TIERS],
            read: [0; TIERS],
            output: self.output,
            storage: 0,
        }
    }

    /// Adds what one request added.
    #[inline(always)]
    pub(super) fn add_one(&mut self, a: &Added) {
        let t = a.tier;
        self.uncached[t] += a.uncached;
        self.write[t] += a.write;
        self.read[t] += a.read;
        self.output[t] += a.output;
        self.storage += a.storage;
    }

    pub(super) fn minus(&self, o: &Sums) -> Sums {
        Sums {
            uncached: sub(self.uncached, o.uncached),
            write: sub(self.write, o.write),
            read: sub(self.read, o.read),
            output: sub(self.output, o.output),
            storage: self.storage - o.storage,
        }
    }
}

/// What one variant's replay counted besides money.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Requests whose cache had expired (lower bound).
    pub expiries: u64,
    /// Requests too short to cache (lower bound).
    pub uncacheable: u64,
    /// Requests above the long-context threshold (lower bound).
    pub long_context: u64,
}

/// USD amounts of one replay, per bound.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Priced {
    pub uncached_input: Bounds,
    pub cache_write: Bounds,
    pub cache_read: Bounds,
    pub output: Bounds,
    /// Explicit-cache storage.
    pub storage: Bounds,
    pub counts: Counts,
}

/// A replay's exact sums, before prices turn them into money.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Per bound (lower, upper).
    pub sums: [Sums; 2],
    /// Expiries and rule counts.
    pub counts: Counts,
}

/// Integer prices per class, so that a tally's cost is an exact integer:
/// `cost = Σ sums × coefficient ÷ divisor` for each bound.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IntegerRates {
    /// uncached, write, read, output × tier.
    pub(super) coef: [[i128; TIERS]; 4],
    /// Per bound: denominator × 10^scale × 1,000,000.
    pub(super) divisor: [i128; 2],
    /// The tiers a tally replayed at these rates holds tokens in: the base
    /// and one per long-context threshold (a tier past them stays zero, and
    /// is not multiplied out).
    tiers: usize,
}

impl IntegerRates {
    /// Exact integer coefficients, when every rate has at most 12 decimals
    /// and the model bills no cache storage.
    pub(crate) fn new(scale: &Scale, rates: &Rates) -> Option<IntegerRates> {
        if rates.cache_storage_per_hour.is_some() {
            return None;
        }
        let at: [crate::pricing::ClassRates; TIERS] = std::array::from_fn(|t| rates.at(t));
        let classes: [[Decimal; TIERS]; 4] = [
            at.map(|c| c.input),
            at.map(|c| c.cache_write),
            at.map(|c| c.cache_read),
            at.map(|c| c.output),
        ];
        let digits = classes
            .iter()
            .flatten()
            .map(|d| d.normalize().scale())
            .max()
            .unwrap_or(0);
        if digits > 12 {
            return None;
        }
        let k = Decimal::from_i128_with_scale(10i128.pow(digits), 0);
        let mut coef = [[0i128; TIERS]; 4];
        for (c, class) in classes.iter().enumerate() {
            for t in 0..TIERS {
                coef[c][t] = (class[t] * k).trunc().to_i128().unwrap_or(0);
            }
        }
        let dens = scale.denominators();
        let per = 10i128.pow(digits) * 1_000_000;
        Some(IntegerRates {
            coef,
            divisor: [dens[0] * per, dens[1] * per],
            tiers: (rates.long_context.len() + 1).min(TIERS),
        })
    }

    /// The cost of a tally, per bound, as an integer numerator over [`Self::divisor`].
    pub(crate) fn numerators(&self, t: &Tally) -> [i128; 2] {
        let mut out = [0i128; 2];
        let n = self.tiers;
        for (b, s) in t.sums.iter().enumerate() {
            let classes = [s.uncached, s.write, s.read, s.output];
            debug_assert!(
                classes.iter().all(|v| v[n..].iter().all(|x| *x == 0)),
                "a tally holds tokens past its rates' tiers"
            );
            out[b] = classes
                .iter()
                .zip(&self.coef)
                .map(|(v, c)| v[..n].iter().zip(&c[..n]).map(|(v, c)| v * c).sum::<i128>())
                .sum();
        }
        out
    }

    /// [`Self::numerators`] of a tally whose sums follow from the input
    /// totals (all in the base tier): the same integers, from three
    /// products a bound instead of the sums of every class and tier.
    pub(crate) fn plain_numerators(&self, p: &super::PlainSums) -> [i128; 2] {
        let [uncached, write, read, output] = self.coef.map(|c| c[0]);
        std::array::from_fn(|b| {
            let input = match p.write {
                Some(w) => write * w[b] + read * (p.sum[b] - w[b]),
                None => uncached * p.sum[b],
            };
            input + output * p.output[b]
        })
    }

    /// Divisors of [`Self::numerators`], per bound.
    pub(crate) fn divisor(&self) -> [i128; 2] {
        self.divisor
    }
}

impl Sums {
    /// Token numerators written to the cache, over every tier.
    pub(crate) fn written(&self) -> i128 {
        self.write.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tests::d;
    use crate::pricing::LongContextRates;

    /// A tally's cost counts the tokens of every tier its rates have (the
    /// base and each long-context one), each at its own price; tiers past
    /// them hold nothing.
    #[test]
    fn a_tally_costs_each_tier_at_its_own_price() {
        let rates = Rates {
            input: d("3"),
            output: d("15"),
            cache_write: Some(d("3.75")),
            cache_read: Some(d("0.3")),
            min_cacheable_tokens: None,
            cache_lifetime_ms: None,
            long_context: vec![LongContextRates {
                threshold_tokens: 200_000,
                input: d("6"),
                output: d("22.5"),
                cache_write: Some(d("7.5")),
                cache_read: Some(d("0.6")),
            }],
            cache_storage_per_hour: None,
        };
        let a = crate::engine::tests::scenario(&[], vec![])
            .assumptions()
            .clone();
        let ir = IntegerRates::new(&Scale::new(&a), &rates).expect("integer rates");
        let mut sums = Sums::default();
        // Tokens (as numerators) in the base tier and above the threshold.
        sums.uncached[..2].copy_from_slice(&[1000, 2000]);
        sums.write[..2].copy_from_slice(&[40, 50]);
        sums.read[..2].copy_from_slice(&[700, 800]);
        sums.output[..2].copy_from_slice(&[500, 100]);
        let tally = Tally {
            sums: [sums, Sums::default()],
            counts: Counts::default(),
        };
        // The prices have at most two decimals: each coefficient is the
        // price per million × 100.
        let base = 1000 * 300 + 40 * 375 + 700 * 30 + 500 * 1500;
        let long = 2000 * 600 + 50 * 750 + 800 * 60 + 100 * 2250;
        assert_eq!(ir.numerators(&tally), [base + long, 0]);
        let scale = Scale::new(&a).denominators();
        assert_eq!(
            ir.divisor(),
            [scale[0] * 100_000_000, scale[1] * 100_000_000]
        );
    }
}
