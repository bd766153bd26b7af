//! The engine's only parallelism: an ordered map and a map-reduce.
//!
//! With the `parallel` feature (the CLI's default) both run on rayon's
//! global pool; without it (a web page, a single-threaded embedder) they run
//! in order on the calling thread. Every caller's result is independent of
//! the order work is done in (ordered collection, or an associative merge of
//! integer sums), so both builds give the same figures.

/// `f` over `items`, results in the order of `items`. Each item is a job
/// of its own (the items are few and of uneven cost: variants, strategies,
/// sweep groups, bootstrap rounds), so a thread that is done takes the
/// next one left: split into halves, the half holding the dearest item
/// (the lowest compaction threshold of a context what-if's grid) ran its
/// items in order on one thread while the other was idle.
#[cfg(feature = "parallel")]
pub fn map<I, T, R, F>(items: I, f: F) -> Vec<R>
where
    I: rayon::iter::IntoParallelIterator<Item = T>,
    I::Iter: rayon::iter::IndexedParallelIterator,
    R: Send,
    F: Fn(T) -> R + Sync + Send,
{
    use rayon::prelude::*;
    items.into_par_iter().with_max_len(1).map(f).collect()
}

/// `f` over `items`, results in the order of `items`.
#[cfg(not(feature = "parallel"))]
pub fn map<I, T, R, F>(items: I, f: F) -> Vec<R>
where
    I: IntoIterator<Item = T>,
    F: Fn(T) -> R,
{
    items.into_iter().map(f).collect()
}

/// `a` and `b`, side by side when the pool has a thread free.
#[cfg(feature = "parallel")]
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    rayon::join(a, b)
}

/// `a` and then `b`.
#[cfg(not(feature = "parallel"))]
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB,
{
    (a(), b())
}

/// `f` over `items`, merged with `op` starting from `identity()` (which
/// must be `op`'s neutral element, and `op` associative).
#[cfg(feature = "parallel")]
pub fn map_reduce<I, T, R, F, Id, Op>(items: I, f: F, identity: Id, op: Op) -> R
where
    I: rayon::iter::IntoParallelIterator<Item = T>,
    R: Send,
    F: Fn(T) -> R + Sync + Send,
    Id: Fn() -> R + Sync + Send,
    Op: Fn(R, R) -> R + Sync + Send,
{
    use rayon::prelude::*;
    items.into_par_iter().map(f).reduce(identity, op)
}

/// `f` over `items`, merged with `op` starting from `identity()` (which
/// must be `op`'s neutral element, and `op` associative).
#[cfg(not(feature = "parallel"))]
pub fn map_reduce<I, T, R, F, Id, Op>(items: I, f: F, identity: Id, op: Op) -> R
where
    I: IntoIterator<Item = T>,
    F: Fn(T) -> R,
    Id: Fn() -> R,
    Op: Fn(R, R) -> R,
{
    items.into_iter().map(f).fold(identity(), op)
}

/// `fold` over `items` into accumulators made by `identity()` (one for
/// each stretch of items a thread takes, not one per item), merged with
/// `op` in the order of the items (`identity()` must be `op`'s neutral
/// element, and `op` associative).
#[cfg(feature = "parallel")]
pub fn fold_reduce<I, T, R, Id, F, Op>(items: I, identity: Id, fold: F, op: Op) -> R
where
    I: rayon::iter::IntoParallelIterator<Item = T>,
    R: Send,
    Id: Fn() -> R + Sync + Send,
    F: Fn(R, T) -> R + Sync + Send,
    Op: Fn(R, R) -> R + Sync + Send,
{
    use rayon::prelude::*;
    items
        .into_par_iter()
        .fold(&identity, fold)
        .reduce(&identity, op)
}

/// `fold` over `items` into accumulators made by `identity()` (one for
/// each stretch of items a thread takes, not one per item), merged with
/// `op` in the order of the items (`identity()` must be `op`'s neutral
/// element, and `op` associative).
#[cfg(not(feature = "parallel"))]
pub fn fold_reduce<I, T, R, Id, F, Op>(items: I, identity: Id, fold: F, _op: Op) -> R
where
    I: IntoIterator<Item = T>,
    Id: Fn() -> R,
    F: Fn(R, T) -> R,
    Op: Fn(R, R) -> R,
{
    items.into_iter().fold(identity(), fold)
}

#[cfg(test)]
mod tests {
    #[test]
    fn map_keeps_the_order_of_its_items() {
        let squares = super::map(0..1000usize, |i| i * i);
        assert_eq!(squares.len(), 1000);
        assert!(squares.iter().enumerate().all(|(i, s)| *s == i * i));
    }

    #[test]
    fn fold_reduce_keeps_the_order_of_its_items() {
        // Concatenation is associative but not commutative: any reordering
        // of items or accumulators would show.
        let joined = super::fold_reduce(
            0..1000u32,
            Vec::new,
            |mut acc, i| {
                acc.push(i);
                acc
            },
            |mut a, mut b| {
                a.append(&mut b);
                a
            },
        );
        assert_eq!(joined, (0..1000).collect::<Vec<u32>>());
    }

    #[test]
    fn map_reduce_sums_like_a_loop() {
        let sum = super::map_reduce(1..=100u64, |i| i, || 0, |a, b| a + b);
        assert_eq!(sum, 5050);
    }
}
