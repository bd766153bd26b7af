//! The HTML report: one self-contained page rendered with tera.
//!
//! The page is built from private view structs whose numbers are already
//! formatted in Rust, so the template holds only loops and ifs. The template
//! is compiled into the binary; its name ends in `.html`, so tera escapes
//! every value (user labels included) except the SVG charts, which plotters
//! has already escaped.

pub mod charts;
pub mod controls;

use crate::output::HTML_GENERATOR;
use crate::report::Fmt;
use crate::scenario::InputFile;
use serde::Serialize;
pub(crate) use tokencast_core::view::page::{view, Block, ChartView, Fact, Headline};

const BASE: &str = include_str!("../../../templates/base.html");
const REPORT: &str = include_str!("../../../templates/report.html");
/// The live page's script: runs the engine on the reader's changes.
const LIVE_JS: &str = include_str!("../../../templates/live.js");

/// The page's engine (`src/web` for wasm32, gzipped, base64), written by
/// build.rs; empty when it could not be built.
const ENGINE: &str = include_str!(concat!(env!("OUT_DIR"), "/engine.wasm.gz.b64"));

/// Why pages have no engine, when they have none.
pub(crate) const NO_ENGINE: Option<&str> = if cfg!(no_web_engine) {
    Some("the tokencast that made it was built without the page's engine (the wasm32-wasip1 target was missing)")
} else {
    None
};

/// What a live page carries: its engine, the request the engine answers
/// unchanged, and the controls.
#[derive(Serialize)]
pub(crate) struct LiveView {
    pub(crate) engine: &'static str,
    pub(crate) script: &'static str,
    /// The request as JSON, safe inside a `<script>` element: not handed
    /// to the template (which would copy its megabytes twice) but set into
    /// the rendered page's empty request element ([`render_template`]).
    #[serde(skip)]
    pub(crate) request: String,
    pub(crate) version: &'static str,
    pub(crate) groups: Vec<ControlGroup>,
    /// What the page carries for its engine, in words.
    pub(crate) carries: &'static str,
    /// What the download button saves, and its file name.
    pub(crate) download: &'static str,
    pub(crate) file: String,
}

/// Controls under one heading (the run's assumptions, one variant).
#[derive(Serialize, Debug, Clone)]
pub struct ControlGroup {
    pub title: String,
    pub controls: Vec<Control>,
}

/// One control: the scenario key it sets and its value in the scenario.
#[derive(Serialize, Debug, Clone)]
pub struct Control {
    /// The dotted scenario key (`assumptions.runs_per_day`, `variants.2.cache`).
    pub param: String,
    pub label: String,
    pub value: String,
    /// The choices of a select; empty for a number.
    pub options: Vec<String>,
    /// A number's step (`1` for whole numbers, `any` for decimals), or
    /// `text` for a text field.
    pub step: &'static str,
}

impl LiveView {
    /// The live parts of a page for `request`, or `None` when this build
    /// has no engine.
    pub(crate) fn of(
        request: &tokencast_web::Request,
        groups: Vec<ControlGroup>,
    ) -> Option<LiveView> {
        if ENGINE.is_empty() {
            return None;
        }
        let json = script_safe(request);
        let (carries, download, file) = match (&request.import, &request.corpus) {
            (Some(_), _) => (
                "every replayed thread's scenario and trace, and the price book",
                "Download the command of this what-if (shell)",
                "import-what-if.sh".to_string(),
            ),
            (None, Some(_)) => (
                "the recorded sessions' costs (per variant, as the forecast read them)",
                "Download the command of this what-if (shell)",
                "forecast-what-if.sh".to_string(),
            ),
            (None, None) => (
                "the scenario, price book and trace",
                "Download the changed scenario (TOML)",
                format!(
                    "{}-what-if.toml",
                    request.name.strip_suffix(".toml").unwrap_or(&request.name)
                ),
            ),
        };
        Some(LiveView {
            engine: ENGINE,
            script: LIVE_JS,
            request: json,
            version: tokencast_web::VERSION,
            groups,
            carries,
            download,
            file,
        })
    }
}

