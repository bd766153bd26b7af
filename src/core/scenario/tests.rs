//! Unit tests of scenario checking and changing: small scenarios written
//! here, their files given in memory.

use super::change::{ChangeError, Param, Value};
use super::*;
use crate::engine::{simulate, SimulateOptions};
use jiff::civil::date;

/// Prices: m has every tier; plain has no cache prices; dated changes on 2026-06-01.
const BOOK: &str = r#"
[models.m]
source = "test"
read_on = "2026-11-30"
input = "2"
output = "10"
cache_write_5m = "2.5"
cache_write_1h = "4"
cache_read = "0.2"

[models.plain]
source = "test"
read_on = "2026-11-30"
input = "1"
output = "5"

[[models.dated]]
source = "test"
read_on = "2026-11-30"
input = "3"
output = "15"

[[models.dated]]
source = "test"
read_on = "2026-11-30"
effective_from = "2026-06-01"
input = "4"
output = "20"
"#;

/// Two results of 4,000 and 8,000 bytes (1,000 and 2,000 tokens at b = 4).
const TRACE: &str =
    "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed
1,web/search,200,1,4000,1000,1000,0,false
2,web/fetch,200,1,8000,2000,1000,0,false
";

/// Two results of 10 GB, the most one result may have.
const HUGE: &str =
    "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed
1,web/search,200,1,10000000000,10000000000,1000,0,false
2,web/fetch,200,1,10000000000,10000000000,1000,0,false
";

fn scenario_text(model: &str, extra: &str) -> String {
    format!(
        r#"name = "t"
question = "?"
model = "{model}"
prices = "book.toml"

[trace]
file = "trace.csv"

[assumptions]
prefix_tokens = 100
output_tokens_per_step = 10
final_output_tokens = 20
bytes_per_token = 4
tokenizer_uplift = 1.5
runs_per_day = 2

[[variants]]
results = "raw"
cache = "none"
{extra}"#
    )
}

fn files(trace: &str) -> InMemory {
    let text = |name: &str, t: &str| SourceText {
        name: name.into(),
        text: t.into(),
    };
    InMemory(
        [
            ("book.toml".to_string(), text("book.toml", BOOK)),
            ("trace.csv".to_string(), text("trace.csv", trace)),
            ("huge.csv".to_string(), text("huge.csv", HUGE)),
        ]
        .into(),
    )
}

fn check(text: &str, today: Option<jiff::civil::Date>) -> Result<Scenario, InputError> {
    let src = SourceText {
        name: "t.toml".into(),
        text: text.into(),
    };
    Scenario::check(&src, &files(TRACE), today)
}

#[test]
fn a_checked_scenario_holds_what_it_was_given() {
    let s = check(&scenario_text("m", ""), None).unwrap();
    assert_eq!(s.name(), "t");
    assert_eq!(s.trace().len(), 2);
    assert_eq!(s.assumptions().prefix_tokens, 100);
    assert_eq!(s.variants().len(), 1);
    assert_eq!(s.variants()[0].rates.input, Decimal::from(2));
    // The scenario, its book and its trace, each named and hashed.
    let names: Vec<&str> = s.inputs().iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["t.toml", "book.toml", "trace.csv"]);
    assert!(s.price_date().is_none(), "an undated book needs no date");
}

#[test]
fn a_model_missing_from_the_book_is_named_with_the_closest() {
    let e = check(&scenario_text("plian", ""), None).unwrap_err();
    assert!(
        e.message()
            .contains("model `plian` is not in the price book"),
        "{}",
        e.message()
    );
    assert!(
        e.help_text().unwrap().contains("did you mean `plain`?"),
        "{:?}",
        e.help_text()
    );
    // Nothing close: the book's models are listed.
    let e = check(&scenario_text("n", ""), None).unwrap_err();
    assert!(
        e.help_text().unwrap().contains("dated, m, plain"),
        "{:?}",
        e.help_text()
    );
}

