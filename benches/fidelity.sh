#!/usr/bin/env bash
# How well the replay of real sessions matches what they were billed.
#
#   bash benches/fidelity.sh [CORPUS_DIR]
#
# For each source (Claude Code, Codex) under CORPUS_DIR (default
# ../shared/corpus), imports every session and prints, per session, the
# recorded cost of its replayed threads beside the replay's lower bound,
# estimate and upper bound ("as recorded"), then the totals, how many
# sessions lie inside their band and how many estimates are within ±5 %.
#
# Out of sample: each session is imported again with the calibration
# saved from every *other* session of the corpus (`--save-calibration`,
# then `--calibration` on the held-out one), so its bytes per token come
# from logs it is not part of; the error of that estimate is printed too.
#
# Sessions with unreadable lines (a redacted or truncated log) are marked
# `damaged`: what the cut lines carried (tool results, thinking blocks)
# entered the context unmeasured, so fewer steps are left to fit bytes per
# token on. In the two damaged sessions of the shared corpus every request
# still has its usage on another line of the same message, so their
# recorded cost is whole.
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/corpus}
cargo build --release --locked -q
BIN=$PWD/target/release/tokencast
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

run_source() {
  local source=$1 dir=$2
  shift 2
  local extra=("$@")
  [ -d "$dir" ] || { echo "skip $source: no $dir"; return; }
  local out=$WORK/$source
  mkdir -p "$out/cal"
  "$BIN" import "$source" "$dir" "${extra[@]}" --out "$out/all" --no-report --format json >"$out/all.json" 2>/dev/null
  # One calibration per session.
  python3 -c 'import json,sys; [print(s["session"]) for s in json.load(open(sys.argv[1]))["sessions"] if s["what_if"]]' "$out/all.json" >"$out/ids"
  while read -r id; do
    "$BIN" import "$source" "$dir" "${extra[@]}" --session "$id" --out "$out/one" --no-report --format json \
      --save-calibration "$out/cal/$id.toml" --force >/dev/null 2>&1 || true
  done <"$out/ids"
  # Each session with the others' calibrations.
  while read -r id; do
    args=()
    for c in "$out"/cal/*.toml; do
      [ "$c" = "$out/cal/$id.toml" ] || args+=(--calibration "$c")
    done
    "$BIN" import "$source" "$dir" "${extra[@]}" --session "$id" --out "$out/loo" --no-report --format json \
      "${args[@]}" --force >"$out/loo-$id.json" 2>/dev/null || true
  done <"$out/ids"
  python3 - "$source" "$out" <<'EOF'
import json, sys, os
source, out = sys.argv[1], sys.argv[2]
doc = json.load(open(f"{out}/all.json"))
damaged = {p["file"].split("/")[-1].split(".")[0] for p in doc["problems"] if p["line"] > 0}
print(f"\n{source}: {len(doc['sessions'])} sessions")
print(f"{'session':10} {'requests':>8} {'recorded':>10} {'lower':>10} {'estimate':>10} {'upper':>10} {'error':>7} {'held-out':>9}")
R = E = 0.0; n = inside = close = loo_close = loo_n = 0
for s in doc["sessions"]:
    w = s["what_if"]
    if not w or s["unpriced_requests"]:
        continue
    a = w["as_recorded"]
    rec, lo, est, hi = (float(x) for x in (s["replayed_recorded_cost"], a["lower"], a["estimate"], a["upper"]))
    if rec == 0:
        continue
    err = (est - rec) / rec * 100
    loo = ""
    path = f"{out}/loo-{s['session']}.json"
    if os.path.exists(path) and os.path.getsize(path) > 0:
        l = json.load(open(path))["sessions"]
        if l and l[0]["what_if"]:
            le = (float(l[0]["what_if"]["as_recorded"]["estimate"]) - rec) / rec * 100
            loo = f"{le:+8.1f}%"
            loo_n += 1
            loo_close += abs(le) <= 10
    mark = " damaged" if any(s["session"].startswith(d) or d.startswith(s["session"]) for d in damaged) else ""
    print(f"{s['session'][:10]:10} {s['requests']:8} {rec:10.3f} {lo:10.3f} {est:10.3f} {hi:10.3f} {err:+6.1f}% {loo:>9}{mark}")
    R += rec; E += est; n += 1
    inside += lo <= rec <= hi
    close += abs(err) <= 5
if n:
    print(f"total: recorded ${R:.2f}, estimate ${E:.2f} ({(E - R) / R * 100:+.1f} %); "
          f"inside the band {inside}/{n}; estimate within ±5 % {close}/{n}; "
          f"held-out estimate within ±10 % {loo_close}/{loo_n}")
EOF
}

run_source claude-code "$CORPUS/claude-code-jsonl"
# Codex 0.3x rollouts name no model: priced as gpt-5-codex (gpt-5's prices).
run_source codex "$CORPUS/codex-rollout" --unnamed-model gpt-5-codex
