//! Unit tests of the fits.

use super::*;
use crate::import::{ContextKind, Request, ToolResult, Usage};

fn request(model: &str, prompt: u64, output: u64) -> Request {
    Request {
        message_id: format!("m{prompt}"),
        timestamp: None,
        at_ms: None,
        model: model.into(),
        usage: Usage {
            cache_read: prompt,
            output,
            ..Usage::default()
        },
        hidden_output: 0,
        output_bytes: 0,
        thinking_bytes: 0,
        compacted_before: false,
        lost_lines_before: 0,
    }
}

fn result(bytes: u64, carried_by: usize) -> ToolResult {
    ToolResult {
        kind: ContextKind::Tool,
        tool: "Read".into(),
        bytes,
        images: 0,
        documents: 0,
        o200k_tokens: None,
        is_error: false,
        latency_ms: 0,
        carried_by: Some(carried_by),
        cleared_by: None,
        at_ms: None,
    }
}

#[test]
fn a_step_is_its_bytes_over_the_growth_less_the_output_sent_back() {
    // Request 1 (prompt 1,000, output 50), then 3,000 bytes and request 2
    // at 2,050: 1,050 − 50 = 1,000 tokens, 3 bytes a token. Two results
    // of one request count once: 2,000 + 1,000 bytes.
    let t = Thread {
        agent: None,
        compaction: false,
        requests: vec![request("m", 1000, 50), request("m", 2050, 10)],
        results: vec![result(2000, 1), result(1000, 1)],
    };
    assert_eq!(
        observations(&t),
        vec![Observation {
            bytes: 3000,
            tokens: 1000,
            kinds: [3000, 0, 0],
            ..Observation::default()
        }]
    );
}

#[test]
fn reasoning_is_sent_back_within_a_turn_and_dropped_after_it() {
    // Request 0 (prompt 1,000) bills 100 output, 60 of it reasoning; a
    // tool result of 400 bytes follows and request 1 is at 1,200: all
    // 100 output went back, so 100 tokens for the 400 bytes. Request 1
    // bills 50 (30 reasoning); a user message of 800 bytes follows and
    // request 2 is at 1,220: 20 visible output came back, request 1's
    // 30 of reasoning did not, and request 0's 60 that had gone back
    // left the context: 1,220 + 60 − 1,200 − 20 = 60 tokens.
    let with = |prompt: u64, output: u64, hidden: u64| Request {
        hidden_output: hidden,
        ..request("m", prompt, output)
    };
    let t = Thread {
        agent: None,
        compaction: false,
        requests: vec![with(1000, 100, 60), with(1200, 50, 30), with(1220, 10, 0)],
        results: vec![
            result(400, 1),
            ToolResult {
                kind: ContextKind::User,
                ..result(800, 2)
            },
        ],
    };
    let sent = write::sent_back(&t);
    assert_eq!(
        sent[1],
        write::SentBack {
            tokens: 100,
            ..write::SentBack::default()
        }
    );
    assert_eq!(
        sent[2],
        write::SentBack {
            tokens: 20,
            hidden: 30,
            dropped: 60,
            bytes: 0,
            // Model "m" keeps earlier thinking: no new turn is marked.
            new_turn: false,
        }
    );
    assert_eq!(
        observations(&t),
        vec![
            Observation {
                bytes: 400,
                tokens: 100,
                kinds: [400, 0, 0],
                ..Observation::default()
            },
            Observation {
                bytes: 800,
                tokens: 60,
                kinds: [0, 0, 800],
                ..Observation::default()
            }
        ]
    );
}

