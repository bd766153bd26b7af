use super::*;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn fable_5_2() -> ModelPrices {
    ModelPrices {
        model: "claude-fable-5-2".into(),
        source: "test".into(),
        read_on: "2026-11-14".into(),
        input: Decimal::from(8),
        output: Decimal::from(40),
        cache_write_5m: Some(Decimal::from(10)),
        cache_write_1h: Some(Decimal::from(16)),
        cache_read: Some(Decimal::new(20, 2)),
        batch_input: Some(Decimal::from(4)),
        batch_output: Some(Decimal::from(20)),
        ..ModelPrices::default()
    }
}

/// Gemini 2.5 Pro as LiteLLM 1.110.2 lists it (USD per million tokens).
fn gemini_2_5_pro() -> ModelPrices {
    ModelPrices {
        model: "gemini-2.5-pro".into(),
        input: d("1.25"),
        output: d("10"),
        cache_write_5m: Some(d("1.25")),
        cache_read: Some(d("0.125")),
        batch_input: Some(d("0.625")),
        batch_output: Some(d("5")),
        batch_cache_read: Some(d("0.125")),
        long_context: vec![LongContext {
            threshold_tokens: 200_000,
            input: d("2.5"),
            output: d("15"),
            cache_write_5m: None,
            cache_write_1h: None,
            cache_read: Some(d("0.25")),
        }],
        services: [
            (
                "flex".to_string(),
                Service::Prices(ServicePrices {
                    input: d("0.625"),
                    output: d("5"),
                    cache_write_5m: None,
                    cache_write_1h: None,
                    cache_read: Some(d("0.125")),
                }),
            ),
            (
                "priority".to_string(),
                Service::Prices(ServicePrices {
                    input: d("2.25"),
                    output: d("18"),
                    cache_write_5m: None,
                    cache_write_1h: None,
                    cache_read: Some(d("0.225")),
                }),
            ),
        ]
        .into(),
        ..ModelPrices::default()
    }
}

#[test]
fn batch_applies_cache_multipliers_to_batch_input() {
    let r = fable_5_2().rates(Cache::FiveMinutes, Mode::Batch).unwrap();
    // 1.25 × $4 and 0.025 × $4
    assert_eq!(r.cache_write, Some(Decimal::from(5)));
    assert_eq!(r.cache_read, Some(Decimal::new(10, 2)));
    assert_eq!(r.input, Decimal::from(4));
    assert_eq!(r.output, Decimal::from(20));
}

#[test]
fn one_hour_tier_uses_its_write_price() {
    let r = fable_5_2().rates(Cache::OneHour, Mode::Sync).unwrap();
    assert_eq!(r.cache_write, Some(Decimal::from(16)));
}

#[test]
fn unknown_price_is_reported_not_zeroed() {
    let mut m = fable_5_2();
    m.cache_read = None;
    m.batch_output = None;
    let e = m.rates(Cache::FiveMinutes, Mode::Batch).unwrap_err();
    assert_eq!(e.0, vec!["cache_read", "batch_output"]);
}

#[test]
fn no_write_premium_is_a_write_price_equal_to_input() {
    // OpenAI-style: writing the cache costs the input price, reads are discounted.
    let mut m = fable_5_2();
    m.cache_write_5m = Some(m.input);
    let r = m.rates(Cache::FiveMinutes, Mode::Sync).unwrap();
    assert_eq!(r.cache_write, Some(r.input));
    // A 2× premium stays 2×; 1-hour writes never fall back to the 5-minute price.
    m.cache_write_1h = None;
    let e = m.rates(Cache::OneHour, Mode::Sync).unwrap_err();
    assert_eq!(e.0, vec!["cache_write_1h"]);
}

