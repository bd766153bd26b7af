#!/usr/bin/env bash
# Every speed target of the performance issue in one run, each beside its
# floor or peer measured in the same rounds (interleaved, medians), with the
# ratio and the target:
#
# - `import claude-code` on the 1 GB generated corpus beside ccusage 20.0.24
#   (`ccusage claude session --json --offline`, installed under target/ by
#   npm), with `--format json --no-report` and with the default outputs
#   (the live page too), and a re-import into the same folder;
# - `import claude-code` on 686 MB of small sessions (about 2,800 threads of
#   20-28 requests) beside ccusage on them, with `--format json --no-report`
#   and with the default outputs (the live page too, written under target/);
# - `import claude-code` on 1 GB of real Claude Code logs (the shared
#   corpus's transcripts copied 72 times with ids of their own,
#   benches/gen_real_copies.py; its rows are left out when the shared corpus
#   is not there) beside ccusage on them, both ways as the 1 GB corpus;
# - the small sessions' import again with their logs dropped from the page
#   cache first (a machine's first import reads them from the disk), beside
#   ccusage on them dropped the same way;
# - on every corpus, the import's floor: serde_json parsing every line once
#   on both cores, a file a job, nothing measured or written
#   (examples/json_floor.rs), beside ccusage;
# - `simulate --format json --no-report` on 1,000,000 rows (61 MB) beside
#   the csv crate reading the same file (examples/csv_floor.rs) and `wc -l`;
# - the same trace with every what-if section beside the plain run;
# - `simulate` on 10,000,000 rows (626 MB) beside the csv crate's read, and
#   with every what-if section beside that plain run (the what-if target
#   holds at any size);
# - `sweep` of a 50 x 50 grid of two replay axes on 100,000 rows;
# - `forecast --calls 20 --runs 1000000` of the research scenario;
# - `forecast` over the imported 1 GB corpus at 100,000 and 10,000,000
#   days (`--runs`): its memory must not grow with them; and the same
#   sessions naming LiteLLM's whole table as their price book (1.5 MB,
#   converted by `tokencast prices import litellm` from the shared corpus),
#   which must be parsed once, not once per session.
#
#   bash benches/targets.sh            # RUNS=3 by default
#
# Needs cargo, npm, python3 and /usr/bin/time. Nothing outside target/ is
# written; the corpora and traces are generated there once.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
T=target/bench-targets
mkdir -p "$T"
. benches/ccusage.sh
cargo build --release --locked --quiet --example csv_floor --example json_floor
I=target/bench-import
CORPUS="$I/corpus-1000000000"
[ -d "$CORPUS/projects" ] || target/release/examples/gen_claude_corpus "$CORPUS/projects" 1000000000 1 300
SMALL="$I/small-686000000"
[ -d "$SMALL/projects" ] || target/release/examples/gen_claude_corpus "$SMALL/projects" 686000000 1 28
P=target/bench-plans
[ -f "$P/trace.csv" ] && [ -f "$P/all.toml" ] || python3 benches/gen_trace.py "$P"
P10="$P/10m"
[ -f "$P10/trace.csv" ] && [ -f "$P10/all.toml" ] || python3 benches/gen_trace.py "$P10" 10000000
S=target/bench-sweep
# The second shape: 1 GB of real Claude Code logs (the shared corpus's
# transcripts copied 72 times, each copy with ids of its own), when the
# shared corpus is there; the rows are left out, visibly, when it is not.
CLAUDE_LOGS=${CLAUDE_LOGS:-../shared/corpus/claude-code-jsonl}
REAL="$I/real-72"
if [ -d "$CLAUDE_LOGS" ]; then
    [ -d "$REAL/projects" ] || python3 benches/gen_real_copies.py "$CLAUDE_LOGS" "$REAL" 72
else
    echo "no $CLAUDE_LOGS: the real-log corpus's rows are left out" >&2
    REAL=""
fi
LITELLM=${LITELLM:-../shared/corpus/litellm/model_prices_and_context_window_backup.json}
BOOK=""
if [ -f "$LITELLM" ]; then
    BOOK="$T/litellm-book.toml"
    "$TOKENCAST" prices import litellm "$LITELLM" --out "$BOOK" --force > /dev/null 2>&1
