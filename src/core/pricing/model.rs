//! A model's prices as one request's rates: the service tier, the region,
//! the long-context tier and the cache lifetime chosen, with a located error
//! for a price the request needs that the book does not have.

use super::tier::{Cache, Mode};
use super::{
    Classes, LongContext, LongContextRates, MissingPrices, ModelPrices, Options, Rates, Service,
    ServicePrices, Usage, PER_MILLION,
};
use rust_decimal::Decimal;
use std::collections::BTreeMap;

impl ModelPrices {
    /// The cache tier a run recorded on `tier` takes on this model, under its
    /// provider's rules: the same tier where this model prices it, else the
    /// tier it has (OpenAI and Google: automatic prefix caching, no 1-hour
    /// tier), else none; and why, when it is not the same.
    pub fn tier_like(&self, tier: Cache) -> (Cache, Option<String>) {
        let priced = |t: Cache| {
            self.cache_read.is_some()
                && match t {
                    Cache::OneHour => self.cache_write_1h.is_some(),
                    Cache::FiveMinutes => self.cache_write_5m.is_some(),
                    Cache::None => true,
                }
        };
        let other = match tier {
            Cache::OneHour => Cache::FiveMinutes,
            _ => Cache::OneHour,
        };
        match tier {
            Cache::None => (Cache::None, None),
            t if priced(t) => (t, None),
            t if priced(other) => (
                other,
                Some(format!(
                    "has no {} cache tier: its {} tier instead",
                    t.key(),
                    other.key()
                )),
            ),
            t => (
                Cache::None,
                Some(format!(
                    "has no cache prices: uncached instead of {}",
                    t.key()
                )),
            ),
        }
    }

