//! The live page in Firefox: headless Firefox ESR driven over WebDriver
//! BiDi (the W3C protocol Firefox speaks natively), as the Chromium tests
//! drive Chromium over CDP. The page's engine loads from `file://`, a
//! change recomputes it, and every figure equals `tokencast simulate` on
//! the scenario the page writes.

#![cfg_attr(not(has_firefox), allow(dead_code, unused_imports))]

mod common;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::{stream::MaybeTlsStream, Message, WebSocket};

/// Headless Firefox with a fresh profile, killed when dropped.
struct Firefox {
    child: Child,
    _profile: tempfile::TempDir,
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next: u64,
    /// Errors the page logged (`log.entryAdded` at level error).
    errors: Vec<String>,
}

impl Drop for Firefox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn binary() -> PathBuf {
    std::env::var_os("FIREFOX").map_or_else(|| PathBuf::from("/usr/bin/firefox-esr"), PathBuf::from)
}

impl Firefox {
    fn launch() -> Firefox {
        let profile = tempfile::tempdir().unwrap();
        // A free port, given back for Firefox to take.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(binary())
            .args(["--headless", "--no-remote", "--profile"])
            .arg(profile.path())
            .arg(format!("--remote-debugging-port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Firefox starts");
        let started = Instant::now();
        let socket = loop {
            match tungstenite::connect(format!("ws://127.0.0.1:{port}/session")) {
                Ok((socket, _)) => break socket,
                Err(e) if started.elapsed() < Duration::from_secs(60) => {
                    let _ = e;
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(e) => panic!("Firefox's WebDriver BiDi did not answer: {e}"),
            }
        };
        let mut ff = Firefox {
            child,
            _profile: profile,
            socket,
            next: 0,
            errors: Vec::new(),
        };
        ff.call("session.new", serde_json::json!({"capabilities": {}}));
        ff.call(
            "session.subscribe",
            serde_json::json!({"events": ["log.entryAdded"]}),
        );
        ff
    }

    /// Sends one command and waits for its result (errors the page logs
    /// meanwhile are kept).
    fn call(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        self.next += 1;
        let id = self.next;
        let msg = serde_json::json!({"id": id, "method": method, "params": params});
        self.socket.send(Message::text(msg.to_string())).unwrap();
        loop {
            let Message::Text(text) = self.socket.read().unwrap() else {
                continue;
            };
            let v: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
            if v["id"] == id {
                assert_eq!(v["type"], "success", "{method}: {v}");
                return v["result"].clone();
            }
            if v["method"] == "log.entryAdded" && v["params"]["level"] == "error" {
                self.errors.push(v["params"]["text"].to_string());
            }
        }
    }

    /// The first tab, at `page`, loaded.
    fn open(&mut self, page: &Path) -> String {
        let tree = self.call("browsingContext.getTree", serde_json::json!({}));
        let context = tree["contexts"][0]["context"].as_str().unwrap().to_string();
        self.call(
            "browsingContext.navigate",
            serde_json::json!({"context": context, "url": format!("file://{}", page.display()), "wait": "complete"}),
        );
        context
    }

    /// Evaluates `script` (a promise of a JSON string) in the tab.
    fn eval(&mut self, context: &str, script: &str) -> serde_json::Value {
        let r = self.call(
            "script.evaluate",
            serde_json::json!({"expression": script, "target": {"context": context}, "awaitPromise": true}),
        );
        assert_eq!(r["type"], "success", "{r}");
        serde_json::from_str(r["result"]["value"].as_str().expect("a string")).unwrap()
    }
}

/// Changes two controls and reads the recomputed answer and every figure.
const CHANGE: &str = r#"(async () => {
  await window.tokencast.ready;
  for (const [k, v] of [["assumptions.runs_per_day", "300"], ["variants.0.mode", "batch"]]) {
    const c = document.querySelector(`[data-param="${k}"]`);
    c.value = v;
    c.dispatchEvent(new Event('change'));
  }
  const a = window.tokencast.answer() || {};
  const figures = Object.fromEntries([...document.querySelectorAll('[data-figure]')]
    .map(e => [e.dataset.figure, e.dataset.value]));
  const svgs = [...document.querySelectorAll('figure svg')].filter(s => s.getBoundingClientRect().width > 0).length;
  return JSON.stringify({ status: a.status || 'none', scenario: a.scenario, figures, svgs,
    error: document.querySelector('#live-error').textContent });
})()"#;

#[test]
#[cfg_attr(
    not(has_firefox),
    ignore = "Firefox not found: apt-get install firefox-esr (or set FIREFOX=/path/to/firefox), then rebuild"
)]
fn firefox_runs_the_live_pages_engine_to_the_command_lines_figures() {
    let dir = common::sandbox("scenarios");
    let page = dir.path().join("research.html");
    let (code, err) = common::run_in(
        dir.path(),
        &["simulate", "research.toml", "--report", "research.html"],
    );
    assert_eq!(code, Some(0), "{err}");
    let mut ff = Firefox::launch();
    let tab = ff.open(&page);
    // The collector of logged errors hears the page (else its silence below
    // would prove nothing).
    ff.eval(
        &tab,
        "(async () => { console.error('probe'); return '0'; })()",
    );
    ff.eval(&tab, "(async () => '0')()");
    assert!(
        ff.errors.iter().any(|e| e.contains("probe")),
        "{:?}",
        ff.errors
    );
    ff.errors.clear();
    let answer = ff.eval(&tab, CHANGE);
    assert_eq!(answer["status"], "ok", "{answer}");
    assert_eq!(answer["error"], "", "{answer}");
    assert!(answer["svgs"].as_u64().unwrap() >= 13, "{answer}");
    let scenario = answer["scenario"].as_str().unwrap();
    assert!(scenario.contains("runs_per_day = 300"), "{scenario}");
    // The command line on the scenario the page wrote gives every figure
    // the page shows, character for character.
    std::fs::write(dir.path().join("what-if.toml"), scenario).unwrap();
    let json = common::simulate_json(dir.path(), "what-if.toml");
    // The Answer box's and the six variants' figures.
    common::assert_figures(&answer["figures"], &json, "Firefox", 6 * 10 + 6);
    // And the changes moved them: 300 runs a day, not the scenario's 100,
    // and the first variant in batch.
    assert_eq!(json["assumptions"]["runs_per_day"], 300);
    assert_eq!(
        answer["figures"]["/variants/0/name"],
        "raw, no cache, batch"
    );
    assert!(
        ff.errors.is_empty(),
        "the page logged errors: {:?}",
        ff.errors
    );
}

#[test]
fn firefox_is_installed_in_ci() {
    if std::env::var_os("CI").is_some() {
        assert!(
            binary().exists() && cfg!(has_firefox),
            "Firefox is not installed; .ci/run installs Debian's `firefox-esr` package"
        );
    }
}
