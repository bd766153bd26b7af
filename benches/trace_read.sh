#!/usr/bin/env bash
# Benchmark: `simulate` on a 1,000,000-row trace (benches/plans.sh's
# generator, 61 MB) against the csv crate's floor (examples/csv_floor.rs:
# ByteRecords and a prefix sum of one column), interleaved, medians.
#
#   bash benches/trace_read.sh [OTHER_TOKENCAST_BINARY]
#
# With a second binary (an older build) it is run in the same rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
cargo build --release --locked --quiet
cargo build --release --locked --quiet --example csv_floor
P=target/bench-plans
mkdir -p "$P"
[ -f "$P/trace.csv" ] || python3 benches/gen_trace.py "$P"
OTHER=${1:-}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: > "$P/times"
for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "floor %e %M" -a -o "$P/times" target/release/examples/csv_floor "$P/trace.csv" >/dev/null
    /usr/bin/time -f "tokencast %e %M" -a -o "$P/times" target/release/tokencast simulate "$P/plain.toml" --format json --no-report >/dev/null 2>&1
    if [ -n "$OTHER" ]; then
        /usr/bin/time -f "other %e %M" -a -o "$P/times" "$OTHER" simulate "$P/plain.toml" --format json --no-report >/dev/null 2>&1
    fi
done
bytes=$(stat -c %s "$P/trace.csv")
for who in floor tokencast other; do
    grep -q "^$who " "$P/times" || continue
    s=$(grep "^$who " "$P/times" | cut -d' ' -f2 | median)
    kb=$(grep "^$who " "$P/times" | cut -d' ' -f3 | sort -n | tail -1)
    echo "$who: ${s} s median of $RUNS, $(python3 -c "print(round($bytes/1e6/$s))") MB/s of trace, peak RSS ${kb} KB"
done