#[test]
fn dated_prices_need_a_date_and_today_gives_one() {
    let e = check(&scenario_text("dated", ""), None).unwrap_err();
    assert!(e.message().contains("has dated prices"), "{}", e.message());
    let before = check(&scenario_text("dated", ""), Some(date(2026, 5, 31))).unwrap();
    assert_eq!(before.prices().input, Decimal::from(3));
    let after = check(&scenario_text("dated", ""), Some(date(2026, 6, 1))).unwrap();
    assert_eq!(after.prices().input, Decimal::from(4));
    let d = after.price_date().as_ref().unwrap();
    assert_eq!((d.date, d.from.as_str()), (date(2026, 6, 1), "today"));
}

#[test]
fn the_scenario_date_wins_over_today() {
    let text = scenario_text("dated", "").replacen(
        "prices = \"book.toml\"",
        "prices = \"book.toml\"\ndate = \"2026-01-15\"",
        1,
    );
    let s = check(&text, Some(date(2026, 12, 1))).unwrap();
    assert_eq!(s.prices().input, Decimal::from(3));
    assert_eq!(s.price_date().as_ref().unwrap().from, "scenario");
}

#[test]
fn a_trace_without_a_successful_result_is_refused() {
    let src = SourceText {
        name: "t.toml".into(),
        text: scenario_text("m", ""),
    };
    let only_errors =
        "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed
1,web/search,500,0,,,1000,0,false
";
    let e = Scenario::check(&src, &files(only_errors), None).unwrap_err();
    assert!(
        e.message()
            .contains("no call in the trace returned a successful"),
        "{}",
        e.message()
    );
}

#[test]
fn a_missing_file_is_an_error_at_its_path() {
    let src = SourceText {
        name: "t.toml".into(),
        text: scenario_text("m", ""),
    };
    let e = Scenario::check(&src, &InMemory::default(), None).unwrap_err();
    assert!(
        e.message().contains("`book.toml` was not given"),
        "{}",
        e.message()
    );
}

#[test]
fn a_change_is_checked_again() {
    let s = check(&scenario_text("m", ""), None).unwrap();
    // Out of the parameter's range.
    let e = s
        .with(
            Param::PrefixTokens,
            Value::Number(Decimal::from(crate::limits::MAX_TOKENS + 1)),
        )
        .unwrap_err();
    assert!(matches!(e, ChangeError::OutOfRange(_)), "{e}");
    // A number where a tier is wanted, and the reverse.
    assert!(s.with(Param::Cache, Value::Number(Decimal::ONE)).is_err());
    assert!(s
        .with(Param::PrefixTokens, Value::Cache(Cache::OneHour))
        .is_err());
    // A tier the model has no prices for.
    let plain = check(&scenario_text("plain", ""), None).unwrap();
    let e = plain
        .with(Param::Cache, Value::Cache(Cache::FiveMinutes))
        .unwrap_err();
    assert!(matches!(e, ChangeError::MissingPrices { .. }), "{e}");
    // A replay beyond exact decimals. 100,000 results of 10 GB, estimated as
    // `limits::replay_fits` does (N + 1 requests × the last numerator × the
    // dearest rate): about 1.5 × 10²² at b = 4, within the 10²⁵ limit, and
    // 1.5 × 10²⁸ at b = 0.000001 (a million times the numerator).
    let src = SourceText {
        name: "t.toml".into(),
        text: scenario_text("m", "").replace("trace.csv", "huge.csv"),
    };
    let huge = Scenario::check(&src, &files(TRACE), None).unwrap();
    let many = huge
        .with(Param::Calls, Value::Number(Decimal::from(100_000)))
        .unwrap();
    let e = many
        .with(Param::BytesPerToken, Value::Number(Decimal::new(1, 6)))
        .unwrap_err();
    assert!(matches!(e, ChangeError::TooLarge(_)), "{e}");
}

