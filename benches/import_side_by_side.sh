#!/usr/bin/env bash
# A change to the import measured against the build before it, with ccusage
# 20.0.24 in the same rounds: `import claude-code` into a new folder, then a
# re-import into that folder, for this tree's release build and OTHER (a
# tokencast binary built from another commit), interleaved, RUNS rounds
# (default 5); prints the medians, the peak RSS and the ratios.
#
#   git stash; cargo build --release; cp target/release/tokencast /tmp/tc-before; git stash pop
#   bash benches/import_side_by_side.sh /tmp/tc-before [CORPUS_PROJECTS]
#
# CORPUS_PROJECTS defaults to the 1 GB corpus of benches/import_vs_ccusage.sh
# (generated there if missing). Needs cargo, npm, python3 and /usr/bin/time;
# nothing outside target/ is written.
set -euo pipefail
cd "$(dirname "$0")/.."
OTHER=${1:?usage: bash benches/import_side_by_side.sh OTHER_TOKENCAST_BINARY [CORPUS_PROJECTS]}
RUNS=${RUNS:-5}
T=target/bench-import
. benches/ccusage.sh
PROJECTS=${2:-$T/corpus-1000000000/projects}
if [ ! -d "$PROJECTS" ]; then
    target/release/examples/gen_claude_corpus "$PROJECTS" 1000000000 1 300 >/dev/null
fi
W="$T/side-by-side"
# An earlier run's outputs are moved aside and deleted at the end: a file
# created soon after thousands were deleted waits on this disk (ext4
# without a journal), which the imports would pay and ccusage would not
# (see benches/import_vs_ccusage.sh).
TRASH="$T/trash.$$"
mkdir -p "$TRASH"
trap 'rm -rf "$TRASH"' EXIT
[ -e "$W" ] && mv "$W" "$TRASH/"
mkdir -p "$W"
: > "$W/times"
# The logs in the page cache before each tool alike (this machine reclaims
# cold pages).
warm() { find "$PROJECTS" -name '*.jsonl' -exec cat {} + > /dev/null; }
# label, command...: one timed run appended as "label seconds KB".
run() {
    local label=$1; shift
    /usr/bin/time -f "$label %e %M" -a -o "$W/times" "$@" > /dev/null 2>&1
}
for round in $(seq "$RUNS"); do
    # Each build goes first in every other round.
    order="this other"
    [ $((round % 2)) = 0 ] && order="other this"
    for which in $order; do
        bin=$TOKENCAST
        [ "$which" = other ] && bin=$OTHER
        # A new folder each round: no earlier deletion is charged to it.
        warm
        run "$which-import" "$bin" import claude-code "$PROJECTS" --format json --no-report --out "$W/$which-$round"
        run "$which-reimport" "$bin" import claude-code "$PROJECTS" --format json --no-report --out "$W/$which-$round"
    done
    warm
    CLAUDE_CONFIG_DIR=$(dirname "$PROJECTS") run ccusage "$CCUSAGE" claude session --json --offline
done
mv "$W"/this-* "$W"/other-* "$TRASH/"
python3 - "$W/times" "$RUNS" "$PROJECTS" <<'EOF'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    label, s, kb = line.split()
    times.setdefault(label, []).append((float(s), int(kb)))
med = {k: statistics.median(s for s, _ in v) for k, v in times.items()}
rss = {k: max(kb for _, kb in v) // 1024 for k, v in times.items()}
print(f"{sys.argv[3]}: medians of {sys.argv[2]} interleaved rounds")
for k in ["this-import", "other-import", "this-reimport", "other-reimport", "ccusage"]:
    print(f"{k:<16} {med[k]:6.2f} s {rss[k]:6d} MB")
print(f"this / other, import:   {med['this-import'] / med['other-import']:.2f}")
print(f"this / other, re-import: {med['this-reimport'] / med['other-reimport']:.2f}")
print(f"this / ccusage, import: {med['this-import'] / med['ccusage']:.2f}")
print(f"this re-import / this import: {med['this-reimport'] / med['this-import']:.2f}")
EOF
