//! Exact order statistics of more values than are kept: the nearest-rank
//! percentiles of simulated days and months in memory that does not grow
//! with their number.
//!
//! The values come in seeded chunks that can be drawn again, draw for draw.
//! Each pass draws every chunk once and looks only at the values inside a
//! window per wanted rank, starting from bounds known in advance (a period
//! of `runs` runs costs between `runs` times the cheapest and `runs` times
//! the dearest session). A window of at most [`COLLECT`] values is
//! collected and sorted, and the rank read from it; a larger one is counted
//! in [`BINS`] equal bins and narrowed to the bin that holds the rank. Each
//! narrowing divides the window's width by [`BINS`], so a window of one
//! value is reached in at most ⌈128 ÷ 12⌉ passes; two or three are usual.
//! The answer is the value a full sort would put at that rank: exact,
//! whatever the number of values or threads.

/// Most values a window collects to sort; a window holding more is
/// narrowed first.
pub(super) const COLLECT: u64 = 1 << 17;
/// Bins of a narrowing pass.
const BINS: u128 = 4096;

/// The values of one column between `lo` and `hi` (inclusive), with how
/// many of the column's values lie below `lo` and how many inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Window {
    lo: i128,
    hi: i128,
    below: u64,
    inside: u64,
}

impl Window {
    /// The width of a bin when the window is counted in [`BINS`] bins.
    fn bin_width(&self) -> u128 {
        // hi ≥ lo, so the difference fits u128 even across the whole range.
        (self.hi.wrapping_sub(self.lo) as u128) / BINS + 1
    }

    /// The bin of `v`, a value inside the window.
    fn bin(&self, v: i128, width: u128) -> usize {
        ((v.wrapping_sub(self.lo) as u128) / width) as usize
    }

    /// The window narrowed to bin `b`, which holds `inside` values and has
    /// `before` values of the window below it.
    fn narrowed(&self, b: usize, width: u128, before: u64, inside: u64) -> Window {
        let offset = b as u128 * width;
        let lo = self.lo.wrapping_add(offset as i128);
        let span = self.hi.wrapping_sub(self.lo) as u128;
        let hi = if offset.checked_add(width - 1).is_none_or(|end| end >= span) {
            self.hi
        } else {
            lo.wrapping_add((width - 1) as i128)
        };
        Window {
            lo,
            hi,
            below: self.below + before,
            inside,
        }
    }
}

/// What one pass gathers for a window: its values, or their count per bin.
#[derive(Debug, Clone)]
enum Gather {
    Values(Vec<i128>),
    Bins(Vec<u64>),
}

impl Gather {
    fn for_window(w: &Window, collect: u64) -> Gather {
        if w.inside <= collect {
            Gather::Values(Vec::new())
        } else {
            Gather::Bins(vec![0; BINS as usize])
        }
    }

    fn merge(&mut self, other: Gather) {
        match (self, other) {
            (Gather::Values(a), Gather::Values(mut b)) => a.append(&mut b),
            (Gather::Bins(a), Gather::Bins(b)) => a.iter_mut().zip(b).for_each(|(x, y)| *x += y),
            _ => unreachable!("the windows of one pass gather alike in every chunk"),
        }
    }
}