#[test]
fn a_change_replays_as_the_changed_value_says() {
    let s = check(&scenario_text("m", ""), None).unwrap();
    // No cache: input is Σ over the three requests of P + (k−1)·o + results:
    // 100; 100 + 10 + 1,000; 100 + 20 + 3,000 → 4,330 tokens at b = 4.
    let sim = simulate(&s, SimulateOptions::TOTALS);
    assert_eq!(sim.context[0].input_tokens.lower, Decimal::from(4_330));
    // Three calls repeat the first results: 1,000; 2,000; 1,000 tokens.
    // 100; 1,110; 3,120; 4,130 → 8,460.
    let three = s
        .with(Param::Calls, Value::Number(Decimal::from(3)))
        .unwrap();
    assert_eq!(three.trace().len(), 3);
    let sim = simulate(&three, SimulateOptions::TOTALS);
    assert_eq!(sim.context[0].input_tokens.lower, Decimal::from(8_460));
    // Half the raw bytes kept when trimmed.
    let half = s
        .with(Param::TrimRatio, Value::Number(Decimal::new(5, 1)))
        .unwrap();
    let trimmed: Vec<Option<u64>> = half.trace().iter().map(|c| c.trimmed_bytes).collect();
    assert_eq!(trimmed, [Some(2000), Some(4000)]);
    // The original is untouched.
    assert_eq!(s.trace()[0].trimmed_bytes, Some(1000));
}

#[test]
fn keeping_no_variant_is_refused() {
    let s = check(&scenario_text("m", ""), None).unwrap();
    assert!(s.with_only(|_| false).is_err());
    assert_eq!(s.with_only(|_| true).unwrap().variants().len(), 1);
}

/// Files that give `trace.csv` in blocks as well as whole.
struct InBlocks(InMemory);

/// `trace.csv`'s text, one block.
struct OneBlock(Option<Vec<u8>>, u64);

impl Blocks for OneBlock {
    fn name(&self) -> &str {
        "trace.csv"
    }
    fn size(&self) -> u64 {
        self.1
    }
    fn read_into(&mut self, buf: &mut Vec<u8>, _max: usize) -> std::io::Result<usize> {
        let text = self.0.take().unwrap_or_default();
        buf.extend_from_slice(&text);
        Ok(text.len())
    }
}

impl Files for InBlocks {
    fn read(&self, rel: &str, what: &str) -> Result<SourceText, InputError> {
        self.0.read(rel, what)
    }
    fn blocks(&self, rel: &str, _what: &str) -> Option<Box<dyn Blocks + '_>> {
        let text = self.0 .0.get(rel)?.text.clone().into_bytes();
        let size = text.len() as u64;
        Some(Box::new(OneBlock(Some(text), size)))
    }
}

#[test]
fn a_file_given_in_blocks_is_recorded_once_and_only_when_its_text_would_not_be_kept() {
    let trace = "call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed\n1,t/x,200,1,4000,1000,5,0,false\n";
    let inner = InBlocks(files(trace));
    // Within the limit: not given in blocks (read whole, its text kept).
    let roomy = Recorded::new(&inner, usize::MAX);
    assert!(roomy.blocks("trace.csv", "trace file").is_none());
    // Past it: given in blocks and recorded without its text; read whole
    // after that (the block reader gave up), it counts once.
    let tight = Recorded::new(&inner, 10);
    assert!(tight.blocks("trace.csv", "trace file").is_some());
    assert_eq!(tight.name_of("trace file").as_deref(), Some("trace.csv"));
    assert_eq!(tight.text_of("trace file"), None);
    tight.read("trace.csv", "trace file").unwrap();
    tight.read("book.toml", "price book").unwrap();
    assert_eq!(tight.into_texts(), Err(trace.len() + BOOK.len()));
}

#[test]
fn a_trace_given_in_blocks_checks_as_the_trace_read_whole() {
    let src = SourceText {
        name: "t.toml".into(),
        text: scenario_text("m", ""),
    };
    let whole = Scenario::check(&src, &files(TRACE), None).unwrap();
    let in_blocks = Scenario::check(&src, &InBlocks(files(TRACE)), None).unwrap();
    assert_eq!(in_blocks.trace(), whole.trace());
    assert_eq!(in_blocks.inputs(), whole.inputs());
    // A trace the block reader is not sure of (a blank line) is read
    // whole: the same rows.
    let blank = TRACE.replacen('\n', "\n\n", 2).replacen("\n\n", "\n", 1);
    assert_ne!(blank, TRACE);
    let whole = Scenario::check(&src, &files(&blank), None).unwrap();
    let in_blocks = Scenario::check(&src, &InBlocks(files(&blank)), None).unwrap();
    assert_eq!(in_blocks.trace(), whole.trace());
    assert_eq!(in_blocks.inputs(), whole.inputs());
}