#[test]
fn claudes_earlier_thinking_leaves_at_a_new_turn_and_often_breaks_the_cache() {
    // Sonnet 4.5, every request a second apart. Request 0 (prompt
    // 20,000) bills 300 output over 1,200 bytes of content, 400 of them
    // thinking: 300 × 400 ÷ 1,200 = 100 tokens of thinking. Request 1
    // (after a tool result) bills 90 over 450 bytes, 150 thinking: 30.
    // A user message then starts a new turn: request 2's prompt carries
    // request 1's 60 visible tokens, not its 30 of thinking, and drops
    // request 0's 100 that had gone back.
    let thinking =
        |ms: i64, prompt: u64, read: u64, output: u64, bytes: u64, thought: u64| Request {
            at_ms: Some(ms),
            output_bytes: bytes,
            thinking_bytes: thought,
            usage: Usage {
                cache_read: read,
                cache_write_5m: prompt - read,
                output,
                ..Usage::default()
            },
            ..request("claude-sonnet-4-5-20250929", prompt, output)
        };
    let t = Thread {
        agent: None,
        compaction: false,
        requests: vec![
            thinking(0, 20_000, 0, 300, 1200, 400),
            thinking(1000, 30_000, 20_000, 90, 450, 150),
            // Read back to 20,600, less than halfway to 30,000 from 20,000:
            // the cache broke.
            thinking(2000, 30_500, 20_600, 10, 50, 0),
            thinking(3000, 31_000, 30_500, 10, 50, 0),
        ],
        results: vec![
            result(30_000, 1),
            ToolResult {
                kind: ContextKind::User,
                ..result(800, 2)
            },
            result(1_000, 3),
        ],
    };
    assert_eq!(t.requests[0].reasoning_tokens(), 100);
    assert_eq!(t.requests[1].reasoning_tokens(), 30);
    let sent = write::sent_back(&t);
    assert_eq!(
        sent[2],
        write::SentBack {
            tokens: 60,
            hidden: 30,
            dropped: 100,
            bytes: 0,
            new_turn: true,
        }
    );
    // One new turn dropped thinking, and it broke the cache.
    let b = TurnBreaks::of(&t, 300_000);
    assert_eq!(
        b,
        TurnBreaks {
            turns: 1,
            breaks: 1
        }
    );
    assert_eq!(b.share(), Some(Decimal::ONE));
    // Past the cache lifetime the turn is an expiry, not a break.
    assert_eq!(TurnBreaks::of(&t, 500), TurnBreaks::default());
    // Opus 4.6 keeps earlier thinking: nothing is dropped, no turn counts.
    let mut kept = t.clone();
    for r in &mut kept.requests {
        r.model = "claude-opus-4-6".into();
    }
    assert_eq!(kept.requests[0].reasoning_tokens(), 0);
    assert_eq!(write::sent_back(&kept)[2].dropped, 0);
    assert_eq!(TurnBreaks::of(&kept, 300_000), TurnBreaks::default());
    // The same Sonnet 4.5 thread whose log lost its thinking blocks (a
    // redacted or cut line): nothing logged to drop, yet the user message
    // starts a new turn on a model that drops earlier thinking. It is
    // marked and counted, and its break with it.
    let mut lost = t.clone();
    for r in &mut lost.requests {
        r.thinking_bytes = 0;
    }
    let sent = write::sent_back(&lost);
    assert_eq!((sent[2].dropped, sent[2].new_turn), (0, true));
    assert!(!sent[1].new_turn, "a tool result continues the turn");
    assert_eq!(
        TurnBreaks::of(&lost, 300_000),
        TurnBreaks {
            turns: 1,
            breaks: 1
        }
    );
}

#[test]
fn which_claude_models_strip_earlier_thinking() {
    use crate::import::strips_earlier_thinking as strips;
    for m in [
        "claude-sonnet-4-5-20250929",
        "claude-haiku-4-5-20251001",
        "claude-opus-4-1-20250805",
        "claude-opus-4-20250514",
        "claude-sonnet-4-20250514",
        "claude-3-7-sonnet-20250219",
        "claude-3-opus-20240229",
    ] {
        assert!(strips(m), "{m}");
    }
    for m in [
        "claude-opus-4-5-20251101",
        "claude-opus-4-6",
        "claude-sonnet-4-6",
        "claude-opus-5",
        "gpt-5-codex",
        "claude",
    ] {
        assert!(!strips(m), "{m}");
    }
}

/// A request on `m` at `ms` with a prompt of `prompt`, `read` of it from the cache.
fn at(ms: i64, prompt: u64, read: u64) -> Request {
    Request {
        at_ms: Some(ms),
        usage: Usage {
            input: prompt - read,
            cache_read: read,
            ..Usage::default()
        },
        ..request("m", 0, 0)
    }
}

