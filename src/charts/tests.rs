//! Unit tests of the parent module.

use super::*;

#[test]
fn a_step_holds_each_value_until_the_next_point() {
    let p = [(0.0, 1.0), (300.0, 5.0), (600.0, 5.0)];
    assert_eq!(
        as_steps(&p),
        [
            (0.0, 1.0),
            (300.0, 1.0),
            (300.0, 5.0),
            (600.0, 5.0),
            (600.0, 5.0)
        ]
    );
}

#[test]
fn a_log_axis_spans_whole_decades_around_the_positive_values() {
    // 1,700 … 490,000: 10³ to 10⁶; zeros and negatives do not count.
    let (a, b) = decades([0.0, -3.0, 1_700.0, 490_000.0].into_iter());
    assert_eq!((a, b), (3.0, 6.0));
    // One value still gets a decade.
    assert_eq!(decades([100.0].into_iter()), (2.0, 3.0));
}

#[test]
fn a_log_chart_labels_decades_and_says_it_is_logarithmic() {
    let line = |label: &str, k: f64| Line {
        label: label.into(),
        color: INK,
        dashed: false,
        points: (1..=12).map(|m| (m as f64, k * m as f64)).collect(),
    };
    let svg = lines_shaped(
        &Fmt::usd(),
        Lines {
            title: "t",
            x_desc: "month",
            y_desc: "USD",
            lines: vec![line("dear", 40_000.0), line("cheap", 1_500.0)],
            mark: None,
        },
        Shape {
            log_y: true,
            steps: false,
        },
    )
    .unwrap();
    assert!(svg.contains("USD (log scale)"), "{svg}");
    for decade in ["1,000", "10,000", "100,000", "1,000,000"] {
        assert!(
            svg.contains(&format!(">\n{decade}\n<")),
            "{decade} not labelled: {svg}"
        );
    }
}
