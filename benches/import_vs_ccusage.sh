#!/usr/bin/env bash
# Benchmark: `tokencast import claude-code` against `ccusage claude session
# --json` (ccusage 20.0.24, its native binary) on the same generated corpus,
# at 100 MB and 1 GB of sessions of 20–300 requests (about 2 MB each) and
# at 686 MB of small sessions (20–28 requests: about 2,100 sessions, the
# shape where writing the files costs most). Reports the median of 5 runs
# of each, run interleaved, peak RSS, the time ratio, a re-import into the
# same folder, and whether every session's token totals agree.
#
#   bash benches/import_vs_ccusage.sh            # all three corpora
#   SIZES="100000000:300" bash benches/import_vs_ccusage.sh   # BYTES:MAX_REQUESTS
#
# Needs cargo, npm (ccusage is installed under target/, never committed),
# python3 and /usr/bin/time. Nothing outside target/ is written.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"100000000:300 1000000000:300 686000000:28"}
RUNS=${RUNS:-5}
T=target/bench-import
. benches/ccusage.sh

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Outputs of earlier runs are moved aside and deleted only when every
# measurement is done: on this machine's ext4 (no journal) a file created
# within a minute or more of thousands being deleted waits while the
# allocator skips the recently freed inodes, which the import pays (it
# creates files) and ccusage does not; a first import does not follow such
# a deletion.
TRASH="$T/trash.$$"
mkdir -p "$TRASH"
trap 'rm -rf "$TRASH"' EXIT
aside() { for d in "$@"; do [ -e "$d" ] && mv "$d" "$TRASH/$(basename "$d").$RANDOM$RANDOM"; done; return 0; }

for spec in $SIZES; do
    size=${spec%%:*}; max_requests=${spec##*:}
    corpus="$T/corpus-$size"
    [ "$max_requests" = 300 ] || corpus="$T/small-$size"
    if [ ! -d "$corpus/projects" ]; then
        target/release/examples/gen_claude_corpus "$corpus/projects" "$size" 1 "$max_requests"
    fi
    : > "$T/tk-$size.times"; : > "$T/cc-$size.times"
    # Each run imports into a new folder: deleting the last run's output
    # just before would charge this run with the disk's discards of the
    # deleted blocks (ext4 mounted with `discard`), which a first import
    # into a new folder does not pay.
    aside "$T/out-$size" "$T/out-$size".*
    # The logs in the page cache before each tool alike (this machine
    # reclaims cold pages; see benches/targets.sh).
    warm() { find "$corpus/projects" -name '*.jsonl' -exec cat {} + > /dev/null; }
    for run in $(seq "$RUNS"); do
        warm
        /usr/bin/time -f "%e %M" -o "$T/tk.one" "$TOKENCAST" import claude-code "$corpus/projects" \
            --format json --no-report --out "$T/out-$size.$run" > "$T/tk-$size.json" 2>/dev/null
        cat "$T/tk.one" >> "$T/tk-$size.times"
        warm
        CLAUDE_CONFIG_DIR="$corpus" /usr/bin/time -f "%e %M" -o "$T/cc.one" "$CCUSAGE" claude session \
            --json --offline > "$T/cc-$size.json" 2>/dev/null
        cat "$T/cc.one" >> "$T/cc-$size.times"
    done
    mv "$T/out-$size.$RUNS" "$T/out-$size"
    aside "$T/out-$size".*
    # Re-import into the folder the last run wrote: the same sessions, so
    # every file is made again and compared with the one in place; one that holds the same
    # bytes stays in place.
    : > "$T/re-$size.times"
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$T/tk.one" "$TOKENCAST" import claude-code "$corpus/projects" \
            --format json --no-report --out "$T/out-$size" > /dev/null 2>&1
        cat "$T/tk.one" >> "$T/re-$size.times"
    done
    re_s=$(cut -d' ' -f1 "$T/re-$size.times" | median)
    tk_s=$(cut -d' ' -f1 "$T/tk-$size.times" | median); tk_kb=$(cut -d' ' -f2 "$T/tk-$size.times" | sort -n | tail -1)
    cc_s=$(cut -d' ' -f1 "$T/cc-$size.times" | median); cc_kb=$(cut -d' ' -f2 "$T/cc-$size.times" | sort -n | tail -1)
    echo "== $(du -sb "$corpus" | cut -f1) bytes of logs ($size requested), median of $RUNS runs"
    echo "tokencast import claude-code : ${tk_s} s, peak RSS ${tk_kb} KB (also measures every tool result, writes traces and scenarios)"
    echo "ccusage claude session --json: ${cc_s} s, peak RSS ${cc_kb} KB"
    echo "tokencast re-import, same --out: ${re_s} s ($(ls "$T/out-$size" | wc -l) entries in --out)"
    python3 - "$T/tk-$size.json" "$T/cc-$size.json" "$tk_s" "$cc_s" <<'PY'
import json, sys
tk = json.load(open(sys.argv[1])); cc = json.load(open(sys.argv[2]))
print(f"time ratio tokencast / ccusage: {float(sys.argv[3]) / float(sys.argv[4]):.2f}")
ours = {s["session"]: s["usage"] for s in tk["sessions"]}
theirs = {s["sessionId"]: s for s in cc["sessions"]}
same = differ = 0
for sid, u in ours.items():
    c = theirs.get(sid)
    a = (u["input"], u["cache_write_5m"] + u["cache_write_1h"], u["cache_read"], u["output"])
    b = c and (c["inputTokens"], c["cacheCreationTokens"], c["cacheReadTokens"], c["outputTokens"])
    if a == b:
        same += 1
    else:
        differ += 1
        print(f"  differs: {sid}: tokencast {a}, ccusage {b}")
extra = sorted(set(theirs) - set(ours))
print(f"sessions with equal token totals: {same} of {len(ours)}; differing: {differ}")
if extra:
    dup = sum(theirs[s]["inputTokens"] + theirs[s]["outputTokens"] + theirs[s]["cacheCreationTokens"] + theirs[s]["cacheReadTokens"] for s in extra)
    print(f"ccusage lists {len(extra)} more 'session(s)' ({', '.join(extra[:3])}{', …' if len(extra) > 3 else ''}): resumed-session files that log "
          f"{tk['skipped']['duplicate_messages']} earlier messages again without requestId; ccusage counts their {dup:,} tokens a second time, tokencast once (by message.id).")
PY
done