/// The share alone, as the replay's estimate reads it.
fn cache_hit_share(t: &Thread, lifetime_ms: i64) -> Option<Decimal> {
    hit_share(t, lifetime_ms).map(|h| h.share)
}

/// Prompts 2,000, 3,000 and 4,000, a second apart; requests 2 and 3 read
/// 1,500 and 2,500 from the cache.
fn three_prompts() -> Thread {
    Thread {
        agent: None,
        compaction: false,
        requests: vec![at(0, 2000, 0), at(1000, 3000, 1500), at(2000, 4000, 2500)],
        results: vec![],
    }
}

#[test]
fn the_cache_hit_share_is_what_was_read_of_the_previous_prompt() {
    // Prompts 2,000, 3,000 and 4,000, a second apart; requests 2 and 3
    // read 1,500 and 2,500: (1,500 + 2,500) ÷ (2,000 + 3,000) = 0.8.
    let mut t = three_prompts();
    assert_eq!(cache_hit_share(&t, 300_000), Some(Decimal::new(8, 1)));
    // A step after the lifetime is expiry, replayed apart: left out.
    t.requests[2].at_ms = Some(1000 + 300_001);
    assert_eq!(cache_hit_share(&t, 300_000), Some(Decimal::new(75, 2)));
}

#[test]
fn the_cache_hit_shares_p10_is_the_share_less_its_sampling_error() {
    // The steps of the test above: 1,500 of 2,000 and 2,500 of 3,000 read,
    // share 0.8. Residuals 1,500 − 0.8 × 2,000 = −100 and
    // 2,500 − 0.8 × 3,000 = 100: Σ² = 20,000, × n ÷ (n − 1) = 40,000,
    // √ = 200, ÷ 5,000 cached = 0.04. p10 = 0.8 − 1.2816 × 0.04 = 0.748736,
    // 0.7487 rounded down.
    let mut t = three_prompts();
    let h = hit_share(&t, 300_000).expect("two steps");
    assert_eq!(
        (h.share, h.p10, h.steps),
        (Decimal::new(8, 1), Some(Decimal::new(7487, 4)), 2)
    );
    // Lumpier misses: nothing of 2,000 read, then all 3,000. Share 0.6,
    // residuals ∓1,200: √(2 × 2,880,000) ÷ 5,000 = 0.48, and
    // 0.6 − 1.2816 × 0.48 is below 0: the p10 reads nothing.
    t.requests[1] = at(1000, 3000, 0);
    t.requests[2] = at(2000, 4000, 3000);
    let h = hit_share(&t, 300_000).expect("two steps");
    assert_eq!((h.share, h.p10), (Decimal::new(6, 1), Some(Decimal::ZERO)));
    // One step has no spread to measure.
    t.requests.pop();
    let h = hit_share(&t, 300_000).expect("one step");
    assert_eq!((h.share, h.p10, h.steps), (Decimal::ZERO, None, 1));
}

#[test]
fn a_side_request_is_left_out_of_the_cache_hit_share() {
    // The main context's prompts 2,000, 3,000 and 4,000; between the last
    // two, a side request of 500 (below 0.9 × 3,000) that reads 400 of its
    // own. Request 3 reads 1,500 of 2,000; the last one 2,500 of the
    // 3,000 it continues: (1,500 + 2,500) ÷ (2,000 + 3,000) = 0.8. Taking
    // the side request as a step would give (1,500 + 400) ÷ 5,000 = 0.38.
    let t = Thread {
        agent: None,
        compaction: false,
        requests: vec![
            at(0, 2000, 0),
            at(1000, 3000, 1500),
            at(2000, 500, 400),
            at(3000, 4000, 2500),
        ],
        results: vec![],
    };
    assert_eq!(cache_hit_share(&t, 300_000), Some(Decimal::new(8, 1)));
}

