//! The engine's one binary search over a range of integers (the standard
//! library's `partition_point` searches slices, and these ranges are
//! computed, not stored).

/// The first k in `lo..hi` for which `past(k)`, or `hi` when there is none;
/// `past` is false and then true over the range (it rises).
#[inline(always)]
pub(crate) fn partition_point(mut lo: u64, mut hi: u64, past: impl Fn(u64) -> bool) -> u64 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if past(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::partition_point;

    #[test]
    fn the_first_point_past_is_found_or_the_end() {
        for hi in 0..20u64 {
            for cut in 0..=hi + 1 {
                // A slice's partition point says the same.
                let items: Vec<u64> = (0..hi).collect();
                let want = items.partition_point(|&k| k < cut);
                assert_eq!(
                    partition_point(0, hi, |k| k >= cut),
                    want as u64,
                    "{hi} {cut}"
                );
                // From a later start.
                assert_eq!(
                    partition_point(3.min(hi), hi, |k| k >= cut),
                    (want as u64).max(3.min(hi))
                );
            }
        }
    }
}
