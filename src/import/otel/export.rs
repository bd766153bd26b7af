//! Streaming an OTLP/JSON export: serde visitors walk the resources, the
//! scopes and the spans (or log records) and hand each resource's items over
//! as a batch. Items are converted (their text dropped) on the pool a few
//! hundred at a time while the next are read, so neither a line nor a
//! whole-file document is ever held as a tree.

use super::{claude_code_event, convert, Batch, LogRecord, Resource, Seen, Span};
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::sync::atomic::AtomicUsize;
use std::sync::Mutex;

/// Reads one export (`{"resourceSpans": [...]}`, `{"resourceLogs": [...]}`)
/// as a stream: the spans or records are converted a batch at a time as
/// they are read (see [`State`]) and their text dropped, so neither a line
/// nor a whole-file document is ever held as a tree.
pub(super) struct Export<'a>(pub(super) &'a mut Vec<Batch>);

/// What one resource list is read into: the batches (one a resource), and
/// the items read and not yet converted. Items are read on this thread and
/// converted on the others of the pool (a tool result's text counted in
/// o200k_base tokens is most of an export's time), [`ITEMS_AT_ONCE`] of
/// them or [`HELD_AT_ONCE`] bytes of their text a batch; with as many
/// batches waiting as the pool has threads, this thread converts the next
/// one itself, so the text held stays bounded. What the batches became is
/// put back in order, each item in its resource's batch.
struct State<'a, 's, S: Signal> {
    batches: &'a mut Vec<Batch>,
    scope: &'a rayon::Scope<'s>,
    /// Items read, each with the index of its resource's batch.
    pending: Vec<(usize, S::Item)>,
    held: usize,
    /// Batches handed over so far.
    handed: usize,
    /// What each converted batch became, by its number.
    done: &'s Mutex<Vec<(usize, Converted)>>,
    in_flight: &'s AtomicUsize,
    /// Batches waiting to be converted, at most.
    waiting: usize,
}

/// What a batch of items became: each with its resource's index.
type Converted = Vec<(usize, Seen)>;

/// Items read before they are converted together.
const ITEMS_AT_ONCE: usize = 256;

/// Bytes of item text held before the items are converted together.
const HELD_AT_ONCE: usize = 8 << 20;

impl<S: Signal> State<'_, '_, S> {
    /// Takes an item of the resource being read.
    fn add(&mut self, item: S::Item) {
        self.held += S::held(&item);
        self.pending.push((self.batches.len(), item));
        if self.pending.len() == ITEMS_AT_ONCE || self.held >= HELD_AT_ONCE {
            self.hand_over(false);
        }
    }

    /// Hands the items read so far over to be converted; `last`: no more
    /// will come (a list of one batch is converted here: handing it over
    /// would only wait for it).
    fn hand_over(&mut self, last: bool) {
        use std::sync::atomic::Ordering::{AcqRel, Acquire};
        let items = std::mem::take(&mut self.pending);
        let batch = self.handed;
        (self.held, self.handed) = (0, self.handed + 1);
        if items.is_empty() {
            return;
        }
        let (done, in_flight) = (self.done, self.in_flight);
        if (last && batch == 0) || in_flight.load(Acquire) >= self.waiting {
            let converted = converted::<S>(items);
            lock(done).push((batch, converted));
            return;
        }
        in_flight.fetch_add(1, AcqRel);
        self.scope.spawn(move |_| {
            let converted = converted::<S>(items);
            lock(done).push((batch, converted));
            in_flight.fetch_sub(1, AcqRel);
        });
    }
}

/// What `items` became, in their order.
fn converted<S: Signal>(items: Vec<(usize, S::Item)>) -> Converted {
    items
        .into_iter()
        .filter_map(|(resource, item)| Some((resource, S::seen(item)?)))
        .collect()
}

/// The converted batches (a panic in a conversion is the scope's to
/// report, not this lock's).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Reads a resource list of signal `S` from `map` into `batches`.
fn resources<'de, S: Signal, A: MapAccess<'de>>(
    map: &mut A,
    batches: &mut Vec<Batch>,
) -> Result<(), A::Error> {
    let done = Mutex::new(Vec::new());
    let in_flight = AtomicUsize::new(0);
    rayon::in_place_scope(|scope| {
        let mut state = State::<S> {
            batches: &mut *batches,
            scope,
            pending: Vec::new(),
            held: 0,
            handed: 0,
            done: &done,
            in_flight: &in_flight,
            waiting: rayon::current_num_threads(),
        };
        let read = map.next_value_seed(EachResource(&mut state));
        // A list that does not read adds nothing: what is left is dropped.
        if read.is_ok() {
            state.hand_over(true);
        }
        read
    })?;
    let mut done = done
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    done.sort_unstable_by_key(|(batch, _)| *batch);
    for (resource, seen) in done.into_iter().flat_map(|(_, c)| c) {
        if let Some((_, into)) = batches.get_mut(resource) {
            into.push(seen);
        }
    }
    Ok(())
}