#[test]
fn the_response_sent_back_counts_as_cached_with_the_prompt() {
    // Request 1 (prompt 2,000) generates 500 output tokens, sent back in
    // request 2 (prompt 2,600), which reads 2,400 from the cache: the
    // prompt and 400 of the response. Request 3 (prompt 3,000, nothing
    // generated before it) reads 2,600. What was left cached: 2,000 + 500
    // and 2,600 + 0; read 2,400 + 2,600: 5,000 ÷ 5,100 = 0.98039…, 0.9803
    // rounded down. Counting only the prompts, the reads would be capped at
    // them (2,000 + 2,600 of 4,600) and every prefix taken as read whole.
    let mut first = at(0, 2000, 0);
    first.usage.output = 500;
    let t = Thread {
        agent: None,
        compaction: false,
        requests: vec![first, at(1000, 2600, 2400), at(2000, 3000, 2600)],
        results: vec![],
    };
    assert_eq!(cache_hit_share(&t, 300_000), Some(Decimal::new(9803, 4)));
}

/// A fit of 4 bytes a token (3 … 5) and 10 tokens of framing a step.
fn four_bytes_a_token() -> Fit {
    Fit {
        steps: 5,
        overhead: 10,
        pooled: Decimal::from(4),
        p10: Decimal::from(3),
        p50: Decimal::from(4),
        kinds: Default::default(),
        p90: Decimal::from(5),
    }
}

#[test]
fn growth_the_log_does_not_show_is_counted_with_its_size() {
    // At 4 bytes a token and 10 of framing, 4,000 bytes should take
    // 1,010 tokens. Request 1 grew 4,010 from 10,000: 3,000 it does not
    // explain. Request 2 grew 1,500: within what entered. Request 3
    // follows a compaction whose summary is 2,000 bytes: the first
    // prompt and 500 tokens make 10,500 of its 14,500, and 4,000 are
    // what the client restored.
    let fit = four_bytes_a_token();
    let mut compacted = request("m", 14_500, 0);
    compacted.compacted_before = true;
    let t = Thread {
        agent: None,
        compaction: false,
        requests: vec![
            request("m", 10_000, 0),
            request("m", 14_010, 0),
            request("m", 15_510, 0),
            compacted,
        ],
        results: vec![
            result(4000, 1),
            result(4000, 2),
            ToolResult {
                kind: ContextKind::User,
                ..result(2000, 3)
            },
        ],
    };
    let per_request = unmeasured_tokens(&t, &fit);
    assert_eq!(per_request, vec![0, 3000, 0, 4000]);
    assert_eq!(
        Unmeasured::of(&per_request),
        Unmeasured {
            steps: 2,
            tokens: 7000
        }
    );
    // The compacted step is no observation of bytes per token.
    assert_eq!(observations(&t).len(), 2);
}

#[test]
fn a_step_after_lines_the_log_lost_is_no_observation_and_its_growth_is_unmeasured() {
    // At 4 bytes a token and 10 of framing, 4,000 bytes should take 1,010
    // tokens. Request 1 grew 1,210 from 10,000: 200 more than that, within
    // the fit's spread, so nothing is unmeasured and the step is observed
    // (4,000 bytes over 1,210 tokens). Request 2 grew by as much after a
    // line the log lost (a truncated tool result): the step is no
    // observation, and its 200 extra tokens are the lost line's.
    let fit = four_bytes_a_token();
    let mut after_loss = request("m", 12_420, 0);
    after_loss.lost_lines_before = 1;
    let t = Thread {
        agent: None,
        compaction: false,
        requests: vec![request("m", 10_000, 0), request("m", 11_210, 0), after_loss],
        results: vec![result(4000, 1), result(4000, 2)],
    };
    assert_eq!(unmeasured_tokens(&t, &fit), vec![0, 0, 200]);
    assert_eq!(
        observations(&t),
        vec![Observation {
            bytes: 4000,
            tokens: 1210,
            kinds: [4000, 0, 0],
            ..Observation::default()
        }]
    );
}

