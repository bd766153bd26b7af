// tokencast's live page: the engine built for the web (src/web) replays the
// scenario with the reader's changes. Nothing here computes a figure: every
// number and word shown comes from the engine's answer.
(function () {
  "use strict";
  var request = null;
  var engine = null;
  var last = null;
  var timing = { engine: 0, total: 0 };
  // What each block shows now (its JSON), so an unchanged one is not redrawn.
  var drawn = {};

  function one(sel) { return document.querySelector(sel); }
  function every(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }

  function load() {
    var b64 = one("#tc-engine").textContent.trim();
    var raw = atob(b64);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).arrayBuffer()
      .then(function (wasm) { return WebAssembly.instantiate(wasm, {}); })
      .then(function (m) { engine = m.instance.exports; });
  }

  // Sends one JSON message through an exported function; returns the answer.
  function send(fn, message) {
    var bytes = new TextEncoder().encode(JSON.stringify(message));
    var ptr = engine.tc_alloc(bytes.length) >>> 0;
    new Uint8Array(engine.memory.buffer, ptr, bytes.length).set(bytes);
    var n = fn(ptr, bytes.length) >>> 0;
    var out = new Uint8Array(engine.memory.buffer, engine.tc_output() >>> 0, n);
    return JSON.parse(new TextDecoder().decode(out));
  }

  // The pointers of the figures the page shows (data-figure).
  function figures() {
    return every("[data-figure]").map(function (el) { return el.dataset.figure; });
  }

  function ask(changes) {
    return send(engine.tc_run, { changes: changes, figures: figures() });
  }

  function controls() { return every("[data-param]"); }

  function changes() {
    var out = {};
    controls().forEach(function (c) {
      if (c.value !== c.dataset.original) { out[c.dataset.param] = c.value; }
    });
    return out;
  }

  function cell(tag, c) {
    var el = document.createElement(c.head ? "th" : tag);
    if (c.head) { el.setAttribute("scope", "row"); }
    if (tag === "th" && !c.head) { el.setAttribute("scope", "col"); }
    if (c.num && !c.head) { el.className = "num"; }
    if (c.figure) { el.dataset.figure = c.figure; }
    el.textContent = c.text;
    return el;
  }

  function table(el, view) {
    el.querySelector("caption").textContent = view.title;
    var head = document.createElement("tr");
    view.header.forEach(function (c) { head.appendChild(cell("th", c)); });
    el.querySelector("thead").replaceChildren(head);
    var body = el.querySelector("tbody");
    body.replaceChildren.apply(body, view.rows.map(function (r) {
      var tr = document.createElement("tr");
      r.forEach(function (c) { tr.appendChild(cell("td", c)); });
      return tr;
    }));
    var details = el.closest("details");
    if (details) {
      details.querySelector("summary").textContent = view.title + " (" + view.rows.length + " rows)";
    }
  }

  function show(answer, changed) {
    last = answer;
    var h = answer.headline || {};
    every("[data-headline]").forEach(function (el) {
      el.textContent = h[el.dataset.headline] == null ? "" : h[el.dataset.headline];
    });
    var facts = one("#facts");
    if (facts) {
      facts.replaceChildren.apply(facts, answer.facts.flatMap(function (f) {
        var dt = document.createElement("dt");
        var dd = document.createElement("dd");
        dt.textContent = f.label;
        dd.textContent = f.value;
        return [dt, dd];
      }));
    }
    answer.blocks.forEach(function (b) {
      if (!b.id) { return; }
      var now = JSON.stringify(b);
      if (drawn[b.id] === now) { return; }
      drawn[b.id] = now;
      var list = one('ul[data-block="' + CSS.escape(b.id) + '"]');
      if (list) {
        list.replaceChildren.apply(list, b.list.map(function (item) {
          var li = document.createElement("li");
          li.textContent = item;
          return li;
        }));
      }
      var t = b.table && one('table[data-table="' + CSS.escape(b.table.id) + '"]');
      if (t) { table(t, b.table); }
    });
    every("[data-figure]").forEach(function (el) {
      var v = answer.figures[el.dataset.figure];
      el.dataset.value = v == null ? "" : String(v);
    });
    every("figure.chart").forEach(function (f) { f.classList.toggle("stale", changed); });
  }

  function listChanges(ch) {
    var ul = one("#live-changes");
    var keys = Object.keys(ch);
    ul.replaceChildren.apply(ul, keys.map(function (k) {
      var c = one('[data-param="' + CSS.escape(k) + '"]');
      var li = document.createElement("li");
      li.textContent = k + ": " + c.dataset.original + " → " + ch[k];
      return li;
    }));
    one("#live-reset").disabled = keys.length === 0;
    one("#live-download").disabled = keys.length === 0;
  }

  function recompute() {
    var ch = changes();
    var started = performance.now();
    var answer = ask(ch);
    timing.engine = performance.now() - started;
    var error = one("#live-error");
    var keys = Object.keys(ch);
    var hash = keys.length ? "#" + new URLSearchParams(ch).toString() : "";
    history.replaceState(null, "", location.pathname + location.search + hash);
    listChanges(ch);
    if (answer.status !== "ok") {
      error.hidden = false;
      error.textContent = "Not recomputed: " + answer.message;
      one("#live-status").textContent = "The figures below are the last ones computed.";
      return answer;
    }
    error.hidden = true;
    show(answer, keys.length > 0);
    timing.total = performance.now() - started;
    one("#live-status").textContent = keys.length
      ? "Recomputed in " + Math.round(performance.now() - started) + " ms."
      : "As reported.";
    return answer;
  }

  function fromAddress() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    params.forEach(function (value, key) {
      var c = one('[data-param="' + CSS.escape(key) + '"]');
      if (c) { c.value = value; }
    });
    return Array.from(params.keys()).length > 0;
  }

  function download() {
    if (!last || last.status !== "ok") { return; }
    var blob = new Blob([last.scenario], { type: "application/toml" });
    var a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = request.name.replace(/\.toml$/, "") + "-what-if.toml";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(a.href); }, 1000);
  }

  function reset() {
    controls().forEach(function (c) { c.value = c.dataset.original; });
    recompute();
  }

  var ready = new Promise(function (resolve, reject) {
    document.addEventListener("DOMContentLoaded", function () {
      request = JSON.parse(one("#tc-request").textContent);
      load().then(function () {
        request.figures = figures();
        var first = send(engine.tc_load, request);
        if (first.status !== "ok") { throw new Error(first.message); }
        first.blocks.forEach(function (b) { if (b.id) { drawn[b.id] = JSON.stringify(b); } });
        show(first, false);
        one("#live").hidden = false;
        controls().forEach(function (c) { c.addEventListener("change", recompute); });
        one("#live-download").addEventListener("click", download);
        one("#live-reset").addEventListener("click", reset);
        if (fromAddress()) { recompute(); }
        resolve();
      }).catch(function (e) {
        var note = one("#live-unavailable");
        note.hidden = false;
        note.textContent = "This page's engine could not start in this browser (" + e + "); the report below is as it was made.";
        reject(e);
      });
    });
  });

  // For tests and the reader's own scripts.
  window.tokencast = {
    ready: ready,
    changes: changes,
    recompute: recompute,
    scenario: function () { return last && last.scenario; },
    answer: function () { return last; },
    timing: function () { return Object.assign({}, timing); },
    fromAddress: function () { return fromAddress() && recompute(); }
  };
})();
