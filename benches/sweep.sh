#!/usr/bin/env bash
# Benchmark `tokencast sweep` at the size the performance issue names: a
# 100,000-row trace (the first rows of benches/gen_trace.py's trace, six
# variants), three grids:
#
# - output per step × runs per day, 50 × 50 (2,500 points; points that
#   differ only in runs per day share one replay);
# - output per step × bytes per token, 40 × 25 (1,000 points, each a replay);
# - output per step × bytes per token, 50 × 50 (2,500 replays: the issue's
#   target of 10 s; an older build refuses it over its step limit).
#
# Median of RUNS (default 3) runs each, with peak RSS. Give another
# tokencast binary as the first argument to time it in the same rounds.
#
#   bash benches/sweep.sh [OTHER_TOKENCAST_BINARY]
#
# Needs cargo, python3 and /usr/bin/time. Nothing outside target/ is written.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
OTHER=${1:-}
T=target/bench-sweep
mkdir -p "$T"
cargo build --release --locked --quiet
P=target/bench-plans
[ -f "$P/trace.csv" ] || { mkdir -p "$P"; python3 benches/gen_trace.py "$P"; }
head -100001 "$P/trace.csv" > "$T/trace.csv"
sed 's#^file = .*#file = "trace.csv"#' "$P/plain.toml" > "$T/plain.toml"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
GRIDS=(
  "--vary output_tokens_per_step=100..5000:100 --vary runs_per_day=10..500:10 --max-points 2500"
  "--vary output_tokens_per_step=100..4000:100 --vary bytes_per_token=2..4.4:0.1 --max-points 1000"
  "--vary output_tokens_per_step=100..5000:100 --vary bytes_per_token=2..4.45:0.05 --max-points 2500"
)
NAMES=("50 x 50, output x runs a day" "40 x 25, output x bytes per token" "50 x 50, output x bytes per token")
for g in 0 1 2; do
    : > "$T/times"
    for _ in $(seq "$RUNS"); do
        # shellcheck disable=SC2086
        /usr/bin/time -f "tokencast %e %M" -a -o "$T/times" target/release/tokencast sweep "$T/plain.toml" ${GRIDS[$g]} --format json --no-report > "$T/new.json"
        if [ -n "$OTHER" ]; then
            # shellcheck disable=SC2086
            if ! /usr/bin/time -f "other %e %M" -a -o "$T/times" "$OTHER" sweep "$T/plain.toml" ${GRIDS[$g]} --format json --no-report > "$T/other.json" 2> "$T/other.err"; then
                echo "  the other binary refused the grid: $(head -1 "$T/other.err")"
                : > "$T/other.json"
                sed -i '/^other /d; /^Command exited/d' "$T/times"
            fi
        fi
    done
    for who in tokencast other; do
        grep -q "^$who " "$T/times" || continue
        printf '%-36s %-10s %6s s %8s KB\n' "${NAMES[$g]}" "$who" \
            "$(grep "^$who " "$T/times" | cut -d' ' -f2 | median)" \
            "$(grep "^$who " "$T/times" | cut -d' ' -f3 | median)"
    done
    if [ -n "$OTHER" ] && [ -s "$T/other.json" ]; then
        cmp -s "$T/new.json" "$T/other.json" && echo "  same JSON as the other binary" || echo "  JSON differs from the other binary"
    fi
done
