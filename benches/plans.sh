#!/usr/bin/env bash
# Benchmark the planning commands a user types, at user sizes:
#
# - `tokencast forecast DIR` over the sessions `import claude-code` wrote
#   from a generated 1 GB corpus (444 sessions), at 1 and 100 runs a day;
# - `tokencast simulate` on a 1,000,000-row trace, plain and with
#   `[context_management]` (16 thresholds and the keep grid replayed).
#
# Median of RUNS (default 5) runs each, with peak RSS.
#
#   bash benches/plans.sh
#
# Needs cargo, python3 and /usr/bin/time. Nothing outside target/ is written.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
T=target/bench-plans
mkdir -p "$T"
cargo build --release --locked --quiet
cargo build --release --locked --quiet --example gen_claude_corpus
TOKENCAST=target/release/tokencast
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { # label, command...
    local label=$1; shift
    : > "$T/times"
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$T/one" "$@" > /dev/null 2>&1
        cat "$T/one" >> "$T/times"
    done
    printf '%-58s %6s s %8s KB\n' "$label" \
        "$(cut -d' ' -f1 "$T/times" | median)" "$(cut -d' ' -f2 "$T/times" | median)"
}

if [ ! -d "$T/corpus/projects" ]; then
    target/release/examples/gen_claude_corpus "$T/corpus/projects" 1000000000 1 > /dev/null
fi
rm -rf "$T/imported"
"$TOKENCAST" import claude-code "$T/corpus/projects" --out "$T/imported" --no-report > /dev/null 2>&1
for rpd in 1 100; do
    measure "forecast of 444 imported sessions, $rpd run(s) a day" \
        "$TOKENCAST" forecast "$T/imported" --runs-per-day "$rpd" --format json --no-report
done

python3 benches/gen_trace.py "$T"
measure "simulate, 1,000,000 rows" \
    "$TOKENCAST" simulate "$T/plain.toml" --format json --no-report
measure "simulate, 1,000,000 rows, with [context_management]" \
    "$TOKENCAST" simulate "$T/context.toml" --format json --no-report