#[test]
fn long_context_tier_reprices_every_class() {
    let r = gemini_2_5_pro()
        .rates(Cache::FiveMinutes, Mode::Sync)
        .unwrap();
    let base = r.at(0);
    let long = r.at(1);
    assert_eq!(
        (base.input, base.output, base.cache_read),
        (d("1.25"), d("10"), d("0.125"))
    );
    // The tier gives its own read price; the write keeps the 1× ratio to input.
    assert_eq!(long.input, d("2.5"));
    assert_eq!(long.output, d("15"));
    assert_eq!(long.cache_read, d("0.25"));
    assert_eq!(long.cache_write, d("2.5"));
    // Chosen per request from the whole prompt: strictly above the threshold.
    assert_eq!(r.tier_of(Decimal::from(200_000)), 0);
    assert_eq!(r.tier_of(Decimal::from(200_001)), 1);
    assert_eq!(r.tier_of(Decimal::from(199_999)), 0);
}

#[test]
fn several_thresholds_pick_the_highest_passed() {
    let mut m = fable_5_2();
    for (t, i, o) in [
        (128_000, "10", "50"),
        (200_000, "12", "60"),
        (272_000, "16", "80"),
    ] {
        m.long_context.push(LongContext {
            threshold_tokens: t,
            input: d(i),
            output: d(o),
            cache_write_5m: None,
            cache_write_1h: None,
            cache_read: None,
        });
    }
    let r = m.rates(Cache::FiveMinutes, Mode::Sync).unwrap();
    assert_eq!(r.tier_of(Decimal::from(128_000)), 0);
    assert_eq!(r.tier_of(Decimal::from(128_001)), 1);
    assert_eq!(r.tier_of(Decimal::from(200_001)), 2);
    assert_eq!(r.tier_of(Decimal::from(272_001)), 3);
    // Tier 3: input 16, write 1.25 × 16 = 20, read 0.025 × 16 = 0.4, output 80.
    let t3 = r.at(3);
    assert_eq!(
        (t3.input, t3.cache_write, t3.cache_read, t3.output),
        (d("16"), d("20"), d("0.4"), d("80"))
    );
}

#[test]
fn service_tiers_and_batch_reproduce_litellms_long_context_prices() {
    // LiteLLM 1.110.2, gemini-2.5-pro: *_above_200k_tokens_{flex,priority,batches}.
    let m = gemini_2_5_pro();
    let cases = [
        (Some("flex"), Mode::Sync, ["1.25", "7.5", "0.25"]),
        (Some("priority"), Mode::Sync, ["4.5", "27", "0.45"]),
        (None, Mode::Batch, ["1.25", "7.5", "0.25"]),
    ];
    for (service, mode, [i, o, r]) in cases {
        // A request logged under the tier prices as the entry it makes.
        if let Some(t) = service {
            let opts = Options {
                service: Some(t),
                region: None,
            };
            let u = m
                .under(&PricedModel::name(&m.model, Some(t), None), opts)
                .unwrap();
            let long = &u.long_context[0];
            assert_eq!(
                (long.input, long.output, long.cache_read),
                (d(i), d(o), Some(d(r))),
                "{t}"
            );
        }
        let rates = m
            .rates_with(
                Cache::FiveMinutes,
                mode,
                Options {
                    service,
                    region: None,
                },
            )
            .unwrap();
        let long = rates.at(1);
        assert_eq!(long.input, d(i), "{service:?} {mode:?}");
        assert_eq!(long.output, d(o), "{service:?} {mode:?}");
        assert_eq!(long.cache_read, d(r), "{service:?} {mode:?}");
    }
    let flex = m
        .rates_with(
            Cache::FiveMinutes,
            Mode::Sync,
            Options {
                service: Some("flex"),
                region: None,
            },
        )
        .unwrap();
    assert_eq!(
        (flex.input, flex.output, flex.cache_read),
        (d("0.625"), d("5"), Some(d("0.125")))
    );
}

/// Input, output, both cache writes and the cache read of an entry.
fn base_prices(
    m: &ModelPrices,
) -> (
    Decimal,
    Decimal,
    Option<Decimal>,
    Option<Decimal>,
    Option<Decimal>,
) {
    (
        m.input,
        m.output,
        m.cache_write_5m,
        m.cache_write_1h,
        m.cache_read,
    )
}

