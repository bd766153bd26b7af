#!/usr/bin/env bash
# Probe: is an import's set whole after a SIGKILL? (issue 25: "a SIGKILL
# during the rename phase left a mix of old and new files in 2 of 40
# trials"). A folder holds import A; import B (other trim rule, so every
# scenario differs) is killed at a random moment; the files under --out are
# then compared with clean copies of A and B, before and after the next
# tokencast run reads the folder.
#
#   bash benches/kill_probe.sh [TRIALS]
#
# Prints per trial: when it was killed, the state left on disk (old, new,
# or mixed with the journal that finishes it), and the state a reader then
# sees. A reader must only ever see "old" or "new".
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-40}
cargo build --release --locked --quiet
cargo build --release --locked --quiet --example gen_claude_corpus
T=target/kill-probe
B=$PWD/target/release/tokencast
mkdir -p "$T"
[ -d "$T/logs" ] || target/release/examples/gen_claude_corpus "$T/logs" 200000000 7 28 >/dev/null
A_OPTS=(--trim 50% --no-report --format json)
B_OPTS=(--trim 4096 --no-report --format json)
# Clean copies, written in the same place (the files name --out as given).
snapshot() { (cd "$1" && find out -type f ! -name '.tokencast*' -print0 | sort -z | xargs -0 sha256sum); }
rm -rf "$T/a" "$T/b" && mkdir -p "$T/a" "$T/b"
(cd "$T/a" && "$B" import claude-code ../logs --out out "${A_OPTS[@]}" >/dev/null 2>&1)
(cd "$T/b" && "$B" import claude-code ../logs --out out "${B_OPTS[@]}" >/dev/null 2>&1)
snapshot "$T/a" > "$T/a.sums"
snapshot "$T/b" > "$T/b.sums"
/usr/bin/time -f %e -o "$T/full" bash -c "cd $T/b && $B import claude-code ../logs --out out ${B_OPTS[*]} >/dev/null 2>&1"
full=$(cat "$T/full")
echo "an import of B into A's folder takes ${full} s"
classify() {
    local sums; sums=$(snapshot "$1")
    if [ "$sums" = "$(cat "$T/a.sums")" ]; then echo old
    elif [ "$sums" = "$(cat "$T/b.sums")" ]; then echo new
    else echo "mixed$( [ -f "$1/out/.tokencast-journal.json" ] && echo ' (journal left)')"; fi
}
declare -A seen
for i in $(seq "$TRIALS"); do
    rm -rf "$T/t" && mkdir -p "$T/t" && cp -r "$T/a/out" "$T/t/out"
    # Killed at a random moment of the commit: once its journal is in
    # place (the renames follow), or, for a third of the trials, at a
    # random moment before (the temporary files are being written).
    delay=$(cd "$T/t" && python3 - "$B" "$full" "${B_OPTS[@]}" <<'PY'
import os, random, signal, subprocess, sys, time
b, full, opts = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
p = subprocess.Popen([b, "import", "claude-code", "../logs", "--out", "out", *opts],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
t0 = time.monotonic()
if random.random() < 1 / 3:
    time.sleep(random.random() * full)
else:
    while p.poll() is None and not os.path.exists("out/.tokencast-journal.json"):
        time.sleep(0.0002)
    time.sleep(random.random() * 0.03)
p.send_signal(signal.SIGKILL)
p.wait()
print(f"{time.monotonic() - t0:.3f}")
PY
)
    left=$(classify "$T/t")
    # The next tokencast to read the folder (a forecast of it).
    (cd "$T/t" && "$B" forecast out --no-report --format json >/dev/null 2>&1) || true
    read=$(classify "$T/t")
    seen["$read"]=$(( ${seen["$read"]:-0} + 1 ))
    printf "trial %2d  killed at %6ss  on disk: %-22s  a reader sees: %s\n" "$i" "$delay" "$left" "$read"
done
echo "what readers saw over $TRIALS trials:"
for k in "${!seen[@]}"; do echo "  $k: ${seen[$k]}"; done
