//! The replay of a recorded session, request by request: rows grouped by
//! the request that carried them, each request's own output, the recorded
//! gaps, compactions and models. Every figure is worked out by hand here.

use super::tests::scenario;
use super::*;
use crate::pricing::ModelPrices;
use crate::scenario::trace::Recorded;
use crate::scenario::ModelRates;
use std::str::FromStr;

fn d(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

/// A row of request `request`; the first row of a request also carries
/// the output sent back with it and the gap before it.
fn row(request: u64, raw: u64, first: Option<(u64, u64, u64)>, model: &str) -> TraceCall {
    let mut c = scenario(&[(1, 1)], vec![]).trace()[0].clone();
    c.raw_bytes = Some(raw);
    c.trimmed_bytes = Some(raw);
    c.charged_usd = Decimal::ZERO;
    c.imported_mut().request = Some(request);
    if let Some((resent, hidden, gap)) = first {
        c.imported_mut().resent_output = Some(resent);
        c.imported_mut().hidden_output = Some(hidden);
        c.imported_mut().gap_ms = Some(gap);
        c.imported_mut().recorded = Some(Recorded {
            request,
            timestamp: None,
            model: Some(model.into()),
            usage: Default::default(),
        });
    }
    c
}

/// Requests 2 (two results, 40 + 80 bytes; request 1's 30 tokens of
/// output sent back; 1 s after it) and 3 (nothing new; request 2 billed 12,
/// of which 7 reasoning never sent back; 400 s after it).
/// Request 4 on `m`, after a recorded compaction, carrying a summary of
/// `raw` bytes.
fn compacting_row(raw: u64, first: (u64, u64, u64)) -> TraceCall {
    let mut r = row(4, raw, Some(first), "m");
    r.imported_mut().compacted = true;
    r
}

fn recorded() -> Scenario {
    let mut s = scenario(&[(1, 1)], vec![]);
    *s.trace_mut() = vec![
        row(2, 40, Some((30, 0, 1000)), "m"),
        row(2, 80, None, "m"),
        row(3, 0, Some((5, 7, 400_000)), "m"),
    ];
    s.assumptions_mut().prefix_measured = true;
    s
}

fn variant(sim: &Simulation, cache: Cache) -> &VariantResult {
    sim.variants
        .iter()
        .find(|v| v.variant.variant.cache == cache)
        .unwrap()
}

#[test]
fn a_request_follows_all_its_rows_and_pays_its_own_output() {
    // P = 100, b = 4. Request 1: 100. Request 2: 100 + 30 + 120/4 = 160.
    // Request 3: 160 + 5 = 165 (the 7 reasoning tokens are not sent back).
    // Output billed: 30, 5 + 7, and the final 20 = 62.
    let sim = simulate(&recorded(), SimulateOptions::default());
    let p = sim.profile(Content::Raw);
    assert_eq!(p.requests, 3);
    assert_eq!(p.input_tokens.lower, d("425"));
    assert_eq!(p.output_tokens, 62);
    // Upper (u = 1.5): the measured prefix and the output are not uplifted:
    // 100; 100 + 30 + 1.5 × 30 = 175; 175 + 5 = 180.
    assert_eq!(p.input_tokens.upper, d("455"));
    // Uncached: 425 × $8 + 62 × $40 per million.
    let none = &variant(&sim, Cache::None).cost;
    assert_eq!(none.uncached_input.lower, d("0.0034"));
    assert_eq!(none.output.lower, d("0.00248"));
}

#[test]
fn reasoning_a_finished_turn_drops_leaves_the_later_prompts() {
    // Request 4 (1 s after request 3, 40 bytes: a user message) gets
    // request 3's 20 visible output tokens back, and the 9 tokens of
    // reasoning that went back earlier in the turn leave the context:
    // 165 + 20 − 9 + 40/4 = 186. Requests 1–3 are as before (425), and
    // request 3's 20 is billed before the final 20.
    let mut s = recorded();
    let mut r = row(4, 40, Some((20, 0, 1000)), "m");
    r.imported_mut().dropped_output = Some(9);
    s.trace_mut().push(r);
    let sim = simulate(&s, SimulateOptions::default());
    let p = sim.profile(Content::Raw);
    assert_eq!(p.input_tokens.lower, d("611"));
    assert_eq!(p.output_tokens, 82);
}

#[test]
fn the_recorded_gap_expires_the_cache() {
    // 5-minute cache: request 1 writes 100; request 2 (1 s later) reads 100
    // and writes 60; request 3 comes 400 s later, after the lifetime, and
    // writes all 165. Writes 325 × $10, reads 100 × $0.2 per million.
    let sim = simulate(&recorded(), SimulateOptions::default());
    let v = variant(&sim, Cache::FiveMinutes);
    assert_eq!(v.expiries, 1);
    assert_eq!(v.cost.cache_write.lower, d("0.00325"));
    assert_eq!(v.cost.cache_read.lower, d("0.00002"));
}

#[test]
fn a_model_whose_cache_lives_longer_keeps_it_over_the_gap() {
    // The same run on a model whose automatic cache lives 10 minutes: the
    // 400 s gap before request 3 no longer expires it. Request 3 reads
    // request 2's 160 and writes 5: writes 100 + 60 + 5 = 165 × $10, reads
    // 100 + 160 = 260 × $0.2 per million. The 1-hour tier is unchanged.
    let mut s = recorded();
    s.prices_mut().cache_lifetime_minutes = Some(10);
    for pv in s.variants_mut() {
        pv.prices.cache_lifetime_minutes = Some(10);
        pv.rates = pv
            .prices
            .rates_with(pv.variant.cache, pv.variant.mode, pv.variant.options())
            .unwrap();
        for by in &mut pv.by_model {
            by.prices = pv.prices.clone();
            by.rates = pv.rates.clone();
        }
    }
    let sim = simulate(&s, SimulateOptions::default());
    let v = variant(&sim, Cache::FiveMinutes);
    assert_eq!(v.expiries, 0);
    assert_eq!(v.cost.cache_write.lower, d("0.00165"));
    assert_eq!(v.cost.cache_read.lower, d("0.000052"));
    let one_hour = s.variants()[0].rates.lifetime_ms(Cache::OneHour);
    assert_eq!(one_hour, Some(3_600_000));
}

#[test]
fn a_recorded_compaction_keeps_only_the_prefix_and_what_follows_it() {
    // Request 4, 1 s after request 3, follows a compaction: its prompt is
    // P + its own 40 bytes = 110, none of the earlier output. The cache
    // still holds the prefix (100) from request 3's write: read 100, write 10.
    let mut s = recorded();
    s.trace_mut().push(compacting_row(40, (11, 0, 1000)));
    let sim = simulate(&s, SimulateOptions::default());
    assert_eq!(sim.profile(Content::Raw).input_tokens.lower, d("535"));
    let v = variant(&sim, Cache::FiveMinutes);
    // Writes 100 + 60 + 165 + 10 = 335; reads 100 + 100 = 200.
    assert_eq!(v.cost.cache_write.lower, d("0.00335"));
    assert_eq!(v.cost.cache_read.lower, d("0.00004"));
}

#[test]
fn each_request_pays_its_own_model_and_a_change_of_model_breaks_the_cache() {
    // Request 3 ran on `h` (input $1, write $1.25, read $0.1, output $5).
    let mut s = recorded();
    s.trace_mut()[2] = row(3, 0, Some((5, 7, 1000)), "h");
    let h = ModelPrices {
        model: "h".into(),
        input: d("1"),
        output: d("5"),
        cache_write_5m: Some(d("1.25")),
        cache_read: Some(d("0.1")),
        ..ModelPrices::default()
    };
    for pv in s.variants_mut() {
        let rates = h
            .rates_with(pv.variant.cache, pv.variant.mode, pv.variant.options())
            .unwrap();
        pv.by_model = vec![ModelRates {
            model: "h".into(),
            prices: h.clone(),
            rates,
        }];
    }
    let sim = simulate(&s, SimulateOptions::default());
    // Uncached: m pays (100 + 160) × 8 + (30 + 12) × 40 = 3,760; h pays
    // 165 × 1 + 20 × 5 = 265: 4,025 per million.
    let none = &variant(&sim, Cache::None).cost;
    assert_eq!(none.input.lower + none.output.lower, d("0.004025"));
    // Cached: m writes 100 + 60 and reads 100; h has no copy of the prefix
    // and writes all 165 although only 1 s passed.
    let v = variant(&sim, Cache::FiveMinutes);
    assert_eq!(v.cost.cache_write.lower, d("0.00180625")); // 1,600 + 206.25
    assert_eq!(v.cost.cache_read.lower, d("0.00002"));
    assert_eq!(v.expiries, 0);
}

#[test]
fn a_warm_prefix_and_the_framing_of_each_step() {
    // 60 of the prefix were cached by an earlier session: request 1 reads
    // 60 and writes 40. Each step adds 3 tokens of framing: request 2 is
    // 163, request 3 is 171. Request 3 expires (400 s): this run's cache is
    // gone, but the 60 that other runs keep warm are still read, as
    // recorded sessions read exactly them after a long gap; it writes 111.
    let mut s = recorded();
    s.assumptions_mut().prefix_cached_tokens = 60;
    s.assumptions_mut().step_overhead_tokens = 3;
    let sim = simulate(&s, SimulateOptions::default());
    assert_eq!(sim.profile(Content::Raw).input_tokens.lower, d("434"));
    let v = variant(&sim, Cache::FiveMinutes);
    assert_eq!(v.expiries, 1);
    // Writes 40 + 63 + 111 = 214 × $10; reads 60 + 100 + 60 = 220 × $0.2
    // per million.
    assert_eq!(v.cost.cache_write.lower, d("0.00214"));
    assert_eq!(v.cost.cache_read.lower, d("0.000044"));
}

#[test]
fn a_warm_prefix_outlives_only_its_share_of_expiries() {
    // As in `a_warm_prefix_and_the_framing_of_each_step`: 60 of the prefix
    // warm, request 3 (171 tokens) expires. With a share of 0.25 it reads a
    // quarter of the 60, 15, and writes 156; with 0 it writes all 171.
    let with = |share: Option<&str>| {
        let mut s = recorded();
        s.assumptions_mut().prefix_cached_tokens = 60;
        s.assumptions_mut().step_overhead_tokens = 3;
        for pv in s.variants_mut() {
            pv.warm_prefix_share = share.map(d);
        }
        let sim = simulate(&s, SimulateOptions::default());
        let v = variant(&sim, Cache::FiveMinutes);
        (v.cost.cache_write.lower, v.cost.cache_read.lower)
    };
    // Writes 40 + 63 + 111 = 214, reads 60 + 100 + 60 = 220 (every expiry).
    assert_eq!(with(None), (d("0.00214"), d("0.000044")));
    // Writes 40 + 63 + 156 = 259, reads 60 + 100 + 15 = 175.
    assert_eq!(with(Some("0.25")), (d("0.00259"), d("0.000035")));
    // Writes 40 + 63 + 171 = 274, reads 160. The first request still
    // reads the 60: the share is of expiries only.
    assert_eq!(with(Some("0")), (d("0.00274"), d("0.000032")));
}

#[test]
fn a_cache_that_outlives_its_share_of_expiries_is_read_whole() {
    // As in `a_warm_prefix_and_the_framing_of_each_step`: 60 of the prefix
    // warm, request 3 (171 tokens) expires after request 2's 163. Had the
    // cache survived, request 3 would read the 163; expired, it reads the
    // warm 60 (times the warm share). Writes cost $10 and reads $0.2 per
    // million; requests 1 and 2 write 40 + 63 and read 60 + 100.
    let with = |survived: &str, warm: Option<&str>| {
        let mut s = recorded();
        s.assumptions_mut().prefix_cached_tokens = 60;
        s.assumptions_mut().step_overhead_tokens = 3;
        for pv in s.variants_mut() {
            pv.survived_expiry_share = Some(d(survived));
            pv.warm_prefix_share = warm.map(d);
        }
        let sim = simulate(&s, SimulateOptions::default());
        let v = variant(&sim, Cache::FiveMinutes);
        assert_eq!(v.expiries, 1);
        (v.cost.cache_write.lower, v.cost.cache_read.lower)
    };
    // Half survive: reads 163 × 0.5 + 60 × 0.5 = 111.5 and writes 59.5.
    // Writes 40 + 63 + 59.5 = 162.5, reads 60 + 100 + 111.5 = 271.5.
    assert_eq!(with("0.5", None), (d("0.001625"), d("0.0000543")));
    // All survive: reads 163, writes 8. Writes 111, reads 323.
    assert_eq!(with("1", None), (d("0.00111"), d("0.0000646")));
    // A quarter survive, and of the rest none reads the warm prefix: reads
    // 163 × 0.25 = 40.75, writes 130.25. Writes 233.25, reads 200.75.
    assert_eq!(with("0.25", Some("0")), (d("0.0023325"), d("0.00004015")));
    // None survive: as without the key (writes 214, reads 220).
    assert_eq!(with("0", None), (d("0.00214"), d("0.000044")));
}

#[test]
fn a_hand_written_trace_keeps_one_request_per_result() {
    // Without `request` on every row, rows are not grouped: two rows, three
    // requests, `o` per step, as the seed's model has it.
    let s = scenario(&[(40, 4), (80, 8)], vec![]);
    let sim = simulate(&s, SimulateOptions::default());
    assert_eq!(sim.profile(Content::Raw).requests, 3);
    assert_eq!(sim.profile(Content::Raw).input_tokens.lower, d("370"));
}

/// The recorded run with every variant reading `share` of the cache, the
/// upper bound `p10` where given.
fn recorded_with_shares(share: &str, p10: Option<&str>) -> Scenario {
    let mut s = recorded();
    for pv in s.variants_mut() {
        pv.cache_hit_share = Some(d(share));
        pv.cache_hit_share_p10 = p10.map(d);
    }
    s
}

#[test]
fn a_provider_that_misses_part_of_the_prefix_reads_only_its_share() {
    // With a fitted share the provider caches every prefix on its own, and
    // the response it generated with it: what request 2 may read is request
    // 1's prompt and the 30 output tokens sent back, 100 + 30 = 130.
    // The upper bound reads half of that. Its prompts are 100, 175 and 180
    // (u = 1.5, as in a_request_follows_all_its_rows_…): request 2 reads 65
    // and writes 110; request 3 expired (400 s) and writes 180. Writes
    // 100 + 110 + 180 = 390 × $10; reads 65 × $0.2 per million.
    let s = recorded_with_shares("0.5", None);
    let sim = simulate(&s, SimulateOptions::default());
    let v = variant(&sim, Cache::FiveMinutes);
    assert_eq!(v.cost.cache_write.upper, d("0.0039"));
    assert_eq!(v.cost.cache_read.upper, d("0.000013"));
    // The lower bound reads all of it: prompts 100, 160, 165; request 2
    // reads 130 and writes 30, request 3 writes 165: writes 295, reads 130.
    assert_eq!(v.cost.cache_write.lower, d("0.00295"));
    assert_eq!(v.cost.cache_read.lower, d("0.000026"));
}

#[test]
fn the_upper_bound_reads_the_shares_p10_and_the_recorded_reads_view_the_share() {
    // As above, with a p10 of 0.25 beside the share of 0.5: the upper
    // bound reads a quarter of 130, 32.5, and writes 175 − 32.5 = 142.5;
    // request 3 writes 180. Writes 100 + 142.5 + 180 = 422.5 × $10, reads
    // 32.5 × $0.2 per million.
    let s = recorded_with_shares("0.5", Some("0.25"));
    let sim = simulate(&s, SimulateOptions::default());
    let v = variant(&sim, Cache::FiveMinutes);
    assert_eq!(v.cost.cache_write.upper, d("0.004225"));
    assert_eq!(v.cost.cache_read.upper, d("0.0000065"));
    // The lower bound still reads all of it.
    assert_eq!(v.cost.cache_write.lower, d("0.00295"));
    assert_eq!(v.cost.cache_read.lower, d("0.000026"));
    // Read as recorded (the estimate's view), the upper bound reads the
    // share again: the figures of the test above.
    let recorded_reads = s.reading_cache_as_recorded().expect("a variant has a p10");
    let sim = simulate(&recorded_reads, SimulateOptions::default());
    let v = variant(&sim, Cache::FiveMinutes);
    assert_eq!(v.cost.cache_write.upper, d("0.0039"));
    assert_eq!(v.cost.cache_read.upper, d("0.000013"));
    // Without a p10 there is nothing to view apart.
    assert!(recorded_with_shares("0.5", None)
        .reading_cache_as_recorded()
        .is_none());
}

/// The recorded run with a request 4 (40 bytes, 20 output sent back, 1 s
/// after request 3) that starts a new turn dropping `dropped` tokens of
/// earlier reasoning, every variant with `share` of new turns breaking:
/// the raw input's lower bound, and the 5-minute tier's lower cache write
/// and read costs.
fn new_turn(dropped: u64, share: Option<&str>) -> (Decimal, (Decimal, Decimal)) {
    let mut s = recorded();
    let mut r = row(4, 40, Some((20, 0, 1000)), "m");
    r.imported_mut().dropped_output = Some(dropped);
    s.trace_mut().push(r);
    for pv in s.variants_mut() {
        pv.turn_break_share = share.map(d);
    }
    let sim = simulate(&s, SimulateOptions::default());
    let v = variant(&sim, Cache::FiveMinutes);
    (
        sim.profile(Content::Raw).input_tokens.lower,
        (v.cost.cache_write.lower, v.cost.cache_read.lower),
    )
}

#[test]
fn a_new_turn_that_drops_reasoning_breaks_the_cache_by_its_share() {
    // Request 4 as in `reasoning_a_finished_turn_drops_leaves_the_later_prompts`
    // (186 tokens, 1 s after request 3's 165), which drops 9 tokens of
    // reasoning far back in the prompt. 5-minute cache; request 3 expired
    // (400 s) and wrote all 165.
    let with = |share| new_turn(9, share).1;
    // No share: request 4 reads request 3's 165 and writes 21. Writes
    // 100 + 60 + 165 + 21 = 346 × $10, reads 100 + 165 = 265 × $0.2 per million.
    assert_eq!(with(None), (d("0.00346"), d("0.000053")));
    // A fifth of such turns break: request 4 keeps the prefix (100) and
    // 4/5 of the rest, 100 + 65 × 0.8 = 152, and writes 34. Writes 359,
    // reads 252.
    assert_eq!(with(Some("0.2")), (d("0.00359"), d("0.0000504")));
    // Every one breaks: it reads the prefix, 100, and writes 86.
    assert_eq!(with(Some("1")), (d("0.00411"), d("0.00004")));
}

#[test]
fn a_new_turn_that_dropped_nothing_logged_still_breaks_by_its_share() {
    // `dropped_output = 0`: a new turn whose log kept no reasoning to drop.
    // Request 4 is 100 + 95 (request 3's prompt, less the prefix, with 30
    // output tokens sent back) + 10 = 195 tokens, 1 s after request 3's
    // 165 (which expired and wrote all 165).
    let with = |share| {
        let (input, costs) = new_turn(0, share);
        assert_eq!(input, d("620"));
        costs
    };
    // No share: it reads 165 and writes 30. Writes 100 + 60 + 165 + 30 =
    // 355 × $10, reads 100 + 165 = 265 × $0.2 per million.
    assert_eq!(with(None), (d("0.00355"), d("0.000053")));
    // Every such turn breaks: it reads the prefix, 100, and writes 95.
    // Writes 420, reads 200.
    assert_eq!(with(Some("1")), (d("0.0042"), d("0.00004")));
}

#[test]
fn a_prompt_smaller_than_the_last_reads_no_more_than_itself() {
    // Request 4 (1 s after request 3) drops 30 of the 35 output tokens sent
    // back and adds nothing: 100 + 5 + 120/4 = 135, below request 3's 165.
    // It reads 135 of the cache, never 165, and writes nothing: writes
    // 100 + 60 + 165 = 325, reads 100 + 135 = 235.
    let mut s = recorded();
    let mut r = row(4, 0, Some((0, 0, 1000)), "m");
    r.imported_mut().dropped_output = Some(30);
    s.trace_mut().push(r);
    let sim = simulate(&s, SimulateOptions::default());
    let v = variant(&sim, Cache::FiveMinutes);
    assert_eq!(v.cost.cache_write.lower, d("0.00325"));
    assert_eq!(v.cost.cache_read.lower, d("0.000047"));
}

#[test]
fn tokens_the_log_cannot_measure_enter_as_tokens_and_stay() {
    // 50 unmeasured tokens before request 3: 165 + 50 = 215, in the model's
    // own tokens, so neither divided by b nor uplifted. Lower 100 + 160 +
    // 215 = 475; upper 100 + 175 + 230 = 505.
    let mut s = recorded();
    s.trace_mut()[2].imported_mut().unmeasured_tokens = Some(50);
    let sim = simulate(&s, SimulateOptions::default());
    let p = sim.profile(Content::Raw);
    assert_eq!(p.input_tokens.lower, d("475"));
    assert_eq!(p.input_tokens.upper, d("505"));
    // Request 4 follows a compaction that restored 30 tokens the log does
    // not show, with a 40-byte summary: the prefix, the summary and what
    // was restored, 100 + 10 + 30 = 140; the 50 before it are gone.
    let mut r = compacting_row(40, (20, 0, 1000));
    r.imported_mut().unmeasured_tokens = Some(30);
    s.trace_mut().push(r);
    let sim = simulate(&s, SimulateOptions::default());
    assert_eq!(sim.profile(Content::Raw).input_tokens.lower, d("615"));
}

#[test]
fn counted_tokens_replace_bytes_on_a_model_of_their_tokenizer() {
    // Request 2's first result (40 bytes) was counted at 25 tokens with
    // o200k_base. On gpt-5 (o200k): request 2 is 100 + 30 + 25 + 80/4 =
    // 175, request 3 175 + 5 = 180: 100 + 175 + 180 = 455. The upper bound
    // uplifts only the 80 bytes not counted: 100 + 30 + 25 + 1.5 × 20 = 185,
    // then 190: 475. On a model of another tokenizer the bytes count as
    // before: 425 and 455 (a_request_follows_all_its_rows_…).
    let mut s = recorded();
    s.trace_mut()[0].imported_mut().o200k_tokens = Some(25);
    let other = simulate(&s, SimulateOptions::default());
    assert_eq!(other.profile(Content::Raw).input_tokens.lower, d("425"));
    assert_eq!(other.profile(Content::Raw).input_tokens.upper, d("455"));
    s.prices_mut().model = "gpt-5".into();
    for pv in s.variants_mut() {
        pv.model = "gpt-5".into();
    }
    let sim = simulate(&s, SimulateOptions::default());
    let p = sim.profile(Content::Raw);
    assert_eq!(p.input_tokens.lower, d("455"));
    assert_eq!(p.input_tokens.upper, d("475"));
    // Uncached, every variant's input is the same 455 … 475 × $8 per million.
    let none = &variant(&sim, Cache::None).cost;
    assert_eq!(none.uncached_input.lower, d("0.00364"));
    assert_eq!(none.uncached_input.upper, d("0.0038"));
    // The document says one of the three results was counted, and the
    // attribution takes its 25 tokens on gpt-5 (in both bounds), its 40
    // bytes ÷ 4 = 10 on the other model.
    assert_eq!((sim.counted_results, sim.tool_results), (1, 3));
    // The context still holds all 40 + 80 bytes of results, counted or not.
    assert_eq!(p.result_bytes, 120);
    let t = sim.attribution[0].raw_tokens;
    assert_eq!((t.lower, t.upper), (d("25"), d("25")));
    assert_eq!(other.attribution[0].raw_tokens.lower, d("10"));
}

/// [`recorded`] and request 4 (1 s after request 3, 20 bytes), before
/// which the client cleared request 2's 80-byte result.
fn cleared() -> Scenario {
    let mut s = recorded();
    s.trace_mut()[1].imported_mut().cleared_before = Some(4);
    s.trace_mut().push(row(4, 20, Some((0, 0, 1000)), "m"));
    s
}

#[test]
fn a_row_the_client_cleared_leaves_the_prompts_from_that_request_on() {
    // Request 4 (1 s after request 3, 20 bytes) follows a microcompaction
    // that cleared the 80-byte result of request 2: 165 + 20/4 − 80/4 =
    // 150 (the 40-byte one stays). Requests 1–3 are as before (425), so
    // the input is 575; the upper bound clears 1.5 × 20 = 30 tokens of its
    // 180 + 1.5 × 5: 157.5, and 455 + 157.5 = 612.5.
    let mut s = cleared();
    let sim = simulate(&s, SimulateOptions::default());
    let p = sim.profile(Content::Raw);
    assert_eq!(p.requests, 4);
    assert_eq!(p.input_tokens.lower, d("575"));
    assert_eq!(p.input_tokens.upper, d("612.5"));
    // Uncleared, request 4 would carry 170 (595 in all).
    s.trace_mut()[1].imported_mut().cleared_before = None;
    let sim = simulate(&s, SimulateOptions::default());
    assert_eq!(sim.profile(Content::Raw).input_tokens.lower, d("595"));
}

#[test]
fn what_the_client_cleared_is_read_from_the_cache_that_is_left() {
    // 5-minute cache, requests 1–4 as above with the clear: request 3 comes
    // after the lifetime and writes 165; request 4, 1 s later, reads all
    // of its 150 from what request 3 left (the client edits the cache, or
    // it had expired and the rewrite came with the gap). Writes 100 + 60 +
    // 165 = 325 × $10, reads 100 + 150 = 250 × $0.2 per million.
    let sim = simulate(&cleared(), SimulateOptions::default());
    let v = variant(&sim, Cache::FiveMinutes);
    assert_eq!(v.cost.cache_write.lower, d("0.00325"));
    assert_eq!(v.cost.cache_read.lower, d("0.00005"));
}

#[test]
fn a_row_cleared_before_a_compaction_took_it_is_not_taken_twice() {
    // Request 4 compacts (its 20 bytes are the summary): the context is the
    // prefix and the summary, 100 + 5 = 105, whether or not the 80-byte
    // result was cleared before it as well; 425 + 105 = 530.
    let mut s = recorded();
    s.trace_mut().push(compacting_row(20, (0, 0, 1000)));
    let compacted = simulate(&s, SimulateOptions::default());
    assert_eq!(compacted.profile(Content::Raw).input_tokens.lower, d("530"));
    s.trace_mut()[1].imported_mut().cleared_before = Some(4);
    let both = simulate(&s, SimulateOptions::default());
    assert_eq!(both.profile(Content::Raw).input_tokens.lower, d("530"));
}