/// What is read of one signal: spans (GenAI) or log records (Claude Code's
/// events). The resource and scope levels around them are the same.
trait Signal: 'static {
    /// The keys of the resource list in an export, of the scope list in a
    /// resource, and of the item list in a scope.
    const KEYS: [&'static str; 3];
    /// What an item is called in messages.
    const ITEMS: &'static str;
    /// One item as read.
    type Item: serde::de::DeserializeOwned + Send + 'static;
    /// What the item became (its text dropped), or `None` to leave it out.
    fn seen(item: Self::Item) -> Option<Seen>;
    /// Bytes of text the item holds until it is converted.
    fn held(item: &Self::Item) -> usize;
}

/// Bytes of text the attributes hold.
fn held_by(attributes: &[super::KeyValue]) -> usize {
    attributes
        .iter()
        .map(|a| a.key.len() + a.value.string_value.as_ref().map_or(0, String::len))
        .sum()
}

/// GenAI spans.
struct Spans;

impl Signal for Spans {
    const KEYS: [&'static str; 3] = ["resourceSpans", "scopeSpans", "spans"];
    const ITEMS: &'static str = "spans";
    type Item = Span;
    fn seen(span: Span) -> Option<Seen> {
        Some(convert(span))
    }
    fn held(span: &Span) -> usize {
        span.trace_id.len() + span.span_id.len() + held_by(&span.attributes)
    }
}

/// Claude Code's events.
struct Logs;

impl Signal for Logs {
    const KEYS: [&'static str; 3] = ["resourceLogs", "scopeLogs", "logRecords"];
    const ITEMS: &'static str = "log records";
    type Item = LogRecord;
    fn seen(record: LogRecord) -> Option<Seen> {
        claude_code_event(record)
    }
    fn held(record: &LogRecord) -> usize {
        record.body.string_value.as_ref().map_or(0, String::len) + held_by(&record.attributes)
    }
}

/// A resource list, one entry at a time.
struct EachResource<'x, 'a, 's, S: Signal>(&'x mut State<'a, 's, S>);

/// One resource: its service name and its items.
struct OneResource<'x, 'a, 's, S: Signal>(&'x mut State<'a, 's, S>);

/// A scope list.
struct EachScope<'x, 'a, 's, S: Signal>(&'x mut State<'a, 's, S>);

/// One scope.
struct OneScope<'x, 'a, 's, S: Signal>(&'x mut State<'a, 's, S>);

/// An item list: each item taken as it is read.
struct EachItem<'x, 'a, 's, S: Signal>(&'x mut State<'a, 's, S>);

macro_rules! seed_of {
    ($($t:ident => $method:ident),*) => {$(
        impl<'de, S: Signal> DeserializeSeed<'de> for $t<'_, '_, '_, S> {
            type Value = ();
            fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
                d.$method(self)
            }
        }
    )*};
}
seed_of!(EachResource => deserialize_seq, OneResource => deserialize_map,
    EachScope => deserialize_seq, OneScope => deserialize_map, EachItem => deserialize_seq);

impl<'de> DeserializeSeed<'de> for Export<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Export<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an OTLP/JSON export")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                k if k == Spans::KEYS[0] => resources::<Spans, A>(&mut map, self.0)?,
                k if k == Logs::KEYS[0] => resources::<Logs, A>(&mut map, self.0)?,
                _ => drop(map.next_value::<IgnoredAny>()?),
            }
        }
        Ok(())
    }
}

impl<'de, S: Signal> Visitor<'de> for EachResource<'_, '_, '_, S> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a list of resource {}", S::ITEMS)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(OneResource(&mut *self.0))?.is_some() {}
        Ok(())
    }
}

impl<'de, S: Signal> Visitor<'de> for OneResource<'_, '_, '_, S> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "resource {}", S::ITEMS)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut service = String::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "resource" => {
                    let r: Option<Resource> = map.next_value()?;
                    service = r
                        .and_then(|r| r.attributes.into_iter().find(|a| a.key == "service.name"))
                        .and_then(|a| a.value.string_value)
                        .unwrap_or_default();
                }
                k if k == S::KEYS[1] => map.next_value_seed(EachScope(&mut *self.0))?,
                _ => drop(map.next_value::<IgnoredAny>()?),
            }
        }
        // The resource may come after its items: the batch is named at its
        // end (its items, taken with this batch's index, are converted and
        // put into it when the list has been read).
        self.0.batches.push((service, Vec::new()));
        Ok(())
    }
}

impl<'de, S: Signal> Visitor<'de> for EachScope<'_, '_, '_, S> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a list of scope {}", S::ITEMS)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(OneScope(&mut *self.0))?.is_some() {}
        Ok(())
    }
}

impl<'de, S: Signal> Visitor<'de> for OneScope<'_, '_, '_, S> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "scope {}", S::ITEMS)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                k if k == S::KEYS[2] => map.next_value_seed(EachItem(&mut *self.0))?,
                _ => drop(map.next_value::<IgnoredAny>()?),
            }
        }
        Ok(())
    }
}

impl<'de, S: Signal> Visitor<'de> for EachItem<'_, '_, '_, S> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a list of {}", S::ITEMS)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(item) = seq.next_element::<S::Item>()? {
            self.0.add(item);
        }
        Ok(())
    }
}