/// The `ranks` (0-based positions in ascending order, each below `count`)
/// of every one of `cols` columns of `count` rows. `chunk(c)` gives chunk
/// `c` of `chunks` (row-major, `cols` values a row), the same each time it
/// is asked; `bounds[x]` holds every value of column `x`. A window of at
/// most `collect` values is sorted ([`COLLECT`] in use; tests pass less).
pub(super) fn order_statistics<G>(
    cols: usize,
    count: u64,
    chunks: u64,
    bounds: &[(i128, i128)],
    ranks: &[u64],
    collect: u64,
    chunk: G,
) -> Vec<Vec<i128>>
where
    G: Fn(u64) -> Vec<i128> + Sync + Send,
{
    let mut window: Vec<Vec<Window>> = bounds
        .iter()
        .map(|&(lo, hi)| {
            let w = Window {
                lo,
                hi,
                below: 0,
                inside: count,
            };
            vec![w; ranks.len()]
        })
        .collect();
    let mut found: Vec<Vec<Option<i128>>> = vec![vec![None; ranks.len()]; cols];
    loop {
        // A window of one value holds the rank: its value.
        for (x, ws) in window.iter().enumerate() {
            for (r, w) in ws.iter().enumerate() {
                if found[x][r].is_none() && w.lo == w.hi {
                    found[x][r] = Some(w.lo);
                }
            }
        }
        // The distinct open windows of each column, and each rank's among them.
        let mut open: Vec<Vec<Window>> = vec![Vec::new(); cols];
        let mut slot: Vec<Vec<usize>> = vec![vec![usize::MAX; ranks.len()]; cols];
        for x in 0..cols {
            for r in 0..ranks.len() {
                if found[x][r].is_none() {
                    let w = window[x][r];
                    slot[x][r] = open[x].iter().position(|o| *o == w).unwrap_or_else(|| {
                        open[x].push(w);
                        open[x].len() - 1
                    });
                }
            }
        }
        if open.iter().all(Vec::is_empty) {
            break;
        }
        let fresh = || -> Vec<Vec<Gather>> {
            open.iter()
                .map(|ws| ws.iter().map(|w| Gather::for_window(w, collect)).collect())
                .collect()
        };
        let widths: Vec<Vec<u128>> = open
            .iter()
            .map(|ws| ws.iter().map(Window::bin_width).collect())
            .collect();
        let gathered = crate::par::map_reduce(
            0..chunks,
            |c| {
                let mut g = fresh();
                for row in chunk(c).chunks(cols) {
                    for (x, &v) in row.iter().enumerate() {
                        for (j, w) in open[x].iter().enumerate() {
                            if w.lo <= v && v <= w.hi {
                                match &mut g[x][j] {
                                    Gather::Values(vals) => vals.push(v),
                                    Gather::Bins(bins) => bins[w.bin(v, widths[x][j])] += 1,
                                }
                            }
                        }
                    }
                }
                g
            },
            fresh,
            |mut a, b| {
                for (ga, gb) in a.iter_mut().zip(b) {
                    for (x, y) in ga.iter_mut().zip(gb) {
                        x.merge(y);
                    }
                }
                a
            },
        );
        for (x, gs) in gathered.into_iter().enumerate() {
            for (j, g) in gs.into_iter().enumerate() {
                let w = open[x][j];
                let of_slot = (0..ranks.len()).filter(|&r| slot[x][r] == j);
                match g {
                    Gather::Values(mut vals) => {
                        vals.sort_unstable();
                        for r in of_slot {
                            found[x][r] = Some(vals[(ranks[r] - w.below) as usize]);
                        }
                    }
                    Gather::Bins(bins) => {
                        for r in of_slot {
                            let mut before = 0;
                            let (b, n) = bins
                                .iter()
                                .enumerate()
                                .find(|(_, n)| {
                                    let holds = w.below + before + **n > ranks[r];
                                    if !holds {
                                        before += **n;
                                    }
                                    holds
                                })
                                .expect("the rank lies inside its window");
                            window[x][r] = w.narrowed(b, widths[x][j], before, *n);
                        }
                    }
                }
            }
        }
    }
    found
        .into_iter()
        .map(|f| {
            f.into_iter()
                .map(|v| v.expect("every rank found"))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// `rows` rows of `cols` columns in chunks of 100, drawn by `value`.
    fn chunked(
        rows: u64,
        cols: usize,
        value: impl Fn(&mut Pcg64Mcg, usize) -> i128 + Sync + Send,
    ) -> impl Fn(u64) -> Vec<i128> + Sync + Send {
        move |c| {
            let mut rng = Pcg64Mcg::seed_from_u64(c);
            let n = 100.min(rows - c * 100);
            (0..n * cols as u64)
                .map(|i| value(&mut rng, (i % cols as u64) as usize))
                .collect()
        }
    }

    /// The ranks of every column by sorting all of it.
    fn by_sorting(
        rows: u64,
        cols: usize,
        chunk: &impl Fn(u64) -> Vec<i128>,
        ranks: &[u64],
    ) -> Vec<Vec<i128>> {
        let all: Vec<i128> = (0..rows.div_ceil(100)).flat_map(chunk).collect();
        (0..cols)
            .map(|x| {
                let mut col: Vec<i128> = all.iter().skip(x).step_by(cols).copied().collect();
                col.sort_unstable();
                ranks.iter().map(|&k| col[k as usize]).collect()
            })
            .collect()
    }

    #[test]
    fn narrowing_windows_find_what_a_sort_finds() {
        // Three columns: spread over a wide range, a few repeated values
        // (whole bins of one value), and negatives near the bottom of i128.
        let rows = 10_000;
        let chunk = chunked(rows, 3, |rng, x| match x {
            0 => rng.random_range(0..1_000_000_000_000i128),
            1 => i128::from(rng.random_range(0..4u8)) * 7,
            _ => i128::MIN + rng.random_range(0..1000i128),
        });
        let bounds = [
            (0, 1_000_000_000_000),
            (0, 21),
            (i128::MIN, i128::MIN + 1000),
        ];
        let ranks = [0, 4_999, 8_999, 9_899, 9_999];
        let want = by_sorting(rows, 3, &chunk, &ranks);
        // Collecting everything at once, and narrowing until 50 values.
        for collect in [rows, 50] {
            let got = order_statistics(
                3,
                rows,
                rows.div_ceil(100),
                &bounds,
                &ranks,
                collect,
                &chunk,
            );
            assert_eq!(got, want, "collect {collect}");
        }
    }

    #[test]
    fn loose_bounds_across_all_of_i128_still_narrow_to_the_value() {
        let rows = 1_000;
        let chunk = chunked(rows, 1, |rng, _| rng.random_range(-5..5i128));
        let ranks = [0, 499, 999];
        let got = order_statistics(1, rows, 10, &[(i128::MIN, i128::MAX)], &ranks, 1, &chunk);
        assert_eq!(got, by_sorting(rows, 1, &chunk, &ranks));
    }
}