#[test]
fn a_request_s_tier_and_region_make_an_entry_of_their_own() {
    let mut m = fable_5_2();
    m.services
        .insert("fast".into(), Service::Multiplier(d("6")));
    m.services.insert(
        "flex".into(),
        Service::Prices(ServicePrices {
            input: d("4"),
            output: d("20"),
            cache_write_5m: None,
            cache_write_1h: None,
            cache_read: None,
        }),
    );
    m.regions.insert("us".into(), d("1.1"));
    let name = PricedModel::name("claude-fable-5-2", Some("fast"), Some("us"));
    assert_eq!(name, "claude-fable-5-2 (service fast, region us)");
    let p = PricedModel::parse(&name);
    assert_eq!(
        (p.id, p.options.service, p.options.region),
        ("claude-fable-5-2", Some("fast"), Some("us"))
    );
    let u = m.under(&name, p.options).unwrap();
    assert_eq!(u.model, name);
    // Every price × 6 × 1.1: 8 → 52.8, 40 → 264, 10 → 66, 16 → 105.6, 0.2 → 1.32.
    assert_eq!(
        base_prices(&u),
        (
            d("52.8"),
            d("264"),
            Some(d("66")),
            Some(d("105.6")),
            Some(d("1.32"))
        )
    );
    // Batch is a tier of its own: the region's uplift only (4 → 4.4, 20 → 22).
    assert_eq!(
        (u.batch_input, u.batch_output),
        (Some(d("4.4")), Some(d("22")))
    );
    assert!(u.services.is_empty() && u.regions.is_empty());
    // 1,000 input, 100 output, 2,000 written for 5 minutes, 10,000 read:
    // (52,800 + 26,400 + 132,000 + 13,200) ÷ 10⁶.
    let usage = Usage {
        input: 1000,
        output: 100,
        cache_write_5m: 2000,
        cache_write_1h: 0,
        cache_read: 10_000,
    };
    assert_eq!(u.cost_of(&usage).unwrap(), d("0.2244"));
    // One part alone; the standard entry is the book's own.
    let fast = PricedModel::parse("claude-fable-5-2 (service fast)");
    assert_eq!(fast.options.region, None);
    assert_eq!(m.under("f", fast.options).unwrap().input, d("48"));
    // A tier with prices of its own: $4 and $20; the cache prices it does
    // not give keep the model's ratio to input (10, 16 and 0.2 per 8 of
    // input: 5, 8 and 0.1); then the region's uplift (× 1.1).
    let flex = Options {
        service: Some("flex"),
        region: Some("us"),
    };
    let f = m.under("x", flex).unwrap();
    assert_eq!(
        base_prices(&f),
        (
            d("4.4"),
            d("22"),
            Some(d("5.5")),
            Some(d("8.8")),
            Some(d("0.11"))
        )
    );
    // A tier or region the entry lacks.
    let slow = Options {
        service: Some("slow"),
        region: None,
    };
    assert_eq!(
        m.under("x", slow).unwrap_err().0,
        vec!["service tier `slow`"]
    );
    let eu = Options {
        service: None,
        region: Some("eu"),
    };
    assert_eq!(m.under("x", eu).unwrap_err().0, vec!["region `eu`"]);
    // What is not a well-formed suffix is part of a plain id.
    for n in [
        "claude-fable-5-2",
        "m (fast)",
        "m (service fast, service slow)",
        "m (service )",
        "m (region us",
        "m (service fast,region us)",
    ] {
        assert_eq!(PricedModel::parse(n).id, n, "{n}");
        assert_eq!(PricedModel::parse(n).options, Options::default());
    }
}

