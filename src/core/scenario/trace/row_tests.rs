//! Unit tests of the parent module.

use super::*;

fn written(rows: &[TraceRow<&str>]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).unwrap();
    }
    String::from_utf8(w.into_inner().unwrap()).unwrap()
}

#[test]
fn the_written_header_is_the_trace_header() {
    let text = written(&[TraceRow::default()]);
    assert_eq!(text.lines().next(), Some(TRACE_HEADER));
}

/// A row as an import writes it: every kind of field given.
fn imported_row() -> TraceRow<&'static str> {
    TraceRow {
        images: Some(0),
        documents: Some(1),
        o200k_tokens: Some(310),
        request: Some(2),
        timestamp: Some("2026-11-30T10:00:00Z"),
        model: Some("m"),
        recorded_input: Some(40),
        recorded_cache_read: Some(1000),
        recorded_output: Some(25),
        resent_output: Some(20),
        hidden_output: Some(5),
        gap_ms: Some(1500),
        note: "tool error",
        ..plain_row()
    }
}

/// A row of a hand-written trace: a result, nothing imported.
fn plain_row() -> TraceRow<&'static str> {
    TraceRow {
        call: Some(3),
        capability: "web/fetch",
        status: 200,
        items: 1,
        raw_bytes: Some(1200),
        trimmed_bytes: Some(300),
        latency_ms: 850,
        charged_usd: Decimal::new(125, 5),
        ..TraceRow::default()
    }
}

#[test]
fn a_written_row_reads_back_as_the_same_call() {
    let row = imported_row();
    let src = SourceText {
        name: "t.csv".into(),
        text: written(&[row]),
    };
    let calls = parse_csv(&src).unwrap();
    assert_eq!(calls.len(), 1);
    let c = &calls[0];
    assert_eq!(
        (c.call, &*c.capability, c.status),
        (Some(3), "web/fetch", 200)
    );
    assert_eq!((c.raw_bytes, c.trimmed_bytes), (Some(1200), Some(300)));
    assert_eq!(c.o200k_tokens(), Some(310));
    assert_eq!(c.charged_usd, Decimal::new(125, 5));
    assert_eq!(
        (
            c.request(),
            c.resent_output(),
            c.hidden_output(),
            c.gap_ms()
        ),
        (Some(2), Some(20), Some(5), Some(1500))
    );
    let rec = c.recorded().unwrap();
    assert_eq!(rec.model.as_deref(), Some("m"));
    assert_eq!(
        (rec.usage.input, rec.usage.cache_read, rec.usage.output),
        (40, 1000, 25)
    );
}

#[test]
fn a_count_past_the_limit_is_a_located_error() {
    let row = TraceRow {
        call: Some(1),
        capability: "shell",
        status: 200,
        items: 1,
        raw_bytes: Some(10),
        trimmed_bytes: Some(10),
        o200k_tokens: Some(crate::limits::MAX_TOKENS + 1),
        ..TraceRow::default()
    };
    let src = SourceText {
        name: "t.csv".into(),
        text: written(&[row]),
    };
    let e = parse_csv(&src).unwrap_err().to_string();
    assert!(
        e.contains("t.csv: row 1 (line 2), column `o200k_tokens`"),
        "{e}"
    );
}
#[test]
fn a_row_cleared_before_its_own_request_or_without_one_is_a_located_error() {
    // Cleared before request 4: read back; before request 2, its own: an error.
    let cleared = |before: u64, request: Option<u64>| {
        let src = SourceText {
            name: "t.csv".into(),
            text: written(&[TraceRow {
                cleared_before: Some(before),
                request,
                ..imported_row()
            }]),
        };
        parse_csv(&src).map(|c| c[0].cleared_before())
    };
    assert_eq!(cleared(4, Some(2)).unwrap(), Some(4));
    let e = cleared(2, Some(2)).unwrap_err().to_string();
    assert!(
        e.contains("t.csv: row 1 (line 2), column `cleared_before`")
            && e.contains("not after the request 2"),
        "{e}"
    );
    let e = cleared(3, None).unwrap_err().to_string();
    assert!(e.contains("must name its `request`"), "{e}");
}

