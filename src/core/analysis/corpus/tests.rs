//! Unit tests of the parent module.

use super::*;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

#[test]
fn the_order_is_the_decimal_order_at_any_mix_of_scales() {
    let values = [
        d("0.5"),
        d("0.50"),
        d("0.4999999999"),
        d("12"),
        d("-1.25"),
        d("0"),
    ];
    // Ties (0.5 and 0.50) keep their index order.
    assert_eq!(ascending(&values), vec![4, 5, 2, 0, 1, 3]);
    // A value no common scale holds: compared as decimals.
    let wide = [Decimal::MAX, d("0.0000000000000000000000000001"), d("1")];
    assert_eq!(ascending(&wide), vec![1, 2, 0]);
}

#[test]
fn a_weighted_quantile_is_the_first_value_whose_weight_reaches_p() {
    let values = [d("3"), d("1"), d("2"), d("10")];
    let weight = [d("1"), d("1"), d("1"), d("0")];
    // Weight 3 in all (the 10 has none): p50 reaches 1.5 at the second value, 2.
    assert_eq!(quantile(&values, &weight, 50), d("2"));
    assert_eq!(quantile(&values, &weight, 99), d("3"));
    assert_eq!(quantile(&values, &weight, 1), d("1"));
}
