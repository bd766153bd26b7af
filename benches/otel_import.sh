#!/usr/bin/env bash
# Benchmark: `import otel` on a 350 MB OTLP/JSON span export (issue 25's
# size; benches/gen_otel.py), one export per line, the same lines a file
# each (798 files, as a collector's rotated files or a script's exports
# are), and the same spans as one pretty-printed document, beside `wc -l`
# on the same files (the floor), interleaved, medians of time and peak
# memory.
#
#   bash benches/otel_import.sh [OTHER_TOKENCAST_BINARY]
#
# With a second binary (an older build) it is run in the same rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
SIZE_MB=${SIZE_MB:-350}
cargo build --release --locked --quiet
D=target/bench-otel
[ -f "$D/lines/export.jsonl" ] || python3 benches/gen_otel.py "$D" "$SIZE_MB"
if [ ! -d "$D/files" ]; then
    mkdir -p "$D/files"
    split -l 1 -a 4 -d --additional-suffix=.jsonl "$D/lines/export.jsonl" "$D/files/export-"
fi
OTHER=${1:-}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: > "$D/times"
for _ in $(seq "$RUNS"); do
    for shape in lines files whole; do
        /usr/bin/time -f "floor-$shape %e %M" -a -o "$D/times" wc -l "$D/$shape"/* >/dev/null
        for who in tokencast other; do
            bin=target/release/tokencast
            if [ "$who" = other ]; then [ -n "$OTHER" ] || continue; bin=$OTHER; fi
            rm -rf "$D/out"
            /usr/bin/time -f "$who-$shape %e %M" -a -o "$D/times" "$bin" import otel "$D/$shape" \
                --out "$D/out" --no-report --format json >/dev/null 2>&1
        done
    done
done
printf "%-16s %8s %10s\n" run "time s" "peak MB"
for who in floor tokencast other; do
    for shape in lines files whole; do
        grep -q "^$who-$shape " "$D/times" || continue
        s=$(grep "^$who-$shape " "$D/times" | cut -d' ' -f2 | median)
        m=$(grep "^$who-$shape " "$D/times" | cut -d' ' -f3 | median)
        printf "%-16s %8s %10s\n" "$who-$shape" "$s" "$((m / 1024))"
    done
done