/// `value` as JSON that cannot end or open anything inside a `<script>`
/// element: `<`, `>` and `&` only occur in its strings, where they are
/// written `\u003c`, `\u003e` and `\u0026` (the same characters), as the
/// strings are written (one pass over a page's megabytes of inputs).
fn script_safe<T: serde::Serialize>(value: &T) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, ScriptSafe);
    value
        .serialize(&mut ser)
        .expect("a request always serializes");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// serde_json's compact formatting, with `<`, `>` and `&` escaped in strings.
struct ScriptSafe;

impl serde_json::ser::Formatter for ScriptSafe {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment.as_bytes();
        while let Some(i) = memchr::memchr3(b'<', b'>', b'&', rest) {
            writer.write_all(&rest[..i])?;
            writer.write_all(match rest[i] {
                b'<' => b"\\u003c",
                b'>' => b"\\u003e",
                _ => b"\\u0026",
            })?;
            rest = &rest[i + 1..];
        }
        writer.write_all(rest)
    }
}

/// A page's live parts from its options: the engine and controls, or why
/// it is a still picture.
pub(crate) fn live_parts(opts: &crate::report::HtmlOptions) -> (Option<LiveView>, Option<String>) {
    let live = opts
        .live
        .as_ref()
        .and_then(|l| LiveView::of(&l.request, l.controls.clone()));
    let missing = match (&opts.live, &live) {
        (_, Some(_)) => None,
        (None, None) => opts.still.clone(),
        (Some(_), None) => NO_ENGINE.map(str::to_string),
    };
    (live, missing)
}

/// The page's blocks with each chart slot filled with the charts `draw`
/// makes for it, on both canvases; the slot's heading and note go to the
/// first chart.
pub(crate) fn with_slots(
    fmt: &Fmt,
    blocks: Vec<Block>,
    draw: impl Fn(&Fmt, tokencast_core::view::page::ChartSlot) -> Vec<charts::Chart>,
) -> Vec<Block> {
    let mut out = Vec::with_capacity(blocks.len() + 8);
    for b in blocks {
        let Some(slot) = b.slot else {
            out.push(b);
            continue;
        };
        for (i, c) in charts::views(fmt, |f| draw(f, slot))
            .into_iter()
            .enumerate()
        {
            let mut chart = view_block(c);
            if i == 0 {
                chart.heading = b.heading.clone();
                chart.note = b.note.clone();
            }
            out.push(chart);
        }
    }
    out
}

#[derive(Serialize)]
pub(crate) struct Page {
    pub(crate) live: Option<LiveView>,
    pub(crate) live_missing: Option<String>,
    pub(crate) generator: &'static str,
    pub(crate) title: String,
    pub(crate) question: String,
    pub(crate) model: String,
    pub(crate) facts: Vec<Fact>,
    pub(crate) headline: Option<Headline>,
    pub(crate) blocks: Vec<Block>,
    pub(crate) price_source: String,
    pub(crate) price_read_on: String,
    pub(crate) version: String,
    pub(crate) fingerprint: String,
    pub(crate) fingerprint_short: String,
    pub(crate) inputs: Vec<Fact>,
    pub(crate) timestamp: Option<String>,
}

/// The block of the chart `draw` makes, drawn on both canvases.
pub(crate) fn chart_block(fmt: &Fmt, draw: impl Fn(&Fmt) -> charts::Chart) -> Block {
    Block {
        chart: charts::views(fmt, |f| vec![draw(f)]).pop(),
        ..Block::default()
    }
}

/// The block of a chart already made into a page's view.
pub(crate) fn view_block(view: ChartView) -> Block {
    Block {
        chart: Some(view),
        ..Block::default()
    }
}

/// Prose for a page: the text escaped, each `code span` set as `<code>`
/// (the terminal keeps the backticks; a page never shows them). The live
/// page's script does the same (`prose` in live.js).
pub(crate) fn prose(text: &str) -> String {
    let mut buf = Vec::with_capacity(text.len());
    // Writing into memory cannot fail.
    let _ = tera::escape_html(text, &mut buf);
    let escaped = String::from_utf8_lossy(&buf);
    let parts: Vec<&str> = escaped.split('`').collect();
    let mut out = String::with_capacity(escaped.len());
    for (i, part) in parts.iter().enumerate() {
        // An odd part sits between two backticks; after the last pair, a
        // lone backtick stays as it is.
        let paired = i + 1 < parts.len();
        match (i % 2 == 1, paired) {
            (true, true) => {
                out.push_str("<code>");
                out.push_str(part);
                out.push_str("</code>");
            }
            (true, false) => {
                out.push('`');
                out.push_str(part);
            }
            _ => out.push_str(part),
        }
    }
    out
}

