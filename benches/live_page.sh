#!/usr/bin/env bash
# Benchmark: how long a live page takes to recompute and redraw after a
# change, in headless Chromium, for the research run and for a
# 100,000-row trace (benches/gen_trace.py; the page holds an outline of the
# rows), and for the research run's forecast page (100,000 runs of 20
# tool results, drawn again at each change) and a corpus forecast's page
# over the test fixtures' imported sessions (100,000 days, each change one
# more run a day), and an import's page over the test fixtures (each change
# another model of the book; with CORPUS=DIR of Claude Code logs, also over
# those). Also prints each page's size and its engine's.
#
#   bash benches/live_page.sh
#   CORPUS=../shared/corpus/claude-code-jsonl bash benches/live_page.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-15}
cargo build --release --locked --quiet
cargo build --release --locked --quiet --example live_timing
D=target/bench-live
mkdir -p "$D/100k"
[ -f "$D/100k/trace.csv" ] || python3 benches/gen_trace.py "$D/100k" 100000
target/release/tokencast simulate scenarios/research.toml --report "$D/research.html" --force >/dev/null
target/release/tokencast simulate "$D/100k/plain.toml" --report "$D/100k.html" --force >/dev/null
target/release/tokencast forecast scenarios/research.toml --calls 20 --report "$D/research-forecast.html" --force >/dev/null
target/release/tokencast import claude-code tests/fixtures/claude-code --out "$D/sessions" --no-report >/dev/null
target/release/tokencast forecast "$D/sessions" --report "$D/sessions-forecast.html" --force >/dev/null
wasm=target/web-engine/wasm32-wasip1/web/tokencast_web.wasm
echo "engine: $(stat -c %s "$wasm") bytes of wasm, $(gzip -9c "$wasm" | wc -c) gzipped (base64 in the page: 4/3 of that)"
target/release/examples/live_timing "$D/research.html" "$N"
target/release/examples/live_timing "$D/100k.html" "$N"
target/release/examples/live_timing "$D/research-forecast.html" "$N" assumptions.prefix_tokens
target/release/examples/live_timing "$D/sessions-forecast.html" "$N" runs_per_day
target/release/tokencast import claude-code tests/fixtures/claude-code --out "$D/imported" --report "$D/import.html" --force >/dev/null
target/release/examples/live_timing "$D/import.html" "$N" variant.model
if [ -n "${CORPUS:-}" ]; then
    target/release/tokencast import claude-code "$CORPUS" --out "$D/corpus" --report "$D/import-corpus.html" --force >/dev/null
    target/release/examples/live_timing "$D/import-corpus.html" "$N" variant.model
fi
