//! Fuzzes every log reader: any bytes as a Claude Code log, a Codex rollout,
//! an API log and an OpenTelemetry export. Each session read is summarised
//! as `import` does: priced, written as a trace and a scenario, checked by
//! loading it, and replayed. Nothing may panic; bad lines are problems.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokencast::import::variant::WhatIfVariant;
use tokencast::import::{read, summary, write::Trim, Filter, Source};
use tokencast::input::SourceText;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("tokencast-fuzz-import-{}", std::process::id()));
    let project = dir.join("proj");
    let _ = std::fs::create_dir_all(&project);
    if std::fs::write(project.join("s.jsonl"), data).is_err() {
        return;
    }
    // The book `import claude-code` uses: Anthropic's and Bedrock's ids.
    let book = SourceText {
        name: "anthropic.toml + bedrock.toml".into(),
        text: [
            include_str!("../../scenarios/prices/litellm-1.110.2/anthropic.toml"),
            include_str!("../../scenarios/prices/litellm-1.110.2/bedrock.toml"),
        ]
        .join("\n"),
    };
    // A combined what-if on another model, and one on the thread's own.
    let variants = [
        WhatIfVariant {
            name: "trimmed on haiku, 5m".into(),
            results: tokencast::scenario::Content::Trimmed,
            cache: Some(tokencast::pricing::Cache::FiveMinutes),
            mode: tokencast::pricing::Mode::Sync,
            model: Some("claude-haiku-4-5".into()),
            service: None,
        },
        WhatIfVariant {
            name: "raw, batch".into(),
            results: tokencast::scenario::Content::Raw,
            cache: None,
            mode: tokencast::pricing::Mode::Batch,
            model: None,
            service: None,
        },
    ];
    // Two compared models: an id and a pattern.
    let compare = [
        "claude-haiku-4-5".to_string(),
        "claude-opus-4-5*".to_string(),
    ];
    for source in [Source::ClaudeCode, Source::Codex, Source::Api, Source::Otel] {
        let opts = summary::Options {
            source: source.key(),
            trim: Trim::KeepPercent(50),
            compare: &compare,
            variants: &variants,
            today: jiff::civil::date(2026, 11, 30),
            calibration: None,
            calibration_name: "",
            // Requests whose log names no model are priced as this one.
            unnamed_model: Some("claude-haiku-4-5"),
        };
        let mut sum = summary::Summary::new(&book, &opts).expect("the shipped book loads");
        let import = read(
            source,
            &[dir.clone()],
            &Filter::default(),
            |mut sessions| {
                sum.name_unnamed(&mut sessions);
                for s in &sessions {
                    if let Ok(p) = sum.prepare(s) {
                        let _ = sum.accept(p);
                    }
                }
                Ok::<(), tokencast::error::InputError>(())
            },
        )
        .expect("the callback never fails");
        let _ = sum.finish(&import);
    }
});