/// Renders one of the compiled-in templates (names end in `.html`, so
/// values are escaped). A live page's request is set into the rendered
/// page afterwards, into its element written empty: a page's other text cannot hold this (every
/// value is escaped, `<` included; the charts and the script are ours).
pub(crate) fn render_template(
    name: &str,
    page: &(impl Serialize + LivePage),
) -> Result<Vec<u8>, tera::Error> {
    let mut tera = tera::Tera::new();
    tera.register_filter("prose", |x: &str, _: tera::Kwargs, _: &tera::State| {
        prose(x)
    });
    tera.add_raw_templates([("base.html", BASE), ("report.html", REPORT)])?;
    let mut context = tera::Context::from_serialize(page)?;
    context.insert("rounding", crate::report::format::ROUNDING_RULE);
    let html = tera.render(name, &context)?;
    match page.live() {
        Some(live) => with_request(html, &live.request),
        None => Ok(html.into_bytes()),
    }
}

/// The request element as the template writes it, empty.
const REQUEST_ELEMENT: &str = r#"<script type="application/json" id="tc-request"></script>"#;

/// `html` with `request` set into its one empty request element.
fn with_request(html: String, request: &str) -> Result<Vec<u8>, tera::Error> {
    let at = match (html.find(REQUEST_ELEMENT), html.rfind(REQUEST_ELEMENT)) {
        // Inside the element: before its closing tag.
        (Some(first), Some(last)) if first == last => {
            first + REQUEST_ELEMENT.len() - "</script>".len()
        }
        _ => {
            return Err(tera::Error::message(
                "the live page's template does not hold its request element once",
            ))
        }
    };
    let mut out = Vec::with_capacity(html.len() + request.len());
    out.extend_from_slice(&html.as_bytes()[..at]);
    out.extend_from_slice(request.as_bytes());
    out.extend_from_slice(&html.as_bytes()[at..]);
    Ok(out)
}

/// A page that may be live (its request is set in after rendering).
pub(crate) trait LivePage {
    /// Its live parts, if it has them.
    fn live(&self) -> Option<&LiveView>;
}

impl LivePage for Page {
    fn live(&self) -> Option<&LiveView> {
        self.live.as_ref()
    }
}

impl LivePage for SimplePage {
    fn live(&self) -> Option<&LiveView> {
        self.live.as_ref()
    }
}

/// The footer's facts: each input file and its SHA-256.
pub(crate) fn input_facts(inputs: &[InputFile]) -> Vec<Fact> {
    inputs
        .iter()
        .map(|i| Fact {
            label: i.name.clone(),
            value: i.sha256.clone(),
        })
        .collect()
}

#[derive(Serialize)]
pub(crate) struct SimplePage {
    pub(crate) live: Option<LiveView>,
    pub(crate) live_missing: Option<String>,
    pub(crate) generator: &'static str,
    pub(crate) title: String,
    pub(crate) question: String,
    pub(crate) blocks: Vec<Block>,
    pub(crate) version: String,
    pub(crate) fingerprint: String,
    pub(crate) fingerprint_short: String,
    pub(crate) inputs: Vec<Fact>,
    pub(crate) timestamp: Option<String>,
}

pub(crate) use tokencast_core::view::page::with_basis;

pub(crate) fn simple_page(
    fmt: &Fmt,
    title: String,
    question: String,
    blocks: Vec<Block>,
    inputs: &[InputFile],
    timestamp: Option<String>,
) -> SimplePage {
    let fingerprint = crate::scenario::fingerprint(inputs);
    SimplePage {
        live: None,
        live_missing: None,
        generator: HTML_GENERATOR,
        title,
        question: with_basis(fmt, question),
        blocks,
        version: env!("CARGO_PKG_VERSION").to_string(),
        fingerprint_short: fingerprint.chars().take(16).collect(),
        fingerprint,
        inputs: input_facts(inputs),
        timestamp,
    }
}