#[test]
fn multipliers_and_regions_scale_every_price() {
    let mut m = fable_5_2();
    m.services
        .insert("fast".into(), Service::Multiplier(d("6")));
    m.regions.insert("us-only".into(), d("1.1"));
    let r = m
        .rates_with(
            Cache::OneHour,
            Mode::Sync,
            Options {
                service: Some("fast"),
                region: Some("us-only"),
            },
        )
        .unwrap();
    // 8 × 6 × 1.1 = 52.8; 40 × 6 × 1.1 = 264; 16 × 6.6 = 105.6; 0.2 × 6.6 = 1.32.
    assert_eq!(r.input, d("52.8"));
    assert_eq!(r.output, d("264"));
    assert_eq!(r.cache_write, Some(d("105.6")));
    assert_eq!(r.cache_read, Some(d("1.32")));
    let e = m
        .rates_with(
            Cache::None,
            Mode::Batch,
            Options {
                service: Some("fast"),
                region: None,
            },
        )
        .unwrap_err();
    assert_eq!(e.0, vec!["batch prices of service tier `fast`"]);
    let e = m
        .rates_with(
            Cache::None,
            Mode::Sync,
            Options {
                service: None,
                region: Some("eu"),
            },
        )
        .unwrap_err();
    assert_eq!(e.0, vec!["region `eu`"]);
}

#[test]
fn storage_is_billed_only_when_caching() {
    let mut m = gemini_2_5_pro();
    m.cache_storage_per_hour = Some(d("4.5"));
    assert_eq!(
        m.rates(Cache::None, Mode::Sync)
            .unwrap()
            .cache_storage_per_hour,
        None
    );
    assert_eq!(
        m.rates(Cache::OneHour, Mode::Sync).err().map(|e| e.0),
        Some(vec!["cache_write_1h".to_string()])
    );
    assert_eq!(
        m.rates(Cache::FiveMinutes, Mode::Sync)
            .unwrap()
            .cache_storage_per_hour,
        Some(d("4.5"))
    );
}

#[test]
fn reported_input_loses_cached_tokens_only_where_the_provider_counts_them() {
    // OpenAI: prompt_tokens 2006 with cached_tokens 1920 → 86 uncached (OpenAI's prompt-caching guide example).
    let mut m = fable_5_2();
    m.input_includes_cache = true;
    assert_eq!(m.uncached_input(2006, 1920, 0), Some(86));
    assert_eq!(m.uncached_input(1920, 1920, 0), Some(0));
    assert_eq!(m.uncached_input(1919, 1920, 0), None);
    m.input_includes_cache = false;
    assert_eq!(m.uncached_input(86, 1920, 0), Some(86));
}

#[test]
fn conversion_is_exact() {
    let m = fable_5_2().converted(d("0.92"));
    assert_eq!(m.input, d("7.36"));
    assert_eq!(m.cache_read, Some(d("0.184")));
    assert_eq!(m.batch_output, Some(d("18.4")));
}

#[test]
fn a_books_cache_lifetime_applies_to_the_5_minute_tier_only() {
    let book = |minutes: &str| {
        crate::pricing::PriceBook::parse(&crate::input::SourceText {
            name: "book.toml".into(),
            text: format!(
                "[models.g]\nsource = \"t\"\nread_on = \"2026-11-30\"\ninput = \"1\"\noutput = \"2\"\ncache_write_5m = \"1\"\ncache_read = \"0.1\"\ncache_lifetime_minutes = {minutes}\n"
            ),
        })
    };
    let b = book("10").unwrap();
    let on = jiff::civil::date(2026, 12, 1);
    let m = b.get_on("g", on).unwrap();
    let five = m.rates(Cache::FiveMinutes, Mode::Sync).unwrap();
    assert_eq!(five.lifetime_ms(Cache::FiveMinutes), Some(600_000));
    let none = m.rates(Cache::None, Mode::Sync).unwrap();
    assert_eq!(none.lifetime_ms(Cache::None), None);
    assert_eq!(
        fable_5_2()
            .rates(Cache::OneHour, Mode::Sync)
            .unwrap()
            .lifetime_ms(Cache::OneHour),
        Some(3_600_000)
    );
    // Zero, or more than a day, is refused with the key and the range.
    for bad in ["0", "1441"] {
        let e = book(bad).unwrap_err().to_string();
        assert!(
            e.contains("cache_lifetime_minutes") && e.contains("1 to 1440"),
            "{e}"
        );
    }
}

