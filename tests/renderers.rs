//! One snapshot per renderer (terminal, CSV, JSON, HTML) of every command's
//! document, built from the small fixture scenario `tests/fixtures/tiny.toml`,
//! plus a round trip of each document through its JSON. The figures are
//! checked elsewhere (reproduction, what-if, forecast); these guard layout.
//!
//! HTML snapshots replace each inline SVG with its size: the charts are
//! looked at in the browser test, and the rest of the page stays reviewable.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use tokencast::analysis::forecast::{self, ForecastSpec, Method, Sampler};
use tokencast::analysis::sweep::{self, Axis, Param, Value};
use tokencast::document::{diff, load::load, Contents, Document, SimulationDoc};
use tokencast::input::SourceText;
use tokencast::pricing::Cache;
use tokencast::report::{HtmlOptions, Render, TerminalOptions};
use tokencast::scenario::Scenario;

fn scenario() -> Scenario {
    tokencast::files::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny.toml"),
        None,
    )
    .expect("the fixture scenario loads")
}

/// The page with every `<svg …>…</svg>` replaced by a placeholder giving its size.
fn html_without_svg(bytes: Vec<u8>) -> String {
    let html = String::from_utf8(bytes).unwrap();
    let mut out = String::new();
    let mut rest = html.as_str();
    while let Some(start) = rest.find("<svg") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("</svg>").expect("closed svg") + start + 6;
        out.push_str(&format!("<svg: {} bytes>", end - start));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Snapshots every renderer of `doc` under `name`, and checks the JSON round trip.
fn snapshot_all<T: Render + std::fmt::Debug>(name: &str, doc: &T) {
    let terminal = doc.terminal(&TerminalOptions {
        requests: true,
        width: 100,
        brief: false,
        wide: false,
    });
    insta::assert_snapshot!(format!("{name}_terminal"), terminal);
    insta::assert_snapshot!(format!("{name}_csv"), String::from_utf8(doc.csv()).unwrap());
    let json = doc.json();
    insta::assert_snapshot!(
        format!("{name}_json"),
        String::from_utf8(json.clone()).unwrap()
    );
    let html = doc.html(&HtmlOptions::default()).expect("renders");
    insta::assert_snapshot!(format!("{name}_html"), html_without_svg(html));
    round_trip::<T>(&json);
}

/// A document read back from its JSON writes the same JSON again.
fn round_trip<T: Render>(json: &[u8]) {
    let src = SourceText {
        name: format!("saved-{}.json", T::KIND),
        text: String::from_utf8(json.to_vec()).unwrap(),
    };
    let back: T = load(&src).unwrap_or_else(|e| panic!("{} loads: {e}", T::KIND));
    assert!(
        back.json() == json,
        "{} round trip: the JSON read back differs",
        T::KIND
    );
}

#[test]
fn simulation_renderers() {
    let doc = SimulationDoc::build(&scenario(), Contents::FULL);
    snapshot_all("simulation", &doc);
}

#[test]
fn sweep_renderers() {
    let s = scenario();
    let axes = [
        Axis {
            param: Param::OutputTokensPerStep,
            values: [0, 500, 1000].map(|v| Value::Number(v.into())).to_vec(),
        },
        Axis {
            param: Param::Cache,
            values: [Cache::None, Cache::OneHour].map(Value::Cache).to_vec(),
        },
    ];
    snapshot_all("sweep_grid", &sweep::run(&s, &axes).unwrap());
    snapshot_all("sweep_line", &sweep::run(&s, &axes[..1]).unwrap());
}

#[test]
fn forecast_renderers() {
    let s = scenario();
    let spec = ForecastSpec {
        calls: 6,
        runs: 2_000,
        seed: 3,
        method: Method::Bootstrap,
        budget: Some("0.05".parse().unwrap()),
    };
    let sampler = Sampler::new(s.trace(), spec.method).unwrap();
    let doc = forecast::run(&s, &spec, &sampler, &AtomicBool::new(false), &|_| {}).unwrap();
    snapshot_all("forecast", &doc);
}

#[test]
fn corpus_forecast_renderers() {
    use tokencast::analysis::corpus::{self, CorpusSpec, Recorded, SessionCost};
    use tokencast::engine::Bounds;
    let d = |s: &str| -> rust_decimal::Decimal { s.parse().unwrap() };
    let b = |lo: &str, hi: &str| Bounds {
        lower: d(lo),
        upper: d(hi),
    };
    let rec = Recorded {
        kinds: vec!["lookup".into(), "research".into()],
        variants: vec!["raw".into(), "trimmed".into()],
        sessions: vec![
            SessionCost {
                name: "a".into(),
                kind: 0,
                cost: vec![b("0.1", "0.12"), b("0.05", "0.06")],
            },
            SessionCost {
                name: "b".into(),
                kind: 0,
                cost: vec![b("0.2", "0.25"), b("0.08", "0.1")],
            },
            SessionCost {
                name: "c".into(),
                kind: 1,
                cost: vec![b("1.5", "1.9"), b("0.4", "0.5")],
            },
        ],
    };
    let spec = CorpusSpec {
        weights: Some(vec![d("3"), d("1")]),
        runs_per_day: 4,
        team_size: 1,
        working_days_per_week: 5,
        days: 2_000,
        seed: 3,
    };
    let doc = corpus::forecast(
        &rec,
        &spec,
        "lookup + research".into(),
        vec!["batch".into()],
    );
    snapshot_all("corpus_forecast", &doc);
}

#[test]
fn diff_renderers() {
    let s = scenario();
    let a = SimulationDoc::build(&s, Contents::FIGURES);
    let changed = s
        .with(Param::OutputTokensPerStep, Value::Number(300.into()))
        .unwrap();
    let b = SimulationDoc::build(&changed, Contents::FIGURES);
    snapshot_all("diff", &diff::compare(&a, &b, "a.toml", "b.toml"));
}

#[test]
fn a_saved_document_of_another_kind_is_named_when_loading() {
    let s = scenario();
    let sweep_json = sweep::run(
        &s,
        &[Axis {
            param: Param::RunsPerDay,
            values: vec![Value::Number(5.into())],
        }],
    )
    .unwrap()
    .json();
    let src = SourceText {
        name: "sweep.json".into(),
        text: String::from_utf8(sweep_json).unwrap(),
    };
    let e = load::<SimulationDoc>(&src).unwrap_err();
    assert!(
        e.message()
            .contains("is a tokencast sweep document, not a simulation result"),
        "{}",
        e.message()
    );
    assert_eq!(<SimulationDoc as Document>::KIND, "simulation");
}

#[test]
fn a_scenario_with_only_raw_results_draws_no_trimmed_series() {
    let s = scenario()
        .with_only(|v| v.variant.results == tokencast::scenario::Content::Raw)
        .unwrap();
    let page = String::from_utf8(
        SimulationDoc::build(&s, Contents::FULL)
            .html(&HtmlOptions::default())
            .unwrap(),
    )
    .unwrap();
    assert!(
        !page.contains("chart-composition"),
        "kept vs cut needs trimmed results"
    );
    assert!(page.contains("(a) Input tokens per request, raw"));
    assert!(!page.contains("(a) Input tokens per request, raw vs"));
    assert!(!page.contains("trimmed results, lower bound"));
    assert!(page.contains("(b) Bytes per tool call, raw"));
    assert!(!page.contains("(b) Bytes per tool call, raw vs"));
}