/// A row of a trace in the seed's format holds no import-only field
/// inline: the twelve of them sit behind one pointer, and its free-text
/// parameters behind another that is null when there are none, and its
/// capability's shared name behind a third (264 bytes a row at first, then
/// 144, 112, now 104; a 10,000,000-row trace took 3.3 GB, then 2.1 GB).
#[cfg(target_pointer_width = "64")]
#[test]
fn a_row_keeps_the_import_only_fields_behind_one_pointer() {
    // 16 bytes each: raw and trimmed bytes, the fee; 8 each: call, items,
    // latency, the three pointers; row, status and replayed share 8.
    assert_eq!(std::mem::size_of::<TraceCall>(), 104);
    assert_eq!(std::mem::size_of::<arcstr::ArcStr>(), 8);
    assert_eq!(std::mem::size_of::<Option<Box<super::Imported>>>(), 8);
    assert_eq!(std::mem::size_of::<super::Params>(), 8);
}

#[test]
fn a_row_reads_back_from_json_equal_to_the_row_it_was() {
    // A row of the seed's format has no imported fields, and reads back
    // without them; a row with some reads back with the same ones.
    let plain = crate::engine::tests::call(1, 4000, 1000);
    let mut with_params = plain.clone();
    with_params.params = super::Params::new("q=\"notion\" sort=new");
    let mut imported = plain.clone();
    imported.imported_mut().request = Some(2);
    imported.imported_mut().gap_ms = Some(1500);
    imported.imported_mut().images = 2;
    imported.imported_mut().content = Some(ContentKind::Code);
    for row in [plain, with_params, imported] {
        let json = serde_json::to_string(&row).unwrap();
        let back: TraceCall = serde_json::from_str(&json).unwrap();
        assert_eq!(back, row, "{json}");
    }
}