#[cfg(test)]
mod prose_tests {
    use super::prose;

    #[test]
    fn code_spans_become_code_and_everything_is_escaped() {
        assert_eq!(
            prose("on `raw, 5-min cache`: <b>&</b>"),
            "on <code>raw, 5-min cache</code>: &lt;b&gt;&amp;&lt;/b&gt;"
        );
        assert_eq!(prose("a `b` c `d"), "a <code>b</code> c `d");
        assert_eq!(prose("no code"), "no code");
        assert_eq!(prose("`<script>`"), "<code>&lt;script&gt;</code>");
    }
}

#[cfg(test)]
mod request_tests {
    use super::{script_safe, with_request, BASE, REQUEST_ELEMENT};

    #[test]
    fn the_request_is_set_into_its_one_empty_element() {
        // The template writes the element empty, once.
        assert_eq!(BASE.matches(REQUEST_ELEMENT).count(), 1);
        let json = script_safe(&serde_json::json!({"name": "</script><b>&"}));
        assert_eq!(json, r#"{"name":"\u003c/script\u003e\u003cb\u003e\u0026"}"#);
        let page = format!("<p>before</p>{REQUEST_ELEMENT}<p>after</p>");
        let out = String::from_utf8(with_request(page, &json).unwrap()).unwrap();
        assert_eq!(
            out,
            format!(
                r#"<p>before</p><script type="application/json" id="tc-request">{json}</script><p>after</p>"#
            )
        );
        // Absent, or there twice: an error, not a guess.
        for page in [
            "<p>no element</p>".to_string(),
            format!("{REQUEST_ELEMENT}{REQUEST_ELEMENT}"),
        ] {
            assert!(with_request(page, &json).is_err());
        }
    }
}

#[cfg(test)]
mod engine_tests {
    use super::{ENGINE, LIVE_JS};
    use base64::Engine as _;
    use std::io::Read;

    /// The WASI calls the live page's shim (`wasi()` in live.js) answers.
    fn shim_calls() -> Vec<&'static str> {
        let start = LIVE_JS
            .find("function wasi()")
            .expect("live.js has a WASI shim");
        let shim = &LIVE_JS[start..];
        let shim = &shim[..shim.find("\n  }\n").expect("the shim ends")];
        shim.lines()
            .filter_map(|l| {
                let (name, what) = l.trim().split_once(':')?;
                let what = what.trim();
                (what.starts_with("function") || what.starts_with("none")).then_some(name)
            })
            .collect()
    }

    /// The page's engine links only WASI calls the page answers: a call it
    /// lacks stops the engine from loading at all (foldhash's own seed reads
    /// the clock, `clock_time_get`, which the shim does not offer).
    #[test]
    #[cfg_attr(
        no_web_engine,
        ignore = "built without the page's engine (the wasm32-wasip1 target was missing)"
    )]
    fn the_page_engine_links_only_wasi_calls_the_page_answers() {
        let gz = base64::engine::general_purpose::STANDARD
            .decode(ENGINE.trim())
            .unwrap();
        let mut wasm = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut wasm)
            .unwrap();
        let mut imports = Vec::new();
        for payload in wasmparser::Parser::new(0).parse_all(&wasm) {
            if let wasmparser::Payload::ImportSection(section) = payload.unwrap() {
                for import in section.into_imports() {
                    let import = import.unwrap();
                    imports.push((import.module.to_string(), import.name.to_string()));
                }
            }
        }
        let shim = shim_calls();
        assert!(
            shim.contains(&"random_get") && shim.contains(&"fd_write"),
            "{shim:?}"
        );
        assert!(!imports.is_empty());
        for (module, name) in &imports {
            assert_eq!(module, "wasi_snapshot_preview1", "{name}");
            assert!(
                shim.contains(&name.as_str()),
                "the engine links `{name}`, which live.js's shim does not answer ({shim:?})"
            );
        }
    }
}
