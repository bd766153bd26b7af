//! A clearing or compaction strategy's totals under the plain rules, from
//! running sums rather than request by request.
//!
//! Under the plain rules ([`Sequence::is_plain`](super::Sequence::is_plain))
//! a strategy's bill is three totals: every prompt, what each request after
//! the first reads (the least of the previous prompt, the prefix it keeps
//! and its own prompt) and the output. Where the output sent back and the
//! results' bytes only ever add to the context (the run's
//! [`RunSums::monotone`]), a prompt is the one before it extended until a
//! strategy takes something out, so those totals follow from running sums
//! of the prompts' terms:
//!
//! - **Clearing** with keep K: request j carries A(j) = P + out(j) −
//!   out(0) + cum(j), less the results that have left, cum(j − K − 1)
//!   (from j = K + 1). Each request reads the previous prompt, except one
//!   before which a result of some bytes leaves: it reads the prefix and
//!   the outputs up to that result, W(g) = P + out(g) − out(0). So the
//!   prompts and the reads are sums over ranges, less a term for each
//!   result of no bytes; only the largest prompt needs a pass over the
//!   requests (a subtraction and a comparison each). The plain run is the
//!   clearing that keeps every result.
//! - **Compaction** at Θ: between compactions the prompts rise, so the next
//!   compaction is the first request whose prompt passes Θ (found by a
//!   search), and the stretch of requests before it is a range sum.
//!
//! A test compares every total with the request-by-request billing over
//! random traces (`the_plain_rules_billing_sums_what_every_request_through_the_rules_sums`).

use super::{ix, Requests, Strategy};
use crate::search::partition_point;

/// The plain rules' totals of one strategy's requests for one bound, with
/// the requests counted and the largest prompt.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Closed {
    pub(super) prompts: i128,
    pub(super) reads: i128,
    /// Output in whole tokens.
    pub(super) output: u128,
    pub(super) count: u64,
    pub(super) top: i128,
}