/// The fields a row held inline before and an imported row now keeps
/// behind its pointer are written where they were: the parameters as text
/// (empty when none), the counts and the content after `replayed`.
#[test]
fn a_row_writes_its_fields_in_the_order_it_always_has() {
    let mut row = crate::engine::tests::call(3, 4000, 1000);
    let json = serde_json::to_string(&row).unwrap();
    assert!(
        json.starts_with(r#"{"row":3,"call":3,"capability":"t/x","params":"","status":200,"#),
        "{json}"
    );
    assert!(json.ends_with(r#""replayed":false}"#), "{json}");
    row.params = super::Params::new("page=2");
    row.imported_mut().documents = 1;
    row.imported_mut().content = Some(ContentKind::Text);
    row.imported_mut().request = Some(4);
    let json = serde_json::to_string(&row).unwrap();
    assert!(json.contains(r#""params":"page=2","status""#), "{json}");
    assert!(
        json.ends_with(r#""replayed":false,"documents":1,"content":"text","request":4}"#),
        "{json}"
    );
    assert_eq!(&*row.params, "page=2");
    assert_eq!(
        (row.images(), row.documents(), row.content()),
        (0, 1, Some(ContentKind::Text))
    );
}

/// Rows as an import writes them, and every way one may differ from what
/// reading its text back gives: blanks around texts (ASCII and Unicode),
/// texts the CSV quotes, an empty or blank model and timestamp, a fee with
/// trailing zeros, a negative fee, texts over their limits, parameters and
/// a round (never written).
#[test]
fn rows_written_check_as_their_text_reads_back() {
    let base = TraceRow {
        content: Some(ContentKind::Code),
        compacted: Some(true),
        ..imported_row()
    };
    let long_name = "n".repeat(crate::limits::MAX_NAME_CHARS + 1);
    let long_note = " ".repeat(5) + &"x".repeat(crate::limits::MAX_TEXT_CHARS - 2) + "   ";
    let variations: Vec<TraceRow<&str>> = vec![
        base.clone(),
        TraceRow {
            capability: "  web/fetch\t",
            model: Some("\u{a0}claude, \"opus\"\n"),
            timestamp: Some("  "),
            ..base.clone()
        },
        TraceRow {
            model: Some(""),
            timestamp: None,
            note: "\u{2003}",
            compacted: Some(false),
            content: None,
            ..base.clone()
        },
        TraceRow {
            charged_usd: Decimal::new(1_500, 6),
            params: "q=1",
            round: Some(4),
            ..base.clone()
        },
        TraceRow {
            charged_usd: Decimal::new(-0, 3),
            ..base.clone()
        },
        TraceRow {
            note: &long_note,
            ..base.clone()
        },
        TraceRow {
            status: 503,
            raw_bytes: None,
            trimmed_bytes: None,
            ..base.clone()
        },
    ];
    let failing: Vec<TraceRow<&str>> = vec![
        TraceRow {
            charged_usd: Decimal::new(-1, 3),
            ..base.clone()
        },
        TraceRow {
            capability: " \u{a0}",
            ..base.clone()
        },
        TraceRow {
            model: Some(&long_name),
            ..base.clone()
        },
        TraceRow {
            trimmed_bytes: Some(5000),
            ..base.clone()
        },
    ];
    let read_back = |rows: &[TraceRow<&str>]| {
        let (src, direct) = write_rows("t.csv", rows);
        let read = parse_csv(&src);
        (src, direct, read)
    };
    // Each alone, and all of them in one trace (row numbers past the first).
    let mut cases: Vec<Vec<TraceRow<&str>>> = variations.iter().map(|r| vec![r.clone()]).collect();
    cases.push(variations.clone());
    cases.push(Vec::new());
    for rows in &cases {
        let (src, direct, read) = read_back(rows);
        // Debug, not ==: 1.500 and 1.5 are equal decimals that print apart.
        let read = format!("{:?}", read.expect("reads"));
        assert_eq!(
            format!("{:?}", direct.expect("checks")),
            read,
            "{}",
            src.text
        );
    }
    // The reader's own error, with its line and column.
    for bad in &failing {
        let rows = [base.clone(), bad.clone()];
        let (src, direct, read) = read_back(&rows);
        let (direct, read) = (direct.unwrap_err(), read.unwrap_err());
        assert_eq!(direct.to_string(), read.to_string(), "{}", src.text);
        assert!(direct.to_string().contains("row 2 (line 3)"), "{direct}");
    }
}

#[test]
fn a_field_is_trimmed_as_str_trim_trims_it() {
    for text in [
        "",
        " ",
        "reddit/search",
        " reddit/search",
        "reddit/search ",
        "\treddit/search\t",
        "\u{a0}reddit/search",
        "reddit/search\u{3000}",
        "\u{2003}",
        "é",
        "web/é",
        "é/web",
        "a",
    ] {
        assert_eq!(super::trimmed(text), text.trim(), "{text:?}");
    }
}

#[test]
fn each_imported_field_given_alone_is_kept_or_refused() {
    // Every imported column, each given alone with a value that is not the
    // field's default (a request where the field needs one): the row keeps
    // it, or a check refuses the row; none is dropped unseen.
    type Set = fn(&mut TraceRow<&'static str>);
    let alone: [(&str, Set); 17] = [
        ("images", |r| r.images = Some(2)),
        ("documents", |r| r.documents = Some(1)),
        ("content", |r| r.content = Some(ContentKind::Code)),
        ("o200k_tokens", |r| r.o200k_tokens = Some(310)),
        ("request", |r| r.request = Some(2)),
        ("recorded_input", |r| r.recorded_input = Some(40)),
        ("recorded_cache_write_5m", |r| {
            r.recorded_cache_write_5m = Some(7)
        }),
        ("recorded_cache_write_1h", |r| {
            r.recorded_cache_write_1h = Some(7)
        }),
        ("recorded_cache_read", |r| {
            r.recorded_cache_read = Some(1000)
        }),
        ("recorded_output", |r| r.recorded_output = Some(25)),
        ("resent_output", |r| r.resent_output = Some(20)),
        ("hidden_output", |r| r.hidden_output = Some(5)),
        ("dropped_output", |r| r.dropped_output = Some(9)),
        ("unmeasured_tokens", |r| r.unmeasured_tokens = Some(11)),
        ("gap_ms", |r| r.gap_ms = Some(1500)),
        ("compacted", |r| r.compacted = Some(true)),
        ("cleared_before", |r| r.cleared_before = Some(3)),
    ];
    let src = SourceText {
        name: "t.toml".into(),
        text: String::new(),
    };
    let site = RowSite::Toml {
        src: &src,
        span: 0..0,
    };
    for (field, set) in alone {
        let mut row = plain_row();
        set(&mut row);
        let mut with_request = row.clone();
        if let Ok(call) = row.check(1, &site) {
            assert!(call.imported.is_some(), "{field}");
        }
        // With the request it may need, it is kept.
        with_request.request = Some(2);
        let call = with_request.check(1, &site).expect(field);
        assert!(call.imported.is_some(), "{field}");
    }
}