fi
mkdir -p "$S"
head -100001 "$P/trace.csv" > "$S/trace.csv"
sed 's#^file = .*#file = "trace.csv"#' "$P/plain.toml" > "$S/plain.toml"

: > "$T/times"
# label, command...: one timed run appended to $T/times as "label seconds KB".
# Every command starts with nothing left to write: a run right after an
# import otherwise shares the machine with the write-back of its files
# (the 1,000,000-row simulate took twice its time, and ccusage ran slower
# after the import than before it).
run() {
    local label=$1; shift
    sync
    /usr/bin/time -f "$label %e %M" -a -o "$T/times" "$@" > /dev/null 2>&1
}
# Each round imports into a folder of its own: deleting the last round's
# output just before would charge this round's file creations with the
# disk's discards of the deleted blocks (this machine's ext4 is mounted
# with `discard`), which a first import into a new folder does not pay.
# Outputs of an earlier run are moved aside and deleted at the end: see
# benches/import_vs_ccusage.sh for why a deletion just before an import is
# charged to it.
TRASH="$T/trash.$$"
mkdir -p "$TRASH"
for d in "$T"/out-*; do [ -e "$d" ] && mv "$d" "$TRASH/"; done
# The logs in the page cache before the import and before ccusage alike:
# the 10,000,000-row runs of the round before push them out (this machine
# reclaims cold pages), and ccusage, run after the import, found them read
# again by it, while the import read them from the disk.
warm() { find "$CORPUS/projects" "$SMALL/projects" ${REAL:+"$REAL/projects"} -name '*.jsonl' -exec cat {} + > /dev/null; }
# And out of it, for a first import of a machine's logs (read from the
# disk): each log's cached pages dropped (posix_fadvise, no root needed).
evict() {
    python3 - "$1" <<'PY'
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        if f.endswith(".jsonl"):
            fd = os.open(os.path.join(root, f), os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
PY
}
for round in $(seq "$RUNS"); do
    warm
    run import "$TOKENCAST" import claude-code "$CORPUS/projects" --format json --no-report --out "$T/out-$round"
    run reimport "$TOKENCAST" import claude-code "$CORPUS/projects" --format json --no-report --out "$T/out-$round"
    run importpage "$TOKENCAST" import claude-code "$CORPUS/projects" --out "$T/out-gpage-$round" \
        --report "$T/out-gpage-$round.html"
    run corpus5 "$TOKENCAST" forecast "$T/out-$round" --runs 100000 --format json --no-report
    run corpus7 "$TOKENCAST" forecast "$T/out-$round" --runs 10000000 --format json --no-report
    if [ -n "$BOOK" ]; then
        cp "$BOOK" "$T/out-$round/prices.toml"
        run bigbook "$TOKENCAST" forecast "$T/out-$round" --runs 100000 --format json --no-report
    fi
    warm
    CLAUDE_CONFIG_DIR="$CORPUS" run ccusage "$CCUSAGE" claude session --json --offline
    run jsonfloor target/release/examples/json_floor "$CORPUS/projects"
    if [ -n "$REAL" ]; then
        warm
        run real "$TOKENCAST" import claude-code "$REAL/projects" --format json --no-report --out "$T/out-real-$round"
        run realpage "$TOKENCAST" import claude-code "$REAL/projects" --out "$T/out-realpage-$round" \
            --report "$T/out-realpage-$round.html"
        CLAUDE_CONFIG_DIR="$REAL" run ccreal "$CCUSAGE" claude session --json --offline
        run jsonreal target/release/examples/json_floor "$REAL/projects"
    fi
    run small "$TOKENCAST" import claude-code "$SMALL/projects" --format json --no-report --out "$T/out-small-$round"
    run smallpage "$TOKENCAST" import claude-code "$SMALL/projects" --out "$T/out-page-$round" \
        --report "$T/out-page-$round.html"
    CLAUDE_CONFIG_DIR="$SMALL" run ccsmall "$CCUSAGE" claude session --json --offline
    run jsonsmall target/release/examples/json_floor "$SMALL/projects"
    evict "$SMALL/projects"
    run smallcold "$TOKENCAST" import claude-code "$SMALL/projects" --format json --no-report \
        --out "$T/out-smallcold-$round"
    evict "$SMALL/projects"
    CLAUDE_CONFIG_DIR="$SMALL" run ccsmallcold "$CCUSAGE" claude session --json --offline
    run wc wc -l "$P/trace.csv"
    run csv target/release/examples/csv_floor "$P/trace.csv"
    run simulate "$TOKENCAST" simulate "$P/plain.toml" --format json --no-report
    run whatifs "$TOKENCAST" simulate "$P/all.toml" --format json --no-report
    run csv10 target/release/examples/csv_floor "$P10/trace.csv"
    run simulate10 "$TOKENCAST" simulate "$P10/plain.toml" --format json --no-report
    run whatifs10 "$TOKENCAST" simulate "$P10/all.toml" --format json --no-report
    run sweep "$TOKENCAST" sweep "$S/plain.toml" --vary output_tokens_per_step=100..5000:100 \
        --vary bytes_per_token=2..4.45:0.05 --max-points 2500 --format json --no-report
    run forecast "$TOKENCAST" forecast scenarios/research.toml --calls 20 --runs 1000000 \
        --format json --no-report
done
rm -rf "$T"/out-* "$TRASH"
python3 - "$T/times" "$RUNS" <<'EOF'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 3 and parts[1][0].isdigit():
        times.setdefault(parts[0], []).append((float(parts[1]), int(parts[2])))
med = {k: statistics.median(t for t, _ in v) for k, v in times.items()}
rss = {k: max(m for _, m in v) // 1024 for k, v in times.items()}
rows = [
    ("import claude-code, 1 GB", "import", "ccusage", "ratio <= 0.67 (1.5x faster)"),
    ("  the same, default outputs (page too)", "importpage", "ccusage", "ratio <= 0.67"),
    ("  (floor: serde_json, every line, 2 cores)", "jsonfloor", "ccusage", ""),
    ("re-import into the same folder", "reimport", "import", "ratio <= 1.0"),
    ("import claude-code, 1 GB of real logs (x72)", "real", "ccreal", "ratio <= 0.67"),
    ("  the same, default outputs (page too)", "realpage", "ccreal", "ratio <= 0.67"),
    ("  (floor: serde_json, every line, 2 cores)", "jsonreal", "ccreal", ""),
    ("import claude-code, 686 MB of small sessions", "small", "ccsmall", "ratio <= 0.67"),
    ("  the same, default outputs (page too)", "smallpage", "ccsmall", "ratio <= 0.67"),
    ("  (floor: serde_json, every line, 2 cores)", "jsonsmall", "ccsmall", ""),
    ("  the same, logs not in the page cache", "smallcold", "ccsmallcold", "(both read from the disk)"),
    ("simulate, 1,000,000 rows", "simulate", "csv", "<= 0.3 s and ratio <= 2.5"),
    ("  (wc -l of the same file)", "wc", None, ""),
    ("simulate with every what-if", "whatifs", "simulate", "ratio <= 2"),
    ("simulate, 10,000,000 rows", "simulate10", "csv10", "<= 3 s and <= 500 MB"),
    ("  with every what-if", "whatifs10", "simulate10", "ratio <= 2"),
    ("sweep 50 x 50, two replay axes, 100k rows", "sweep", None, "<= 10 s"),
    ("forecast --calls 20 --runs 1000000", "forecast", None, "<= 0.5 s"),
    ("forecast of 1 GB's sessions, 10^5 days", "corpus5", None, ""),
    ("forecast of 1 GB's sessions, 10^7 days", "corpus7", "corpus5", "RSS as at 10^5 days"),
    ("  the same, 10^5 days, a 1.5 MB price book", "bigbook", "corpus5", "book parsed once"),
]
print(f"medians of {sys.argv[2]} interleaved rounds")
print(f"{'what':<44} {'time':>8} {'RSS':>7}  {'beside':<10} {'time':>8} {'ratio':>6}  target")
for label, key, other, target in rows:
    if key not in med:
        continue
    beside = f"{other:<10} {med[other]:>7.2f}s {med[key] / med[other]:>6.2f}" if other else f"{'':<10} {'':>8} {'':>6}"
    print(f"{label:<44} {med[key]:>7.2f}s {rss[key]:>5}MB  {beside}  {target}")
EOF