impl Requests<'_> {
    /// The totals of this strategy's requests from running sums, where
    /// they hold: the plain run, a clearing or a threshold compaction, on a
    /// run whose prompts only grow between the strategy's own cuts (else
    /// `None`: bill each request).
    pub(super) fn closed(&self) -> Option<Closed> {
        let sums = &self.sums.bound(self.bound);
        if !self.sums.monotone[self.bound] {
            return None;
        }
        match self.strategy {
            // Every result stays: a clearing that keeps them all.
            Strategy::Plain => Some(self.closed_clear(sums, u64::MAX)),
            Strategy::Clear { keep_steps } => Some(self.closed_clear(sums, *keep_steps)),
            Strategy::Compact {
                threshold_tokens,
                summary_tokens,
            } => {
                let theta = self.run.scale.tokens(*threshold_tokens)[self.bound];
                Some(self.closed_compact(sums, theta, *summary_tokens))
            }
            Strategy::CompactAt { .. } => None,
        }
    }

    /// [`Requests::clear`]'s requests billed by the plain rules.
    fn closed_clear(&self, sums: &Bound, keep: u64) -> Closed {
        let n = self.n();
        // A(j), the prompt with every result in: P − out(0) + D(j).
        let base = self.sums.prefix[self.bound] - self.sums.out0[self.bound];
        let whole = |j: u64| base + sums.d(j);
        // Requests j > K carry results j − K ..= j: cum(j − K − 1) has left.
        let first_cut = keep.saturating_add(1);
        let left = |j: u64| {
            if j >= first_cut {
                sums.cum(j - first_cut)
            } else {
                0
            }
        };
        let count = n + 1;
        let all_in = i128::from(count) * base + sums.d_sum(0, n);
        let prompts = all_in - n.checked_sub(first_cut).map_or(0, |m| sums.cum_sum(0, m));
        // Each request after the first reads the previous prompt …
        let mut reads = prompts - (whole(n) - left(n));
        // … except request K + 1 + g, before which result g leaves (g =
        // 1..=M) when it has bytes: it reads P + out(g) − out(0), the
        // previous prompt less out(g + K) − out(g) and cum(g + K) −
        // cum(g − 1), which over g = 1..=M is D(K + 1..=M + K) − D(1..=M)
        // + cum(M). A result of no bytes leaves nothing: its D(g + K) −
        // D(g) is taken back.
        if let Some(m) = n.checked_sub(first_cut).filter(|m| *m >= 1) {
            reads -= sums.d_sum(keep + 1, m + keep) - sums.d_sum(1, m) + sums.cum(m);
            for &g in self.sums.empty.iter().take_while(|g| **g <= m) {
                reads += sums.d(g + keep) - sums.d(g);
            }
        }
        // The largest prompt: A rises, so up to K the last. After K, a
        // block of requests lo..=hi at a time from the last: none of its
        // prompts is above D(hi) − cum(lo − K − 1) (D and cum rise), so a
        // block whose bound is no larger than the largest prompt found is
        // passed over (later prompts carry more output, and the search
        // usually reads only the last few blocks).
        let mut top = whole(keep.min(n));
        let mut hi = n;
        while hi >= first_cut {
            let lo = hi.saturating_sub(TOP_BLOCK - 1).max(first_cut);
            if base + sums.d(hi) - sums.cum(lo - first_cut) > top {
                for j in lo..=hi {
                    top = top.max(base + sums.d(j) - sums.cum(j - first_cut));
                }
            }
            if lo == first_cut {
                break;
            }
            hi = lo - 1;
        }
        Closed {
            prompts,
            reads,
            output: self.sums.billed,
            count,
            top,
        }
    }

    /// [`Requests::compact`] at threshold `theta` (a numerator) with a
    /// summary of `summary` tokens, billed by the plain rules.
    fn closed_compact(&self, sums: &Bound, theta: i128, summary: u64) -> Closed {
        let n = self.n();
        let prefix = self.sums.prefix[self.bound];
        let den = self.run.scale.denominators()[self.bound];
        let summary_num = i128::from(summary) * den;
        let mut t = Closed {
            output: self.sums.billed,
            ..Closed::default()
        };
        let mut prev: Option<i128> = None;
        // One request billed on its own.
        let one = |t: &mut Closed, prev: &mut Option<i128>, prompt: i128, keep: i128| {
            if let Some(p) = *prev {
                t.reads += p.min(keep).min(prompt).max(0);
            }
            *prev = Some(prompt);
            t.prompts += prompt;
            t.top = t.top.max(prompt);
            t.count += 1;
        };
        let (mut base, mut carried, mut start) = (0u64, 0i128, 0u64);
        // The requests of the last stretch between compactions (1 before
        // the first).
        let mut stretch = 1u64;
        loop {
            // Request k of this stretch carries P + out(k) − out(base) +
            // cum(k) − cum(base) + the summary: c + D(k).
            let c = prefix - sums.d(base) + carried;
            let prompt = |k: u64| c + sums.d(k);
            // The first request (never request 0) whose prompt passes Θ,
            // looked for first as far on as the last stretch was long.
            let cut = sums.first_above(start.max(1), n, theta - c, stretch);
            if cut > start {
                // Requests start..cut: the first reads the least of the
                // previous prompt and its own, each after it the one before.
                let last = cut - 1;
                if let Some(p) = prev {
                    t.reads += p.min(prompt(start)).max(0);
                }
                let stretch = i128::from(cut - start) * c + sums.d_sum(start, last);
                t.prompts += stretch;
                t.reads += stretch - prompt(last);
                t.top = t.top.max(prompt(last));
                t.count += cut - start;
                prev = Some(prompt(last));
            }
            if cut > n {
                return t;
            }
            // The summarisation request, then request `cut` on the prefix
            // and the summary (reading the prefix).
            let whole = prompt(cut);
            one(&mut t, &mut prev, whole, whole);
            t.output += u128::from(summary);
            one(&mut t, &mut prev, prefix + summary_num, prefix);
            stretch = (cut + 1).saturating_sub(start.max(1)).max(1);
            (base, carried, start) = (cut, summary_num, cut + 1);
        }
    }
}

/// Requests a clearing's largest prompt is looked for in at a time.
const TOP_BLOCK: u64 = 1024;

/// The run's running sums ([`super::RunSums::running`]), the same for
/// both bounds: per request k, Σ o(i) and Σ c(i) over requests 0..=k, where
/// o(k) is the output sent back and the unmeasured tokens up to request k
/// and c(k) the bytes of results 1..=k. A bound's out(k) is o(k) times its
/// numerator per output token, its cum(k) c(k) times its numerator per
/// byte ([`Bound`]).
///
/// The sums are kept in 64 bits while they fit, and in 128 from the
/// request where one stops fitting (the bytes' sum of sums passes 2⁶³
/// only in runs of millions of large results): 160 MB instead of 320 MB at
/// 10,000,000 requests, and half the memory each search reads.
pub(super) struct Running {
    columns: Columns,
    /// The last request's sums.
    last: [i128; 2],
}

