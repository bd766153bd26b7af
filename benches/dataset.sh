#!/usr/bin/env bash
# Benchmark of the team dataset (README: "Benchmarks: the team dataset").
#
# 1. Write: `tokencast import claude-code` of the 1 GB generated corpus
#    (the import benchmark's, examples/gen_claude_corpus.rs) without and
#    with `--dataset`, interleaved, RUNS rounds: medians, the ratio, peak RSS.
# 2. Read: `tokencast forecast DATASET` over a sessions table of SESSIONS
#    sessions written directly (examples/gen_dataset.rs: 100 machines,
#    90 days, 9,000 files), against DuckDB summing the same files per day
#    (the floor: reading the table once), interleaved: medians, peak RSS.
#
#   bash benches/dataset.sh
#   RUNS=3 SESSIONS="100000 1000000" bash benches/dataset.sh
#   BASELINE=/path/to/older/tokencast SESSIONS= bash benches/dataset.sh
#
# BASELINE: another build's binary, timed on the same import in the same
# rounds (the cost of a change, free of the machine's drift).
#
# Needs cargo, python3 with duckdb and /usr/bin/time. Writes only under target/.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
SESSIONS=${SESSIONS:-"100000 1000000"}
T=target/bench-dataset
mkdir -p "$T"
cargo build --release --locked --quiet
cargo build --release --locked --quiet --example gen_claude_corpus --example gen_dataset
TOKENCAST=target/release/tokencast
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
peak() { sort -n | tail -1; }

corpus=target/bench-import/corpus-1000000000
if [ ! -d "$corpus/projects" ]; then
    target/release/examples/gen_claude_corpus "$corpus/projects" 1000000000 1 300
fi
: > "$T/plain.times"; : > "$T/with.times"; : > "$T/base.times"
for _ in $(seq "$RUNS"); do
    rm -rf "$T/out-plain" "$T/out-with" "$T/ds-1g" "$T/out-base"
    if [ -n "${BASELINE:-}" ]; then
        /usr/bin/time -f "%e %M" -o "$T/one" "$BASELINE" import claude-code "$corpus/projects" \
            --format json --no-report --out "$T/out-base" > /dev/null 2>&1
        cat "$T/one" >> "$T/base.times"
    fi
    /usr/bin/time -f "%e %M" -o "$T/one" "$TOKENCAST" import claude-code "$corpus/projects" \
        --format json --no-report --out "$T/out-plain" > /dev/null 2>&1
    cat "$T/one" >> "$T/plain.times"
    /usr/bin/time -f "%e %M" -o "$T/one" "$TOKENCAST" import claude-code "$corpus/projects" \
        --format json --no-report --out "$T/out-with" --dataset "$T/ds-1g" --machine bench > /dev/null 2>&1
    cat "$T/one" >> "$T/with.times"
done
p=$(cut -d' ' -f1 "$T/plain.times" | median); w=$(cut -d' ' -f1 "$T/with.times" | median)
echo "== write: import of $(du -sb "$corpus" | cut -f1) bytes of logs, median of $RUNS interleaved runs"
echo "import claude-code             : $p s, peak RSS $(cut -d' ' -f2 "$T/plain.times" | peak) KB"
echo "import claude-code --dataset   : $w s, peak RSS $(cut -d' ' -f2 "$T/with.times" | peak) KB"
echo "dataset: $(find "$T/ds-1g" -name '*.parquet' | wc -l) files, $(du -sb "$T/ds-1g" | cut -f1) bytes"
python3 -c "print(f'time ratio with / without: {$w / $p:.3f}')"
if [ -n "${BASELINE:-}" ]; then
    b=$(cut -d' ' -f1 "$T/base.times" | median)
    echo "baseline import claude-code    : $b s, peak RSS $(cut -d' ' -f2 "$T/base.times" | peak) KB"
    python3 -c "print(f'time ratio this build / baseline: {$p / $b:.3f}')"
fi

for n in $SESSIONS; do
    ds="$T/sessions-$n"
    [ -d "$ds/sessions" ] || target/release/examples/gen_dataset "$ds" "$n" 2> /dev/null
    : > "$T/fc-$n.times"; : > "$T/duck-$n.times"
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$T/one" "$TOKENCAST" forecast "$ds" --no-report > "$T/fc-$n.txt" 2> /dev/null
        cat "$T/one" >> "$T/fc-$n.times"
        /usr/bin/time -f "%e %M" -o "$T/one" python3 -c "
import duckdb, sys
duckdb.sql(\"SET enable_progress_bar = false\")
duckdb.sql(\"SELECT day, count(*), sum(\\\"tokencast.as_recorded.upper_usd\\\") FROM read_parquet('$ds/sessions/*/*.parquet', hive_partitioning = true) GROUP BY day\").fetchall()
" > /dev/null 2>&1
        cat "$T/one" >> "$T/duck-$n.times"
    done
    f=$(cut -d' ' -f1 "$T/fc-$n.times" | median); k=$(cut -d' ' -f1 "$T/duck-$n.times" | median)
    echo "== read: $n sessions in $(find "$ds" -name '*.parquet' | wc -l) files ($(du -sb "$ds" | cut -f1) bytes), median of $RUNS"
    echo "tokencast forecast DATASET     : $f s, peak RSS $(cut -d' ' -f2 "$T/fc-$n.times" | peak) KB"
    echo "duckdb sum per day (floor)     : $k s, peak RSS $(cut -d' ' -f2 "$T/duck-$n.times" | peak) KB"
    python3 -c "print(f'time ratio tokencast / duckdb: {$f / $k:.2f}')"
done