#[test]
fn the_settled_day_has_todays_prices_and_moves_only_with_a_change() {
    let entry = |from: Option<&str>, input: &str| {
        let from = from.map_or(String::new(), |f| format!("effective_from = \"{f}\"\n"));
        format!(
            "{from}source = \"t\"\nread_on = \"2026-11-30\"\ninput = \"{input}\"\noutput = \"2\"\n"
        )
    };
    let book = |text: String| {
        crate::pricing::PriceBook::parse(&crate::input::SourceText {
            name: "book.toml".into(),
            text,
        })
        .unwrap()
    };
    let date = jiff::civil::date;
    // Undated: no day changes a price.
    let undated = book(format!("[models.u]\n{}", entry(None, "1")));
    assert_eq!(undated.settled_day(date(2026, 12, 3)), None);
    // g changes on 2026-03-01 and 2026-09-01; h on 2026-06-15.
    let dated = book(format!(
        "{}[[models.g]]\n{}[[models.g]]\n{}[[models.h]]\n{}[[models.h]]\n{}",
        format_args!("[models.u]\n{}", entry(None, "1")),
        entry(Some("2026-03-01"), "2"),
        entry(Some("2026-09-01"), "3"),
        entry(None, "4"),
        entry(Some("2026-06-15"), "5"),
    ));
    for (today, settled) in [
        (date(2026, 12, 3), date(2026, 9, 1)),
        (date(2026, 9, 1), date(2026, 9, 1)),
        (date(2026, 8, 31), date(2026, 6, 15)),
        (date(2026, 6, 14), date(2026, 3, 1)),
        // Before every change: the day before the first.
        (date(2026, 1, 10), date(2026, 2, 28)),
    ] {
        assert_eq!(dated.settled_day(today), Some(settled), "{today}");
        for m in ["g", "h", "u"] {
            assert_eq!(
                dated.get_on(m, today).map(|p| p.input),
                dated.get_on(m, settled).map(|p| p.input),
                "{m} on {today}"
            );
        }
    }
}

/// A price book of `text`.
fn book_of(text: &str) -> crate::pricing::PriceBook {
    crate::pricing::PriceBook::parse(&crate::input::SourceText {
        name: "book.toml".into(),
        text: text.into(),
    })
    .unwrap()
}

/// Each of `ids` is a model `book` does not price on `on`.
fn assert_unknown(book: &crate::pricing::PriceBook, ids: &[&str], on: jiff::civil::Date) {
    for id in ids {
        assert_eq!(
            book.priced_on(id, on).unwrap_err(),
            book::NotPriced::Unknown,
            "{id}"
        );
    }
}

#[test]
fn a_snapshot_the_book_does_not_list_takes_its_models_entry_and_says_so() {
    let book = book_of(
        "[models.claude-x-5]\nsource = \"src\"\nread_on = \"2026-11-30\"\ninput = \"5\"\noutput = \"25\"\n\
               [models.claude-x-5.services.fast]\nmultiplier = \"2\"\n\
               [models.claude-x-5-20260101]\nsource = \"own\"\nread_on = \"2026-11-30\"\ninput = \"4\"\noutput = \"20\"\n",
    );
    let on = jiff::civil::date(2026, 12, 1);
    // A snapshot the book lists keeps its own entry.
    assert_eq!(
        book.priced_on("claude-x-5-20260101", on).unwrap().input,
        d("4")
    );
    // One it does not list: the model's entry, under its own id, and said.
    let m = book.priced_on("claude-x-5-20261001", on).unwrap();
    assert_eq!(
        (m.model.as_str(), m.input, m.output),
        ("claude-x-5-20261001", d("5"), d("25"))
    );
    assert!(
        m.source.starts_with("src (the entry of `claude-x-5`"),
        "{}",
        m.source
    );
    // With a tier, as the model's entry under it.
    let fast = book
        .priced_on("claude-x-5-20261001 (service fast)", on)
        .unwrap();
    assert_eq!((fast.input, fast.output), (d("10"), d("50")));
    // No entry without the date either, or no date to take off: unknown.
    assert_unknown(
        &book,
        &["claude-y-5-20261001", "claude-x-6", "claude-x-5-2026100"],
        on,
    );
}