/// The two sums' columns, narrow or wide.
enum Columns {
    Narrow { o: Vec<i64>, c: Vec<i64> },
    Wide { o: Vec<i128>, c: Vec<i128> },
}

impl Running {
    /// Room for `n` requests.
    pub(super) fn with_capacity(n: usize) -> Running {
        Running {
            columns: Columns::Narrow {
                o: Vec::with_capacity(n),
                c: Vec::with_capacity(n),
            },
            last: [0, 0],
        }
    }

    /// Adds the next request's o and c.
    pub(super) fn push(&mut self, o: i128, c: i128) {
        let [so, sc] = [self.last[0] + o, self.last[1] + c];
        self.last = [so, sc];
        if let Columns::Narrow { o: vo, c: vc } = &mut self.columns {
            if let (Ok(no), Ok(nc)) = (i64::try_from(so), i64::try_from(sc)) {
                vo.push(no);
                vc.push(nc);
                return;
            }
            // The first sum past 64 bits: every sum from here on is wide.
            let widen = |v: &Vec<i64>| {
                let mut w = Vec::with_capacity(v.capacity().max(v.len() + 1));
                w.extend(v.iter().map(|x| i128::from(*x)));
                w
            };
            self.columns = Columns::Wide {
                o: widen(vo),
                c: widen(vc),
            };
        }
        if let Columns::Wide { o: vo, c: vc } = &mut self.columns {
            vo.push(so);
            vc.push(sc);
        }
    }

    /// Σ o(i) over requests 0..=k.
    #[inline(always)]
    fn sum_o(&self, k: usize) -> i128 {
        match &self.columns {
            Columns::Narrow { o, .. } => i128::from(o[k]),
            Columns::Wide { o, .. } => o[k],
        }
    }

    /// Σ c(i) over requests 0..=k.
    #[inline(always)]
    fn sum_c(&self, k: usize) -> i128 {
        match &self.columns {
            Columns::Narrow { c, .. } => i128::from(c[k]),
            Columns::Wide { c, .. } => c[k],
        }
    }

    /// One bound's view: its numerators per output token and per byte.
    pub(super) fn bound(&self, per_out: i128, per_byte: i128) -> Bound<'_> {
        Bound {
            r: self,
            per_out,
            per_byte,
        }
    }
}

/// One bound's out, cum and D(k) = out(k) + cum(k) from the run's running
/// sums.
#[derive(Clone, Copy)]
pub(super) struct Bound<'a> {
    r: &'a Running,
    per_out: i128,
    per_byte: i128,
}

impl Bound<'_> {
    /// D(k) = out(k) + cum(k).
    #[inline(always)]
    pub(super) fn d(&self, k: u64) -> i128 {
        at(|i| self.r.sum_o(i), k) * self.per_out + at(|i| self.r.sum_c(i), k) * self.per_byte
    }

    /// cum(k).
    #[inline(always)]
    pub(super) fn cum(&self, k: u64) -> i128 {
        at(|i| self.r.sum_c(i), k) * self.per_byte
    }

    /// Σ D(i) for i = lo..=hi (0 when the range is empty).
    fn d_sum(&self, lo: u64, hi: u64) -> i128 {
        range(|i| self.r.sum_o(i), lo, hi) * self.per_out + self.cum_sum(lo, hi)
    }

    /// Σ cum(i) for i = lo..=hi.
    fn cum_sum(&self, lo: u64, hi: u64) -> i128 {
        range(|i| self.r.sum_c(i), lo, hi) * self.per_byte
    }

    /// The first k in `from..=n` with D(k) > `above`, or n + 1: D rises, so
    /// a search. It looks first at the `guess`-th request from `from` (a
    /// compaction's stretch is usually about as long as the last one), and
    /// widens from there, down or up, by doubling steps; then halves.
    fn first_above(&self, from: u64, n: u64, above: i128, guess: u64) -> u64 {
        let past = |k: u64| self.d(k) > above;
        let at = from.saturating_add(guess.max(1) - 1);
        let (mut lo, mut step) = if at < n && at > from && past(at) {
            // The answer lies in from..=at: widen down to a request not past.
            let (mut hi, mut step) = (at, 1u64);
            let lo = loop {
                match hi.checked_sub(step).filter(|&k| k > from) {
                    Some(probe) if past(probe) => {
                        hi = probe;
                        step = step.saturating_mul(2);
                    }
                    Some(probe) => break probe + 1,
                    None => break from,
                }
            };
            return partition_point(lo, hi, past);
        } else if at < n && at > from {
            // Not past yet: the answer lies after `at`.
            (at + 1, 1u64)
        } else {
            (from, 1u64)
        };
        // Widen until past, or to the end: the answer lies in lo..=hi.
        let hi = loop {
            let probe = lo.saturating_add(step - 1);
            if probe >= n {
                break n + 1;
            }
            if past(probe) {
                break probe;
            }
            lo = probe + 1;
            step = step.saturating_mul(2);
        };
        partition_point(lo, hi, past)
    }
}

