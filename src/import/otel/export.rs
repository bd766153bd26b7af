//! Streaming an OTLP/JSON export: serde visitors walk the resources, the
//! scopes and the spans (or log records) and hand each resource's items over
//! as a batch, each item converted as soon as it is read, so neither a line
//! nor a whole-file document is ever held as a tree.

use super::{claude_code_event, convert, Batch, LogRecord, Resource, Seen, Span};
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::marker::PhantomData;

/// Reads one export (`{"resourceSpans": [...]}`, `{"resourceLogs": [...]}`)
/// as a stream: each span or record is converted as soon as it is read and
/// its text dropped, so neither a line nor a whole-file document is ever
/// held as a tree.
pub(super) struct Export<'a>(pub(super) &'a mut Vec<Batch>);

/// What is read of one signal: spans (GenAI) or log records (Claude Code's
/// events). The resource and scope levels around them are the same.
trait Signal {
    /// The keys of the resource list in an export, of the scope list in a
    /// resource, and of the item list in a scope.
    const KEYS: [&'static str; 3];
    /// What an item is called in messages.
    const ITEMS: &'static str;
    /// One item as read.
    type Item: serde::de::DeserializeOwned;
    /// What the item became (its text dropped), or `None` to leave it out.
    fn seen(item: Self::Item) -> Option<Seen>;
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
}

/// A resource list, one entry at a time.
struct EachResource<'a, S>(&'a mut Vec<Batch>, PhantomData<S>);

/// One resource: its service name and its items.
struct OneResource<'a, S>(&'a mut Vec<Batch>, PhantomData<S>);

/// A scope list.
struct EachScope<'a, S>(&'a mut Vec<Seen>, PhantomData<S>);

/// One scope.
struct OneScope<'a, S>(&'a mut Vec<Seen>, PhantomData<S>);

/// An item list: each item converted as it is read.
struct EachItem<'a, S>(&'a mut Vec<Seen>, PhantomData<S>);

macro_rules! seed_of {
    ($($t:ident => $method:ident),*) => {$(
        impl<'de, S: Signal> DeserializeSeed<'de> for $t<'_, S> {
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
                k if k == Spans::KEYS[0] => {
                    map.next_value_seed(EachResource::<Spans>(&mut *self.0, PhantomData))?;
                }
                k if k == Logs::KEYS[0] => {
                    map.next_value_seed(EachResource::<Logs>(&mut *self.0, PhantomData))?;
                }
                _ => drop(map.next_value::<IgnoredAny>()?),
            }
        }
        Ok(())
    }
}

impl<'de, S: Signal> Visitor<'de> for EachResource<'_, S> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a list of resource {}", S::ITEMS)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(OneResource::<S>(&mut *self.0, PhantomData))?
            .is_some()
        {}
        Ok(())
    }
}

impl<'de, S: Signal> Visitor<'de> for OneResource<'_, S> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "resource {}", S::ITEMS)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut service = String::new();
        let mut seen = Vec::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "resource" => {
                    let r: Option<Resource> = map.next_value()?;
                    service = r
                        .and_then(|r| r.attributes.into_iter().find(|a| a.key == "service.name"))
                        .and_then(|a| a.value.string_value)
                        .unwrap_or_default();
                }
                k if k == S::KEYS[1] => {
                    map.next_value_seed(EachScope::<S>(&mut seen, PhantomData))?;
                }
                _ => drop(map.next_value::<IgnoredAny>()?),
            }
        }
        // The resource may come after its items: the batch is named at its end.
        self.0.push((service, seen));
        Ok(())
    }
}

impl<'de, S: Signal> Visitor<'de> for EachScope<'_, S> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a list of scope {}", S::ITEMS)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(OneScope::<S>(&mut *self.0, PhantomData))?
            .is_some()
        {}
        Ok(())
    }
}

impl<'de, S: Signal> Visitor<'de> for OneScope<'_, S> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "scope {}", S::ITEMS)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                k if k == S::KEYS[2] => {
                    map.next_value_seed(EachItem::<S>(&mut *self.0, PhantomData))?;
                }
                _ => drop(map.next_value::<IgnoredAny>()?),
            }
        }
        Ok(())
    }
}

impl<'de, S: Signal> Visitor<'de> for EachItem<'_, S> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a list of {}", S::ITEMS)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(item) = seq.next_element::<S::Item>()? {
            if let Some(seen) = S::seen(item) {
                self.0.push(seen);
            }
        }
        Ok(())
    }
}