#[test]
fn steps_that_cannot_be_measured_are_left_out() {
    let t = Thread {
        agent: None,
        compaction: false,
        requests: vec![
            request("a", 1000, 0),
            request("b", 2000, 0), // model changed
            request("b", 500, 0),  // prompt shrank (compaction)
            request("b", 600, 0),  // 100 bytes in 100 tokens
            request("b", 700, 0),  // 5,000 bytes in 100 tokens
        ],
        results: vec![
            result(3000, 1),
            result(3000, 2),
            result(100, 3),
            result(5000, 4),
        ],
    };
    let obs = observations(&t);
    assert_eq!(
        obs,
        vec![
            Observation {
                bytes: 100,
                tokens: 100,
                kinds: [100, 0, 0],
                ..Observation::default()
            },
            Observation {
                bytes: 5000,
                tokens: 100,
                kinds: [5000, 0, 0],
                ..Observation::default()
            }
        ]
    );
    // Neither makes a ratio: too few bytes, and 50 bytes a token is implausible.
    assert!(fit(&[obs.clone(), obs.clone(), obs].concat()).is_none());
}

#[test]
fn the_fit_takes_the_framing_off_and_pools_bytes_and_tokens() {
    // Three near-empty steps grow by 40, 50 and 60 tokens: 50 a step of
    // framing. Five steps of 200 … 1,000 bytes grow by 150 each: 100
    // tokens of content, ratios 2, 3, 3, 4, 10. Pooled (200+300+300+400
    // +1,000) ÷ 500 = 4.4; p10 = 2 (rank 1), p50 = 3 (rank 3), p90 = 10.
    let mut obs: Vec<Observation> = [40, 50, 60]
        .iter()
        .map(|t| Observation {
            bytes: 10,
            tokens: *t,
            ..Observation::default()
        })
        .collect();
    obs.extend([200, 300, 300, 400, 1000].iter().map(|b| Observation {
        bytes: *b,
        tokens: 150,
        ..Observation::default()
    }));
    let f = fit(&obs).unwrap();
    assert_eq!(f.overhead, 50);
    assert_eq!(f.steps, 5);
    assert_eq!(f.pooled, Decimal::new(44, 1));
    assert_eq!(
        (f.p10, f.p50, f.p90),
        (Decimal::from(2), Decimal::from(3), Decimal::from(10))
    );
    // The band: lower bound at 10 bytes a token, upper at 2 (uplift 5).
    assert_eq!(
        f.band(),
        (Decimal::from(10), Decimal::from(5), Decimal::new(44, 1))
    );
    assert!(fit(&obs[..7]).is_none(), "four measured steps are too few");
}

#[test]
fn counted_results_give_the_ratio_and_leave_the_growth_to_framing() {
    // Five steps whose results were all counted: each grew the prompt by
    // its counted tokens and 30, 40, 50, 40, 40 more, so the framing is
    // the median, 40. The ratios are the counted ones, exactly: 400/100,
    // 400/100, 600/100, 300/100, 500/100 = 4, 4, 6, 3, 5; pooled
    // 2,200 / 500 = 4.4; sorted 3, 4, 4, 5, 6: p10 the 1st (⌈0.5⌉), p50 the
    // 3rd (⌈2.5⌉), p90 the 5th (⌈4.5⌉).
    let obs: Vec<Observation> = [(30, 400), (40, 400), (50, 600), (40, 300), (40, 500)]
        .into_iter()
        .map(|(rest, counted_bytes)| Observation {
            bytes: 0,
            tokens: rest,
            counted_bytes,
            counted_tokens: 100,
            kinds: [0; 3],
        })
        .collect();
    let f = fit(&obs).expect("five counted steps fit");
    assert_eq!(f.overhead, 40);
    assert_eq!(f.steps, 5);
    assert_eq!(f.pooled, Decimal::new(44, 1));
    assert_eq!(
        (f.p10, f.p50, f.p90),
        (Decimal::from(3), Decimal::from(4), Decimal::from(6))
    );
    // Counted results are of no kind.
    assert!(f.kinds.iter().all(|k| k.steps == 0 && k.mix == 0));
}

/// A thread whose steps carry one counted tool output each (`counted`
/// tokens) and whose prompts are `prompts` (no output sent back).
fn counted_thread(prompts: &[u64], counted: &[u64]) -> Thread {
    Thread {
        agent: None,
        compaction: false,
        requests: prompts.iter().map(|p| request("m", *p, 0)).collect(),
        results: counted
            .iter()
            .enumerate()
            .map(|(i, n)| ToolResult {
                o200k_tokens: Some(*n),
                ..result(4 * n, i + 1)
            })
            .collect(),
    }
}

