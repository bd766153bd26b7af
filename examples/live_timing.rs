//! Times a live page's recompute in headless Chromium: opens the page, waits
//! for its engine, then changes a numeric control N times (PARAM, by default
//! `assumptions.runs_per_day`; a forecast page has `assumptions.prefix_tokens`) and
//! measures, in the page, the engine's answer plus the redraw (tables
//! replaced and the layout forced). Prints the median, minimum and maximum
//! in milliseconds. Used by `benches/live_page.sh`.
//!
//!     cargo run --release --example live_timing -- PAGE.html [N] [PARAM]

use headless_chrome::{Browser, LaunchOptions};
use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let page = PathBuf::from(args.next().expect("usage: live_timing PAGE.html [N]"));
    let n: usize = args.next().map_or(15, |s| s.parse().expect("N is a count"));
    let param = args
        .next()
        .unwrap_or_else(|| "assumptions.runs_per_day".into());
    let page = std::fs::canonicalize(&page).expect("the page exists");
    let chrome = std::env::var_os("CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    let options = LaunchOptions::default_builder()
        .path(Some(chrome))
        .sandbox(false)
        .headless(true)
        .window_size(Some((1280, 900)))
        .idle_browser_timeout(std::time::Duration::from_secs(600))
        .build()
        .expect("launch options");
    let browser = Browser::new(options).expect("launch chromium");
    let tab = browser.new_tab().expect("a tab");
    tab.set_default_timeout(std::time::Duration::from_secs(600));
    let started = std::time::Instant::now();
    tab.navigate_to(&format!("file://{}", page.display()))
        .expect("navigate")
        .wait_until_navigated()
        .expect("loaded");
    let js = format!(
        r#"(async () => {{
          const t0 = performance.now();
          await window.tokencast.ready;
          const ready = performance.now() - t0;
          const c = document.querySelector('[data-param="{param}"]');
          const base = Number(c.dataset.original);
          // A select cycles through its options; a number counts up.
          const options = c.tagName === 'SELECT'
            ? [...c.options].map(o => o.value).filter(v => v !== c.dataset.original) : null;
          const times = [];
          const engine = [];
          for (let i = 1; i <= {n}; i++) {{
            c.value = options ? options[(i - 1) % options.length] : String(base + i);
            const s = performance.now();
            const a = window.tokencast.recompute();
            if (a.status !== 'ok') throw new Error(a.message);
            document.body.offsetHeight;
            times.push(performance.now() - s);
            engine.push(window.tokencast.timing().engine);
          }}
          times.sort((a, b) => a - b);
          engine.sort((a, b) => a - b);
          return JSON.stringify({{ ready, times, engine: engine[engine.length >> 1] }});
        }})()"#
    );
    let out = tab.evaluate(&js, true).expect("the page runs");
    let v: serde_json::Value =
        serde_json::from_str(out.value.expect("a value").as_str().expect("a string")).unwrap();
    let times: Vec<f64> = v["times"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_f64().unwrap())
        .collect();
    let size = std::fs::metadata(&page).map(|m| m.len()).unwrap_or(0);
    println!(
        "{}: {:.1} MB page, engine ready {:.0} ms after load (page open {:.1} s); recompute and redraw over {n} changes: median {:.1} ms (engine {:.1}), min {:.1}, max {:.1}",
        page.display(),
        size as f64 / 1e6,
        v["ready"].as_f64().unwrap(),
        started.elapsed().as_secs_f64(),
        times[times.len() / 2],
        v["engine"].as_f64().unwrap(),
        times[0],
        times[times.len() - 1]
    );
}