#[test]
fn a_cloud_id_takes_the_clouds_own_entry_or_anthropics_and_says_so() {
    let book = book_of(
        "[models.claude-x-5]\nsource = \"list\"\nread_on = \"2026-11-30\"\ninput = \"5\"\noutput = \"25\"\n\
               [models.\"eu.anthropic.claude-x-5-v1\"]\nsource = \"aws\"\nread_on = \"2026-11-30\"\ninput = \"5.5\"\noutput = \"27.5\"\n",
    );
    let on = jiff::civil::date(2026, 12, 1);
    let priced = |id: &str| {
        let m = book.priced_on(id, on).unwrap();
        assert_eq!(m.model, id);
        (m.input, m.output, m.source)
    };
    // Listed under the cloud's own id: its own price.
    assert_eq!(
        priced("eu.anthropic.claude-x-5-v1").0,
        d("5.5"),
        "the entry of the id itself"
    );
    // The same model and profile under another version suffix: that entry.
    let (input, output, source) = priced("eu.anthropic.claude-x-5-v1:0");
    assert_eq!((input, output), (d("5.5"), d("27.5")));
    assert!(
        source.starts_with("aws (the entry of `eu.anthropic.claude-x-5-v1`"),
        "{source}"
    );
    // Another geography, the global profile, a Vertex id, and a Vertex
    // snapshot the book does not list: Anthropic's entry, each said so; a
    // regional profile says it may cost more.
    for (id, regional) in [
        ("us.anthropic.claude-x-5-v1:0", true),
        ("global.anthropic.claude-x-5", false),
        ("anthropic.claude-x-5-20261001-v1:0", false),
        ("claude-x-5@20261001", false),
        ("claude-x-5@default", false),
    ] {
        let (input, output, source) = priced(id);
        assert_eq!((input, output), (d("5"), d("25")), "{id}");
        assert!(
            source.starts_with("list (the entry of `claude-x-5`"),
            "{id}: {source}"
        );
        assert_eq!(source.contains("10 % more"), regional, "{id}: {source}");
    }
    // A cloud id of a model the book does not have: unknown.
    assert_unknown(
        &book,
        &["us.anthropic.claude-y-5-v1:0", "claude-y-5@20261001"],
        on,
    );
}

#[test]
fn a_request_run_in_batch_pays_the_batch_prices() {
    let book = book_of(
        "[models.m]\nsource = \"s\"\nread_on = \"2026-11-30\"\ninput = \"3\"\noutput = \"15\"\n\
               cache_write_5m = \"3.75\"\ncache_read = \"0.3\"\nbatch_input = \"1.5\"\nbatch_output = \"7.5\"\n\
               [models.m.regions]\nus = \"1.1\"\n\
               [models.n]\nsource = \"s\"\nread_on = \"2026-11-30\"\ninput = \"3\"\noutput = \"15\"\n",
    );
    let on = jiff::civil::date(2026, 12, 1);
    let m = book.priced_on("m (service batch)", on).unwrap();
    // Batch input and output as given; the cache prices the book gives no
    // batch price for keep their ratio to input (3.75 ÷ 3 and 0.3 ÷ 3 of 1.5).
    assert_eq!(
        (m.input, m.output, m.cache_write_5m, m.cache_read),
        (d("1.5"), d("7.5"), Some(d("1.875")), Some(d("0.15")))
    );
    // A batch what-if of it stays at the batch prices.
    assert_eq!(
        (m.batch_input, m.batch_output),
        (Some(d("1.5")), Some(d("7.5")))
    );
    // In a region: the batch prices times the region's multiplier.
    let us = book.priced_on("m (service batch, region us)", on).unwrap();
    assert_eq!((us.input, us.output), (d("1.65"), d("8.25")));
    // A model without batch prices: missing, never the list price.
    assert!(matches!(
        book.priced_on("n (service batch)", on),
        Err(book::NotPriced::Lacks(_))
    ));
}