#[test]
fn the_prompts_growth_tells_whether_outputs_were_sent_as_recorded() {
    // Three plain steps of 100 counted tokens each grow by 120: 20 of
    // framing a step. Results 3 and 4 were recorded wrapped: 600 and 360
    // tokens as recorded, 500 and 300 counted for what they wrap.
    let counted = [100, 100, 100, 500, 300];
    let alt = [(3, 600), (4, 360)];
    // Sent as recorded: the prompt grows by 600 + 20, then 360 + 20. Less
    // the counted tokens and the framing: 100 + 60 = 160 of the 160 extra.
    let sent = counted_thread(&[1000, 1120, 1240, 1360, 1980, 2360], &counted);
    assert!(sent_as_recorded(&sent, &alt));
    // Sent as what they wrap: 500 + 20, then 300 + 20; none of the extra.
    let unwrapped = counted_thread(&[1000, 1120, 1240, 1360, 1880, 2200], &counted);
    assert!(!sent_as_recorded(&unwrapped, &alt));
    // A growth of 70 beyond the framing (less than half the 160): what
    // they wrap, with some other framing.
    let between = counted_thread(&[1000, 1120, 1240, 1360, 1920, 2270], &counted);
    assert!(!sent_as_recorded(&between, &alt));
    // Nothing recorded wrapped: nothing to decide.
    assert!(!sent_as_recorded(&sent, &[]));
}

/// Five requests of model `m` at 0, 1, 400, 410 and 900 s, each its
/// prompt read from the cache: 10,000, 30,000, 9,500, 40,000 and `last`.
fn reads_at(last: u64) -> Thread {
    let at = |ms: i64, read: u64| Request {
        at_ms: Some(ms),
        ..request("m", read, 10)
    };
    Thread {
        agent: None,
        compaction: false,
        requests: vec![
            at(0, 10_000),
            at(1_000, 30_000),
            at(400_000, 9_500),
            at(410_000, 40_000),
            at(900_000, last),
        ],
        results: Vec::new(),
    }
}

#[test]
fn expiries_count_how_often_the_warm_prefix_was_read_again() {
    // The first request read 10,000 an earlier run left warm. Requests 2
    // and 4 come after gaps past a 300 s lifetime: request 2 reads 9,500
    // (at least nine tenths of 10,000: still warm), request 4 reads 0.
    // Request 3, 10 s after request 2, is no expiry.
    let t = reads_at(0);
    let w = WarmExpiries::of(&t, 300_000);
    assert_eq!(
        w,
        WarmExpiries {
            expiries: 2,
            survived: 0,
            warm_first: true,
            warm: 1
        }
    );
    assert_eq!(w.share(), Some(Decimal::new(5, 1)));
    assert_eq!(w.survived_share(), None);
    // Every expiry read it: no share to write (the replay's own rule).
    let mut all = t.clone();
    all.requests[4].usage.cache_read = 10_000;
    assert_eq!(WarmExpiries::of(&all, 300_000).share(), None);
    // A cold first request: nothing was warm, no warm share.
    let mut cold = t.clone();
    cold.requests[0].usage.cache_read = 0;
    let w = WarmExpiries::of(&cold, 300_000);
    assert_eq!((w.expiries, w.warm, w.share()), (2, 0, None));
}

#[test]
fn expiries_the_cache_outlived_are_counted_apart() {
    // As above, but request 4 (after 490 s, past the 300 s lifetime) reads
    // 36,500 of request 3's 40,000: at least nine tenths, so the cache
    // survived that expiry. Of the 2 expiries 1 survived (share 0.5); of
    // the 1 it did not survive, 1 read the warm prefix again: no warm share.
    let mut t = reads_at(36_500);
    // The prompt of request 4 is its read and 3,500 written.
    t.requests[4].usage.cache_write_5m = 3_500;
    let w = WarmExpiries::of(&t, 300_000);
    assert_eq!((w.expiries, w.survived, w.warm), (2, 1, 1));
    assert_eq!(w.survived_share(), Some(Decimal::new(5, 1)));
    assert_eq!(w.share(), None);
    // 35,999 is less than nine tenths of 40,000 (36,000): no survival, and
    // more than nine tenths of the warm 10,000: a warm expiry.
    t.requests[4].usage.cache_read = 35_999;
    let w = WarmExpiries::of(&t, 300_000);
    assert_eq!((w.survived, w.warm, w.survived_share()), (0, 2, None));
    // A cold first request still counts what survived.
    t.requests[0].usage.cache_read = 0;
    t.requests[4].usage.cache_read = 36_000;
    let w = WarmExpiries::of(&t, 300_000);
    assert_eq!((w.expiries, w.survived, w.share()), (2, 1, None));
    assert_eq!(w.survived_share(), Some(Decimal::new(5, 1)));
}