    /// How this model caches, from its entry: the tiers it prices, and
    /// whether writes cost more than input (explicit caching, Anthropic) or
    /// not (automatic prefix caching, OpenAI and Google).
    pub fn cache_rule(&self) -> &'static str {
        if self.cache_read.is_none() {
            return "none: uncached";
        }
        let automatic = self.cache_write_5m.is_some_and(|w| w == self.input);
        match (
            self.cache_write_5m.is_some(),
            self.cache_write_1h.is_some(),
            automatic,
        ) {
            (_, false, true) => "automatic: no write premium, no 1h",
            (true, true, _) => "5m and 1h tiers",
            (true, false, _) => "5m tier only",
            (false, true, _) => "1h tier only",
            (false, false, _) => "reads only: uncached",
        }
    }

    /// The rates for a cache tier and a sync/batch mode, on the standard
    /// service in no particular region.
    pub fn rates(&self, cache: Cache, mode: Mode) -> Result<Rates, MissingPrices> {
        self.rates_with(cache, mode, Options::default())
    }

    /// The rates for a cache tier, a mode, a service tier and a region.
    ///
    /// - A service tier with its own prices replaces input and output, and
    ///   the cache prices it gives; a cache price it does not give keeps the
    ///   model's ratio to the input price. A multiplier scales every price.
    /// - Batch mode is a service tier of its own: `batch_input`,
    ///   `batch_output` and, where the source gives them, `batch_cache_*`;
    ///   otherwise the cache multipliers apply to the batch input price.
    /// - A long-context tier's price for a class is the one it gives, or the
    ///   class's standard price times the tier's input premium; under a
    ///   service tier or batch, it scales as the class does (chosen ÷
    ///   standard). This reproduces LiteLLM's flex, batch and priority
    ///   long-context prices for Gemini 2.5 Pro.
    /// - A region's multiplier applies last, to every price.
    pub fn rates_with(
        &self,
        cache: Cache,
        mode: Mode,
        opts: Options,
    ) -> Result<Rates, MissingPrices> {
        let (service, region) = self.service_and_region(opts)?;
        let mut missing = Missing(Vec::new());
        let std = self.standard_classes(cache, &mut missing);
        let mut chosen = match service {
            None => std,
            Some(s) => self.service_classes(std, s, cache),
        };
        if mode == Mode::Batch {
            chosen = self.batch_classes(std, cache, opts.service, &mut missing);
        }
        if !missing.0.is_empty() {
            return Err(MissingPrices(missing.0));
        }
        let caches = cache != Cache::None;
        Ok(Rates {
            input: (chosen.input * region),
            output: (chosen.output * region),
            cache_write: caches.then(|| chosen.write * region),
            cache_read: caches.then(|| chosen.read * region),
            min_cacheable_tokens: self.min_cacheable_tokens,
            cache_lifetime_ms: self
                .cache_lifetime_minutes
                .filter(|_| caches && cache == Cache::FiveMinutes)
                .map(|m| m * 60_000),
            long_context: self.long_context_rates(std, chosen, cache, region),
            cache_storage_per_hour: self
                .cache_storage_per_hour
                .filter(|_| caches)
                .map(|s| s * region),
        })
    }

    /// The service tier and the region's multiplier `opts` name (one the
    /// entry lacks is missing).
    fn service_and_region(
        &self,
        opts: Options,
    ) -> Result<(Option<&Service>, Decimal), MissingPrices> {
        let service = match opts.service {
            None => None,
            Some(name) => match self.services.get(name) {
                Some(s) => Some(s),
                None => return Err(MissingPrices(vec![format!("service tier `{name}`")])),
            },
        };
        let region = match opts.region {
            None => Decimal::ONE,
            Some(name) => match self.regions.get(name) {
                Some(m) => *m,
                None => return Err(MissingPrices(vec![format!("region `{name}`")])),
            },
        };
        Ok((service, region))
    }

    /// Standard classes: input, write, read, output (write and read only
    /// when caching, each needed then).
    fn standard_classes(&self, cache: Cache, missing: &mut Missing) -> Classes {
        let write_name = match cache {
            Cache::OneHour => "cache_write_1h",
            _ => "cache_write_5m",
        };
        Classes {
            input: self.input,
            write: pick(cache, self.cache_write_5m, self.cache_write_1h)
                .map(|w| missing.need(w, write_name))
                .unwrap_or_default(),
            read: if cache == Cache::None {
                Decimal::ZERO
            } else {
                missing.need(self.cache_read, "cache_read")
            },
            output: self.output,
        }
    }

    /// A price that keeps the standard ratio of `class` to input, on a new input price.
    fn keep_ratio(&self, class: Decimal, new_input: Decimal) -> Decimal {
        if self.input.is_zero() {
            class
        } else {
            class * new_input / self.input
        }
    }

    /// The classes under a service tier: a multiplier of every standard
    /// price, or the tier's own prices (cache prices keeping the standard
    /// ratio where it gives none).
    fn service_classes(&self, std: Classes, service: &Service, cache: Cache) -> Classes {
        match service {
            Service::Multiplier(m) => Classes {
                input: std.input * m,
                write: std.write * m,
                read: std.read * m,
                output: std.output * m,
            },
            Service::Prices(sp) => Classes {
                input: sp.input,
                write: pick(cache, sp.cache_write_5m, sp.cache_write_1h)
                    .flatten()
                    .unwrap_or_else(|| self.keep_ratio(std.write, sp.input)),
                read: sp
                    .cache_read
                    .unwrap_or_else(|| self.keep_ratio(std.read, sp.input)),
                output: sp.output,
            },
        }
    }

    /// The batch classes: batch input and output needed, cache prices the
    /// batch ones or the standard ratio on the batch input price. A service
    /// tier has no batch prices.
    fn batch_classes(
        &self,
        std: Classes,
        cache: Cache,
        service: Option<&str>,
        missing: &mut Missing,
    ) -> Classes {
        if let Some(name) = service {
            missing.need(None, &format!("batch prices of service tier `{name}`"));
        }
        let bi = missing.need(self.batch_input, "batch_input");
        Classes {
            input: bi,
            write: pick(cache, self.batch_cache_write_5m, self.batch_cache_write_1h)
                .flatten()
                .unwrap_or_else(|| self.keep_ratio(std.write, bi)),
            read: self
                .batch_cache_read
                .filter(|_| cache != Cache::None)
                .unwrap_or_else(|| self.keep_ratio(std.read, bi)),
            output: missing.need(self.batch_output, "batch_output"),
        }
    }

    /// Each long-context tier's prices, scaled from standard to `chosen`
    /// as its class scales, times the region's multiplier.
    fn long_context_rates(
        &self,
        std: Classes,
        chosen: Classes,
        cache: Cache,
        region: Decimal,
    ) -> Vec<LongContextRates> {
        let caches = cache != Cache::None;
        // A standard price scaled as its class scales from standard to chosen.
        let scaled = |p: Decimal, std_class: Decimal, chosen_class: Decimal| {
            if std_class.is_zero() {
                p
            } else {
                p * chosen_class / std_class
            }
        };
        self.long_context
            .iter()
            .map(|lc| {
                let std_write = pick(cache, lc.cache_write_5m, lc.cache_write_1h)
                    .flatten()
                    .unwrap_or_else(|| self.keep_ratio(std.write, lc.input));
                let std_read = lc
                    .cache_read
                    .unwrap_or_else(|| self.keep_ratio(std.read, lc.input));
                LongContextRates {
                    threshold_tokens: lc.threshold_tokens,
                    input: (scaled(lc.input, std.input, chosen.input) * region),
                    output: (scaled(lc.output, std.output, chosen.output) * region),
                    cache_write: caches
                        .then(|| scaled(std_write, std.write, chosen.write) * region),
                    cache_read: caches.then(|| scaled(std_read, std.read, chosen.read) * region),
                }
            })
            .collect()
    }

    /// Every price of the entry with its name, in the order the book lists
    /// them: base prices, batch, storage, long-context tiers, service tiers
    /// and regional multipliers. `None`: the source does not give it.
    pub fn listed(&self) -> Vec<(String, Option<Decimal>)> {
        let mut out: Vec<(String, Option<Decimal>)> = vec![
            ("input".into(), Some(self.input)),
            ("output".into(), Some(self.output)),
            ("cache_write_5m".into(), self.cache_write_5m),
            ("cache_write_1h".into(), self.cache_write_1h),
            ("cache_read".into(), self.cache_read),
            ("batch_input".into(), self.batch_input),
            ("batch_output".into(), self.batch_output),
        ];
        for (name, v) in [
            ("batch_cache_write_5m", self.batch_cache_write_5m),
            ("batch_cache_write_1h", self.batch_cache_write_1h),
            ("batch_cache_read", self.batch_cache_read),
        ] {
            if v.is_some() {
                out.push((name.into(), v));
            }
        }
        if let Some(s) = self.cache_storage_per_hour {
            out.push(("cache_storage_per_hour".into(), Some(s)));
        }
        for lc in &self.long_context {
            let t = format!("above_{}_tokens", lc.threshold_tokens);
            out.push((format!("input_{t}"), Some(lc.input)));
            out.push((format!("output_{t}"), Some(lc.output)));
            for (name, v) in [
                ("cache_write_5m", lc.cache_write_5m),
                ("cache_write_1h", lc.cache_write_1h),
                ("cache_read", lc.cache_read),
            ] {
                if let Some(v) = v {
                    out.push((format!("{name}_{t}"), Some(v)));
                }
            }
        }
        for (name, s) in &self.services {
            match s {
                Service::Multiplier(m) => out.push((format!("{name}_multiplier"), Some(*m))),
                Service::Prices(p) => {
                    for (class, v) in [
                        ("input", Some(p.input)),
                        ("output", Some(p.output)),
                        ("cache_write_5m", p.cache_write_5m),
                        ("cache_write_1h", p.cache_write_1h),
                        ("cache_read", p.cache_read),
                    ] {
                        if let Some(v) = v {
                            out.push((format!("{name}_{class}"), Some(v)));
                        }
                    }
                }
            }
        }
        for (name, m) in &self.regions {
            out.push((format!("region_{name}_multiplier"), Some(*m)));
        }
        out
    }

    /// The entry as one request pays it under a service tier and a region
    /// the log recorded (fast mode, Anthropic's `inference_geo`), as an
    /// entry of its own named `id`: every price times the tier's multiplier
    /// and the region's, batch prices times the region's only (batch is a
    /// service tier of its own). The result names no further tier or region.
    /// A tier or region the entry lacks, or a tier with its own prices
    /// rather than a multiplier, is missing.
    ///
    /// A request the provider ran in batch (a Batches API result: the tier
    /// [`super::BATCH_SERVICE`], unless the entry names a tier of that name)
    /// pays the entry's batch prices, each cache tier and long-context tier
    /// resolved as a batch variant resolves them; an entry without batch
    /// prices leaves it missing.
    pub fn under(&self, id: &str, opts: Options) -> Result<ModelPrices, MissingPrices> {
        if opts.service == Some(super::BATCH_SERVICE)
            && !self.services.contains_key(super::BATCH_SERVICE)
        {
            let batch = self.with_prices_of(Mode::Batch, None)?;
            return batch.under(
                id,
                Options {
                    service: None,
                    ..opts
                },
            );
        }
        let (service, region) = self.service_and_region(opts)?;
        let standard = match service {
            None => self.clone(),
            Some(Service::Multiplier(m)) => self.converted(*m),
            Some(Service::Prices(_)) => self.with_prices_of(Mode::Sync, opts.service)?,
        };
        let batch = self.converted(region);
        Ok(ModelPrices {
            model: id.to_string(),
            batch_input: batch.batch_input,
            batch_output: batch.batch_output,
            batch_cache_write_5m: batch.batch_cache_write_5m,
            batch_cache_write_1h: batch.batch_cache_write_1h,
            batch_cache_read: batch.batch_cache_read,
            services: BTreeMap::new(),
            regions: BTreeMap::new(),
            ..standard.converted(region)
        })
    }

    /// The entry's standard prices replaced by those of `mode` and
    /// `service` (batch, or a tier with its own prices), as
    /// [`ModelPrices::rates_with`] resolves them on each cache tier (a cache
    /// price the tier does not give keeps the model's ratio to input; a
    /// long-context tier scales as its class).
    fn with_prices_of(
        &self,
        mode: Mode,
        service: Option<&str>,
    ) -> Result<ModelPrices, MissingPrices> {
        let on = |cache: Cache| {
            self.rates_with(
                cache,
                mode,
                Options {
                    service,
                    region: None,
                },
            )
        };
        let plain = on(Cache::None)?;
        let (five, hour) = (on(Cache::FiveMinutes).ok(), on(Cache::OneHour).ok());
        let tier = |r: &Option<Rates>, i: usize| {
            r.as_ref()
                .and_then(|r| r.long_context.get(i))
                .map(|l| (l.cache_write, l.cache_read))
        };
        Ok(ModelPrices {
            input: plain.input,
            output: plain.output,
            cache_write_5m: five.as_ref().and_then(|r| r.cache_write),
            cache_write_1h: hour.as_ref().and_then(|r| r.cache_write),
            cache_read: five.as_ref().or(hour.as_ref()).and_then(|r| r.cache_read),
            long_context: plain
                .long_context
                .iter()
                .enumerate()
                .map(|(i, l)| LongContext {
                    threshold_tokens: l.threshold_tokens,
                    input: l.input,
                    output: l.output,
                    cache_write_5m: tier(&five, i).and_then(|t| t.0),
                    cache_write_1h: tier(&hour, i).and_then(|t| t.0),
                    cache_read: tier(&five, i).or(tier(&hour, i)).and_then(|t| t.1),
                })
                .collect(),
            ..self.clone()
        })
    }

    /// Every price of the entry times `rate` (a currency conversion), exact.
    pub fn converted(&self, rate: Decimal) -> ModelPrices {
        let c = |d: Decimal| (d * rate).normalize();
        let o = |d: Option<Decimal>| d.map(c);
        ModelPrices {
            input: c(self.input),
            output: c(self.output),
            cache_write_5m: o(self.cache_write_5m),
            cache_write_1h: o(self.cache_write_1h),
            cache_read: o(self.cache_read),
            batch_input: o(self.batch_input),
            batch_output: o(self.batch_output),
            batch_cache_write_5m: o(self.batch_cache_write_5m),
            batch_cache_write_1h: o(self.batch_cache_write_1h),
            batch_cache_read: o(self.batch_cache_read),
            cache_storage_per_hour: o(self.cache_storage_per_hour),
            long_context: self
                .long_context
                .iter()
                .map(|l| LongContext {
                    threshold_tokens: l.threshold_tokens,
                    input: c(l.input),
                    output: c(l.output),
                    cache_write_5m: o(l.cache_write_5m),
                    cache_write_1h: o(l.cache_write_1h),
                    cache_read: o(l.cache_read),
                })
                .collect(),
            services: self
                .services
                .iter()
                .map(|(k, s)| {
                    let s = match s {
                        Service::Multiplier(m) => Service::Multiplier(*m),
                        Service::Prices(p) => Service::Prices(ServicePrices {
                            input: c(p.input),
                            output: c(p.output),
                            cache_write_5m: o(p.cache_write_5m),
                            cache_write_1h: o(p.cache_write_1h),
                            cache_read: o(p.cache_read),
                        }),
                    };
                    (k.clone(), s)
                })
                .collect(),
            ..self.clone()
        }
    }

    /// What one request cost as the provider reported its usage: the
    /// long-context tier chosen from its whole prompt, 5-minute and 1-hour
    /// writes each at their own price. `Err` names the prices it needs and
    /// the book lacks (never a silent zero).
    pub fn cost_of(&self, u: &Usage) -> Result<Decimal, String> {
        let missing = |m: MissingPrices| m.0.join(", ");
        let base = self.rates(Cache::None, Mode::Sync).map_err(missing)?;
        let t = base.tier_of(Decimal::from(u.prompt()));
        let c = base.at(t);
        let mut cost = Decimal::from(u.input) * c.input + Decimal::from(u.output) * c.output;
        for (tokens, tier) in [
            (u.cache_write_5m, Cache::FiveMinutes),
            (u.cache_write_1h, Cache::OneHour),
        ] {
            if tokens > 0 {
                let r = self.rates(tier, Mode::Sync).map_err(missing)?;
                cost += Decimal::from(tokens) * r.at(t).cache_write;
            }
        }
        if u.cache_read > 0 {
            let read = self.cache_read.ok_or_else(|| "cache_read".to_string())?;
            let tier_read = match t.checked_sub(1).and_then(|i| self.long_context.get(i)) {
                Some(l) => l.cache_read.unwrap_or(if self.input.is_zero() {
                    read
                } else {
                    read * l.input / self.input
                }),
                None => read,
            };
            cost += Decimal::from(u.cache_read) * tier_read;
        }
        Ok((cost / PER_MILLION).normalize())
    }

    /// The uncached input of a request as the provider reported it: when the
    /// provider's input count includes cached tokens, the cache reads and
    /// writes are taken out. `None` when the report is inconsistent (fewer
    /// input tokens than cached ones).
    pub fn uncached_input(
        &self,
        reported_input: u64,
        cache_read: u64,
        cache_write: u64,
    ) -> Option<u64> {
        if self.input_includes_cache {
            reported_input
                .checked_sub(cache_read)?
                .checked_sub(cache_write)
        } else {
            Some(reported_input)
        }
    }
}

/// The write price of the tier `cache` uses: none when uncached.
fn pick(cache: Cache, w5: Option<Decimal>, w1: Option<Decimal>) -> Option<Option<Decimal>> {
    match cache {
        Cache::None => None,
        Cache::FiveMinutes => Some(w5),
        Cache::OneHour => Some(w1),
    }
}

/// The prices a request needs that the entry does not give.
struct Missing(Vec<String>);

impl Missing {
    /// `v`, or zero with `name` noted as missing.
    fn need(&mut self, v: Option<Decimal>, name: &str) -> Decimal {
        if v.is_none() {
            self.0.push(name.to_string());
        }
        v.unwrap_or_default()
    }
}
