//! Unit tests of the parent module.

use super::*;

#[test]
fn a_family_drops_the_date() {
    assert_eq!(family("claude-sonnet-4-5-20250929"), "claude-sonnet-4-5");
    assert_eq!(family("claude-opus-4-6"), "claude-opus-4-6");
    assert_eq!(family("gpt-5-codex"), "gpt-5-codex");
}

#[test]
fn a_claude_model_on_a_cloud_is_the_same_family() {
    // The same model on Amazon Bedrock or Vertex AI counts the same tokens.
    for id in [
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "claude-sonnet-4-5@20250929",
        "claude-sonnet-4-5@default",
    ] {
        assert_eq!(family(id), "claude-sonnet-4-5", "{id}");
    }
    // And keeps its behaviour: Sonnet 4.5 drops earlier turns' thinking,
    // Opus 4.6 keeps it, wherever it runs.
    assert!(crate::import::strips_earlier_thinking(
        "eu.anthropic.claude-sonnet-4-5-20250929-v1:0"
    ));
    assert!(crate::import::strips_earlier_thinking(
        "claude-sonnet-4-5@20250929"
    ));
    assert!(!crate::import::strips_earlier_thinking(
        "us.anthropic.claude-opus-4-6-v1"
    ));
    // The dataset names the cloud as the provider.
    let provider = crate::import::dataset::tables::provider;
    assert_eq!(
        provider("us.anthropic.claude-opus-4-6-v1"),
        Some("aws.bedrock")
    );
    assert_eq!(provider("claude-opus-4-6@default"), Some("gcp.vertex_ai"));
    assert_eq!(provider("claude-opus-4-6"), Some("anthropic"));
}

#[test]
fn merged_calibrations_pool_their_sums() {
    let one = |bytes, tokens, steps, p10: i64, p90: i64| FamilyFit {
        steps,
        bytes,
        tokens,
        overhead: 10,
        p10: Decimal::from(p10),
        p50: Decimal::from(p10),
        p90: Decimal::from(p90),
        turns: 4,
        turn_breaks: 1,
        kinds: [(
            "code".to_string(),
            KindFit {
                steps,
                bytes: bytes / 2,
                tokens: tokens / 2,
                p10: Decimal::from(p10),
                p50: Decimal::from(p10),
                p90: Decimal::from(p90),
                mix: bytes,
            },
        )]
        .into(),
    };
    let a = Calibration {
        families: [("m".to_string(), one(3000, 1000, 10, 2, 4))].into(),
    };
    let b = Calibration {
        families: [("m".to_string(), one(1000, 1000, 30, 1, 2))].into(),
    };
    let m = Calibration::merge(&[a, b]);
    let f = m.fit_for("m-20260101").unwrap();
    // 4,000 bytes over 2,000 tokens; p10 (2×10 + 1×30)/40 = 1.25,
    // p90 (4×10 + 2×30)/40 = 2.5.
    assert_eq!(f.pooled, Decimal::from(2));
    assert_eq!((f.p10, f.p90), (Decimal::new(125, 2), Decimal::new(25, 1)));
    assert_eq!(f.steps, 40);
    // Each kind's sums add up the same way: 1,500 + 500 bytes over 500 +
    // 500 tokens, 3,000 + 1,000 bytes of code in the mix.
    let code = f.kinds[0];
    assert_eq!(
        (code.steps, code.bytes, code.tokens, code.mix),
        (40, 2000, 1000, 4000)
    );
    assert_eq!(
        (code.p10, code.p90),
        (Decimal::new(125, 2), Decimal::new(25, 1))
    );
    assert_eq!(f.kinds[1], KindFit::default());
    let text = m.to_toml();
    assert!(text.starts_with(CALIBRATION_HEADER));
    let src = crate::input::SourceText {
        name: "c.toml".into(),
        text,
    };
    assert_eq!(Calibration::parse(&src).unwrap(), m);
}

#[test]
fn a_family_name_past_the_limit_is_refused() {
    let fit =
        "steps = 1\nbytes = 1\ntokens = 1\noverhead = 0\np10 = \"1\"\np50 = \"1\"\np90 = \"1\"\n";
    for (n, ok) in [(200, true), (201, false)] {
        let src = crate::input::SourceText {
            name: "c.toml".into(),
            text: format!("[families.{}]\n{fit}", "f".repeat(n)),
        };
        let got = Calibration::parse(&src);
        assert_eq!(got.is_ok(), ok, "{n} characters");
        if let Err(e) = got {
            assert!(e.message().contains("longer than 200 characters"));
        }
    }
}
