// tokencast's live page: the engine built for the web (src/web) replays the
// scenario with the reader's changes. Nothing here computes a figure: every
// number and word shown comes from the engine's answer.
(function () {
  "use strict";
  var request = null;
  var engine = null;
  // The last answer with figures (what the page shows and downloads), and
  // the latest answer, which may be a refusal.
  var last = null;
  var latest = null;
  var timing = { engine: 0, total: 0 };
  // What each block shows now (its JSON), so an unchanged one is not redrawn.
  var drawn = {};

  function one(sel) { return document.querySelector(sel); }
  function every(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }

  // The few WASI calls the engine's standard library links: no files, no
  // environment, output discarded, randomness from the browser.
  function wasi() {
    var EBADF = 8;
    function view() { return new DataView(engine.memory.buffer); }
    function none() { return EBADF; }
    return {
      random_get: function (ptr, len) {
        crypto.getRandomValues(new Uint8Array(engine.memory.buffer, ptr >>> 0, len >>> 0));
        return 0;
      },
      environ_sizes_get: function (count, size) {
        view().setUint32(count, 0, true);
        view().setUint32(size, 0, true);
        return 0;
      },
      environ_get: function () { return 0; },
      fd_write: function (fd, iovs, n, written) {
        var v = view();
        var total = 0;
        for (var i = 0; i < n; i++) { total += v.getUint32(iovs + 8 * i + 4, true); }
        v.setUint32(written, total, true);
        return 0;
      },
      fd_close: none,
      fd_fdstat_get: none,
      fd_prestat_get: none,
      fd_prestat_dir_name: none,
      path_open: none,
      proc_exit: function (code) { throw new Error("the engine stopped (exit " + code + ")"); }
    };
  }

  function load() {
    var b64 = one("#tc-engine").textContent.trim();
    var raw = atob(b64);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).arrayBuffer()
      .then(function (wasm) {
        return WebAssembly.instantiate(wasm, { wasi_snapshot_preview1: wasi() });
      })
      .then(function (m) { engine = m.instance.exports; });
  }

  // Sets `text` as an element's content: each `code span` as <code>, the rest
  // as text (the page's `prose` filter does the same).
  function proseNodes(text) {
    var parts = String(text).split("`");
    return parts.map(function (p, i) {
      if (i % 2 === 1 && i + 1 < parts.length) {
        var c = document.createElement("code");
        c.textContent = p;
        return c;
      }
      return document.createTextNode(i % 2 === 1 ? "`" + p : p);
    }).filter(function (n) { return n.nodeType !== 3 || n.data !== ""; });
  }

  function prose(el, text) {
    el.replaceChildren.apply(el, proseNodes(text));
  }

  // Replaces a chart's drawing and caption with the engine's.
  // Both drawings (wide and narrow) when there are both, as the page has them.
  function chart(figure, c) {
    var fresh = [];
    var drawing = function (svg, kind) {
      var d = document.createElement("div");
      d.className = "drawing " + kind;
      d.innerHTML = svg;
      fresh.push(d);
    };
    if (c.svg) {
      drawing(c.svg, "wide");
      if (c.narrow) { drawing(c.narrow, "narrow"); }
    } else {
      var e = document.createElement("div");
      e.className = "chart-error";
      e.textContent = "Chart not drawn: " + c.error;
      fresh.push(e);
    }
    // The new drawings take the old ones' place (the text around them stays).
    var olds = figure.querySelectorAll(":scope > .drawing, :scope > .chart-error");
    var cap = figure.querySelector("figcaption");
    var at = olds.length ? olds[0] : cap;
    fresh.forEach(function (n) { figure.insertBefore(n, at); });
    olds.forEach(function (o) { o.remove(); });
    figure.classList.toggle("two", Boolean(c.svg && c.narrow));
    var strong = document.createElement("strong");
    prose(strong, c.title + ".");
    cap.replaceChildren.apply(cap, [strong].concat(proseNodes(" " + c.caption)));
    figure.setAttribute("aria-label", c.title);
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
    prose(el.querySelector("caption"), view.title);
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
      prose(details.querySelector("summary"), view.title + " (" + view.rows.length + " rows)");
    }
  }

  function show(answer) {
    last = answer;
    if (answer.question) { prose(one("#question"), answer.question); }
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
        prose(dd, f.value);
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
          prose(li, item);
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
    (answer.charts || []).forEach(function (c) {
      var figure = document.getElementById(c.id);
      var now = JSON.stringify(c);
      if (!figure || drawn["chart:" + c.id] === now) { return; }
      drawn["chart:" + c.id] = now;
      chart(figure, c);
    });
  }

  function listChanges(ch) {
    var ul = one("#live-changes");
    var keys = Object.keys(ch);
    ul.replaceChildren.apply(ul, keys.map(function (k) {
      var c = one('[data-param="' + CSS.escape(k) + '"]');
      var li = document.createElement("li");
      li.textContent = k + ": " + (c.dataset.original || "(none)") + " → " + (ch[k] || "(none)");
      return li;
    }));
    one("#live-reset").disabled = keys.length === 0;
    one("#live-download").disabled = keys.length === 0;
  }

  function recompute() {
    var ch = changes();
    var started = performance.now();
    var answer;
    try {
      answer = ask(ch);
    } catch (e) {
      answer = { status: "invalid", message: "the engine failed (" + e + ")" };
    }
    timing.engine = performance.now() - started;
    latest = answer;
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
    show(answer);
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
    var button = one("#live-download");
    var file = button.dataset.file;
    var type = /\.sh$/.test(file) ? "text/x-shellscript" : "application/toml";
    var blob = new Blob([last.scenario], { type: type });
    var a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = file;
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
        first.charts.forEach(function (c) { drawn["chart:" + c.id] = JSON.stringify(c); });
        show(first);
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
    // The latest answer: figures, or why the change was refused.
    answer: function () { return latest || last; },
    timing: function () { return Object.assign({}, timing); },
    fromAddress: function () { return fromAddress() && recompute(); }
  };
})();
