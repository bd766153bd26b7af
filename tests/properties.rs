//! Property tests that run with `cargo test`: the parsers and the
//! arithmetic that users reach never panic, whatever they are given (the
//! cargo-fuzz targets in `fuzz/` search the same ground for longer).

use proptest::prelude::*;
use rust_decimal::Decimal;
use std::path::Path;
use tokencast::cli::spec::parse_axis;
use tokencast::error::AppError;
use tokencast::input::SourceText;
use tokencast::report::format;
use tokencast::report::Fmt;
use tokencast::scenario::trace;

fn decimal() -> impl Strategy<Value = Decimal> {
    (any::<i64>(), any::<u32>(), 0u32..=28).prop_map(|(hi, lo, scale)| {
        let m = (i128::from(hi) << 32) | i128::from(lo);
        Decimal::try_from_i128_with_scale(m, scale).unwrap_or(Decimal::MAX)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn money_formats_any_decimal(d in decimal(), dp in 0u32..=10) {
        let s = format::fixed(d, dp);
        if dp > 0 {
            prop_assert_eq!(s.split('.').nth(1).map(str::len), Some(dp as usize));
        }
        // Money is the fixed figure at its scale's decimals with a sign and
        // separators, nothing else.
        for scale in [format::Scale::Request, format::Scale::Run, format::Scale::Cents, format::Scale::Charge, format::Scale::Price] {
            let money = Fmt::usd().money(d, scale);
            prop_assert!(money.contains('$'), "{}", money);
            prop_assert_eq!(money.replace(['$', ','], ""), format::fixed(d, scale.decimals(d)));
        }
        let share = format::percent(d);
        prop_assert!(share.ends_with('%'), "{}", share);
    }

    #[test]
    fn sweep_ranges_never_panic(spec in "[a-z_]{1,24}=[-0-9.e]{0,30}(\\.\\.[-0-9.e]{0,30})?(:[-0-9.e]{0,30})?") {
        // Either a checked axis within the point limit, or an error that
        // names the parameter or the range it was given.
        match parse_axis(&spec, 1000) {
            Ok(axis) => prop_assert!(!axis.values.is_empty() && axis.values.len() <= 1000),
            Err(e) => {
                let shown = AppError::Input(e).render();
                prop_assert!(shown.starts_with("error: "), "{}", shown);
                prop_assert!(shown.contains("help"), "{}", shown);
            }
        }
    }

    #[test]
    fn trace_rows_never_panic(rows in proptest::collection::vec(
        ("[a-z/]{0,8}", "[-0-9]{0,4}", "[-0-9]{0,6}", "[-0-9]{0,12}", "[-0-9]{0,12}", "[-0-9]{0,8}", "[-0-9.e]{0,12}", "(true|false|x)"),
        0..6,
    )) {
        let mut text = String::from("capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed\n");
        for r in &rows {
            text.push_str(&format!("{},{},{},{},{},{},{},{}\n", r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7));
        }
        let src = SourceText { name: "t.csv".into(), text };
        match trace::parse_csv(&src) {
            Ok(calls) => prop_assert_eq!(calls.len(), rows.len()),
            // A located error: the file and the line of the bad row.
            Err(e) => {
                let shown = AppError::Input(e).render();
                prop_assert!(shown.contains("t.csv"), "{}", shown);
            }
        }
    }

    #[test]
    fn assumptions_never_panic(
        prefix in any::<u64>(), step in any::<u64>(), last in any::<u64>(),
        b in "[-0-9.]{1,12}", u in "[-0-9.]{1,12}", runs in any::<u64>(),
    ) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let text = std::fs::read_to_string(root.join("research.toml")).unwrap()
            .replace("prefix_tokens = 3000", &format!("prefix_tokens = {prefix}"))
            .replace("output_tokens_per_step = 500", &format!("output_tokens_per_step = {step}"))
            .replace("final_output_tokens = 2000", &format!("final_output_tokens = {last}"))
            .replace("bytes_per_token = 4", &format!("bytes_per_token = \"{b}\""))
            .replace("tokenizer_uplift = 1.3", &format!("tokenizer_uplift = \"{u}\""))
            .replace("runs_per_day = 100", &format!("runs_per_day = {runs}"));
        let src = SourceText { name: "research.toml".into(), text };
        match tokencast::files::check(&src, &root, None, Default::default()) {
            Ok(s) => {
                let sim = tokencast::engine::simulate(&s, tokencast::engine::SimulateOptions::TOTALS);
                prop_assert!(sim.variants.iter().all(|v| v.cost.total.lower <= v.cost.total.upper));
            }
            Err(e) => {
                let shown = AppError::Input(e).render();
                prop_assert!(shown.contains("research.toml"), "{}", shown);
            }
        }
    }
}