/// v(k) from its running sums.
#[inline(always)]
fn at(running: impl Fn(usize) -> i128, k: u64) -> i128 {
    let k = ix(k);
    running(k) - if k == 0 { 0 } else { running(k - 1) }
}

/// Σ v(i) for i = lo..=hi from its running sums (0 when the range is empty).
fn range(running: impl Fn(usize) -> i128, lo: u64, hi: u64) -> i128 {
    if hi < lo {
        return 0;
    }
    let below = if lo == 0 { 0 } else { running(ix(lo - 1)) };
    running(ix(hi)) - below
}

#[cfg(test)]
mod tests {
    use super::{ix, Running};

    #[test]
    fn the_first_request_past_a_line_is_found_wherever_the_search_starts() {
        // o(k) and c(k) (each already summed up to request k) rise by
        // steps of 0 to 3, so D(k) does, plateaus included; n = 40. Then
        // the same on top of 2⁵⁹ output tokens a request, whose running
        // sum passes 2⁶³ at the 17th request: the sums widen there.
        for base in [0, 1i128 << 59] {
            first_above_on(base);
        }
    }

    #[test]
    fn sums_past_64_bits_widen_and_read_the_same() {
        let mut running = Running::with_capacity(4);
        let big = i128::from(i64::MAX) - 5;
        let pushed = [(1, 2), (big, 3), (big, big), (7, big)];
        let mut sums = [0i128; 2];
        let mut want = Vec::new();
        for (o, c) in pushed {
            running.push(o, c);
            sums = [sums[0] + o, sums[1] + c];
            want.push(sums);
        }
        assert!(matches!(running.columns, super::Columns::Wide { .. }));
        for (k, w) in want.iter().enumerate() {
            assert_eq!([running.sum_o(k), running.sum_c(k)], *w);
        }
        let mut narrow = Running::with_capacity(1);
        narrow.push(i128::from(i64::MAX), 0);
        assert!(matches!(narrow.columns, super::Columns::Narrow { .. }));
        narrow.push(1, 0);
        assert!(matches!(narrow.columns, super::Columns::Wide { .. }));
        assert_eq!(narrow.sum_o(1), i128::from(i64::MAX) + 1);
    }

    fn first_above_on(base: i128) {
        let mut running = Running::with_capacity(41);
        let (mut o, mut c) = (0i128, 0i128);
        for k in 0..=40i128 {
            o += k % 2;
            c += (k * 7) % 4 * i128::from(k % 5 != 0);
            running.push(base + o, c);
        }
        assert_eq!(
            matches!(running.columns, super::Columns::Wide { .. }),
            base > 0
        );
        let sums = running.bound(3, 2);
        let n = 40;
        let d: Vec<i128> = (0..=n).map(|k| sums.d(k)).collect();
        assert!(d.windows(2).all(|w| w[0] <= w[1]), "{d:?}");
        for from in 1..=n {
            for above in d[0] - 1..=d[ix(n)] + 1 {
                // A linear scan: the first k in from..=n past the line, or n + 1.
                let want = (from..=n).find(|&k| d[ix(k)] > above).unwrap_or(n + 1);
                for guess in [0, 1, 2, 3, 5, 8, 13, 40, 41, 1000, u64::MAX] {
                    assert_eq!(
                        sums.first_above(from, n, above, guess),
                        want,
                        "from {from}, above {above}, guess {guess}"
                    );
                }
            }
        }
    }
}
