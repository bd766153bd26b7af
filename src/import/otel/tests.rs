//! Unit tests of the parent module.

use super::*;

#[test]
fn cached_tokens_come_out_of_the_input_count() {
    // 4,020 input of which 4,012 written to the cache and none read.
    let u = usage(4020, 0, 4012, 4).unwrap();
    assert_eq!(
        (u.input, u.cache_write_5m, u.cache_read, u.output),
        (8, 4012, 0, 4)
    );
    let u = usage(2006, 1920, 0, 300).unwrap();
    assert_eq!((u.input, u.cache_read), (86, 1920));
    assert_eq!(usage(10, 8, 3, 0), None);
}

#[test]
fn a_resource_after_its_spans_still_names_them_and_unknown_keys_are_skipped() {
    let text = r#"{"extra": [1, {"a": null}], "resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "t", "spanId": "s", "startTimeUnixNano": "1000000000",
         "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                        {"key": "gen_ai.tool.call.result", "value": {"stringValue": "12345"}}]},
        {"traceId": "t", "spanId": "u", "attributes": []}]}],
      "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]}}]}"#;
    let mut batches = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    Export(&mut batches).deserialize(&mut de).unwrap();
    de.end().unwrap();
    assert_eq!(batches.len(), 1);
    let (service, seen) = &batches[0];
    assert_eq!(service, "svc");
    assert_eq!(seen.len(), 2);
    match &seen[0].conv {
        Conv::Event(Event::Tool { result, .. }) => assert_eq!(result.bytes, 5),
        _ => panic!("the first span is a tool call"),
    }
    assert!(matches!(seen[1].conv, Conv::Other));
    // Streamed from a file (as a document over 64 MiB is), the same
    // spans, lines and bytes as from memory.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.json");
    std::fs::write(&path, text).unwrap();
    let (streamed_batches, lines, bytes) = streamed(std::fs::File::open(&path).unwrap()).unwrap();
    let (in_memory, lines_m, bytes_m) = whole(&path).unwrap();
    assert_eq!((lines, bytes), (lines_m, bytes_m));
    assert_eq!(
        (lines, bytes),
        (text.lines().count() as u64, text.len() as u64)
    );
    assert_eq!(streamed_batches.len(), in_memory.len());
    assert_eq!(streamed_batches[0].1.len(), in_memory[0].1.len());
    assert_eq!(streamed_batches[0].0, "svc");
    // A cut export is an error, not half of its spans.
    let mut de = serde_json::Deserializer::from_str(&text[..text.len() - 3]);
    assert!(Export(&mut Vec::new()).deserialize(&mut de).is_err());
}

#[test]
fn a_tool_results_o200k_count_stays_only_for_a_model_of_that_tokenizer() {
    // Three tool results, each counted (7 tokens): the first is carried by
    // a gpt-5 request, the second by a Claude request, the third by none.
    let request = |model: &str| {
        Event::Request(Request {
            message_id: model.into(),
            model: model.into(),
            ..Request::default()
        })
    };
    let tool = |end_ns: u64| Event::Tool {
        end_ns,
        result: ToolResult {
            kind: crate::import::ContextKind::Tool,
            tool: "search".into(),
            bytes: 30,
            images: 0,
            documents: 0,
            o200k_tokens: Some(7),
            is_error: false,
            latency_ms: 0,
            carried_by: None,
            cleared_by: None,
            at_ms: None,
        },
    };
    let t = thread_of(vec![
        (0, "a".into(), request("gpt-5")),
        (10, "t1".into(), tool(20)),
        (30, "b".into(), request("gpt-5")),
        (40, "t2".into(), tool(50)),
        (60, "c".into(), request("claude-sonnet-4-5")),
        (70, "t3".into(), tool(80)),
    ]);
    let counts: Vec<(Option<usize>, Option<u64>)> = t
        .results
        .iter()
        .map(|r| (r.carried_by, r.o200k_tokens))
        .collect();
    assert_eq!(counts, [(Some(1), Some(7)), (Some(2), None), (None, None)]);
}

#[test]
fn spans_converted_on_the_pool_come_back_in_order_each_in_its_resource() {
    // Resources of 300, 0, 1 and 700 spans, the last over two scopes:
    // batches of ITEMS_AT_ONCE cross resource and scope boundaries, and
    // several are converted at once.
    let sizes = [300usize, 0, 1, 700];
    let span = |r: usize, i: usize| {
        format!(
            r#"{{"traceId": "t{r}", "spanId": "s{r}-{i}", "startTimeUnixNano": "{}",
            "attributes": [{{"key": "gen_ai.operation.name", "value": {{"stringValue": "execute_tool"}}}},
                           {{"key": "gen_ai.tool.call.result", "value": {{"stringValue": "{}"}}}}]}}"#,
            1_000_000_000 + i,
            "x".repeat(1 + i % 17)
        )
    };
    let resources: Vec<String> = sizes
        .iter()
        .enumerate()
        .map(|(r, &n)| {
            let spans: Vec<String> = (0..n).map(|i| span(r, i)).collect();
            let half = spans.len() / 2;
            format!(
                r#"{{"resource": {{"attributes": [{{"key": "service.name", "value": {{"stringValue": "svc{r}"}}}}]}},
                "scopeSpans": [{{"spans": [{}]}}, {{"spans": [{}]}}]}}"#,
                spans[..half].join(","),
                spans[half..].join(",")
            )
        })
        .collect();
    let text = format!(r#"{{"resourceSpans": [{}]}}"#, resources.join(","));
    let check = |batches: &[Batch]| {
        assert_eq!(batches.len(), sizes.len());
        for (r, ((service, seen), &n)) in batches.iter().zip(&sizes).enumerate() {
            assert_eq!(service, &format!("svc{r}"));
            let ids: Vec<&str> = seen.iter().map(|s| s.span_id.as_str()).collect();
            let want: Vec<String> = (0..n).map(|i| format!("s{r}-{i}")).collect();
            assert_eq!(ids, want, "resource {r}");
            for (i, s) in seen.iter().enumerate() {
                assert_eq!(s.trace_id, format!("t{r}"));
                match &s.conv {
                    Conv::Event(Event::Tool { result, .. }) => {
                        assert_eq!(result.bytes, (1 + i % 17) as u64)
                    }
                    _ => panic!("span {i} of resource {r} is a tool call"),
                }
            }
        }
    };
    let mut batches = Vec::new();
    let mut de = serde_json::Deserializer::from_str(&text);
    Export(&mut batches).deserialize(&mut de).unwrap();
    de.end().unwrap();
    check(&batches);
    // Streamed from a file, the same, with its bytes and lines counted.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.json");
    std::fs::write(&path, &text).unwrap();
    let (streamed_batches, lines, bytes) = streamed(std::fs::File::open(&path).unwrap()).unwrap();
    check(&streamed_batches);
    assert_eq!(
        (lines, bytes),
        (text.lines().count() as u64, text.len() as u64)
    );
}