#[test]
fn each_kind_is_fitted_on_the_steps_nine_tenths_its_own() {
    let step = |tokens: u64, kinds: [u64; 3]| Observation {
        bytes: kinds.iter().sum(),
        tokens,
        kinds,
        ..Observation::default()
    };
    // Ten steps of 1,000 bytes of code at 4 bytes a token, ten of tool
    // output at 2, a step half of each (no kind's own) and one of 950
    // bytes of text and 50 of code (text's own, but one step is too few).
    let obs = [
        vec![step(250, [1000, 0, 0]); 10],
        vec![step(500, [0, 1000, 0]); 10],
        vec![step(375, [500, 500, 0]), step(400, [50, 0, 950])],
    ]
    .concat();
    let f = fit(&obs).unwrap();
    // Pooled: 22,000 bytes ÷ (2,500 + 5,000 + 375 + 400) tokens = 2.6586.
    assert_eq!(f.pooled, Decimal::new(26586, 4));
    let [code, output, text] = f.kinds;
    assert_eq!((code.steps, code.bytes, code.tokens), (10, 10_000, 2_500));
    assert_eq!((code.p10, code.p90), (Decimal::from(4), Decimal::from(4)));
    assert_eq!(
        (output.steps, output.bytes, output.tokens),
        (10, 10_000, 5_000)
    );
    assert_eq!((text.steps, text.bytes, text.tokens), (1, 1000, 400));
    // The mix: every measured step's bytes of each kind.
    assert_eq!((code.mix, output.mix, text.mix), (10_550, 10_500, 950));
    assert_eq!(code.pooled(), Some(Decimal::from(4)));
    assert_eq!(text.pooled(), None, "one step is too few");
    // Weights: 2.6586 ÷ 4 = 0.66465 and 2.6586 ÷ 2 = 1.3293, text 1; the
    // mix then counts 10,550 × 0.66465 + 10,500 × 1.3293 + 950 =
    // 21,919.7075 bytes of 22,000, so each is scaled by 22,000 ÷ that
    // (1.003663): 0.6671 → 0.67, 1.3342 → 1.33, 1.0037 → 1.
    let w = f.weights().unwrap();
    assert_eq!(
        (w.code, w.output, w.text),
        (Decimal::new(67, 2), Decimal::new(133, 2), Decimal::ONE)
    );
    // Without a kind's own fit there are no weights.
    let all_mixed = vec![step(375, [500, 500, 0]); 12];
    assert_eq!(fit(&all_mixed).unwrap().weights(), None);
}

#[test]
fn a_steps_bytes_are_counted_by_kind() {
    // A `Read` (code) and a `Bash` (tool output) result, a user's message
    // (text) and the previous output sent back as the 400 bytes of its
    // text (its 50 billed tokens are fewer than 400 ÷ 6: a snapshot).
    let mut bash = result(600, 1);
    bash.tool = "Bash".into();
    let user = ToolResult {
        kind: ContextKind::User,
        tool: "(user message)".into(),
        ..result(300, 1)
    };
    let mut first = request("m", 1000, 50);
    first.output_bytes = 400;
    let t = Thread {
        agent: None,
        compaction: false,
        requests: vec![first, request("m", 2050, 10)],
        results: vec![result(2000, 1), bash, user],
    };
    // 3,300 bytes; the prompt grew 1,050 tokens, none of them output
    // sent back as tokens.
    assert_eq!(
        observations(&t),
        vec![Observation {
            bytes: 3300,
            tokens: 1050,
            kinds: [2000, 600, 700],
            ..Observation::default()
        }]
    );
}
